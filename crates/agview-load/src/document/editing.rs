//! Editing one feature of a document (the viewer's edit mode, issue 37): the edited shape
//! replaces that feature's geometry, and each edit lays out that feature alone.
//!
//! The first load with an edited feature ([`crate::input::EditedInput::feature`]) lays the
//! whole document out, as every load does, and keeps in the edit's [`EditCache`]
//! ([`crate::input::EditedInput::cache`], one per window) what laying one feature out again needs: the features as
//! the document gives them, their resolutions and seeds, and each feature's laid-out part.
//! Each later load of the same document with the same options but another edited shape
//! lays out the edited feature alone, replaces its part, and assembles the parts into one
//! scene again (a copy of the other parts: no layout, no resolving, no reading).
//!
//! The edited feature keeps the document's frame (its first feature's first vertex, as
//! the document gives it), so the view does not move while the first feature is edited.
//! An edited polygon is laid out as it will be saved: its windings and parameter from
//! [`crate::input::dsf_polygon`] (an `.ags`'s windings as WED writes them).
//! Not redone for the edited feature: `SLOPE_LIMIT` screening (its part is laid out as
//! if unscreened) and the messages of resolving its definition (kept from the first load).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::airport::PavementLibrary;
use super::definitions::Resolution;
use super::feature::{describe, layout_feature};
use super::{Assembly, DocFeature, Document, Geometry, LoadTimes};
use crate::diag::Diagnostic;
use crate::input::{EditCache, EditedInput, Inputs, Shape};
use crate::pipeline::Loaded;
use crate::resolve::Resolver;
use crate::scene::{FeatureInfo, FeatureKind, Scene, SceneKind};

/// One document's features and parts, as its last whole load left them.
pub(super) struct Kept {
    pub(super) path: PathBuf,
    /// The load's options, without the edited shape: another option loads afresh.
    pub(super) args: Inputs,
    pub(super) scene_kind: SceneKind,
    pub(super) lights_txt: Option<String>,
    pub(super) geo: crate::scene::GeoFrame,
    /// The features as the document gives them (none edited).
    pub(super) feats: Vec<DocFeature>,
    pub(super) resolutions: Vec<Resolution>,
    pub(super) origin: [f64; 2],
    pub(super) seeds: Vec<u64>,
    pub(super) pavement: PavementLibrary,
    /// Each feature's laid-out part and its entry in `Scene::features`.
    pub(super) parts: Vec<Option<Scene>>,
    pub(super) infos: Vec<FeatureInfo>,
    /// What reading and resolving said, then what laying out each feature said.
    pub(super) base_diags: Vec<Diagnostic>,
    pub(super) feature_diags: Vec<Vec<Diagnostic>>,
    pub(super) files: Vec<PathBuf>,
    /// Each of `files`' modification time and length when kept: a file changed since
    /// (another program's save, or the viewer's own) loads the document whole again.
    pub(super) stamps: Vec<Option<(std::time::SystemTime, u64)>>,
    pub(super) drops: Vec<crate::scene::SlopeDrop>,
    pub(super) drop_lines: Vec<Diagnostic>,
    pub(super) terrain_dependent: bool,
    pub(super) resolver: Arc<Resolver>,
}

/// The feature the load's edited shape replaces, when it is inside a document.
pub(super) fn edited(args: &Inputs) -> Option<(usize, &EditedInput)> {
    let e = args.edited.as_ref()?;
    Some((e.feature?, e))
}

/// The cache of the load's edit of a feature of a document.
pub(super) fn cache(args: &Inputs) -> Option<&EditCache> {
    let (_, e) = edited(args)?;
    e.cache.as_deref()
}

/// The load's options without the edited shape: what tells one document's loads apart.
pub(super) fn key(args: &Inputs) -> Inputs {
    Inputs {
        edited: None,
        ..args.clone()
    }
}

/// Whether a feature of `kind` can be edited inside a document: autogen, objects,
/// facades, forests and draped polygons (not an orthophoto, a curved feature, an airport's
/// item, a jetway, a line, a string or a road).
pub fn editable(f: &DocFeature) -> Result<(), String> {
    let kind_ok = matches!(
        f.kind,
        FeatureKind::Agp
            | FeatureKind::Agb
            | FeatureKind::Ags
            | FeatureKind::Obj
            | FeatureKind::Fac
            | FeatureKind::For
            | FeatureKind::Pol
    );
    if !kind_ok || f.airport.is_some() || f.jetway.is_some() {
        return Err(format!(
            "{} ({:?}): only autogen, objects, facades, forests and draped polygons are edited",
            f.asset, f.kind
        ));
    }
    if f.ctrl.is_some() || f.st.is_some() {
        return Err(format!(
            "{}: a curved polygon or an orthophoto is not edited (only plain points)",
            f.asset
        ));
    }
    if !matches!(f.geometry, Geometry::Polygon(_) | Geometry::Point { .. }) {
        return Err(format!("{}: not a polygon or a point", f.asset));
    }
    Ok(())
}

/// Feature `f` with the edited shape: a polygon's windings and parameter as the save
/// writes them ([`crate::input::dsf_polygon`]), a point's place and heading.
pub(super) fn edited_feature(f: &DocFeature, e: &EditedInput) -> DocFeature {
    let mut g = f.clone();
    g.ctrl = None;
    g.st = None;
    g.st_ctrl = None;
    g.facade_node_order = None;
    match &e.shape.geometry {
        Shape::Polygon(rings) => {
            let ags = f.kind == FeatureKind::Ags;
            let (windings, param) = crate::input::dsf_polygon(rings, &e.shape, f.param, ags);
            g.geometry = Geometry::Polygon(windings);
            g.param = param;
        }
        Shape::Point { lon, lat, heading } => {
            g.geometry = Geometry::Point {
                lon: *lon,
                lat: *lat,
                heading: *heading,
            };
            if let Some(p) = e.shape.param {
                g.param = p;
            }
        }
    }
    g
}

/// Replaces the edited feature of `feats` (when the load has one, and it is there and
/// editable) with the edited shape.
pub(super) fn apply(feats: &mut [DocFeature], args: &Inputs) {
    if let Some((i, e)) = edited(args) {
        if let Some(f) = feats.get_mut(i).filter(|f| editable(f).is_ok()) {
            *f = edited_feature(f, e);
        }
    }
}

/// The document laid out again with only its edited feature laid out anew, when `opts`
/// keeps this document for these options; `None` when it must be loaded whole.
pub(super) fn relayout(path: &Path, args: &Inputs) -> Option<Document> {
    let (i, e) = edited(args)?;
    let cache = e.cache.as_ref()?;
    let mut guard = cache.slot().lock().ok()?;
    let k = guard.as_mut()?.downcast_mut::<Kept>()?;
    let unchanged = k.stamps.len() == k.files.len()
        && k.files.iter().zip(&k.stamps).all(|(f, s)| stamp(f) == *s);
    if k.path != path || k.args != key(args) || i >= k.feats.len() || !unchanged {
        *guard = None;
        return None;
    }
    let started = std::time::Instant::now();
    let f = match k.feats.get(i).filter(|f| editable(f).is_ok()) {
        Some(f) => edited_feature(f, e),
        None => k.feats[i].clone(),
    };
    let mut r = layout_feature(
        &k.path,
        &f,
        &k.resolutions[i],
        k.origin,
        args,
        k.seeds[i],
        &k.pavement,
    );
    r.tie_to(i);
    let info = describe(&f, &k.resolutions[i], &mut r, i as u32);
    for f in r.files.drain(..) {
        if !k.files.contains(&f) {
            k.stamps.push(stamp(&f));
            k.files.push(f);
        }
    }
    k.feature_diags[i] = std::mem::take(&mut r.diags);
    k.parts[i] = r.scene;
    k.infos[i] = info;
    let layout_ms = super::ms(started);
    let stage = std::time::Instant::now();
    let assembly = Assembly {
        path: &k.path,
        scene_kind: k.scene_kind,
        lights_txt: k.lights_txt.clone(),
        seed: args.seed,
        season: args.resolve.season,
        geo: k.geo,
    };
    let parts: Vec<Scene> = k.parts.iter().flatten().cloned().collect();
    let (scene, atlas) = assembly.scene(super::combine(parts), k.infos.clone());
    let mut diags = k.base_diags.clone();
    diags.extend(k.feature_diags.iter().flatten().cloned());
    let mut files = k.files.clone();
    let scene = super::finish(
        scene,
        k.drops.clone(),
        k.drop_lines.clone(),
        &diags,
        &mut files,
    );
    Some(Document {
        loaded: Loaded {
            scene,
            diagnostics: diags,
            files,
        },
        atlas,
        times: LoadTimes {
            layout_ms,
            combine_ms: super::ms(stage),
            ..LoadTimes::default()
        },
        terrain: None,
        terrain_dependent: k.terrain_dependent,
        resolver: k.resolver.clone(),
    })
}

fn stamp(p: &Path) -> Option<(std::time::SystemTime, u64)> {
    let m = std::fs::metadata(p).ok()?;
    Some((m.modified().ok()?, m.len()))
}

/// Keeps `k` for the next edit, when the load was handed a cache.
pub(super) fn keep(args: &Inputs, mut k: Kept) {
    k.stamps = k.files.iter().map(|f| stamp(f)).collect();
    if let Some(c) = cache(args) {
        if let Ok(mut g) = c.slot().lock() {
            *g = Some(Box::new(k));
        }
    }
}
