//! Objects: each mesh (`ObjectSet::build`'s batches) at one LOD ([`ExportOptions::lod`]),
//! a primitive per LOD range (each range is one material), placed where the renderer places
//! its instances (`object.wgsl`'s `instance_origin`: the ground height the placement mode
//! names, plus the offset of delta and scraper objects), showing at the density level.
//!
//! A lone `.obj` ([`ExportOptions::lone_object`]) exports as itself: one node per object,
//! with each LOD a child node named `LOD n near–far m`. Only LOD 0 shows: the others are
//! scaled to nothing, with `extras: {"hidden": true}` (a viewer shows them by setting their
//! scale to 1). Its light points hang under the LOD they were listed in.
//!
//! Lights, in a scene and in a lone object, are [`super::lights`]'.
//!
//! OBJ8 triangles are clockwise seen from their front and glTF's are counter-clockwise:
//! every triangle's winding is reversed. OBJ8's axes are glTF's, so positions and normals
//! are copied as they are.

use std::collections::HashMap;

use agview_mesh::objects::{LodRange, MeshBatch, ObjectSet};

use crate::document::{AlphaMode, Node, Primitive};
use crate::textures::Look;

use super::axes::heading_rotation;
use super::lights::{self, MeshLight};
use super::place::{place, Placed};
use super::{st_to_uv, Builder};

/// The LODs of a mesh: its ranges grouped by distance range, nearest first.
pub(crate) fn lods(batch: &MeshBatch) -> Vec<(f32, f32, Vec<LodRange>)> {
    let mut out: Vec<(f32, f32, Vec<LodRange>)> = Vec::new();
    for r in &batch.lods {
        match out.iter_mut().find(|(n, f, _)| *n == r.near && *f == r.far) {
            Some((_, _, list)) => list.push(*r),
            None => out.push((r.near, r.far, vec![*r])),
        }
    }
    out.sort_by(|a, b| a.0.total_cmp(&b.0));
    out
}

/// Every placed object, instanced by mesh.
pub(crate) fn objects(b: &mut Builder) -> Vec<usize> {
    let set = ObjectSet::build(b.scene, b.art, &b.terrain);
    b.warn_all(&set.warnings);
    if set.total() == 0 {
        return Vec::new();
    }
    let sources = set.sources(b.scene);
    let level = b.opts.density_level.clamp(1, 6);
    let (list, ranges) = set.instances();
    let mut nodes = Vec::new();
    for (bi, (batch, range)) in set.batches.iter().zip(ranges).enumerate() {
        let shown: Vec<usize> = (range.start as usize..range.end as usize)
            .filter(|&k| {
                sources
                    .get(k)
                    .and_then(|&i| b.scene.objects.get(i as usize))
                    .is_some_and(|o| o.visible_at(level))
            })
            .collect();
        if shown.is_empty() {
            continue;
        }
        let name = mesh_name(b, bi);
        if batch.placeholder {
            let missing = b.art.meshes.get(bi).is_none_or(|m| m.missing);
            b.warn(if missing {
                format!("mesh {name}: missing; exported as a placeholder box")
            } else {
                format!("mesh {name}: broken; exported as a placeholder box")
            });
        }
        let lods = lods(batch);
        let placed = |k: usize| -> Placed {
            let inst = &list[k];
            let [x, y, heading, offset] = inst.pos_heading;
            // `object.wgsl`'s `instance_origin`: the ground height (stored unexaggerated)
            // as drawn, and the offset of delta (2) and scraper (3) objects.
            let mut up = inst.ground_mode[0] * b.terrain.exaggeration;
            if (inst.ground_mode[1] as u32) & 3 >= 2 {
                up += offset;
            }
            Placed {
                name: format!("object {} {name}", sources.get(k).copied().unwrap_or(0)),
                translation: b.axes.point(x, y, up),
                rotation: heading_rotation(heading),
                scale: [1.0; 3],
            }
        };
        let placements: Vec<Placed> = shown.iter().map(|&k| placed(k)).collect();
        let spans: Vec<(f32, f32)> = lods.iter().map(|(n, f, _)| (*n, *f)).collect();
        let mut lights = lights::of_mesh(b, bi, batch, &spans);
        if b.opts.lone_object {
            nodes.extend(lone(b, &set, bi, &name, &lods, &mut lights, placements));
            continue;
        }
        let lod = b.opts.lod.min(lods.len().saturating_sub(1));
        let Some((_, _, ranges)) = lods.get(lod) else {
            continue;
        };
        let Some(mesh) = lod_mesh(b, &set, bi, &name, ranges) else {
            continue;
        };
        let placed = place(b, mesh, &name, placements);
        let groups = lights::hang(b, &mut lights, lod, lods.len(), &placed);
        nodes.extend(placed);
        nodes.extend(groups);
    }
    nodes
}

/// What a mesh is called: its reference in the scene, else its art's name.
fn mesh_name(b: &Builder, bi: usize) -> String {
    match (b.scene.meshes.get(bi), b.art.meshes.get(bi)) {
        (Some(r), _) if !r.name.is_empty() => r.name.to_string(),
        (_, Some(m)) if !m.name.is_empty() => m.name.clone(),
        (None, None) => "unknown mesh".to_string(),
        _ => format!("mesh {bi}"),
    }
}

/// One LOD of batch `bi` as a mesh: a primitive per range.
fn lod_mesh(
    b: &mut Builder,
    set: &ObjectSet,
    bi: usize,
    name: &str,
    ranges: &[LodRange],
) -> Option<usize> {
    let batch = &set.batches[bi];
    let prims = ranges
        .iter()
        .map(|r| {
            let material = range_material(b, batch, r);
            range_primitive(set, r, material)
        })
        .collect();
    b.mesh(name.to_string(), prims)
}

/// A range's look: the batch's textures, the range's shading (the material rule's result)
/// and its draw state (`ObjectPipeline::of`): blended unless `ATTR_no_blend` gives it a
/// cutoff, which it is masked at; two-sided under `ATTR_no_cull`.
fn range_material(b: &mut Builder, batch: &MeshBatch, r: &LodRange) -> usize {
    let (albedo, missing) = b.image(batch.texture);
    let look = Look {
        name: b.image_name(
            batch.texture,
            if batch.placeholder {
                "missing mesh"
            } else {
                "untextured"
            },
        ),
        albedo,
        lit: b.extra_image(batch.lit),
        normal: b.extra_image(batch.normal),
        map: b.extra_image(batch.map),
        shading: r.shading,
        alpha: match r.material.alpha_cutoff {
            Some(c) if !batch.placeholder => AlphaMode::Mask(c),
            Some(_) => AlphaMode::Opaque,
            None if batch.placeholder => AlphaMode::Opaque,
            None => AlphaMode::Blend,
        },
        double_sided: !r.material.cull,
        missing: missing || batch.placeholder,
        tint: [1.0; 3],
    };
    b.material(&look)
}

/// A range's triangles with their own vertices, wound counter-clockwise; without normals
/// under `ATTR_shade_flat` (glTF viewers then shade each triangle flat).
fn range_primitive(set: &ObjectSet, r: &LodRange, material: usize) -> Primitive {
    let mut p = Primitive {
        material: Some(material),
        ..Primitive::default()
    };
    let start = r.first_index as usize;
    let Some(idx) = set.indices.get(start..start + r.index_count as usize) else {
        return p;
    };
    let mut local: HashMap<u32, u32> = HashMap::new();
    for tri in idx.chunks_exact(3) {
        if tri.iter().any(|&i| i as usize >= set.vertices.len()) {
            continue;
        }
        for &i in [tri[0], tri[2], tri[1]].iter() {
            let k = *local.entry(i).or_insert_with(|| {
                let v = &set.vertices[i as usize];
                p.positions.push(v.pos);
                if !r.material.flat {
                    p.normals.push(v.normal);
                }
                p.uvs.push(st_to_uv(v.st));
                (p.positions.len() - 1) as u32
            });
            p.indices.push(k);
        }
    }
    p
}

/// A lone object's nodes: one per placement, each LOD a child (only LOD 0 shown), its
/// lights children of their LODs (a light of no LOD a child of the object's node).
fn lone(
    b: &mut Builder,
    set: &ObjectSet,
    bi: usize,
    name: &str,
    lods: &[(f32, f32, Vec<LodRange>)],
    lights: &mut [MeshLight],
    placements: Vec<Placed>,
) -> Vec<usize> {
    let meshes: Vec<Option<usize>> = lods
        .iter()
        .map(|(_, _, ranges)| lod_mesh(b, set, bi, name, ranges))
        .collect();
    let mut out = Vec::new();
    for p in placements {
        let mut children = Vec::new();
        let mut light_nodes: Vec<Vec<usize>> = vec![Vec::new(); lods.len() + 1];
        for l in lights.iter_mut() {
            let name = format!("light {}", l.index);
            if let Some(n) = lights::node(b, l, name, l.pos) {
                light_nodes[l.lod.min(lods.len())].push(n);
            }
        }
        for (i, ((near, far, _), mesh)) in lods.iter().zip(&meshes).enumerate() {
            let hidden = i > 0;
            children.push(b.node(Node {
                name: format!("LOD {i} {}", range_label(*near, *far)),
                mesh: *mesh,
                scale: if hidden { [0.0; 3] } else { [1.0; 3] },
                children: std::mem::take(&mut light_nodes[i]),
                extras: hidden.then(|| {
                    serde_json::json!({ "hidden": true, "lod": i, "near_m": near, "far_m": far })
                }),
                ..Node::default()
            }));
        }
        children.append(&mut light_nodes[lods.len()]);
        out.push(b.node(Node {
            name: p.name,
            translation: p.translation,
            rotation: p.rotation,
            scale: p.scale,
            children,
            ..Node::default()
        }));
    }
    out
}

/// `near–far m`, `near m and beyond` for a range without a far end.
fn range_label(near: f32, far: f32) -> String {
    if far >= agview_mesh::objects::INFINITE_LOD {
        format!("{near:.0} m and beyond")
    } else {
        format!("{near:.0}–{far:.0} m")
    }
}
