//! The pack side of the data path: files read, cut (FastCDC v1), named
//! (HMAC-SHA256), compressed (zstd, sampling test, raw frames) and, when
//! asked, digested (SHA-256) and signed (bpsig1), in one pass over each
//! byte. Small files are one job on the CPU pool; a large file has a thread
//! of its own that reads and cuts batches of about 4 MiB into one of two
//! buffers, while the pool encodes the other buffer's chunks in place.

use crate::bytes::NativeBytes;
use crate::codec::{chunk_id, encode_chunk, id_mac, HmacSha256};
use crate::cut::{find_cut, MAX};
use crate::error::{BpError, BpResult};
use crate::promise::promise;
use crate::serial::Serial;
use crate::sig::SignatureBuilder;
use napi::bindgen_prelude::{Buffer, Either};
use napi::{Env, JsObject};
use napi_derive::napi;
use rayon::prelude::*;
use sha2::{Digest, Sha256};
use std::ffi::OsStr;
use std::fs::File;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::os::unix::fs::FileExt;
use std::collections::HashSet;
use std::sync::{Arc, Condvar, Mutex};

/// Bytes read per batch of a large file (two buffers of BLOCK + MAX each).
const BLOCK: usize = 4 << 20;

/// Bytes of a large file the kernel is asked to read ahead of the last read (POSIX_FADV_WILLNEED): 8 MiB left a
/// cold disk idle between requests (the large files of the 2 GiB bench packed cold in 3.7-4.0 s, 3.4-3.8 s at 32 MiB).
const READ_AHEAD: u64 = 32 << 20;

/// One encoded chunk.
#[napi(object, object_from_js = false)]
pub struct NativeChunk {
    /// HMAC-SHA256(key, bytes).
    pub id: Buffer,
    /// Exactly one Zstandard frame, held natively until sealed.
    pub frame: NativeBytes,
    /// True when the frame is compressed, false for raw blocks.
    pub zstd: bool,
    pub length: u32,
    /// SHA-256 of the bytes, when asked for.
    pub sha: Option<Buffer>,
    /// The bytes themselves, when asked for.
    pub raw: Option<Buffer>,
    /// The id was among the `known` ones the caller gave: no frame (empty) and no bytes were made.
    pub known: bool,
}

/// The chunks of a small file read whole.
#[napi(object, object_from_js = false)]
pub struct NativeFileResult {
    pub chunks: Vec<NativeChunk>,
    /// How the file differed from its listed size, if it did.
    pub changed: Option<String>,
    pub signature: Option<Buffer>,
}

/// The next chunks of a large file.
#[napi(object, object_from_js = false)]
pub struct NativeBatch {
    pub chunks: Vec<NativeChunk>,
    pub done: bool,
    pub changed: Option<String>,
    /// The file's signature, with the last batch.
    pub signature: Option<Buffer>,
}

#[derive(Clone)]
struct Opts {
    mac: HmacSha256,
    level: i32,
    sha: bool,
    raw: bool,
    /// Ids whose frames the caller does not need (chunks the recipients hold).
    known: Option<Arc<HashSet<[u8; 32]>>>,
}

/// A list of 32-byte ids, as a set.
fn id_set(ids: Option<Buffer>) -> Option<Arc<HashSet<[u8; 32]>>> {
    let ids = ids?;
    Some(Arc::new(ids.chunks_exact(32).map(|c| <[u8; 32]>::try_from(c).expect("32 bytes")).collect()))
}

fn encode_one(o: &Opts, raw: &[u8]) -> NativeChunk {
    let id = chunk_id(&o.mac, raw);
    if o.known.as_ref().is_some_and(|k| k.contains(&id)) {
        return NativeChunk {
            id: id.to_vec().into(),
            frame: NativeBytes::new(Vec::new()),
            zstd: false,
            length: raw.len() as u32,
            sha: o.sha.then(|| Sha256::digest(raw).to_vec().into()),
            raw: None,
            known: true,
        };
    }
    let (frame, zstd) = encode_chunk(raw, o.level);
    NativeChunk {
        id: id.to_vec().into(),
        frame: NativeBytes::new(frame),
        zstd,
        length: raw.len() as u32,
        sha: o.sha.then(|| Sha256::digest(raw).to_vec().into()),
        raw: o.raw.then(|| raw.to_vec().into()),
        known: false,
    }
}

fn encode_all(o: &Opts, data: &[u8], cuts: &[(usize, usize)]) -> Vec<NativeChunk> {
    if cuts.len() == 1 {
        return vec![encode_one(o, &data[cuts[0].0..cuts[0].1])];
    }
    cuts.par_iter().map(|&(a, b)| encode_one(o, &data[a..b])).collect()
}

/// A path as the engine gives it: the name's bytes, which need not be UTF-8.
fn path_of(bytes: &[u8]) -> PathBuf {
    PathBuf::from(OsStr::from_bytes(bytes))
}

fn open(path: &Path) -> BpResult<File> {
    File::open(path).map_err(|e| BpError::io(&e, &format!("cannot open {}", path.display())))
}

fn read_at(f: &File, buf: &mut [u8], at: u64, path: &Path) -> BpResult<usize> {
    loop {
        match f.read_at(buf, at) {
            Ok(n) => return Ok(n),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(BpError::io(&e, &format!("cannot read {}", path.display()))),
        }
    }
}

/// readWholeFile of whole-file.ts, then every chunk encoded.
fn whole_file(o: &Opts, path: &Path, size: usize, sig_block: usize) -> BpResult<NativeFileResult> {
    let f = open(path)?;
    let mut buf = vec![0u8; size + 1];
    let mut got = 0;
    loop {
        let n = read_at(&f, &mut buf[got..], got as u64, path)?;
        if n == 0 {
            break;
        }
        got += n;
        if got == buf.len() {
            break;
        }
    }
    drop(f);
    let mut changed = None;
    if got > size {
        changed = Some(format!("grew while being read; shipped its first {size} bytes"));
    } else if got < size {
        changed = Some(format!("shrank while being read; padded with {} zero bytes", size - got));
        buf[got..size].fill(0);
    }
    let data = &buf[..size];
    let mut cuts = Vec::new();
    let mut pos = 0;
    while pos < size {
        let c = find_cut(&data[pos..], true).expect("eof always decides");
        cuts.push((pos, pos + c));
        pos += c;
    }
    let signature = (sig_block > 0).then(|| {
        let mut s = SignatureBuilder::new(sig_block);
        s.update(data);
        s.finish()
    });
    let chunks = if cuts.is_empty() { Vec::new() } else { encode_all(o, data, &cuts) };
    Ok(NativeFileResult { chunks, changed, signature: signature.map(Buffer::from) })
}

/// Chunks, names and compresses files and buffers with one dataset's chunk key and zstd level.
#[napi]
pub struct Chunker {
    mac: HmacSha256,
    level: i32,
}

#[napi]
impl Chunker {
    /// `key`: the chunk-id key; `level`: the zstd level (checked by the caller).
    #[napi(constructor)]
    pub fn new(key: Buffer, level: i32) -> Self {
        crate::init();
        Chunker { mac: id_mac(&key), level }
    }

    fn opts(&self, sha: bool, raw: bool, known: Option<Buffer>) -> Opts {
        Opts { mac: self.mac.clone(), level: self.level, sha, raw, known: id_set(known) }
    }

    /// Reads a file of at most 8 MiB whole (cut to `size` bytes) and encodes its chunks. `path` holds the name's bytes.
    /// A chunk whose id is in `known` (32-byte ids, one after another) gets no frame and no bytes.
    #[napi(ts_return_type = "Promise<NativeFileResult>")]
    pub fn encode_file(&self, env: Env, path: Buffer, size: f64, sha: bool, signature: u32, raw: bool, known: Option<Buffer>) -> napi::Result<JsObject> {
        let o = self.opts(sha, raw, known);
        let path = path_of(&path);
        let (settle, p) = promise::<NativeFileResult>(&env)?;
        rayon::spawn(move || settle.settle(whole_file(&o, &path, size as usize, signature as usize)));
        Ok(p)
    }

    /// Reads and encodes many small files as `encode_file` does with no signature, no bytes kept and no known ids, spread over
    /// the CPU pool, under one promise: a tree of small files costs one call, one promise and one wake-up of the JavaScript
    /// thread for many files instead of one each. `paths` holds each name's bytes followed by a NUL byte, `sizes` each file's
    /// listed size. Each file's answer is its chunks, or the error message `encode_file` would have rejected with.
    #[napi(ts_return_type = "Promise<Array<NativeFileResult | string>>")]
    pub fn encode_files(&self, env: Env, paths: Buffer, sizes: Vec<f64>, sha: bool) -> napi::Result<JsObject> {
        let o = self.opts(sha, false, None);
        let mut names: Vec<PathBuf> = paths.split(|&b| b == 0).map(path_of).collect();
        // The last name's NUL leaves an empty piece after it.
        names.pop();
        if names.len() != sizes.len() {
            return Err(BpError::new("USAGE", format!("encodeFiles: {} names for {} sizes", names.len(), sizes.len())).into());
        }
        let (settle, p) = promise::<Vec<Either<NativeFileResult, String>>>(&env)?;
        crate::ahead::prefetch(names.iter().zip(&sizes).filter(|(_, &s)| s > 0.0).map(|(n, _)| n.clone()).collect());
        rayon::spawn(move || {
            let out = names
                .par_iter()
                .zip(sizes.par_iter())
                .map(|(path, &size)| match whole_file(&o, path, size as usize, 0) {
                    Ok(r) => Either::A(r),
                    Err(e) => Either::B(napi::Error::from(e).reason),
                })
                .collect();
            settle.settle(Ok(out));
        });
        Ok(p)
    }

    /// Encodes one chunk's bytes (copied).
    #[napi(ts_return_type = "Promise<NativeChunk>")]
    pub fn encode(&self, env: Env, raw: Buffer, sha: bool) -> napi::Result<JsObject> {
        let o = self.opts(sha, false, None);
        let data = raw.to_vec();
        let (settle, p) = promise::<NativeChunk>(&env)?;
        rayon::spawn(move || settle.settle(Ok(encode_one(&o, &data))));
        Ok(p)
    }

    /// Starts a large file, cut to `size` bytes; `next` yields its chunks. `path` holds the name's bytes.
    /// A chunk whose id is in `known` (32-byte ids, one after another) gets no frame and no bytes.
    #[napi]
    pub fn open(&self, path: Buffer, size: f64, sha: bool, signature: u32, raw: bool, known: Option<Buffer>) -> LargeFile {
        let o = self.opts(sha, raw, known);
        let state = LargeState {
            path: path_of(&path),
            size: size as u64,
            file: None,
            read_pos: 0,
            buf: None,
            pos: 0,
            fill: 0,
            changed: None,
            sig: (signature > 0).then(|| SignatureBuilder::new(signature as usize)),
            done: false,
            failed: None,
        };
        LargeFile {
            serial: Some(Serial::new("brickpost-cut")),
            state: Arc::new(Mutex::new(state)),
            pool: Arc::new(BufferPool { free: Mutex::new(vec![Vec::new(), Vec::new()]), cv: Condvar::new(), closed: Default::default() }),
            opts: o,
        }
    }
}

/// A new window buffer, BLOCK + MAX bytes. Zeroed by the allocator (`calloc`: fresh pages from the kernel,
/// already zero), not by a `resize` that wrote every byte of each large file's two windows once more.
fn window() -> Vec<u8> {
    vec![0u8; BLOCK + MAX]
}

/// The two window buffers of a large file: one being filled, one being encoded.
struct BufferPool {
    free: Mutex<Vec<Vec<u8>>>,
    cv: Condvar,
    /// Set by close: buffers given back are freed, not kept.
    closed: std::sync::atomic::AtomicBool,
}

impl BufferPool {
    fn take(&self) -> Vec<u8> {
        let mut free = self.free.lock().unwrap();
        loop {
            if let Some(b) = free.pop() {
                return b;
            }
            free = self.cv.wait(free).unwrap();
        }
    }

    fn give(&self, b: Vec<u8>) {
        if self.closed.load(std::sync::atomic::Ordering::Relaxed) {
            return;
        }
        self.free.lock().unwrap().push(b);
        self.cv.notify_one();
    }
}

struct LargeState {
    path: PathBuf,
    size: u64,
    file: Option<File>,
    read_pos: u64,
    /// The window: bytes [pos, fill) not yet cut, starting at a chunk boundary.
    buf: Option<Vec<u8>>,
    pos: usize,
    fill: usize,
    changed: Option<String>,
    sig: Option<SignatureBuilder>,
    done: bool,
    failed: Option<BpError>,
}

impl LargeState {
    /// Tops the window up from the file (CutWindow.refill of window.ts).
    fn refill(&mut self, buf: &mut [u8]) -> BpResult<()> {
        if self.file.is_none() {
            let f = open(&self.path)?;
            // SAFETY: advice on a descriptor this thread owns; no memory is touched.
            unsafe { libc::posix_fadvise(std::os::unix::io::AsRawFd::as_raw_fd(&f), 0, 0, libc::POSIX_FADV_SEQUENTIAL) };
            self.file = Some(f);
        }
        let f = self.file.as_ref().unwrap();
        let want = ((buf.len() - self.fill) as u64).min(self.size - self.read_pos) as usize;
        let mut got = 0;
        while got < want {
            let n = read_at(f, &mut buf[self.fill + got..self.fill + want], self.read_pos + got as u64, &self.path)?;
            if n == 0 {
                break;
            }
            got += n;
        }
        if got < want {
            self.changed = Some(format!(
                "shrank while being read; its last {} bytes were taken as zeros",
                self.size - self.read_pos - got as u64
            ));
            buf[self.fill + got..self.fill + want].fill(0);
        }
        self.fill += want;
        self.read_pos += want as u64;
        if self.read_pos < self.size {
            // The disk reads the next batch while this one is cut and encoded, rather than at the next read.
            let ahead = READ_AHEAD.min(self.size - self.read_pos);
            // SAFETY: as above.
            unsafe {
                libc::posix_fadvise(
                    std::os::unix::io::AsRawFd::as_raw_fd(f),
                    self.read_pos as libc::off_t,
                    ahead as libc::off_t,
                    libc::POSIX_FADV_WILLNEED,
                )
            };
        }
        if self.read_pos == self.size && self.changed.is_none() {
            let mut one = [0u8; 1];
            if read_at(f, &mut one, self.size, &self.path)? > 0 {
                self.changed = Some(format!("grew while being read; only its first {} bytes were taken", self.size));
            }
        }
        Ok(())
    }

    /// Reads and cuts the next batch into the window; returns the chunks'
    /// ranges, and the buffer with the uncut tail for the next batch.
    fn cut_batch(&mut self, pool: &BufferPool) -> BpResult<(Vec<u8>, Vec<(usize, usize)>)> {
        let mut buf = match self.buf.take() {
            Some(b) => b,
            None => pool.take(),
        };
        if buf.len() < BLOCK + MAX {
            buf = window();
        }
        let mut start = self.pos;
        let mut cuts = Vec::new();
        loop {
            let eof = self.read_pos == self.size;
            match find_cut(&buf[self.pos..self.fill], eof) {
                Some(0) => break,
                Some(c) => {
                    cuts.push((self.pos, self.pos + c));
                    self.pos += c;
                    if self.pos - start >= BLOCK {
                        break;
                    }
                }
                None => {
                    if eof {
                        break;
                    }
                    if !cuts.is_empty() {
                        break;
                    }
                    // Nothing cut yet: make room at the front and read more.
                    buf.copy_within(self.pos..self.fill, 0);
                    self.fill -= self.pos;
                    self.pos = 0;
                    start = 0;
                    self.refill(&mut buf)?;
                }
            }
        }
        if let Some(s) = self.sig.as_mut() {
            s.update(&buf[start..self.pos]);
        }
        self.done = self.read_pos == self.size && self.pos == self.fill;
        // The uncut tail moves to the other buffer, which the next batch fills.
        if !self.done {
            let mut next = pool.take();
            if next.len() < BLOCK + MAX {
                next = window();
            }
            let tail = self.fill - self.pos;
            next[..tail].copy_from_slice(&buf[self.pos..self.fill]);
            self.pos = 0;
            self.fill = tail;
            self.buf = Some(next);
        }
        Ok((buf, cuts))
    }
}

/// A large file being cut and encoded batch by batch.
#[napi]
pub struct LargeFile {
    serial: Option<Serial>,
    state: Arc<Mutex<LargeState>>,
    pool: Arc<BufferPool>,
    opts: Opts,
}

#[napi]
impl LargeFile {
    /// The next batch of chunks (about 4 MiB), in file order; `done` on the last.
    #[napi(ts_return_type = "Promise<NativeBatch>")]
    pub fn next(&self, env: Env) -> napi::Result<JsObject> {
        let (settle, p) = promise::<NativeBatch>(&env)?;
        let Some(serial) = &self.serial else {
            settle.settle(Err(BpError::new("USAGE", "large file read after close")));
            return Ok(p);
        };
        let state = self.state.clone();
        let pool = self.pool.clone();
        let o = self.opts.clone();
        serial.run(move || {
            let mut st = state.lock().unwrap();
            if let Some(e) = &st.failed {
                return settle.settle(Err(e.clone()));
            }
            if st.done {
                return settle.settle(Ok(NativeBatch { chunks: Vec::new(), done: true, changed: None, signature: None }));
            }
            let (buf, cuts) = match st.cut_batch(&pool) {
                Ok(x) => x,
                Err(e) => {
                    st.failed = Some(e.clone());
                    st.file = None;
                    return settle.settle(Err(e));
                }
            };
            let done = st.done;
            let changed = if done { st.changed.clone() } else { None };
            let signature = if done { st.sig.take().map(|s| Buffer::from(s.finish())) } else { None };
            if done {
                st.file = None;
            }
            drop(st);
            rayon::spawn(move || {
                let chunks = if cuts.is_empty() { Vec::new() } else { encode_all(&o, &buf, &cuts) };
                pool.give(buf);
                settle.settle(Ok(NativeBatch { chunks, done, changed, signature }));
            });
        });
        Ok(p)
    }

    /// Stops reading and closes the file (after the batches asked for).
    #[napi]
    pub fn close(&mut self) {
        if let Some(s) = self.serial.take() {
            let state = self.state.clone();
            let pool = self.pool.clone();
            s.run(move || {
                let mut st = state.lock().unwrap();
                st.file = None;
                st.buf = None;
                st.done = true;
                pool.closed.store(true, std::sync::atomic::Ordering::Relaxed);
                pool.free.lock().unwrap().clear();
            });
        }
    }
}
