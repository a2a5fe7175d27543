//! Large byte buffers reused instead of mapped afresh. The allocator maps
//! every buffer over 256 KiB on its own (lib.rs) and unmaps it when freed,
//! so a chunk's frame or decoded bytes cost a page fault and a zeroed page
//! for every 4 KiB each time; read at deep verify and ingest, that was
//! about a tenth of their CPU. A few buffers freed by one chunk are kept
//! for the next; memory stays bounded by KEEP buffers of at most MAX bytes.

use std::sync::Mutex;

/// Buffers kept between uses.
const KEEP: usize = 4;
/// Smaller buffers come from the heap cheaply; larger ones are rare and not kept.
const MIN: usize = 64 * 1024;
const MAX: usize = 9 << 20;

static FREE: Mutex<Vec<Vec<u8>>> = Mutex::new(Vec::new());

/// An empty buffer with room for at least `cap` bytes.
pub fn take(cap: usize) -> Vec<u8> {
    if (MIN..=MAX).contains(&cap) {
        let mut free = FREE.lock().unwrap_or_else(|e| e.into_inner());
        // The smallest that fits, so large buffers stay for large chunks.
        let mut best: Option<usize> = None;
        for (i, b) in free.iter().enumerate() {
            if b.capacity() >= cap && best.map_or(true, |j| b.capacity() < free[j].capacity()) {
                best = Some(i);
            }
        }
        if let Some(i) = best {
            let mut b = free.swap_remove(i);
            b.clear();
            return b;
        }
    }
    Vec::with_capacity(cap)
}

/// Gives a buffer back once its bytes are no longer needed.
pub fn give(b: Vec<u8>) {
    if !(MIN..=MAX).contains(&b.capacity()) {
        return;
    }
    let mut free = FREE.lock().unwrap_or_else(|e| e.into_inner());
    if free.len() < KEEP {
        free.push(b);
    } else if let Some(i) = (0..free.len()).min_by_key(|&i| free[i].capacity()) {
        // A larger buffer replaces the smallest kept one.
        if free[i].capacity() < b.capacity() {
            free[i] = b;
        }
    }
}
