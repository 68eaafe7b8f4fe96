//! What lies on the ground: autogen tiles, draped polygons and orthophotos, painted lines,
//! pavement and markings, roads, objects' draped parts, and the terrain itself.
//!
//! The pieces are the renderer's (`tiles::build`, `DrapedSet::build`): already cut along
//! the terrain's triangles, so lifting each corner onto the drawn surface
//! (`Terrain::surface_at`, as `tile.wgsl` does) lays them on the ground exactly. agview
//! draws them in order with depth tests that let later layers cover earlier ones; a glTF
//! viewer has no such order, so each layer is lifted above the terrain instead: the first
//! by [`GROUND_LIFT_M`], each later one ([`ground_order`]: by layer group, tiles first) by
//! [`LAYER_STEP_M`] more. Roads keep their own height above the ground on top.
//! Ground pieces carry no normals: glTF viewers give them their triangles' (flat)
//! normals, which are the drawn terrain's.

use std::collections::HashMap;

use agview_core::scene::ObjectInstance;
use agview_load::art::Material;
use agview_mesh::draped::{ground_order, DrapedKind, DrapedSet, GroundDraw};
use agview_mesh::objects::TexSource;
use agview_mesh::tiles::{self, Grid, PieceVertex};

use crate::document::{AlphaMode, Image, Node, PbrMaterial, Primitive, TextureUse};
use crate::textures::Look;

use super::{file_name, st_to_uv, terrain_texture, Builder};

/// How far the lowest ground layer lies above the terrain (m): enough for a viewer's
/// depth buffer to keep it in front of the terrain mesh within a few kilometres.
pub const GROUND_LIFT_M: f32 = 0.05;
/// How much higher each later ground layer lies than the one before it (m).
pub const LAYER_STEP_M: f32 = 0.01;

/// The lift of the `rank`-th ground layer in drawing order.
pub fn lift(rank: usize) -> f32 {
    GROUND_LIFT_M + LAYER_STEP_M * rank as f32
}

/// The ground's nodes by layer.
#[derive(Debug, Default)]
pub(crate) struct GroundNodes {
    pub tiles: Vec<usize>,
    /// Draped polygons, lines, pavement and markings.
    pub ground: Vec<usize>,
    pub roads: Vec<usize>,
    /// Objects' draped parts (`extras: {"draped": true}`).
    pub parts: Vec<usize>,
}

/// The tiles and the draped groups, each layer lifted by its place in the drawing order.
pub(crate) fn ground(b: &mut Builder) -> GroundNodes {
    let grid = Grid::of(&b.terrain);
    let tiles = if b.scene.hide_tiles || b.scene.tile_texture.is_none() {
        tiles::TileMesh::default()
    } else {
        tiles::build(b.scene, &grid)
    };
    b.warn_all(&tiles.warnings);
    let draped = DrapedSet::build(b.scene, b.art, &grid);
    b.warn_all(&draped.warnings);
    let tile_keys: Vec<(u32, i32)> = tiles.segments.iter().map(|(k, _)| *k).collect();
    let draped_keys: Vec<(u32, i32)> = draped.groups.iter().map(|g| g.key).collect();
    let mut tile_rank = vec![0; tile_keys.len()];
    let mut draped_rank = vec![0; draped_keys.len()];
    for (rank, d) in ground_order(&tile_keys, &draped_keys)
        .into_iter()
        .enumerate()
    {
        match d {
            GroundDraw::Tiles(i) => tile_rank[i] = rank,
            GroundDraw::Draped(i) => draped_rank[i] = rank,
        }
    }
    let mut out = GroundNodes::default();
    if let Some(n) = tile_node(b, &tiles, &tile_rank) {
        out.tiles.push(n);
    }
    let level = b.opts.density_level.clamp(1, 6);
    for (gi, g) in draped.groups.iter().enumerate() {
        // An object's draped part shows with its object, at the density's level.
        let mut indices = Vec::new();
        for (show, thin, r) in g.instances() {
            let o = ObjectInstance {
                show: *show,
                thin: *thin,
                ..ObjectInstance::default()
            };
            if o.visible_at(level) {
                indices.extend_from_slice(&g.indices()[r.start as usize..r.end as usize]);
            }
        }
        if indices.is_empty() {
            continue;
        }
        let (albedo, missing) = b.image(g.texture);
        let tex_name = b.image_name(g.texture, "untextured");
        let look = Look {
            name: tex_name.clone(),
            albedo,
            lit: b.extra_image(g.lit),
            normal: b.extra_image(g.normal),
            map: None,
            shading: g.shading,
            // `tile.wgsl` blends, or draws opaque under `NO_ALPHA`.
            alpha: if g.opaque {
                AlphaMode::Opaque
            } else {
                AlphaMode::Blend
            },
            // The tiles' pipeline culls nothing.
            double_sided: true,
            missing,
            tint: [1.0; 3],
        };
        let material = b.material(&look);
        let prim = pieces(
            b,
            &draped.vertices,
            &indices,
            lift(draped_rank[gi]),
            material,
        );
        let what = match g.kind {
            DrapedKind::Part => "draped part",
            DrapedKind::Polygon => "polygon",
            DrapedKind::Line => "line",
            DrapedKind::Pavement => "pavement",
            DrapedKind::Marking => "marking",
            DrapedKind::Road => "road",
        };
        let name = format!("{what} {tex_name}");
        let Some(mesh) = b.mesh(name.clone(), vec![prim]) else {
            continue;
        };
        let part = g.kind == DrapedKind::Part;
        let n = b.node(Node {
            name,
            mesh: Some(mesh),
            extras: part.then(|| serde_json::json!({ "draped": true })),
            ..Node::default()
        });
        match g.kind {
            DrapedKind::Part => out.parts.push(n),
            DrapedKind::Road => out.roads.push(n),
            _ => out.ground.push(n),
        }
    }
    out
}

/// The autogen tiles: one mesh, a primitive per layer group (each at its own lift).
fn tile_node(b: &mut Builder, tiles: &tiles::TileMesh, ranks: &[usize]) -> Option<usize> {
    if tiles.indices.is_empty() {
        return None;
    }
    let src = match b.art.tile_texture {
        Some(i) => TexSource::Image(i),
        // The scene names a tile texture the art set did not load.
        None => TexSource::Checker,
    };
    let (albedo, missing) = b.image(src);
    let lit = b
        .art
        .tile_lit
        .map(TexSource::Image)
        .and_then(|s| b.extra_image(s));
    let look = Look {
        name: b.image_name(src, "tiles"),
        albedo,
        lit,
        normal: None,
        map: None,
        // Autogen tiles keep `shade`'s look: the material rule's default.
        shading: Material::default(),
        alpha: AlphaMode::Blend,
        double_sided: true,
        missing,
        tint: [1.0; 3],
    };
    let material = b.material(&look);
    let prims = tiles
        .segments
        .iter()
        .zip(ranks)
        .map(|((_, r), rank)| {
            let idx = &tiles.indices[r.start as usize..r.end as usize];
            pieces(b, &tiles.vertices, idx, lift(*rank), material)
        })
        .collect();
    let name = format!("tiles {}", file_name(&b.scene.asset));
    let mesh = b.mesh(name.clone(), prims)?;
    Some(b.node(Node {
        name,
        mesh: Some(mesh),
        ..Node::default()
    }))
}

/// Pieces `indices` of `vertices` on the drawn ground, `lift` above it (and a road piece's
/// own height on top, `PieceVertex::road_lift`), with their own vertices.
fn pieces<V: PieceVertex>(
    b: &Builder,
    vertices: &[V],
    indices: &[u32],
    lift: f32,
    material: usize,
) -> Primitive {
    let mut local: HashMap<u32, u32> = HashMap::new();
    let mut p = Primitive {
        material: Some(material),
        ..Primitive::default()
    };
    for tri in indices.chunks_exact(3) {
        if tri.iter().any(|&i| i as usize >= vertices.len()) {
            continue;
        }
        for &i in tri {
            let k = *local.entry(i).or_insert_with(|| {
                let v = &vertices[i as usize];
                let xy = v.xy();
                let up = b.terrain.surface_at(xy[0], xy[1]) + lift + v.road_lift();
                p.positions.push(b.axes.point(xy[0], xy[1], up));
                p.uvs.push(st_to_uv(v.st()));
                (p.positions.len() - 1) as u32
            });
            p.indices.push(k);
        }
    }
    p
}

/// The most terrain cells exported along a side; a finer grid is sampled every few
/// samples (and the tiles may then float or sink a little over it).
pub const TERRAIN_MAX_CELLS: usize = 1024;

/// The terrain under the framed rectangle `(lo, hi)` (scene metres): the grid's samples
/// over it, each cell split along its south-west → north-east diagonal as drawn.
pub(crate) fn terrain(b: &mut Builder, (lo, hi): ([f32; 2], [f32; 2])) -> Vec<usize> {
    let t = &*b.terrain;
    if !t.is_valid() || ![lo, hi].iter().flatten().all(|v| v.is_finite()) {
        return Vec::new();
    }
    let n = t.resolution as i64;
    let (o, cell) = (t.origin(), t.cell_size());
    let index = |v: f32, o: f32, up: bool| -> i64 {
        let g = (v - o) / cell;
        let g = if up { g.ceil() } else { g.floor() };
        (g as i64).clamp(0, n - 1)
    };
    let (i0, i1) = (index(lo[0], o[0], false), index(hi[0], o[0], true));
    let (j0, j1) = (index(lo[1], o[1], false), index(hi[1], o[1], true));
    let cells = ((i1 - i0).max(j1 - j0)).max(1) as usize;
    let step = cells.div_ceil(TERRAIN_MAX_CELLS).max(1) as i64;
    let note = (step > 1).then(|| {
        format!(
            "the terrain under the framed content has {cells} cells a side: exported every {step} samples"
        )
    });
    let along = |a: i64, z: i64| -> Vec<i64> {
        let mut v: Vec<i64> = (a..=z).step_by(step as usize).collect();
        if v.last() != Some(&z) {
            v.push(z);
        }
        v
    };
    let (is, js) = (along(i0, i1), along(j0, j1));
    if is.len() < 2 || js.len() < 2 {
        return Vec::new();
    }
    let mut p = Primitive::default();
    // The ground texture's rectangle: the grid's, u east and v south from its north-west.
    let at = |i: i64, j: i64| [o[0] + i as f32 * cell, o[1] + j as f32 * cell];
    let (sw, ne) = (at(is[0], js[0]), at(is[is.len() - 1], js[js.len() - 1]));
    let span = [(ne[0] - sw[0]).max(1e-3), (ne[1] - sw[1]).max(1e-3)];
    for &j in &js {
        for &i in &is {
            let h = t.heights[(j * n + i) as usize] * t.exaggeration;
            let [x, y] = at(i, j);
            p.positions.push(b.axes.point(x, y, h));
            p.uvs.push([(x - sw[0]) / span[0], (ne[1] - y) / span[1]]);
        }
    }
    let w = is.len() as u32;
    for j in 0..js.len() as u32 - 1 {
        for i in 0..w - 1 {
            let (a, bb) = (j * w + i, j * w + i + 1);
            let (c, d) = ((j + 1) * w + i + 1, (j + 1) * w + i);
            // Counter-clockwise seen from above, split along a → c (south-west → north-east).
            p.indices.extend_from_slice(&[a, bb, c, a, c, d]);
        }
    }
    if let Some(w) = note {
        b.warn(w);
    }
    p.material = Some(match terrain_material(b, sw, ne) {
        Some(m) => m,
        None => {
            p.uvs.clear();
            plain_terrain_material(b)
        }
    });
    let Some(mesh) = b.mesh("terrain".into(), vec![p]) else {
        return Vec::new();
    };
    vec![b.node(Node {
        name: "terrain".into(),
        mesh: Some(mesh),
        ..Node::default()
    })]
}

/// The terrain's material with its ground texture ([`terrain_texture`]) baked over the
/// rectangle `sw`..`ne`, image and material added to the document as they are (no art
/// image is behind them); `None`, with a warning, when the texture cannot be encoded.
fn terrain_material(b: &mut Builder, sw: [f32; 2], ne: [f32; 2]) -> Option<usize> {
    let img = terrain_texture::bake(&b.terrain, sw, ne, b.opts.max_texture_size);
    match terrain_texture::encode(&img, b.opts.jpeg_quality) {
        Ok((mime, bytes)) => {
            b.doc.images.push(Image {
                name: "terrain (base colour)".into(),
                mime,
                bytes,
            });
            let image = b.doc.images.len() - 1;
            b.doc.materials.push(PbrMaterial {
                name: "terrain".into(),
                base_color: Some(TextureUse { image }),
                // As a legacy material exports: no metal, fully rough.
                metallic_factor: 0.0,
                roughness_factor: 1.0,
                ..PbrMaterial::default()
            });
            Some(b.doc.materials.len() - 1)
        }
        Err(why) => {
            b.warn(format!(
                "terrain: warning: its ground texture is left out: {why}"
            ));
            None
        }
    }
}

/// The terrain's plain material, in [`TERRAIN_COLOUR`].
fn plain_terrain_material(b: &mut Builder) -> usize {
    let look = Look {
        name: "terrain".into(),
        albedo: None,
        lit: None,
        normal: None,
        map: None,
        shading: Material::default(),
        alpha: AlphaMode::Opaque,
        double_sided: false,
        missing: false,
        tint: TERRAIN_COLOUR,
    };
    b.material(&look)
}

/// The terrain's colour (linear RGB) where its texture cannot be made: between
/// `terrain.wgsl`'s dark and light grass.
pub const TERRAIN_COLOUR: [f32; 3] = [0.23, 0.33, 0.11];
