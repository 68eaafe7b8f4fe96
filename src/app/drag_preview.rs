//! The drag preview: what a frame drawn while a handle is dragged in edit mode leaves out, so
//! that the layouts follow the pointer where a full frame is slow (issue 37: at least 10
//! relayouts a second on the software rasterizer, whose 1280×720 frame of a 500-tile string
//! takes about half a second, shadows about 0.3 s of it).
//!
//! While a drag moves a handle and the window's full frames take longer than
//! [`SLOW_FRAME_MS`], each frame is drawn without the shadow map and at `1/`[`DIVISOR`] of the
//! window's size in each axis, stretched over the window ([`FrameTargets::reduced`]). The
//! edit window says so ([`WORDS`]). The frame after the button comes up is a full one again.
//! On a GPU whose full frames are fast, a drag looks like any other frame.
//!
//! `agview bench edit` measures the drag with and without it, through the same functions.

use crate::render::{FrameParams, FrameTargets, Renderer};

/// The scene is drawn at this fraction of the window's size in each axis while dragging.
pub const DIVISOR: u32 = 2;

/// Full frames slower than this (ms, the drawing alone) get the preview while dragging:
/// with a layout and upload of up to 20 ms, frames of at most 50 ms keep 10 relayouts a
/// second without it.
pub const SLOW_FRAME_MS: f64 = 50.0;

/// What the edit window shows while the preview is drawn.
pub const WORDS: &str = "drag preview: shadows off, half resolution";

/// Whether a drag is drawn as a preview, given how long the full frames take (ms; 0 when
/// none was measured yet).
pub fn wanted(full_frame_ms: f64) -> bool {
    full_frame_ms > SLOW_FRAME_MS
}

/// The frame parameters of a preview frame: `params` without the shadow map.
pub fn params(params: &FrameParams) -> FrameParams {
    FrameParams {
        shadows: false,
        ..params.clone()
    }
}

/// The preview's frame targets, made for an output size and kept until it changes.
#[derive(Default)]
pub struct Targets(Option<((u32, u32), FrameTargets)>);

impl Targets {
    /// The reduced targets for a `width × height` output.
    pub fn get(
        &mut self,
        device: &wgpu::Device,
        renderer: &Renderer,
        width: u32,
        height: u32,
    ) -> &FrameTargets {
        if self
            .0
            .as_ref()
            .is_some_and(|(size, _)| *size != (width, height))
        {
            self.0 = None;
        }
        let made = self.0.get_or_insert_with(|| {
            let t = FrameTargets::reduced(device, renderer, width, height, DIVISOR);
            ((width, height), t)
        });
        &made.1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_slow_frames_get_the_preview_and_it_drops_the_shadows_alone() {
        assert!(!wanted(0.0), "nothing measured yet: full frames");
        assert!(!wanted(16.0));
        assert!(wanted(567.0), "lavapipe's 494-tile frame");
        let p = FrameParams::default();
        assert!(p.shadows);
        let q = params(&p);
        assert!(!q.shadows);
        assert_eq!(FrameParams { shadows: true, ..q }, p);
    }
}
