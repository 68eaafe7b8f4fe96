//! The view: an orbit around a point, a top-down map view, or a free-flying eye.
//!
//! Angles follow the scene's conventions: `yaw` is the direction the camera *looks*, in
//! degrees clockwise from north; `pitch` is how far it looks *down* from the horizon, in
//! degrees (so an orbit camera at pitch 35 sits 35° above its target's horizon).

use glam::{Mat4, Vec3, Vec4};

/// Vertical field of view of the perspective cameras, degrees.
pub(crate) const FOV_Y_DEG: f32 = 45.0;

/// The share of the image's half-width (and half-height) left free around a framed box.
pub(crate) const FRAME_MARGIN: f32 = 0.05;

/// A camera. Public fields so the window can steer it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Camera {
    /// Looking at `target` from `distance` meters away.
    Orbit {
        target: [f32; 3],
        distance: f32,
        yaw_deg: f32,
        pitch_deg: f32,
    },
    /// Straight down, north up, orthographic: `half_height` meters from the centre to the
    /// top edge of the image.
    Top { center: [f32; 2], half_height: f32 },
    /// An eye at `pos` looking along `yaw_deg`, `pitch_deg`.
    Free {
        pos: [f32; 3],
        yaw_deg: f32,
        pitch_deg: f32,
    },
}

impl Camera {
    /// An orbit camera around `target`.
    pub fn orbit(target: [f32; 3], distance: f32, yaw_deg: f32, pitch_deg: f32) -> Self {
        Camera::Orbit {
            target,
            distance,
            yaw_deg,
            pitch_deg,
        }
    }

    /// A top-down orthographic camera over `center` showing `half_height` meters above and
    /// below it.
    pub fn top(center: [f32; 2], half_height: f32) -> Self {
        Camera::Top {
            center,
            half_height,
        }
    }

    /// A free camera at `(x, y, z)`.
    pub fn free(x: f32, y: f32, z: f32, yaw_deg: f32, pitch_deg: f32) -> Self {
        Camera::Free {
            pos: [x, y, z],
            yaw_deg,
            pitch_deg,
        }
    }

    /// A view of a rectangle `bounds` (min, max in meters) whose content's height is not
    /// known (the synthetic city, test scenes): seen from the south-west at 35° elevation
    /// from its bounding circle's radius over the tangent of half the vertical field of
    /// view, which leaves room above the ground for what stands on it. A scene's own view,
    /// which knows the heights, is [`Camera::frame_fit`].
    pub fn frame_scene(bounds: ([f32; 2], [f32; 2])) -> Self {
        let (lo, hi) = bounds;
        let center = [(lo[0] + hi[0]) * 0.5, (lo[1] + hi[1]) * 0.5];
        let radius = (0.5 * ((hi[0] - lo[0]).powi(2) + (hi[1] - lo[1]).powi(2)).sqrt()).max(5.0);
        let half_fov = (FOV_Y_DEG * 0.5).to_radians();
        Camera::orbit(
            [center[0], center[1], 0.0],
            radius / half_fov.tan(),
            45.0,
            35.0,
        )
    }

    /// The default view of a scene's [`Framing`]: from the south-west at 35° elevation,
    /// turning around the ground under the scene's centre, far enough away that the scene's
    /// rectangle and what stands on it fit an image of aspect 4:3 or wider.
    pub fn frame(f: &super::framing::Framing) -> Self {
        Camera::frame_from(f, 225.0)
    }

    /// [`Camera::frame_fit`] from the south-west: the default view of an image of `aspect`.
    pub fn frame_for(f: &super::framing::Framing, aspect: f32) -> Self {
        Camera::frame_fit(f, 225.0, aspect)
    }

    /// The orbit view of a [`Framing`] from `from_deg` (clockwise from north) at 35° that
    /// fits the framed box, its corners at ground and at content height, to an image of
    /// `aspect` (width / height) with a margin of [`FRAME_MARGIN`] on each side: the box's
    /// projection touches the margin on the image's tighter axis, so it fills about 90% of
    /// the width or the height. The target is the centre of the box's ground rectangle.
    pub(crate) fn frame_fit(f: &super::framing::Framing, from_deg: f32, aspect: f32) -> Self {
        const PITCH: f32 = 35.0;
        let look = (from_deg + 180.0).rem_euclid(360.0);
        let aspect = if aspect.is_finite() && aspect > 0.0 {
            aspect
        } else {
            4.0 / 3.0
        };
        let (lo, hi) = (f.lo, f.hi);
        let corners: Vec<Vec3> = (0..8)
            .map(|k| {
                let pick = |i: usize| if k >> i & 1 == 0 { lo[i] } else { hi[i] };
                Vec3::new(pick(0), pick(1), pick(2))
            })
            .filter(|p| p.is_finite())
            .collect();
        let limit = 1.0 - FRAME_MARGIN;
        // The box's projection: its extent in normalised device coordinates, `None` when a
        // corner is behind the eye.
        let extent = |cam: &Camera| -> Option<([f32; 2], [f32; 2])> {
            let vp = cam.view_proj(aspect);
            let (mut x, mut y) = ([f32::MAX, f32::MIN], [f32::MAX, f32::MIN]);
            for p in &corners {
                let q = vp * p.extend(1.0);
                if q.w <= 0.0 {
                    return None;
                }
                let (nx, ny) = (q.x / q.w, q.y / q.w);
                x = [x[0].min(nx), x[1].max(nx)];
                y = [y[0].min(ny), y[1].max(ny)];
            }
            Some((x, y))
        };
        let fits = |cam: &Camera| {
            extent(cam).is_some_and(|(x, y)| {
                x[0] >= -limit && x[1] <= limit && y[0] >= -limit && y[1] <= limit
            })
        };
        let half_fov = (FOV_Y_DEG * 0.5).to_radians();
        // The bounding sphere's distance always fits (a sphere seen whole holds the box).
        let sphere = (f.radius() / half_fov.tan() / limit).max(1.0);
        let mut target = f.center();
        let at = |target: Vec3, d: f32| Camera::orbit(target.to_array(), d, look, PITCH);
        if corners.is_empty() || !fits(&at(target, sphere)) {
            return at(target, sphere);
        }
        // The nearest distance that fits, by bisection; then the target slides on the ground
        // so that the projection is centred (perspective makes the near side larger), and
        // the distance is found again.
        let nearest = |target: Vec3| {
            let (mut near, mut far) = (0.0f32, sphere * 2.0);
            for _ in 0..40 {
                let mid = (near + far) * 0.5;
                if fits(&at(target, mid)) {
                    far = mid;
                } else {
                    near = mid;
                }
            }
            far
        };
        let (yaw, pitch) = (look.to_radians(), PITCH.to_radians());
        let right = Vec3::new(yaw.cos(), -yaw.sin(), 0.0);
        let ahead = Vec3::new(yaw.sin(), yaw.cos(), 0.0);
        let mut d = nearest(target);
        for _ in 0..4 {
            let Some((x, y)) = extent(&at(target, d)) else {
                break;
            };
            let (cx, cy) = ((x[0] + x[1]) * 0.5, (y[0] + y[1]) * 0.5);
            let unit = d * half_fov.tan();
            let moved = target + right * (cx * unit * aspect) + ahead * (cy * unit / pitch.sin());
            if !fits(&at(moved, sphere)) {
                break;
            }
            target = moved;
            d = nearest(target);
        }
        at(target, d)
    }

    /// The camera as the `--camera X,Y,Z,YAW,PITCH` argument that places it again: the eye
    /// in the scene's frame (meters, z up), yaw clockwise from north, pitch down from level,
    /// each the shortest decimal that reads back as the same number. `None` for the top
    /// view, which `--camera top` gives.
    pub fn as_argument(&self) -> Option<String> {
        let (yaw, pitch) = match *self {
            Camera::Orbit {
                yaw_deg, pitch_deg, ..
            }
            | Camera::Free {
                yaw_deg, pitch_deg, ..
            } => (yaw_deg, pitch_deg),
            Camera::Top { .. } => return None,
        };
        let e = self.eye();
        Some(format!("{},{},{},{yaw},{pitch}", e.x, e.y, e.z))
    }

    /// The top view of a [`Framing`]: straight down on the centre of its rectangle, its
    /// longer side with a 10% margin.
    pub fn frame_top(f: &super::framing::Framing) -> Self {
        let (lo, hi) = f.bounds();
        let c = f.center();
        Camera::top(
            [c.x, c.y],
            ((hi[0] - lo[0]).max(hi[1] - lo[1]) * 0.55).max(5.0),
        )
    }

    /// [`Camera::frame`] seen from `from_deg` (clockwise from north: 45 is the north-east,
    /// 225 the south-west of the default view), fitted to a 4:3 image: every image agview
    /// makes is 4:3 or wider, so the box is never cut (see [`Camera::frame_fit`] for an
    /// image of known shape).
    pub fn frame_from(f: &super::framing::Framing, from_deg: f32) -> Self {
        Camera::frame_fit(f, from_deg, 4.0 / 3.0)
    }

    /// The eye position in the world.
    pub fn eye(&self) -> Vec3 {
        match *self {
            Camera::Orbit {
                target,
                distance,
                yaw_deg,
                pitch_deg,
            } => Vec3::from(target) - look_dir(yaw_deg, pitch_deg) * distance.max(0.01),
            Camera::Top {
                center,
                half_height,
            } => Vec3::new(center[0], center[1], top_eye_height(half_height)),
            Camera::Free { pos, .. } => Vec3::from(pos),
        }
    }

    /// Where distances are measured from for LOD, tile fade and haze: the eye, except for
    /// the top view, whose eye is far above everything; there it is the height from which
    /// a perspective camera would see the same extent.
    pub fn lod_eye(&self) -> Vec3 {
        match *self {
            Camera::Top {
                center,
                half_height,
            } => {
                let d = half_height.abs().max(0.5) / (FOV_Y_DEG * 0.5).to_radians().tan();
                Vec3::new(center[0], center[1], d)
            }
            _ => self.eye(),
        }
    }

    /// The unit vector the camera looks along.
    pub fn forward(&self) -> Vec3 {
        match *self {
            Camera::Orbit {
                yaw_deg, pitch_deg, ..
            }
            | Camera::Free {
                yaw_deg, pitch_deg, ..
            } => look_dir(yaw_deg, pitch_deg),
            Camera::Top { .. } => Vec3::NEG_Z,
        }
    }

    /// View-projection matrix (reversed depth: 1 at the near plane, 0 at infinity) for an
    /// image of the given width / height.
    pub fn view_proj(&self, aspect: f32) -> Mat4 {
        let aspect = if aspect.is_finite() && aspect > 0.0 {
            aspect
        } else {
            1.0
        };
        match *self {
            Camera::Top {
                center,
                half_height,
            } => {
                let hh = half_height.abs().max(0.5);
                let eye = self.eye();
                let view = Mat4::look_at_rh(eye, Vec3::new(center[0], center[1], 0.0), Vec3::Y);
                let depth = eye.z + 20_000.0;
                // Near and far swapped: reversed depth.
                let proj = Mat4::orthographic_rh(-hh * aspect, hh * aspect, -hh, hh, depth, 1.0);
                proj * view
            }
            _ => {
                let eye = self.eye();
                let fwd = self.forward();
                // Looking straight up or down: any horizontal `up` works.
                let up = if fwd.z.abs() > 0.999 {
                    Vec3::Y
                } else {
                    Vec3::Z
                };
                let view = Mat4::look_at_rh(eye, eye + fwd, up);
                let proj = Mat4::perspective_infinite_reverse_rh(
                    FOV_Y_DEG.to_radians(),
                    aspect,
                    self.near(),
                );
                proj * view
            }
        }
    }

    /// Whether any of the box `lo..hi` (world meters) can be in an image of this aspect:
    /// false when all of its corners lie behind the eye or beyond one side of the view.
    pub fn sees_box(&self, lo: [f32; 3], hi: [f32; 3], aspect: f32) -> bool {
        let vp = self.view_proj(aspect);
        let corners: Vec<glam::Vec4> = (0..8)
            .map(|k| {
                let pick = |i: usize| if k >> i & 1 == 0 { lo[i] } else { hi[i] };
                vp * glam::Vec4::new(pick(0), pick(1), pick(2), 1.0)
            })
            .collect();
        let all = |f: &dyn Fn(&glam::Vec4) -> bool| corners.iter().all(f);
        !(all(&|c| c.w <= 0.0)
            || all(&|c| c.x > c.w)
            || all(&|c| c.x < -c.w)
            || all(&|c| c.y > c.w)
            || all(&|c| c.y < -c.w))
    }

    /// Distance of the near plane: 0.3 m for every perspective view (the depth buffer is
    /// reversed 32-bit float, precise at any distance), so that an orbit view and the
    /// `--camera X,Y,Z,YAW,PITCH` it prints draw the same image.
    pub fn near(&self) -> f32 {
        match *self {
            Camera::Top { .. } => 1.0,
            Camera::Orbit { .. } | Camera::Free { .. } => 0.3,
        }
    }
}

fn look_dir(yaw_deg: f32, pitch_deg: f32) -> Vec3 {
    let (yaw, pitch) = (yaw_deg.to_radians(), pitch_deg.to_radians());
    Vec3::new(
        yaw.sin() * pitch.cos(),
        yaw.cos() * pitch.cos(),
        -pitch.sin(),
    )
}

fn top_eye_height(half_height: f32) -> f32 {
    10_000.0 + half_height.abs()
}

/// The inward planes of a view-projection's frustum, normalised: left, right, bottom, top,
/// near (depth 1 with reversed depth) and far (depth 0; all of space for an infinite
/// perspective, whose plane degenerates and is replaced by one that passes everything).
pub fn frustum_planes(m: Mat4) -> [[f32; 4]; 6] {
    let row = |i: usize| Vec4::new(m.x_axis[i], m.y_axis[i], m.z_axis[i], m.w_axis[i]);
    let (r0, r1, r2, r3) = (row(0), row(1), row(2), row(3));
    let raw = [r3 + r0, r3 - r0, r3 + r1, r3 - r1, r3 - r2, r2];
    raw.map(|p| {
        let len = p.truncate().length();
        if len > 1e-12 && len.is_finite() {
            (p / len).to_array()
        } else {
            [0.0, 0.0, 0.0, 1.0]
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_scene_sits_south_west_at_35_degrees() {
        let cam = Camera::frame_scene(([-50.0, -50.0], [50.0, 50.0]));
        let eye = cam.eye();
        assert!(eye.x < 0.0 && eye.y < 0.0 && eye.z > 0.0);
        let horizontal = (eye.x * eye.x + eye.y * eye.y).sqrt();
        let elevation = eye.z.atan2(horizontal).to_degrees();
        assert!((elevation - 35.0).abs() < 0.01, "{elevation}");
        assert!((eye.x - eye.y).abs() < 1e-3);
    }

    #[test]
    fn framed_scene_corners_are_in_view() {
        let bounds = ([100.0, 200.0], [400.0, 300.0]);
        let cam = Camera::frame_scene(bounds);
        // The narrowest image frame_scene is made for.
        let vp = cam.view_proj(4.0 / 3.0);
        for p in [
            [100.0, 200.0],
            [400.0, 200.0],
            [400.0, 300.0],
            [100.0, 300.0],
        ] {
            let c = vp * glam::Vec4::new(p[0], p[1], 0.0, 1.0);
            let ndc = c / c.w;
            assert!(ndc.x.abs() <= 1.0 && ndc.y.abs() <= 1.0, "{p:?} -> {ndc:?}");
            assert!(ndc.z > 0.0 && ndc.z <= 1.0);
        }
    }

    #[test]
    fn reversed_depth_orders_near_above_far() {
        let cam = Camera::free(0.0, 0.0, 10.0, 0.0, 0.0);
        let vp = cam.view_proj(1.5);
        let depth = |y: f32| {
            let c = vp * glam::Vec4::new(0.0, y, 10.0, 1.0);
            c.z / c.w
        };
        assert!(depth(10.0) > depth(100.0));
        assert!(depth(100.0) > depth(10_000.0));
    }

    #[test]
    fn top_view_has_north_up() {
        let cam = Camera::top([0.0, 0.0], 100.0);
        let vp = cam.view_proj(1.0);
        let north = vp * glam::Vec4::new(0.0, 50.0, 0.0, 1.0);
        let east = vp * glam::Vec4::new(50.0, 0.0, 0.0, 1.0);
        assert!((north.y / north.w - 0.5).abs() < 1e-4);
        assert!((east.x / east.w - 0.5).abs() < 1e-4);
        let z = north.z / north.w;
        assert!(z > 0.0 && z < 1.0);
    }

    #[test]
    fn headings_are_clockwise_from_north() {
        let east = Camera::free(0.0, 0.0, 0.0, 90.0, 0.0).forward();
        assert!((east - Vec3::X).length() < 1e-5);
        let down = Camera::free(0.0, 0.0, 0.0, 0.0, 90.0).forward();
        assert!((down - Vec3::NEG_Z).length() < 1e-5);
        // Looking straight down must still give a usable matrix.
        assert!(Camera::free(0.0, 0.0, 50.0, 0.0, 90.0)
            .view_proj(1.0)
            .is_finite());
    }

    #[test]
    fn a_camera_looking_away_sees_no_box() {
        let (lo, hi) = ([-10.0, -10.0, 0.0], [10.0, 10.0, 5.0]);
        // From the south, looking north at it; then looking south, away from it.
        let toward = Camera::free(0.0, -100.0, 10.0, 0.0, 5.0);
        let away = Camera::free(0.0, -100.0, 10.0, 180.0, 5.0);
        assert!(toward.sees_box(lo, hi, 16.0 / 9.0));
        assert!(!away.sees_box(lo, hi, 16.0 / 9.0));
        assert!(Camera::orbit([0.0; 3], 50.0, 45.0, 35.0).sees_box(lo, hi, 1.0));
    }
}
