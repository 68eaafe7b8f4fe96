//! Handles on screen: the world to window mapping, hit tests in window pixels, where a ray
//! meets the ground, and the drawing over the 3D view (egui's painter, so handles keep
//! their size on screen whatever the distance). Everything is O(vertices) a frame.

use glam::{Vec3, Vec4};

use super::model::Handle;

/// A vertex handle's radius in points, and how far from one a click still takes it.
pub const HANDLE_RADIUS: f32 = 4.5;
pub const GRAB_RADIUS: f32 = 9.0;
/// How far from an edge (points) `Shift`/`Ctrl`+click still names it.
pub const EDGE_RADIUS: f32 = 7.0;
/// The rotation handle of a point: this many points from the point, along its heading.
pub const HEADING_ARM: f32 = 48.0;
/// The longest step a ray marches over heightmapped ground, meters.
pub const MAX_STEP_M: f32 = 20.0;

pub const EDGE: egui::Color32 = egui::Color32::from_rgb(250, 250, 250);
/// An `.ags` edge that spawns tiles.
pub const SPAWNING: egui::Color32 = egui::Color32::from_rgb(255, 140, 30);
pub const HOLE: egui::Color32 = egui::Color32::from_rgb(120, 200, 255);
pub const SELECTED: egui::Color32 = egui::Color32::from_rgb(255, 230, 40);

/// Maps world points to window points for one camera and window.
#[derive(Debug, Clone, Copy)]
pub struct Projector {
    pub view_proj: glam::Mat4,
    /// The window in points (the 3D view fills it; panels lie over it).
    pub screen: egui::Rect,
}

impl Projector {
    pub fn new(camera: &crate::render::Camera, screen: egui::Rect) -> Self {
        Projector {
            view_proj: camera.view_proj(screen.width() / screen.height().max(1.0)),
            screen,
        }
    }

    /// The window point of `p`, `None` behind the eye.
    pub fn to_screen(self, p: Vec3) -> Option<egui::Pos2> {
        let c = self.view_proj * Vec4::new(p.x, p.y, p.z, 1.0);
        if c.w < 1e-4 {
            return None;
        }
        let (x, y) = (c.x / c.w, c.y / c.w);
        (x.is_finite() && y.is_finite()).then(|| {
            egui::pos2(
                self.screen.left() + (x * 0.5 + 0.5) * self.screen.width(),
                self.screen.top() + (0.5 - y * 0.5) * self.screen.height(),
            )
        })
    }
}

/// Where the ray (`origin`, unit `dir`) first meets the ground `z = ground(x, y)`: exactly
/// on flat ground (`ground` is `None`), else marched in steps of half the height above the
/// ground (at most [`MAX_STEP_M`], so a ridge is not stepped over), then halved down to a
/// millimetre.
pub fn ray_ground(
    origin: Vec3,
    dir: Vec3,
    ground: Option<&dyn Fn(f32, f32) -> f32>,
) -> Option<Vec3> {
    let Some(ground) = ground else {
        if dir.z.abs() < 1e-7 {
            return None;
        }
        let t = -origin.z / dir.z;
        return (t >= 0.0).then(|| origin + dir * t);
    };
    let above = |t: f32| {
        let p = origin + dir * t;
        p.z - ground(p.x, p.y)
    };
    let (mut t0, mut h0) = (0.0f32, above(0.0));
    if h0 <= 0.0 {
        return None;
    }
    for _ in 0..50_000 {
        let step = (h0 * 0.5).clamp(0.05, MAX_STEP_M);
        let t1 = t0 + step;
        let h1 = above(t1);
        if h1 <= 0.0 {
            let (mut a, mut b) = (t0, t1);
            for _ in 0..40 {
                let m = (a + b) * 0.5;
                if above(m) > 0.0 {
                    a = m;
                } else {
                    b = m;
                }
                if b - a < 1e-3 {
                    break;
                }
            }
            return Some(origin + dir * b);
        }
        if t1 > 1e6 {
            return None;
        }
        (t0, h0) = (t1, h1);
    }
    None
}

/// The handle nearest `at` within [`GRAB_RADIUS`], of those given with their window points.
pub fn nearest_handle(
    handles: impl IntoIterator<Item = (Handle, egui::Pos2)>,
    at: egui::Pos2,
) -> Option<Handle> {
    handles
        .into_iter()
        .map(|(h, p)| (h, p.distance(at)))
        .filter(|(_, d)| *d <= GRAB_RADIUS)
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(h, _)| h)
}

/// The edge nearest `at` within [`EDGE_RADIUS`]: (ring, edge from vertex `edge` to the next,
/// how far along it the nearest point lies, 0..1).
pub fn nearest_edge(
    rings: &[Vec<Option<egui::Pos2>>],
    at: egui::Pos2,
) -> Option<(usize, usize, f32)> {
    let mut best: Option<(usize, usize, f32, f32)> = None;
    for (k, r) in rings.iter().enumerate() {
        let n = r.len();
        for i in 0..n {
            let (Some(a), Some(b)) = (r[i], r[(i + 1) % n]) else {
                continue;
            };
            let ab = b - a;
            let len2 = ab.length_sq();
            let t = if len2 > 0.0 {
                ((at - a).dot(ab) / len2).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let d = (a + ab * t).distance(at);
            if d <= EDGE_RADIUS && best.is_none_or(|b| d < b.3) {
                best = Some((k, i, t, d));
            }
        }
    }
    best.map(|(k, i, t, _)| (k, i, t))
}

/// What the overlay draws: each ring's window points (`None` behind the eye), the spawn
/// flags, the point and its heading handle, and the selected handle.
pub struct Overlay<'a> {
    pub rings: &'a [Vec<Option<egui::Pos2>>],
    pub spawn: Option<&'a [Vec<bool>]>,
    /// A ring still being drawn: not closed.
    pub open: bool,
    pub point: Option<(egui::Pos2, egui::Pos2)>,
    pub selected: Option<Handle>,
}

/// Draws the handles and edges over the 3D view.
pub fn draw(painter: &egui::Painter, o: &Overlay) {
    for (k, r) in o.rings.iter().enumerate() {
        let n = r.len();
        let edges = if o.open { n.saturating_sub(1) } else { n };
        for i in 0..edges {
            let (Some(a), Some(b)) = (r[i], r[(i + 1) % n]) else {
                continue;
            };
            let spawns = o
                .spawn
                .and_then(|s| s.get(k))
                .and_then(|f| f.get(i))
                .copied()
                .unwrap_or(false);
            let (w, c) = match (spawns, k) {
                (true, _) => (3.0, SPAWNING),
                (false, 0) => (1.5, EDGE),
                (false, _) => (1.5, HOLE),
            };
            painter.line_segment([a, b], egui::Stroke::new(w, c));
        }
        for (i, p) in r.iter().enumerate() {
            let Some(p) = *p else { continue };
            let sel = o.selected == Some(Handle::Vertex { ring: k, index: i });
            let fill = if sel {
                SELECTED
            } else if k == 0 {
                EDGE
            } else {
                HOLE
            };
            painter.circle(
                p,
                if sel {
                    HANDLE_RADIUS + 1.5
                } else {
                    HANDLE_RADIUS
                },
                fill,
                egui::Stroke::new(1.0, egui::Color32::BLACK),
            );
        }
    }
    if let Some((p, h)) = o.point {
        painter.line_segment([p, h], egui::Stroke::new(2.0, EDGE));
        for (at, handle) in [(p, Handle::Point), (h, Handle::Heading)] {
            let fill = if o.selected == Some(handle) {
                SELECTED
            } else {
                EDGE
            };
            painter.circle(
                at,
                HANDLE_RADIUS + 1.0,
                fill,
                egui::Stroke::new(1.0, egui::Color32::BLACK),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ray_meets_flat_and_hilly_ground_where_it_should() {
        let o = Vec3::new(0.0, 0.0, 100.0);
        let d = Vec3::new(1.0, 0.0, -1.0).normalize();
        let p = ray_ground(o, d, None).unwrap();
        assert!((p - Vec3::new(100.0, 0.0, 0.0)).length() < 1e-2, "{p}");
        assert!(ray_ground(o, Vec3::Z, None).is_none(), "looking up");
        // A slope rising east: z = x / 2. The ray meets it at x = 200/3.
        let slope = |x: f32, _y: f32| x * 0.5;
        let g: &dyn Fn(f32, f32) -> f32 = &slope;
        let p = ray_ground(o, d, Some(g)).unwrap();
        assert!((p.x - 200.0 / 3.0).abs() < 0.01, "{p}");
        // A wall of hills: the first crossing, not a later one.
        let bump = |x: f32, _y: f32| if (30.0..60.0).contains(&x) { 90.0 } else { 0.0 };
        let g: &dyn Fn(f32, f32) -> f32 = &bump;
        let p = ray_ground(o, d, Some(g)).unwrap();
        assert!((p.x - 30.0).abs() < 0.5, "{p}");
    }

    #[test]
    fn the_projector_and_a_pick_ray_agree_for_every_camera() {
        let screen = egui::Rect::from_min_size(egui::pos2(0.0, 0.0), egui::vec2(1280.0, 720.0));
        for camera in [
            crate::render::Camera::orbit([50.0, 40.0, 0.0], 200.0, 30.0, 40.0),
            crate::render::Camera::free(-20.0, -30.0, 50.0, 40.0, 30.0),
            crate::render::Camera::top([50.0, 40.0], 80.0),
        ] {
            let pr = Projector::new(&camera, screen);
            let world = Vec3::new(60.0, 45.0, 0.0);
            let s = pr.to_screen(world).unwrap();
            let (o, d) = crate::app::viewer::picking::pick_ray(
                &camera,
                s.x / 1280.0,
                s.y / 720.0,
                1280.0 / 720.0,
            )
            .unwrap();
            let back = ray_ground(o, d, None).unwrap();
            assert!((back - world).length() < 0.05, "{camera:?}: {back}");
        }
    }

    #[test]
    fn hit_tests_take_the_nearest_within_reach() {
        let p = |x, y| egui::pos2(x, y);
        let hs = [
            (Handle::Vertex { ring: 0, index: 0 }, p(10.0, 10.0)),
            (Handle::Vertex { ring: 0, index: 1 }, p(14.0, 10.0)),
        ];
        assert_eq!(
            nearest_handle(hs, p(13.0, 10.0)),
            Some(Handle::Vertex { ring: 0, index: 1 })
        );
        assert_eq!(nearest_handle(hs, p(40.0, 10.0)), None);
        let rings = vec![vec![
            Some(p(0.0, 0.0)),
            Some(p(100.0, 0.0)),
            Some(p(100.0, 100.0)),
        ]];
        let (k, e, t) = nearest_edge(&rings, p(100.0 + 3.0, 50.0)).unwrap();
        assert_eq!((k, e), (0, 1));
        assert!((t - 0.5).abs() < 1e-4);
        // The closing edge counts.
        assert_eq!(nearest_edge(&rings, p(50.0, 52.0)).map(|h| h.1), Some(2));
        assert!(nearest_edge(&rings, p(60.0, 20.0)).is_none());
    }
}
