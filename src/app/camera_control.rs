//! Steering the render [`Camera`] from the keyboard and mouse: fly, orbit and the top view.
//!
//! The controller keeps the render camera itself, so the window starts with exactly the
//! camera `agview render` would use for the same options, and a screenshot taken before
//! any input matches the headless render.
//!
//! - Fly (`Camera::Free`): W/S along the view, A/D sideways, Q/E down/up, mouse look while
//!   the right button is held; the wheel changes the speed; Shift is four times faster.
//! - Orbit (`Camera::Orbit`, around the scene centre): W/S in/out, A/D around, Q/E lower or
//!   higher; the mouse (right or left button held) turns around the centre; the wheel zooms.
//! - Top (`Camera::Top`): W/A/S/D pan, Q/E or the wheel zoom; dragging pans.
//!
//! Nothing here knows about winit: the window maps its keys to [`Held`] and its pointer
//! deltas to [`CameraControl::drag`].

use glam::Vec3;

use crate::render::{Camera, Framing};

/// Degrees of turn per pixel of mouse movement.
const LOOK_DEG_PER_PIXEL: f32 = 0.2;
/// Longest time step applied at once, so a stalled frame does not teleport the camera.
const MAX_STEP_S: f32 = 0.1;
const FAST: f32 = 4.0;
/// How far above the ground the fly camera's eye stays, meters.
pub const EYE_ABOVE_GROUND: f32 = 1.0;

/// Which way the camera is steered (follows the [`Camera`] variant).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Orbit,
    Fly,
    Top,
}

/// Movement keys currently held.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Held {
    pub forward: bool,
    pub back: bool,
    pub left: bool,
    pub right: bool,
    pub down: bool,
    pub up: bool,
    pub fast: bool,
}

impl Held {
    /// True when a movement key is down (the window keeps redrawing).
    pub fn any_motion(&self) -> bool {
        self.forward || self.back || self.left || self.right || self.down || self.up
    }
}

/// The camera and how it is being steered.
#[derive(Debug, Clone, PartialEq)]
pub struct CameraControl {
    pub camera: Camera,
    /// What the scene occupies, and the ground the fly camera keeps above.
    framing: Framing,
    /// Fly speed in meters per second.
    pub speed: f32,
    pub held: Held,
}

impl CameraControl {
    /// Starts from `camera` over a scene framed by `framing`.
    pub fn new(camera: Camera, framing: Framing) -> Self {
        let mut c = CameraControl {
            camera,
            framing,
            speed: 20.0,
            held: Held::default(),
        };
        c.speed = (c.radius() * 0.5).clamp(5.0, 500.0);
        c
    }

    pub fn mode(&self) -> Mode {
        match self.camera {
            Camera::Orbit { .. } => Mode::Orbit,
            Camera::Free { .. } => Mode::Fly,
            Camera::Top { .. } => Mode::Top,
        }
    }

    /// The scene centre on the ground: what orbit turns around.
    pub fn center(&self) -> Vec3 {
        self.framing.center()
    }

    fn radius(&self) -> f32 {
        self.framing.radius()
    }

    /// A new scene (after a reload, or a new terrain): the camera stays where it is; orbit
    /// re-centres, and the fly camera rises above the ground if that is now above it.
    pub fn set_framing(&mut self, framing: Framing) {
        let before = self.center();
        self.framing = framing;
        // The orbit target moves with the framed box's centre (the default view's target
        // sits off the centre, where it centres the picture).
        let now = self.center();
        if let Camera::Orbit { target, .. } = &mut self.camera {
            let t = Vec3::from(*target) + (now - before);
            *target = if t.is_finite() { t } else { now }.to_array();
        }
        self.keep_above_ground();
    }

    /// The fly camera never goes below the ground: its eye stays [`EYE_ABOVE_GROUND`] above.
    fn keep_above_ground(&mut self) {
        if let Camera::Free { pos, .. } = &mut self.camera {
            let floor = self.framing.ground_at(pos[0], pos[1]) + EYE_ABOVE_GROUND;
            if pos[2] < floor {
                pos[2] = floor;
            }
        }
    }

    /// `F`: the whole scene in view, keeping the mode.
    pub fn frame(&mut self) {
        let framed = Camera::frame(&self.framing);
        self.camera = match self.mode() {
            Mode::Orbit => framed,
            Mode::Fly => {
                let e = framed.eye();
                let (yaw, pitch) = angles(framed.forward());
                Camera::free(e.x, e.y, e.z, yaw, pitch)
            }
            Mode::Top => Camera::frame_top(&self.framing),
        };
    }

    /// `O`: orbit ⇄ fly. Flying starts where the orbit eye was, looking the same way;
    /// orbiting turns around the scene centre from where the eye is. From the top view,
    /// orbit framing the scene.
    pub fn toggle_orbit_fly(&mut self) {
        self.camera = match self.camera {
            Camera::Orbit {
                yaw_deg, pitch_deg, ..
            } => {
                let e = self.camera.eye();
                Camera::free(e.x, e.y, e.z, yaw_deg, pitch_deg)
            }
            Camera::Free { pos, .. } => {
                let eye = Vec3::from(pos);
                let to = self.center() - eye;
                let d = to.length();
                if d < 0.5 {
                    Camera::frame(&self.framing)
                } else {
                    let (yaw, pitch) = angles(to / d);
                    Camera::orbit(self.center().to_array(), d, yaw, pitch.clamp(-89.0, 89.0))
                }
            }
            Camera::Top { .. } => Camera::frame(&self.framing),
        };
        self.keep_above_ground();
    }

    /// `T`: the top view ⇄ orbit.
    pub fn toggle_top(&mut self) {
        if self.mode() == Mode::Top {
            self.camera = Camera::frame(&self.framing);
        } else {
            let c = match self.camera {
                Camera::Orbit { target, .. } => Vec3::from(target),
                _ => self.center(),
            };
            let (lo, hi) = self.framing.bounds();
            let half = ((hi[0] - lo[0]).max(hi[1] - lo[1]) * 0.55).max(5.0);
            self.camera = Camera::top([c.x, c.y], half);
        }
    }

    /// Mouse movement of `dx, dy` pixels with a button held; `view_h` is the window height
    /// (the top view pans by the pixels' size in meters).
    pub fn drag(&mut self, dx: f32, dy: f32, view_h: f32) {
        if !(dx.is_finite() && dy.is_finite()) {
            return;
        }
        let (yaw_d, pitch_d) = (dx * LOOK_DEG_PER_PIXEL, dy * LOOK_DEG_PER_PIXEL);
        match &mut self.camera {
            Camera::Free {
                yaw_deg, pitch_deg, ..
            } => {
                *yaw_deg = wrap_deg(*yaw_deg + yaw_d);
                *pitch_deg = (*pitch_deg + pitch_d).clamp(-89.0, 89.0);
            }
            Camera::Orbit {
                yaw_deg, pitch_deg, ..
            } => {
                *yaw_deg = wrap_deg(*yaw_deg + yaw_d);
                *pitch_deg = (*pitch_deg + pitch_d).clamp(-10.0, 89.0);
            }
            Camera::Top {
                center,
                half_height,
            } => {
                let mpp = 2.0 * *half_height / view_h.max(1.0);
                center[0] -= dx * mpp;
                center[1] += dy * mpp;
            }
        }
    }

    /// Mouse wheel, in lines (positive: away from the user / up).
    pub fn wheel(&mut self, lines: f32) {
        if !lines.is_finite() {
            return;
        }
        let lines = lines.clamp(-10.0, 10.0);
        match &mut self.camera {
            Camera::Free { .. } => {
                self.speed = (self.speed * 1.25f32.powf(lines)).clamp(0.5, 5000.0)
            }
            Camera::Orbit { distance, .. } => {
                *distance = (*distance * 0.85f32.powf(lines)).clamp(1.0, 100_000.0)
            }
            Camera::Top { half_height, .. } => {
                *half_height = (*half_height * 0.85f32.powf(lines)).clamp(1.0, 100_000.0)
            }
        }
    }

    /// Applies the held keys for `dt` seconds; true when the camera moved.
    pub fn update(&mut self, dt: f32) -> bool {
        let h = self.held;
        if !(h.any_motion() && dt.is_finite() && dt > 0.0) {
            return false;
        }
        let dt = dt.min(MAX_STEP_S);
        let axis = |pos: bool, neg: bool| f32::from(u8::from(pos)) - f32::from(u8::from(neg));
        let (fwd, side, vert) = (
            axis(h.forward, h.back),
            axis(h.right, h.left),
            axis(h.up, h.down),
        );
        let boost = if h.fast { FAST } else { 1.0 };
        let step = self.speed * boost * dt;
        match &mut self.camera {
            Camera::Free {
                pos,
                yaw_deg,
                pitch_deg,
            } => {
                let f = look(*yaw_deg, *pitch_deg);
                let right = Vec3::new(yaw_deg.to_radians().cos(), -yaw_deg.to_radians().sin(), 0.0);
                let p = Vec3::from(*pos) + (f * fwd + right * side + Vec3::Z * vert) * step;
                *pos = p.to_array();
            }
            Camera::Orbit {
                distance,
                yaw_deg,
                pitch_deg,
                ..
            } => {
                *distance = (*distance * (-fwd * boost * dt).exp()).clamp(1.0, 100_000.0);
                *yaw_deg = wrap_deg(*yaw_deg - side * 60.0 * boost * dt);
                *pitch_deg = (*pitch_deg + vert * 45.0 * boost * dt).clamp(-10.0, 89.0);
            }
            Camera::Top {
                center,
                half_height,
            } => {
                let pan = *half_height * boost * dt;
                center[0] += side * pan;
                center[1] += fwd * pan;
                *half_height = (*half_height * (-vert * boost * dt).exp()).clamp(1.0, 100_000.0);
            }
        }
        self.keep_above_ground();
        true
    }
}

fn look(yaw_deg: f32, pitch_deg: f32) -> Vec3 {
    let (y, p) = (yaw_deg.to_radians(), pitch_deg.to_radians());
    Vec3::new(y.sin() * p.cos(), y.cos() * p.cos(), -p.sin())
}

/// Yaw (clockwise from north) and pitch (down) of a unit direction, degrees.
fn angles(dir: Vec3) -> (f32, f32) {
    let yaw = dir.x.atan2(dir.y).to_degrees();
    let pitch = (-dir.z).clamp(-1.0, 1.0).asin().to_degrees();
    (wrap_deg(yaw), pitch)
}

fn wrap_deg(d: f32) -> f32 {
    d.rem_euclid(360.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    const B: ([f32; 2], [f32; 2]) = ([0.0, 0.0], [100.0, 80.0]);

    fn close(a: Vec3, b: Vec3) -> bool {
        (a - b).length() < 1e-2
    }

    /// Flying down into hills, the eye stops above the ground; a new, higher terrain lifts
    /// it.
    #[test]
    fn the_fly_camera_never_goes_below_the_ground() {
        let mut scene = crate::scene::Scene::default();
        scene
            .polygon
            .push(vec![[0.0, 0.0], [100.0, 0.0], [100.0, 80.0]]);
        let mut t = crate::terrain::Terrain::flat(400.0);
        t.heights.iter_mut().for_each(|h| *h = 30.0);
        let framing =
            Framing::new(&scene, None, Some(&t)).with_ground(std::sync::Arc::new(t.clone()));
        let mut c = CameraControl::new(Camera::free(50.0, 40.0, 60.0, 0.0, 89.0), framing);
        c.held.forward = true;
        for _ in 0..100 {
            c.update(0.1);
            assert!(
                c.camera.eye().z >= 30.0 + EYE_ABOVE_GROUND - 1e-3,
                "{:?}",
                c.camera
            );
        }
        c.held = Held::default();
        t.heights.iter_mut().for_each(|h| *h = 200.0);
        c.set_framing(Framing::new(&scene, None, Some(&t)).with_ground(std::sync::Arc::new(t)));
        assert!(c.camera.eye().z >= 200.0 + EYE_ABOVE_GROUND - 1e-3);
    }

    #[test]
    fn starts_with_the_given_camera() {
        let cam = Camera::frame_scene(B);
        let c = CameraControl::new(cam, Framing::flat(B));
        assert_eq!(c.camera, cam);
        assert_eq!(c.mode(), Mode::Orbit);
    }

    #[test]
    fn orbit_to_fly_keeps_the_view_and_back_looks_at_the_centre() {
        let mut c = CameraControl::new(Camera::frame_scene(B), Framing::flat(B));
        let (eye, fwd) = (c.camera.eye(), c.camera.forward());
        c.toggle_orbit_fly();
        assert_eq!(c.mode(), Mode::Fly);
        assert!(close(c.camera.eye(), eye) && close(c.camera.forward(), fwd));
        // Fly somewhere, then orbit: the centre is straight ahead.
        c.held.forward = true;
        c.held.left = true;
        assert!(c.update(0.05));
        c.held = Held::default();
        let eye = c.camera.eye();
        c.toggle_orbit_fly();
        assert_eq!(c.mode(), Mode::Orbit);
        assert!(close(c.camera.eye(), eye), "orbit starts where the eye was");
        let to_centre = (c.center() - eye).normalize();
        assert!(close(c.camera.forward(), to_centre));
    }

    #[test]
    fn fly_moves_along_the_view_and_shift_is_faster() {
        let mut c = CameraControl::new(Camera::free(0.0, 0.0, 10.0, 90.0, 0.0), Framing::flat(B));
        c.speed = 10.0;
        c.held.forward = true;
        c.update(0.1);
        assert!(
            close(c.camera.eye(), Vec3::new(1.0, 0.0, 10.0)),
            "{:?}",
            c.camera.eye()
        );
        c.held.fast = true;
        c.update(0.1);
        assert!(close(c.camera.eye(), Vec3::new(5.0, 0.0, 10.0)));
        // A: left of east is north; E: up.
        c.held = Held {
            left: true,
            up: true,
            ..Held::default()
        };
        c.update(0.1);
        assert!(
            close(c.camera.eye(), Vec3::new(5.0, 1.0, 11.0)),
            "{:?}",
            c.camera.eye()
        );
        // A long stall moves at most MAX_STEP_S worth.
        c.held = Held {
            forward: true,
            ..Held::default()
        };
        c.update(10.0);
        assert!(close(c.camera.eye(), Vec3::new(6.0, 1.0, 11.0)));
        assert!(
            !CameraControl::new(Camera::frame_scene(B), Framing::flat(B)).update(0.1),
            "no key, no move"
        );
    }

    #[test]
    fn wheel_changes_fly_speed_and_orbit_distance() {
        let mut c = CameraControl::new(Camera::free(0.0, 0.0, 10.0, 0.0, 0.0), Framing::flat(B));
        let s = c.speed;
        c.wheel(1.0);
        assert!(c.speed > s);
        c.wheel(f32::NAN);
        assert!(c.speed.is_finite());
        let mut o = CameraControl::new(Camera::frame_scene(B), Framing::flat(B));
        let d0 = o.camera.eye().distance(o.center());
        o.wheel(2.0);
        assert!(o.camera.eye().distance(o.center()) < d0);
    }

    #[test]
    fn mouse_look_turns_and_clamps_pitch() {
        let mut c = CameraControl::new(Camera::free(0.0, 0.0, 10.0, 0.0, 0.0), Framing::flat(B));
        c.drag(100.0, 10_000.0, 600.0);
        let Camera::Free {
            yaw_deg, pitch_deg, ..
        } = c.camera
        else {
            panic!()
        };
        assert!((yaw_deg - 20.0).abs() < 1e-3);
        assert_eq!(pitch_deg, 89.0);
        assert!(c.camera.view_proj(1.5).is_finite());
    }

    #[test]
    fn frame_and_top_view() {
        let mut c = CameraControl::new(Camera::free(500.0, 500.0, 3.0, 0.0, 0.0), Framing::flat(B));
        c.frame();
        assert_eq!(c.mode(), Mode::Fly, "framing keeps the mode");
        assert!(close(
            c.camera.eye(),
            Camera::frame(&Framing::flat(B)).eye()
        ));
        c.toggle_top();
        assert_eq!(c.mode(), Mode::Top);
        let Camera::Top { center, .. } = c.camera else {
            panic!()
        };
        assert_eq!(center, [50.0, 40.0]);
        c.drag(10.0, 0.0, 100.0);
        let Camera::Top { center, .. } = c.camera else {
            panic!()
        };
        assert!(
            center[0] < 50.0,
            "dragging right moves the map with the pointer"
        );
        c.toggle_top();
        assert_eq!(c.camera, Camera::frame(&Framing::flat(B)));
    }
}
