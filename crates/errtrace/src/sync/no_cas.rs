//! A target without compare-and-swap: the error that errtrace needs the `portable-atomic`
//! feature there, and stand-ins for the atomics that give every operation errtrace uses a type,
//! so that rustc reports that one error rather than one per read-modify-write it cannot find.
//! The crate does not build with them, so none of this reaches a binary; the read-modify-writes
//! are a load and a store, which is why it must not.

core::compile_error!(
    "errtrace needs compare-and-swap atomics, which this target does not have: enable \
     errtrace's `portable-atomic` feature (with portable-atomic's `critical-section` feature, \
     or `--cfg portable_atomic_unsafe_assume_single_core` on a single core)"
);

pub(crate) use core::sync::atomic::{fence, Ordering};

/// A compare-and-exchange as a load (`old`) and a store: not atomic (see the module docs).
fn exchange_if<T: Copy + PartialEq>(
    old: T,
    current: T,
    store: impl FnOnce(T),
    new: T,
) -> Result<T, T> {
    if old == current {
        store(new);
        Ok(old)
    } else {
        Err(old)
    }
}

macro_rules! stand_in {
    ($name:ident, $core:ident, $t:ty) => {
        pub(crate) struct $name(core::sync::atomic::$core);
        #[allow(dead_code)]
        impl $name {
            pub(crate) const fn new(v: $t) -> Self {
                Self(core::sync::atomic::$core::new(v))
            }
            pub(crate) fn load(&self, o: Ordering) -> $t {
                self.0.load(o)
            }
            pub(crate) fn store(&self, v: $t, o: Ordering) {
                self.0.store(v, o)
            }
            pub(crate) fn get_mut(&mut self) -> &mut $t {
                self.0.get_mut()
            }
            pub(crate) fn swap(&self, v: $t, o: Ordering) -> $t {
                let old = self.0.load(o);
                self.0.store(v, o);
                old
            }
            pub(crate) fn compare_exchange(
                &self,
                current: $t,
                new: $t,
                success: Ordering,
                _failure: Ordering,
            ) -> Result<$t, $t> {
                exchange_if(
                    self.0.load(success),
                    current,
                    |v| self.0.store(v, success),
                    new,
                )
            }
            pub(crate) fn compare_exchange_weak(
                &self,
                current: $t,
                new: $t,
                success: Ordering,
                failure: Ordering,
            ) -> Result<$t, $t> {
                self.compare_exchange(current, new, success, failure)
            }
            pub(crate) fn fetch_update<F: FnMut($t) -> Option<$t>>(
                &self,
                set: Ordering,
                _fetch: Ordering,
                mut f: F,
            ) -> Result<$t, $t> {
                let old = self.0.load(set);
                match f(old) {
                    Some(new) => {
                        self.0.store(new, set);
                        Ok(old)
                    }
                    None => Err(old),
                }
            }
        }
    };
}

macro_rules! stand_in_int {
    ($name:ident, $core:ident, $t:ty) => {
        stand_in!($name, $core, $t);
        #[allow(dead_code)]
        impl $name {
            pub(crate) fn fetch_add(&self, v: $t, o: Ordering) -> $t {
                let old = self.0.load(o);
                self.0.store(old.wrapping_add(v), o);
                old
            }
            pub(crate) fn fetch_sub(&self, v: $t, o: Ordering) -> $t {
                let old = self.0.load(o);
                self.0.store(old.wrapping_sub(v), o);
                old
            }
            pub(crate) fn fetch_and(&self, v: $t, o: Ordering) -> $t {
                let old = self.0.load(o);
                self.0.store(old & v, o);
                old
            }
            pub(crate) fn fetch_or(&self, v: $t, o: Ordering) -> $t {
                let old = self.0.load(o);
                self.0.store(old | v, o);
                old
            }
        }
    };
}

stand_in!(AtomicBool, AtomicBool, bool);
stand_in_int!(AtomicU8, AtomicU8, u8);
stand_in_int!(AtomicU32, AtomicU32, u32);
stand_in_int!(AtomicUsize, AtomicUsize, usize);

pub(crate) struct AtomicPtr<T>(core::sync::atomic::AtomicPtr<T>);
#[allow(dead_code)]
impl<T> AtomicPtr<T> {
    pub(crate) const fn new(p: *mut T) -> Self {
        Self(core::sync::atomic::AtomicPtr::new(p))
    }
    pub(crate) fn load(&self, o: Ordering) -> *mut T {
        self.0.load(o)
    }
    pub(crate) fn store(&self, p: *mut T, o: Ordering) {
        self.0.store(p, o)
    }
    pub(crate) fn compare_exchange(
        &self,
        current: *mut T,
        new: *mut T,
        success: Ordering,
        _failure: Ordering,
    ) -> Result<*mut T, *mut T> {
        exchange_if(
            self.0.load(success),
            current,
            |v| self.0.store(v, success),
            new,
        )
    }
    pub(crate) fn swap(&self, p: *mut T, o: Ordering) -> *mut T {
        let old = self.0.load(o);
        self.0.store(p, o);
        old
    }
}
