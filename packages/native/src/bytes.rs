//! Bytes that stay in native memory while JavaScript passes them along: a
//! chunk's frame from the chunker to the pack sealer, a chunk's verified
//! bytes from a pack reader to the staged file. JavaScript sees only their
//! length; whoever consumes them (seal, write_to) takes the memory, which is
//! freed there and then rather than by a later garbage collection.

use crate::error::{BpError, BpResult};
use napi::bindgen_prelude::Buffer;
use napi_derive::napi;
use std::os::unix::fs::FileExt;

/// Bytes held natively; consumed once.
#[napi]
pub struct NativeBytes {
    pub(crate) data: Option<Vec<u8>>,
    len: u32,
}

impl NativeBytes {
    pub fn new(data: Vec<u8>) -> Self {
        let len = data.len() as u32;
        NativeBytes { data: Some(data), len }
    }

    /// The bytes, leaving this object empty.
    pub fn take(&mut self) -> BpResult<Vec<u8>> {
        self.data.take().ok_or_else(|| BpError::new("USAGE", "native bytes already used"))
    }
}

#[napi]
impl NativeBytes {
    /// Their length (also once used).
    #[napi(getter)]
    pub fn length(&self) -> u32 {
        self.len
    }

    /// A copy in a Buffer (a caller that needs the bytes in JavaScript).
    #[napi]
    pub fn to_buffer(&self) -> napi::Result<Buffer> {
        match &self.data {
            Some(d) => Ok(d.clone().into()),
            None => Err(BpError::new("USAGE", "native bytes already used").into()),
        }
    }

    /// Copies them into the start of `into`, a buffer JavaScript reuses, and
    /// frees them; their length. A delta is read in JavaScript: handed over
    /// as a Buffer of its own, each waited for a garbage collection, and a
    /// second ingest held 20-30 MB of them at its peak.
    #[napi]
    pub fn move_into(&mut self, mut into: Buffer) -> napi::Result<u32> {
        let n = self.len as usize;
        if into.len() < n {
            return Err(BpError::new("USAGE", format!("a buffer of {} bytes cannot take {n}", into.len())).into());
        }
        let data = self.take()?;
        into[..n].copy_from_slice(&data);
        crate::recycle::give(data);
        Ok(n as u32)
    }

    /// Frees them now (bytes a caller decided not to use).
    #[napi]
    pub fn release(&mut self) {
        if let Some(d) = self.data.take() {
            crate::recycle::give(d);
        }
    }

    /// Writes them to the open file `fd` at `position` and frees them.
    #[napi]
    pub fn write_to(&mut self, fd: i32, position: f64) -> napi::Result<()> {
        let data = self.take()?;
        // SAFETY: the descriptor stays the caller's: the File is forgotten, never closed here.
        let f = std::mem::ManuallyDrop::new(unsafe { <std::fs::File as std::os::unix::io::FromRawFd>::from_raw_fd(fd) });
        let r = f.write_all_at(&data, position as u64).map_err(|e| napi::Error::from(BpError::io(&e, "cannot write a staged file")));
        crate::recycle::give(data);
        r
    }
}
