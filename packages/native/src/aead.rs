//! ChaCha20-Poly1305 of age's STREAM chunks, sealed and opened in place.
//! Node carries OpenSSL and exports its EVP functions to addons; where the
//! process has them (looked up once, with dlsym), chunks go through them:
//! OpenSSL's AVX-512 code seals and opens a 64 KiB chunk about four times
//! as fast as RustCrypto's AVX2 code on the machines brickpost is measured
//! on (5.2 GB/s against 1.3 GB/s on one core), and deep verify and ingest
//! spend a fifth of their CPU on it. RustCrypto's chacha20poly1305 is used
//! where they are missing, where a known-answer check against it fails at
//! load, or when BRICKPOST_AEAD=rust asks for it. Both give the same bytes.

use chacha20poly1305::aead::AeadInPlace;
use chacha20poly1305::{ChaCha20Poly1305, Key, KeyInit, Nonce, Tag};
use std::cell::RefCell;
use std::ffi::{c_int, c_void, CStr};
use std::sync::OnceLock;

pub const TAG_LEN: usize = 16;

type Ctx = *mut c_void;

/// The EVP calls used, from the process's OpenSSL (1.1 or 3: the same ABI for these).
struct Evp {
    cipher: *const c_void,
    ctx_new: unsafe extern "C" fn() -> Ctx,
    ctx_free: unsafe extern "C" fn(Ctx),
    init: unsafe extern "C" fn(Ctx, *const c_void, *mut c_void, *const u8, *const u8, c_int) -> c_int,
    update: unsafe extern "C" fn(Ctx, *mut u8, *mut c_int, *const u8, c_int) -> c_int,
    finish: unsafe extern "C" fn(Ctx, *mut u8, *mut c_int) -> c_int,
    ctrl: unsafe extern "C" fn(Ctx, c_int, c_int, *mut c_void) -> c_int,
}

// SAFETY: the cipher pointer is OpenSSL's static method table; the functions are thread-safe on separate contexts.
unsafe impl Send for Evp {}
unsafe impl Sync for Evp {}

const EVP_CTRL_AEAD_GET_TAG: c_int = 0x10;
const EVP_CTRL_AEAD_SET_TAG: c_int = 0x11;

fn symbol(name: &[u8]) -> Option<*mut c_void> {
    let name = CStr::from_bytes_with_nul(name).ok()?;
    // SAFETY: dlsym with a valid C string; RTLD_DEFAULT searches the process's global symbols.
    let p = unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) };
    (!p.is_null()).then_some(p)
}

fn load() -> Option<Evp> {
    if std::env::var("BRICKPOST_AEAD").map(|v| v == "rust").unwrap_or(false) {
        return None;
    }
    // SAFETY: each symbol is the OpenSSL function of that name, whose C signature the field's type spells out.
    let evp = unsafe {
        let method: unsafe extern "C" fn() -> *const c_void = std::mem::transmute(symbol(b"EVP_chacha20_poly1305\0")?);
        Evp {
            cipher: method(),
            ctx_new: std::mem::transmute::<*mut c_void, unsafe extern "C" fn() -> Ctx>(symbol(b"EVP_CIPHER_CTX_new\0")?),
            ctx_free: std::mem::transmute::<*mut c_void, unsafe extern "C" fn(Ctx)>(symbol(b"EVP_CIPHER_CTX_free\0")?),
            init: std::mem::transmute::<*mut c_void, unsafe extern "C" fn(Ctx, *const c_void, *mut c_void, *const u8, *const u8, c_int) -> c_int>(symbol(b"EVP_CipherInit_ex\0")?),
            update: std::mem::transmute::<*mut c_void, unsafe extern "C" fn(Ctx, *mut u8, *mut c_int, *const u8, c_int) -> c_int>(symbol(b"EVP_CipherUpdate\0")?),
            finish: std::mem::transmute::<*mut c_void, unsafe extern "C" fn(Ctx, *mut u8, *mut c_int) -> c_int>(symbol(b"EVP_CipherFinal_ex\0")?),
            ctrl: std::mem::transmute::<*mut c_void, unsafe extern "C" fn(Ctx, c_int, c_int, *mut c_void) -> c_int>(symbol(b"EVP_CIPHER_CTX_ctrl\0")?),
        }
    };
    if evp.cipher.is_null() {
        return None;
    }
    known_answer(&evp).then_some(evp)
}

/// OpenSSL's output for a chunk equals RustCrypto's, and each opens the other's (and refuses a flipped bit).
fn known_answer(evp: &Evp) -> bool {
    let key = [0x42u8; 32];
    let mut nonce = [0u8; 12];
    nonce[10] = 7;
    nonce[11] = 1;
    let plain: Vec<u8> = (0..1000u32).map(|i| (i * 7 + 3) as u8).collect();
    let rust = ChaCha20Poly1305::new(Key::from_slice(&key));
    let mut a = plain.clone();
    let Ok(ta) = rust.encrypt_in_place_detached(Nonce::from_slice(&nonce), b"", &mut a) else { return false };
    let mut b = plain.clone();
    let Some(Some(tb)) = with_ctx(evp, |ctx| evp_seal(evp, ctx, &key, &nonce, &mut b)) else { return false };
    if a != b || ta.as_slice() != tb.as_slice() {
        return false;
    }
    let opened = with_ctx(evp, |ctx| evp_open(evp, ctx, &key, &nonce, &mut b, &tb)) == Some(true) && b == plain;
    let mut bad = a.clone();
    bad[5] ^= 1;
    let refused = with_ctx(evp, |ctx| evp_open(evp, ctx, &key, &nonce, &mut bad, &tb)) == Some(false) && bad[..5] == a[..5] && bad[6..] == a[6..];
    opened && refused
}

static EVP: OnceLock<Option<Evp>> = OnceLock::new();

fn evp() -> Option<&'static Evp> {
    EVP.get_or_init(load).as_ref()
}

/// Which implementation seals and opens chunks: "openssl" or "rustcrypto".
pub fn backend() -> &'static str {
    if evp().is_some() {
        "openssl"
    } else {
        "rustcrypto"
    }
}

/// A thread's EVP context, made on first use and freed with the thread.
struct ThreadCtx(Ctx);

impl Drop for ThreadCtx {
    fn drop(&mut self) {
        if let Some(e) = evp() {
            // SAFETY: the context was made by ctx_new and is freed once.
            unsafe { (e.ctx_free)(self.0) };
        }
    }
}

thread_local! {
    static CTX: RefCell<Option<ThreadCtx>> = const { RefCell::new(None) };
}

fn with_ctx<T>(evp: &Evp, f: impl FnOnce(Ctx) -> T) -> Option<T> {
    CTX.with(|c| {
        let mut c = c.borrow_mut();
        if c.is_none() {
            // SAFETY: a new context, owned by this thread's slot.
            let ctx = unsafe { (evp.ctx_new)() };
            if ctx.is_null() {
                return None;
            }
            *c = Some(ThreadCtx(ctx));
        }
        Some(f(c.as_ref().unwrap().0))
    })
}

/// XORs `data` with the key stream of `nonce` (and computes a tag, returned when `seal`); `xored` tells whether `data` changed.
fn evp_crypt(evp: &Evp, ctx: Ctx, key: &[u8; 32], nonce: &[u8; 12], data: &mut [u8], seal: bool, xored: &mut bool) -> Option<[u8; TAG_LEN]> {
    let mut n: c_int = 0;
    // SAFETY: in-place update is allowed for this stream cipher; lengths are a STREAM chunk's (64 KiB) at most.
    unsafe {
        if (evp.init)(ctx, evp.cipher, std::ptr::null_mut(), key.as_ptr(), nonce.as_ptr(), c_int::from(seal)) != 1 {
            return None;
        }
        if !data.is_empty() {
            *xored = true;
            if (evp.update)(ctx, data.as_mut_ptr(), &mut n, data.as_ptr(), data.len() as c_int) != 1 {
                return None;
            }
        }
        if !seal {
            return Some([0; TAG_LEN]);
        }
        let mut end = [0u8; 16];
        if (evp.finish)(ctx, end.as_mut_ptr(), &mut n) != 1 {
            return None;
        }
        let mut tag = [0u8; TAG_LEN];
        if (evp.ctrl)(ctx, EVP_CTRL_AEAD_GET_TAG, TAG_LEN as c_int, tag.as_mut_ptr().cast()) != 1 {
            return None;
        }
        Some(tag)
    }
}

/// Seals in place; None when OpenSSL failed, `data` then as it was (so another implementation can seal it).
fn evp_seal(evp: &Evp, ctx: Ctx, key: &[u8; 32], nonce: &[u8; 12], data: &mut [u8]) -> Option<[u8; TAG_LEN]> {
    let mut xored = false;
    let tag = evp_crypt(evp, ctx, key, nonce, data, true, &mut xored);
    if tag.is_none() && xored && evp_crypt(evp, ctx, key, nonce, data, false, &mut false).is_none() {
        panic!("OpenSSL could not undo a ChaCha20 key stream it applied");
    }
    tag
}

/// Opens in place; on a wrong tag, `data` is put back as it was (the key stream XORed in again).
fn evp_open(evp: &Evp, ctx: Ctx, key: &[u8; 32], nonce: &[u8; 12], data: &mut [u8], tag: &[u8; TAG_LEN]) -> bool {
    let mut n: c_int = 0;
    let mut end = [0u8; 16];
    let mut tag = *tag;
    let mut xored = false;
    // SAFETY: as in evp_crypt; the tag is set before the final call, which checks it.
    let ok = unsafe {
        (evp.init)(ctx, evp.cipher, std::ptr::null_mut(), key.as_ptr(), nonce.as_ptr(), 0) == 1
            && (data.is_empty() || {
                xored = true;
                (evp.update)(ctx, data.as_mut_ptr(), &mut n, data.as_ptr(), data.len() as c_int) == 1
            })
            && (evp.ctrl)(ctx, EVP_CTRL_AEAD_SET_TAG, TAG_LEN as c_int, tag.as_mut_ptr().cast()) == 1
            && (evp.finish)(ctx, end.as_mut_ptr(), &mut n) == 1
    };
    // The caller may open the same bytes again (as the final chunk): they must be the ciphertext still.
    if !ok && xored && evp_crypt(evp, ctx, key, nonce, data, false, &mut false).is_none() {
        panic!("OpenSSL could not undo a ChaCha20 key stream it applied");
    }
    ok
}

/// The payload cipher of one age file.
#[derive(Clone)]
pub struct Cipher {
    key: [u8; 32],
    rust: ChaCha20Poly1305,
}

impl Cipher {
    pub fn new(key: &[u8; 32]) -> Self {
        Cipher { key: *key, rust: ChaCha20Poly1305::new(Key::from_slice(key)) }
    }

    /// Seals `data` in place; its tag.
    pub fn seal(&self, nonce: &[u8; 12], data: &mut [u8]) -> [u8; TAG_LEN] {
        if let Some(e) = evp() {
            if let Some(Some(t)) = with_ctx(e, |ctx| evp_seal(e, ctx, &self.key, nonce, data)) {
                return t;
            }
        }
        let t = self.rust.encrypt_in_place_detached(Nonce::from_slice(nonce), b"", data).expect("a STREAM chunk is far below ChaCha20's limit");
        t.into()
    }

    /// Opens `data` in place when `tag` authenticates it; otherwise false, `data` unchanged.
    pub fn open(&self, nonce: &[u8; 12], data: &mut [u8], tag: &[u8; TAG_LEN]) -> bool {
        if let Some(e) = evp() {
            if let Some(ok) = with_ctx(e, |ctx| evp_open(e, ctx, &self.key, nonce, data, tag)) {
                return ok;
            }
        }
        self.rust.decrypt_in_place_detached(Nonce::from_slice(nonce), b"", data, Tag::from_slice(tag)).is_ok()
    }
}
