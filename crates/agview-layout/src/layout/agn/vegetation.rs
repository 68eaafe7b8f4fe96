//! AGN vegetation: `PRDE` polygons and `VGRE` / `VGRO` rectangles filled with trees, their
//! forests (`--guid-map` `.for`) and heights (the forest's range or the `VGRD` classes).

use super::*;

/// A vegetation area before its trees: name, ring (m), area (m²), m² per tree, source.
type Area = (String, Vec<[f64; 2]>, f64, f64, TreeSource);

/// Where a vegetation area's trees come from: their forest (index into the scene's forests)
/// and heights.
#[derive(Debug, Clone, Copy)]
enum TreeSource {
    /// A vegetation GUID that `--guid-map` maps to a `.for`: forest `index`, heights in the
    /// forest's min–max (when its trees give one).
    Forest {
        index: u32,
        height: Option<[f32; 2]>,
    },
    /// `VGRO` under a `VGRD`: class 1 with `percent`, else class 2, each in its height range.
    Classes {
        percent: u32,
        heights: [[f32; 2]; 2],
    },
    /// Neither: the placeholder tree at its own height.
    Plain,
}

impl<'a> Layout<'a> {
    /// The trees of a vegetation GUID: its `.for` when `--guid-map` names one (added to the
    /// scene's forests once), else the placeholder.
    fn tree_source(&mut self, g: &Guid, forests: &mut Vec<String>) -> TreeSource {
        let Some(Mapped::Forest(p)) = self.mapped(g) else {
            return TreeSource::Plain;
        };
        let k = match forests.iter().position(|f| f == p) {
            Some(k) => k,
            None => {
                forests.push(p.to_string());
                self.scene.more_forests.push(ArtRef {
                    name: p.into(),
                    resolved: Some(p.to_string()),
                });
                forests.len() - 1
            }
        };
        TreeSource::Forest {
            // Forest 0 is `Scene::forest`, which an AGN leaves empty (the placeholder).
            index: k as u32 + 1,
            height: self.opts.forest_heights.get(p).copied(),
        }
    }

    pub(super) fn vegetation(&mut self) {
        let agn = self.agn;
        let sq = self.square;
        // First every outline, so that the tree budget can be shared by area.
        let mut areas: Vec<Area> = Vec::new();
        let mut forests: Vec<String> = Vec::new();
        let mut add = |l: &mut Self,
                       guid: String,
                       mut ring: Vec<[f64; 2]>,
                       offset: u64,
                       what: &str,
                       per_tree: f64,
                       source: TreeSource| {
            match ccw(&mut ring) {
                Some(a) => areas.push((guid, ring, a, per_tree, source)),
                None => l.warn("vegetation area without area", offset, || {
                    format!("{what} skipped: zero area, or points not finite or beyond 10,000 km")
                }),
            }
        };
        for v in &agn.vegetation_polygons {
            let guid = v.vegetation.to_string();
            let source = self.tree_source(&v.vegetation, &mut forests);
            for p in &v.polygons {
                // The reader has warned about a ring that is not closed.
                let mut ring: Vec<[f64; 2]> = p.vertices.iter().map(|&q| sq.top_left(q)).collect();
                if p.vertices.len() > 1 && p.vertices.first() == p.vertices.last() {
                    ring.pop();
                }
                add(
                    self,
                    guid.clone(),
                    ring,
                    p.offset,
                    "PRDE polygon",
                    M2_PER_TREE,
                    source,
                );
            }
        }
        for v in &agn.vegetation_rects {
            let guid = v.vegetation.to_string();
            let source = self.tree_source(&v.vegetation, &mut forests);
            for r in &v.rects {
                let ring = r.corners().iter().map(|&q| sq.centred(q)).collect();
                add(
                    self,
                    guid.clone(),
                    ring,
                    r.offset,
                    "VGRE rectangle",
                    M2_PER_TREE,
                    source,
                );
            }
        }
        if !agn.fs2004_vegetation_rects.is_empty() {
            let (name, per_tree, source) = match &agn.fs2004_vegetation {
                Some(d) => {
                    let percent = d.percent_class1.clamp(0, 100) as u32;
                    let density = d.max_density.clamp(0, 100);
                    let range = |[lo, hi]: [f32; 2]| {
                        let (lo, hi) = (lo.min(hi).max(0.0), lo.max(hi).max(0.0));
                        [lo, hi]
                    };
                    (
                        format!(
                            "fs2004 class {} {} ({percent}%) / class {} {}, density {density}",
                            d.class1,
                            vegetation_class_name(d.class1),
                            d.class2,
                            vegetation_class_name(d.class2)
                        ),
                        if density > 0 {
                            M2_PER_TREE * 100.0 / f64::from(density)
                        } else {
                            f64::INFINITY
                        },
                        TreeSource::Classes {
                            percent,
                            heights: [range(d.height_class1), range(d.height_class2)],
                        },
                    )
                }
                None => {
                    let first = agn.fs2004_vegetation_rects[0].offset;
                    self.warn(
                        "VGRO without VGRD",
                        first,
                        "VGRO rectangles without a VGRD definition; drawn as generic trees",
                    );
                    ("fs2004".to_string(), M2_PER_TREE, TreeSource::Plain)
                }
            };
            for r in &agn.fs2004_vegetation_rects {
                let ring = r.corners().iter().map(|&q| sq.centred(q)).collect();
                add(
                    self,
                    name.clone(),
                    ring,
                    r.offset,
                    "VGRO rectangle",
                    per_tree,
                    source,
                );
            }
        }
        if areas.is_empty() {
            return;
        }
        let total_trees: f64 = areas
            .iter()
            .map(|a| a.2 / a.3)
            .filter(|n| n.is_finite())
            .sum();
        // Thin every area alike when the whole would pass the scene's budget.
        let thin = (total_trees / MAX_TREES as f64).max(1.0);
        let expected = (total_trees / thin).min(MAX_TREES as f64) as usize;
        self.scene.trees.reserve(expected + expected / 8);
        self.scene.vegetation.reserve(areas.len());
        for (i, (guid, ring, area, per_tree, source)) in areas.into_iter().enumerate() {
            let mut rng = self.rng.fork(STREAM_TREES.wrapping_add(i as u64));
            let outline: Vec<P2> = ring.iter().map(|&p| to_f32(p)).collect();
            let before = self.scene.trees.len();
            if per_tree.is_finite() {
                let limit = MAX_TREES_PER_AREA.min(MAX_TREES - before.min(MAX_TREES));
                fill_trees(
                    &outline,
                    area,
                    per_tree * thin,
                    limit,
                    &mut rng,
                    &mut self.scene.trees,
                );
            }
            // Species and heights from their own stream, so the positions stay as they were.
            let mut hrng = self.rng.fork(STREAM_HEIGHTS.wrapping_add(i as u64));
            for t in &mut self.scene.trees[before..] {
                match source {
                    TreeSource::Forest { index, height } => {
                        t.forest = index;
                        if let Some([lo, hi]) = height {
                            t.height = lo + (hi - lo) * hrng.f32();
                        }
                    }
                    TreeSource::Classes { percent, heights } => {
                        let class = usize::from(hrng.below(100) as u32 >= percent);
                        let [lo, hi] = heights[class];
                        t.layer = class as i32 + 1;
                        t.height = lo + (hi - lo) * hrng.f32();
                    }
                    TreeSource::Plain => {}
                }
            }
            let trees = self.scene.trees.len() - before;
            self.scene.vegetation.push(VegetationArea {
                guid,
                outline,
                trees,
            });
        }
    }
}

/// The FS2004 vegetation classes (FSDeveloper wiki, "AGN (FS2002/FS2004)").
pub(crate) fn vegetation_class_name(class: i32) -> &'static str {
    match class {
        1 => "deciduous",
        2 => "coniferous 1",
        3 => "coniferous 2",
        4 => "shrub wet",
        5 => "shrub dry",
        6 => "palm trees",
        _ => "unknown class",
    }
}

/// Fills a vegetation outline (`area` m²) with trees on a jittered grid: one tree per
/// `m2_per_tree` m² (at least [`M2_PER_TREE`]; sparser when the area would exceed
/// [`MAX_TREES_PER_AREA`] or its bounding box hold too many grid cells), each kept only if
/// it falls inside the outline, and never more than `limit`.
pub(crate) fn fill_trees(
    outline: &[P2],
    area: f64,
    m2_per_tree: f64,
    limit: usize,
    rng: &mut Rng,
    out: &mut Vec<TreeInstance>,
) {
    if outline.len() < 3 {
        return;
    }
    let mut lo = [f32::INFINITY; 2];
    let mut hi = [f32::NEG_INFINITY; 2];
    for p in outline {
        for k in 0..2 {
            lo[k] = lo[k].min(p[k]);
            hi[k] = hi[k].max(p[k]);
        }
    }
    let (w, h) = (f64::from(hi[0] - lo[0]), f64::from(hi[1] - lo[1]));
    if !(w > 0.0 && h > 0.0 && w.is_finite() && h.is_finite()) {
        return;
    }
    const MAX_CELLS: f64 = 4.0 * MAX_TREES_PER_AREA as f64;
    let per_tree = m2_per_tree
        .max(M2_PER_TREE)
        .max(area / MAX_TREES_PER_AREA as f64)
        .max(w * h / MAX_CELLS);
    let cell = per_tree.sqrt();
    let nx = (w / cell).ceil().clamp(1.0, MAX_CELLS) as usize;
    let ny = (h / cell).ceil().clamp(1.0, MAX_CELLS) as usize;
    let cell = cell as f32;
    let mut kept = 0usize;
    for j in 0..ny {
        for i in 0..nx {
            let p = [
                lo[0] + (i as f32 + rng.f32()) * cell,
                lo[1] + (j as f32 + rng.f32()) * cell,
            ];
            let heading = rng.f32() * 360.0;
            let pick = rng.u32();
            if kept >= limit || !crate::layout::geom::point_in_ring(p, outline) {
                continue;
            }
            kept += 1;
            out.push(TreeInstance {
                pos: p,
                width: 0.0,
                heading,
                layer: 0,
                pick,
                forest: 0,
                height: 0.0,
                feature: None,
            });
        }
    }
}
