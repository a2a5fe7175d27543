//! A basis file's bpsig1 signature read once into arrays and a lookup
//! table (the engine's delta/signature.ts parseSignature and
//! delta/lookup.ts BlockIndex are the reference), shared by every delta of
//! that file's chunks.

use crate::error::{BpError, BpResult};
use std::sync::atomic::AtomicU64;

const MAGIC: &[u8; 6] = b"bpsig1";
const WEAK_ROLLSUM: u8 = 1;
const STRONG_LENGTH: u8 = 8;
const HEADER: usize = 20;
const ENTRY: u64 = 12;
/// Default for the most blocks a signature may describe (parseSignature's 2^24).
pub const MAX_BLOCKS: u64 = 1 << 24;
/// Longest chain kept per table slot (lookup.ts MAX_CHAIN): a hostile
/// signature that puts every block in one slot costs a bounded walk.
const MAX_CHAIN: usize = 64;
/// The multiplier of the table's hash of a weak sum.
const GOLDEN: u32 = 0x9e37_79b1;

/// A parsed signature: entry i describes block i of the basis file.
pub struct Basis {
    pub block: usize,
    pub file_length: u64,
    /// ⌈file_length / block⌉.
    pub count: usize,
    /// Full blocks (the short last one excluded).
    pub full: usize,
    pub weak: Vec<u32>,
    /// The 8-byte strong sums, read big-endian.
    pub strong: Vec<u64>,
    pub index: BlockIndex,
    /// Strong sums computed by the deltas against it so far (the work a forged signature can cause).
    pub hashed: AtomicU64,
}

fn bad(what: String) -> BpError {
    BpError::new("MALFORMED", format!("signature {what}"))
}

/// parseSignature: every header field and the exact total length are
/// checked before anything sized by the input is allocated.
pub fn parse(b: &[u8], max_blocks: u64) -> BpResult<Basis> {
    if b.len() < HEADER || &b[..6] != MAGIC {
        return Err(bad("does not start with a bpsig1 header".into()));
    }
    if b[6] != WEAK_ROLLSUM {
        return Err(bad(format!("weak sum id {} is not {WEAK_ROLLSUM}", b[6])));
    }
    if b[7] != STRONG_LENGTH {
        return Err(bad(format!("strong sum length {} is not {STRONG_LENGTH}", b[7])));
    }
    let block = u32::from_be_bytes(b[8..12].try_into().unwrap());
    if !(256..=1 << 20).contains(&block) || !block.is_power_of_two() {
        return Err(bad(format!("block size {block} is not a power of two in [2^8, 2^20]")));
    }
    let file_length = u64::from_be_bytes(b[12..20].try_into().unwrap());
    if file_length > (1 << 53) - 1 {
        return Err(bad(format!("file length {file_length} is over 2^53 − 1")));
    }
    let n = file_length.div_ceil(u64::from(block));
    let need = HEADER as u64 + n * ENTRY;
    if b.len() as u64 != need {
        return Err(bad(format!("is {} bytes, but a file of {file_length} bytes in {block}-byte blocks needs {need}", b.len())));
    }
    if n > max_blocks {
        return Err(BpError::new("LIMIT_EXCEEDED", format!("signature: {n} blocks, more than the {max_blocks} allowed")));
    }
    let count = n as usize;
    let mut weak = Vec::with_capacity(count);
    let mut strong = Vec::with_capacity(count);
    for e in b[HEADER..].chunks_exact(ENTRY as usize) {
        weak.push(u32::from_be_bytes(e[..4].try_into().unwrap()));
        strong.push(u64::from_be_bytes(e[4..].try_into().unwrap()));
    }
    let block = block as usize;
    let full = (file_length / block as u64) as usize;
    let index = BlockIndex::new(&weak, &strong, full);
    Ok(Basis { block, file_length, count, full, weak, strong, index, hashed: AtomicU64::new(0) })
}

/// A hash table from weak sum to the basis file's full blocks: `heads` is
/// indexed by a multiplicative hash of the weak sum and holds the first
/// block of a chain continued through `next` (-1 ends). A block with the
/// same sums as an earlier one is left out; so are blocks past MAX_CHAIN
/// in their slot. `filter` has a bit per hash of every full block's weak
/// sum, the hot loop's first test.
pub struct BlockIndex {
    heads: Vec<i32>,
    next: Vec<i32>,
    shift: u32,
    filter: Vec<u32>,
    filter_shift: u32,
}

impl BlockIndex {
    fn new(weak: &[u32], strong: &[u64], full: usize) -> Self {
        let mut bits = 4u32;
        while (1u64 << bits) < 2 * full as u64 && bits < 30 {
            bits += 1;
        }
        let mut fbits = 10u32;
        while (1u64 << fbits) < 32 * full as u64 && fbits < 29 {
            fbits += 1;
        }
        let mut ix = BlockIndex { heads: vec![-1; 1 << bits], next: vec![-1; full], shift: 32 - bits, filter: vec![0; 1 << (fbits - 5)], filter_shift: 32 - fbits };
        for &w in &weak[..full] {
            let h = w.wrapping_mul(GOLDEN) >> ix.filter_shift;
            ix.filter[(h >> 5) as usize] |= 1 << (h & 31);
        }
        // From the last block to the first, so each chain lists blocks in file order.
        for i in (0..full).rev() {
            let slot = ix.slot(weak[i]);
            let mut len = 0;
            let mut dup = false;
            let mut j = ix.heads[slot];
            while j >= 0 {
                let ju = j as usize;
                if weak[ju] == weak[i] && strong[ju] == strong[i] {
                    // j is later in the file than i: keep i, the earlier copy, in j's place.
                    ix.replace(slot, ju, i);
                    dup = true;
                    break;
                }
                j = ix.next[ju];
                len += 1;
            }
            if dup || len >= MAX_CHAIN {
                continue;
            }
            ix.next[i] = ix.heads[slot];
            ix.heads[slot] = i as i32;
        }
        ix
    }

    fn slot(&self, weak: u32) -> usize {
        (weak.wrapping_mul(GOLDEN) >> self.shift) as usize
    }

    fn replace(&mut self, slot: usize, old: usize, by: usize) {
        self.next[by] = self.next[old];
        if self.heads[slot] == old as i32 {
            self.heads[slot] = by as i32;
            return;
        }
        let mut j = self.heads[slot] as usize;
        while self.next[j] != old as i32 {
            j = self.next[j] as usize;
        }
        self.next[j] = by as i32;
    }

    /// The filter's verdict: false when no full block can have this weak sum.
    #[inline(always)]
    pub fn admits(&self, weak: u32) -> bool {
        let h = weak.wrapping_mul(GOLDEN) >> self.filter_shift;
        self.filter[(h >> 5) as usize] & (1 << (h & 31)) != 0
    }

    /// True when some block in the table has weak sum `weak`.
    pub fn has_weak(&self, weak_of: &[u32], weak: u32) -> bool {
        let mut j = self.heads[self.slot(weak)];
        while j >= 0 {
            if weak_of[j as usize] == weak {
                return true;
            }
            j = self.next[j as usize];
        }
        false
    }

    /// The first block in the chain of `weak` with strong sum `strong`.
    pub fn find(&self, weak_of: &[u32], strong_of: &[u64], weak: u32, strong: u64) -> Option<usize> {
        let mut j = self.heads[self.slot(weak)];
        while j >= 0 {
            let ju = j as usize;
            if weak_of[ju] == weak && strong_of[ju] == strong {
                return Some(ju);
            }
            j = self.next[ju];
        }
        None
    }
}
