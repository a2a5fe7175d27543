//! Chunk frames (the engine's chunk/codec.ts and the manifest's frame/ are
//! the reference): one Zstandard frame per chunk, compressed by
//! ZSTD_compressCCtx at the pack's level, or stored in raw blocks when a
//! sampling test or the result shows it saves less than 3 %; decoding
//! checks the frame header before anything is allocated.

use crate::error::{BpError, BpResult};
use hmac::{Hmac, Mac};
use sha2::Sha256;
use std::cell::RefCell;
use zstd_safe::{CCtx, DCtx, DParameter};

pub type HmacSha256 = Hmac<Sha256>;

const RAW_THRESHOLD: f64 = 0.97;
const SAMPLE_FROM: usize = 64 * 1024;
const SAMPLE_PIECE: usize = 4096;
const SAMPLE_PIECES: usize = 4;
const SAMPLE_LEVEL: i32 = 1;
const MAX_BLOCK: usize = 128 * 1024;
const SINGLE_SEGMENT_LIMIT: usize = 8 * 1024 * 1024;
const ZSTD_MAGIC: u32 = 0xfd2f_b528;
const SKIPPABLE_BASE: u32 = 0x184d_2a50;
/// windowLog of the largest window a chunk frame may ask for: 2^23 = 8 MiB.
pub const MAX_WINDOW_LOG: u32 = 23;

thread_local! {
    static CCTX: RefCell<Option<CCtx<'static>>> = const { RefCell::new(None) };
    static DCTX: RefCell<Option<DCtx<'static>>> = const { RefCell::new(None) };
    static SCRATCH: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// The keyed MAC a chunk id is computed with, ready to clone per chunk.
pub fn id_mac(key: &[u8]) -> HmacSha256 {
    HmacSha256::new_from_slice(key).expect("HMAC takes any key length")
}

/// HMAC-SHA256(key, raw): the chunk id.
pub fn chunk_id(mac: &HmacSha256, raw: &[u8]) -> [u8; 32] {
    let mut m = mac.clone();
    m.update(raw);
    m.finalize().into_bytes().into()
}

/// Compresses `raw` into the thread's scratch buffer; returns the frame length.
fn compress_into(raw: &[u8], level: i32, scratch: &mut Vec<u8>) -> usize {
    CCTX.with(|c| {
        let mut c = c.borrow_mut();
        let cctx = c.get_or_insert_with(|| CCtx::create());
        let bound = zstd_safe::compress_bound(raw.len());
        scratch.clear();
        if scratch.capacity() < bound {
            scratch.reserve(bound);
        }
        cctx.compress(scratch, raw, level).expect("ZSTD_compressCCtx into a buffer of compressBound bytes")
    })
}

/// `raw` as one frame at `level`, its content size in the header (ZSTD_compressCCtx writes it).
pub fn compress_frame(raw: &[u8], level: i32) -> Vec<u8> {
    SCRATCH.with(|s| {
        let mut scratch = s.borrow_mut();
        let size = compress_into(raw, level, &mut scratch);
        scratch[..size].to_vec()
    })
}

/// The sampling test of codec.ts: four 4 KiB samples spread over a chunk
/// larger than 64 KiB that do not shrink by 3 % at level 1.
fn looks_incompressible(raw: &[u8], scratch: &mut Vec<u8>) -> bool {
    if raw.len() <= SAMPLE_FROM {
        return false;
    }
    let step = (raw.len() - SAMPLE_PIECE) / (SAMPLE_PIECES - 1);
    let mut sample = [0u8; SAMPLE_PIECE * SAMPLE_PIECES];
    for k in 0..SAMPLE_PIECES {
        let at = k * step;
        sample[k * SAMPLE_PIECE..(k + 1) * SAMPLE_PIECE].copy_from_slice(&raw[at..at + SAMPLE_PIECE]);
    }
    let n = compress_into(&sample, SAMPLE_LEVEL, scratch);
    n as f64 > RAW_THRESHOLD * sample.len() as f64
}

/// One chunk's frame: compressed (`true`) or raw blocks (`false`).
pub fn encode_chunk(raw: &[u8], level: i32) -> (Vec<u8>, bool) {
    SCRATCH.with(|s| {
        let mut scratch = s.borrow_mut();
        if !looks_incompressible(raw, &mut scratch) {
            let size = compress_into(raw, level, &mut scratch);
            if (size as f64) < RAW_THRESHOLD * raw.len() as f64 {
                return (scratch[..size].to_vec(), true);
            }
        }
        (raw_frame(raw), false)
    })
}

fn fcs_field_size(n: usize, single: bool) -> usize {
    if n <= 255 && single {
        1
    } else if (256..=65791).contains(&n) {
        2
    } else {
        4
    }
}

/// `data` as one frame of raw blocks, byte for byte as frame/raw.ts writes it.
pub fn raw_frame(data: &[u8]) -> Vec<u8> {
    let n = data.len();
    let single = n <= SINGLE_SEGMENT_LIMIT;
    let fcs = fcs_field_size(n, single);
    let blocks = n.div_ceil(MAX_BLOCK).max(1);
    let mut out = Vec::with_capacity(4 + 1 + usize::from(!single) + fcs + 3 * blocks + n);
    out.extend_from_slice(&ZSTD_MAGIC.to_le_bytes());
    let fcs_flag: u8 = match fcs {
        1 => 0,
        2 => 1,
        _ => 2,
    };
    out.push((fcs_flag << 6) | if single { 0x20 } else { 0 });
    if !single {
        out.push(7 << 3);
    }
    match fcs {
        1 => out.push(n as u8),
        2 => out.extend_from_slice(&((n - 256) as u16).to_le_bytes()),
        _ => out.extend_from_slice(&(n as u32).to_le_bytes()),
    }
    let mut off = 0;
    loop {
        let size = MAX_BLOCK.min(n - off);
        let last = u32::from(off + size == n);
        let bh = ((size as u32) << 3) | last;
        out.extend_from_slice(&bh.to_le_bytes()[..3]);
        out.extend_from_slice(&data[off..off + size]);
        off += size;
        if off >= n {
            break;
        }
    }
    out
}

/// What a frame header says (frame/header.ts parseFrameHeader).
struct FrameHeader {
    skippable: bool,
    content_size: Option<u64>,
    window_size: Option<u64>,
    dict_id: u32,
}

fn parse_frame_header(b: &[u8]) -> BpResult<FrameHeader> {
    if b.len() < 4 {
        return Err(BpError::new("TRUNCATED", format!("frame header needs at least 4 bytes, got {}", b.len())));
    }
    let magic = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    if magic & 0xffff_fff0 == SKIPPABLE_BASE {
        if b.len() < 8 {
            return Err(BpError::new("TRUNCATED", format!("skippable frame header needs 8 bytes, got {}", b.len())));
        }
        return Ok(FrameHeader { skippable: true, content_size: None, window_size: None, dict_id: 0 });
    }
    if magic != ZSTD_MAGIC {
        return Err(BpError::new("MALFORMED", format!("not a zstd frame: magic 0x{magic:08x}")));
    }
    if b.len() < 5 {
        return Err(BpError::new("TRUNCATED", "zstd frame ends before its frame header descriptor"));
    }
    let fhd = b[4];
    if fhd & 0x08 != 0 {
        return Err(BpError::new("MALFORMED", format!("zstd frame header descriptor 0x{fhd:x} has the reserved bit set")));
    }
    let fcs_flag = fhd >> 6;
    let single = fhd & 0x20 != 0;
    let did_size = [0usize, 1, 2, 4][(fhd & 3) as usize];
    let fcs_size = [if single { 1usize } else { 0 }, 2, 4, 8][fcs_flag as usize];
    let header_size = 5 + usize::from(!single) + did_size + fcs_size;
    if b.len() < header_size {
        return Err(BpError::new("TRUNCATED", format!("zstd frame header needs {header_size} bytes, got {}", b.len())));
    }
    let mut off = 5;
    let mut window_size = None;
    if !single {
        let wd = b[off];
        off += 1;
        let base = 1u64 << (10 + (wd >> 3));
        window_size = Some(base + (base / 8) * u64::from(wd & 7));
    }
    let mut dict_id = 0u32;
    for i in 0..did_size {
        dict_id |= u32::from(b[off + i]) << (8 * i);
    }
    off += did_size;
    let content_size = match fcs_size {
        1 => Some(u64::from(b[off])),
        2 => Some(u64::from(u16::from_le_bytes([b[off], b[off + 1]])) + 256),
        4 => Some(u64::from(u32::from_le_bytes([b[off], b[off + 1], b[off + 2], b[off + 3]]))),
        8 => {
            let v = u64::from_le_bytes(b[off..off + 8].try_into().unwrap());
            if v > (1u64 << 53) - 1 {
                return Err(BpError::new("LIMIT_EXCEEDED", format!("zstd frame declares a content size beyond 2^53 (high word 0x{:x})", v >> 32)));
            }
            Some(v)
        }
        _ => None,
    };
    if single {
        window_size = content_size;
    }
    Ok(FrameHeader { skippable: false, content_size, window_size, dict_id })
}

/// decodeFrame of codec.ts: exactly one zstd frame declaring `expected`
/// bytes (at most `max_len`) with a window of at most 8 MiB.
pub fn decode_frame(frame: &[u8], expected: u64, max_len: u64) -> BpResult<Vec<u8>> {
    if expected > max_len {
        return Err(BpError::new("LIMIT_EXCEEDED", format!("chunk length {expected} exceeds the limit of {max_len} bytes")));
    }
    let h = parse_frame_header(frame)?;
    if h.skippable {
        return Err(BpError::new("MALFORMED", "chunk frame is a skippable frame, not a zstd frame"));
    }
    if h.dict_id != 0 {
        return Err(BpError::new("MALFORMED", format!("chunk frame asks for dictionary {}", h.dict_id)));
    }
    let Some(cs) = h.content_size else {
        return Err(BpError::new("MALFORMED", "chunk frame does not declare its content size"));
    };
    if cs > max_len {
        return Err(BpError::new("LIMIT_EXCEEDED", format!("chunk frame declares {cs} bytes, over the limit of {max_len}")));
    }
    if h.window_size.unwrap_or(0) > 1u64 << MAX_WINDOW_LOG {
        return Err(BpError::new("LIMIT_EXCEEDED", format!("chunk frame asks for a {}-byte window, over 8 MiB", h.window_size.unwrap_or(0))));
    }
    if cs != expected {
        return Err(BpError::new("CHUNK_MISMATCH", format!("chunk frame holds {cs} bytes, the manifest says {expected}")));
    }
    let size = zstd_safe::find_frame_compressed_size(frame)
        .map_err(|c| BpError::new("MALFORMED", format!("chunk frame is corrupt: {}", zstd_safe::get_error_name(c))))?;
    if size != frame.len() {
        return Err(BpError::new("MALFORMED", format!("chunk frame is {size} bytes but {} more bytes follow it", frame.len() - size)));
    }
    let mut out: Vec<u8> = crate::recycle::take(expected as usize);
    let n = DCTX.with(|d| {
        let mut d = d.borrow_mut();
        let dctx = d.get_or_insert_with(|| {
            let mut x = DCtx::create();
            x.set_parameter(DParameter::WindowLogMax(MAX_WINDOW_LOG)).expect("windowLogMax 23");
            x
        });
        dctx.decompress(&mut out, frame)
    })
    .map_err(|c| BpError::new("MALFORMED", format!("chunk frame does not decode: {}", zstd_safe::get_error_name(c))))?;
    if n as u64 != expected {
        return Err(BpError::new("MALFORMED", format!("chunk frame decoded to {n} bytes, its header says {expected}")));
    }
    Ok(out)
}

/// decodeChunk of codec.ts: decode_frame, then the bytes must have the id.
pub fn decode_chunk(frame: &[u8], expected: u64, id: &[u8], mac: &HmacSha256, max_len: u64) -> BpResult<Vec<u8>> {
    let out = decode_frame(frame, expected, max_len)?;
    let mut m = mac.clone();
    m.update(&out);
    if m.verify_slice(id).is_err() {
        let hex: String = id.iter().take(8).map(|b| format!("{b:02x}")).collect();
        return Err(BpError::new("CHUNK_MISMATCH", format!("chunk {hex}… decodes to bytes with another id")));
    }
    Ok(out)
}
