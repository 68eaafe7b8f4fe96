//! `SLOPE_LIMIT`: a document's autogen points placed by library path, screened on the
//! terrain under them after the layout, and laid out again or dropped.

use std::path::{Path, PathBuf};

use super::airport::PavementLibrary;
use super::definitions::{Opened, Resolution, ResolveCache};
use super::feature::{describe, layout_feature, FeatureResult};
use super::{DocFeature, Geometry, Ground};
use crate::diag::{Diagnostic, Severity};
use crate::input::{self, Inputs};
use crate::layout::slope::{slope_at, Slope, SlopeLimit};
use crate::resolve::Resolver;
use crate::scene::{FeatureInfo, SlopeDrop};
use crate::terrain::Terrain;

/// `SLOPE_LIMIT` screening of a document's autogen points placed by library path.
pub(super) struct Screen<'a> {
    pub(super) doc: &'a Path,
    pub(super) resolver: &'a Resolver,
    pub(super) args: &'a Inputs,
    /// The document frame's origin (lon, lat).
    pub(super) origin: [f64; 2],
    pub(super) seed: u64,
    /// Each feature's own seed (`feature_seeds`).
    pub(super) seeds: &'a [u64],
    pub(super) pavement: &'a PavementLibrary,
}

impl Screen<'_> {
    /// Makes the terrain from the scene as laid out so far, measures each screened point's
    /// slope on it, and draws each point's variant again among those whose limits admit
    /// the slope: a point whose variant changes is laid out again, one that no variant
    /// admits is dropped (its feature keeps its entry, with the reason, and a warning says
    /// it). Returns the terrain and the dropped points.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn run(
        &self,
        ground: &Ground,
        feats: &[DocFeature],
        resolutions: &[Resolution],
        results: &mut [(FeatureResult, FeatureInfo)],
        cache: &mut ResolveCache,
        diags: &mut Vec<Diagnostic>,
        files: &mut Vec<PathBuf>,
    ) -> Result<(Terrain, Vec<SlopeDrop>, Vec<Diagnostic>), Diagnostic> {
        // The terrain is framed on what the document places before any point is dropped,
        // as `render` frames it on a scene: dropping a point does not move the ground.
        // The union of the parts' extents is the combined scene's (a part's tiles lie in
        // its polygon, which counts even when the tiles are hidden).
        let (lo, hi) = results
            .iter()
            .filter_map(|(r, _)| r.scene.as_ref()?.extent())
            .reduce(|(alo, ahi), (blo, bhi)| {
                (
                    [alo[0].min(blo[0]), alo[1].min(blo[1])],
                    [ahi[0].max(bhi[0]), ahi[1].max(bhi[1])],
                )
            })
            .unwrap_or(([-10.0, -10.0], [10.0, 10.0]));
        let terrain = (ground.0)(lo, hi).map_err(|m| Diagnostic::error_file(self.doc, m))?;
        // Slopes are X-Plane's: the heights as stored, not exaggerated for the view.
        let step = (terrain.cell_size() * 0.5).clamp(0.5, 5.0);
        let mut drops = Vec::new();
        let mut lines = Vec::new();
        for (i, f) in feats.iter().enumerate() {
            let res = &resolutions[i];
            let (Some(at), Geometry::Point { heading, .. }) = (f.origin(), &f.geometry) else {
                continue;
            };
            if !res.screened(f) {
                continue;
            }
            let pos = input::project(self.origin, at);
            let heading = *heading as f32;
            let slope = slope_at(|x, y| terrain.raw_height_at(x, y), pos, heading, step);
            let lat_lon = Some(crate::resolve::LatLon {
                lat: at[1],
                lon: at[0],
            });
            let mut limits: Vec<(PathBuf, Option<SlopeLimit>)> = Vec::new();
            let mut admit = |p: &Path| {
                let limit = match &*cache.open(f.kind, p, self.resolver, diags, files) {
                    Opened::Autogen(a) => a.autogen.slope_limit.map(SlopeLimit::from_array),
                    _ => None,
                };
                limits.push((p.to_path_buf(), limit));
                limit.is_none_or(|l| l.admits(slope))
            };
            let found = self
                .resolver
                .resolve_library_admitted(&f.asset, lat_lon, self.seed, &mut admit);
            match found {
                Some(found) if Some(&found.path) == res.resolved.as_ref() => {}
                Some(found) => {
                    let package = found.package.clone();
                    let opened = cache.open(f.kind, &found.path, self.resolver, diags, files);
                    let now = Resolution {
                        resolved: Some(found.path),
                        package,
                        opened,
                        library: true,
                    };
                    let mut r = layout_feature(
                        self.doc,
                        f,
                        &now,
                        self.origin,
                        self.args,
                        self.seeds[i],
                        self.pavement,
                    );
                    r.tie_to(i);
                    let info = describe(f, &now, &mut r, i as u32);
                    results[i] = (r, info);
                }
                None => {
                    let why = drop_reason(&f.asset, slope, &limits);
                    let d = f
                        .diag(self.doc, Severity::Warning, why.clone())
                        .with_kind(crate::diag::kind::SLOPE_LIMIT)
                        .for_feature(i);
                    let (r, info) = &mut results[i];
                    r.scene = None;
                    info.stats = Default::default();
                    info.choice = None;
                    info.corners.clear();
                    info.dropped = Some(why);
                    info.footprint = None;
                    lines.push(d.clone());
                    r.diags.push(d);
                    drops.push(SlopeDrop {
                        pos,
                        heading,
                        pitch: slope.pitch,
                        roll: slope.roll,
                        feature: i as u32,
                    });
                }
            }
        }
        Ok((terrain, drops, lines))
    }
}

/// Why a point was dropped: its slope and each variant's limits.
fn drop_reason(asset: &str, slope: Slope, limits: &[(PathBuf, Option<SlopeLimit>)]) -> String {
    let each: Vec<String> = limits
        .iter()
        .map(|(p, l)| {
            let name = p.file_name().map_or_else(
                || p.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            );
            match l {
                Some(l) => format!("{name}: {l}"),
                None => format!("{name}: no limit"),
            }
        })
        .collect();
    let variants = if each.is_empty() {
        "no variant of it is exported here".to_string()
    } else {
        format!(
            "SLOPE_LIMIT of every variant excludes it ({})",
            each.join("; ")
        )
    };
    format!(
        "{asset} not placed: the terrain here has {slope} along the point's heading; {variants}"
    )
}
