//! A thread of its own per stateful object (a large file being cut, a pack
//! being sealed or read): it runs the object's jobs one after another in
//! call order, which is what keeps a file's cuts, a STREAM's counter and a
//! pack's hash sequential, and it is where the object's blocking reads
//! happen, so the CPU pool (rayon, one thread per core) never waits on the
//! disk. The per-byte work a job can split (compression, decryption,
//! decoding) goes from here to the pool. The rule that keeps this free of
//! deadlocks: an object's thread may wait for the pool, a pool thread never
//! waits for an object's thread (results are settled from where they are).

use std::sync::mpsc::{channel, Sender};
use std::thread;

type Job = Box<dyn FnOnce() + Send + 'static>;

pub struct Serial {
    tx: Option<Sender<Job>>,
}

impl Serial {
    pub fn new(name: &str) -> Self {
        let (tx, rx) = channel::<Job>();
        thread::Builder::new()
            .name(name.to_string())
            .stack_size(256 * 1024)
            .spawn(move || {
                while let Ok(job) = rx.recv() {
                    job();
                }
            })
            .expect("spawn a brickpost native thread");
        Serial { tx: Some(tx) }
    }

    /// Queues a job; jobs run in the order they were queued.
    pub fn run(&self, job: impl FnOnce() + Send + 'static) {
        if let Some(tx) = &self.tx {
            // The thread only stops once the sender is gone, so this cannot fail.
            let _ = tx.send(Box::new(job));
        }
    }
}

impl Drop for Serial {
    fn drop(&mut self) {
        // Dropping the sender ends the thread after the jobs already queued.
        self.tx.take();
    }
}
