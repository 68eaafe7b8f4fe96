//! The writer's features, read back with the `gltf` crate (an independent reader).

use super::*;
use crate::document::{Image, Instances, Mesh, Node, PbrMaterial, PointLight, Primitive};

/// A unit quad (two triangles) with normals and UVs.
fn quad(material: Option<usize>) -> Primitive {
    Primitive {
        positions: vec![
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [1.0, 0.0, -1.0],
            [0.0, 0.0, -1.0],
        ],
        normals: vec![[0.0, 2.0, 0.0]; 4],
        uvs: vec![[0.0, 1.0], [1.0, 1.0], [1.0, 0.0], [0.0, 0.0]],
        indices: vec![0, 1, 2, 0, 2, 3],
        material,
    }
}

fn png(w: u32, h: u32, rgba: [u8; 4]) -> Vec<u8> {
    let img = image::RgbaImage::from_pixel(w, h, image::Rgba(rgba));
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Png).unwrap();
    out.into_inner()
}

fn jpeg(w: u32, h: u32) -> Vec<u8> {
    let img = image::RgbImage::from_pixel(w, h, image::Rgb([200, 100, 50]));
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Jpeg).unwrap();
    out.into_inner()
}

/// A small scene with every feature: two meshes (one empty), a material with textures, an
/// instanced node, a plain node, a light, extras.
fn sample() -> Document {
    Document {
        meshes: vec![
            Mesh {
                name: "hangar".into(),
                primitives: vec![quad(Some(0)), Primitive::default()],
            },
            Mesh {
                name: "nothing".into(),
                primitives: vec![Primitive::default()],
            },
        ],
        materials: vec![PbrMaterial {
            name: "hangar.png".into(),
            base_color: Some(TextureUse { image: 0 }),
            normal: Some(TextureUse { image: 1 }),
            emissive: Some(TextureUse { image: 0 }),
            emissive_factor: [1.0; 3],
            emissive_strength: Some(2.0),
            alpha: AlphaMode::Mask(0.25),
            double_sided: true,
            ..PbrMaterial::default()
        }],
        images: vec![
            Image {
                name: "hangar.png".into(),
                mime: Mime::Jpeg,
                bytes: jpeg(4, 4),
            },
            Image {
                name: "hangar_nml.png".into(),
                mime: Mime::Png,
                bytes: png(2, 2, [128, 128, 255, 255]),
            },
        ],
        nodes: vec![
            Node {
                name: "objects".into(),
                children: vec![1, 2, 3],
                ..Node::default()
            },
            Node {
                name: "hangar ×2".into(),
                mesh: Some(0),
                instances: Some(Instances {
                    translation: vec![[0.0; 3], [10.0, 0.0, 0.0]],
                    rotation: vec![[0.0, 0.0, 0.0, 1.0], [0.0, 2.0, 0.0, 0.0]],
                    scale: vec![[1.0; 3]; 2],
                }),
                extras: Some(serde_json::json!({"feature": 3})),
                ..Node::default()
            },
            Node {
                name: "empty mesh".into(),
                mesh: Some(1),
                translation: [1.0, 2.0, 3.0],
                ..Node::default()
            },
            Node {
                name: "light".into(),
                light: Some(0),
                ..Node::default()
            },
        ],
        roots: vec![0],
        lights: vec![PointLight {
            name: "beacon".into(),
            color: [1.0, 0.5, 0.0],
            intensity: 250.0,
            range: None,
        }],
        extras: serde_json::json!({"origin": [-122.5, 37.5], "agview": "test"}),
    }
}

/// The JSON chunk of a `.glb`, after checking its container.
fn glb_json(glb: &[u8]) -> Value {
    assert_eq!(&glb[0..4], b"glTF");
    assert_eq!(u32::from_le_bytes(glb[4..8].try_into().unwrap()), 2);
    assert_eq!(
        u32::from_le_bytes(glb[8..12].try_into().unwrap()) as usize,
        glb.len()
    );
    let json_len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    assert_eq!(json_len % 4, 0);
    assert_eq!(&glb[16..20], b"JSON");
    let json = &glb[20..20 + json_len];
    let bin = &glb[20 + json_len..];
    if !bin.is_empty() {
        let bin_len = u32::from_le_bytes(bin[0..4].try_into().unwrap()) as usize;
        assert_eq!(&bin[4..8], b"BIN\0");
        assert_eq!(bin_len % 4, 0);
        assert_eq!(bin.len(), 8 + bin_len);
    }
    serde_json::from_slice(json).unwrap()
}

#[test]
fn glb_round_trips_through_the_gltf_crate() {
    let doc = sample();
    let glb = to_glb(&doc).unwrap();
    let json = glb_json(&glb);
    assert_eq!(json["asset"]["version"], "2.0");
    assert!(json["asset"]["generator"]
        .as_str()
        .unwrap()
        .starts_with("agview "));
    assert_eq!(json["asset"]["extras"]["origin"][0], -122.5);
    assert_eq!(json["scenes"][0]["extras"]["agview"], "test");
    // Every view starts on a 4-byte boundary; instancing views have neither stride nor
    // target.
    for v in json["bufferViews"].as_array().unwrap() {
        assert_eq!(v["byteOffset"].as_u64().unwrap() % 4, 0);
        assert!(v.get("byteStride").is_none());
    }
    let used: Vec<&str> = json["extensionsUsed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(
        used,
        [EXT_INSTANCING, KHR_LIGHTS, KHR_EMISSIVE_STRENGTH]
            .iter()
            .copied()
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect::<Vec<_>>()
    );
    assert!(json.get("extensionsRequired").is_none());
    assert_eq!(
        json["materials"][0]["extensions"][KHR_EMISSIVE_STRENGTH]["emissiveStrength"],
        2.0
    );
    assert_eq!(json["materials"][0]["alphaCutoff"], 0.25);

    let (gdoc, buffers, images) = gltf::import_slice(&glb).unwrap();
    // The empty mesh is left out, and its node keeps no mesh.
    assert_eq!(gdoc.meshes().count(), 1);
    let mesh = gdoc.meshes().next().unwrap();
    assert_eq!(mesh.name(), Some("hangar"));
    assert_eq!(mesh.primitives().count(), 1);
    let prim = mesh.primitives().next().unwrap();
    let reader = prim.reader(|b| Some(&buffers[b.index()]));
    let positions: Vec<[f32; 3]> = reader.read_positions().unwrap().collect();
    assert_eq!(positions, quad(None).positions);
    let normals: Vec<[f32; 3]> = reader.read_normals().unwrap().collect();
    assert_eq!(normals, vec![[0.0, 1.0, 0.0]; 4], "normals are normalised");
    let uvs: Vec<[f32; 2]> = reader.read_tex_coords(0).unwrap().into_f32().collect();
    assert_eq!(uvs, quad(None).uvs);
    // Normal-mapped: tangents along +u, with the bitangent up the image (-v = -z here).
    let tangents: Vec<[f32; 4]> = reader.read_tangents().unwrap().collect();
    assert_eq!(tangents, vec![[1.0, 0.0, 0.0, 1.0]; 4]);
    let indices: Vec<u32> = reader.read_indices().unwrap().into_u32().collect();
    assert_eq!(indices, quad(None).indices);
    let acc = prim.indices().unwrap();
    assert_eq!(acc.data_type(), gltf::accessor::DataType::U16);
    let pos = prim.get(&gltf::Semantic::Positions).unwrap();
    assert_eq!(pos.min().unwrap(), serde_json::json!([0.0, 0.0, -1.0]));
    assert_eq!(pos.max().unwrap(), serde_json::json!([1.0, 0.0, 0.0]));

    let names: Vec<_> = gdoc
        .nodes()
        .map(|n| n.name().unwrap().to_string())
        .collect();
    assert_eq!(names, ["objects", "hangar ×2", "empty mesh", "light"]);
    let nodes: Vec<_> = gdoc.nodes().collect();
    assert_eq!(nodes[0].children().count(), 3);
    assert!(nodes[2].mesh().is_none());
    assert_eq!(
        nodes[2].transform().decomposed().0,
        [1.0, 2.0, 3.0],
        "translation kept"
    );
    let ext = nodes[1].extensions().unwrap();
    let attrs = &ext[EXT_INSTANCING]["attributes"];
    let rot = gdoc
        .accessors()
        .nth(attrs["ROTATION"].as_u64().unwrap() as usize)
        .unwrap();
    assert_eq!(rot.count(), 2);
    assert!(rot.view().unwrap().target().is_none());
    assert_eq!(
        nodes[1].extras().as_ref().unwrap().get(),
        r#"{"feature":3}"#
    );
    let light = nodes[3].light().unwrap();
    assert_eq!(light.name(), Some("beacon"));
    assert_eq!(light.intensity(), 250.0);
    assert!(matches!(
        light.kind(),
        gltf::khr_lights_punctual::Kind::Point
    ));

    let mat = gdoc.materials().next().unwrap();
    assert_eq!(mat.name(), Some("hangar.png"));
    assert!(mat.double_sided());
    assert_eq!(mat.alpha_mode(), gltf::material::AlphaMode::Mask);
    assert_eq!(mat.emissive_factor(), [1.0; 3]);
    let base = mat.pbr_metallic_roughness().base_color_texture().unwrap();
    assert_eq!(base.texture().source().index(), 0);
    assert_eq!(mat.normal_texture().unwrap().texture().source().index(), 1);
    let sampler = base.texture().sampler();
    assert_eq!(
        sampler.min_filter(),
        Some(gltf::texture::MinFilter::LinearMipmapLinear)
    );
    assert_eq!(sampler.wrap_s(), gltf::texture::WrappingMode::Repeat);
    // Both images decode, the JPEG too.
    assert_eq!(images.len(), 2);
    assert_eq!((images[0].width, images[0].height), (4, 4));
    assert_eq!((images[1].width, images[1].height), (2, 2));
    let mimes: Vec<_> = gdoc
        .images()
        .map(|i| match i.source() {
            gltf::image::Source::View { mime_type, .. } => mime_type.to_string(),
            gltf::image::Source::Uri { .. } => panic!("a .glb embeds its images"),
        })
        .collect();
    assert_eq!(mimes, ["image/jpeg", "image/png"]);
}

#[test]
fn extensions_are_listed_only_when_used() {
    let mut doc = sample();
    doc.lights.clear();
    doc.nodes[3].light = None;
    doc.nodes[1].instances = None;
    doc.materials[0].emissive_strength = None;
    let json = glb_json(&to_glb(&doc).unwrap());
    assert!(json.get("extensionsUsed").is_none());
    assert!(json.get("extensions").is_none());
    // An instanced node with no instance keeps no mesh (an accessor of count 0 is invalid).
    let mut doc = sample();
    doc.nodes[1].instances = Some(Instances::default());
    let json = glb_json(&to_glb(&doc).unwrap());
    assert!(json["nodes"][1].get("mesh").is_none());
    assert!(!json["extensionsUsed"]
        .as_array()
        .unwrap()
        .contains(&serde_json::json!(EXT_INSTANCING)));
}

#[test]
fn large_meshes_use_32_bit_indices_and_bad_triangles_are_dropped() {
    let n = 70_000u32;
    let positions: Vec<[f32; 3]> = (0..n).map(|i| [i as f32, 0.0, 0.0]).collect();
    let mut indices: Vec<u32> = (0..n - 2).flat_map(|i| [i, i + 1, i + 2]).collect();
    // A triangle naming a vertex that does not exist, and a stray index.
    indices.extend_from_slice(&[0, 1, n + 5, 7]);
    let doc = Document {
        meshes: vec![Mesh {
            name: "strip".into(),
            primitives: vec![Primitive {
                positions,
                normals: vec![[0.0, 1.0, 0.0]; 3], // not as long: left out
                indices,
                ..Primitive::default()
            }],
        }],
        nodes: vec![Node {
            mesh: Some(0),
            ..Node::default()
        }],
        roots: vec![0],
        ..Document::default()
    };
    let glb = to_glb(&doc).unwrap();
    let (gdoc, buffers, _) = gltf::import_slice(&glb).unwrap();
    let prim = gdoc.meshes().next().unwrap().primitives().next().unwrap();
    assert_eq!(
        prim.indices().unwrap().data_type(),
        gltf::accessor::DataType::U32
    );
    assert!(prim.get(&gltf::Semantic::Normals).is_none());
    let reader = prim.reader(|b| Some(&buffers[b.index()]));
    let read: Vec<u32> = reader.read_indices().unwrap().into_u32().collect();
    assert_eq!(read.len(), (n as usize - 2) * 3);
    assert!(read.iter().all(|&i| i < n));
}

#[test]
fn a_document_with_nothing_is_still_a_valid_glb() {
    let glb = to_glb(&Document::default()).unwrap();
    let json = glb_json(&glb);
    assert!(json.get("buffers").is_none());
    assert_eq!(json["scenes"][0]["nodes"], serde_json::json!([]));
    gltf::Gltf::from_slice(&glb).unwrap();
    // The JSON chunk is padded with spaces.
    let json_len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    let chunk = &glb[20..20 + json_len];
    let end = chunk.iter().rposition(|&b| b == b'}').unwrap();
    assert!(chunk[end + 1..].iter().all(|&b| b == b' '));
}

#[test]
fn too_large_is_said_before_anything_is_built() {
    // 200 million vertices with normals and UVs, 600 million indices: about 8 GiB.
    let bin = primitive_bytes(200_000_000, true, true, 600_000_000);
    assert!(bin > MAX_BYTES);
    assert!(matches!(
        check_size(bin, glb_bytes(1000, bin)),
        Err(ExportError::TooLarge { bytes }) if bytes > MAX_BYTES
    ));
    // Just under the limit in the buffer, but the container's headers pass it.
    let bin = MAX_BYTES - 8;
    assert!(check_size(bin, 0).is_ok());
    assert!(check_size(bin, glb_bytes(100, bin)).is_err());
    // Instances count too.
    assert!(check_size(instance_bytes(200_000_000), 0).is_err());
    assert!(check_size(instance_bytes(1_000_000), 0).is_ok());
    // The estimate of a real document bounds what is written.
    let doc = sample();
    let glb = to_glb(&doc).unwrap();
    let bin_len =
        glb.len() as u64 - 28 - u32::from_le_bytes(glb[12..16].try_into().unwrap()) as u64;
    assert!(estimate_bin(&doc, true) >= bin_len);
    let msg = ExportError::TooLarge { bytes: 5 << 30 }.to_string();
    assert!(msg.contains("5.00 GiB"), "{msg}");
}

/// A fresh folder under the system's temporary folder.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("agview-export-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn gltf_output_writes_its_bin_and_images_beside_it() {
    let dir = scratch("gltf");
    let mut doc = sample();
    doc.images[1].name = "a name with spaces".into();
    let out = dir.join("my scene.gltf");
    write_file(&doc, &out).unwrap();
    assert_eq!(
        listing(&dir),
        [
            "my scene.bin",
            "my scene.gltf",
            "my scene_0.jpg",
            "my scene_1.png"
        ]
    );
    let json: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(json["buffers"][0]["uri"], "my%20scene.bin");
    assert_eq!(json["images"][0]["uri"], "my%20scene_0.jpg");
    let (gdoc, buffers, images) = gltf::import(&out).unwrap();
    assert_eq!(gdoc.meshes().count(), 1);
    assert_eq!(buffers.len(), 1);
    assert_eq!(images.len(), 2);
    assert_eq!((images[1].width, images[1].height), (2, 2));

    // A .glb beside it, and a rewrite of the same outputs.
    write_file(&doc, &dir.join("my scene.glb")).unwrap();
    write_file(&doc, &out).unwrap();
    assert_eq!(listing(&dir).len(), 5);
    let glb = std::fs::read(dir.join("my scene.glb")).unwrap();
    assert_eq!(glb, to_glb(&doc).unwrap());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn failed_writes_leave_nothing() {
    let dir = scratch("fail");
    let doc = sample();
    // The parent is a file.
    std::fs::write(dir.join("file"), b"x").unwrap();
    let err = write_file(&doc, &dir.join("file").join("out.glb")).unwrap_err();
    let ExportError::Io { path, .. } = &err else {
        panic!("{err:?}")
    };
    assert!(path.ends_with("file/out.glb"), "{}", path.display());
    assert!(
        err.to_string().contains("cannot write into the folder"),
        "{err}"
    );
    // A missing folder.
    let err = write_file(&doc, &dir.join("missing").join("out.gltf")).unwrap_err();
    assert!(matches!(err, ExportError::Io { .. }), "{err:?}");
    // The output is a folder: the rename fails after the temporary folder was written.
    std::fs::create_dir(dir.join("taken.glb")).unwrap();
    let err = write_file(&doc, &dir.join("taken.glb")).unwrap_err();
    assert!(matches!(err, ExportError::Io { .. }), "{err:?}");
    // A .gltf whose last file cannot be moved: the ones moved before it go too.
    std::fs::create_dir(dir.join("scene.gltf")).unwrap();
    std::fs::write(dir.join("scene.gltf").join("keep"), b"x").unwrap();
    let err = write_file(&doc, &dir.join("scene.gltf")).unwrap_err();
    assert!(matches!(err, ExportError::Io { .. }), "{err:?}");
    assert_eq!(listing(&dir), ["file", "scene.gltf", "taken.glb"]);
    // Not .glb or .gltf.
    let err = write_file(&doc, &dir.join("out.obj")).unwrap_err();
    assert!(matches!(err, ExportError::Extension { .. }), "{err:?}");
    let err = write_file(&doc, &dir.join("glb")).unwrap_err();
    assert!(matches!(err, ExportError::Extension { .. }), "{err:?}");
    assert_eq!(listing(&dir), ["file", "scene.gltf", "taken.glb"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn uris_escape_what_is_not_unreserved() {
    assert_eq!(uri_escape("a b#c%é.png"), "a%20b%23c%25%C3%A9.png");
    assert_eq!(uri_escape("x_1-2~.bin"), "x_1-2~.bin");
}

/// Writes the sample as `.glb` and `.gltf` into `$AGVIEW_EXPORT_SAMPLES`, for checking by
/// hand with the Khronos glTF Validator (`docs/export.md`).
#[test]
#[ignore = "writes files for the validator, run by hand"]
fn write_samples_for_the_validator() {
    let Some(dir) = std::env::var_os("AGVIEW_EXPORT_SAMPLES") else {
        return;
    };
    let dir = PathBuf::from(dir);
    let doc = sample();
    write_file(&doc, &dir.join("sample.glb")).unwrap();
    write_file(&doc, &dir.join("sample.gltf")).unwrap();
}
