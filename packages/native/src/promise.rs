//! Promises settled from any thread: the JavaScript side awaits them while
//! the work runs on the CPU pool or on an object's own thread.

use crate::error::BpResult;
use napi::bindgen_prelude::ToNapiValue;
use napi::{Env, JsDeferred, JsObject};

/// A promise's settle function, callable once from any thread.
pub struct Settle<T: ToNapiValue + Send + 'static> {
    deferred: JsDeferred<T, Box<dyn FnOnce(Env) -> napi::Result<T> + Send>>,
}

impl<T: ToNapiValue + Send + 'static> Settle<T> {
    pub fn settle(self, r: BpResult<T>) {
        match r {
            Ok(v) => self.deferred.resolve(Box::new(move |_env| Ok(v))),
            Err(e) => self.deferred.reject(e.into()),
        }
    }

    /// Settles, and drops `keep` (JavaScript values the work read, such as
    /// Buffers) on the JavaScript thread, where their references may go.
    pub fn settle_keeping<K: Send + 'static>(self, r: BpResult<T>, keep: K) {
        self.deferred.resolve(Box::new(move |_env| {
            drop(keep);
            r.map_err(napi::Error::from)
        }));
    }
}

/// A new promise and the function that settles it.
pub fn promise<T: ToNapiValue + Send + 'static>(env: &Env) -> napi::Result<(Settle<T>, JsObject)> {
    let (deferred, p) = env.create_deferred::<T, Box<dyn FnOnce(Env) -> napi::Result<T> + Send>>()?;
    Ok((Settle { deferred }, p))
}
