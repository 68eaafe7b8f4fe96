//! The drag preview: what a frame drawn while a handle is dragged in edit mode leaves out, so
//! that the layouts follow the pointer where a full frame is slow (issue 37: at least 10
//! relayouts a second on the software rasterizer, whose 1280×720 frame of a 500-tile string
//! takes about 0.9 s: the shadows about 0.3 s of it, the 19,000 trees most of the rest).
//!
//! While a drag moves a handle and the window's full frames take longer than
//! [`SLOW_FRAME_MS`], each frame is drawn without the shadow map, with the trees only within
//! [`TREES_WITHIN_M`] of the camera, and at `1/`[`DIVISOR`] of the window's size in each
//! axis, stretched over the window ([`FrameTargets::reduced`]). The tiles, objects, facades,
//! terrain and everything else are drawn as in a full frame. The edit window says so
//! ([`WORDS`]). The frame after the button comes up is a full one again, and so is every
//! screenshot. On a GPU whose full frames are fast, a drag looks like any other frame.
//!
//! This module is the one place the rule lives: the window (`viewer/frame.rs`) and the bench
//! ask [`wanted`], [`params`] and [`Targets`].
//!
//! `agview bench edit` measures the drag with and without it, through the same functions.

use crate::render::{FrameParams, FrameTargets, Renderer};

/// The scene is drawn at this fraction of the window's size in each axis while dragging:
/// a third (427×240 of 1280×720). With the far trees gone, half (640×360) still cost some
/// 100–150 ms a frame on lavapipe; a third about 80 ms, a quarter no less.
pub const DIVISOR: u32 = 3;

/// Full frames slower than this (ms, the drawing alone) get the preview while dragging:
/// with a layout and upload of up to 20 ms, frames of at most 50 ms keep 10 relayouts a
/// second without it.
pub const SLOW_FRAME_MS: f64 = 50.0;

/// While dragging, trees are drawn only within this distance of the camera (m): on the
/// software rasterizer the trees are most of a frame (`agview bench edit` on lakeside.ags:
/// its 19,000 trees cost about 250 of a preview frame's 340 ms), and an author dragging a
/// handle watches the shape, the tiles and the objects follow it; the trees near the
/// camera, where a close look goes, stay.
pub const TREES_WITHIN_M: f32 = 300.0;

/// What the edit window shows while the preview is drawn.
pub const WORDS: &str =
    "drag preview: shadows off, a third of the resolution, trees only within 300 m";

/// Whether a drag is drawn as a preview, given how long the full frames take (ms; 0 when
/// none was measured yet).
pub fn wanted(full_frame_ms: f64) -> bool {
    full_frame_ms > SLOW_FRAME_MS
}

/// The frame parameters of a preview frame: `params` without the shadow map, and the trees
/// only within [`TREES_WITHIN_M`] of the camera.
pub fn params(params: &FrameParams) -> FrameParams {
    FrameParams {
        shadows: false,
        trees_within_m: params.trees_within_m.min(TREES_WITHIN_M),
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
    fn only_slow_frames_get_the_preview_and_it_drops_the_shadows_and_far_trees_alone() {
        assert!(!wanted(0.0), "nothing measured yet: full frames");
        assert!(!wanted(16.0));
        assert!(wanted(567.0), "lavapipe's 494-tile frame");
        let p = FrameParams::default();
        assert!(p.shadows);
        let q = params(&p);
        assert!(!q.shadows);
        assert_eq!(q.trees_within_m, TREES_WITHIN_M);
        assert!(WORDS.contains(&format!("within {TREES_WITHIN_M:.0} m")));
        let back = FrameParams {
            shadows: true,
            trees_within_m: f32::INFINITY,
            ..q
        };
        assert_eq!(back, p);
    }
}
