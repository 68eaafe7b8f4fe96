//! How far long work has come: items done of items to do, counted by the workers and read
//! by whoever shows it (the viewer's panel, the command line's progress bar). Plain atomics:
//! no stage that counts knows how it is shown.

use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};

/// What a load is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    Reading,
    Resolving,
    LayingOut,
    LoadingArt,
    Uploading,
}

impl Stage {
    const ALL: [Stage; 5] = [
        Stage::Reading,
        Stage::Resolving,
        Stage::LayingOut,
        Stage::LoadingArt,
        Stage::Uploading,
    ];

    /// The stage as the user reads it.
    pub fn label(self) -> &'static str {
        match self {
            Stage::Reading => "reading",
            Stage::Resolving => "resolving definitions",
            Stage::LayingOut => "laying out",
            Stage::LoadingArt => "loading art",
            Stage::Uploading => "uploading to the GPU",
        }
    }
}

/// Items done of items to do, and the stage, shared between a worker and what shows its
/// progress.
#[derive(Debug, Default)]
pub struct Progress {
    done: AtomicUsize,
    total: AtomicUsize,
    stage: AtomicU8,
}

impl Progress {
    /// The stage now.
    pub fn stage(&self) -> Stage {
        Stage::ALL
            .get(usize::from(self.stage.load(Ordering::Relaxed)))
            .copied()
            .unwrap_or(Stage::Reading)
    }

    /// A new stage begins.
    pub fn set_stage(&self, stage: Stage) {
        let i = Stage::ALL.iter().position(|s| *s == stage).unwrap_or(0);
        self.stage.store(i as u8, Ordering::Relaxed);
    }

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
        self.stage.store(0, Ordering::Relaxed);
    }
}
