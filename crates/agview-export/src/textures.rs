//! Materials: what a surface looks like ([`Look`]) becomes a [`PbrMaterial`] by the one
//! material rule (`agview_format::material::describe`, already applied: [`Look::shading`]),
//! its images decoded (DDS too), re-packed where glTF's channels differ from X-Plane's,
//! capped in size and encoded (PNG; JPEG for an opaque base colour when asked).
//!
//! How each glTF slot is filled (`docs/export.md`, "Materials and textures"):
//! - **Base colour**: the albedo as it is, white without one.
//! - **Normal**: red and green (tangent-space X, Y) as they are: X-Plane's green points up
//!   the texture (+t), as agview's renderer reads it, and glTF's +Y points up the image
//!   too, so nothing flips. Blue is rebuilt as Z = √(1 − X² − Y²) (X-Plane keeps other data
//!   there), alpha 255. `BUMP_LEVEL` is the normal's `scale`.
//! - **Metallic/roughness**: one image with roughness (from the gloss by
//!   `ROUGHNESS_OF_GLOSS`) in green and metalness in blue, built from the channels the
//!   material names; plain factors when both are constants. The legacy model is metal 0
//!   and rough by its gloss (fully rough): its specular level is not carried
//!   ([`roughness_of`]'s note).
//! - **Emissive**: the lit texture, `emissiveFactor` 1 scaled by the luminance against
//!   `DEFAULT_LUMINANCE`, above 1 as `KHR_materials_emissive_strength`.
//! - **Missing** art: a plain material in [`WARNING_COLOR`].

use std::collections::HashMap;

use agview_format::material::{Model, Source, Value, ROUGHNESS_OF_GLOSS};
use agview_load::art::{decode_bc, ArtSet, ImageData, ImagePixels, Material};
use agview_load::parallel::parallel_map;

use crate::document::{AlphaMode, Document, Image, Mime, PbrMaterial, TextureUse};
use crate::ExportOptions;

/// The colour a surface whose art is missing is exported in: the magenta of the
/// renderer's missing-texture checkerboard (`ImageData::checkerboard`), linear RGBA.
pub const WARNING_COLOR: [f32; 4] = [1.0, 0.0, 1.0, 1.0];

/// The look of one surface, as the scene step finds it.
#[derive(Debug, Clone, PartialEq)]
pub struct Look {
    /// Names the material (the asset's texture, usually).
    pub name: String,
    /// `ArtSet::images` indices; `None`: not given.
    pub albedo: Option<usize>,
    pub lit: Option<usize>,
    pub normal: Option<usize>,
    pub map: Option<usize>,
    pub shading: Material,
    pub alpha: AlphaMode,
    pub double_sided: bool,
    /// Drawn in the warning colour: the texture (or the mesh) is missing.
    pub missing: bool,
    /// Multiplies the base colour (glTF's `baseColorFactor`): white for textured art, the
    /// colour itself for a plain surface (the terrain, a facade without its art).
    pub tint: [f32; 3],
}

/// What an exported image is made for: with the art images it is built from, the key
/// that makes each written once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Role {
    /// The albedo, as PNG or as JPEG at this quality.
    BaseColor {
        image: usize,
        jpeg: Option<u8>,
    },
    Normal {
        image: usize,
    },
    Emissive {
        image: usize,
    },
    /// Roughness in green, metalness in blue, from these sources.
    MetalRough {
        normal: Option<usize>,
        map: Option<usize>,
        metal: ValueKey,
        gloss: ValueKey,
    },
}

/// A [`Value`] that can be hashed (a constant by its bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum ValueKey {
    Const(u32),
    Channel(bool, u8),
}

impl From<Value> for ValueKey {
    fn from(v: Value) -> Self {
        match v {
            Value::Const(c) => ValueKey::Const(c.to_bits()),
            Value::Channel(s, c) => ValueKey::Channel(s == Source::Normal, c),
        }
    }
}

impl Role {
    /// As the image's name says it.
    fn label(self) -> &'static str {
        match self {
            Role::BaseColor { .. } => "base colour",
            Role::Normal { .. } => "normal",
            Role::Emissive { .. } => "emissive",
            Role::MetalRough { .. } => "metallic-roughness",
        }
    }
}

/// Materials and images already added to a document, so each is written once.
///
/// [`Materials::get`] only reserves a look's material; [`Materials::finish`] builds every
/// material reserved since, with its images decoded and encoded on every core (the export's
/// longest step: each image is decoded from DDS or PNG, re-packed and compressed on its own).
/// Materials and images come out in the order the looks were asked for, whatever the
/// threads' timing, as a build one look at a time would number them.
#[derive(Debug, Default)]
pub struct Materials {
    /// Looks already asked for, with their material (few per scene: a linear search).
    looks: Vec<(Look, usize)>,
    /// Looks whose material is reserved in the document but not built yet.
    pending: Vec<(Look, usize)>,
    /// Images already written (`None`: could not be made, the slot stays empty).
    images: HashMap<Role, Option<usize>>,
    /// Per art image: whether every texel of its top level is opaque ([`is_opaque`]).
    opaque: HashMap<usize, bool>,
    warnings: Vec<String>,
}

impl Materials {
    /// The material of `look` in `doc`, reserved the first time: its slot holds a default
    /// material until [`Materials::finish`] builds it.
    pub fn get(&mut self, doc: &mut Document, look: &Look) -> usize {
        if let Some((_, m)) = self.looks.iter().find(|(l, _)| l == look) {
            return *m;
        }
        doc.materials.push(PbrMaterial::default());
        let index = doc.materials.len() - 1;
        self.looks.push((look.clone(), index));
        self.pending.push((look.clone(), index));
        index
    }

    /// Builds every material reserved since the last call, in `doc`: first whether the
    /// albedos of blended and cut-out looks are opaque, then every image the materials
    /// name, each on its own (both on every core), then the materials in order, each image
    /// added to `doc` where it is first used.
    pub fn finish(&mut self, doc: &mut Document, art: &ArtSet, opts: &ExportOptions) {
        let pending = std::mem::take(&mut self.pending);
        if pending.is_empty() {
            return;
        }
        let mut unknown: Vec<usize> = pending
            .iter()
            .filter(|(l, _)| !l.missing && l.alpha != AlphaMode::Opaque)
            .filter_map(|(l, _)| l.albedo)
            .filter(|i| !self.opaque.contains_key(i))
            .collect();
        unknown.sort_unstable();
        unknown.dedup();
        let found = parallel_map(&unknown, 0, None, |_, &i| {
            art.images.get(i).is_some_and(is_opaque)
        });
        self.opaque.extend(unknown.into_iter().zip(found));

        // The images still to make, in the order they are first asked for.
        let mut roles: Vec<Role> = Vec::new();
        for (look, _) in &pending {
            build(look, opts, &self.opaque, &mut |role| {
                if !self.images.contains_key(&role) && !roles.contains(&role) {
                    roles.push(role);
                }
                None
            });
        }
        // The largest first, so that no worker is left with a long one at the end.
        let mut order: Vec<usize> = (0..roles.len()).collect();
        order.sort_by_key(|&k| std::cmp::Reverse(role_texels(art, roles[k])));
        let made = parallel_map(&order, 0, None, |_, &k| {
            make_image(art, roles[k], opts.max_texture_size)
        });
        let mut made: HashMap<Role, Result<(Mime, Vec<u8>), String>> =
            order.into_iter().map(|k| roles[k]).zip(made).collect();

        let Materials {
            images,
            opaque,
            warnings,
            ..
        } = self;
        for (look, index) in pending {
            let material = build(&look, opts, opaque, &mut |role| {
                let image = match images.get(&role) {
                    Some(&done) => done,
                    None => {
                        let image = match made.remove(&role) {
                            Some(Ok((mime, bytes))) => {
                                doc.images.push(Image {
                                    name: format!("{} ({})", look.name, role.label()),
                                    mime,
                                    bytes,
                                });
                                Some(doc.images.len() - 1)
                            }
                            Some(Err(why)) => {
                                warnings.push(format!(
                                    "{}: warning: its {} texture is left out: {why}",
                                    look.name,
                                    role.label()
                                ));
                                None
                            }
                            None => None,
                        };
                        images.insert(role, image);
                        image
                    }
                };
                image.map(|image| TextureUse { image })
            });
            if let Some(slot) = doc.materials.get_mut(index) {
                *slot = material;
            }
        }
    }

    /// Every look asked for so far, with its material: each distinct look is one material.
    pub fn looks(&self) -> &[(Look, usize)] {
        &self.looks
    }

    /// What went wrong on the way (images that could not be decoded or encoded), taken.
    pub fn take_warnings(&mut self) -> Vec<String> {
        std::mem::take(&mut self.warnings)
    }
}

/// Whether every texel of `img`'s top level has alpha 255 (an image that cannot be
/// decoded is not: its material keeps its alpha mode). RGBA art is read where it lies.
fn is_opaque(img: &ImageData) -> bool {
    let opaque = |px: &[u8]| px.chunks_exact(4).all(|p| p[3] == 255);
    match &img.pixels {
        ImagePixels::Rgba8(levels) => levels.first().is_some_and(|l| {
            l.len() as u64 == img.width as u64 * img.height as u64 * 4 && !l.is_empty() && opaque(l)
        }),
        ImagePixels::Bc(..) => decode_image(img, None).is_ok_and(|i| opaque(&i.px)),
    }
}

/// Texels of the art images `role` is made from (the work it takes, roughly).
fn role_texels(art: &ArtSet, role: Role) -> u64 {
    let texels = |i: Option<usize>| {
        i.and_then(|i| art.images.get(i))
            .map_or(0, |img| img.width as u64 * img.height as u64)
    };
    match role {
        Role::BaseColor { image, .. } | Role::Normal { image } | Role::Emissive { image } => {
            texels(Some(image))
        }
        Role::MetalRough { normal, map, .. } => texels(normal) + texels(map),
    }
}

/// The material of `look` (the material rule's result, already applied: [`Look::shading`]),
/// its images as `image` gives them for each role (`None`: left out). `opaque` holds, for
/// each albedo of a blended or cut-out look, whether it is opaque.
fn build(
    look: &Look,
    opts: &ExportOptions,
    opaque: &HashMap<usize, bool>,
    image: &mut dyn FnMut(Role) -> Option<TextureUse>,
) -> PbrMaterial {
    let mut m = PbrMaterial {
        name: look.name.clone(),
        base_color_factor: [look.tint[0], look.tint[1], look.tint[2], 1.0],
        alpha: look.alpha,
        double_sided: look.double_sided,
        ..PbrMaterial::default()
    };
    if look.missing {
        m.base_color_factor = WARNING_COLOR;
        m.alpha = AlphaMode::Opaque;
        m.extras = Some(serde_json::json!({ "missing": true }));
        return m;
    }
    let s = &look.shading;
    // Blending or cutting out an albedo with no transparent texel changes nothing: the
    // material is opaque, so importers sort nothing and the albedo may be a JPEG.
    if let (AlphaMode::Blend | AlphaMode::Mask(_), Some(albedo)) = (m.alpha, look.albedo) {
        if opaque.get(&albedo) == Some(&true) {
            m.alpha = AlphaMode::Opaque;
        }
    }
    if let Some(albedo) = look.albedo {
        let jpeg = match (m.alpha, opts.jpeg_quality) {
            (AlphaMode::Opaque, Some(q)) => Some(q.clamp(1, 100)),
            _ => None,
        };
        m.base_color = image(Role::BaseColor {
            image: albedo,
            jpeg,
        });
    }
    if let (true, Some(normal)) = (s.normal_map, look.normal) {
        m.normal = image(Role::Normal { image: normal });
        if m.normal.is_some() && s.bump.is_finite() {
            m.normal_scale = s.bump;
        }
    }
    let (metal, gloss) = match s.model {
        Model::Xp12Pbr => (s.metalness, s.gloss),
        Model::Legacy => (Value::Const(0.0), s.gloss),
    };
    let uses = |v: Value| match v {
        Value::Const(_) => false,
        Value::Channel(Source::Normal, _) => look.normal.is_some(),
        Value::Channel(Source::Map, _) => look.map.is_some(),
    };
    if uses(metal) || uses(gloss) {
        m.metallic_roughness = image(Role::MetalRough {
            normal: look.normal,
            map: look.map,
            metal: metal.into(),
            gloss: gloss.into(),
        });
    }
    if m.metallic_roughness.is_some() {
        m.metallic_factor = 1.0;
        m.roughness_factor = 1.0;
    } else {
        m.metallic_factor = constant(metal);
        m.roughness_factor = roughness_of(constant(gloss));
    }
    if let Some(lit) = look.lit {
        m.emissive = image(Role::Emissive { image: lit });
        if m.emissive.is_some() {
            let (factor, strength) = emissive_of(s.luminance_ratio());
            m.emissive_factor = [factor; 3];
            m.emissive_strength = strength;
        }
    }
    m
}

/// A constant's value (a channel counts as 0: its texture is absent).
fn constant(v: Value) -> f32 {
    match v {
        Value::Const(c) if c.is_finite() => c.clamp(0.0, 1.0),
        _ => 0.0,
    }
}

/// Roughness from gloss, by the material rule's [`ROUGHNESS_OF_GLOSS`], within 0..1.
///
/// The legacy model's specular level is not carried: glTF's core material has no
/// specular strength apart from roughness, and a lower roughness would add the sky's
/// reflection, which the legacy model does not have (it is diffuse plus a sun highlight).
/// Its gloss is [`agview_format::material::DEFAULT_GLOSS`], so it exports fully rough.
pub fn roughness_of(gloss: f32) -> f32 {
    let r = ROUGHNESS_OF_GLOSS.0 + ROUGHNESS_OF_GLOSS.1 * gloss;
    if r.is_finite() {
        r.clamp(0.0, 1.0)
    } else {
        1.0
    }
}

/// `emissiveFactor` (each channel) and `KHR_materials_emissive_strength` of a lit texture
/// shining at `ratio` × [`agview_format::material::DEFAULT_LUMINANCE`]: what the renderer multiplies its night glow
/// by. Up to 1 it scales the factor; above 1 the factor is 1 and the rest the strength.
pub fn emissive_of(ratio: f32) -> (f32, Option<f32>) {
    if !ratio.is_finite() || ratio <= 0.0 {
        (1.0, None)
    } else if ratio <= 1.0 {
        (ratio, None)
    } else {
        (1.0, Some(ratio))
    }
}

/// An image as RGBA8: width, height, pixels.
pub(crate) struct Rgba {
    pub width: u32,
    pub height: u32,
    pub px: Vec<u8>,
}

/// Art image `index` as RGBA8 no larger than `max` on a side: the largest mip level that
/// fits, else level 0 resized down.
fn decode(art: &ArtSet, index: usize, max: Option<u32>) -> Result<Rgba, String> {
    let img = art
        .images
        .get(index)
        .ok_or_else(|| format!("image {index} does not exist"))?;
    decode_image(img, max)
}

fn decode_image(img: &ImageData, max: Option<u32>) -> Result<Rgba, String> {
    let (levels, bc) = match &img.pixels {
        ImagePixels::Rgba8(l) => (l, None),
        ImagePixels::Bc(f, l) => (l, Some(*f)),
    };
    if img.width == 0 || img.height == 0 || levels.is_empty() {
        return Err(format!("{} has no pixels", img.name));
    }
    let max = max.unwrap_or(u32::MAX).max(1);
    let level_size = |k: usize| {
        (
            (img.width >> k.min(31)).max(1),
            (img.height >> k.min(31)).max(1),
        )
    };
    let fits = (0..levels.len()).find(|&k| {
        let (w, h) = level_size(k);
        w.max(h) <= max
    });
    let k = fits.unwrap_or(0);
    let (w, h) = level_size(k);
    let px = match bc {
        None => levels[k].clone(),
        Some(f) => decode_bc(f, w, h, &levels[k]),
    };
    if px.len() != (w as usize) * (h as usize) * 4 {
        return Err(format!(
            "{}: level {k} holds {} bytes, not {w}×{h} RGBA",
            img.name,
            px.len()
        ));
    }
    let rgba = Rgba {
        width: w,
        height: h,
        px,
    };
    Ok(if fits.is_some() {
        rgba
    } else {
        resize_to_fit(rgba, max)
    })
}

/// `img` scaled down (triangle filter) so that its longer side is `max`.
fn resize_to_fit(img: Rgba, max: u32) -> Rgba {
    let long = img.width.max(img.height);
    let scale = |s: u32| ((s as u64 * max as u64 / long as u64) as u32).max(1);
    let (w, h) = (scale(img.width), scale(img.height));
    let Some(buf) = image::RgbaImage::from_raw(img.width, img.height, img.px) else {
        // Sizes were checked by the caller.
        return Rgba {
            width: 1,
            height: 1,
            px: vec![255, 0, 255, 255],
        };
    };
    let out = image::imageops::resize(&buf, w, h, image::imageops::FilterType::Triangle);
    Rgba {
        width: w,
        height: h,
        px: out.into_raw(),
    }
}

/// The encoded image for `role`.
fn make_image(art: &ArtSet, role: Role, max: Option<u32>) -> Result<(Mime, Vec<u8>), String> {
    match role {
        Role::BaseColor { image, jpeg } => {
            let img = decode(art, image, max)?;
            match jpeg {
                Some(q) => encode_jpeg(&img, q).map(|b| (Mime::Jpeg, b)),
                None => encode_png(&img).map(|b| (Mime::Png, b)),
            }
        }
        Role::Emissive { image } => {
            let mut img = decode(art, image, max)?;
            // glTF's emissive is RGB; X-Plane adds a lit texture's alpha to the albedo's,
            // which glTF cannot say.
            img.px.chunks_exact_mut(4).for_each(|p| p[3] = 255);
            encode_png(&img).map(|b| (Mime::Png, b))
        }
        Role::Normal { image } => {
            let mut img = decode(art, image, max)?;
            rebuild_normal_z(&mut img.px);
            encode_png(&img).map(|b| (Mime::Png, b))
        }
        Role::MetalRough {
            normal,
            map,
            metal,
            gloss,
        } => {
            let from_key = |v: ValueKey| match v {
                ValueKey::Const(bits) => Value::Const(f32::from_bits(bits)),
                ValueKey::Channel(true, c) => Value::Channel(Source::Normal, c),
                ValueKey::Channel(false, c) => Value::Channel(Source::Map, c),
            };
            let normal = normal.map(|i| decode(art, i, max)).transpose()?;
            let map = map.map(|i| decode(art, i, max)).transpose()?;
            let img = metal_rough(
                from_key(metal),
                from_key(gloss),
                normal.as_ref(),
                map.as_ref(),
            )
            .ok_or("its sources are missing")?;
            encode_png(&img).map(|b| (Mime::Png, b))
        }
    }
}

/// Blue of each texel rebuilt as the unit normal's Z from red and green (X, Y in -1..1),
/// alpha 255: glTF reads a normal texture's three channels.
fn rebuild_normal_z(px: &mut [u8]) {
    for p in px.chunks_exact_mut(4) {
        let x = p[0] as f32 / 255.0 * 2.0 - 1.0;
        let y = p[1] as f32 / 255.0 * 2.0 - 1.0;
        let z = (1.0 - x * x - y * y).max(0.0).sqrt();
        p[2] = ((z * 0.5 + 0.5) * 255.0).round() as u8;
        p[3] = 255;
    }
}

/// glTF's metallic-roughness image (red 0, green roughness, blue metalness, alpha 255)
/// from `metal` and `gloss`, each a constant or a channel of the normal map or the
/// material map; the size of the first texture used (another is sampled at the same
/// place). `None` when neither names a texture that is there.
fn metal_rough(
    metal: Value,
    gloss: Value,
    normal: Option<&Rgba>,
    map: Option<&Rgba>,
) -> Option<Rgba> {
    let source = |v: Value| match v {
        Value::Channel(Source::Normal, c) => normal.map(|i| (i, c.min(3) as usize)),
        Value::Channel(Source::Map, c) => map.map(|i| (i, c.min(3) as usize)),
        Value::Const(_) => None,
    };
    let (m_src, g_src) = (source(metal), source(gloss));
    let size = g_src.or(m_src).map(|(i, _)| (i.width, i.height))?;
    let (w, h) = size;
    // A channel at (x, y) of the output, from a source of any size (nearest texel).
    let sample = |src: (&Rgba, usize), x: u32, y: u32| -> f32 {
        let (img, c) = src;
        let sx = (x as u64 * img.width as u64 / w as u64) as usize;
        let sy = (y as u64 * img.height as u64 / h as u64) as usize;
        img.px[(sy * img.width as usize + sx) * 4 + c] as f32 / 255.0
    };
    let byte = |v: f32| (v.clamp(0.0, 1.0) * 255.0).round() as u8;
    let mut px = Vec::with_capacity(w as usize * h as usize * 4);
    for y in 0..h {
        for x in 0..w {
            let m = m_src.map_or(constant(metal), |s| sample(s, x, y));
            let g = g_src.map_or(constant(gloss), |s| sample(s, x, y));
            px.extend_from_slice(&[0, byte(roughness_of(g)), byte(m), 255]);
        }
    }
    Some(Rgba {
        width: w,
        height: h,
        px,
    })
}

/// How PNGs are compressed: zlib's level 3 (miniz_oxide, through `flate2`), with the
/// adaptive filter. Measured on the bench airports' 120 images each (`docs/export.md`,
/// "Speed and size"): against `image`'s default fast level (fdeflate) it writes realistic
/// art 20 % smaller (73 MB, not 91 MB) for about six times the encoding time, and finds
/// the repeats fdeflate does not look for (the synthetic airport's patterns: 4 MB, not
/// 203 MB); level 6 is 5 % smaller again for five times longer, level 1 no smaller than
/// the fast level.
const PNG_COMPRESSION: image::codecs::png::CompressionType =
    image::codecs::png::CompressionType::Level(3);

/// PNG, RGB when every texel is opaque (smaller), else RGBA.
pub(crate) fn encode_png(img: &Rgba) -> Result<Vec<u8>, String> {
    use image::codecs::png::{FilterType, PngEncoder};
    use image::ImageEncoder;
    let mut out = Vec::new();
    let enc = PngEncoder::new_with_quality(&mut out, PNG_COMPRESSION, FilterType::Adaptive);
    let opaque = img.px.chunks_exact(4).all(|p| p[3] == 255);
    let res = if opaque {
        let rgb: Vec<u8> = img
            .px
            .chunks_exact(4)
            .flat_map(|p| [p[0], p[1], p[2]])
            .collect();
        enc.write_image(&rgb, img.width, img.height, image::ExtendedColorType::Rgb8)
    } else {
        enc.write_image(
            &img.px,
            img.width,
            img.height,
            image::ExtendedColorType::Rgba8,
        )
    };
    res.map_err(|e| format!("PNG: {e}"))?;
    Ok(out)
}

/// JPEG at `quality`, alpha dropped (only opaque base colours are written so).
pub(crate) fn encode_jpeg(img: &Rgba, quality: u8) -> Result<Vec<u8>, String> {
    use image::ImageEncoder;
    let mut out = Vec::new();
    let rgb: Vec<u8> = img
        .px
        .chunks_exact(4)
        .flat_map(|p| [p[0], p[1], p[2]])
        .collect();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, quality)
        .write_image(&rgb, img.width, img.height, image::ExtendedColorType::Rgb8)
        .map_err(|e| format!("JPEG: {e}"))?;
    Ok(out)
}

#[cfg(test)]
#[path = "textures_tests.rs"]
mod tests;
