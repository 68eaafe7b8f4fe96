//! Progressive antialiasing on a CPU adapter: the window draws 1× while the scene loads or
//! changes and while the camera moves, and one 4× frame once nothing has changed for
//! [`STILL`]. On lavapipe depth testing of the 4× target was over half of a first frame
//! (GPU frame time about 3.0 s at 4× against 1.1 s at 1×, 100,000 features); on a GPU
//! adapter every frame is 4× as before. Headless output (screenshots, `--screenshot`,
//! goldens) is always drawn at the best sample count.

use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::app::reload::Gpu;
use crate::render::{FrameParams, FrameTargets, Renderer};

/// How long nothing must change before the window draws its 4× frame.
pub(super) const STILL: Duration = Duration::from_millis(250);

/// Whether a frame is drawn 1×: where there is a 1× renderer, while something changes or
/// for [`STILL`] after.
pub(super) fn draft_now(has_draft: bool, busy: bool, since_change: Duration) -> bool {
    has_draft && (busy || since_change < STILL)
}

/// The window's 1× renderer beside its 4× one, and what tells a still frame.
pub(super) struct Refine {
    /// The 1× pipelines being built (on a thread, while the scene loads).
    building: Option<JoinHandle<Renderer>>,
    draft: Option<(Renderer, Option<FrameTargets>)>,
    /// When the scene or the view last changed, and what they were.
    changed_at: Instant,
    last: Option<(u64, usize, (u32, u32), FrameParams)>,
    /// The last frame presented was 1×.
    pub drafted: bool,
    /// The first full frame was 1×: the first 4× one is to be reported.
    pub aa_to_report: bool,
}

impl Refine {
    /// For `gpu`'s renderer: a 1× one is built beside it on a CPU adapter that draws 4×.
    pub(super) fn new(gpu: &Arc<Gpu>) -> Self {
        let wanted = gpu.renderer.sample_count() > 1 && crate::render::cpu_adapter(&gpu.ctx);
        let building = wanted.then(|| {
            let gpu = gpu.clone();
            std::thread::spawn(move || gpu.renderer.with_sample_count(&gpu.ctx, 1))
        });
        Refine {
            building,
            draft: None,
            changed_at: Instant::now(),
            last: None,
            drafted: false,
            aa_to_report: false,
        }
    }

    /// Waits for the 1× pipelines being built, if they are. The device-loss test hook
    /// calls it before destroying the device: pipelines built on another thread while the
    /// device is destroyed could hang on lavapipe, which a real loss (a driver reset)
    /// cannot be made to wait for, but a hook that simulates one can.
    pub(super) fn finish_building(&mut self) {
        if let Some(Ok(r)) = self.building.take().map(JoinHandle::join) {
            self.draft = Some((r, None));
        }
    }

    /// Notes what this frame shows (`generation` and `parts` of the scene, its `params`, the
    /// window's size) and whether anything else changes it (`busy`: loading, moving, an edit on its way);
    /// returns the 1× renderer and targets of `width × height` when the frame is drawn
    /// 1×, and when the still 4× frame is due otherwise.
    pub(super) fn choose(
        &mut self,
        gpu: &Gpu,
        key: (u64, usize, &FrameParams),
        busy: bool,
        size: (u32, u32),
    ) -> (Option<(&Renderer, &FrameTargets)>, Option<Instant>) {
        if self.building.as_ref().is_some_and(JoinHandle::is_finished) {
            if let Some(Ok(r)) = self.building.take().map(JoinHandle::join) {
                self.draft = Some((r, None));
            }
        }
        let same = self
            .last
            .as_ref()
            .is_some_and(|(g, p, s, f)| (*g, *p, *s, f) == (key.0, key.1, size, key.2));
        if !same {
            self.last = Some((key.0, key.1, size, key.2.clone()));
            self.changed_at = Instant::now();
        }
        if busy {
            self.changed_at = Instant::now();
        }
        let draft = draft_now(self.draft.is_some(), busy, self.changed_at.elapsed());
        self.drafted = draft;
        let due = self.changed_at + STILL;
        match (&mut self.draft, draft) {
            (Some((r, targets)), true) => {
                if targets.as_ref().is_none_or(|t| (t.width, t.height) != size) {
                    *targets = Some(FrameTargets::new(&gpu.ctx.device, r, size.0, size.1));
                }
                let t = targets.as_ref().map(|t| (&*r, t));
                (t, Some(due))
            }
            (Some((_, targets)), false) => {
                // The still 4× frame: the 1× targets (25 MB at 1920×1080, all of it the
                // process's memory on a CPU adapter) go while it is shown, and are made
                // again when something next moves.
                *targets = None;
                (None, None)
            }
            (None, _) => (None, None),
        }
    }

    /// What the panel says of the antialiasing.
    pub(super) fn words(&self, samples: u32) -> String {
        if self.drafted {
            format!("antialiasing 1×, refining to {samples}× when still")
        } else {
            format!("antialiasing {samples}×")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_moving_or_loading_frame_is_1x_on_a_cpu_adapter_and_a_still_one_4x() {
        let long = STILL + Duration::from_millis(1);
        // A CPU adapter (a 1× renderer beside the 4× one).
        assert!(draft_now(true, true, long), "moving or loading");
        assert!(draft_now(true, false, Duration::ZERO), "just changed");
        assert!(!draft_now(true, false, long), "still: the 4× frame");
        // A GPU adapter: always 4×.
        assert!(!draft_now(false, true, Duration::ZERO));
        assert!(!draft_now(false, false, long));
    }
}
