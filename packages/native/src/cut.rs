//! The v1 chunker (FORMAT.md §chunking; the reference is the engine's
//! chunk/cut.ts): FastCDC 2020 with sub-minimum skipping and normalized
//! chunking level 2 over the gear table of gear.ts.

use sha2::{Digest, Sha256};
use std::sync::OnceLock;

pub const MIN: usize = 256 * 1024;
pub const AVG: usize = 1024 * 1024;
pub const MAX: usize = 4 * 1024 * 1024;
const MASK_S: u32 = 0xffff_fc00;
const MASK_L: u32 = 0xffff_c000;

/// GEAR[i] = first 4 bytes, big-endian, of SHA-256("brickpost-gear-v1" ‖ i).
fn gear() -> &'static [u32; 256] {
    static GEAR: OnceLock<[u32; 256]> = OnceLock::new();
    GEAR.get_or_init(|| {
        let mut t = [0u32; 256];
        for (i, g) in t.iter_mut().enumerate() {
            let mut h = Sha256::new();
            h.update(b"brickpost-gear-v1");
            h.update([i as u8]);
            let d = h.finalize();
            *g = u32::from_be_bytes([d[0], d[1], d[2], d[3]]);
        }
        t
    })
}

/// The length of the chunk at the start of `data`, or None when `data`
/// (not the end of the file unless `eof`) is not enough to decide. Same
/// rule as findCut: the byte that completes a matching hash starts the
/// next chunk.
#[inline]
pub fn find_cut(data: &[u8], eof: bool) -> Option<usize> {
    let n = data.len();
    if n <= MIN {
        return if eof { Some(n) } else { None };
    }
    let g = gear();
    let limit = n.min(MAX);
    let normal = n.min(AVG);
    let mut fp: u32 = 0;
    let mut p = MIN;
    while p < normal {
        fp = (fp << 1).wrapping_add(g[data[p] as usize]);
        if fp & MASK_S == 0 {
            return Some(p);
        }
        p += 1;
    }
    while p < limit {
        fp = (fp << 1).wrapping_add(g[data[p] as usize]);
        if fp & MASK_L == 0 {
            return Some(p);
        }
        p += 1;
    }
    if n >= MAX {
        return Some(MAX);
    }
    if eof {
        Some(n)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_and_eof() {
        assert_eq!(find_cut(&[], true), Some(0));
        assert_eq!(find_cut(&[1, 2, 3], true), Some(3));
        assert_eq!(find_cut(&[1, 2, 3], false), None);
        let zeros = vec![0u8; MAX + 10];
        // Zeros never match a mask (gear[0] is not 0 mod 2^10 … but the shifted sum may): the rule decides.
        let c = find_cut(&zeros, false).unwrap();
        assert!(c > MIN && c <= MAX);
    }
}
