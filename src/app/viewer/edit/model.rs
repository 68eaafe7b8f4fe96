//! The edit model: one feature's shape, its operations and their undo history. Pure: no
//! window, no GPU.
//!
//! The shape is kept in degrees (so the vertices no edit touched save exactly as they were
//! read), and every operation takes and gives positions in the local meters of a fixed
//! [`Frame`]: the frame of the scene the session started from, so the scene does not move
//! under the pointer while its first vertex is dragged.

use crate::input::METERS_PER_DEGREE;

/// Snapped positions lie on a grid of this many meters in the frame (`Alt` turns it off).
pub const SNAP_M: f64 = 0.1;
/// Undo keeps at least this many steps.
pub const UNDO_STEPS: usize = 200;

/// A local east/north frame around `origin` (longitude, latitude): the equirectangular
/// projection of [`crate::input::project`], in `f64` both ways.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Frame {
    pub origin: [f64; 2],
}

impl Frame {
    fn k(self) -> f64 {
        self.origin[1].to_radians().cos()
    }

    /// Degrees to meters.
    pub fn to_local(self, lonlat: [f64; 2]) -> [f64; 2] {
        [
            (lonlat[0] - self.origin[0]) * self.k() * METERS_PER_DEGREE,
            (lonlat[1] - self.origin[1]) * METERS_PER_DEGREE,
        ]
    }

    /// Meters to degrees.
    pub fn to_geo(self, p: [f64; 2]) -> [f64; 2] {
        [
            self.origin[0] + p[0] / (self.k().max(1e-9) * METERS_PER_DEGREE),
            self.origin[1] + p[1] / METERS_PER_DEGREE,
        ]
    }
}

/// A feature's geometry, in degrees.
#[derive(Debug, Clone, PartialEq)]
pub enum Geometry {
    /// Rings (outer first, then holes), open; `spawn` (AGS) per ring, per edge.
    Polygon {
        rings: Vec<Vec<[f64; 2]>>,
        spawn: Option<Vec<Vec<bool>>>,
    },
    /// A point and its heading, degrees clockwise from north.
    Point { at: [f64; 2], heading: f64 },
    /// A polygon being drawn point by point (`Enter` closes it).
    Drawing(Vec<[f64; 2]>),
}

/// What one undo step restores.
#[derive(Debug, Clone, PartialEq)]
pub struct State {
    pub geometry: Geometry,
    pub param: Option<u32>,
    pub height: Option<f32>,
}

/// The handle an operation names: a vertex of a ring, the point, or the point's heading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Handle {
    Vertex { ring: usize, index: usize },
    Point,
    Heading,
}

/// One edit.
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    /// Move a vertex or the point to `to` (meters); `snap` to [`SNAP_M`]. `continued`: a
    /// later step of the same drag (one undo step for the whole drag).
    Move {
        handle: Handle,
        to: [f64; 2],
        snap: bool,
        continued: bool,
    },
    /// Insert a vertex at `at` (meters) on the edge from vertex `edge` to the next.
    Insert {
        ring: usize,
        edge: usize,
        at: [f64; 2],
    },
    Delete {
        ring: usize,
        index: usize,
    },
    /// A square hole of `size` meters centred on `at`.
    AddHole {
        at: [f64; 2],
        size: f64,
    },
    RemoveHole {
        ring: usize,
    },
    /// AGS: whether the edge from vertex `edge` to the next spawns tiles.
    ToggleSpawn {
        ring: usize,
        edge: usize,
    },
    /// The point's heading, degrees clockwise from north.
    Heading {
        degrees: f64,
        continued: bool,
    },
    Param(Option<u32>),
    Height(Option<f32>),
    /// Drawing: the next point (meters).
    AddPoint([f64; 2]),
    /// Drawing: close the ring (at least 3 points).
    Close,
    /// Start drawing a new polygon in place of the shape.
    Draw,
}

/// The shape being edited and its history.
#[derive(Debug, Clone)]
pub struct Model {
    pub frame: Frame,
    pub state: State,
    /// An `.ags`: edges carry spawn flags, and the parameter's low byte counts them.
    pub ags: bool,
    undo: Vec<State>,
    redo: Vec<State>,
    /// The state last saved (or read): edits differ from it.
    saved: State,
}

fn snapped(p: [f64; 2], snap: bool) -> [f64; 2] {
    if snap {
        p.map(|v| (v / SNAP_M).round() * SNAP_M)
    } else {
        p
    }
}

/// The spawn flags a polygon without any gets: the first `low byte` rings spawn whole (all
/// of them with no parameter), as the layout reads it.
pub fn default_spawn(rings: &[Vec<[f64; 2]>], param: Option<u32>) -> Vec<Vec<bool>> {
    let n = param.map_or(rings.len(), |p| (p & 0xFF) as usize);
    rings
        .iter()
        .enumerate()
        .map(|(k, r)| vec![k < n; r.len()])
        .collect()
}

/// Twice the signed area of a ring (positive: counter-clockwise).
fn area2(r: &[[f64; 2]]) -> f64 {
    (0..r.len())
        .map(|i| {
            let (a, b) = (r[i], r[(i + 1) % r.len()]);
            a[0] * b[1] - b[0] * a[1]
        })
        .sum()
}

/// The DSF parameter's low byte WED exports for an `.ags` whose rings' edges spawn as
/// `flags` (`DOMAIN.md`, "Export (windings of an .ags)"): the count of spawning windings the
/// save writes, from the one rule that writes them (`edit::wed_ags_windings`).
pub fn contour_count(rings: &[Vec<[f64; 2]>], flags: &[Vec<bool>]) -> u32 {
    let (_, count) = agview_load::edit::wed_ags_windings(rings, flags);
    u32::try_from(count).unwrap_or(u32::MAX)
}

impl Model {
    pub fn new(frame: Frame, state: State, ags: bool) -> Self {
        Model {
            frame,
            saved: state.clone(),
            state,
            ags,
            undo: Vec::new(),
            redo: Vec::new(),
        }
    }

    /// Whether the shape differs from the one last saved or read (undoing back to it is
    /// not an edit).
    pub fn dirty(&self) -> bool {
        self.state != self.saved
    }

    /// The shape is saved as it is now.
    pub fn mark_saved(&mut self) {
        self.saved = self.state.clone();
    }

    /// The rings in meters (empty for a point).
    pub fn rings_local(&self) -> Vec<Vec<[f64; 2]>> {
        match &self.state.geometry {
            Geometry::Polygon { rings, .. } => rings
                .iter()
                .map(|r| r.iter().map(|p| self.frame.to_local(*p)).collect())
                .collect(),
            Geometry::Drawing(pts) => vec![pts.iter().map(|p| self.frame.to_local(*p)).collect()],
            Geometry::Point { .. } => Vec::new(),
        }
    }

    /// The spawn flags in force (explicit, else the default ones) for an `.ags`.
    pub fn spawn(&self) -> Option<Vec<Vec<bool>>> {
        match &self.state.geometry {
            Geometry::Polygon { rings, spawn } if self.ags => Some(
                spawn
                    .clone()
                    .filter(|s| s.len() == rings.len())
                    .unwrap_or_else(|| default_spawn(rings, self.state.param)),
            ),
            _ => None,
        }
    }

    pub fn can_undo(&self) -> bool {
        !self.undo.is_empty()
    }

    pub fn can_redo(&self) -> bool {
        !self.redo.is_empty()
    }

    pub fn undo(&mut self) -> bool {
        match self.undo.pop() {
            Some(s) => {
                self.redo.push(std::mem::replace(&mut self.state, s));
                true
            }
            None => false,
        }
    }

    pub fn redo(&mut self) -> bool {
        match self.redo.pop() {
            Some(s) => {
                self.undo.push(std::mem::replace(&mut self.state, s));
                true
            }
            None => false,
        }
    }

    /// Why the shape cannot be saved, if it cannot.
    pub fn unsavable(&self) -> Option<String> {
        match &self.state.geometry {
            Geometry::Drawing(_) => {
                Some("the polygon is still being drawn: Enter closes it".into())
            }
            Geometry::Polygon { rings, .. } => rings.iter().enumerate().find_map(|(k, r)| {
                (r.len() < 3).then(|| {
                    format!(
                        "ring {k} has {} vertices; a polygon needs at least 3",
                        r.len()
                    )
                })
            }),
            Geometry::Point { .. } => None,
        }
    }

    /// Applies `op`; `Err` says why it was refused (nothing changed then).
    pub fn apply(&mut self, op: Op) -> Result<(), String> {
        let before = self.state.clone();
        let continued = matches!(
            op,
            Op::Move {
                continued: true,
                ..
            } | Op::Heading {
                continued: true,
                ..
            }
        );
        self.change(op)?;
        if self.state == before {
            return Ok(());
        }
        if !continued || self.undo.is_empty() {
            self.undo.push(before);
            if self.undo.len() > UNDO_STEPS {
                self.undo.remove(0);
            }
        }
        self.redo.clear();
        Ok(())
    }

    fn change(&mut self, op: Op) -> Result<(), String> {
        let frame = self.frame;
        let geo = |p: [f64; 2]| frame.to_geo(p);
        let ags = self.ags;
        let param = self.state.param;
        let s = &mut self.state;
        match (op, &mut s.geometry) {
            (
                Op::Move {
                    handle: Handle::Vertex { ring, index },
                    to,
                    snap,
                    ..
                },
                Geometry::Polygon { rings, .. },
            ) => {
                let v = rings
                    .get_mut(ring)
                    .and_then(|r| r.get_mut(index))
                    .ok_or("no such vertex")?;
                *v = geo(snapped(to, snap));
            }
            (
                Op::Move {
                    handle: Handle::Point,
                    to,
                    snap,
                    ..
                },
                Geometry::Point { at, .. },
            ) => *at = geo(snapped(to, snap)),
            (Op::Heading { degrees, .. }, Geometry::Point { heading, .. }) => {
                *heading = degrees.rem_euclid(360.0);
            }
            (Op::Insert { ring, edge, at }, Geometry::Polygon { rings, spawn }) => {
                let r = rings.get_mut(ring).ok_or("no such ring")?;
                if edge >= r.len() {
                    return Err("no such edge".into());
                }
                r.insert(edge + 1, geo(snapped(at, true)));
                if let Some(f) = spawn.as_mut().and_then(|s| s.get_mut(ring)) {
                    let flag = f.get(edge).copied().unwrap_or(true);
                    if edge < f.len() {
                        f.insert(edge + 1, flag);
                    }
                }
            }
            (Op::Delete { ring, index }, Geometry::Polygon { rings, spawn }) => {
                let r = rings.get_mut(ring).ok_or("no such ring")?;
                if index >= r.len() {
                    return Err("no such vertex".into());
                }
                if r.len() <= 3 {
                    return Err(if ring == 0 {
                        "a polygon keeps at least 3 vertices".into()
                    } else {
                        "a hole keeps at least 3 vertices: remove the hole instead".into()
                    });
                }
                r.remove(index);
                if let Some(f) = spawn.as_mut().and_then(|s| s.get_mut(ring)) {
                    // The edge into the vertex now runs on to the next one, keeping its flag.
                    if index < f.len() {
                        f.remove(index);
                    }
                }
            }
            (Op::AddHole { at, size }, Geometry::Polygon { rings, spawn }) => {
                let h = size / 2.0;
                // Clockwise, as holes are written.
                let hole: Vec<[f64; 2]> = [[-h, -h], [-h, h], [h, h], [h, -h]]
                    .iter()
                    .map(|d| geo(snapped([at[0] + d[0], at[1] + d[1]], true)))
                    .collect();
                if let Some(f) = spawn.as_mut() {
                    f.push(vec![false; hole.len()]);
                }
                rings.push(hole);
            }
            (Op::RemoveHole { ring }, Geometry::Polygon { rings, spawn }) => {
                if ring == 0 || ring >= rings.len() {
                    return Err("only a hole can be removed".into());
                }
                rings.remove(ring);
                if let Some(f) = spawn.as_mut() {
                    if ring < f.len() {
                        f.remove(ring);
                    }
                }
            }
            (Op::ToggleSpawn { ring, edge }, Geometry::Polygon { rings, spawn }) => {
                if !ags {
                    return Err("only an .ags's edges spawn tiles".into());
                }
                let flags = spawn
                    .as_mut()
                    .filter(|f| f.len() == rings.len())
                    .map(std::mem::take)
                    .unwrap_or_else(|| default_spawn(rings, param));
                let mut flags = flags;
                let f = flags
                    .get_mut(ring)
                    .and_then(|r| r.get_mut(edge))
                    .ok_or("no such edge")?;
                *f = !*f;
                // The parameter's low byte follows the flags, as WED exports them.
                let count = contour_count(rings, &flags);
                s.param = Some((s.param.unwrap_or(0) & !0xFF) | count.min(0xFF));
                *spawn = Some(flags);
            }
            (Op::Draw, Geometry::Polygon { .. } | Geometry::Drawing(_)) => {
                s.geometry = Geometry::Drawing(Vec::new());
            }
            (Op::Param(p), _) => s.param = p.map(|p| p.min(0xFFFF)),
            (Op::Height(h), _) => s.height = h.filter(|h| h.is_finite() && *h >= 0.0),
            (Op::AddPoint(p), Geometry::Drawing(pts)) => pts.push(geo(snapped(p, true))),
            (Op::Close, Geometry::Drawing(pts)) => {
                if pts.len() < 3 {
                    return Err(format!(
                        "{} point(s): a polygon needs at least 3 (click on the terrain to add)",
                        pts.len()
                    ));
                }
                let mut ring = std::mem::take(pts);
                // Counter-clockwise, as outer rings are written.
                if area2(&ring) < 0.0 {
                    ring.reverse();
                }
                let spawn = ags.then(|| vec![vec![true; ring.len()]]);
                s.geometry = Geometry::Polygon {
                    rings: vec![ring],
                    spawn,
                };
            }
            (op, _) => return Err(format!("{op:?} does not apply to this shape")),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square() -> Model {
        let frame = Frame {
            origin: [8.0, 47.0],
        };
        let rings = vec![[0.0, 0.0], [100.0, 0.0], [100.0, 80.0], [0.0, 80.0]]
            .into_iter()
            .map(|p| frame.to_geo(p))
            .collect();
        Model::new(
            frame,
            State {
                geometry: Geometry::Polygon {
                    rings: vec![rings],
                    spawn: None,
                },
                param: Some(0x0301),
                height: None,
            },
            true,
        )
    }

    fn local(m: &Model, ring: usize, i: usize) -> [f64; 2] {
        m.rings_local()[ring][i]
    }

    fn near(a: [f64; 2], b: [f64; 2]) -> bool {
        (a[0] - b[0]).abs() < 1e-6 && (a[1] - b[1]).abs() < 1e-6
    }

    #[test]
    fn the_frame_goes_both_ways() {
        let f = Frame {
            origin: [-122.4, 37.8],
        };
        let p = [-122.3987654321, 37.8012345678];
        let q = f.to_geo(f.to_local(p));
        assert!((p[0] - q[0]).abs() < 1e-12 && (p[1] - q[1]).abs() < 1e-12);
        let l = f.to_local(p);
        let i = crate::input::project(f.origin, p);
        assert!((l[0] - f64::from(i[0])).abs() < 1e-3 && (l[1] - f64::from(i[1])).abs() < 1e-3);
    }

    #[test]
    fn a_move_snaps_to_a_tenth_of_a_metre_unless_told_not_to() {
        let mut m = square();
        let h = Handle::Vertex { ring: 0, index: 2 };
        m.apply(Op::Move {
            handle: h,
            to: [103.27, 91.04],
            snap: true,
            continued: false,
        })
        .unwrap();
        assert!(
            near(local(&m, 0, 2), [103.3, 91.0]),
            "{:?}",
            local(&m, 0, 2)
        );
        m.apply(Op::Move {
            handle: h,
            to: [103.27, 91.04],
            snap: false,
            continued: true,
        })
        .unwrap();
        assert!(near(local(&m, 0, 2), [103.27, 91.04]));
        // A whole drag is one step.
        assert!(m.undo());
        assert!(near(local(&m, 0, 2), [100.0, 80.0]));
        assert!(!m.can_undo());
        assert!(!m.dirty(), "back to the shape read");
        assert!(m.redo() && m.dirty());
        m.mark_saved();
        assert!(!m.dirty());
    }

    #[test]
    fn insert_and_delete_keep_the_edge_flags() {
        let mut m = square();
        m.apply(Op::ToggleSpawn { ring: 0, edge: 1 }).unwrap();
        m.apply(Op::Insert {
            ring: 0,
            edge: 1,
            at: [100.0, 40.0],
        })
        .unwrap();
        assert_eq!(m.rings_local()[0].len(), 5);
        assert_eq!(m.spawn().unwrap()[0], vec![true, false, false, true, true]);
        m.apply(Op::Delete { ring: 0, index: 2 }).unwrap();
        assert_eq!(m.spawn().unwrap()[0], vec![true, false, true, true]);
        assert!(near(local(&m, 0, 2), [100.0, 80.0]));
        // Not below three.
        m.apply(Op::Delete { ring: 0, index: 0 }).unwrap();
        assert!(m.apply(Op::Delete { ring: 0, index: 0 }).is_err());
        assert_eq!(m.rings_local()[0].len(), 3);
    }

    #[test]
    fn the_contour_count_follows_the_toggles_as_wed_exports_them() {
        let mut m = square();
        assert_eq!(m.state.param, Some(0x0301));
        // One edge off in the middle: WED splits the ring from its first node on, so the
        // spawning edges before and after it are two runs (T T | F | T).
        m.apply(Op::ToggleSpawn { ring: 0, edge: 2 }).unwrap();
        assert_eq!(m.state.param, Some(0x0302));
        // Two edges off apart: two runs.
        m.apply(Op::ToggleSpawn { ring: 0, edge: 0 }).unwrap();
        // flags: F T F T: runs at 1 and 3 = 2, plus one for the first edge not spawning.
        assert_eq!(m.state.param, Some(0x0303));
        m.apply(Op::ToggleSpawn { ring: 0, edge: 0 }).unwrap();
        assert_eq!(m.state.param, Some(0x0302));
        let ring = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]];
        assert_eq!(contour_count(&[ring.to_vec()], &[vec![true; 4]]), 1);
        assert_eq!(
            contour_count(&[ring.to_vec()], &[vec![true, false, true, false]]),
            2
        );
        // Clockwise: the first edge WED writes is the last one here.
        let cw: Vec<_> = ring.iter().rev().copied().collect();
        assert_eq!(
            contour_count(std::slice::from_ref(&cw), &[vec![true, true, true, false]]),
            2
        );
        assert_eq!(
            contour_count(std::slice::from_ref(&cw), &[vec![false, true, true, true]]),
            1
        );
    }

    #[test]
    fn holes_come_and_go_and_never_spawn() {
        let mut m = square();
        m.apply(Op::AddHole {
            at: [50.0, 40.0],
            size: 10.0,
        })
        .unwrap();
        assert_eq!(m.rings_local().len(), 2);
        assert!(area2(&m.rings_local()[1]) < 0.0, "clockwise");
        assert!(near(local(&m, 1, 0), [45.0, 35.0]));
        m.apply(Op::ToggleSpawn { ring: 0, edge: 0 }).unwrap();
        assert_eq!(m.spawn().unwrap()[1], vec![false; 4]);
        assert!(m.apply(Op::RemoveHole { ring: 0 }).is_err());
        m.apply(Op::RemoveHole { ring: 1 }).unwrap();
        assert_eq!(m.rings_local().len(), 1);
        assert_eq!(m.spawn().unwrap().len(), 1);
    }

    #[test]
    fn undo_and_redo_cover_every_kind_of_edit_and_go_back_150_steps() {
        let mut m = square();
        let start = m.state.clone();
        let mut states = vec![start.clone()];
        let ops = [
            Op::Insert {
                ring: 0,
                edge: 0,
                at: [50.0, 0.0],
            },
            Op::Move {
                handle: Handle::Vertex { ring: 0, index: 1 },
                to: [50.0, -5.0],
                snap: true,
                continued: false,
            },
            Op::ToggleSpawn { ring: 0, edge: 3 },
            Op::AddHole {
                at: [50.0, 40.0],
                size: 8.0,
            },
            Op::Delete { ring: 0, index: 1 },
            Op::RemoveHole { ring: 1 },
            Op::Param(Some(0x0502)),
            Op::Height(Some(12.5)),
        ];
        for op in ops {
            m.apply(op).unwrap();
            states.push(m.state.clone());
        }
        for k in 0..150 {
            m.apply(Op::Move {
                handle: Handle::Vertex { ring: 0, index: 0 },
                to: [f64::from(k) * 0.1 + 1.0, 0.0],
                snap: false,
                continued: false,
            })
            .unwrap();
        }
        for _ in 0..150 {
            assert!(m.undo());
        }
        for want in states.iter().rev().skip(1) {
            assert!(m.undo());
            assert_eq!(&m.state, want);
        }
        assert_eq!(m.state, start);
        assert!(m.redo() && m.redo());
        assert_eq!(m.state, states[2]);
        // A new edit drops the redo steps.
        m.apply(Op::Height(Some(3.0))).unwrap();
        assert!(!m.can_redo());
    }

    #[test]
    fn points_move_and_turn_and_a_drawn_polygon_closes_counter_clockwise() {
        let frame = Frame {
            origin: [8.0, 47.0],
        };
        let mut p = Model::new(
            frame,
            State {
                geometry: Geometry::Point {
                    at: [8.0, 47.0],
                    heading: 10.0,
                },
                param: None,
                height: None,
            },
            false,
        );
        p.apply(Op::Move {
            handle: Handle::Point,
            to: [12.34, -5.01],
            snap: true,
            continued: false,
        })
        .unwrap();
        p.apply(Op::Heading {
            degrees: -90.0,
            continued: false,
        })
        .unwrap();
        let Geometry::Point { at, heading } = p.state.geometry else {
            panic!()
        };
        assert!(near(frame.to_local(at), [12.3, -5.0]));
        assert_eq!(heading, 270.0);
        assert!(p.apply(Op::ToggleSpawn { ring: 0, edge: 0 }).is_err());

        let mut d = Model::new(
            frame,
            State {
                geometry: Geometry::Drawing(Vec::new()),
                param: None,
                height: None,
            },
            true,
        );
        for q in [[0.0, 0.0], [0.0, 30.0]] {
            d.apply(Op::AddPoint(q)).unwrap();
        }
        assert!(d.apply(Op::Close).is_err());
        assert!(d.unsavable().is_some());
        d.apply(Op::AddPoint([40.0, 30.0])).unwrap();
        d.apply(Op::Close).unwrap();
        assert!(area2(&d.rings_local()[0]) > 0.0);
        assert_eq!(d.spawn().unwrap(), vec![vec![true; 3]]);
        assert!(d.unsavable().is_none());
        assert!(d.undo());
        assert!(matches!(d.state.geometry, Geometry::Drawing(ref v) if v.len() == 3));
    }
}
