//! The material rule: from what an asset declares (OBJ8 `TEXTURE_NORMAL`, `TEXTURE_MAP`,
//! `NORMAL_METALNESS`, `GLOBAL_specular`, `ATTR_shiny_rat`, `GLOBAL_luminance`,
//! `BLEND_GLASS`; a `.pol`'s or `.lin`'s `TEXTURE_NORMAL`, `SPECULAR`, `BUMP_LEVEL`) to how
//! it is shaded: a [`Material`]. This is the one place the rule lives: the renderer and the
//! glTF export both take a [`Material`] and never read a directive.
//!
//! Several of the facts are UNCONFIRMED by Laminar's own texts (`../shared/spec/XP12.md` §1);
//! each choice below is a constant or one arm of [`describe`], and `docs/spec-decisions.md`
//! ("Materials") gives the sources:
//! - **Model.** An asset is in the XP12 PBR metalness/roughness model when it declares any
//!   `TEXTURE_MAP` or `NORMAL_METALNESS`; otherwise in the legacy (XP10/11) model.
//! - **Normal.** Tangent-space X and Y in red and green of `TEXTURE_MAP normal`, else of
//!   `TEXTURE_NORMAL`; Z is rebuilt from them.
//! - **PBR maps.** `TEXTURE_MAP material_gloss`: red = metalness, green = gloss.
//!   `TEXTURE_MAP gloss`: red = gloss. Otherwise, under `NORMAL_METALNESS`, the normal
//!   map's blue = metalness and alpha = gloss. Roughness = 1 − gloss ([`ROUGHNESS_OF_GLOSS`]).
//!   Without any gloss source, the gloss is `ATTR_shiny_rat`, else [`DEFAULT_GLOSS`].
//! - **Legacy.** The normal map's alpha is the specular level (XP10's rule), scaled by
//!   `ATTR_shiny_rat`, else `GLOBAL_specular` / `SPECULAR`, else 1 with a normal map and 0
//!   (matte, today's look) without one.
//! - **Lit.** `TEXTURE_LIT` shines at `ATTR_light_level`'s 4th argument, else
//!   `GLOBAL_luminance`, else [`DEFAULT_LUMINANCE`] nits.
//! - **Glass.** `BLEND_GLASS`: alpha-blended by the albedo's alpha, with the reflection not
//!   scaled by alpha.

use serde::Serialize;

use crate::format::obj8::TextureRef;

/// The luminance (nits) a lit texture shines at when the asset says none: the value
/// XPlane2Blender's UI starts from (X-Plane's own default is UNCONFIRMED).
pub const DEFAULT_LUMINANCE: f32 = 1000.0;

/// The gloss of an XP12-model surface with no gloss map and no `ATTR_shiny_rat`: fully
/// rough, so an object that only opts in keeps a matte look (agview's choice).
pub const DEFAULT_GLOSS: f32 = 0.0;

/// Roughness from gloss: `roughness = a + b · gloss`. 1 − gloss, as the three third-party
/// tools read it (XP2B's `0.96875` would make it `(1, -0.96875)`; UNCONFIRMED).
pub const ROUGHNESS_OF_GLOSS: (f32, f32) = (1.0, -1.0);

/// The shading model of a material.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub enum Model {
    /// XP10/11: diffuse, plus a sun highlight as strong as the specular level when there is
    /// one (the level 0: matte, agview's shading before XP12 materials).
    #[default]
    Legacy,
    /// XP12: PBR metalness/roughness, energy conserving, with the sky's reflection.
    Xp12Pbr,
}

impl Model {
    /// As `dump` names it.
    pub fn name(self) -> &'static str {
        match self {
            Model::Legacy => "legacy (XP10/11)",
            Model::Xp12Pbr => "XP12 PBR (metalness/roughness)",
        }
    }
}

/// Which of a material's two extra textures a value is read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Source {
    /// The normal map ([`normal_texture`]).
    Normal,
    /// The material map ([`map_texture`]: `TEXTURE_MAP material_gloss` or `gloss`).
    Map,
}

/// A channel of a texture: 0 red, 1 green, 2 blue, 3 alpha.
pub type Channel = u8;

/// A value of the material: a constant, or a channel of one of its textures (0..1).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub enum Value {
    Const(f32),
    Channel(Source, Channel),
}

/// How blended ranges are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub enum Blend {
    /// As the draw state says (`ATTR_blend`, `ATTR_no_blend`).
    #[default]
    Normal,
    /// `BLEND_GLASS`: the reflection is not scaled by the albedo's alpha.
    Glass,
}

/// How a material is shaded: the result of [`describe`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Material {
    pub model: Model,
    /// Whether a normal map bends the normal (its X, Y in red and green).
    pub normal_map: bool,
    /// Metalness 0..1 (XP12 model; 0 in the legacy one).
    pub metalness: Value,
    /// Gloss 0..1; roughness = [`ROUGHNESS_OF_GLOSS`] of it.
    pub gloss: Value,
    /// The legacy model's specular level 0..1 (1 in the XP12 model).
    pub specular_level: Value,
    /// Multiplies the specular: `GLOBAL_specular`, `SPECULAR`, `ATTR_shiny_rat` (legacy).
    pub specular_scale: f32,
    /// `BUMP_LEVEL`: scales the normal map's bend (1 unchanged).
    pub bump: f32,
    /// The lit texture's luminance in nits at full night.
    pub luminance: f32,
    pub blend: Blend,
}

impl Default for Material {
    fn default() -> Self {
        describe(&Declared::default())
    }
}

impl Material {
    /// The lit texture's brightness against [`DEFAULT_LUMINANCE`] (what the renderer
    /// multiplies the night glow by).
    pub fn luminance_ratio(&self) -> f32 {
        self.luminance / DEFAULT_LUMINANCE
    }
}

/// What an asset declares about its material (gathered by the readers).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Declared<'a> {
    /// `TEXTURE_NORMAL`.
    pub texture_normal: Option<&'a TextureRef>,
    /// `TEXTURE_MAP normal`.
    pub map_normal: Option<&'a TextureRef>,
    /// `TEXTURE_MAP material_gloss`.
    pub map_material_gloss: Option<&'a TextureRef>,
    /// `TEXTURE_MAP gloss`.
    pub map_gloss: Option<&'a TextureRef>,
    /// `NORMAL_METALNESS`.
    pub normal_metalness: bool,
    /// `GLOBAL_specular` (or a `.pol`'s / `.lin`'s `SPECULAR`).
    pub specular: Option<f32>,
    /// `ATTR_shiny_rat` in force.
    pub shiny: Option<f32>,
    /// `BUMP_LEVEL`.
    pub bump: Option<f32>,
    /// `GLOBAL_luminance`.
    pub luminance: Option<f32>,
    /// `ATTR_light_level`'s brightness in force.
    pub light_level_nits: Option<f32>,
    /// `BLEND_GLASS`.
    pub glass: bool,
}

/// The texture that gives the normal: `TEXTURE_MAP normal`, else `TEXTURE_NORMAL`.
pub fn normal_texture<'a>(d: &Declared<'a>) -> Option<&'a TextureRef> {
    d.map_normal.or(d.texture_normal)
}

/// The material map: `TEXTURE_MAP material_gloss`, else `TEXTURE_MAP gloss`.
pub fn map_texture<'a>(d: &Declared<'a>) -> Option<&'a TextureRef> {
    d.map_material_gloss.or(d.map_gloss)
}

/// The material rule (see the module's text).
pub fn describe(d: &Declared<'_>) -> Material {
    let normal = normal_texture(d).is_some();
    let xp12 = d.normal_metalness
        || d.map_normal.is_some()
        || d.map_material_gloss.is_some()
        || d.map_gloss.is_some();
    let luminance = d
        .light_level_nits
        .or(d.luminance)
        .filter(|l| l.is_finite() && *l > 0.0)
        .unwrap_or(DEFAULT_LUMINANCE);
    let blend = if d.glass { Blend::Glass } else { Blend::Normal };
    let bump = d.bump.filter(|b| b.is_finite()).unwrap_or(1.0).max(0.0);
    let clamp01 = |v: f32| {
        if v.is_finite() {
            v.clamp(0.0, 1.0)
        } else {
            0.0
        }
    };
    if !xp12 {
        let scale = d
            .shiny
            .or(d.specular)
            .unwrap_or(if normal { 1.0 } else { 0.0 });
        return Material {
            model: Model::Legacy,
            normal_map: normal,
            metalness: Value::Const(0.0),
            gloss: Value::Const(DEFAULT_GLOSS),
            specular_level: if normal {
                Value::Channel(Source::Normal, 3)
            } else {
                Value::Const(1.0)
            },
            specular_scale: if scale.is_finite() {
                scale.max(0.0)
            } else {
                0.0
            },
            bump,
            luminance,
            blend,
        };
    }
    let (metalness, gloss) = if d.map_material_gloss.is_some() {
        (
            Value::Channel(Source::Map, 0),
            Value::Channel(Source::Map, 1),
        )
    } else if d.map_gloss.is_some() {
        let metal = if d.normal_metalness && normal {
            Value::Channel(Source::Normal, 2)
        } else {
            Value::Const(0.0)
        };
        (metal, Value::Channel(Source::Map, 0))
    } else if d.normal_metalness && normal {
        (
            Value::Channel(Source::Normal, 2),
            Value::Channel(Source::Normal, 3),
        )
    } else {
        (
            Value::Const(0.0),
            Value::Const(clamp01(d.shiny.unwrap_or(DEFAULT_GLOSS))),
        )
    };
    let scale = d.specular.unwrap_or(1.0);
    Material {
        model: Model::Xp12Pbr,
        normal_map: normal,
        metalness,
        gloss,
        specular_level: Value::Const(1.0),
        specular_scale: if scale.is_finite() {
            scale.max(0.0)
        } else {
            1.0
        },
        bump,
        luminance,
        blend,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn t(name: &str) -> TextureRef {
        TextureRef::new(Path::new("a.obj"), name, 1)
    }

    #[test]
    fn without_xp12_declarations_the_model_is_legacy() {
        let m = describe(&Declared::default());
        assert_eq!(m.model, Model::Legacy);
        assert!(!m.normal_map);
        // Matte: no specular without a normal map or a shininess.
        assert_eq!(m.specular_scale, 0.0);
        assert_eq!(m.luminance, DEFAULT_LUMINANCE);
        let n = t("n.png");
        let m = describe(&Declared {
            texture_normal: Some(&n),
            ..Declared::default()
        });
        assert_eq!(m.specular_level, Value::Channel(Source::Normal, 3));
        assert_eq!(m.specular_scale, 1.0);
        let m = describe(&Declared {
            texture_normal: Some(&n),
            specular: Some(0.5),
            shiny: Some(0.25),
            ..Declared::default()
        });
        assert_eq!(m.specular_scale, 0.25, "ATTR_shiny_rat wins");
    }

    #[test]
    fn xp12_channel_rules() {
        let (n, mg, g) = (t("n.png"), t("m.png"), t("g.png"));
        let m = describe(&Declared {
            map_normal: Some(&n),
            map_material_gloss: Some(&mg),
            normal_metalness: true,
            ..Declared::default()
        });
        assert_eq!(m.model, Model::Xp12Pbr);
        assert!(m.normal_map);
        assert_eq!(m.metalness, Value::Channel(Source::Map, 0));
        assert_eq!(m.gloss, Value::Channel(Source::Map, 1));
        let m = describe(&Declared {
            texture_normal: Some(&n),
            map_gloss: Some(&g),
            ..Declared::default()
        });
        assert_eq!(m.metalness, Value::Const(0.0));
        assert_eq!(m.gloss, Value::Channel(Source::Map, 0));
        let m = describe(&Declared {
            texture_normal: Some(&n),
            normal_metalness: true,
            ..Declared::default()
        });
        assert_eq!(m.metalness, Value::Channel(Source::Normal, 2));
        assert_eq!(m.gloss, Value::Channel(Source::Normal, 3));
        let m = describe(&Declared {
            normal_metalness: true,
            shiny: Some(0.7),
            ..Declared::default()
        });
        assert_eq!(m.gloss, Value::Const(0.7));
        // Both material maps (the exporter refuses it): material_gloss wins.
        let d = Declared {
            map_material_gloss: Some(&mg),
            map_gloss: Some(&g),
            texture_normal: Some(&g),
            map_normal: Some(&n),
            ..Declared::default()
        };
        assert_eq!(map_texture(&d).unwrap().name, "m.png");
        assert_eq!(normal_texture(&d).unwrap().name, "n.png");
    }

    #[test]
    fn luminance_and_glass() {
        let m = describe(&Declared {
            luminance: Some(2000.0),
            glass: true,
            ..Declared::default()
        });
        assert_eq!(m.luminance_ratio(), 2.0);
        assert_eq!(m.blend, Blend::Glass);
        let m = describe(&Declared {
            luminance: Some(2000.0),
            light_level_nits: Some(500.0),
            ..Declared::default()
        });
        assert_eq!(m.luminance, 500.0);
        let m = describe(&Declared {
            luminance: Some(-3.0),
            ..Declared::default()
        });
        assert_eq!(m.luminance, DEFAULT_LUMINANCE);
    }
}
