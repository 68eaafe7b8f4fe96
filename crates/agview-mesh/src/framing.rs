//! What the default view frames: the scene in three dimensions, the ground under it and
//! what stands on it, so that the first image of a scene shows the scene (not the sky over a
//! height map standing at 80 m, nor a speck in a large empty frame).
//!
//! A document's default is its main cluster ([`FrameChoice::Main`]): the smallest
//! axis-aligned box holding 90% of its features by count, grown by their extents, found by
//! peeling off, one at a time, the outermost feature whose removal shrinks the box most. It
//! is used only when it is less than half the size of the whole (the few features outside
//! are then far outliers); otherwise everything is framed, so a compact town keeps all of
//! its houses in view. Objects count with their meshes' horizontal extents.

use std::sync::Arc;

use glam::Vec3;

use crate::art::ArtSet;
use crate::scene::Scene;
use crate::terrain::Terrain;

/// Objects, facades and trees the box is measured from, at most (spread evenly over the
/// scene's lists); the ground is sampled on a grid.
const MAX_SAMPLES: usize = 200_000;
/// Ground samples along each side of the scene's rectangle.
const GROUND_GRID: usize = 17;

/// Meters at which the haze reaches about 63% unless the framing asks for more.
pub(crate) const DEFAULT_VISIBILITY_M: f32 = 40_000.0;

/// The share of a document's features the main cluster holds.
const MAIN_SHARE: f64 = 0.9;
/// The main cluster is framed only when its larger side is below this share of the whole
/// scene's: otherwise the features outside it are not outliers.
const MAIN_AT_MOST: f32 = 0.5;

/// What a view frames (`--frame`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum FrameChoice {
    /// Everything the scene places.
    All,
    /// A document's main cluster (see the module documentation); everything for an asset.
    #[default]
    Main,
    /// One feature (an index into `Scene::features`) with its extent.
    Feature(u32),
    /// A circle on the ground, in scene meters.
    Around { center: [f32; 2], radius: f32 },
}

/// The box a scene occupies, meters, in the scene frame (z up, as drawn: terrain
/// exaggeration included), the ground height under its centre (where the orbit target
/// sits) and the terrain the fly camera keeps above.
#[derive(Debug, Clone)]
pub struct Framing {
    pub lo: [f32; 3],
    pub hi: [f32; 3],
    /// Ground height under the centre of the box.
    pub ground: f32,
    /// What was asked for, and what it framed: features inside the box, and outside it.
    pub choice: FrameChoice,
    pub framed: usize,
    pub outside: usize,
    /// The ground rectangle of everything the scene places, whatever was framed.
    pub whole: ([f32; 2], [f32; 2]),
    terrain: Option<Arc<Terrain>>,
}

impl PartialEq for Framing {
    fn eq(&self, o: &Framing) -> bool {
        self.lo == o.lo && self.hi == o.hi && self.ground == o.ground
    }
}

impl Framing {
    /// A flat scene's rectangle `(min, max)` on the ground at height 0.
    pub fn flat(bounds: ([f32; 2], [f32; 2])) -> Framing {
        let (lo, hi) = bounds;
        Framing {
            lo: [lo[0], lo[1], 0.0],
            hi: [hi[0], hi[1], 0.0],
            ground: 0.0,
            choice: FrameChoice::All,
            framed: 0,
            outside: 0,
            whole: (lo, hi),
            terrain: None,
        }
    }

    /// The box of `scene` by default ([`FrameChoice::Main`]): see [`Framing::choose`].
    pub fn new(scene: &Scene, art: Option<&ArtSet>, terrain: Option<&Terrain>) -> Framing {
        Framing::choose(scene, art, terrain, FrameChoice::Main)
    }

    /// The box of what `choice` names in `scene`: its ground rectangle (what stands in it,
    /// objects with their meshes' horizontal extents in `art`), from the lowest ground under
    /// it to the top of the tallest thing standing on it (objects by their meshes in `art`,
    /// 2 m without); heights on `terrain` as drawn. A feature index past the scene's frames
    /// everything.
    pub fn choose(
        scene: &Scene,
        art: Option<&ArtSet>,
        terrain: Option<&Terrain>,
        choice: FrameChoice,
    ) -> Framing {
        Self::choose_in(scene, art, terrain, &FeatureBoxes::of(scene, art), choice)
    }

    /// The framing of each of the first `n` features (`FrameChoice::Feature`), `None` for
    /// one that placed nothing: the features' boxes are measured once for all of them (the
    /// report's close-ups).
    pub fn features(
        scene: &Scene,
        art: Option<&ArtSet>,
        terrain: Option<&Terrain>,
        n: usize,
    ) -> Vec<Option<Framing>> {
        let boxes = FeatureBoxes::of(scene, art);
        (0..n.min(scene.features.len()))
            .map(|i| {
                boxes.features[i].map(|_| {
                    Self::choose_in(scene, art, terrain, &boxes, FrameChoice::Feature(i as u32))
                })
            })
            .collect()
    }

    fn choose_in(
        scene: &Scene,
        art: Option<&ArtSet>,
        terrain: Option<&Terrain>,
        boxes: &FeatureBoxes,
        choice: FrameChoice,
    ) -> Framing {
        let region = match choice {
            FrameChoice::All => None,
            FrameChoice::Main => boxes.main_cluster(),
            FrameChoice::Feature(i) => boxes.features.get(i as usize).copied().flatten(),
            FrameChoice::Around { center, radius } => {
                let r = radius.abs().max(1.0);
                Some((
                    [center[0] - r, center[1] - r],
                    [center[0] + r, center[1] + r],
                ))
            }
        };
        let whole = boxes.all.unwrap_or_else(|| scene.bounds());
        let (lo2, hi2) = region.unwrap_or(whole);
        let inside = |p: [f32; 2]| {
            region.is_none_or(|(lo, hi)| {
                p[0] >= lo[0] && p[0] <= hi[0] && p[1] >= lo[1] && p[1] <= hi[1]
            })
        };
        let (framed, outside) = boxes.count_inside(region);
        let ground = |x: f32, y: f32| terrain.as_ref().map_or(0.0, |t| t.height_at(x, y));
        let mut lo = [lo2[0], lo2[1], f32::INFINITY];
        let mut hi = [hi2[0], hi2[1], f32::NEG_INFINITY];
        let mut add_z = |z: f32| {
            if z.is_finite() {
                lo[2] = lo[2].min(z);
                hi[2] = hi[2].max(z);
            }
        };
        for i in 0..GROUND_GRID {
            for j in 0..GROUND_GRID {
                let s =
                    |a: f32, b: f32, k: usize| a + (b - a) * k as f32 / (GROUND_GRID - 1) as f32;
                let (x, y) = (s(lo2[0], hi2[0], i), s(lo2[1], hi2[1], j));
                add_z(ground(x, y));
            }
        }
        let every = |n: usize| (n / MAX_SAMPLES).max(1);
        let heights = Heights { art, terrain };
        let objects = scene.objects.iter().step_by(every(scene.objects.len()));
        let facades = scene.facades.iter().step_by(every(scene.facades.len()));
        let trees = scene.trees.iter().step_by(every(scene.trees.len()));
        let items = (objects.map(|o| heights.object(o)))
            .chain(facades.filter_map(|f| heights.facade(f)))
            .chain(trees.map(|t| heights.tree(t)));
        for h in items.filter(|h| inside(h.at)) {
            add_z(h.base);
            add_z(h.top);
        }
        let c = [(lo[0] + hi[0]) * 0.5, (lo[1] + hi[1]) * 0.5];
        let g = ground(c[0], c[1]);
        if lo[2] > hi[2] {
            (lo[2], hi[2]) = (g, g);
        }
        Framing {
            lo,
            hi,
            ground: if g.is_finite() { g } else { 0.0 },
            choice: if region.is_some() {
                choice
            } else {
                FrameChoice::All
            },
            framed,
            outside,
            whole,
            terrain: None,
        }
    }

    /// The haze's visibility for an eye at `eye` on this framing: clear (at least
    /// [`DEFAULT_VISIBILITY_M`]) for four times the distance to the farthest framed point, so
    /// a package spread over 20 km shows its features, not fog.
    pub fn haze_visibility(&self, eye: Vec3) -> f32 {
        let reach = (eye - self.center()).length() + self.radius();
        if reach.is_finite() {
            (4.0 * reach).max(DEFAULT_VISIBILITY_M)
        } else {
            DEFAULT_VISIBILITY_M
        }
    }

    /// What was framed, for the command line: `None` when it is everything.
    pub fn describe(&self) -> Option<String> {
        let what = match self.choice {
            FrameChoice::All => return None,
            FrameChoice::Main => "the main cluster".to_string(),
            FrameChoice::Feature(i) => format!("feature {i}"),
            FrameChoice::Around { radius, .. } => format!("a circle of {radius:.0} m"),
        };
        let (w, d) = (self.hi[0] - self.lo[0], self.hi[1] - self.lo[1]);
        Some(format!(
            "framed {what} ({w:.0} m × {d:.0} m): {} feature(s) in it, {} outside (--frame all shows everything)",
            self.framed, self.outside
        ))
    }

    /// This framing, with the terrain [`Framing::ground_at`] reads (the fly camera keeps
    /// above it).
    pub fn with_ground(mut self, terrain: Arc<Terrain>) -> Framing {
        self.terrain = Some(terrain);
        self
    }

    /// The terrain given by [`Framing::with_ground`] (the one the scene was drawn on).
    pub fn terrain(&self) -> Option<&Arc<Terrain>> {
        self.terrain.as_ref()
    }

    /// The ground rectangle `(min, max)`.
    pub fn bounds(&self) -> ([f32; 2], [f32; 2]) {
        ([self.lo[0], self.lo[1]], [self.hi[0], self.hi[1]])
    }

    /// The centre of the rectangle on the ground: what the orbit camera turns around.
    pub fn center(&self) -> Vec3 {
        Vec3::new(
            (self.lo[0] + self.hi[0]) * 0.5,
            (self.lo[1] + self.hi[1]) * 0.5,
            self.ground,
        )
    }

    /// How far from the centre the view must reach: half the rectangle's diagonal, or the
    /// height of what stands above the centre's ground with a margin for the view's tilt,
    /// at least 5 m. (On flat ground with nothing taller than the rectangle is wide, this is
    /// the framing agview always had.)
    pub fn radius(&self) -> f32 {
        let r =
            0.5 * ((self.hi[0] - self.lo[0]).powi(2) + (self.hi[1] - self.lo[1]).powi(2)).sqrt();
        let above = (self.hi[2] - self.ground)
            .max(self.ground - self.lo[2])
            .max(0.0);
        let r = r.max(1.2 * above);
        if r.is_finite() {
            r.max(5.0)
        } else {
            5.0
        }
    }

    /// The ground height at `(x, y)` as drawn (0 off the terrain or without one).
    pub fn ground_at(&self, x: f32, y: f32) -> f32 {
        self.terrain.as_ref().map_or(0.0, |t| t.height_at(x, y))
    }
}

/// How tall a pick box is at least above the highest ground under its feature, meters: what
/// has no height of its own (tiles, draped ground, painted lines) can still be clicked.
pub(crate) const PICK_MIN_HEIGHT: f32 = 3.0;

/// The height of a mesh's top above its origin when nothing better is known (no art), and
/// the most a mesh may count for (a broken one could claim kilometres).
const NO_MESH_TOP: f32 = 2.0;
const MAX_MESH_TOP: f32 = 1000.0;

/// The vertical extent of one thing a scene places, as drawn: where it stands on the ground,
/// its lowest point and its top. Framing and the features' boxes both measure with this.
struct Height {
    at: [f32; 2],
    base: f32,
    top: f32,
}

/// The one measure of how tall what a scene places is: objects by their meshes' tops
/// (from their z offset), facades by their walls and roof, trees by their height, each on
/// the ground under it as drawn.
struct Heights<'a> {
    art: Option<&'a ArtSet>,
    terrain: Option<&'a Terrain>,
}

impl Heights<'_> {
    fn ground(&self, p: [f32; 2]) -> f32 {
        self.terrain.map_or(0.0, |t| t.height_at(p[0], p[1]))
    }

    fn object(&self, o: &crate::scene::ObjectInstance) -> Height {
        let base = self.ground(o.pos) + o.z_offset;
        let top = self
            .art
            .and_then(|a| a.meshes.get(o.mesh()))
            .map_or(NO_MESH_TOP, |m| m.bounds_max[1])
            .clamp(0.0, MAX_MESH_TOP);
        Height {
            at: o.pos,
            base,
            top: base + top,
        }
    }

    /// A facade stands on the ground under its first footprint point.
    fn facade(&self, f: &crate::scene::FacadeInstance) -> Option<Height> {
        let at = *f.footprint.first()?;
        let base = self.ground(at);
        Some(Height {
            at,
            base,
            top: base + (f.height + f.roof_height).clamp(0.0, MAX_MESH_TOP),
        })
    }

    fn tree(&self, t: &crate::scene::TreeInstance) -> Height {
        let base = self.ground(t.pos);
        Height {
            at: t.pos,
            base,
            top: base + t.height.clamp(0.0, MAX_MESH_TOP),
        }
    }
}

/// Each feature's box in the scene frame (z up, as drawn): its ground box as framing uses
/// it, from the lowest ground under it (or the lowest thing it placed) to the top of the
/// tallest thing it placed, by the measure framing uses, and at least [`PICK_MIN_HEIGHT`]
/// above the highest ground under it. `None` for a feature that placed nothing. The viewer
/// highlights and picks with these.
pub fn feature_boxes(
    scene: &Scene,
    art: Option<&ArtSet>,
    terrain: Option<&Terrain>,
) -> Vec<Option<([f32; 3], [f32; 3])>> {
    let boxes = FeatureBoxes::of(scene, art);
    let heights = Heights { art, terrain };
    let mut z = vec![[f32::INFINITY, f32::NEG_INFINITY]; scene.features.len()];
    let mut add = |feature: Option<u32>, h: Height| {
        if let Some(z) = feature.and_then(|f| z.get_mut(f as usize)) {
            *z = [z[0].min(h.base), z[1].max(h.top)];
        }
    };
    for o in &scene.objects {
        add(o.feature, heights.object(o));
    }
    for f in &scene.facades {
        if let Some(h) = heights.facade(f) {
            add(f.feature, h);
        }
    }
    for t in &scene.trees {
        add(t.feature, heights.tree(t));
    }
    boxes
        .features
        .iter()
        .zip(&z)
        .map(|(b, &[base, top])| {
            let (lo, hi) = (*b)?;
            let mut g = [f32::INFINITY, f32::NEG_INFINITY];
            for x in [lo[0], (lo[0] + hi[0]) * 0.5, hi[0]] {
                for y in [lo[1], (lo[1] + hi[1]) * 0.5, hi[1]] {
                    let h = heights.ground([x, y]);
                    g = [g[0].min(h), g[1].max(h)];
                }
            }
            let bottom = g[0].min(base) - 0.5;
            let top = (g[1] + PICK_MIN_HEIGHT).max(top);
            Some(([lo[0], lo[1], bottom], [hi[0], hi[1], top]))
        })
        .collect()
}

/// Each feature's ground box (what its items cover, objects with their meshes' horizontal
/// extents), and the box of everything.
struct FeatureBoxes {
    features: Vec<Option<([f32; 2], [f32; 2])>>,
    all: Option<([f32; 2], [f32; 2])>,
}

fn grow(b: &mut Option<([f32; 2], [f32; 2])>, lo: [f32; 2], hi: [f32; 2]) {
    if !(lo.iter().chain(&hi).all(|v| v.is_finite())) {
        return;
    }
    let (l, h) = b.get_or_insert((lo, hi));
    for k in 0..2 {
        l[k] = l[k].min(lo[k]);
        h[k] = h[k].max(hi[k]);
    }
}

impl FeatureBoxes {
    fn of(scene: &Scene, art: Option<&ArtSet>) -> FeatureBoxes {
        let mut features = vec![None; scene.features.len()];
        let mut all = scene.extent();
        let mut add = |feature: Option<u32>, lo: [f32; 2], hi: [f32; 2]| {
            grow(&mut all, lo, hi);
            if let Some(b) = feature.and_then(|f| features.get_mut(f as usize)) {
                grow(b, lo, hi);
            }
        };
        for o in &scene.objects {
            // The mesh's footprint on the ground: its box's corners (OBJ8 x east, z south)
            // turned by the heading (clockwise from north); a point without art.
            let mesh = art.and_then(|a| a.meshes.get(o.mesh())).filter(|m| {
                m.bounds_min
                    .iter()
                    .chain(&m.bounds_max)
                    .all(|v| v.is_finite())
            });
            let (sin, cos) = o.heading.to_radians().sin_cos();
            let (mut lo, mut hi) = (o.pos, o.pos);
            if let Some(m) = mesh {
                for x in [m.bounds_min[0], m.bounds_max[0]] {
                    for z in [m.bounds_min[2], m.bounds_max[2]] {
                        let (e, n) = (x.clamp(-5000.0, 5000.0), (-z).clamp(-5000.0, 5000.0));
                        let p = [o.pos[0] + e * cos + n * sin, o.pos[1] - e * sin + n * cos];
                        for k in 0..2 {
                            lo[k] = lo[k].min(p[k]);
                            hi[k] = hi[k].max(p[k]);
                        }
                    }
                }
            }
            add(o.feature, lo, hi);
        }
        for f in &scene.facades {
            for p in &f.footprint {
                add(f.feature, *p, *p);
            }
        }
        for t in &scene.trees {
            add(t.feature, t.pos, t.pos);
        }
        for t in &scene.tiles {
            for p in t.corners {
                add(t.feature, p, p);
            }
        }
        for d in &scene.draped {
            for p in d.rings.first().into_iter().flatten() {
                add(d.feature, *p, *p);
            }
        }
        for l in &scene.lines {
            for p in &l.points {
                add(l.feature, *p, *p);
            }
        }
        FeatureBoxes { features, all }
    }

    /// The main cluster's box, when it is much smaller than everything (see the module
    /// documentation); `None` to frame everything.
    fn main_cluster(&self) -> Option<([f32; 2], [f32; 2])> {
        let boxes: Vec<([f32; 2], [f32; 2])> = self.features.iter().flatten().copied().collect();
        let n = boxes.len();
        let keep = (n as f64 * MAIN_SHARE).ceil() as usize;
        if n < 3 || keep >= n {
            return None;
        }
        let centre = |b: &([f32; 2], [f32; 2])| [(b.0[0] + b.1[0]) * 0.5, (b.0[1] + b.1[1]) * 0.5];
        let centres: Vec<[f32; 2]> = boxes.iter().map(centre).collect();
        // Indices sorted by x and by y; the ends of each order are the candidates to peel.
        let mut by: [Vec<usize>; 2] = [(0..n).collect(), (0..n).collect()];
        for (k, order) in by.iter_mut().enumerate() {
            order.sort_by(|&a, &b| centres[a][k].total_cmp(&centres[b][k]));
        }
        let mut gone = vec![false; n];
        let mut ends = [[0usize, n - 1], [0usize, n - 1]];
        for _ in keep..n {
            // Skip peeled ones at each end.
            for k in 0..2 {
                while gone[by[k][ends[k][0]]] {
                    ends[k][0] += 1;
                }
                while gone[by[k][ends[k][1]]] {
                    ends[k][1] -= 1;
                }
            }
            let span = |k: usize, lo: usize, hi: usize| {
                (centres[by[k][hi]][k] - centres[by[k][lo]][k]).max(0.0) + 1.0
            };
            // The next one in from an end (not peeled).
            let next_in = |k: usize, from: usize, step: isize| {
                let mut i = from as isize + step;
                while i >= 0 && (i as usize) < n && gone[by[k][i as usize]] {
                    i += step;
                }
                i.clamp(0, n as isize - 1) as usize
            };
            let mut best: Option<(f32, usize)> = None;
            for k in 0..2 {
                for (side, step) in [(0usize, 1isize), (1, -1)] {
                    let cand = by[k][ends[k][side]];
                    let mut e = ends;
                    e[k][side] = next_in(k, ends[k][side], step);
                    // Peeling it may also move the other axis's end.
                    let o = 1 - k;
                    for s2 in 0..2 {
                        if by[o][e[o][s2]] == cand {
                            e[o][s2] = next_in(o, e[o][s2], if s2 == 0 { 1 } else { -1 });
                        }
                    }
                    let area = span(0, e[0][0], e[0][1]) * span(1, e[1][0], e[1][1]);
                    if best.is_none_or(|(a, _)| area < a) {
                        best = Some((area, cand));
                    }
                }
            }
            let Some((_, out)) = best else { break };
            gone[out] = true;
        }
        let mut kept = None;
        for (b, _) in boxes.iter().zip(&gone).filter(|(_, g)| !**g) {
            grow(&mut kept, b.0, b.1);
        }
        let (klo, khi) = kept?;
        let (alo, ahi) = self.all?;
        let side = |lo: [f32; 2], hi: [f32; 2]| (hi[0] - lo[0]).max(hi[1] - lo[1]);
        (side(klo, khi) < MAIN_AT_MOST * side(alo, ahi)).then_some((klo, khi))
    }

    /// Features whose box's centre lies in `region` and outside it (all inside for none).
    fn count_inside(&self, region: Option<([f32; 2], [f32; 2])>) -> (usize, usize) {
        let placed = self.features.iter().flatten();
        let Some((lo, hi)) = region else {
            return (placed.count(), 0);
        };
        let (mut inside, mut outside) = (0, 0);
        for b in placed {
            let c = [(b.0[0] + b.1[0]) * 0.5, (b.0[1] + b.1[1]) * 0.5];
            if c[0] >= lo[0] && c[0] <= hi[0] && c[1] >= lo[1] && c[1] <= hi[1] {
                inside += 1;
            } else {
                outside += 1;
            }
        }
        (inside, outside)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{ObjectInstance, Scene};
    use crate::Camera;

    fn in_view(cam: &Camera, p: [f32; 3]) -> bool {
        let c = cam.view_proj(4.0 / 3.0) * glam::Vec4::new(p[0], p[1], p[2], 1.0);
        let n = c / c.w;
        c.w > 0.0 && n.x.abs() <= 1.0 && n.y.abs() <= 1.0
    }

    /// The share of the image's width and height that the framed box's projection (its
    /// eight corners) spans, and whether it is all inside.
    fn fill(cam: &Camera, f: &Framing, aspect: f32) -> (f32, f32, bool) {
        let vp = cam.view_proj(aspect);
        let (mut x, mut y) = ([f32::MAX, f32::MIN], [f32::MAX, f32::MIN]);
        let mut inside = true;
        for k in 0..8 {
            let pick = |i: usize| if k >> i & 1 == 0 { f.lo[i] } else { f.hi[i] };
            let c = vp * glam::Vec4::new(pick(0), pick(1), pick(2), 1.0);
            let n = c / c.w;
            inside &= c.w > 0.0 && n.x.abs() <= 1.0 && n.y.abs() <= 1.0;
            x = [x[0].min(n.x), x[1].max(n.x)];
            y = [y[0].min(n.y), y[1].max(n.y)];
        }
        ((x[1] - x[0]) / 2.0, (y[1] - y[0]) / 2.0, inside)
    }

    /// The default view fits the framed box to the image: all of it inside, filling at least
    /// 80% of the width or the height, for flat lots, long strips, towers and hills, in 16:9
    /// and 4:3 images, from every side.
    #[test]
    fn the_default_view_fills_the_image_with_the_framed_box() {
        let boxes = [
            ([-50.0, -50.0, 0.0], [50.0, 50.0, 10.0]),
            ([0.0, 0.0, 0.0], [460.0, 429.0, 20.0]),
            ([-500.0, -10.0, 0.0], [500.0, 10.0, 5.0]),
            ([-5.0, -5.0, 0.0], [5.0, 5.0, 60.0]),
            ([-300.0, -200.0, -40.0], [300.0, 200.0, 120.0]),
        ];
        for (lo, hi) in boxes {
            let mut f = Framing::flat(([lo[0], lo[1]], [hi[0], hi[1]]));
            (f.lo, f.hi) = (lo, hi);
            for aspect in [16.0 / 9.0, 4.0 / 3.0] {
                for from in [225.0, 45.0, 135.0, 315.0] {
                    let cam = Camera::frame_fit(&f, from, aspect);
                    let (w, h, inside) = fill(&cam, &f, aspect);
                    assert!(inside, "{lo:?}..{hi:?} at {aspect} from {from}: {w} {h}");
                    assert!(
                        w >= 0.8 || h >= 0.8,
                        "{lo:?}..{hi:?} at {aspect} from {from}: fills {w:.2} x {h:.2}"
                    );
                }
            }
            // Fitted to 4:3, the box is whole in any wider image too.
            let cam = Camera::frame(&f);
            assert!(fill(&cam, &f, 16.0 / 9.0).2, "{lo:?}..{hi:?}");
        }
    }

    /// The camera printed as `--camera X,Y,Z,YAW,PITCH` places the same eye looking the
    /// same way.
    #[test]
    fn a_camera_argument_places_the_same_camera() {
        let f = Framing::flat(([-50.0, -30.0], [70.0, 90.0]));
        let cam = Camera::frame_fit(&f, 225.0, 16.0 / 9.0);
        let arg = cam.as_argument().unwrap();
        let v: Vec<f32> = arg.split(',').map(|x| x.parse().unwrap()).collect();
        let free = Camera::free(v[0], v[1], v[2], v[3], v[4]);
        assert_eq!(free.eye(), cam.eye());
        assert!((free.forward() - cam.forward()).length() < 1e-6);
        assert_eq!(Camera::frame_top(&f).as_argument(), None);
    }

    fn one_object() -> Scene {
        let mut s = Scene {
            polygon: vec![vec![[-5.0, -5.0], [5.0, -5.0], [5.0, 5.0], [-5.0, 5.0]]],
            ..Scene::default()
        };
        s.objects.push(ObjectInstance {
            pos: [0.0, 0.0],
            ..ObjectInstance::default()
        });
        s
    }

    /// On a height map standing at 80 m the orbit target is on the ground, and the scene
    /// (ground and what stands on it) is in view, not the sky above it.
    #[test]
    fn the_view_sits_on_the_ground_of_a_high_height_map() {
        let mut t = Terrain::flat(200.0);
        t.heights.iter_mut().for_each(|h| *h = 80.0);
        let f = Framing::new(&one_object(), None, Some(&t));
        assert!((f.ground - 80.0).abs() < 1e-3, "{f:?}");
        let cam = Camera::frame(&f);
        let Camera::Orbit { target, .. } = cam else {
            panic!("{cam:?}")
        };
        assert!((target[2] - 80.0).abs() < 1e-3);
        for p in [[-5.0, -5.0, 80.0], [5.0, 5.0, 80.0], [0.0, 0.0, 82.0]] {
            assert!(in_view(&cam, p), "{p:?}");
        }
        assert!(cam.eye().z > 80.0);
    }

    /// What stands on the ground counts: a 60 m tower on a 10 m lot is in view whole.
    #[test]
    fn tall_objects_are_framed_whole() {
        let mut s = one_object();
        s.facades.push(crate::scene::FacadeInstance {
            footprint: vec![[0.0, 0.0], [4.0, 0.0], [4.0, 4.0]],
            height: 60.0,
            ..Default::default()
        });
        let f = Framing::new(&s, None, None);
        assert_eq!(f.hi[2], 60.0);
        let cam = Camera::frame(&f);
        assert!(in_view(&cam, [0.0, 0.0, 60.0]));
        assert!(in_view(&cam, [-5.0, -5.0, 0.0]));
    }

    /// A small scene fills the frame: a 10 m lot is not shown from as far as a 100 m one.
    #[test]
    fn small_scenes_are_seen_from_close() {
        let near = Camera::frame(&Framing::new(&one_object(), None, None))
            .eye()
            .length();
        let wide = Camera::frame(&Framing::flat(([-50.0, -50.0], [50.0, 50.0])))
            .eye()
            .length();
        assert!(near < 25.0 && wide > 5.0 * near, "{near} {wide}");
    }

    /// `n` objects of one feature each on a line `step` m apart, then `far` ones at 10 km.
    fn features(n: usize, step: f32, far: usize) -> Scene {
        let mut s = Scene::default();
        let mut put = |x: f32| {
            let k = s.features.len() as u32;
            s.features.push(crate::scene::FeatureInfo::new(
                String::new(),
                String::new(),
                crate::scene::FeatureKind::Obj,
                0,
            ));
            s.objects.push(ObjectInstance {
                pos: [x, 0.0],
                feature: Some(k),
                ..ObjectInstance::default()
            });
        };
        for k in 0..n {
            put(k as f32 * step);
        }
        for k in 0..far {
            put(10_000.0 + k as f32 * 100.0);
        }
        s
    }

    #[test]
    fn outliers_are_left_out_and_a_compact_scene_is_framed_whole() {
        let f = Framing::new(&features(30, 10.0, 3), None, None);
        assert_eq!(f.choice, FrameChoice::Main);
        assert_eq!((f.framed, f.outside), (30, 3));
        assert!(f.hi[0] < 300.0, "{f:?}");
        // Ten features evenly spread: the few outside a 90% box are no outliers.
        let f = Framing::new(&features(10, 10.0, 0), None, None);
        assert_eq!(f.choice, FrameChoice::All);
        assert_eq!((f.framed, f.outside), (10, 0));
        assert!(f.describe().is_none());
        // One feature, or a circle, on request.
        let s = features(30, 10.0, 3);
        let f = Framing::choose(&s, None, None, FrameChoice::Feature(31));
        assert!(f.lo[0] > 9_000.0 && f.framed == 1, "{f:?}");
        let around = FrameChoice::Around {
            center: [0.0, 0.0],
            radius: 25.0,
        };
        let f = Framing::choose(&s, None, None, around);
        assert_eq!((f.lo[0], f.hi[0], f.framed), (-25.0, 25.0, 3));
    }
}
