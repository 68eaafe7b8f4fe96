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
