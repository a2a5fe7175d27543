//! Recovery rows (parity/accumulators.ts is the reference): sums of
//! products in GF(2^8) (polynomial 0x11d) that blocks are added into,
//! acc[slot] ^= c · block, with each block's CRC-32. The work runs on the
//! object's own thread, in call order, so the JavaScript thread only hands
//! blocks over. Products use the split-nibble method, with AVX2 where the
//! CPU has it: c · v = lo_c[v & 15] ^ hi_c[v >> 4].

use crate::error::{BpError, BpResult};
use crate::promise::promise;
use crate::serial::Serial;
use napi::bindgen_prelude::{Buffer, Uint32Array, Uint8Array};
use napi::{Env, JsObject};
use napi_derive::napi;
use std::sync::{Arc, Mutex, OnceLock};

/// Most bytes of all the rows of one object (as MAX_ACCUMULATOR_BYTES).
const MAX_BYTES: usize = 1 << 30;

/// MUL[a][b] = a · b.
fn mul_table() -> &'static [[u8; 256]; 256] {
    static T: OnceLock<Box<[[u8; 256]; 256]>> = OnceLock::new();
    T.get_or_init(|| {
        let mut exp = [0u8; 510];
        let mut log = [0u8; 256];
        let mut x: u32 = 1;
        for i in 0..255 {
            exp[i] = x as u8;
            exp[i + 255] = x as u8;
            log[x as usize] = i as u8;
            x <<= 1;
            if x & 0x100 != 0 {
                x ^= 0x11d;
            }
        }
        let mut t = Box::new([[0u8; 256]; 256]);
        for a in 1..256 {
            for b in 1..256 {
                t[a][b] = exp[log[a] as usize + log[b] as usize];
            }
        }
        t
    })
}

/// dst ^= c · src over src's length (dst at least as long).
pub fn mul_add(dst: &mut [u8], src: &[u8], c: u8) {
    let dst = &mut dst[..src.len()];
    match c {
        0 => {}
        1 => dst.iter_mut().zip(src).for_each(|(d, s)| *d ^= s),
        _ => {
            let m = &mul_table()[c as usize];
            let mut lo = [0u8; 16];
            let mut hi = [0u8; 16];
            for x in 0..16 {
                lo[x] = m[x];
                hi[x] = m[x << 4];
            }
            #[cfg(target_arch = "x86_64")]
            if std::is_x86_feature_detected!("avx2") {
                // SAFETY: AVX2 is present.
                let done = unsafe { mul_add_avx2(dst, src, &lo, &hi) };
                dst[done..].iter_mut().zip(&src[done..]).for_each(|(d, s)| *d ^= m[*s as usize]);
                return;
            }
            dst.iter_mut().zip(src).for_each(|(d, s)| *d ^= m[*s as usize]);
        }
    }
}

/// The whole 32-byte groups of mul_add; returns the bytes done.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn mul_add_avx2(dst: &mut [u8], src: &[u8], lo: &[u8; 16], hi: &[u8; 16]) -> usize {
    use std::arch::x86_64::*;
    let lo = _mm256_broadcastsi128_si256(_mm_loadu_si128(lo.as_ptr() as *const __m128i));
    let hi = _mm256_broadcastsi128_si256(_mm_loadu_si128(hi.as_ptr() as *const __m128i));
    let mask = _mm256_set1_epi8(15);
    let n = src.len() / 32 * 32;
    let mut i = 0;
    while i < n {
        let v = _mm256_loadu_si256(src.as_ptr().add(i) as *const __m256i);
        let l = _mm256_shuffle_epi8(lo, _mm256_and_si256(v, mask));
        let h = _mm256_shuffle_epi8(hi, _mm256_and_si256(_mm256_srli_epi16(v, 4), mask));
        let d = _mm256_loadu_si256(dst.as_ptr().add(i) as *const __m256i);
        _mm256_storeu_si256(dst.as_mut_ptr().add(i) as *mut __m256i, _mm256_xor_si256(d, _mm256_xor_si256(l, h)));
        i += 32;
    }
    n
}

struct State {
    count: usize,
    size: usize,
    /// count × size bytes, made with the first block.
    acc: Vec<u8>,
}

impl State {
    /// Adds blocks back to back in `data` (block i of lengths[i] bytes) into
    /// slots[i·r + j] with coefs[i·r + j]; returns their CRC-32s.
    fn add(&mut self, data: &[u8], lengths: &[u32], slots: &[u32], coefs: &[u8]) -> BpResult<Vec<u8>> {
        let n = lengths.len();
        if n == 0 || slots.len() != coefs.len() || slots.len() % n != 0 {
            return Err(BpError::new("USAGE", format!("recovery rows got {n} blocks, {} slots and {} coefficients", slots.len(), coefs.len())));
        }
        let r = slots.len() / n;
        if slots.iter().any(|&s| s as usize >= self.count) {
            return Err(BpError::new("USAGE", format!("recovery rows: a slot is not in 0 … {}", self.count - 1)));
        }
        if lengths.iter().any(|&l| l as usize > self.size) || lengths.iter().map(|&l| l as usize).sum::<usize>() != data.len() {
            return Err(BpError::new("USAGE", "recovery rows: block lengths do not match the data"));
        }
        if self.acc.is_empty() {
            self.acc = vec![0u8; self.count * self.size];
        }
        let mut crcs = Vec::with_capacity(n * 4);
        let mut at = 0;
        for (i, &len) in lengths.iter().enumerate() {
            let block = &data[at..at + len as usize];
            at += len as usize;
            for j in 0..r {
                let s = slots[i * r + j] as usize;
                mul_add(&mut self.acc[s * self.size..(s + 1) * self.size], block, coefs[i * r + j]);
            }
            crcs.extend_from_slice(&crc32fast::hash(block).to_le_bytes());
        }
        Ok(crcs)
    }
}

/// Recovery rows of one window: `count` accumulators of `size` bytes.
#[napi]
pub struct RecoveryRows {
    serial: Serial,
    state: Arc<Mutex<State>>,
}

#[napi]
impl RecoveryRows {
    #[napi(constructor)]
    pub fn new(count: u32, size: u32) -> napi::Result<Self> {
        crate::init();
        let (count, size) = (count as usize, size as usize);
        if count == 0 || size == 0 || count * size > MAX_BYTES {
            return Err(BpError::new("USAGE", format!("{count} recovery rows of {size} bytes are not within 1 … {MAX_BYTES} bytes")).into());
        }
        Ok(RecoveryRows { serial: Serial::new("brickpost-rows"), state: Arc::new(Mutex::new(State { count, size, acc: Vec::new() })) })
    }

    /// Adds blocks (see State::add), after the calls before; resolves to
    /// their CRC-32s, little-endian. `data` must not change until then.
    #[napi(ts_return_type = "Promise<Buffer>")]
    pub fn add(&self, env: Env, data: Buffer, lengths: Uint32Array, slots: Uint32Array, coefs: Uint8Array) -> napi::Result<JsObject> {
        let (settle, p) = promise::<Buffer>(&env)?;
        let (lengths, slots, coefs) = (lengths.to_vec(), slots.to_vec(), coefs.to_vec());
        let view = (data.as_ptr() as usize, data.len());
        let state = self.state.clone();
        self.serial.run(move || {
            // SAFETY: `data` is kept until the promise settles and the caller leaves it alone meanwhile.
            let bytes = unsafe { std::slice::from_raw_parts(view.0 as *const u8, view.1) };
            let r = state.lock().unwrap().add(bytes, &lengths, &slots, &coefs).map(Buffer::from);
            settle.settle_keeping(r, data);
        });
        Ok(p)
    }

    /// The rows `slots`, back to back, after every add before; with `clear`
    /// every row is then zero again.
    #[napi(ts_return_type = "Promise<Buffer>")]
    pub fn take(&self, env: Env, slots: Uint32Array, clear: bool) -> napi::Result<JsObject> {
        let (settle, p) = promise::<Buffer>(&env)?;
        let slots = slots.to_vec();
        let state = self.state.clone();
        self.serial.run(move || {
            let mut st = state.lock().unwrap();
            let size = st.size;
            let r = if slots.iter().any(|&s| s as usize >= st.count) {
                Err(BpError::new("USAGE", format!("recovery rows: a slot is not in 0 … {}", st.count - 1)))
            } else {
                let mut out = Vec::with_capacity(slots.len() * size);
                for &s in &slots {
                    let s = s as usize;
                    if st.acc.is_empty() {
                        out.resize(out.len() + size, 0);
                    } else {
                        out.extend_from_slice(&st.acc[s * size..(s + 1) * size]);
                    }
                }
                if clear && !st.acc.is_empty() {
                    st.acc.fill(0);
                }
                Ok(Buffer::from(out))
            };
            settle.settle(r);
        });
        Ok(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn avx2_matches_the_table() {
        let src: Vec<u8> = (0..1000u32).map(|i| (i * 7 + 3) as u8).collect();
        let m = mul_table();
        for c in [2u8, 3, 29, 200, 255] {
            let mut a = vec![0x5au8; 1000];
            mul_add(&mut a, &src, c);
            let b: Vec<u8> = src.iter().map(|&s| 0x5a ^ m[c as usize][s as usize]).collect();
            assert_eq!(a, b);
        }
    }
}
