//! Debug overlays: the layout's marks as coloured lines draped on the terrain
//! (`lines.wgsl`). Each kind is built and uploaded the first time it is shown
//! (`SceneGpu::prepare_overlays`); which show is a bit mask in the frame uniforms, so
//! toggling one again re-uploads nothing.

use bytemuck::{Pod, Zeroable};

use crate::scene::Scene;

use super::geom::P;

/// Which overlays to draw.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Overlays {
    /// The polygon the asset was laid out on (yellow).
    pub polygon: bool,
    /// AGB cut lines (red).
    pub cut_lines: bool,
    /// Regions covered by compressed slop tiles (cyan).
    pub slop_regions: bool,
    /// Tiles' ground points (white crosses).
    pub ground_points: bool,
    /// AGS stop points (orange crosses).
    pub stop_points: bool,
    /// AGS corners (magenta diamonds) and the sides between them (lines just inside the
    /// contour, alternating pink and violet from corner to corner).
    pub corners: bool,
    /// AGS caps: side end points (blue squares).
    pub caps: bool,
    /// AGB EDGE_MIN / EDGE_MAX rectangles (light and dark green); AGS tiles that cross the
    /// polygon's boundary or a hole with no stop point to stop them (`crosses`: a warning
    /// red outline with a cross).
    pub edge_rects: bool,
    /// Autogen points `SLOPE_LIMIT` dropped: a red square with a cross, and a line along
    /// the point's heading.
    pub slope_drops: bool,
}

impl Overlays {
    /// Every overlay on.
    pub fn all() -> Self {
        Overlays {
            polygon: true,
            cut_lines: true,
            slop_regions: true,
            ground_points: true,
            stop_points: true,
            corners: true,
            caps: true,
            edge_rects: true,
            slope_drops: true,
        }
    }

    /// The shader's bit mask: bit `k` for [`Kind`] `k`.
    pub fn mask(&self) -> u32 {
        [
            self.polygon,
            self.cut_lines,
            self.slop_regions,
            self.ground_points,
            self.stop_points,
            self.corners,
            self.caps,
            self.edge_rects,
            self.slope_drops,
        ]
        .iter()
        .enumerate()
        .fold(0, |m, (k, on)| if *on { m | (1 << k) } else { m })
    }
}

/// Overlay kinds, the bit numbers of [`Overlays::mask`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
enum Kind {
    Polygon = 0,
    CutLines = 1,
    Slop = 2,
    GroundPoints = 3,
    StopPoints = 4,
    Corners = 5,
    Caps = 6,
    EdgeRects = 7,
    SlopeDrops = 8,
}

/// One line vertex as uploaded (20 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct LineVertex {
    pub xy: [f32; 2],
    pub lift: f32,
    pub kind: u32,
    pub color: [u8; 4],
}

/// AGS sides alternate between these (pink, violet).
const SIDE_COLORS: [[u8; 4]; 2] = [[255, 120, 200, 255], [150, 60, 255, 255]];

/// How high above the drawn ground lines float.
const LIFT: f32 = 0.25;

/// Builds the lines of the overlays in `mask` ([`Overlays::mask`]); segments are split
/// every `step` meters so they follow the ground. `marker` is the half size of point
/// markers in meters. An overlay not asked for costs nothing: a tile's debug marks run to
/// hundreds of megabytes, so they are built when first shown.
pub fn build(scene: &Scene, step: f32, marker: f32, mask: u32) -> Vec<LineVertex> {
    let mut out = Vec::new();
    let on = |kind: Kind| mask & (1 << kind as u32) != 0;
    let step = if step.is_finite() && step > 0.1 {
        step
    } else {
        0.1
    };
    let mut seg = |a: P, b: P, kind: Kind, color: [u8; 4]| {
        if !on(kind) || !(a.iter().chain(&b).all(|v| v.is_finite())) {
            return;
        }
        let len = ((b[0] - a[0]).powi(2) + (b[1] - a[1]).powi(2)).sqrt();
        let n = ((len / step).ceil() as usize).clamp(1, 512);
        for k in 0..n {
            for t in [k as f32 / n as f32, (k + 1) as f32 / n as f32] {
                out.push(LineVertex {
                    xy: [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t],
                    lift: LIFT,
                    kind: kind as u32,
                    color,
                });
            }
        }
    };
    let ring = |pts: &[P], kind: Kind, color: [u8; 4], seg: &mut dyn FnMut(P, P, Kind, [u8; 4])| {
        for i in 0..pts.len() {
            if pts.len() > 1 {
                seg(pts[i], pts[(i + 1) % pts.len()], kind, color);
            }
        }
    };
    const YELLOW: [u8; 4] = [255, 230, 0, 255];
    const RED: [u8; 4] = [255, 40, 40, 255];
    const CYAN: [u8; 4] = [0, 230, 255, 255];
    const WHITE: [u8; 4] = [255, 255, 255, 255];
    const ORANGE: [u8; 4] = [255, 140, 0, 255];
    const MAGENTA: [u8; 4] = [255, 0, 255, 255];
    const BLUE: [u8; 4] = [40, 90, 255, 255];
    const GREEN: [u8; 4] = [120, 255, 120, 255];
    const DARK_GREEN: [u8; 4] = [0, 150, 60, 255];
    const WARNING_RED: [u8; 4] = [255, 30, 60, 255];
    for contour in &scene.polygon {
        ring(contour, Kind::Polygon, YELLOW, &mut seg);
    }
    for [a, b] in &scene.debug.cut_lines {
        seg(*a, *b, Kind::CutLines, RED);
    }
    for r in &scene.debug.slop_regions {
        ring(r, Kind::Slop, CYAN, &mut seg);
    }
    ring(&scene.debug.edge_min, Kind::EdgeRects, GREEN, &mut seg);
    ring(&scene.debug.edge_max, Kind::EdgeRects, DARK_GREEN, &mut seg);
    // AGS tiles placed across the boundary or a hole: outlined and crossed in warning red.
    for t in scene
        .tiles
        .iter()
        .filter(|t| on(Kind::EdgeRects) && t.crosses)
    {
        ring(&t.corners, Kind::EdgeRects, WARNING_RED, &mut seg);
        seg(t.corners[0], t.corners[2], Kind::EdgeRects, WARNING_RED);
        seg(t.corners[1], t.corners[3], Kind::EdgeRects, WARNING_RED);
    }
    let m = marker;
    let plus = |p: P| {
        [
            ([p[0] - m, p[1]], [p[0] + m, p[1]]),
            ([p[0], p[1] - m], [p[0], p[1] + m]),
        ]
    };
    let cross = |p: P| {
        [
            ([p[0] - m, p[1] - m], [p[0] + m, p[1] + m]),
            ([p[0] - m, p[1] + m], [p[0] + m, p[1] - m]),
        ]
    };
    for p in scene
        .debug
        .ground_points
        .iter()
        .filter(|_| on(Kind::GroundPoints))
    {
        for (a, b) in plus(*p) {
            seg(a, b, Kind::GroundPoints, WHITE);
        }
    }
    // Which object uses each ground point: a line from the object to it.
    let objects = if on(Kind::GroundPoints) {
        &scene.objects[..]
    } else {
        &[]
    };
    for o in objects
        .iter()
        .filter(|o| o.mode != crate::scene::Placement::Draped)
    {
        let d = [o.ground_pt[0] - o.pos[0], o.ground_pt[1] - o.pos[1]];
        if d[0].hypot(d[1]) > m * 0.5 {
            seg(o.pos, o.ground_pt, Kind::GroundPoints, WHITE);
        }
    }
    for d in &scene.debug.slope_drops {
        let p = d.pos;
        let (m2, k) = ((m * 2.0).max(2.0), Kind::SlopeDrops);
        let square = [
            [p[0] - m2, p[1] - m2],
            [p[0] + m2, p[1] - m2],
            [p[0] + m2, p[1] + m2],
            [p[0] - m2, p[1] + m2],
        ];
        ring(&square, k, RED, &mut seg);
        for (a, b) in cross(p) {
            seg(a, b, k, RED);
        }
        let (sin, cos) = d.heading.to_radians().sin_cos();
        seg(p, [p[0] + sin * m2 * 2.0, p[1] + cos * m2 * 2.0], k, RED);
    }
    for p in &scene.stop_points {
        for (a, b) in cross(*p) {
            seg(a, b, Kind::StopPoints, ORANGE);
        }
    }
    for c in &scene.corners {
        let p = c.pos;
        let diamond = [
            [p[0] + m, p[1]],
            [p[0], p[1] + m],
            [p[0] - m, p[1]],
            [p[0], p[1] - m],
        ];
        ring(&diamond, Kind::Corners, MAGENTA, &mut seg);
    }
    // Sides: a spawning contour is cut into sides at its corners (the corner marks sit on
    // its vertices). Each side is drawn a little inside the contour (interior on the left of
    // the walking direction), in colours that alternate from side to side.
    let corner_at: std::collections::HashSet<[u32; 2]> = scene
        .corners
        .iter()
        .map(|c| c.pos.map(f32::to_bits))
        .collect();
    for (r, ring) in scene
        .polygon
        .iter()
        .enumerate()
        .filter(|_| on(Kind::Corners))
    {
        let n = ring.len();
        let Some(first) = (0..n).find(|&i| corner_at.contains(&ring[i].map(f32::to_bits))) else {
            continue;
        };
        // Only the edges that spawn tiles are sides (all, when the scene does not say).
        let spawns = |i: usize| {
            scene
                .spawn
                .get(r)
                .filter(|f| f.len() == n)
                .is_none_or(|f| f[i])
        };
        let inset = m * 0.5;
        let mut side = 0usize;
        for k in 0..n {
            let i = (first + k) % n;
            if k > 0 && corner_at.contains(&ring[i].map(f32::to_bits)) {
                side += 1;
            }
            let (a, b) = (ring[i], ring[(i + 1) % n]);
            let d = [b[0] - a[0], b[1] - a[1]];
            let len = (d[0] * d[0] + d[1] * d[1]).sqrt();
            if len.is_nan() || len <= 1e-6 || !spawns(i) {
                continue;
            }
            let off = [-d[1] / len * inset, d[0] / len * inset];
            let color = SIDE_COLORS[side % 2];
            seg(
                [a[0] + off[0], a[1] + off[1]],
                [b[0] + off[0], b[1] + off[1]],
                Kind::Corners,
                color,
            );
        }
    }
    for p in &scene.debug.caps {
        let h = m * 0.7;
        let square = [
            [p[0] - h, p[1] - h],
            [p[0] + h, p[1] - h],
            [p[0] + h, p[1] + h],
            [p[0] - h, p[1] + h],
        ];
        ring(&square, Kind::Caps, BLUE, &mut seg);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{CornerMark, DebugMarks};

    #[test]
    fn mask_bits_follow_the_kinds() {
        assert_eq!(Overlays::default().mask(), 0);
        assert_eq!(Overlays::all().mask(), 0x1ff);
        let o = Overlays {
            cut_lines: true,
            caps: true,
            ..Overlays::default()
        };
        assert_eq!(
            o.mask(),
            (1 << Kind::CutLines as u32) | (1 << Kind::Caps as u32)
        );
    }

    #[test]
    fn slope_drops_are_marked_where_the_point_was() {
        let scene = Scene {
            debug: DebugMarks {
                slope_drops: vec![crate::scene::SlopeDrop {
                    pos: [50.0, 60.0],
                    heading: 90.0,
                    pitch: 12.0,
                    roll: 0.0,
                    feature: 3,
                }],
                ..DebugMarks::default()
            },
            ..Scene::default()
        };
        let v = build(&scene, 100.0, 1.0, Overlays::all().mask());
        let marks: Vec<&LineVertex> = v
            .iter()
            .filter(|x| x.kind == Kind::SlopeDrops as u32)
            .collect();
        // A square (4 sides), a cross (2) and the heading line (1).
        assert_eq!(marks.len(), 2 * 7);
        assert!(marks
            .iter()
            .all(|m| (m.xy[0] - 50.0).abs() <= 4.0 + 1e-3 && (m.xy[1] - 60.0).abs() <= 2.0 + 1e-3));
        // The heading line points east.
        assert!(marks.iter().any(|m| (m.xy[0] - 54.0).abs() < 1e-3));
    }

    #[test]
    fn lines_are_split_and_tagged() {
        let scene = Scene {
            polygon: vec![vec![[0.0, 0.0], [10.0, 0.0], [10.0, 10.0]]],
            corners: vec![CornerMark::default()],
            debug: DebugMarks {
                cut_lines: vec![[[0.0, 0.0], [0.0, 4.0]], [[f32::NAN, 0.0], [1.0, 1.0]]],
                ..DebugMarks::default()
            },
            ..Scene::default()
        };
        let v = build(&scene, 2.0, 1.0, Overlays::all().mask());
        let count = |k: Kind| v.iter().filter(|x| x.kind == k as u32).count();
        // Polygon: 10 + 10 + 14.1 m at 2 m steps = 5 + 5 + 8 segments.
        assert_eq!(count(Kind::Polygon), 2 * 18);
        assert_eq!(count(Kind::CutLines), 2 * 2);
        let diamond = v
            .iter()
            .filter(|x| x.kind == Kind::Corners as u32 && !SIDE_COLORS.contains(&x.color))
            .count();
        assert_eq!(diamond, 2 * 4);
        assert_eq!(v.len() % 2, 0);
    }

    /// Each ground point is a cross, and a line runs to it from each object that uses it
    /// (graded, not draped, and farther than half a marker).
    #[test]
    fn ground_points_say_which_object_uses_them() {
        use crate::scene::{ObjectInstance, Placement};
        let obj = |pos: [f32; 2], mode: Placement| ObjectInstance {
            pos,
            ground_pt: [0.0, 4.0],
            mode,
            ..ObjectInstance::default()
        };
        let scene = Scene {
            objects: vec![
                obj([0.0, 0.0], Placement::Graded),
                obj([3.0, 4.0], Placement::Delta),
                obj([9.0, 9.0], Placement::Draped),
                obj([0.0, 4.2], Placement::Graded),
            ],
            debug: DebugMarks {
                ground_points: vec![[0.0, 4.0]],
                ..DebugMarks::default()
            },
            ..Scene::default()
        };
        let v = build(&scene, 100.0, 1.0, Overlays::all().mask());
        let ground: Vec<[f32; 2]> = v
            .iter()
            .filter(|x| x.kind == Kind::GroundPoints as u32)
            .map(|x| x.xy)
            .collect();
        // The cross (two segments) and two tethers; the draped object and the one on its
        // point get none.
        assert_eq!(ground.len(), 2 * 4, "{ground:?}");
        assert!(ground.contains(&[0.0, 0.0]) && ground.contains(&[3.0, 4.0]));
        assert!(!ground.contains(&[9.0, 9.0]));
    }

    /// A 20 x 10 m rectangle with corners at three of its vertices has three sides: the
    /// side lines follow the contour just inside it and change colour at each corner.
    #[test]
    fn sides_run_inside_the_contour_and_alternate_at_corners() {
        let ring = vec![[0.0, 0.0], [20.0, 0.0], [20.0, 10.0], [0.0, 10.0]];
        let corner = |p: [f32; 2]| CornerMark {
            pos: p,
            ..CornerMark::default()
        };
        let scene = Scene {
            polygon: vec![ring.clone()],
            corners: vec![corner(ring[1]), corner(ring[2]), corner(ring[3])],
            ..Scene::default()
        };
        let v = build(&scene, 2.0, 1.0, Overlays::all().mask());
        let sides: Vec<&LineVertex> = v
            .iter()
            .filter(|x| x.kind == Kind::Corners as u32 && SIDE_COLORS.contains(&x.color))
            .collect();
        // 2 m pieces: 10 + 5 + 10 + 5 segments of two vertices.
        assert_eq!(sides.len(), 2 * 30);
        // Inside the contour (and, below, half a marker in).
        for x in &sides {
            assert!((0.0..=20.0).contains(&x.xy[0]), "{:?}", x.xy);
            assert!((0.0..=10.0).contains(&x.xy[1]), "{:?}", x.xy);
        }
        // Walking from the first corner (20, 0): the right edge is side 0, the top side 1,
        // the left side 2, and the bottom edge (no corner at (0, 0)) continues side 2.
        let colour_of = |a: [f32; 2]| {
            sides
                .iter()
                .find(|x| (x.xy[0] - a[0]).abs() < 1e-3 && (x.xy[1] - a[1]).abs() < 1e-3)
                .map(|x| x.color)
                .unwrap_or_else(|| panic!("no side vertex at {a:?}"))
        };
        let right = colour_of([19.5, 4.0]);
        let top = colour_of([10.0, 9.5]);
        let left = colour_of([0.5, 6.0]);
        let bottom = colour_of([10.0, 0.5]);
        assert_ne!(right, top);
        assert_ne!(top, left);
        assert_eq!(left, bottom, "the last side runs on past the ring's start");
    }
}
