//! Objects: every mesh of the art set in one vertex and index buffer, and the scene's
//! object instances grouped by mesh, for `object.wgsl`.
//!
//! One draw per (mesh, LOD): the mesh's LOD index range, all its instances. The vertex
//! shader places each instance and drops the ones outside the LOD's distance range, so
//! the draw list never changes with the camera. Density works the same way: every instance
//! is uploaded with its show levels and thinning number, and the vertex shader drops those
//! not shown at the frame's density level (a uniform), so a new density rebuilds nothing.
//!
//! Placement: each instance carries the unexaggerated terrain height where its placement
//! mode says (under its origin when draped, at its ground point otherwise), evaluated once
//! at upload with [`Terrain::raw_height_at`] — the same bilinear function `height_at` in
//! `common.wgsl` computes. The vertex shader multiplies it by the exaggeration uniform and
//! adds the delta/scraper offset, so changing exaggeration re-uploads nothing. Looking the
//! height field up per vertex instead (four texel loads for every vertex of every
//! instance) cost 60% of the frame on lavapipe with 200,000 instances.

use bytemuck::{Pod, Zeroable};

use crate::art::{ArtSet, DrawState, MeshArt};
use crate::scene::{ObjectInstance, Placement, Scene};
use crate::terrain::Terrain;

/// A mesh vertex as uploaded: OBJ8 position, normal, s t.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct MeshVertexGpu {
    pub pos: [f32; 3],
    pub normal: [f32; 3],
    pub st: [f32; 2],
}

/// One placed object as uploaded (32 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct InstanceGpu {
    /// x, y, heading (radians clockwise from north), z offset (delta / scraper).
    pub pos_heading: [f32; 4],
    /// Unexaggerated ground height (m); placement mode (0 draped, 1 graded, 2 delta, 3
    /// scraper) plus 4 × the show levels' code ([`show_code`]); dither seed; the thinning
    /// number. The density test runs in the vertex shader against the frame's level, so a
    /// new density changes a uniform and rebuilds nothing.
    pub ground_mode: [f32; 4],
}

/// Where a batch's texture comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TexSource {
    /// `ArtSet::images[i]`.
    Image(usize),
    /// An untextured mesh: white.
    White,
    /// The missing-mesh box: orange and black stripes.
    Hazard,
    /// A texture index that points nowhere: the missing-texture checkerboard.
    Checker,
    /// No lit texture: black, nothing glows.
    Black,
    /// No normal map: a flat one (the mesh's own normals).
    FlatNormal,
}

/// The LOD ranges of one mesh, far distance `INFINITE_LOD` when unbounded; a LOD whose
/// material attributes change is several ranges, each one draw.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LodRange {
    pub near: f32,
    pub far: f32,
    pub first_index: u32,
    pub index_count: u32,
    pub material: DrawState,
    /// How the range is shaded (the material rule's result).
    pub shading: crate::art::Material,
}

/// Stands for "no far limit" in the shader.
pub const INFINITE_LOD: f32 = 1e30;

/// How far an object without `ATTR_LOD` is drawn: X-Plane then "calculates an LOD for your
/// entire object based on its overall bounding box size, that starts at 0 meters and goes to
/// some distance we think no one would care if your object disappeared" (X-Plane's LOD
/// guide). Its formula is not published; agview draws such an object until its bounding
/// sphere would cover about two pixels of a 1080-line, 60° view (500 radii), and never less
/// than 250 m. See `docs/spec-decisions.md`.
pub(crate) fn default_far(bounds: ([f32; 3], [f32; 3])) -> f32 {
    let (lo, hi) = bounds;
    let d: f32 = (0..3).map(|k| (hi[k] - lo[k]).powi(2)).sum::<f32>().sqrt();
    let far = (d * 0.5 * DEFAULT_LOD_RADII).max(DEFAULT_LOD_MIN_M);
    if far.is_finite() {
        far
    } else {
        INFINITE_LOD
    }
}

/// The far end of a LOD `near..far` of a mesh with `bounds` (OBJ8 axes): the default range
/// ([`default_far`]) for the implicit LOD of a file without `ATTR_LOD` (the reader's
/// `f32::MAX`), no limit for an empty range. The mesh's own triangles, its light points and
/// its draped part all end there.
pub fn lod_far(near: f32, far: f32, bounds: ([f32; 3], [f32; 3])) -> f32 {
    if far == f32::MAX {
        default_far(bounds)
    } else if far > near.max(0.0) && far.is_finite() {
        far.min(INFINITE_LOD)
    } else {
        INFINITE_LOD
    }
}

/// [`default_far`]: bounding radii, and the least distance (m).
const DEFAULT_LOD_RADII: f32 = 500.0;
const DEFAULT_LOD_MIN_M: f32 = 250.0;

/// One mesh's part of the buffers.
#[derive(Debug, Clone, PartialEq)]
pub struct MeshBatch {
    pub lods: Vec<LodRange>,
    pub texture: TexSource,
    /// `TEXTURE_LIT`: `Image(i)`, or `Black` when the mesh has none.
    pub lit: TexSource,
    /// `TEXTURE_MAP normal` or `TEXTURE_NORMAL`: `Image(i)`, or `FlatNormal` when the mesh
    /// has none.
    pub normal: TexSource,
    /// `TEXTURE_MAP material_gloss` or `gloss`: `Image(i)`, or `Black` when the mesh has
    /// none (the material rule's constants are used).
    pub map: TexSource,
    /// A placeholder box standing for a missing mesh.
    pub placeholder: bool,
    /// The mesh's bounds in OBJ8 axes (min, max), over all its LODs (culling).
    pub bounds: ([f32; 3], [f32; 3]),
}

/// All meshes and instances of a scene, on the CPU.
#[derive(Debug, Default)]
pub struct ObjectSet {
    pub vertices: Vec<MeshVertexGpu>,
    /// Indices already offset to the shared vertex buffer.
    pub indices: Vec<u32>,
    /// Parallel to `ArtSet::meshes`, plus one last placeholder for objects whose mesh
    /// index is out of range.
    pub batches: Vec<MeshBatch>,
    /// Every instance as uploaded, grouped by batch (`ranges`).
    list: Vec<InstanceGpu>,
    ranges: Vec<std::ops::Range<u32>>,
    /// The ground points of the instances that are not draped, in the order of `list`: a
    /// draped one reads its ground height under its origin, which `list` holds. Kept
    /// after the upload (a new terrain moves the instances), so only what `list` lacks.
    ground_points: Vec<[f32; 2]>,
    /// How many instances show at each density level 1..=6 (`ObjectInstance::visible_at`),
    /// counted once: the panel's count, without a copy of every instance's show levels.
    shown: [usize; 6],
    /// How many instances `list` held when it was dropped ([`ObjectSet::release_instances`]);
    /// `None` while it is kept.
    released: Option<usize>,
    pub warnings: Vec<String>,
}

impl ObjectSet {
    pub fn build(scene: &Scene, art: &ArtSet, terrain: &Terrain) -> Self {
        let mut set = ObjectSet::default();
        for (i, mesh) in art.meshes.iter().enumerate() {
            let batch = set.add_mesh(mesh, art.images.len());
            if batch.placeholder && !mesh.missing {
                set.warnings.push(format!(
                    "mesh {}: indices or LODs out of range; drawn as a placeholder box",
                    display_name(mesh, scene, i)
                ));
            }
            set.batches.push(batch);
        }
        let unknown = set.add_box(None);
        set.batches.push(unknown);
        let last = set.batches.len() - 1;
        // Every list made at its size once, each instance written straight to its place:
        // ten million instances are not copied from list to list.
        let batch_of = |o: &ObjectInstance| o.mesh().min(last);
        let mut sizes = vec![0u32; set.batches.len()];
        for o in scene.objects.iter().filter(|o| is_finite(o)) {
            sizes[batch_of(o)] += 1;
        }
        let mut next = Vec::with_capacity(sizes.len());
        let mut start = 0u32;
        for &n in &sizes {
            set.ranges.push(start..start + n);
            next.push(start as usize);
            start += n;
        }
        let total = start as usize;
        set.list = vec![InstanceGpu::zeroed(); total];
        // The ground points in the list's order while it is filled; only the graded ones are
        // kept.
        let mut points = vec![[0.0f32; 2]; total];
        // Per instance, the lowest density level it shows at (7: none): `visible_at` only
        // ever turns on as the level rises.
        let mut first_level = [0usize; 8];
        let out_of_range = scene
            .objects
            .iter()
            .filter(|o| o.mesh() >= art.meshes.len())
            .count();
        for (k, o) in scene.objects.iter().enumerate() {
            if let Some((gpu, at)) = placed(o, k, terrain) {
                let b = batch_of(o);
                let i = next[b];
                next[b] += 1;
                set.list[i] = gpu;
                points[i] = at;
                let first = (1..=6u8).find(|&l| o.visible_at(l)).unwrap_or(7);
                first_level[usize::from(first)] += 1;
            }
        }
        set.ground_points = set
            .list
            .iter()
            .zip(points)
            .filter(|(inst, _)| !is_draped(inst))
            .map(|(_, at)| at)
            .collect();
        let mut shown = 0;
        for (count, first) in set.shown.iter_mut().zip(&first_level[1..=6]) {
            shown += first;
            *count = shown;
        }
        if out_of_range > 0 {
            set.warnings.push(format!(
                "{out_of_range} objects name a mesh the art set does not have; drawn as placeholder boxes"
            ));
        }
        set
    }

    /// Appends a mesh's geometry (or its placeholder box) and returns its batch.
    fn add_mesh(&mut self, mesh: &MeshArt, images: usize) -> MeshBatch {
        let fits = (self.vertices.len() + mesh.vertices.len()) < u32::MAX as usize / 2
            && (self.indices.len() + mesh.indices.len()) < u32::MAX as usize / 2;
        if mesh.missing || !fits || !mesh_is_sound(mesh) {
            let bounds = bounds_ok(mesh).then_some((mesh.bounds_min, mesh.bounds_max));
            return self.add_box(bounds);
        }
        let base = self.vertices.len() as u32;
        let first = self.indices.len() as u32;
        self.vertices
            .extend(mesh.vertices.iter().map(|v| MeshVertexGpu {
                pos: v.pos,
                normal: v.normal,
                st: v.uv,
            }));
        self.indices.extend(mesh.indices.iter().map(|i| i + base));
        let mut bounds = ([f32::MAX; 3], [f32::MIN; 3]);
        for &i in &mesh.indices {
            let p = mesh.vertices[i as usize].pos;
            for (k, v) in p.into_iter().enumerate() {
                bounds.0[k] = bounds.0[k].min(v);
                bounds.1[k] = bounds.1[k].max(v);
            }
        }
        if mesh.indices.is_empty() {
            bounds = ([0.0; 3], [0.0; 3]);
        }
        let len = mesh.indices.len() as u32;
        let lods: Vec<LodRange> = if mesh.lods.is_empty() {
            vec![LodRange {
                near: 0.0,
                far: default_far(bounds),
                first_index: first,
                index_count: len - len % 3,
                material: DrawState::default(),
                shading: Default::default(),
            }]
        } else {
            mesh.lods
                .iter()
                .filter(|l| l.index_count >= 3)
                .map(|l| LodRange {
                    near: l.near.max(0.0),
                    far: lod_far(l.near, l.far, bounds),
                    first_index: first + l.first_index,
                    index_count: l.index_count - l.index_count % 3,
                    material: l.material,
                    shading: l.shading,
                })
                .collect()
        };
        let texture = match mesh.texture {
            None => TexSource::White,
            Some(t) if t < images => TexSource::Image(t),
            Some(_) => TexSource::Checker,
        };
        let lit = match mesh.lit_texture {
            Some(t) if t < images => TexSource::Image(t),
            _ => TexSource::Black,
        };
        let normal = match mesh.normal_texture {
            Some(t) if t < images => TexSource::Image(t),
            _ => TexSource::FlatNormal,
        };
        let map = match mesh.map_texture {
            Some(t) if t < images => TexSource::Image(t),
            _ => TexSource::Black,
        };
        MeshBatch {
            lods,
            texture,
            lit,
            normal,
            map,
            placeholder: false,
            bounds,
        }
    }

    /// A box with the given OBJ8 bounds, or a 4 m cube standing on the ground.
    fn add_box(&mut self, bounds: Option<([f32; 3], [f32; 3])>) -> MeshBatch {
        let (lo, hi) = bounds.unwrap_or(([-2.0, 0.0, -2.0], [2.0, 4.0, 2.0]));
        let base = self.vertices.len() as u32;
        let first = self.indices.len() as u32;
        // Faces: +x, -x, +y, -y, +z, -z, each with 4 corners (u, v over the face).
        let faces: [([f32; 3], [usize; 3]); 6] = [
            ([1.0, 0.0, 0.0], [0, 2, 1]),
            ([-1.0, 0.0, 0.0], [0, 1, 2]),
            ([0.0, 1.0, 0.0], [1, 0, 2]),
            ([0.0, -1.0, 0.0], [1, 2, 0]),
            ([0.0, 0.0, 1.0], [2, 1, 0]),
            ([0.0, 0.0, -1.0], [2, 0, 1]),
        ];
        for (normal, [axis, ua, va]) in faces {
            let side = if normal[axis] > 0.0 {
                hi[axis]
            } else {
                lo[axis]
            };
            let corners = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)];
            let start = self.vertices.len() as u32;
            for (u, v) in corners {
                let mut p = [0.0; 3];
                p[axis] = side;
                p[ua] = lo[ua] + (hi[ua] - lo[ua]) * u;
                p[va] = lo[va] + (hi[va] - lo[va]) * v;
                // Stripes of about a meter whatever the box's size.
                let st = [u * (hi[ua] - lo[ua]) / 4.0, v * (hi[va] - lo[va]) / 4.0];
                self.vertices.push(MeshVertexGpu { pos: p, normal, st });
            }
            self.indices.extend_from_slice(&[
                start,
                start + 1,
                start + 2,
                start,
                start + 2,
                start + 3,
            ]);
        }
        debug_assert_eq!(self.vertices.len() as u32, base + 24);
        MeshBatch {
            lods: vec![LodRange {
                near: 0.0,
                far: INFINITE_LOD,
                first_index: first,
                index_count: 36,
                // Wound clockwise from outside, as OBJ8.
                material: DrawState::default(),
                shading: Default::default(),
            }],
            texture: TexSource::Hazard,
            lit: TexSource::Black,
            normal: TexSource::FlatNormal,
            map: TexSource::Black,
            placeholder: true,
            bounds: (lo, hi),
        }
    }

    /// Every instance, grouped by batch (what is uploaded: the shader applies the density),
    /// and each batch's range.
    pub fn instances(&self) -> (&[InstanceGpu], &[std::ops::Range<u32>]) {
        (&self.list, &self.ranges)
    }

    /// Sets every instance's ground height to `height(point)` at its sample point.
    pub fn reground(&mut self, height: impl Fn([f32; 2]) -> f32) {
        let mut graded = self.ground_points.iter();
        for inst in &mut self.list {
            let at = if is_draped(inst) {
                [inst.pos_heading[0], inst.pos_heading[1]]
            } else {
                graded.next().copied().unwrap_or_default()
            };
            inst.ground_mode[0] = height(at);
        }
    }

    /// Where each instance's ground height is read (under its origin when draped, else at
    /// its ground point), in the order of [`ObjectSet::instances`].
    pub fn ground_points(&self) -> Vec<[f32; 2]> {
        let mut graded = self.ground_points.iter();
        self.list
            .iter()
            .map(|inst| {
                if is_draped(inst) {
                    [inst.pos_heading[0], inst.pos_heading[1]]
                } else {
                    graded.next().copied().unwrap_or_default()
                }
            })
            .collect()
    }

    /// How many objects show at a density level (1..=6; a level out of that range counts
    /// as the nearest one, as the renderer clamps it).
    pub fn shown_at(&self, level: u8) -> usize {
        self.shown[usize::from(level.clamp(1, 6)) - 1]
    }

    /// For each instance (in the order of [`ObjectSet::instances`]), its index in
    /// `scene.objects`: `scene` must be the one the set was built from. Worked out again
    /// on demand (the renderer has no use for it, and ten million instances would carry it).
    pub fn sources(&self, scene: &Scene) -> Vec<u32> {
        let last = self.batches.len().saturating_sub(1);
        let mut next: Vec<usize> = self.ranges.iter().map(|r| r.start as usize).collect();
        let mut out = vec![0u32; self.list.len()];
        for (k, o) in scene.objects.iter().enumerate() {
            if !is_finite(o) {
                continue;
            }
            // The batch `build` files it under (`batch_of`), in scene order within it.
            if let Some(n) = next.get_mut(o.mesh().min(last)) {
                if let Some(slot) = out.get_mut(*n) {
                    *slot = k as u32;
                }
                *n += 1;
            }
        }
        out
    }

    /// All objects of the scene (at any density).
    pub fn total(&self) -> usize {
        self.released.unwrap_or(self.list.len())
    }

    /// Drops the CPU's copy of the instances, once the GPU holds them (the renderer reads
    /// them back, [`ObjectSet::restore_instances`], before anything reads them here again):
    /// 32 bytes an instance, some 40 MB for a tile. The ranges, counts and ground points
    /// stay. [`ObjectSet::instances`] gives an empty list meanwhile.
    pub fn release_instances(&mut self) {
        if self.released.is_none() {
            self.released = Some(self.list.len());
            self.list = Vec::new();
        }
    }

    /// Whether the CPU's copy of the instances is held ([`ObjectSet::release_instances`]).
    pub fn holds_instances(&self) -> bool {
        self.released.is_none()
    }

    /// Takes back the instances [`ObjectSet::release_instances`] dropped, as the GPU holds
    /// them; false (and nothing changes) when `list` is not as long as the one dropped.
    pub fn restore_instances(&mut self, list: Vec<InstanceGpu>) -> bool {
        match self.released {
            Some(n) if n == list.len() => {
                self.list = list;
                self.released = None;
                true
            }
            _ => false,
        }
    }
}

/// Whether an object's numbers can be drawn (the others are dropped).
fn is_finite(o: &ObjectInstance) -> bool {
    o.pos.iter().chain(&o.ground_pt).all(|v| v.is_finite())
        && o.heading.is_finite()
        && o.z_offset.is_finite()
}

/// Whether an instance reads its ground height under its origin (placement mode 0, the
/// low bits of `ground_mode[1]`): its sample point is then its position.
fn is_draped(inst: &InstanceGpu) -> bool {
    (inst.ground_mode[1] as u32) & 3 == 0
}

/// An object as uploaded, and where its ground height is read.
fn placed(o: &ObjectInstance, k: usize, terrain: &Terrain) -> Option<(InstanceGpu, [f32; 2])> {
    if !is_finite(o) {
        return None;
    }
    let (mode, at) = match o.mode {
        Placement::Draped => (0.0, o.pos),
        Placement::Graded => (1.0, o.ground_pt),
        Placement::Delta => (2.0, o.ground_pt),
        Placement::Scraper => (3.0, o.ground_pt),
    };
    let ground = terrain.raw_height_at(at[0], at[1]);
    // A per-object seed so neighbouring objects do not dither in the same pattern.
    let seed = ((k as f64 * 0.618_033_988_749_895).fract()) as f32;
    Some((
        InstanceGpu {
            pos_heading: [o.pos[0], o.pos[1], o.heading.to_radians(), o.z_offset],
            ground_mode: [ground, mode + 4.0 * show_code(o.show) as f32, seed, o.thin],
        },
        at,
    ))
}

/// The show levels `[lo, hi]` (each 0..=7) as one small integer, `lo × 8 + hi`, decoded by
/// `shown_at_density` in `common.wgsl`. `[0, 0]` always shows.
pub(crate) fn show_code(show: [u8; 2]) -> u32 {
    u32::from(show[0].min(7)) * 8 + u32::from(show[1].min(7))
}

fn bounds_ok(mesh: &MeshArt) -> bool {
    (0..3).all(|i| {
        let (a, b) = (mesh.bounds_min[i], mesh.bounds_max[i]);
        a.is_finite() && b.is_finite() && b > a && b - a < 10_000.0
    })
}

/// Whether every index and LOD range points inside the mesh.
fn mesh_is_sound(mesh: &MeshArt) -> bool {
    let nv = mesh.vertices.len() as u64;
    let ni = mesh.indices.len() as u64;
    mesh.indices.iter().all(|&i| u64::from(i) < nv)
        && mesh
            .lods
            .iter()
            .all(|l| u64::from(l.first_index) + u64::from(l.index_count) <= ni)
}

fn display_name(mesh: &MeshArt, scene: &Scene, i: usize) -> String {
    if !mesh.name.is_empty() {
        return mesh.name.clone();
    }
    scene
        .meshes
        .get(i)
        .map(|r| r.name.to_string())
        .unwrap_or_else(|| format!("#{i}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_object_without_lod_is_drawn_to_500_radii() {
        // A 10 × 20 × 10 m box: radius 12.25 m, drawn to about 6.1 km.
        let far = default_far(([-5.0, 0.0, -5.0], [5.0, 20.0, 5.0]));
        assert!((far - 500.0 * 150f32.sqrt()).abs() < 1.0, "{far}");
        // Small things still show across a street and a square.
        assert_eq!(default_far(([0.0; 3], [0.2, 0.5, 0.2])), 250.0);
        assert_eq!(
            default_far(([0.0; 3], [f32::INFINITY, 1.0, 1.0])),
            INFINITE_LOD
        );
    }
    use crate::art::{MeshLod, MeshVertex};

    fn tri_mesh() -> MeshArt {
        let v = |x: f32| MeshVertex {
            pos: [x, 0.0, 0.0],
            normal: [0.0, 1.0, 0.0],
            uv: [0.0, 0.0],
        };
        MeshArt {
            name: "tri.obj".into(),
            vertices: vec![v(0.0), v(1.0), v(2.0)],
            indices: vec![0, 1, 2, 0, 2, 1],
            lods: vec![
                MeshLod {
                    near: 0.0,
                    far: 100.0,
                    first_index: 0,
                    index_count: 3,
                    material: DrawState::default(),
                    shading: Default::default(),
                },
                MeshLod {
                    near: 100.0,
                    far: 1000.0,
                    first_index: 3,
                    index_count: 3,
                    material: DrawState::default(),
                    shading: Default::default(),
                },
            ],
            texture: Some(0),
            ..MeshArt::default()
        }
    }

    fn object(index: u32, show: [u8; 2], thin: f32) -> ObjectInstance {
        ObjectInstance {
            index,
            show,
            thin,
            heading: 90.0,
            ..ObjectInstance::default()
        }
    }

    #[test]
    fn meshes_share_buffers_with_offset_indices() {
        let art = ArtSet {
            meshes: vec![tri_mesh(), tri_mesh()],
            ..ArtSet::default()
        };
        let set = ObjectSet::build(&Scene::default(), &art, &Terrain::flat(100.0));
        assert_eq!(set.batches.len(), 3);
        assert_eq!(set.indices[6], 3);
        assert_eq!(set.batches[1].lods[1].first_index, 9);
        assert_eq!(set.batches[1].lods[1].near, 100.0);
        // The texture index points past the (empty) image list: the checkerboard.
        assert_eq!(set.batches[0].texture, TexSource::Checker);
        assert!(set.batches[2].placeholder);
        assert!(set.warnings.is_empty());
    }

    #[test]
    fn a_lods_far_end_for_meshes_lights_and_draped_parts() {
        let b = ([-5.0, 0.0, -5.0], [5.0, 20.0, 5.0]);
        assert_eq!(lod_far(0.0, f32::MAX, b), default_far(b));
        assert_eq!(lod_far(0.0, 300.0, b), 300.0);
        // An empty range or one not a number: no limit.
        assert_eq!(lod_far(0.0, 0.0, b), INFINITE_LOD);
        assert_eq!(lod_far(500.0, 100.0, b), INFINITE_LOD);
        assert_eq!(lod_far(0.0, f32::NAN, b), INFINITE_LOD);
    }

    #[test]
    fn the_implicit_lod_of_a_file_without_attr_lod_ends_at_the_default_range() {
        // What the OBJ8 reader gives a file without `ATTR_LOD`: one LOD to `f32::MAX`. Drawn
        // to the horizon it made a tile seen from 11 km up submit 33 M triangles of houses.
        let mut mesh = tri_mesh();
        mesh.lods.truncate(1);
        mesh.lods[0].far = f32::MAX;
        let art = ArtSet {
            meshes: vec![mesh],
            ..ArtSet::default()
        };
        let set = ObjectSet::build(&Scene::default(), &art, &Terrain::flat(100.0));
        // A 2 m wide triangle: 500 radii of 1 m.
        assert_eq!(set.batches[0].lods[0].far, 500.0);
        // An explicit range is kept.
        let set = ObjectSet::build(
            &Scene::default(),
            &ArtSet {
                meshes: vec![tri_mesh()],
                ..ArtSet::default()
            },
            &Terrain::flat(100.0),
        );
        assert_eq!(set.batches[0].lods[1].far, 1000.0);
    }

    #[test]
    fn missing_and_broken_meshes_become_boxes() {
        let mut broken = tri_mesh();
        broken.indices[2] = 99;
        let missing = MeshArt {
            missing: true,
            bounds_min: [-5.0, 0.0, -3.0],
            bounds_max: [5.0, 20.0, 3.0],
            ..MeshArt::default()
        };
        let art = ArtSet {
            meshes: vec![broken, missing],
            ..ArtSet::default()
        };
        let set = ObjectSet::build(&Scene::default(), &art, &Terrain::flat(100.0));
        assert!(set.batches[0].placeholder && set.batches[1].placeholder);
        assert_eq!(set.batches[1].texture, TexSource::Hazard);
        assert_eq!(set.warnings.len(), 1);
        // The missing mesh's box has its bounds.
        let lod = set.batches[1].lods[0];
        let ys: Vec<f32> = set.indices[lod.first_index as usize..][..36]
            .iter()
            .map(|&i| set.vertices[i as usize].pos[1])
            .collect();
        assert_eq!(ys.iter().cloned().fold(f32::MIN, f32::max), 20.0);
        assert_eq!(ys.iter().cloned().fold(f32::MAX, f32::min), 0.0);
    }

    #[test]
    fn density_filters_with_visible_at() {
        let art = ArtSet {
            meshes: vec![tri_mesh()],
            ..ArtSet::default()
        };
        let scene = Scene {
            objects: vec![
                object(0, [1, 1], 0.9),
                object(0, [2, 4], 0.1),
                object(0, [2, 4], 0.6),
                object(0, [5, 6], 0.0),
                object(7, [1, 1], 0.0),
            ],
            ..Scene::default()
        };
        let set = ObjectSet::build(&scene, &art, &Terrain::flat(100.0));
        assert_eq!(set.total(), 5);
        // Every instance is uploaded; the shader's test on the packed levels and thinning
        // number (`shown_at_density`, mirrored here) agrees with `visible_at`.
        let (list, ranges) = set.instances();
        assert_eq!(list.len(), 5);
        assert_eq!(ranges.len(), 2);
        assert_eq!(ranges[1].len(), 1, "the out-of-range object");
        let shader_shows = |g: &InstanceGpu, level: u32| {
            let code = (g.ground_mode[1] as u32) >> 2;
            let (lo, hi) = (code >> 3, code & 7);
            if level < lo {
                return false;
            }
            if level >= hi {
                return true;
            }
            g.ground_mode[3] < (1.0 + level as f32 - lo as f32) / (1.0 + hi as f32 - lo as f32)
        };
        let order = [0usize, 1, 2, 3, 4];
        for level in 1..=6u8 {
            let want = scene.objects.iter().filter(|o| o.visible_at(level)).count();
            assert_eq!(set.shown_at(level), want, "level {level}");
            for (g, &k) in list.iter().zip(&order) {
                assert_eq!(
                    shader_shows(g, u32::from(level)),
                    scene.objects[k].visible_at(level),
                    "object {k} at level {level}"
                );
            }
        }
        assert_eq!(
            list[3].ground_mode[1] as u32 & 3,
            0,
            "the mode stays in the low bits"
        );
        assert!((list[0].pos_heading[2] - std::f32::consts::FRAC_PI_2).abs() < 1e-6);
        assert_eq!(std::mem::size_of::<InstanceGpu>(), 32);
    }

    #[test]
    fn instances_carry_the_ground_height_their_mode_names() {
        let terrain = Terrain::hills(400.0, 30.0, 4);
        let mut draped = object(0, [1, 1], 0.0);
        draped.pos = [50.0, -20.0];
        draped.ground_pt = [-100.0, 80.0];
        let mut graded = draped.clone();
        graded.mode = Placement::Graded;
        let mut delta = draped.clone();
        delta.mode = Placement::Delta;
        delta.z_offset = 7.0;
        let scene = Scene {
            objects: vec![draped, graded, delta],
            ..Scene::default()
        };
        let mut set = ObjectSet::build(&scene, &ArtSet::default(), &terrain);
        let (list, _) = set.instances();
        assert_eq!(list[0].ground_mode[0], terrain.height_at(50.0, -20.0));
        assert_eq!(list[1].ground_mode[0], terrain.height_at(-100.0, 80.0));
        assert_ne!(list[0].ground_mode[0], list[1].ground_mode[0]);
        assert_eq!(list[2].ground_mode[0], list[1].ground_mode[0]);
        assert_eq!(list[2].ground_mode[1] as u32 & 3, 2, "delta");
        assert_eq!(list[2].pos_heading[3], 7.0);
        // Only the instances not draped keep their ground point; every instance's is still
        // where its height is read, and a new terrain reads there.
        assert_eq!(set.ground_points.len(), 2);
        assert_eq!(
            set.ground_points(),
            vec![[50.0, -20.0], [-100.0, 80.0], [-100.0, 80.0]]
        );
        set.reground(|at| at[0] + at[1]);
        let ground: Vec<f32> = set.instances().0.iter().map(|i| i.ground_mode[0]).collect();
        assert_eq!(ground, vec![30.0, -20.0, -20.0]);
    }

    /// Each instance knows its object in the scene, in the set's order (by mesh); an object
    /// dropped for its numbers takes no place.
    #[test]
    fn instances_know_their_objects() {
        let art = ArtSet {
            meshes: vec![tri_mesh(), tri_mesh()],
            ..ArtSet::default()
        };
        let mut bad = object(0, [1, 1], 0.0);
        bad.pos = [f32::NAN, 0.0];
        let scene = Scene {
            objects: vec![
                object(1, [1, 1], 0.0),
                bad,
                object(0, [1, 1], 0.0),
                object(9, [1, 1], 0.0),
                object(1, [5, 6], 0.5),
            ],
            ..Scene::default()
        };
        let set = ObjectSet::build(&scene, &art, &Terrain::flat(100.0));
        assert_eq!(set.sources(&scene), vec![2, 0, 4, 3]);
        // The count at each level is the scene's; level 0 counts as 1, and 7 as 6.
        for level in 0..=7u8 {
            let want = scene.objects[..]
                .iter()
                .filter(|o| is_finite(o) && o.visible_at(level.clamp(1, 6)))
                .count();
            assert_eq!(set.shown_at(level), want, "level {level}");
        }
        assert_eq!(set.shown_at(1), 3);
    }

    #[test]
    fn non_finite_objects_are_dropped() {
        let mut o = object(0, [1, 1], 0.0);
        o.pos = [f32::NAN, 0.0];
        let scene = Scene {
            objects: vec![o],
            ..Scene::default()
        };
        let set = ObjectSet::build(&scene, &ArtSet::default(), &Terrain::flat(100.0));
        assert_eq!(set.total(), 0);
    }

    /// The instances dropped once uploaded keep their count, and come back only whole.
    #[test]
    fn released_instances_keep_their_count() {
        let art = ArtSet {
            meshes: vec![tri_mesh()],
            ..ArtSet::default()
        };
        let scene = Scene {
            objects: vec![object(0, [1, 1], 0.0), object(0, [1, 1], 0.0)],
            ..Scene::default()
        };
        let mut set = ObjectSet::build(&scene, &art, &Terrain::flat(100.0));
        let list = set.instances().0.to_vec();
        set.release_instances();
        assert!(!set.holds_instances());
        assert!(set.instances().0.is_empty());
        assert_eq!(set.total(), 2);
        assert!(!set.restore_instances(list[..1].to_vec()));
        assert!(set.restore_instances(list.clone()));
        assert!(set.holds_instances());
        assert_eq!(set.instances().0, &list[..]);
    }
}
