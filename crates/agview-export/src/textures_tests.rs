//! Materials and their images on tiny synthetic art, read back as a decoder would.

use super::*;
use agview_format::material::Blend;
use agview_load::art::BcFormat;

fn rgba(name: &str, w: u32, h: u32, f: impl Fn(u32, u32) -> [u8; 4]) -> ImageData {
    let mut px = Vec::new();
    for y in 0..h {
        for x in 0..w {
            px.extend_from_slice(&f(x, y));
        }
    }
    ImageData {
        name: name.into(),
        width: w,
        height: h,
        pixels: ImagePixels::Rgba8(vec![px]),
        missing: false,
    }
}

fn decoded(doc: &Document, t: Option<TextureUse>) -> image::RgbaImage {
    let img = &doc.images[t.expect("a texture").image];
    image::load_from_memory(&img.bytes).unwrap().to_rgba8()
}

/// A look's material as an export makes it: reserved, then built with its images.
fn material(
    mats: &mut Materials,
    doc: &mut Document,
    art: &ArtSet,
    look: &Look,
    opts: &ExportOptions,
) -> usize {
    let m = mats.get(doc, look);
    mats.finish(doc, art, opts);
    m
}

fn look(name: &str) -> Look {
    Look {
        name: name.into(),
        albedo: None,
        lit: None,
        normal: None,
        map: None,
        shading: Material::default(),
        alpha: AlphaMode::Opaque,
        double_sided: false,
        missing: false,
        tint: [1.0; 3],
    }
}

/// 0 albedo (2×2, opaque), 1 normal map (X, Y, metal, gloss), 2 material map
/// (metal, gloss), 3 lit, 4 a cut-out albedo (one texel transparent).
fn art() -> ArtSet {
    ArtSet {
        images: vec![
            rgba("albedo", 2, 2, |x, y| [10 * x as u8, 20 * y as u8, 30, 255]),
            rgba("normal", 2, 2, |x, _| {
                if x == 0 {
                    [128, 128, 200, 40]
                } else {
                    [255, 128, 0, 255]
                }
            }),
            rgba("map", 2, 2, |_, y| {
                if y == 0 {
                    [200, 64, 0, 255]
                } else {
                    [0, 255, 0, 255]
                }
            }),
            rgba("lit", 2, 2, |_, _| [255, 200, 100, 0]),
            rgba("cutout", 2, 2, |x, y| {
                [90, 90, 90, if x + y == 0 { 0 } else { 255 }]
            }),
        ],
        ..ArtSet::default()
    }
}

#[test]
fn base_colour_is_png_or_jpeg_for_opaque_and_white_without_one() {
    let (art, opts) = (art(), ExportOptions::default());
    let (mut doc, mut mats) = (Document::default(), Materials::default());
    let mut l = look("a.png");
    l.albedo = Some(0);
    let m = material(&mut mats, &mut doc, &art, &l, &opts);
    let mat = &doc.materials[m];
    assert_eq!(mat.name, "a.png");
    assert_eq!(doc.images[0].mime, Mime::Png);
    assert_eq!(doc.images[0].name, "a.png (base colour)");
    let img = decoded(&doc, mat.base_color);
    assert_eq!(img.get_pixel(1, 1).0, [10, 20, 30, 255]);
    // JPEG for opaque when asked, PNG still for blended.
    let opts = ExportOptions {
        jpeg_quality: Some(90),
        ..ExportOptions::default()
    };
    let j = material(
        &mut mats,
        &mut doc,
        &art,
        &look_with(&l, AlphaMode::Opaque, "b"),
        &opts,
    );
    assert_eq!(
        doc.images[doc.materials[j].base_color.unwrap().image].mime,
        Mime::Jpeg
    );
    decoded(&doc, doc.materials[j].base_color);
    // Blended or cut out with no transparent texel: opaque, so a JPEG too.
    for alpha in [AlphaMode::Blend, AlphaMode::Mask(0.5)] {
        let o = material(&mut mats, &mut doc, &art, &look_with(&l, alpha, "d"), &opts);
        assert_eq!(doc.materials[o].alpha, AlphaMode::Opaque);
        let image = doc.materials[o].base_color.unwrap().image;
        assert_eq!(doc.images[image].mime, Mime::Jpeg);
    }
    // A transparent texel keeps the blend, and the PNG.
    let mut cut = l.clone();
    cut.albedo = Some(4);
    let b = material(
        &mut mats,
        &mut doc,
        &art,
        &look_with(&cut, AlphaMode::Blend, "c"),
        &opts,
    );
    let bm = &doc.materials[b];
    assert_eq!(doc.images[bm.base_color.unwrap().image].mime, Mime::Png);
    assert_eq!(bm.alpha, AlphaMode::Blend);
    // No albedo: white, no texture.
    let w = material(&mut mats, &mut doc, &art, &look("plain"), &opts);
    assert_eq!(doc.materials[w].base_color_factor, [1.0; 4]);
    assert!(doc.materials[w].base_color.is_none());
    assert!(mats.take_warnings().is_empty());
}

/// "full": albedo `albedo`, the normal map, the material map (metal, gloss) and the lit
/// texture of [`art`], shining at 3,000 nits.
fn every_slot(albedo: usize) -> Look {
    let mut l = look("full");
    l.albedo = Some(albedo);
    l.normal = Some(1);
    l.map = Some(2);
    l.lit = Some(3);
    l.shading = Material {
        model: Model::Xp12Pbr,
        normal_map: true,
        metalness: Value::Channel(Source::Map, 0),
        gloss: Value::Channel(Source::Map, 1),
        luminance: 3000.0,
        ..Material::default()
    };
    l
}

fn look_with(l: &Look, alpha: AlphaMode, name: &str) -> Look {
    Look {
        name: name.into(),
        alpha,
        ..l.clone()
    }
}

#[test]
fn looks_and_images_are_written_once() {
    let (art, opts) = (art(), ExportOptions::default());
    let (mut doc, mut mats) = (Document::default(), Materials::default());
    let mut a = look("a");
    a.albedo = Some(0);
    let first = material(&mut mats, &mut doc, &art, &a, &opts);
    assert_eq!(material(&mut mats, &mut doc, &art, &a, &opts), first);
    let mut b = a.clone();
    b.double_sided = true;
    let second = material(&mut mats, &mut doc, &art, &b, &opts);
    assert_ne!(first, second);
    assert_eq!(doc.materials.len(), 2);
    assert_eq!(doc.images.len(), 1, "one albedo, shared");
    assert!(doc.materials[second].double_sided);
}

#[test]
fn normal_maps_keep_x_y_and_rebuild_z() {
    let (art, opts) = (art(), ExportOptions::default());
    let (mut doc, mut mats) = (Document::default(), Materials::default());
    let mut l = look("n");
    l.normal = Some(1);
    l.shading = Material {
        normal_map: true,
        bump: 0.5,
        ..Material::default()
    };
    let m = material(&mut mats, &mut doc, &art, &l, &opts);
    let mat = &doc.materials[m];
    assert_eq!(mat.normal_scale, 0.5);
    let img = decoded(&doc, mat.normal);
    // Flat: z = 1 → 255; tilted all the way along x: z = 0 → 128.
    assert_eq!(img.get_pixel(0, 0).0, [128, 128, 255, 255]);
    assert_eq!(img.get_pixel(1, 0).0, [255, 128, 128, 255]);
    // A normal map the material does not use is not written.
    let mut unused = l.clone();
    unused.name = "unused".into();
    unused.shading.normal_map = false;
    let u = material(&mut mats, &mut doc, &art, &unused, &opts);
    assert!(doc.materials[u].normal.is_none());
}

#[test]
fn metal_and_roughness_are_repacked_into_green_and_blue() {
    let (art, opts) = (art(), ExportOptions::default());
    let (mut doc, mut mats) = (Document::default(), Materials::default());
    // TEXTURE_MAP material_gloss: red metal, green gloss.
    let mut l = look("mg");
    l.normal = Some(1);
    l.map = Some(2);
    l.shading = Material {
        model: Model::Xp12Pbr,
        normal_map: true,
        metalness: Value::Channel(Source::Map, 0),
        gloss: Value::Channel(Source::Map, 1),
        ..Material::default()
    };
    let m = material(&mut mats, &mut doc, &art, &l, &opts);
    let mat = doc.materials[m].clone();
    assert_eq!((mat.metallic_factor, mat.roughness_factor), (1.0, 1.0));
    let img = decoded(&doc, mat.metallic_roughness);
    assert_eq!(img.get_pixel(0, 0).0, [0, 255 - 64, 200, 255]);
    assert_eq!(img.get_pixel(1, 1).0, [0, 0, 0, 255]);
    // NORMAL_METALNESS: the normal map's blue is metal, alpha gloss.
    let mut n = look("nm");
    n.normal = Some(1);
    n.shading = Material {
        model: Model::Xp12Pbr,
        normal_map: true,
        metalness: Value::Channel(Source::Normal, 2),
        gloss: Value::Channel(Source::Normal, 3),
        ..Material::default()
    };
    let m = material(&mut mats, &mut doc, &art, &n, &opts);
    let img = decoded(&doc, doc.materials[m].metallic_roughness);
    assert_eq!(img.get_pixel(0, 0).0, [0, 255 - 40, 200, 255]);
    assert_eq!(img.get_pixel(1, 0).0, [0, 0, 0, 255]);
    // A gloss map with a constant metal.
    let mut g = look("g");
    g.map = Some(2);
    g.shading = Material {
        model: Model::Xp12Pbr,
        metalness: Value::Const(1.0),
        gloss: Value::Channel(Source::Map, 0),
        ..Material::default()
    };
    let m = material(&mut mats, &mut doc, &art, &g, &opts);
    let img = decoded(&doc, doc.materials[m].metallic_roughness);
    assert_eq!(img.get_pixel(0, 0).0, [0, 55, 255, 255]);
    // Constants only: factors, no image.
    let mut c = look("c");
    c.shading = Material {
        model: Model::Xp12Pbr,
        metalness: Value::Const(0.25),
        gloss: Value::Const(0.75),
        ..Material::default()
    };
    let m = material(&mut mats, &mut doc, &art, &c, &opts);
    let cm = &doc.materials[m];
    assert!(cm.metallic_roughness.is_none());
    assert_eq!((cm.metallic_factor, cm.roughness_factor), (0.25, 0.25));
    // Legacy: metal 0, fully rough, even with a normal map whose alpha is specular.
    let mut lg = look("legacy");
    lg.normal = Some(1);
    lg.shading = Material {
        normal_map: true,
        specular_level: Value::Channel(Source::Normal, 3),
        specular_scale: 1.0,
        ..Material::default()
    };
    let m = material(&mut mats, &mut doc, &art, &lg, &opts);
    let lm = &doc.materials[m];
    assert!(lm.metallic_roughness.is_none());
    assert_eq!((lm.metallic_factor, lm.roughness_factor), (0.0, 1.0));
    assert!(lm.normal.is_some());
}

#[test]
fn lit_textures_are_emissive_at_their_luminance() {
    let (art, opts) = (art(), ExportOptions::default());
    let (mut doc, mut mats) = (Document::default(), Materials::default());
    let mut l = look("lit");
    l.lit = Some(3);
    l.shading = Material {
        luminance: 2000.0,
        ..Material::default()
    };
    let m = material(&mut mats, &mut doc, &art, &l, &opts);
    let mat = doc.materials[m].clone();
    assert_eq!(mat.emissive_factor, [1.0; 3]);
    assert_eq!(mat.emissive_strength, Some(2.0));
    assert_eq!(
        decoded(&doc, mat.emissive).get_pixel(0, 0).0,
        [255, 200, 100, 255]
    );
    l.shading.luminance = 500.0;
    let m = material(&mut mats, &mut doc, &art, &l, &opts);
    assert_eq!(doc.materials[m].emissive_factor, [0.5; 3]);
    assert_eq!(doc.materials[m].emissive_strength, None);
    assert_eq!(doc.images.len(), 1, "the lit image is shared");
}

#[test]
fn missing_art_is_the_warning_colour() {
    let (art, opts) = (art(), ExportOptions::default());
    let (mut doc, mut mats) = (Document::default(), Materials::default());
    let mut l = look("gone.png");
    l.albedo = Some(0);
    l.alpha = AlphaMode::Blend;
    l.missing = true;
    let m = material(&mut mats, &mut doc, &art, &l, &opts);
    let mat = &doc.materials[m];
    assert_eq!(mat.base_color_factor, WARNING_COLOR);
    assert!(mat.base_color.is_none());
    assert_eq!(mat.alpha, AlphaMode::Opaque);
    assert!(doc.images.is_empty());
    // An image index that points nowhere leaves its slot out, with a warning.
    let mut bad = look("bad");
    bad.albedo = Some(99);
    let m = material(&mut mats, &mut doc, &art, &bad, &opts);
    assert!(doc.materials[m].base_color.is_none());
    let w = mats.take_warnings();
    assert_eq!(w.len(), 1);
    assert!(
        w[0].starts_with("bad: warning: its base colour texture"),
        "{w:?}"
    );
}

#[test]
fn textures_are_capped_by_mip_level_or_resized() {
    let opts = ExportOptions {
        max_texture_size: Some(4),
        ..ExportOptions::default()
    };
    let level = |w: u32, h: u32, v: u8| vec![v; (w * h * 4) as usize];
    let mipped = ImageData {
        name: "mipped".into(),
        width: 16,
        height: 8,
        pixels: ImagePixels::Rgba8(vec![
            level(16, 8, 10),
            level(8, 4, 20),
            level(4, 2, 30),
            level(2, 1, 40),
            level(1, 1, 50),
        ]),
        missing: false,
    };
    let single = rgba("single", 16, 8, |_, _| [90, 90, 90, 255]);
    // One red BC1 block (colour 0 red, every index 0), 4×4, no mips.
    let bc = ImageData {
        name: "bc".into(),
        width: 4,
        height: 4,
        pixels: ImagePixels::Bc(BcFormat::Bc1, vec![vec![0x00, 0xF8, 0, 0, 0, 0, 0, 0]]),
        missing: false,
    };
    let art = ArtSet {
        images: vec![mipped, single, bc],
        ..ArtSet::default()
    };
    let (mut doc, mut mats) = (Document::default(), Materials::default());
    for (i, name) in ["mipped", "single", "bc"].iter().enumerate() {
        let mut l = look(name);
        l.albedo = Some(i);
        l.alpha = AlphaMode::Blend;
        material(&mut mats, &mut doc, &art, &l, &opts);
    }
    let img = |i: usize| {
        image::load_from_memory(&doc.images[i].bytes)
            .unwrap()
            .to_rgba8()
    };
    let m = img(0);
    assert_eq!(m.dimensions(), (4, 2), "the level that fits");
    assert_eq!(m.get_pixel(0, 0).0, [30; 4]);
    let s = img(1);
    assert_eq!(s.dimensions(), (4, 2), "resized");
    assert_eq!(s.get_pixel(3, 1).0, [90, 90, 90, 255]);
    let b = img(2);
    assert_eq!(b.dimensions(), (4, 4));
    assert_eq!(b.get_pixel(2, 2).0, [255, 0, 0, 255]);
}

#[test]
fn materials_round_trip_through_a_glb() {
    let (art, opts) = (art(), ExportOptions::default());
    let (mut doc, mut mats) = (Document::default(), Materials::default());
    let mut l = every_slot(4);
    l.alpha = AlphaMode::Mask(0.5);
    l.double_sided = true;
    l.shading.blend = Blend::Normal;
    let m = material(&mut mats, &mut doc, &art, &l, &opts);
    let glb = crate::write::to_glb(&doc).unwrap();
    let (g, _, images) = gltf::import_slice(&glb).unwrap();
    assert_eq!(images.len(), 4);
    let mat = g.materials().nth(m).unwrap();
    assert_eq!(mat.name(), Some("full"));
    assert_eq!(mat.alpha_mode(), gltf::material::AlphaMode::Mask);
    assert_eq!(mat.alpha_cutoff(), Some(0.5));
    assert!(mat.double_sided());
    let pbr = mat.pbr_metallic_roughness();
    assert!(pbr.metallic_roughness_texture().is_some());
    assert!(pbr.base_color_texture().is_some());
    assert!(mat.normal_texture().is_some());
    assert!(mat.emissive_texture().is_some());
}

/// Writes a quad with every material slot into `$AGVIEW_EXPORT_SAMPLES/materials.glb`, for
/// checking by hand with the Khronos glTF Validator.
#[test]
#[ignore = "writes files for the validator, run by hand"]
fn write_material_sample_for_the_validator() {
    use crate::document::{Mesh, Node, Primitive};
    let Some(dir) = std::env::var_os("AGVIEW_EXPORT_SAMPLES") else {
        return;
    };
    let (art, mut opts) = (art(), ExportOptions::default());
    opts.jpeg_quality = Some(80);
    let (mut doc, mut mats) = (Document::default(), Materials::default());
    let l = every_slot(4);
    let mut missing = look("missing");
    missing.missing = true;
    for (i, l) in [l, missing].iter().enumerate() {
        let m = material(&mut mats, &mut doc, &art, l, &opts);
        doc.meshes.push(Mesh {
            name: l.name.clone(),
            primitives: vec![Primitive {
                positions: vec![
                    [0.0, 0.0, 0.0],
                    [1.0, 0.0, 0.0],
                    [1.0, 0.0, -1.0],
                    [0.0, 0.0, -1.0],
                ],
                normals: vec![[0.0, 1.0, 0.0]; 4],
                uvs: vec![[0.0, 1.0], [1.0, 1.0], [1.0, 0.0], [0.0, 0.0]],
                indices: vec![0, 1, 2, 0, 2, 3],
                material: Some(m),
            }],
        });
        doc.nodes.push(Node {
            name: l.name.clone(),
            mesh: Some(i),
            translation: [2.0 * i as f32, 0.0, 0.0],
            ..Node::default()
        });
        doc.roots.push(i);
    }
    crate::write::write_file(&doc, &std::path::Path::new(&dir).join("materials.glb")).unwrap();
}

/// Looks asked for all at once (their images made on every core) give the very document
/// that asking for them one at a time gives: the same materials, the same images in the
/// same order, whatever the threads' timing.
#[test]
fn many_looks_at_once_number_as_one_at_a_time() {
    let art = art();
    let opts = ExportOptions {
        jpeg_quality: Some(80),
        ..ExportOptions::default()
    };
    let full = every_slot(0);
    let mut cut = look("cut");
    cut.albedo = Some(4);
    cut.alpha = AlphaMode::Blend;
    let mut lit = look("lit");
    lit.lit = Some(3);
    lit.albedo = Some(0);
    lit.alpha = AlphaMode::Mask(0.5);
    let mut missing = look("missing");
    missing.missing = true;
    let looks = [full.clone(), cut, look("plain"), lit, missing, full];

    let (mut one, mut by_one) = (Document::default(), Materials::default());
    let singly: Vec<usize> = looks
        .iter()
        .map(|l| material(&mut by_one, &mut one, &art, l, &opts))
        .collect();
    let (mut all, mut at_once) = (Document::default(), Materials::default());
    let batched: Vec<usize> = looks.iter().map(|l| at_once.get(&mut all, l)).collect();
    at_once.finish(&mut all, &art, &opts);

    assert_eq!(singly, batched);
    assert_eq!(singly[0], singly[5], "the same look, one material");
    assert_eq!(one, all);
    assert_eq!(
        all.images.len(),
        5,
        "{:?}",
        all.images.iter().map(|i| &i.name).collect::<Vec<_>>()
    );
    assert_eq!(
        all.materials[batched[3]].alpha,
        AlphaMode::Opaque,
        "an opaque albedo"
    );
    assert_eq!(all.materials[batched[1]].alpha, AlphaMode::Blend);
}
