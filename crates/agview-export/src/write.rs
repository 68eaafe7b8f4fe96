//! A [`Document`] as bytes: a `.glb`, or a `.gltf` with its `.bin` and images beside it.
//! Everything is written to a temporary folder beside the output and renamed into place;
//! the size is checked before anything is written (`docs/export.md`, "File layout").
//!
//! - **One buffer.** Every accessor has its own buffer view, tightly packed (no
//!   `byteStride`), each view starting on a 4-byte boundary. Vertex views are marked
//!   `ARRAY_BUFFER`, index views `ELEMENT_ARRAY_BUFFER`; the `EXT_mesh_gpu_instancing`
//!   views have no target, as they are not vertex attributes.
//! - **Indices** are `UNSIGNED_SHORT` when every vertex number fits below 65535 (glTF
//!   forbids the type's largest value, a restart index in some APIs), else
//!   `UNSIGNED_INT`.
//! - **What glTF cannot hold is left out**, never written invalid: a primitive with no
//!   triangle, a mesh with no primitive left, an instanced node with no instance (its node
//!   is kept, without the mesh), triangles naming vertices that do not exist, normals or
//!   UVs not as long as the positions. Floats that are not finite are written as 0;
//!   normals and rotations are normalised.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

use crate::document::{AlphaMode, Mime, TextureUse};
use crate::{Document, ExportError};

/// glTF's limit: a `.glb`'s lengths, and its binary chunk's, are 32-bit.
pub const MAX_BYTES: u64 = u32::MAX as u64;

const FLOAT: u32 = 5126;
const UNSIGNED_SHORT: u32 = 5123;
const UNSIGNED_INT: u32 = 5125;
const ARRAY_BUFFER: u32 = 34962;
const ELEMENT_ARRAY_BUFFER: u32 = 34963;
/// `REPEAT` and `LINEAR_MIPMAP_LINEAR`/`LINEAR`: how agview samples its textures.
const REPEAT: u32 = 10497;
const LINEAR: u32 = 9729;
const LINEAR_MIPMAP_LINEAR: u32 = 9987;

const EXT_INSTANCING: &str = "EXT_mesh_gpu_instancing";
const KHR_LIGHTS: &str = "KHR_lights_punctual";
const KHR_EMISSIVE_STRENGTH: &str = "KHR_materials_emissive_strength";

/// `bytes` rounded up to glTF's 4-byte alignment.
pub fn padded(bytes: u64) -> u64 {
    bytes.div_ceil(4) * 4
}

/// Bytes of the binary buffer one primitive needs: `vertices` positions (and normals, UVs
/// when it has them, tangents for a normal map) and `indices` vertex numbers, each in its
/// own padded view.
pub fn primitive_bytes(vertices: u64, normals: bool, uvs: bool, indices: u64) -> u64 {
    let index_size = if vertices < u16::MAX as u64 { 2 } else { 4 };
    padded(vertices * 12)
        + if normals { padded(vertices * 12) } else { 0 }
        + if uvs { padded(vertices * 8) } else { 0 }
        + if normals && uvs { vertices * 16 } else { 0 }
        + padded(indices * index_size)
}

/// Bytes of the binary buffer `count` instances need (translation, rotation, scale).
pub fn instance_bytes(count: u64) -> u64 {
    count * (12 + 16 + 12)
}

/// An upper bound of the binary buffer `doc` needs, counted without building it; images
/// count when they go in the buffer (a `.glb`).
pub fn estimate_bin(doc: &Document, images_in_bin: bool) -> u64 {
    let mut bytes = 0u64;
    for mesh in &doc.meshes {
        for p in &mesh.primitives {
            bytes += primitive_bytes(
                p.positions.len() as u64,
                !p.normals.is_empty(),
                !p.uvs.is_empty(),
                p.indices.len() as u64,
            );
        }
    }
    for node in &doc.nodes {
        if let Some(i) = &node.instances {
            bytes += instance_bytes(i.translation.len() as u64);
        }
    }
    if images_in_bin {
        bytes += doc
            .images
            .iter()
            .map(|i| padded(i.bytes.len() as u64))
            .sum::<u64>();
    }
    bytes
}

/// The size of a `.glb` with a JSON chunk of `json` bytes and a binary chunk of `bin`.
pub fn glb_bytes(json: u64, bin: u64) -> u64 {
    12 + 8 + padded(json) + if bin > 0 { 8 + padded(bin) } else { 0 }
}

/// [`ExportError::TooLarge`] when a binary chunk of `bin` bytes, or a `.glb` of `glb`
/// bytes, passes glTF's 32-bit limit.
pub fn check_size(bin: u64, glb: u64) -> Result<(), ExportError> {
    let worst = bin.max(glb);
    if worst > MAX_BYTES {
        return Err(ExportError::TooLarge { bytes: worst });
    }
    Ok(())
}

/// The data of one buffer view.
enum Data<'a> {
    Vec3(&'a [[f32; 3]]),
    /// Normalised as it is written.
    Unit3(&'a [[f32; 3]]),
    Vec2(&'a [[f32; 2]]),
    /// Normalised as it is written (quaternions).
    Unit4(&'a [[f32; 4]]),
    /// `TANGENT`s, built here ([`tangents`]).
    Vec4(Vec<[f32; 4]>),
    Index16(Cow<'a, [u32]>),
    Index32(Cow<'a, [u32]>),
    Bytes(&'a [u8]),
}

impl Data<'_> {
    fn len(&self) -> u64 {
        match self {
            Data::Vec3(v) | Data::Unit3(v) => v.len() as u64 * 12,
            Data::Vec2(v) => v.len() as u64 * 8,
            Data::Unit4(v) => v.len() as u64 * 16,
            Data::Vec4(v) => v.len() as u64 * 16,
            Data::Index16(v) => v.len() as u64 * 2,
            Data::Index32(v) => v.len() as u64 * 4,
            Data::Bytes(b) => b.len() as u64,
        }
    }

    fn write(&self, out: &mut Vec<u8>) {
        fn f(out: &mut Vec<u8>, v: f32) {
            let v = if v.is_finite() { v } else { 0.0 };
            out.extend_from_slice(&v.to_le_bytes());
        }
        match self {
            Data::Vec3(v) => v.iter().flatten().for_each(|&x| f(out, x)),
            Data::Unit3(v) => v
                .iter()
                .flat_map(|n| unit(n, [0.0, 1.0, 0.0]))
                .for_each(|x| f(out, x)),
            Data::Vec2(v) => v.iter().flatten().for_each(|&x| f(out, x)),
            Data::Unit4(v) => v
                .iter()
                .flat_map(|q| unit(q, [0.0, 0.0, 0.0, 1.0]))
                .for_each(|x| f(out, x)),
            Data::Vec4(v) => v.iter().flatten().for_each(|&x| f(out, x)),
            Data::Index16(v) => v
                .iter()
                .for_each(|&i| out.extend_from_slice(&(i as u16).to_le_bytes())),
            Data::Index32(v) => v
                .iter()
                .for_each(|&i| out.extend_from_slice(&i.to_le_bytes())),
            Data::Bytes(b) => out.extend_from_slice(b),
        }
        let len = self.len();
        out.resize(out.len() + (padded(len) - len) as usize, 0);
    }
}

/// `v` scaled to length 1, or `fallback` when it has no direction (or is not finite).
fn unit<const N: usize>(v: &[f32; N], fallback: [f32; N]) -> [f32; N] {
    let len = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if len.is_finite() && len > 1e-12 {
        v.map(|x| x / len)
    } else {
        fallback
    }
}

/// Where images go.
enum ImageHome<'a> {
    /// In the buffer (a `.glb`).
    Buffer,
    /// In files beside the `.gltf`, by these names.
    Files(&'a [String]),
}

/// The JSON of a document and the buffer views it refers to, not yet written.
struct Plan<'a> {
    views: Vec<Value>,
    accessors: Vec<Value>,
    pieces: Vec<Data<'a>>,
    bin_len: u64,
}

impl<'a> Plan<'a> {
    fn view(&mut self, data: Data<'a>, target: Option<u32>) -> usize {
        let len = data.len();
        let mut v = json!({"buffer": 0, "byteOffset": self.bin_len, "byteLength": len});
        if let Some(t) = target {
            v["target"] = json!(t);
        }
        self.bin_len += padded(len);
        self.pieces.push(data);
        self.views.push(v);
        self.views.len() - 1
    }

    fn accessor(
        &mut self,
        data: Data<'a>,
        target: Option<u32>,
        component: u32,
        kind: &str,
        count: usize,
    ) -> usize {
        let view = self.view(data, target);
        self.accessors.push(json!({
            "bufferView": view,
            "componentType": component,
            "count": count,
            "type": kind,
        }));
        self.accessors.len() - 1
    }

    fn write_bin(&self, out: &mut Vec<u8>) {
        for p in &self.pieces {
            p.write(out);
        }
    }
}

/// The bounds of positions, as POSITION's `min` and `max` (written as 0 where not finite,
/// as the positions are).
fn bounds(positions: &[[f32; 3]]) -> ([f32; 3], [f32; 3]) {
    let mut lo = [f32::INFINITY; 3];
    let mut hi = [f32::NEG_INFINITY; 3];
    for p in positions {
        for k in 0..3 {
            let v = if p[k].is_finite() { p[k] } else { 0.0 };
            lo[k] = lo[k].min(v);
            hi[k] = hi[k].max(v);
        }
    }
    (lo, hi)
}

/// The triangles of `indices` whose three vertices exist (all of them, borrowed, in the
/// normal case).
fn valid_triangles(indices: &[u32], vertices: usize) -> Cow<'_, [u32]> {
    let whole = indices.len() / 3 * 3;
    let ok = |t: &[u32]| t.iter().all(|&i| (i as usize) < vertices);
    if indices[..whole].iter().all(|&i| (i as usize) < vertices) {
        return Cow::Borrowed(&indices[..whole]);
    }
    Cow::Owned(
        indices[..whole]
            .chunks_exact(3)
            .filter(|t| ok(t))
            .flatten()
            .copied()
            .collect(),
    )
}

/// Per-vertex tangents of a normal-mapped primitive (glTF's `TANGENT`: xyz along +u,
/// w the handedness that makes `cross(normal, tangent) · w` point up the image, -v, where a
/// normal texture's green points), from each triangle's UV gradients, summed per vertex
/// and made orthogonal to the normal. Written so that every importer bends normals the
/// same way, and the validator's "generated tangent space" warning is not raised.
fn tangents(p: &crate::document::Primitive, indices: Option<&[u32]>) -> Vec<[f32; 4]> {
    use glam::{Vec2, Vec3};
    let n = p.positions.len();
    let mut t = vec![Vec3::ZERO; n];
    let mut b = vec![Vec3::ZERO; n];
    let sequential: Vec<u32>;
    let indices = match indices {
        Some(i) => i,
        None => {
            sequential = (0..n as u32).collect();
            &sequential
        }
    };
    let pos = |i: usize| Vec3::from(p.positions[i]);
    // Up the image: -v.
    let uv = |i: usize| Vec2::new(p.uvs[i][0], -p.uvs[i][1]);
    for tri in indices.chunks_exact(3) {
        let [i0, i1, i2] = [tri[0] as usize, tri[1] as usize, tri[2] as usize];
        let (e1, e2) = (pos(i1) - pos(i0), pos(i2) - pos(i0));
        let (d1, d2) = (uv(i1) - uv(i0), uv(i2) - uv(i0));
        let det = d1.x * d2.y - d2.x * d1.y;
        if !det.is_finite() || det.abs() < 1e-20 {
            continue;
        }
        let r = 1.0 / det;
        let tt = (e1 * d2.y - e2 * d1.y) * r;
        let bb = (e2 * d1.x - e1 * d2.x) * r;
        if !(tt.is_finite() && bb.is_finite()) {
            continue;
        }
        for i in [i0, i1, i2] {
            t[i] += tt;
            b[i] += bb;
        }
    }
    (0..n)
        .map(|i| {
            let normal = Vec3::from(unit(&p.normals[i], [0.0, 1.0, 0.0]));
            let mut tan = t[i] - normal * normal.dot(t[i]);
            if !tan.is_finite() || tan.length_squared() < 1e-24 {
                // No UV gradient: any direction across the normal.
                tan = normal.any_orthonormal_vector();
            }
            let tan = tan.normalize();
            let w = if normal.cross(tan).dot(b[i]) < 0.0 {
                -1.0
            } else {
                1.0
            };
            [tan.x, tan.y, tan.z, w]
        })
        .collect()
}

fn texture_info(t: &TextureUse, images: usize) -> Option<Value> {
    (t.image < images).then(|| json!({ "index": t.image }))
}

fn vec_json<const N: usize>(v: [f32; N]) -> Value {
    json!(v
        .iter()
        .map(|&x| if x.is_finite() { x } else { 0.0 })
        .collect::<Vec<f32>>())
}

/// The document's JSON, and its buffer views' data.
fn plan<'a>(doc: &'a Document, home: ImageHome<'_>, buffer_uri: Option<&str>) -> (Value, Plan<'a>) {
    let mut plan = Plan {
        views: Vec::new(),
        accessors: Vec::new(),
        pieces: Vec::new(),
        bin_len: 0,
    };
    let mut used: Vec<&str> = Vec::new();
    let materials = doc.materials.len();

    // Meshes: empty primitives left out, then meshes with none left.
    let mut mesh_index: Vec<Option<usize>> = Vec::with_capacity(doc.meshes.len());
    let mut meshes = Vec::new();
    for mesh in &doc.meshes {
        let mut prims = Vec::new();
        for p in &mesh.primitives {
            let n = p.positions.len();
            if n == 0 {
                continue;
            }
            let indices = if p.indices.is_empty() {
                None
            } else {
                let t = valid_triangles(&p.indices, n);
                if t.is_empty() {
                    continue;
                }
                Some(t)
            };
            if indices.is_none() && n % 3 != 0 {
                continue;
            }
            let (lo, hi) = bounds(&p.positions);
            let pos = plan.accessor(
                Data::Vec3(&p.positions),
                Some(ARRAY_BUFFER),
                FLOAT,
                "VEC3",
                n,
            );
            plan.accessors[pos]["min"] = json!(lo);
            plan.accessors[pos]["max"] = json!(hi);
            let mut attributes = Map::new();
            attributes.insert("POSITION".into(), json!(pos));
            if p.normals.len() == n {
                let a = plan.accessor(
                    Data::Unit3(&p.normals),
                    Some(ARRAY_BUFFER),
                    FLOAT,
                    "VEC3",
                    n,
                );
                attributes.insert("NORMAL".into(), json!(a));
            }
            if p.uvs.len() == n {
                let a = plan.accessor(Data::Vec2(&p.uvs), Some(ARRAY_BUFFER), FLOAT, "VEC2", n);
                attributes.insert("TEXCOORD_0".into(), json!(a));
            }
            let normal_mapped = p
                .material
                .and_then(|m| doc.materials.get(m))
                .and_then(|m| m.normal)
                .is_some_and(|t| t.image < doc.images.len());
            if normal_mapped && p.normals.len() == n && p.uvs.len() == n {
                let t = tangents(p, indices.as_deref());
                let a = plan.accessor(Data::Vec4(t), Some(ARRAY_BUFFER), FLOAT, "VEC4", n);
                attributes.insert("TANGENT".into(), json!(a));
            }
            let mut prim = json!({ "attributes": attributes });
            if let Some(t) = indices {
                let count = t.len();
                let (data, component) = if n < u16::MAX as usize {
                    (Data::Index16(t), UNSIGNED_SHORT)
                } else {
                    (Data::Index32(t), UNSIGNED_INT)
                };
                let a = plan.accessor(data, Some(ELEMENT_ARRAY_BUFFER), component, "SCALAR", count);
                prim["indices"] = json!(a);
            }
            if let Some(m) = p.material.filter(|&m| m < materials) {
                prim["material"] = json!(m);
            }
            prims.push(prim);
        }
        if prims.is_empty() {
            mesh_index.push(None);
        } else {
            mesh_index.push(Some(meshes.len()));
            let mut m = json!({ "primitives": prims });
            if !mesh.name.is_empty() {
                m["name"] = json!(mesh.name);
            }
            meshes.push(m);
        }
    }

    // Nodes.
    let node_count = doc.nodes.len();
    let lights = doc.lights.len();
    let mut nodes = Vec::with_capacity(node_count);
    for node in &doc.nodes {
        let mut n = Map::new();
        if !node.name.is_empty() {
            n.insert("name".into(), json!(node.name));
        }
        let mesh = node.mesh.and_then(|m| mesh_index.get(m).copied().flatten());
        let mut ext = Map::new();
        let mesh = match (&node.instances, mesh) {
            (Some(inst), Some(m)) => {
                let count = inst
                    .translation
                    .len()
                    .min(inst.rotation.len())
                    .min(inst.scale.len());
                if count == 0 {
                    None
                } else {
                    let t = plan.accessor(
                        Data::Vec3(&inst.translation[..count]),
                        None,
                        FLOAT,
                        "VEC3",
                        count,
                    );
                    let r = plan.accessor(
                        Data::Unit4(&inst.rotation[..count]),
                        None,
                        FLOAT,
                        "VEC4",
                        count,
                    );
                    let s =
                        plan.accessor(Data::Vec3(&inst.scale[..count]), None, FLOAT, "VEC3", count);
                    ext.insert(
                        EXT_INSTANCING.into(),
                        json!({"attributes": {"TRANSLATION": t, "ROTATION": r, "SCALE": s}}),
                    );
                    if !used.contains(&EXT_INSTANCING) {
                        used.push(EXT_INSTANCING);
                    }
                    Some(m)
                }
            }
            (_, m) => m,
        };
        if let Some(m) = mesh {
            n.insert("mesh".into(), json!(m));
        }
        let children: Vec<usize> = node
            .children
            .iter()
            .copied()
            .filter(|&c| c < node_count)
            .collect();
        if !children.is_empty() {
            n.insert("children".into(), json!(children));
        }
        if node.translation != [0.0; 3] {
            n.insert("translation".into(), vec_json(node.translation));
        }
        let rotation = unit(&node.rotation, [0.0, 0.0, 0.0, 1.0]);
        if rotation != [0.0, 0.0, 0.0, 1.0] {
            n.insert("rotation".into(), vec_json(rotation));
        }
        if node.scale != [1.0; 3] {
            n.insert("scale".into(), vec_json(node.scale));
        }
        if let Some(l) = node.light.filter(|&l| l < lights) {
            ext.insert(KHR_LIGHTS.into(), json!({ "light": l }));
        }
        if !ext.is_empty() {
            n.insert("extensions".into(), Value::Object(ext));
        }
        if let Some(e) = node.extras.as_ref().filter(|e| !e.is_null()) {
            n.insert("extras".into(), e.clone());
        }
        nodes.push(Value::Object(n));
    }

    // Materials.
    let image_count = doc.images.len();
    let mut mats = Vec::with_capacity(materials);
    for m in &doc.materials {
        let mut pbr = Map::new();
        if m.base_color_factor != [1.0; 4] {
            pbr.insert(
                "baseColorFactor".into(),
                vec_json(m.base_color_factor.map(|c| c.clamp(0.0, 1.0))),
            );
        }
        if let Some(t) = m.base_color.and_then(|t| texture_info(&t, image_count)) {
            pbr.insert("baseColorTexture".into(), t);
        }
        pbr.insert("metallicFactor".into(), json!(clamp01(m.metallic_factor)));
        pbr.insert("roughnessFactor".into(), json!(clamp01(m.roughness_factor)));
        if let Some(t) = m
            .metallic_roughness
            .and_then(|t| texture_info(&t, image_count))
        {
            pbr.insert("metallicRoughnessTexture".into(), t);
        }
        let mut mat = Map::new();
        if !m.name.is_empty() {
            mat.insert("name".into(), json!(m.name));
        }
        mat.insert("pbrMetallicRoughness".into(), Value::Object(pbr));
        if let Some(mut t) = m.normal.and_then(|t| texture_info(&t, image_count)) {
            if m.normal_scale != 1.0 && m.normal_scale.is_finite() {
                t["scale"] = json!(m.normal_scale);
            }
            mat.insert("normalTexture".into(), t);
        }
        if let Some(t) = m.emissive.and_then(|t| texture_info(&t, image_count)) {
            mat.insert("emissiveTexture".into(), t);
        }
        if m.emissive_factor != [0.0; 3] {
            mat.insert(
                "emissiveFactor".into(),
                vec_json(m.emissive_factor.map(clamp01)),
            );
        }
        if let Some(s) = m
            .emissive_strength
            .filter(|s| s.is_finite() && *s >= 0.0 && *s != 1.0)
        {
            mat.insert(
                "extensions".into(),
                json!({ KHR_EMISSIVE_STRENGTH: { "emissiveStrength": s } }),
            );
            if !used.contains(&KHR_EMISSIVE_STRENGTH) {
                used.push(KHR_EMISSIVE_STRENGTH);
            }
        }
        match m.alpha {
            AlphaMode::Opaque => {}
            AlphaMode::Mask(cutoff) => {
                mat.insert("alphaMode".into(), json!("MASK"));
                mat.insert("alphaCutoff".into(), json!(clamp01(cutoff)));
            }
            AlphaMode::Blend => {
                mat.insert("alphaMode".into(), json!("BLEND"));
            }
        }
        if m.double_sided {
            mat.insert("doubleSided".into(), json!(true));
        }
        if let Some(e) = m.extras.as_ref().filter(|e| !e.is_null()) {
            mat.insert("extras".into(), e.clone());
        }
        mats.push(Value::Object(mat));
    }

    // Images: one texture each, all with the one sampler.
    let mut images = Vec::with_capacity(image_count);
    for (i, img) in doc.images.iter().enumerate() {
        let mut v = Map::new();
        if !img.name.is_empty() {
            v.insert("name".into(), json!(img.name));
        }
        match &home {
            ImageHome::Buffer => {
                let view = plan.view(Data::Bytes(&img.bytes), None);
                v.insert("bufferView".into(), json!(view));
                v.insert("mimeType".into(), json!(mime_type(img.mime)));
            }
            ImageHome::Files(names) => {
                v.insert("uri".into(), json!(uri_escape(&names[i])));
                v.insert("mimeType".into(), json!(mime_type(img.mime)));
            }
        }
        images.push(Value::Object(v));
    }

    // Lights.
    let lights: Vec<Value> = doc
        .lights
        .iter()
        .map(|l| {
            let mut v = json!({
                "type": "point",
                "color": vec_json(l.color.map(clamp01)),
                "intensity": if l.intensity.is_finite() { l.intensity.max(0.0) } else { 0.0 },
            });
            if !l.name.is_empty() {
                v["name"] = json!(l.name);
            }
            if let Some(r) = l.range.filter(|r| r.is_finite() && *r > 0.0) {
                v["range"] = json!(r);
            }
            v
        })
        .collect();
    if !lights.is_empty() {
        used.push(KHR_LIGHTS);
    }

    let mut asset = json!({
        "version": "2.0",
        "generator": format!("agview {}", env!("CARGO_PKG_VERSION")),
    });
    let extras = (!doc.extras.is_null()).then(|| doc.extras.clone());
    if let Some(e) = &extras {
        asset["extras"] = e.clone();
    }
    let roots: Vec<usize> = doc
        .roots
        .iter()
        .copied()
        .filter(|&r| r < node_count)
        .collect();
    let mut scene = json!({ "nodes": roots });
    if let Some(e) = extras {
        scene["extras"] = e;
    }

    let mut root = Map::new();
    root.insert("asset".into(), asset);
    if !used.is_empty() {
        used.sort_unstable();
        root.insert("extensionsUsed".into(), json!(used));
    }
    if !lights.is_empty() {
        root.insert(
            "extensions".into(),
            json!({ KHR_LIGHTS: { "lights": lights } }),
        );
    }
    root.insert("scene".into(), json!(0));
    root.insert("scenes".into(), json!([scene]));
    if !nodes.is_empty() {
        root.insert("nodes".into(), json!(nodes));
    }
    if !meshes.is_empty() {
        root.insert("meshes".into(), json!(meshes));
    }
    if !mats.is_empty() {
        root.insert("materials".into(), json!(mats));
    }
    if !images.is_empty() {
        let textures: Vec<Value> = (0..images.len())
            .map(|i| json!({"sampler": 0, "source": i}))
            .collect();
        root.insert("textures".into(), json!(textures));
        root.insert("images".into(), json!(images));
        root.insert(
            "samplers".into(),
            json!([{
                "magFilter": LINEAR,
                "minFilter": LINEAR_MIPMAP_LINEAR,
                "wrapS": REPEAT,
                "wrapT": REPEAT,
            }]),
        );
    }
    if !plan.accessors.is_empty() {
        root.insert("accessors".into(), json!(plan.accessors));
    }
    if plan.bin_len > 0 {
        root.insert("bufferViews".into(), json!(plan.views));
        let mut buffer = json!({ "byteLength": plan.bin_len });
        if let Some(uri) = buffer_uri {
            buffer["uri"] = json!(uri_escape(uri));
        }
        root.insert("buffers".into(), json!([buffer]));
    }
    (Value::Object(root), plan)
}

fn clamp01(v: f32) -> f32 {
    if v.is_finite() {
        v.clamp(0.0, 1.0)
    } else {
        0.0
    }
}

fn mime_type(m: Mime) -> &'static str {
    match m {
        Mime::Png => "image/png",
        Mime::Jpeg => "image/jpeg",
    }
}

/// The file name extension of an image.
pub fn image_extension(m: Mime) -> &'static str {
    match m {
        Mime::Png => "png",
        Mime::Jpeg => "jpg",
    }
}

/// A file name as a relative URI: everything but RFC 3986's unreserved characters
/// percent-encoded (spaces, `#`, `%`, non-ASCII).
fn uri_escape(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The document as one `.glb`.
pub fn to_glb(doc: &Document) -> Result<Vec<u8>, ExportError> {
    check_size(estimate_bin(doc, true), 0)?;
    let (json, plan) = plan(doc, ImageHome::Buffer, None);
    let json = serde_json::to_vec(&json).expect("JSON of plain values");
    let total = glb_bytes(json.len() as u64, plan.bin_len);
    check_size(plan.bin_len, total)?;
    let mut out = Vec::with_capacity(total as usize);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    let json_len = padded(json.len() as u64);
    out.extend_from_slice(&(json_len as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&json);
    out.resize(out.len() + (json_len as usize - json.len()), b' ');
    if plan.bin_len > 0 {
        out.extend_from_slice(&(plan.bin_len as u32).to_le_bytes());
        out.extend_from_slice(b"BIN\0");
        plan.write_bin(&mut out);
    }
    debug_assert_eq!(out.len() as u64, total);
    Ok(out)
}

/// A `.gltf`'s files: the JSON, its `.bin` (when there is geometry) and its images, each
/// with its file name.
fn gltf_files(doc: &Document, stem: &str) -> Result<Vec<(String, Vec<u8>)>, ExportError> {
    check_size(estimate_bin(doc, false), 0)?;
    let image_names: Vec<String> = doc
        .images
        .iter()
        .enumerate()
        .map(|(i, img)| format!("{stem}_{i}.{}", image_extension(img.mime)))
        .collect();
    let bin_name = format!("{stem}.bin");
    let (json, plan) = plan(doc, ImageHome::Files(&image_names), Some(&bin_name));
    check_size(plan.bin_len, 0)?;
    let mut files = Vec::new();
    for (name, img) in image_names.into_iter().zip(&doc.images) {
        files.push((name, img.bytes.clone()));
    }
    if plan.bin_len > 0 {
        let mut bin = Vec::with_capacity(plan.bin_len as usize);
        plan.write_bin(&mut bin);
        files.push((bin_name, bin));
    }
    let json = serde_json::to_vec_pretty(&json).expect("JSON of plain values");
    // The `.gltf` last: it appears only once what it names is in place.
    files.push((format!("{stem}.gltf"), json));
    Ok(files)
}

/// Writes `doc` to `path` (`.glb`, or `.gltf` with `NAME.bin` and its images beside it).
pub fn write_file(doc: &Document, path: &Path) -> Result<(), ExportError> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(|e| e.to_ascii_lowercase());
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    let files = match ext.as_deref() {
        _ if stem.is_empty() => None,
        Some("glb") => Some(vec![(
            path.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            to_glb(doc)?,
        )]),
        Some("gltf") => {
            let mut files = gltf_files(doc, stem)?;
            // Keep the `.gltf`'s own spelling of its extension.
            if let Some(last) = files.last_mut() {
                last.0 = path
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
            }
            Some(files)
        }
        _ => None,
    };
    let Some(files) = files else {
        return Err(ExportError::Extension {
            path: path.to_path_buf(),
        });
    };
    write_all(path, stem, &files)
}

/// The output's folder (`.` for a bare file name).
fn folder_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// A temporary folder beside the output, removed when dropped.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Writes `files` into a temporary folder beside `path`, then renames each into the
/// output's folder (the last one last). On any failure nothing new is left: the temporary
/// folder is removed, and so are the outputs already moved.
fn write_all(path: &Path, stem: &str, files: &[(String, Vec<u8>)]) -> Result<(), ExportError> {
    let folder = folder_of(path);
    let io = |p: &Path, error: std::io::Error| ExportError::Io {
        path: p.to_path_buf(),
        error,
    };
    let folder_error = |e: std::io::Error| {
        io(
            path,
            std::io::Error::new(
                e.kind(),
                format!("cannot write into the folder {}: {e}", folder.display()),
            ),
        )
    };
    match std::fs::metadata(&folder) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => {
            return Err(folder_error(std::io::Error::new(
                std::io::ErrorKind::NotADirectory,
                "not a folder",
            )))
        }
        Err(e) => return Err(folder_error(e)),
    }
    let temp = {
        let pid = std::process::id();
        let mut n = 0u32;
        loop {
            let name = if n == 0 {
                format!(".{stem}.agview-tmp-{pid}")
            } else {
                format!(".{stem}.agview-tmp-{pid}-{n}")
            };
            let dir = folder.join(name);
            match std::fs::create_dir(&dir) {
                Ok(()) => break TempDir(dir),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && n < 100 => n += 1,
                Err(e) => return Err(folder_error(e)),
            }
        }
    };
    for (name, bytes) in files {
        let p = temp.0.join(name);
        std::fs::write(&p, bytes).map_err(|e| io(&p, e))?;
    }
    let mut moved: Vec<PathBuf> = Vec::new();
    for (name, _) in files {
        let to = folder.join(name);
        if let Err(e) = std::fs::rename(temp.0.join(name), &to) {
            for m in &moved {
                let _ = std::fs::remove_file(m);
            }
            return Err(io(&to, e));
        }
        moved.push(to);
    }
    drop(temp);
    Ok(())
}

#[cfg(test)]
#[path = "write_tests.rs"]
mod tests;
