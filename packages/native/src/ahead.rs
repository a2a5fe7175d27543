//! Files asked of the disk before the CPU pool reads them. The pool has one
//! thread per core, and a pool thread that reads a file nobody has read
//! waits for the disk with its core idle: on two cores, a tree of small and
//! middling files read cold kept the pool about two thirds busy. One thread
//! of its own ("brickpost-ahead") opens each file of a batch as the batch
//! is handed to the pool and asks the kernel for its pages
//! (POSIX_FADV_WILLNEED starts the reads and does not wait for them), so
//! the disk works through the batch while the pool encodes its first
//! files. It is advice only: a file it cannot open is left to the reader,
//! which reports what is wrong with it, and a batch that finds the thread
//! AHEAD batches behind is not read ahead at all (the pool would be there
//! first), so what waits for it stays bounded.

use std::fs::OpenOptions;
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::io::AsRawFd;
use std::path::PathBuf;
use std::sync::mpsc::{sync_channel, SyncSender};
use std::sync::OnceLock;

/// Batches waiting for the thread at most.
const AHEAD: usize = 32;

static QUEUE: OnceLock<Option<SyncSender<Vec<PathBuf>>>> = OnceLock::new();

fn start() -> Option<SyncSender<Vec<PathBuf>>> {
    let (tx, rx) = sync_channel::<Vec<PathBuf>>(AHEAD);
    let spawned = std::thread::Builder::new().name("brickpost-ahead".into()).spawn(move || {
        for batch in rx {
            for path in batch {
                // Not through a link, and without waiting on a FIFO put where the file was.
                let opened = OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW).open(&path);
                if let Ok(f) = opened {
                    // SAFETY: advice only; an error is harmless.
                    unsafe { libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_WILLNEED) };
                }
            }
        }
    });
    spawned.ok().map(|_| tx)
}

/// Asks the disk for `paths`' contents (files about to be read whole), in order.
pub fn prefetch(paths: Vec<PathBuf>) {
    if paths.is_empty() {
        return;
    }
    if let Some(tx) = QUEUE.get_or_init(start) {
        // Full: the thread is behind the pool, and this batch is left to it.
        let _ = tx.try_send(paths);
    }
}
