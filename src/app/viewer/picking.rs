//! Picking a feature under the pointer and framing it: a ray from the camera through the
//! pointer, tested against each feature's box.

use super::App;
use crate::render::{FrameChoice, Framing};

impl App {
    /// Frames what `choice` names, keeping the camera's mode; the orbit turns around it.
    pub(super) fn frame(&mut self, choice: FrameChoice) {
        let (Some(s), Some(c)) = (&self.shown, &mut self.cam) else {
            return;
        };
        let terrain = s.framing.terrain().cloned();
        let mut f = Framing::choose(
            &s.view.loaded.scene,
            Some(&s.art),
            terrain.as_deref(),
            choice,
        );
        if let Some(t) = terrain {
            f = f.with_ground(t);
        }
        eprintln!(
            "{}",
            f.describe()
                .unwrap_or_else(|| "framed everything".to_string())
        );
        c.set_framing(f);
        c.frame();
    }

    /// The feature under the window pixel `at`, if any: of the boxes the ray through it
    /// meets, the one with the smallest footprint (an object on an apron, not the apron).
    pub(super) fn feature_at(&self, at: (f64, f64)) -> Option<usize> {
        let (s, c, g) = (self.shown.as_ref()?, self.cam.as_ref()?, self.gfx.as_ref()?);
        let (w, h) = (g.config.width as f32, g.config.height as f32);
        let (origin, dir) = pick_ray(&c.camera, at.0 as f32 / w, at.1 as f32 / h, w / h)?;
        s.boxes
            .iter()
            .enumerate()
            .filter_map(|(i, b)| {
                let (lo, hi) = (*b)?;
                ray_hits_box(origin, dir, lo, hi)?;
                Some((i, (hi[0] - lo[0]) * (hi[1] - lo[1])))
            })
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(i, _)| i)
    }

    /// A click in the view: select the feature under it (or clear the selection).
    pub(super) fn pick(&mut self, at: (f64, f64), frame: bool) {
        match self.feature_at(at) {
            Some(i) => {
                self.table.select(i);
                if let Some(f) = self
                    .shown
                    .as_ref()
                    .and_then(|s| s.view.loaded.scene.features.get(i))
                {
                    eprintln!("picked feature {i}: {} ({})", f.source, f.asset);
                }
                if frame {
                    self.frame(FrameChoice::Feature(i as u32));
                }
            }
            None => self.table.selected = None,
        }
        self.request_redraw();
    }
}

/// The ray through the window point (`fx`, `fy`), fractions of its width and height from the
/// top left: its origin on the near plane and its unit direction, in scene meters.
pub(super) fn pick_ray(
    camera: &crate::render::Camera,
    fx: f32,
    fy: f32,
    aspect: f32,
) -> Option<(glam::Vec3, glam::Vec3)> {
    let inv = camera.view_proj(aspect).inverse();
    let (x, y) = (fx * 2.0 - 1.0, 1.0 - fy * 2.0);
    // Reversed depth: 1 on the near plane; 0.5 lies beyond it.
    let at = |z: f32| {
        let p = inv * glam::Vec4::new(x, y, z, 1.0);
        (p.w.abs() > 1e-12).then(|| p.truncate() / p.w)
    };
    let (near, far) = (at(1.0)?, at(0.5)?);
    let dir = (far - near).normalize_or_zero();
    (dir != glam::Vec3::ZERO && near.is_finite()).then_some((near, dir))
}

/// Where along the ray (`origin`, unit `dir`) it enters the box `lo..hi`, if it meets it
/// ahead (slab test).
fn ray_hits_box(origin: glam::Vec3, dir: glam::Vec3, lo: [f32; 3], hi: [f32; 3]) -> Option<f32> {
    let (mut t0, mut t1) = (0.0f32, f32::INFINITY);
    for k in 0..3 {
        let (o, d) = (origin[k], dir[k]);
        if d.abs() < 1e-9 {
            if o < lo[k] || o > hi[k] {
                return None;
            }
            continue;
        }
        let (a, b) = ((lo[k] - o) / d, (hi[k] - o) / d);
        t0 = t0.max(a.min(b));
        t1 = t1.min(a.max(b));
    }
    (t0 <= t1).then_some(t0)
}
