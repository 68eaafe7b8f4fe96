//! How far long work has come: items done of items to do, counted by the workers and read
//! by whoever shows it (the viewer's panel, the command line's progress bar). Plain atomics:
//! no stage that counts knows how it is shown.

use std::sync::atomic::{AtomicUsize, Ordering};

/// Items done of items to do, shared between a worker and what shows its progress.
#[derive(Debug, Default)]
pub struct Progress {
    done: AtomicUsize,
    total: AtomicUsize,
}

impl Progress {
    /// `(done, total)`; total is 0 until the items are known.
    pub fn get(&self) -> (usize, usize) {
        (
            self.done.load(Ordering::Relaxed),
            self.total.load(Ordering::Relaxed),
        )
    }

    /// The number of items to do, once known.
    pub fn set_total(&self, total: usize) {
        self.total.store(total, Ordering::Relaxed);
    }

    /// `n` more items done.
    pub fn add(&self, n: usize) {
        self.done.fetch_add(n, Ordering::Relaxed);
    }

    /// Back to nothing known, for the next run.
    pub fn reset(&self) {
        self.done.store(0, Ordering::Relaxed);
        self.total.store(0, Ordering::Relaxed);
    }
}
