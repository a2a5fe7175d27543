//! Staged files written off the JavaScript thread (the engine's
//! ingest/staging-writer.ts decides which): a small file whose bytes are all
//! in hand is queued whole, and a thread of its own creates it (exclusively,
//! not through a link), writes it, gives it its length, mode and times,
//! syncs it when asked, and closes it, in queue order. Creating and writing
//! many small files was most of ingest's JavaScript thread; the kernel work
//! now runs beside it. The first failure stops the queue and is reported
//! by the next call, with the step, the errno's name and the file it hit.

use crate::bytes::NativeBytes;
use crate::error::BpError;
use crate::promise::{promise, Settle};
use crate::serial::Serial;
use napi::bindgen_prelude::{Buffer, ClassInstance, Either};
use napi::{Env, JsObject};
use napi_derive::napi;
use std::ffi::CString;
use std::fs::File;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::FileExt;
use std::os::unix::io::{AsRawFd, FromRawFd};
use std::sync::{Arc, Condvar, Mutex};

/// Bytes queued at most; a call beyond waits for the thread to catch up.
const LIMIT: usize = 4 << 20;

/// Where a queued file failed.
#[napi(object)]
#[derive(Clone)]
pub struct StageFailure {
    /// "create", "write" or "finish".
    pub step: String,
    /// The errno (positive; 0 after abort()).
    pub errno: i32,
    /// The call that failed (open, write, ftruncate, fchmod, futimens, fdatasync, close).
    pub syscall: String,
    /// The manifest entry and the staged file.
    pub entry: String,
    pub path: String,
}

struct State {
    queued: usize,
    failure: Option<StageFailure>,
    /// A promise of room(), settled once half the queue is free or the queue stopped.
    room: Option<Settle<()>>,
}

impl State {
    /// The room() promise to settle now, if one waits and there is room (or the queue stopped).
    fn room_ready(&mut self) -> Option<Settle<()>> {
        if self.failure.is_some() || self.queued <= LIMIT / 2 {
            self.room.take()
        } else {
            None
        }
    }
}

struct Shared {
    state: Mutex<State>,
    cv: Condvar,
    /// The staging tree and a slash: below it, a file's missing folders are made.
    tree: Option<Vec<u8>>,
    /// Only the stage's thread uses it.
    pacer: Mutex<Pacer>,
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

struct Job {
    path: String,
    entry: String,
    parts: Vec<(u64, Vec<u8>)>,
    size: u64,
    mode: u32,
    mtime_ns: i64,
    sync: bool,
}

fn check(rc: libc::c_int) -> io::Result<()> {
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Files from this size on are handed to the disk as soon as they are
/// written; smaller ones are left to the one sync before the commit, which
/// writes them together (asked one by one, 300,000 files of 0-4 KiB cost
/// an ingest 5 s more of system time).
const WRITEBACK_MIN: u64 = 256 * 1024;

/// Has the kernel start writing the file's dirty pages to the disk, without
/// waiting (the commit's one file-system sync then finds less left to
/// write); advisory, so a refusal changes nothing.
fn start_writeback(fd: libc::c_int, from: u64) {
    #[cfg(target_os = "linux")]
    // SAFETY: fd is an open descriptor; the call only starts writeback.
    unsafe {
        libc::sync_file_range(fd, from as libc::off64_t, 0, libc::SYNC_FILE_RANGE_WRITE);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (fd, from);
}

/// Bytes and files written after which the stage asks for a sync of their
/// file system, off its own thread: the kernel starts writing dirty pages
/// back only at a tenth of the memory (2.4 GB here) or after 30 s, so a
/// stage of many small files left all of it to the one sync before the
/// commit, which then waited on the disk alone (2 s of a 12 s ingest of
/// 300,000 files). Synced as they go, the disk writes while the files
/// are made, and the last sync finds little left: 11.0 s against 11.7-12.0.
const PACE_BYTES: u64 = 32 << 20;
const PACE_FILES: u64 = 8192;

/// A thread that syncs the file system of the folder it is sent, one at a
/// time; what is sent while one runs is dropped (the next sync covers it).
/// Advice only: a sync that fails is left to the one before the commit,
/// which reports it.
struct Pacer {
    tx: Option<std::sync::mpsc::SyncSender<std::path::PathBuf>>,
    bytes: u64,
    files: u64,
}

impl Pacer {
    fn new() -> Self {
        Pacer { tx: None, bytes: 0, files: 0 }
    }

    /// Counts a file written at `path`; past the pace, asks for a sync of its file system.
    fn wrote(&mut self, path: &str, bytes: u64) {
        self.bytes += bytes;
        self.files += 1;
        if self.bytes < PACE_BYTES && self.files < PACE_FILES {
            return;
        }
        let Some(dir) = std::path::Path::new(path).parent() else { return };
        if self.tx.is_none() {
            self.tx = Self::start();
        }
        if let Some(tx) = &self.tx {
            // Full: a sync is running, and this one waits for the next pace.
            if tx.try_send(dir.to_path_buf()).is_ok() {
                self.bytes = 0;
                self.files = 0;
            }
        }
    }

    fn start() -> Option<std::sync::mpsc::SyncSender<std::path::PathBuf>> {
        let (tx, rx) = std::sync::mpsc::sync_channel::<std::path::PathBuf>(0);
        let spawned = std::thread::Builder::new().name("brickpost-sync".into()).stack_size(64 * 1024).spawn(move || {
            for dir in rx {
                sync_fs(&dir);
            }
        });
        spawned.ok().map(|_| tx)
    }
}

/// syncfs(2) of the file system holding `dir` (Linux); errors ignored.
fn sync_fs(dir: &std::path::Path) {
    #[cfg(target_os = "linux")]
    {
        let Ok(c) = CString::new(dir.as_os_str().as_bytes()) else { return };
        // SAFETY: a valid C string; the descriptor is closed below.
        let fd = unsafe { libc::open(c.as_ptr(), libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC) };
        if fd >= 0 {
            // SAFETY: fd is open; syncfs only flushes.
            unsafe {
                libc::syncfs(fd);
                libc::close(fd);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = dir;
}

/// Makes the folders missing above the file at `path` (mode 0700, as the
/// staging tree's) below the folder `path[..root]`, which must exist: up
/// from the file's folder to the first that exists, then down. The staging
/// tree's files come in manifest order, so a folder is made here, on the
/// stage writer's thread, when its first file is written (StagingWriter.inTree
/// leaves it to this thread).
fn make_parents(path: &[u8], root: usize) -> io::Result<()> {
    let mkdir = |end: usize| -> io::Result<()> {
        let dir = CString::new(&path[..end]).map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?;
        // SAFETY: a valid C string.
        check(unsafe { libc::mkdir(dir.as_ptr(), 0o700) })
    };
    let parent = |end: usize| path[..end].iter().rposition(|&b| b == b'/').filter(|&i| i > root);
    let mut missing = Vec::new();
    let mut end = parent(path.len()).ok_or_else(|| io::Error::from_raw_os_error(libc::ENOENT))?;
    loop {
        match mkdir(end) {
            Ok(()) => break,
            Err(e) if e.raw_os_error() == Some(libc::EEXIST) => break,
            Err(e) if e.raw_os_error() == Some(libc::ENOENT) => {
                missing.push(end);
                end = parent(end).ok_or(e)?;
            }
            Err(e) => return Err(e),
        }
    }
    for &end in missing.iter().rev() {
        match mkdir(end) {
            Err(e) if e.raw_os_error() != Some(libc::EEXIST) => return Err(e),
            _ => {}
        }
    }
    Ok(())
}

/// Writes one staged file; the step, the call and the error of a failure.
fn write_file(j: &Job, tree: Option<&[u8]>) -> Result<(), (&'static str, &'static str, io::Error)> {
    let c = CString::new(std::ffi::OsStr::new(&j.path).as_bytes()).map_err(|_| ("create", "open", io::Error::from_raw_os_error(libc::EINVAL)))?;
    let flags = libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW | libc::O_CLOEXEC;
    // SAFETY: a valid C string; the descriptor is owned by the File below.
    let mut fd = unsafe { libc::open(c.as_ptr(), flags, 0o600 as libc::c_uint) };
    if fd < 0 {
        let e = io::Error::last_os_error();
        // A file of the staging tree whose folder is not made yet: its folders, then the file.
        let below = tree.filter(|t| c.as_bytes().starts_with(t)).map(|t| t.len() - 1);
        let (Some(libc::ENOENT), Some(root)) = (e.raw_os_error(), below) else {
            return Err(("create", "open", e));
        };
        make_parents(c.as_bytes(), root).map_err(|e| ("create", "mkdir", e))?;
        // SAFETY: as above.
        fd = unsafe { libc::open(c.as_ptr(), flags, 0o600 as libc::c_uint) };
        if fd < 0 {
            return Err(("create", "open", io::Error::last_os_error()));
        }
    }
    // SAFETY: fd was just opened and is owned here alone.
    let f = unsafe { File::from_raw_fd(fd) };
    let mut data_end = 0u64;
    for (at, bytes) in &j.parts {
        f.write_all_at(bytes, *at).map_err(|e| ("write", "write", e))?;
        data_end = at + bytes.len() as u64;
    }
    let writeback = if j.size >= WRITEBACK_MIN { Some(0) } else { None };
    finish_file(f, &Finish { size: j.size, data_end, mode: j.mode, mtime_ns: j.mtime_ns, sync: j.sync, writeback })
}

/// How a staged file is finished once its bytes are written.
struct Finish {
    size: u64,
    /// Where its last write ended (less than `size` when it ends in a hole).
    data_end: u64,
    mode: u32,
    mtime_ns: i64,
    sync: bool,
    /// When not synced: the offset from which the kernel is asked to start writing it to the disk.
    writeback: Option<u64>,
}

/// Gives the file its length, mode and times, syncs it or starts its writeback, and closes it (an error of close is seen).
fn finish_file(f: File, j: &Finish) -> Result<(), (&'static str, &'static str, io::Error)> {
    let fd = f.as_raw_fd();
    let t = libc::timespec { tv_sec: j.mtime_ns.div_euclid(1_000_000_000) as libc::time_t, tv_nsec: j.mtime_ns.rem_euclid(1_000_000_000) as _ };
    let finish = || -> Result<(), (&'static str, io::Error)> {
        // A file that ends in a hole gets its length here.
        if j.data_end < j.size {
            check(unsafe { libc::ftruncate(fd, j.size as libc::off_t) }).map_err(|e| ("ftruncate", e))?;
        }
        check(unsafe { libc::fchmod(fd, j.mode as libc::mode_t) }).map_err(|e| ("fchmod", e))?;
        check(unsafe { libc::futimens(fd, [t, t].as_ptr()) }).map_err(|e| ("futimens", e))?;
        if j.sync {
            check(unsafe { libc::fdatasync(fd) }).map_err(|e| ("fdatasync", e))?;
        } else if let Some(from) = j.writeback {
            start_writeback(fd, from);
        }
        Ok(())
    };
    finish().map_err(|(call, e)| ("finish", call, e))?;
    let fd = std::os::unix::io::IntoRawFd::into_raw_fd(f);
    check(unsafe { libc::close(fd) }).map_err(|e| ("finish", "close", e))
}

fn failure(step: &str, call: &str, e: &io::Error, entry: &str, path: &str) -> StageFailure {
    StageFailure { step: step.into(), errno: e.raw_os_error().unwrap_or(libc::EIO), syscall: call.into(), entry: entry.into(), path: path.into() }
}

/// Staged files written in order on a thread of their own.
#[napi]
pub struct StageWriter {
    serial: Option<Serial>,
    shared: Arc<Shared>,
}

#[napi]
impl StageWriter {
    #[napi(constructor)]
    #[allow(clippy::new_without_default)]
    pub fn new(tree: Option<String>) -> Self {
        crate::init();
        StageWriter {
            serial: Some(Serial::new("brickpost-stage")),
            shared: Arc::new(Shared {
                state: Mutex::new(State { queued: 0, failure: None, room: None }),
                cv: Condvar::new(),
                pacer: Mutex::new(Pacer::new()),
                tree: tree.map(|t| format!("{t}/").into_bytes()),
            }),
        }
    }

    /// Queues the staged file `path` (manifest entry `entry`): `parts` at
    /// `offsets` (NativeBytes are taken; Buffers are copied), then its
    /// length `size`, `mode` and both times `mtimeNs` (decimal nanoseconds,
    /// within 64 bits), synced when `sync`. Waits while too many bytes are
    /// queued. Returns the first failure so far (nothing more is written
    /// after one), or null.
    #[napi]
    #[allow(clippy::too_many_arguments)]
    pub fn file(
        &self,
        path: String,
        entry: String,
        parts: Vec<Either<Buffer, ClassInstance<NativeBytes>>>,
        offsets: Vec<f64>,
        size: f64,
        mode: u32,
        mtime_ns: String,
        sync: bool,
    ) -> napi::Result<Option<StageFailure>> {
        let mtime_ns: i64 = mtime_ns.parse().map_err(|_| napi::Error::from(BpError::new("USAGE", format!("not a time in nanoseconds: {mtime_ns}"))))?;
        let mut owned = Vec::with_capacity(parts.len());
        let mut bytes = 0usize;
        for (i, part) in parts.into_iter().enumerate() {
            let v = match part {
                Either::A(b) => b.to_vec(),
                Either::B(mut nb) => crate::error::napi_result(nb.take())?,
            };
            bytes += v.len();
            owned.push((offsets.get(i).copied().unwrap_or(0.0) as u64, v));
        }
        let job = Job { path, entry, parts: owned, size: size as u64, mode, mtime_ns, sync };
        let shared = self.shared.clone();
        self.enqueue(bytes, move |failed| {
            let r = if failed { Ok(()) } else { write_file(&job, shared.tree.as_deref()) };
            if r.is_ok() && !failed && !job.sync {
                shared.pacer.lock().unwrap_or_else(|e| e.into_inner()).wrote(&job.path, job.size);
            }
            let r = r.map_err(|(step, call, e)| failure(step, call, &e, &job.entry, &job.path));
            for (_, v) in job.parts {
                crate::recycle::give(v);
            }
            r
        })
    }

    /// Queues `data` (NativeBytes are taken; a Buffer is copied) to be
    /// written at `offset` of the open file `fd` (the staged file `path` of
    /// manifest entry `entry`), which stays the caller's until it is handed
    /// to finish(). `writeback` >= 0: the kernel is then asked to start
    /// writing the file to the disk from that offset. Waits while too many
    /// bytes are queued. The first failure so far (nothing more is written
    /// after one), or null.
    #[napi]
    pub fn write(&self, fd: i32, path: String, entry: String, offset: f64, data: Either<Buffer, ClassInstance<NativeBytes>>, writeback: f64) -> napi::Result<Option<StageFailure>> {
        let bytes = match data {
            Either::A(b) => b.to_vec(),
            Either::B(mut nb) => crate::error::napi_result(nb.take())?,
        };
        let n = bytes.len();
        let at = offset as u64;
        let kick = (writeback >= 0.0).then_some(writeback as u64);
        self.enqueue(n, move |failed| {
            let mut r = Ok(());
            if !failed {
                // SAFETY: the caller keeps fd open until the finish queued after this write; the File is forgotten, never closed here.
                let f = std::mem::ManuallyDrop::new(unsafe { File::from_raw_fd(fd) });
                r = f.write_all_at(&bytes, at).map_err(|e| failure("write", "write", &e, &entry, &path));
                if r.is_ok() {
                    if let Some(from) = kick {
                        start_writeback(fd, from);
                    }
                }
            }
            crate::recycle::give(bytes);
            r
        })
    }

    /// Queues the end of a file written through write(): the open file `fd`
    /// (now this writer's, closed here in any case) gets its length `size`
    /// (its last write ended at `dataEnd`), `mode` and both times `mtimeNs`,
    /// and is synced when `sync`, else written to the disk from `writeback`
    /// on (when >= 0). Never waits. The first failure so far, or null.
    #[napi]
    #[allow(clippy::too_many_arguments)]
    pub fn finish(&self, fd: i32, path: String, entry: String, size: f64, data_end: f64, mode: u32, mtime_ns: String, sync: bool, writeback: f64) -> napi::Result<Option<StageFailure>> {
        let parsed: Result<i64, _> = mtime_ns.parse();
        let end = Finish { size: size as u64, data_end: data_end as u64, mode, mtime_ns: *parsed.as_ref().unwrap_or(&0), sync, writeback: (writeback >= 0.0).then_some(writeback as u64) };
        let bad = parsed.is_err();
        let queued = self.enqueue(0, move |failed| {
            // SAFETY: the descriptor is this writer's from here on: closed by finish_file, or when this File drops.
            let f = unsafe { File::from_raw_fd(fd) };
            if failed || bad {
                return Ok(());
            }
            finish_file(f, &end).map_err(|(step, call, e)| failure(step, call, &e, &entry, &path))
        });
        if bad {
            return Err(BpError::new("USAGE", format!("not a time in nanoseconds: {mtime_ns}")).into());
        }
        queued
    }

    /// Queues `work` holding `bytes` of the queue, once they fit (it runs
    /// with whether a failure came first, and returns its own); the first
    /// failure so far, or null. Work queued after a failure still runs, to
    /// free what it holds.
    fn enqueue(&self, bytes: usize, work: impl FnOnce(bool) -> Result<(), StageFailure> + Send + 'static) -> napi::Result<Option<StageFailure>> {
        let Some(serial) = &self.serial else {
            return Err(BpError::new("USAGE", "stage writer used after close").into());
        };
        let before = {
            let mut s = self.shared.lock();
            while s.failure.is_none() && s.queued > 0 && s.queued + bytes > LIMIT {
                s = self.shared.cv.wait(s).unwrap_or_else(|e| e.into_inner());
            }
            s.queued += bytes;
            s.failure.clone()
        };
        let shared = self.shared.clone();
        serial.run(move || {
            let failed = shared.lock().failure.is_some();
            let r = work(failed);
            let mut s = shared.lock();
            s.queued -= bytes;
            if let Err(f) = r {
                s.failure.get_or_insert(f);
            }
            let ready = s.room_ready();
            drop(s);
            shared.cv.notify_all();
            if let Some(r) = ready {
                r.settle(Ok(()));
            }
        });
        Ok(before)
    }

    /// Whether more than half the queue's bytes wait: the caller had better
    /// await room() than queue more and have file() block its thread.
    #[napi(getter)]
    pub fn busy(&self) -> bool {
        let s = self.shared.lock();
        s.failure.is_none() && s.queued > LIMIT / 2
    }

    /// Resolves once at most half the queue's bytes wait (at once when so),
    /// or the queue stopped on a failure (which the next call reports).
    #[napi(ts_return_type = "Promise<void>")]
    pub fn room(&self, env: Env) -> napi::Result<JsObject> {
        let (settle, p) = promise::<()>(&env)?;
        let mut s = self.shared.lock();
        s.room = Some(settle);
        let ready = s.room_ready();
        drop(s);
        if let Some(r) = ready {
            r.settle(Ok(()));
        }
        Ok(p)
    }

    /// Resolves once every file queued so far is written (or failed): to the first failure, or null.
    #[napi(ts_return_type = "Promise<StageFailure | null>")]
    pub fn flush(&self, env: Env) -> napi::Result<JsObject> {
        let (settle, p) = promise::<Option<StageFailure>>(&env)?;
        let shared = self.shared.clone();
        match &self.serial {
            Some(serial) => serial.run(move || settle.settle(Ok(shared.lock().failure.clone()))),
            None => settle.settle(Ok(shared.lock().failure.clone())),
        }
        Ok(p)
    }

    /// Writes nothing more: files not started are dropped; waits for the one being written.
    #[napi]
    pub fn abort(&mut self) {
        let waiting = {
            let mut s = self.shared.lock();
            if s.failure.is_none() {
                s.failure = Some(StageFailure {
                    step: "abort".into(),
                    errno: 0,
                    syscall: String::new(),
                    entry: String::new(),
                    path: String::new(),
                });
            }
            s.room.take()
        };
        if let Some(r) = waiting {
            r.settle(Ok(()));
        }
        if let Some(serial) = self.serial.take() {
            let done = Arc::new((Mutex::new(false), Condvar::new()));
            let d = done.clone();
            serial.run(move || {
                *d.0.lock().unwrap_or_else(|e| e.into_inner()) = true;
                d.1.notify_all();
            });
            let mut g = done.0.lock().unwrap_or_else(|e| e.into_inner());
            while !*g {
                g = done.1.wait(g).unwrap_or_else(|e| e.into_inner());
            }
        }
    }
}
