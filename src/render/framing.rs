//! What the default view frames: the scene in three dimensions, the ground under it and
//! what stands on it, so that the first image of a scene shows the scene (not the sky over a
//! height map standing at 80 m, nor a speck in a large empty frame).

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

/// The box a scene occupies, meters, in the scene frame (z up, as drawn: terrain
/// exaggeration included), the ground height under its centre (where the orbit target
/// sits) and the terrain the fly camera keeps above.
#[derive(Debug, Clone)]
pub struct Framing {
    pub lo: [f32; 3],
    pub hi: [f32; 3],
    /// Ground height under the centre of the box.
    pub ground: f32,
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
            terrain: None,
        }
    }

    /// The box of `scene`: its ground rectangle ([`Scene::bounds`]), from the lowest ground
    /// under it to the top of the tallest thing standing on it (objects by their meshes in
    /// `art`, 2 m without); heights on `terrain` as drawn.
    pub fn new(scene: &Scene, art: Option<&ArtSet>, terrain: Option<&Terrain>) -> Framing {
        let (lo2, hi2) = scene.bounds();
        let ground = |x: f32, y: f32| terrain.as_ref().map_or(0.0, |t| t.height_at(x, y));
        let mut lo = [lo2[0], lo2[1], f32::INFINITY];
        let mut hi = [hi2[0], hi2[1], f32::NEG_INFINITY];
        let mut add = |p: [f32; 3]| {
            if p.iter().all(|v| v.is_finite()) {
                for i in 0..3 {
                    lo[i] = lo[i].min(p[i]);
                    hi[i] = hi[i].max(p[i]);
                }
            }
        };
        for i in 0..GROUND_GRID {
            for j in 0..GROUND_GRID {
                let s =
                    |a: f32, b: f32, k: usize| a + (b - a) * k as f32 / (GROUND_GRID - 1) as f32;
                let (x, y) = (s(lo2[0], hi2[0], i), s(lo2[1], hi2[1], j));
                add([x, y, ground(x, y)]);
            }
        }
        let every = |n: usize| (n / MAX_SAMPLES).max(1);
        for o in scene.objects.iter().step_by(every(scene.objects.len())) {
            let z = ground(o.pos[0], o.pos[1]) + o.z_offset;
            let top = art
                .and_then(|a| a.meshes.get(o.index))
                .map_or(2.0, |m| m.bounds_max[1]);
            add([o.pos[0], o.pos[1], z]);
            add([o.pos[0], o.pos[1], z + top]);
        }
        for f in scene.facades.iter().step_by(every(scene.facades.len())) {
            if let Some(p) = f.footprint.first() {
                let z = ground(p[0], p[1]);
                add([p[0], p[1], z + f.height + f.roof_height]);
            }
        }
        for t in scene.trees.iter().step_by(every(scene.trees.len())) {
            let z = ground(t.pos[0], t.pos[1]);
            add([t.pos[0], t.pos[1], z + t.height.max(0.0)]);
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
            terrain: None,
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::Camera;
    use crate::scene::{ObjectInstance, Scene};

    fn in_view(cam: &Camera, p: [f32; 3]) -> bool {
        let c = cam.view_proj(4.0 / 3.0) * glam::Vec4::new(p[0], p[1], p[2], 1.0);
        let n = c / c.w;
        c.w > 0.0 && n.x.abs() <= 1.0 && n.y.abs() <= 1.0
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
}
