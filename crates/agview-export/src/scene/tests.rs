//! The export of small scenes built by hand (as agview-mesh's own tests build them):
//! meshes, instances, node names, materials, lights and axes.

use std::sync::Arc;

use agview_core::scene::{
    ArtRef, FacadeInstance, GeoFrame, ObjectInstance, Placement, Scene, Tile, TileTexture,
    TreeInstance,
};
use agview_core::terrain::Terrain;
use agview_load::art::{
    ArtSet, DrawState, ForestArt, ImageData, ImagePixels, LightArt, MeshArt, MeshLod, MeshVertex,
    PolArt, TreeArt,
};
use glam::{Quat, Vec3};

use super::ground::{lift, GROUND_LIFT_M};
use super::*;
use crate::document::{AlphaMode, Mime, Node};
use crate::Instancing;

/// What [`build`] made, owned.
struct Built {
    doc: Document,
    warnings: Warnings,
    looks: Vec<(Look, usize)>,
    centre: [f32; 3],
}

fn built(scene: &Scene, art: &ArtSet, terrain: &Terrain, opts: &ExportOptions) -> Built {
    let b = build(scene, art, terrain, opts);
    Built {
        centre: b.axes.centre,
        doc: b.doc,
        warnings: b.warnings,
        looks: b.materials.looks().to_vec(),
    }
}

fn image(name: &str) -> ImageData {
    ImageData {
        name: name.into(),
        width: 1,
        height: 1,
        pixels: ImagePixels::Rgba8(vec![vec![255; 4]]),
        missing: false,
    }
}

fn lod(near: f32, far: f32, first: u32, count: u32) -> MeshLod {
    MeshLod {
        near,
        far,
        first_index: first,
        index_count: count,
        material: DrawState::default(),
        shading: Default::default(),
    }
}

/// A mesh of two triangles 2 m across (x −1..1, z −1..1, y 0..1): the first LOD the
/// first, the second the other.
fn mesh(name: &str, texture: Option<usize>) -> MeshArt {
    let v = |x: f32, y: f32, z: f32| MeshVertex {
        pos: [x, y, z],
        normal: [0.0, 1.0, 0.0],
        uv: [0.25, 0.75],
    };
    MeshArt {
        name: name.into(),
        vertices: vec![
            v(-1.0, 0.0, -1.0),
            v(1.0, 0.0, -1.0),
            v(1.0, 1.0, 1.0),
            v(-1.0, 1.0, 1.0),
        ],
        indices: vec![0, 1, 2, 0, 2, 3],
        lods: vec![lod(0.0, 100.0, 0, 3), lod(100.0, 1000.0, 3, 3)],
        texture,
        bounds_min: [-1.0, 0.0, -1.0],
        bounds_max: [1.0, 1.0, 1.0],
        ..MeshArt::default()
    }
}

fn object(index: u32, pos: [f32; 2], heading: f32) -> ObjectInstance {
    ObjectInstance {
        index,
        pos,
        ground_pt: pos,
        heading,
        show: [1, 1],
        ..ObjectInstance::default()
    }
}

fn reference(name: &str) -> ArtRef {
    ArtRef {
        name: Arc::from(name),
        resolved: None,
    }
}

/// Objects of `a.obj` (textured) and `b.obj` (untextured).
fn objects_scene(objects: Vec<ObjectInstance>) -> (Scene, ArtSet) {
    let scene = Scene {
        asset: "test.agp".into(),
        meshes: vec![reference("a.obj"), reference("b.obj")],
        objects,
        ..Scene::default()
    };
    let art = ArtSet {
        meshes: vec![mesh("a.obj", Some(0)), mesh("b.obj", None)],
        images: vec![image("a.png")],
        ..ArtSet::default()
    };
    (scene, art)
}

fn opts(instancing: Instancing) -> ExportOptions {
    ExportOptions {
        instancing,
        ..ExportOptions::default()
    }
}

fn named<'d>(doc: &'d Document, name: &str) -> &'d Node {
    doc.nodes
        .iter()
        .find(|n| n.name == name)
        .unwrap_or_else(|| panic!("no node {name:?} in {:#?}", names(doc)))
}

fn names(doc: &Document) -> Vec<&str> {
    doc.nodes.iter().map(|n| n.name.as_str()).collect()
}

/// The root node of a layer and its children.
fn layer<'d>(doc: &'d Document, name: &str) -> Vec<&'d Node> {
    let root = doc
        .roots
        .iter()
        .map(|&r| &doc.nodes[r])
        .find(|n| n.name == name)
        .unwrap_or_else(|| panic!("no layer {name:?}: {:?}", names(doc)));
    root.children.iter().map(|&c| &doc.nodes[c]).collect()
}

/// Every primitive's material is in the document, every index in its vertices, and every
/// attribute as long as its positions.
fn assert_sound(doc: &Document) {
    for m in &doc.meshes {
        for p in &m.primitives {
            assert!(p.material.is_none_or(|i| i < doc.materials.len()));
            assert!(p.indices.iter().all(|&i| (i as usize) < p.positions.len()));
            assert!(p.normals.is_empty() || p.normals.len() == p.positions.len());
            assert!(p.uvs.is_empty() || p.uvs.len() == p.positions.len());
            assert_eq!(p.indices.len() % 3, 0);
            assert!(p.positions.iter().flatten().all(|v| v.is_finite()));
        }
    }
    for n in &doc.nodes {
        assert!(n.mesh.is_none_or(|m| m < doc.meshes.len()));
        assert!(n.children.iter().all(|&c| c < doc.nodes.len()));
        if let Some(i) = &n.instances {
            assert_eq!(i.translation.len(), i.rotation.len());
            assert_eq!(i.translation.len(), i.scale.len());
        }
    }
}

#[test]
fn a_point_north_of_the_framing_centre_lies_towards_minus_z() {
    // Two objects 20 m apart north to south, on a terrain 5 m up: the framing centre lies
    // between them, on the ground.
    let (scene, art) = objects_scene(vec![
        object(0, [0.0, 10.0], 0.0),
        object(1, [0.0, -10.0], 0.0),
    ]);
    let mut terrain = Terrain::flat(1000.0);
    terrain.heights.iter_mut().for_each(|h| *h = 5.0);
    let (doc, _) = export(&scene, &art, &terrain, &opts(Instancing::Nodes));
    assert_sound(&doc);
    let north = named(&doc, "object 0 a.obj");
    assert_eq!(north.translation, [0.0, 0.0, -10.0]);
    let south = named(&doc, "object 1 b.obj");
    assert_eq!(south.translation, [0.0, 0.0, 10.0]);
    assert_eq!(doc.extras["framing_centre_m"]["up"], 5.0);
    assert_eq!(doc.extras["agview"], env!("CARGO_PKG_VERSION"));
    assert!(doc.extras["origin"].is_null(), "no geographic frame");
}

#[test]
fn the_geographic_origin_is_in_the_extras() {
    let (mut scene, art) = objects_scene(vec![object(0, [100.0, 50.0], 0.0)]);
    scene.geo = Some(GeoFrame {
        origin_lat: 47.5,
        origin_lon: -122.25,
        ..GeoFrame::default()
    });
    let (doc, _) = export(
        &scene,
        &art,
        &Terrain::flat(1000.0),
        &ExportOptions::default(),
    );
    assert_eq!(doc.extras["origin"]["lat"], 47.5);
    assert_eq!(doc.extras["origin"]["lon"], -122.25);
    assert_eq!(doc.extras["framing_centre_m"]["east"], 100.0);
    assert_eq!(doc.extras["framing_centre_m"]["north"], 50.0);
    // The lone object sits on the origin.
    assert_eq!(named(&doc, "object 0 a.obj").translation, [0.0; 3]);
}

#[test]
fn a_heading_turns_the_object_clockwise_seen_from_above() {
    let (scene, art) = objects_scene(vec![object(0, [0.0, 0.0], 90.0)]);
    let (doc, _) = export(
        &scene,
        &art,
        &Terrain::flat(1000.0),
        &ExportOptions::default(),
    );
    let r = named(&doc, "object 0 a.obj").rotation;
    let q = Quat::from_xyzw(r[0], r[1], r[2], r[3]);
    // OBJ8's north (−z) faces east (+x) at heading 90.
    let v = q * Vec3::new(0.0, 0.0, -1.0);
    assert!((v - Vec3::X).length() < 1e-6, "{v}");
}

#[test]
fn repeated_meshes_are_instanced_by_cells_with_the_extension() {
    // Three of a.obj, two in one cell and one 600 m east; one b.obj.
    let (scene, art) = objects_scene(vec![
        object(0, [0.0, 0.0], 0.0),
        object(0, [10.0, 0.0], 30.0),
        object(0, [600.0, 0.0], 0.0),
        object(1, [5.0, 5.0], 0.0),
    ]);
    let (doc, _) = export(
        &scene,
        &art,
        &Terrain::flat(2000.0),
        &opts(Instancing::Extension),
    );
    assert_sound(&doc);
    let objects = layer(&doc, "objects");
    assert_eq!(objects.len(), 3, "{:?}", names(&doc));
    let instanced: Vec<&&Node> = objects.iter().filter(|n| n.instances.is_some()).collect();
    assert_eq!(instanced.len(), 2, "a.obj in two cells");
    let counts: Vec<usize> = instanced
        .iter()
        .map(|n| n.instances.as_ref().unwrap().translation.len())
        .collect();
    assert_eq!(counts.iter().sum::<usize>(), 3);
    assert!(counts.contains(&2) && counts.contains(&1));
    assert_eq!(instanced[0].mesh, instanced[1].mesh, "one mesh for a.obj");
    assert!(
        instanced[0].name.starts_with("a.obj ×"),
        "{}",
        instanced[0].name
    );
    // b.obj, used once: a plain node.
    let b = named(&doc, "object 3 b.obj");
    assert!(b.instances.is_none() && b.mesh.is_some());
    assert_eq!(doc.meshes.len(), 2);
}

#[test]
fn repeated_meshes_are_nodes_sharing_a_mesh_without_the_extension() {
    let (scene, art) = objects_scene(vec![
        object(0, [0.0, 0.0], 0.0),
        object(0, [10.0, 0.0], 30.0),
        object(0, [600.0, 0.0], 0.0),
        object(1, [5.0, 5.0], 0.0),
    ]);
    let (doc, _) = export(
        &scene,
        &art,
        &Terrain::flat(2000.0),
        &opts(Instancing::Nodes),
    );
    assert_sound(&doc);
    let objects = layer(&doc, "objects");
    assert_eq!(objects.len(), 4);
    assert!(objects.iter().all(|n| n.instances.is_none()));
    let a: Vec<Option<usize>> = (0..3)
        .map(|k| named(&doc, &format!("object {k} a.obj")).mesh)
        .collect();
    assert!(a.iter().all(|m| *m == a[0] && m.is_some()));
    assert_eq!(doc.meshes.len(), 2);
}

#[test]
fn triangles_are_wound_counter_clockwise_and_the_lod_is_chosen() {
    let (scene, art) = objects_scene(vec![object(0, [0.0, 0.0], 0.0)]);
    let (doc, _) = export(
        &scene,
        &art,
        &Terrain::flat(1000.0),
        &ExportOptions::default(),
    );
    let m = &doc.meshes[named(&doc, "object 0 a.obj").mesh.unwrap()];
    assert_eq!(m.primitives.len(), 1);
    let p = &m.primitives[0];
    // LOD 0 is OBJ8's triangle 0 1 2, clockwise from its front: 0 2 1 in glTF.
    let tri: Vec<[f32; 3]> = p.indices.iter().map(|&i| p.positions[i as usize]).collect();
    assert_eq!(
        tri,
        vec![[-1.0, 0.0, -1.0], [1.0, 1.0, 1.0], [1.0, 0.0, -1.0]]
    );
    // s, t (t up) as glTF's u, v (v down).
    assert_eq!(p.uvs[0], [0.25, 0.25]);
    // --lod 1: the other triangle; a LOD past the last is the last.
    for lod in [1, 7] {
        let o = ExportOptions {
            lod,
            ..ExportOptions::default()
        };
        let (doc, _) = export(&scene, &art, &Terrain::flat(1000.0), &o);
        let m = &doc.meshes[named(&doc, "object 0 a.obj").mesh.unwrap()];
        let p = &m.primitives[0];
        assert!(p.positions.contains(&[-1.0, 1.0, 1.0]), "lod {lod}");
    }
}

#[test]
fn objects_stand_on_the_ground_their_placement_names() {
    let terrain = Terrain::hills(400.0, 30.0, 4);
    let mut draped = object(0, [50.0, -20.0], 0.0);
    draped.ground_pt = [-100.0, 80.0];
    let mut delta = draped.clone();
    delta.mode = Placement::Delta;
    delta.z_offset = 7.0;
    let (scene, art) = objects_scene(vec![draped, delta]);
    let b = built(&scene, &art, &terrain, &opts(Instancing::Nodes));
    let centre = b.centre;
    let y0 = named(&b.doc, "object 0 a.obj").translation[1];
    let y1 = named(&b.doc, "object 1 a.obj").translation[1];
    assert!((y0 - (terrain.height_at(50.0, -20.0) - centre[2])).abs() < 1e-4);
    assert!((y1 - (terrain.height_at(-100.0, 80.0) + 7.0 - centre[2])).abs() < 1e-4);
}

#[test]
fn density_leaves_out_the_objects_not_shown_at_its_level() {
    let mut sparse = object(0, [0.0, 0.0], 0.0);
    sparse.show = [5, 6];
    let (scene, art) = objects_scene(vec![sparse, object(1, [5.0, 0.0], 0.0)]);
    let o = ExportOptions {
        density_level: 1,
        ..ExportOptions::default()
    };
    let (doc, _) = export(&scene, &art, &Terrain::flat(1000.0), &o);
    assert_eq!(layer(&doc, "objects").len(), 1);
    named(&doc, "object 1 b.obj");
    let (doc, _) = export(
        &scene,
        &art,
        &Terrain::flat(1000.0),
        &ExportOptions::default(),
    );
    assert_eq!(
        layer(&doc, "objects").len(),
        2,
        "every object at the default"
    );
}

#[test]
fn materials_follow_the_draw_state_and_each_look_is_one_material() {
    let (scene, mut art) = objects_scene(vec![
        object(0, [0.0, 0.0], 0.0),
        object(0, [10.0, 0.0], 0.0),
        object(1, [20.0, 0.0], 0.0),
    ]);
    // a.obj alpha-tested at 0.3 and two-sided; b.obj blended.
    art.meshes[0].lods[0].material = DrawState {
        cull: false,
        alpha_cutoff: Some(0.3),
        ..DrawState::default()
    };
    let b = built(
        &scene,
        &art,
        &Terrain::flat(1000.0),
        &ExportOptions::default(),
    );
    assert_eq!(b.looks.len(), 2);
    let a = &b.looks.iter().find(|(l, _)| l.name == "a.png").unwrap().0;
    assert_eq!(a.alpha, AlphaMode::Mask(0.3));
    assert!(a.double_sided);
    assert_eq!(a.albedo, Some(0));
    let u = &b
        .looks
        .iter()
        .find(|(l, _)| l.name == "untextured")
        .unwrap()
        .0;
    assert_eq!(u.alpha, AlphaMode::Blend);
    assert!(!u.double_sided && !u.missing && u.albedo.is_none());
    assert!(b.warnings.is_empty(), "{:?}", b.warnings);
}

#[test]
fn missing_meshes_and_textures_are_named_once_each() {
    let (mut scene, mut art) = objects_scene(vec![
        object(0, [0.0, 0.0], 0.0),
        object(0, [10.0, 0.0], 0.0),
        object(1, [20.0, 0.0], 0.0),
        object(1, [30.0, 0.0], 0.0),
    ]);
    art.images[0].missing = true;
    art.meshes[1] = MeshArt {
        name: "b.obj".into(),
        missing: true,
        ..MeshArt::default()
    };
    scene.objects.push(object(0, [40.0, 0.0], 0.0));
    let b = built(
        &scene,
        &art,
        &Terrain::flat(1000.0),
        &ExportOptions::default(),
    );
    let about = |what: &str| b.warnings.iter().filter(|w| w.contains(what)).count();
    assert_eq!(about("texture a.png"), 1, "{:?}", b.warnings);
    assert_eq!(about("mesh b.obj: missing"), 1, "{:?}", b.warnings);
    assert!(b.looks.iter().all(|(l, _)| l.missing));
    assert_sound(&b.doc);
}

/// A lamp: LODs 0–100 m and 100–1000 m, a light in each and one listed in no LOD.
fn lamp_scene() -> (Scene, ArtSet) {
    let (scene, mut art) = objects_scene(vec![object(0, [0.0, 0.0], 0.0)]);
    let light = |near: f32, far: f32, candela: f32| LightArt {
        pos: [0.0, 6.0, -1.5],
        near,
        far,
        color: [1.0, 0.5, 0.25, 0.5],
        size: 1.0,
        candela,
    };
    art.meshes[0].lights = vec![
        light(0.0, 100.0, 750.0),
        light(100.0, 1000.0, 400.0),
        light(5000.0, 6000.0, 10.0),
    ];
    (scene, art)
}

#[test]
fn a_lone_object_has_its_lods_as_nodes_with_lod_0_shown_and_its_lights() {
    let (scene, art) = lamp_scene();
    let o = ExportOptions {
        lone_object: true,
        ..ExportOptions::default()
    };
    let (doc, _) = export(&scene, &art, &Terrain::flat(1000.0), &o);
    assert_sound(&doc);
    let object = named(&doc, "object 0 a.obj");
    assert!(object.mesh.is_none());
    let kids: Vec<&Node> = object.children.iter().map(|&c| &doc.nodes[c]).collect();
    assert_eq!(kids[0].name, "LOD 0 0–100 m");
    assert_eq!(kids[0].scale, [1.0; 3]);
    assert!(kids[0].extras.is_none());
    assert_eq!(kids[1].name, "LOD 1 100–1000 m");
    assert_eq!(kids[1].scale, [0.0; 3]);
    assert_eq!(kids[1].extras.as_ref().unwrap()["hidden"], true);
    assert_ne!(kids[0].mesh, kids[1].mesh);
    // Lights: intensity = candela × dimmer, under the LOD they were listed in.
    assert_eq!(doc.lights.len(), 3);
    assert_eq!(doc.lights[0].intensity, 375.0);
    assert_eq!(doc.lights[0].color, [1.0, 0.5, 0.25]);
    let light_of = |n: &Node| -> Vec<usize> {
        n.children
            .iter()
            .filter_map(|&c| doc.nodes[c].light)
            .collect()
    };
    assert_eq!(light_of(kids[0]), vec![0]);
    assert_eq!(light_of(kids[1]), vec![1]);
    assert_eq!(
        light_of(object),
        vec![2],
        "a light of no LOD hangs on the object"
    );
    let l = &doc.nodes[kids[0].children[0]];
    assert_eq!(l.translation, [0.0, 6.0, -1.5], "OBJ8 axes are glTF's");
}

/// The light nodes under `n`: (light, translation).
fn lights_under(doc: &Document, n: &Node) -> Vec<(usize, [f32; 3])> {
    n.children
        .iter()
        .map(|&c| &doc.nodes[c])
        .filter_map(|c| Some((c.light?, c.translation)))
        .collect()
}

#[test]
fn a_placed_object_carries_the_lights_of_its_exported_lod() {
    // One lamp: a plain node. Its LOD 0 light and the light of no LOD hang on it, in the
    // object's axes; the LOD 1 light stays out with LOD 1.
    let (scene, art) = lamp_scene();
    let (doc, w) = export(
        &scene,
        &art,
        &Terrain::flat(1000.0),
        &ExportOptions::default(),
    );
    assert_sound(&doc);
    let object = named(&doc, "object 0 a.obj");
    assert!(object.mesh.is_some());
    let lights = lights_under(&doc, object);
    assert_eq!(lights, vec![(0, [0.0, 6.0, -1.5]), (1, [0.0, 6.0, -1.5])]);
    assert_eq!(doc.lights.len(), 2);
    assert_eq!(doc.lights[0].intensity, 375.0, "candela × dimmer");
    assert_eq!(doc.lights[1].intensity, 5.0);
    assert!(w.iter().all(|w| !w.contains("light")), "{w:?}");
    // `--lod 1`: the LOD 1 light instead of the LOD 0 one.
    let o = ExportOptions {
        lod: 1,
        ..ExportOptions::default()
    };
    let (doc, _) = export(&scene, &art, &Terrain::flat(1000.0), &o);
    let lights = lights_under(&doc, named(&doc, "object 0 a.obj"));
    assert_eq!(lights.len(), 2);
    assert_eq!(doc.lights[lights[0].0].intensity, 200.0);
}

/// Three lamps in one cell, the last turned 90° (east).
fn three_lamps() -> (Scene, ArtSet) {
    let (mut scene, art) = lamp_scene();
    scene.objects = vec![
        object(0, [0.0, 0.0], 0.0),
        object(0, [10.0, 0.0], 0.0),
        object(0, [20.0, 0.0], 90.0),
    ];
    (scene, art)
}

#[test]
fn instanced_objects_carry_their_lights_one_node_per_instance() {
    let (scene, art) = three_lamps();
    let terrain = Terrain::flat(1000.0);
    let (doc, _) = export(&scene, &art, &terrain, &opts(Instancing::Extension));
    assert_sound(&doc);
    let objects = layer(&doc, "objects");
    let cells: Vec<&Node> = objects
        .iter()
        .copied()
        .filter(|n| n.instances.is_some())
        .collect();
    assert!(!cells.is_empty(), "{:?}", names(&doc));
    // Two lights a lamp (its LOD 0 one and the one of no LOD), each point light once.
    assert_eq!(doc.lights.len(), 2);
    let mut placed = 0;
    let mut turned = 0;
    for cell in cells {
        let group = named(&doc, &format!("lights of {}", cell.name));
        assert!(group.mesh.is_none() && group.instances.is_none());
        assert!(
            objects.iter().any(|n| std::ptr::eq(*n, group)),
            "the lights stand beside their cell"
        );
        let lights = lights_under(&doc, group);
        let inst = cell.instances.as_ref().unwrap();
        assert_eq!(lights.len(), 2 * inst.translation.len());
        placed += lights.len();
        for (i, pair) in lights.chunks(2).enumerate() {
            let t = Vec3::from(inst.translation[i]);
            let r = Quat::from_array(inst.rotation[i]);
            let want = t + r * Vec3::new(0.0, 6.0, -1.5);
            for (_, at) in pair {
                assert!(Vec3::from(*at).distance(want) < 1e-4, "{at:?} {want}");
            }
            // The lamp turned east has its light 1.5 m east of it, not north.
            if r.y.abs() > 0.1 {
                turned += 1;
                let at = Vec3::from(pair[0].1) - t;
                assert!(at.distance(Vec3::new(1.5, 6.0, 0.0)) < 1e-4, "{at}");
            }
        }
    }
    assert_eq!((placed, turned), (6, 1));
    // With core nodes, each object's node carries its own.
    let (doc, _) = export(&scene, &art, &terrain, &opts(Instancing::Nodes));
    let with_lights = layer(&doc, "objects")
        .iter()
        .filter(|n| lights_under(&doc, n).len() == 2)
        .count();
    assert_eq!(with_lights, 3);
    assert_eq!(doc.lights.len(), 2);
}

#[test]
fn lights_past_the_cap_are_left_out_with_a_warning() {
    let (scene, art) = three_lamps();
    let o = ExportOptions {
        max_lights: 4,
        ..ExportOptions::default()
    };
    let (doc, w) = export(&scene, &art, &Terrain::flat(1000.0), &o);
    assert_sound(&doc);
    assert_eq!(doc.nodes.iter().filter(|n| n.light.is_some()).count(), 4);
    let about: Vec<&String> = w.iter().filter(|w| w.contains("light")).collect();
    assert_eq!(about.len(), 1, "{w:?}");
    assert!(
        about[0].contains("2 of the objects' 6 light(s) left out"),
        "{w:?}"
    );
    // 0: none at all, and no point light left unused.
    let o = ExportOptions {
        max_lights: 0,
        ..ExportOptions::default()
    };
    let (doc, _) = export(&scene, &art, &Terrain::flat(1000.0), &o);
    assert!(doc.lights.is_empty());
    assert!(doc.nodes.iter().all(|n| n.light.is_none()));
}

#[test]
fn tiles_and_draped_polygons_lie_above_the_terrain_layer_by_layer() {
    let mut scene = agview_layout::layout::placed::draped_polygon(
        "a.pol",
        &[vec![[0.0, 0.0], [8.0, 0.0], [8.0, 8.0], [0.0, 8.0]]],
        None,
        0.0,
    );
    scene.asset = "block.agb".into();
    scene.tile_texture = Some(TileTexture {
        path: "tiles.png".into(),
        width_px: 512.0,
        height_px: 512.0,
        lit: None,
    });
    scene.tiles = vec![Tile {
        corners: [[0.0, 0.0], [10.0, 0.0], [10.0, 10.0], [0.0, 10.0]],
        uv: [0.0, 0.0, 512.0, 512.0],
        ..Tile::default()
    }];
    let art = ArtSet {
        pols: vec![PolArt {
            name: "a.pol".into(),
            texture: Some(1),
            lit: None,
            scale: [10.0, 10.0],
            layer_group: Default::default(),
            nowrap: false,
            no_alpha: true,
            missing: false,
            shading: Default::default(),
        }],
        tile_texture: Some(0),
        images: vec![image("tiles.png"), image("a.png")],
        ..ArtSet::default()
    };
    let o = ExportOptions {
        terrain_mesh: true,
        ..ExportOptions::default()
    };
    let b = built(&scene, &art, &Terrain::flat(1000.0), &o);
    assert_sound(&b.doc);
    let doc = &b.doc;
    let heights = |n: &Node| -> Vec<f32> {
        let m = &doc.meshes[n.mesh.unwrap()];
        m.primitives
            .iter()
            .flat_map(|p| p.positions.iter().map(|v| v[1]))
            .collect()
    };
    let tiles = layer(doc, "tiles");
    assert_eq!(tiles[0].name, "tiles block.agb");
    let ground = layer(doc, "ground");
    assert_eq!(ground[0].name, "polygon a.png");
    let terrain = layer(doc, "terrain");
    assert!(heights(terrain[0]).iter().all(|&h| h == 0.0));
    let (t, p) = (heights(tiles[0]), heights(ground[0]));
    assert!(t.iter().all(|&h| h == t[0]) && p.iter().all(|&h| h == p[0]));
    assert!(t[0] >= GROUND_LIFT_M && p[0] >= GROUND_LIFT_M);
    assert!(t[0] != p[0], "each layer its own lift");
    assert!([t[0], p[0]]
        .iter()
        .all(|h| (0..4).any(|r| (h - lift(r)).abs() < 1e-6)));
    // Tiles blend; `NO_ALPHA` polygons are opaque; the ground is seen from both sides.
    let look = |name: &str| &b.looks.iter().find(|(l, _)| l.name == name).unwrap().0;
    assert_eq!(look("tiles.png").alpha, AlphaMode::Blend);
    assert_eq!(look("a.png").alpha, AlphaMode::Opaque);
    assert!(look("a.png").double_sided);
    // The terrain covers the framed rectangle, its ground texture (`terrain.wgsl`'s
    // grass and earth, baked) spread over it once.
    let tm = &doc.meshes[terrain[0].mesh.unwrap()].primitives[0];
    let tmat = &doc.materials[tm.material.unwrap()];
    let timg = &doc.images[tmat.base_color.unwrap().image];
    assert_eq!(
        (timg.name.as_str(), timg.mime, tmat.base_color_factor),
        ("terrain (base colour)", Mime::Png, [1.0; 4])
    );
    assert_eq!(tm.uvs.len(), tm.positions.len());
    let (ulo, uhi) = tm.uvs.iter().fold((f32::MAX, f32::MIN), |(lo, hi), uv| {
        (lo.min(uv[0]).min(uv[1]), hi.max(uv[0]).max(uv[1]))
    });
    assert!(ulo.abs() < 1e-6 && (uhi - 1.0).abs() < 1e-6, "{ulo} {uhi}");
    let xs: Vec<f32> = tm.positions.iter().map(|v| v[0]).collect();
    let (lo, hi) = (
        xs.iter().cloned().fold(f32::MAX, f32::min),
        xs.iter().cloned().fold(f32::MIN, f32::max),
    );
    assert!(lo <= -5.0 && hi >= 5.0, "{lo} {hi}");
    assert!(hi - lo < 100.0, "only under the framed content: {lo} {hi}");
}

#[test]
fn facades_stand_on_the_ground_with_their_neutral_colours() {
    let scene = Scene {
        facades: vec![FacadeInstance {
            facade: None,
            footprint: vec![[0.0, 0.0], [10.0, 0.0], [10.0, 10.0], [0.0, 10.0]],
            height: 6.0,
            ..FacadeInstance::default()
        }],
        ..Scene::default()
    };
    let b = built(
        &scene,
        &ArtSet::default(),
        &Terrain::flat(1000.0),
        &ExportOptions::default(),
    );
    assert_sound(&b.doc);
    let f = layer(&b.doc, "facades");
    assert_eq!(f[0].name, "facades without a definition");
    let m = &b.doc.meshes[f[0].mesh.unwrap()];
    let ys: Vec<f32> = m.primitives[0].positions.iter().map(|v| v[1]).collect();
    let top = ys.iter().cloned().fold(f32::MIN, f32::max);
    assert!((top - 6.0).abs() < 1e-4, "{top}");
    // Walls face out: each triangle's winding agrees with its normal.
    let p = &m.primitives[0];
    for t in p.indices.chunks(3) {
        let [a, c, d] = [0, 1, 2].map(|k| Vec3::from(p.positions[t[k] as usize]));
        let face = (c - a).cross(d - a);
        if face.length() > 1e-6 {
            assert!(face.dot(Vec3::from(p.normals[t[0] as usize])) > 0.0);
        }
    }
    let wall = b.doc.materials[p.material.unwrap()].base_color_factor;
    assert_eq!(
        wall[..3],
        agview_mesh::facades::plain_tints(agview_mesh::facades::FacadeKey::Neutral)
            .unwrap()
            .0
    );
}

#[test]
fn a_repeating_facade_is_cut_at_each_bay_and_floor_into_its_rectangle() {
    let scene = Scene {
        facade_defs: vec![reference("block.fac")],
        facades: vec![FacadeInstance {
            facade: Some(0),
            footprint: vec![[0.0, 0.0], [10.0, 0.0], [10.0, 10.0], [0.0, 10.0]],
            height: 6.0,
            ..FacadeInstance::default()
        }],
        ..Scene::default()
    };
    let art = ArtSet {
        facades: vec![agview_load::art::FacadeArt {
            name: "block.fac".into(),
            texture: Some(0),
            wall_uv: [0.0, 0.0, 0.5, 0.5],
            roof_uv: [0.5, 0.5, 1.0, 1.0],
            bay_width: 5.0,
            floor_height: 3.0,
            ..Default::default()
        }],
        images: vec![image("block.png")],
        ..ArtSet::default()
    };
    let b = built(
        &scene,
        &art,
        &Terrain::flat(1000.0),
        &ExportOptions::default(),
    );
    assert_sound(&b.doc);
    let f = layer(&b.doc, "facades");
    assert_eq!(f[0].name, "facade 0 block.fac");
    let m = &b.doc.meshes[f[0].mesh.unwrap()];
    let walls = &m.primitives[0];
    // Every piece inside the wall rectangle (v = 1 − t: 0.5..1).
    let inside =
        |uv: &[f32; 2]| (-1e-4..=0.5001).contains(&uv[0]) && (0.4999..=1.0001).contains(&uv[1]);
    assert!(walls.uvs.iter().all(inside), "{:?}", walls.uvs);
    // Four walls of two bays and two floors at least (the sunk feet add a strip).
    assert!(
        walls.indices.len() / 3 >= 4 * 2 * 2 * 2,
        "{}",
        walls.indices.len() / 3
    );
    // A piece spans no more than one bay across.
    for t in walls.uvs.chunks(3) {
        let us = t.iter().map(|uv| uv[0]);
        let (lo, hi) = us.fold((f32::MAX, f32::MIN), |(a, c), u| (a.min(u), c.max(u)));
        assert!(hi - lo <= 0.5001);
    }
}

#[test]
fn trees_share_a_mesh_per_picture_scaled_to_each_tree() {
    let tree_art = TreeArt {
        layer: 0,
        uv: [0.0, 0.0, 0.5, 1.0],
        width: 4.0,
        height: 8.0,
        offset: 0.5,
        quads: 2,
        percent: 100.0,
    };
    let tree = |x: f32, height: f32| TreeInstance {
        pos: [x, 0.0],
        heading: 45.0,
        height,
        ..TreeInstance::default()
    };
    let scene = Scene {
        forest: Some(reference("pines.for")),
        trees: vec![tree(0.0, 8.0), tree(5.0, 12.0), tree(900.0, 8.0)],
        ..Scene::default()
    };
    let art = ArtSet {
        forest: Some(ForestArt {
            name: "pines.for".into(),
            texture: Some(0),
            trees: vec![tree_art],
            ..ForestArt::default()
        }),
        images: vec![image("pines.png")],
        ..ArtSet::default()
    };
    for instancing in [Instancing::Extension, Instancing::Nodes] {
        let b = built(&scene, &art, &Terrain::flat(2000.0), &opts(instancing));
        assert_sound(&b.doc);
        assert_eq!(b.doc.meshes.len(), 1, "one picture, one mesh");
        let p = &b.doc.meshes[0].primitives[0];
        assert_eq!(p.positions.len(), 4 * 3, "two crossed quads and the crown");
        let forests = layer(&b.doc, "forests");
        let scales: Vec<[f32; 3]> = match instancing {
            Instancing::Extension => {
                assert_eq!(forests.len(), 2, "two cells");
                forests
                    .iter()
                    .flat_map(|n| n.instances.as_ref().unwrap().scale.clone())
                    .collect()
            }
            Instancing::Nodes => {
                assert_eq!(forests.len(), 3);
                assert!(forests[0].name.starts_with("tree 0 pines.for"));
                forests.iter().map(|n| n.scale).collect()
            }
        };
        assert!(scales.contains(&[6.0, 12.0, 6.0]), "{scales:?}");
        let look = &b.looks[0].0;
        assert_eq!(
            look.alpha,
            AlphaMode::Mask(agview_mesh::trees::ALPHA_CUTOFF)
        );
        assert!(look.double_sided);
    }
}

#[test]
fn an_empty_scene_is_an_empty_document() {
    let (doc, warnings) = export(
        &Scene::default(),
        &ArtSet::default(),
        &Terrain::flat(100.0),
        &ExportOptions::default(),
    );
    assert!(doc.roots.is_empty() && doc.meshes.is_empty());
    assert!(warnings.is_empty());
}
