//! Errors as they cross into JavaScript: a BrickpostError code, a message
//! and a hint, joined by U+0001 in the napi Error's reason, and for a
//! failure at one item of a batch (a pack reader's refs) its index as a
//! fourth part (the loader splits them again, index.js `nativeErrorParts`). File errors carry `ERRNO:<name>` as
//! their code so the engine can word them as it words its own.

use std::fmt;
use std::io;

/// An error with a stable BrickpostError code (see the manifest's errors.ts).
#[derive(Debug, Clone)]
pub struct BpError {
    pub code: String,
    pub message: String,
    pub hint: Option<String>,
    /// The index of the item of a batch that failed, if the error is about one.
    pub at: Option<usize>,
}

pub type BpResult<T> = Result<T, BpError>;

impl BpError {
    pub fn new(code: &str, message: impl Into<String>) -> Self {
        BpError { code: code.to_string(), message: message.into(), hint: None, at: None }
    }

    /// The same error, about item `i` of a batch.
    pub fn at(mut self, i: usize) -> Self {
        self.at = Some(i);
        self
    }

    pub fn with_hint(mut self, hint: &str) -> Self {
        self.hint = Some(hint.to_string());
        self
    }

    /// A file-system error: the code names the errno so the caller can word it.
    pub fn io(e: &io::Error, what: &str) -> Self {
        // The errno's own name, so the engine words it as it words Node's errors (a read-only disk is not an I/O error).
        let name = match e.raw_os_error() {
            Some(libc::ENOENT) => "ENOENT",
            Some(libc::EACCES) => "EACCES",
            Some(libc::EPERM) => "EPERM",
            Some(libc::ENOSPC) => "ENOSPC",
            Some(libc::EDQUOT) => "EDQUOT",
            Some(libc::EROFS) => "EROFS",
            Some(libc::EBUSY) => "EBUSY",
            Some(libc::ENOTDIR) => "ENOTDIR",
            Some(libc::EISDIR) => "EISDIR",
            Some(libc::EEXIST) => "EEXIST",
            Some(libc::EXDEV) => "EXDEV",
            Some(libc::EMFILE) => "EMFILE",
            Some(libc::ENFILE) => "ENFILE",
            Some(libc::EFBIG) => "EFBIG",
            Some(libc::ENAMETOOLONG) => "ENAMETOOLONG",
            Some(libc::EINVAL) => "EINVAL",
            Some(libc::ENXIO) => "ENXIO",
            Some(libc::ENODEV) => "ENODEV",
            Some(libc::ETIMEDOUT) => "ETIMEDOUT",
            Some(libc::ESTALE) => "ESTALE",
            Some(libc::ENOMEM) => "ENOMEM",
            Some(libc::EAGAIN) => "EAGAIN",
            Some(libc::EINTR) => "EINTR",
            Some(libc::ELOOP) => "ELOOP",
            _ => "EIO",
        };
        BpError::new(&format!("ERRNO:{name}"), format!("{what}: {e}"))
    }
}

impl fmt::Display for BpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl From<BpError> for napi::Error {
    fn from(e: BpError) -> Self {
        let hint = e.hint.unwrap_or_default();
        match e.at {
            Some(i) => napi::Error::from_reason(format!("{}\u{1}{}\u{1}{}\u{1}{}", e.code, e.message, hint, i)),
            None => napi::Error::from_reason(format!("{}\u{1}{}\u{1}{}", e.code, e.message, hint)),
        }
    }
}

/// Converts a native result for napi.
pub fn napi_result<T>(r: BpResult<T>) -> napi::Result<T> {
    r.map_err(napi::Error::from)
}
