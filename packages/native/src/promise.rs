//! Promises settled from any thread: the JavaScript side awaits them while
//! the work runs on the CPU pool or on an object's own thread. A promise
//! whose work ends without settling it (a panic unwinding through the job)
//! is rejected, never left pending: a pending one would keep the process
//! alive.

use crate::error::{BpError, BpResult};
use napi::bindgen_prelude::ToNapiValue;
use napi::{Env, JsDeferred, JsObject};

type Resolver<T> = Box<dyn FnOnce(Env) -> napi::Result<T> + Send>;

/// A promise's settle function, callable once from any thread.
pub struct Settle<T: ToNapiValue + Send + 'static> {
    deferred: Option<JsDeferred<T, Resolver<T>>>,
}

impl<T: ToNapiValue + Send + 'static> Settle<T> {
    pub fn settle(mut self, r: BpResult<T>) {
        let d = self.deferred.take().expect("settled once");
        match r {
            Ok(v) => d.resolve(Box::new(move |_env| Ok(v))),
            Err(e) => d.reject(e.into()),
        }
    }

    /// Settles, and drops `keep` (JavaScript values the work read, such as
    /// Buffers) on the JavaScript thread, where their references may go.
    pub fn settle_keeping<K: Send + 'static>(mut self, r: BpResult<T>, keep: K) {
        let d = self.deferred.take().expect("settled once");
        d.resolve(Box::new(move |_env| {
            drop(keep);
            r.map_err(napi::Error::from)
        }));
    }
}

impl<T: ToNapiValue + Send + 'static> Drop for Settle<T> {
    fn drop(&mut self) {
        if let Some(d) = self.deferred.take() {
            d.reject(BpError::new("IO", "native core job ended without an answer").into());
        }
    }
}

/// A new promise and the function that settles it.
pub fn promise<T: ToNapiValue + Send + 'static>(env: &Env) -> napi::Result<(Settle<T>, JsObject)> {
    let (deferred, p) = env.create_deferred::<T, Resolver<T>>()?;
    Ok((Settle { deferred: Some(deferred) }, p))
}
