//! Progress bars for long command-line work (document loads, sweeps, benches, `check` of a
//! folder), drawn with `indicatif` on stderr. A bar over counted work shows only once the
//! work has run for a second, so quick commands print nothing more; and nothing is drawn
//! when stderr is not a terminal (CI logs, pipes), as `indicatif` draws only on terminals.
//! The stages below count on a plain [`Progress`]; only this file knows how it is shown.

use std::sync::mpsc;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressFinish, ProgressStyle};

use crate::progress::Progress;

/// How long counted work runs before its bar shows.
const DELAY: Duration = Duration::from_secs(1);
/// How often a bar is redrawn from its counter.
const TICK: Duration = Duration::from_millis(100);

fn bar_style(items: &str) -> ProgressStyle {
    ProgressStyle::with_template(&format!(
        "{{msg}} [{{bar:30}}] {{pos}}/{{len}} {items} ({{elapsed}}, about {{eta}} left)"
    ))
    .unwrap_or_else(|_| ProgressStyle::default_bar())
    .progress_chars("=> ")
}

/// Runs `work` while a bar labelled `what` shows `progress` (counted in `items`), from the
/// moment the work has taken a second and its total is known until it returns.
pub fn with_bar<R>(what: &str, items: &str, progress: &Progress, work: impl FnOnce() -> R) -> R {
    let (stop, stopped) = mpsc::channel::<()>();
    std::thread::scope(|s| {
        s.spawn(move || {
            let start = Instant::now();
            let mut bar: Option<ProgressBar> = None;
            // Until `stop` is dropped: the work's end wakes this at once.
            while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(TICK) {
                let (done, total) = progress.get();
                if bar.is_none() && total > 0 && start.elapsed() >= DELAY {
                    bar = Some(
                        ProgressBar::with_draw_target(
                            Some(total as u64),
                            ProgressDrawTarget::stderr(),
                        )
                        .with_style(bar_style(items))
                        .with_message(what.to_string())
                        .with_finish(ProgressFinish::AndClear),
                    );
                }
                if let Some(b) = &bar {
                    b.set_length(total as u64);
                    b.set_position(done as u64);
                }
            }
            if let Some(b) = bar {
                b.finish_and_clear();
            }
        });
        let r = work();
        drop(stop);
        r
    })
}

/// A bar over `len` items for a loop that counts itself (`inc`), shown at once.
pub fn bar(what: &str, items: &str, len: u64) -> ProgressBar {
    ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr())
        .with_style(bar_style(items))
        .with_message(what.to_string())
        .with_finish(ProgressFinish::AndClear)
}

/// A spinner with the time spent, for work whose length is not known (a benchmark's
/// stages); `set_message` names the stage.
pub fn spinner(what: &str) -> ProgressBar {
    let s = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr())
        .with_style(
            ProgressStyle::with_template("{spinner} {msg} ({elapsed})")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        )
        .with_message(what.to_string())
        .with_finish(ProgressFinish::AndClear);
    s.enable_steady_tick(TICK);
    s
}
