//! Large byte buffers reused instead of mapped afresh. The allocator maps
//! every buffer over 256 KiB on its own (lib.rs) and unmaps it when freed,
//! so a chunk's frame or decoded bytes cost a page fault and a zeroed page
//! for every 4 KiB each time; read at deep verify and ingest, that was
//! about a tenth of their CPU. A few buffers freed by one chunk are kept
//! for the next; memory stays bounded by KEEP buffers and KEEP_BYTES in all.

use std::sync::Mutex;

/// Buffers kept between uses.
const KEEP: usize = 4;
/// Smaller buffers come from the heap cheaply; larger ones are rare and not kept.
const MIN: usize = 64 * 1024;
const MAX: usize = 9 << 20;
/// Bytes kept at most: the largest chunks' buffers (4 MiB and more) would otherwise fill every place and stay, 16 MB
/// and more held through a second ingest's peak for chunks that are mostly about 1 MiB.
const KEEP_BYTES: usize = 8 << 20;

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
    let kept: usize = free.iter().map(Vec::capacity).sum();
    if free.len() < KEEP && kept + b.capacity() <= KEEP_BYTES {
        free.push(b);
    } else if let Some(i) = (0..free.len()).min_by_key(|&i| free[i].capacity()) {
        // A larger buffer replaces the smallest kept one, within the bytes kept.
        if free[i].capacity() < b.capacity() && kept - free[i].capacity() + b.capacity() <= KEEP_BYTES {
            free[i] = b;
        }
    }
}
