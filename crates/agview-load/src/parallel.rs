//! Mapping work over items (a document's features, the export's images) on a rayon pool
//! of the call's own, with the results in item order whatever the thread timing (the art's
//! images decode ahead on a pool of their own, `art::image::ImagePool::plan`).

use crate::progress::Progress;

/// Maps `f` over `items` on `threads` workers (0: one per core) of a rayon pool of this
/// call's own, so `--threads` holds whatever else runs, and returns the results in item
/// order: the outcome never depends on thread timing. Each item done counts on `progress`.
pub fn parallel_map<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    progress: Option<&Progress>,
    f: impl Fn(usize, &T) -> R + Sync,
) -> Vec<R> {
    use rayon::prelude::*;
    let threads = if threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        threads
    }
    .clamp(1, items.len().max(1));
    let work = |(i, item): (usize, &T)| {
        let r = f(i, item);
        if let Some(p) = progress {
            p.add(1);
        }
        r
    };
    let pool = (threads > 1)
        .then(|| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .thread_name(|i| format!("agview-layout-{i}"))
                .build()
                .ok()
        })
        .flatten();
    match pool {
        // One item per task: features differ in cost by orders of magnitude (a point
        // against a 200-vertex string), so no worker waits on another's long share.
        Some(pool) => pool.install(|| {
            items
                .par_iter()
                .enumerate()
                .with_max_len(1)
                .map(work)
                .collect()
        }),
        None => items.iter().enumerate().map(work).collect(),
    }
}

/// Runs `f` on items `0..n` on `threads` workers (0: one per core), the calling thread one
/// of them, and hands each result to `take` in item order, as soon as the results before it
/// are in: what is taken is never held longer than the items still running before it.
/// Workers take the items in order, one at a time, so few results wait. `take` runs on one
/// worker at a time (whichever has the next result), never while another runs it; each item
/// done counts on `progress`. The results and the order they are taken in never depend on
/// thread timing.
pub fn parallel_in_order<R: Send>(
    n: usize,
    threads: usize,
    progress: Option<&Progress>,
    f: impl Fn(usize) -> R + Sync,
    take: impl FnMut(R) + Send,
) {
    use std::collections::BTreeMap;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Mutex, PoisonError};
    let threads = if threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        threads
    }
    .clamp(1, n.max(1));
    let done = |r: R| {
        if let Some(p) = progress {
            p.add(1);
        }
        r
    };
    if threads == 1 {
        let mut take = take;
        for i in 0..n {
            take(done(f(i)));
        }
        return;
    }
    // The next item to start; the results not yet taken, by item (boxed: a result may be
    // large, a feature's whole scene, and the map moves what it holds); the next to take,
    // and what takes it.
    let next = AtomicUsize::new(0);
    let waiting: Mutex<BTreeMap<usize, Box<R>>> = Mutex::new(BTreeMap::new());
    let taker = Mutex::new((0usize, take));
    let work = || loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        if i >= n {
            break;
        }
        let r = Box::new(done(f(i)));
        waiting
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(i, r);
        // Whoever holds the taker takes every result that is next; one that finds it held
        // leaves its result to the holder, who looks again once it lets go.
        while let Ok(mut t) = taker.try_lock() {
            let (to_take, take) = &mut *t;
            loop {
                let r = waiting
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .remove(to_take);
                let Some(r) = r else { break };
                *to_take += 1;
                take(*r);
            }
            let to_take = *to_take;
            drop(t);
            let more = waiting
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .contains_key(&to_take);
            if !more {
                break;
            }
        }
    };
    std::thread::scope(|s| {
        for k in 1..threads {
            // A worker that cannot start leaves its share to the others.
            let _ = std::thread::Builder::new()
                .name(format!("agview-layout-{k}"))
                .spawn_scoped(s, work);
        }
        work();
    });
}
