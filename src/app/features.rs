//! The viewer's feature table and its warnings, for documents of tens of thousands of
//! features: only the rows in view are laid out (`egui_extras`' table), the order and the
//! filter are worked out again only when they change, and a row, a warning or a click in
//! the 3D view selects a feature.
//!
//! What the table knows of a scene is made once per scene, off the frame loop
//! ([`FeatureIndex::of`]): each feature's problems (unresolved, screened out, no spelling
//! fits, or named by a warning) and which warnings name which feature.

use std::collections::BTreeMap;

use egui::{Color32, RichText};
use egui_extras::{Column, TableBuilder};

use crate::diag::{Diagnostic, Severity};
use crate::scene::{FeatureInfo, FeatureKind};

const ERROR: Color32 = Color32::from_rgb(255, 90, 80);
const WARNING: Color32 = Color32::from_rgb(240, 190, 60);
const NOTE: Color32 = Color32::from_rgb(160, 170, 180);

/// The colour a message is shown in, by its severity.
pub(crate) fn severity_color(s: Severity) -> Color32 {
    match s {
        Severity::Error => ERROR,
        Severity::Warning => WARNING,
        Severity::Note => NOTE,
    }
}

/// What the table knows of one scene's features and messages, made once per scene.
#[derive(Debug, Default)]
pub struct FeatureIndex {
    /// Per feature: it has a problem (unresolved, screened out, no spelling fits, or a
    /// warning or error names its line).
    pub problem: Vec<bool>,
    /// Per message: the feature it names, if one.
    pub message_feature: Vec<Option<usize>>,
    /// The messages grouped by file (`NO_FILE` for those about no file), then by severity
    /// and kind code (`warning: unknown-directive`).
    pub groups: Vec<(String, Vec<KindGroup>)>,
    /// How many features of each kind, in [`FeatureKind::ALL`]'s order (those with none
    /// left out).
    pub kinds: Vec<(FeatureKind, usize)>,
    /// How many features have a problem.
    pub problems: usize,
    /// How many messages are errors.
    pub errors: usize,
}

/// Messages of one kind in one file: the kind, and the messages' indices.
pub type KindGroup = (String, Vec<usize>);

/// Where the viewer and the report file a message that is about no file (what the
/// renderer says of the scene).
pub(crate) const NO_FILE: &str = "(scene)";

/// The group a message is filed under in its file: its severity and its kind code.
fn group_of(d: &Diagnostic) -> String {
    format!("{}: {}", d.severity, d.kind)
}

impl FeatureIndex {
    /// The index of a scene's features and of its messages.
    pub fn of(features: &[FeatureInfo], messages: &[Diagnostic]) -> FeatureIndex {
        let mut problem: Vec<bool> = features
            .iter()
            .map(|f| {
                f.resolved.is_none() && !is_builtin(f)
                    || f.dropped.is_some()
                    || f.choice.as_ref().is_some_and(|c| !c.fits)
            })
            .collect();
        let mut message_feature = Vec::with_capacity(messages.len());
        let mut files: BTreeMap<String, BTreeMap<String, Vec<usize>>> = BTreeMap::new();
        for (k, d) in messages.iter().enumerate() {
            let feature = d.feature.filter(|&i| i < features.len());
            if let Some(i) = feature.filter(|_| d.severity != Severity::Note) {
                problem[i] = true;
            }
            message_feature.push(feature);
            files
                .entry(d.shown_file().unwrap_or_else(|| NO_FILE.to_string()))
                .or_default()
                .entry(group_of(d))
                .or_default()
                .push(k);
        }
        let groups = files
            .into_iter()
            .map(|(f, kinds)| (f, kinds.into_iter().collect()))
            .collect();
        let kinds = FeatureKind::ALL
            .iter()
            .map(|&k| (k, features.iter().filter(|f| f.kind == k).count()))
            .filter(|&(_, n)| n > 0)
            .collect();
        let problems = problem.iter().filter(|&&p| p).count();
        let errors = messages.iter().filter(|d| d.is_error()).count();
        FeatureIndex {
            problem,
            message_feature,
            groups,
            kinds,
            problems,
            errors,
        }
    }
}

/// Airport pavement draws agview's own art: it resolves to no file and is not missing.
pub(crate) fn is_builtin(f: &FeatureInfo) -> bool {
    matches!(
        f.kind,
        FeatureKind::Runway | FeatureKind::Helipad | FeatureKind::Pavement | FeatureKind::Marking
    )
}

/// The columns, each sortable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortBy {
    Source,
    Asset,
    Kind,
    Resolved,
    Stats,
}

/// The table's state: filter, sort, selection, and the rows they give (worked out again
/// only when one of them or the scene changes).
#[derive(Debug)]
pub struct FeatureTable {
    pub filter: String,
    pub problems_only: bool,
    /// Kinds hidden by their checkbox.
    pub hidden: Vec<FeatureKind>,
    pub sort: SortBy,
    pub ascending: bool,
    /// The selected feature (an index into `Scene::features`).
    pub selected: Option<usize>,
    /// Scroll the selected row into view on the next frame.
    pub scroll_to_selected: bool,
    /// Feature indices in the order shown.
    rows: Vec<usize>,
    /// What `rows` was made for: the scene's generation and the settings.
    made_for: Option<RowsKey>,
}

impl Default for FeatureTable {
    fn default() -> Self {
        FeatureTable {
            filter: String::new(),
            problems_only: false,
            hidden: Vec::new(),
            sort: SortBy::Source,
            ascending: true,
            selected: None,
            scroll_to_selected: false,
            rows: Vec::new(),
            made_for: None,
        }
    }
}

/// A scene generation and the table settings the rows were made for.
type RowsKey = (u64, String, bool, Vec<FeatureKind>, SortBy, bool);

/// What the user did in the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableAction {
    /// A row or a warning was clicked: the feature is selected.
    Select(usize),
    /// A row was double-clicked: select and frame it.
    Frame(usize),
}

pub(crate) fn stats_text(f: &FeatureInfo) -> String {
    if let Some(r) = &f.road {
        return road_text(r, f.stats.road_segments);
    }
    let mut parts = Vec::new();
    for (what, n) in f.stats.parts() {
        if n > 0 {
            parts.push(format!("{n} {what}"));
        }
    }
    if parts.is_empty() {
        "nothing placed".into()
    } else {
        parts.join(", ")
    }
}

/// A road feature's stats: its length and road type (`120 m, type 12`, `80 m, plain
/// profile residential`), and its levels when it leaves the ground.
fn road_text(r: &crate::scene::FeatureRoad, segments: usize) -> String {
    let levels = if r.levels == [0, 0] {
        String::new()
    } else {
        format!(", levels {} → {}", r.levels[0], r.levels[1])
    };
    if segments == 0 {
        let why = if r.levels.iter().any(|&l| l < 0) {
            "a tunnel: not drawn"
        } else {
            "nothing placed"
        };
        return format!("{why}{levels}");
    }
    format!("{:.0} m, {}{levels}", r.length, r.label())
}

/// A number for sorting by what a feature placed.
fn stats_key(f: &FeatureInfo) -> usize {
    f.stats.parts().iter().map(|(_, n)| n).sum()
}

/// `source` without its folders (the table's column; the full text shows on hover).
pub fn short_source(source: &str) -> &str {
    source.rsplit(['/', '\\']).next().unwrap_or(source)
}

impl FeatureTable {
    /// The rows for `features` (of the scene `generation`) under the current filter and
    /// sort; worked out again only when something changed.
    pub fn rows(
        &mut self,
        generation: u64,
        features: &[FeatureInfo],
        index: &FeatureIndex,
    ) -> &[usize] {
        let fresh = self.made_for.as_ref().is_some_and(|k| {
            k.0 == generation
                && k.1 == self.filter
                && k.2 == self.problems_only
                && k.3 == self.hidden
                && k.4 == self.sort
                && k.5 == self.ascending
        });
        if !fresh {
            let key = (
                generation,
                self.filter.clone(),
                self.problems_only,
                self.hidden.clone(),
                self.sort,
                self.ascending,
            );
            let needle = self.filter.to_lowercase();
            let mut rows: Vec<usize> = (0..features.len())
                .filter(|&i| {
                    let f = &features[i];
                    !self.hidden.contains(&f.kind)
                        && (!self.problems_only || index.problem.get(i).copied().unwrap_or(false))
                        && (needle.is_empty()
                            || f.source.to_lowercase().contains(&needle)
                            || f.asset.to_lowercase().contains(&needle)
                            || f.road.as_ref().is_some_and(|r| r.label().contains(&needle))
                            || f.resolved
                                .as_deref()
                                .is_some_and(|r| r.to_lowercase().contains(&needle)))
                })
                .collect();
            let empty = String::new();
            match self.sort {
                // Sources sort as written, which for one file is line order; stable sorts keep
                // document order within equal keys.
                SortBy::Source => {}
                SortBy::Asset => rows.sort_by(|&a, &b| features[a].asset.cmp(&features[b].asset)),
                SortBy::Kind => rows.sort_by_key(|&i| features[i].kind.name()),
                SortBy::Resolved => rows.sort_by(|&a, &b| {
                    let r = |i: usize| features[i].resolved.as_ref().unwrap_or(&empty);
                    r(a).cmp(r(b))
                }),
                SortBy::Stats => rows.sort_by_key(|&i| stats_key(&features[i])),
            }
            if !self.ascending {
                rows.reverse();
            }
            self.rows = rows;
            self.made_for = Some(key);
        }
        &self.rows
    }

    /// Selects feature `i` and scrolls its row into view.
    pub fn select(&mut self, i: usize) {
        self.selected = Some(i);
        self.scroll_to_selected = true;
    }

    /// The table: filter, kinds, problems only, and the rows. Returns what was clicked.
    pub fn show(
        &mut self,
        ui: &mut egui::Ui,
        generation: u64,
        features: &[FeatureInfo],
        index: &FeatureIndex,
    ) -> Option<TableAction> {
        let mut action = None;
        ui.horizontal_wrapped(|ui| {
            ui.label("filter");
            ui.add(egui::TextEdit::singleline(&mut self.filter).desired_width(180.0));
            ui.checkbox(&mut self.problems_only, "problems only")
                .on_hover_text("unresolved, screened out, no spelling fits, or named by a warning");
            ui.separator();
            for &(kind, n) in &index.kinds {
                let mut shown = !self.hidden.contains(&kind);
                if ui
                    .checkbox(&mut shown, format!("{} ({n})", kind.name()))
                    .changed()
                {
                    if shown {
                        self.hidden.retain(|k| *k != kind);
                    } else {
                        self.hidden.push(kind);
                    }
                }
            }
        });
        // The rows are borrowed out of the table for the frame (no copy) and put back.
        self.rows(generation, features, index);
        let rows = std::mem::take(&mut self.rows);
        let selected_row = if self.scroll_to_selected {
            self.selected
                .and_then(|s| rows.iter().position(|&r| r == s))
        } else {
            None
        };
        ui.label(format!("{} of {} feature(s)", rows.len(), features.len()));
        let row_h = ui.text_style_height(&egui::TextStyle::Body) + 4.0;
        let mut table = TableBuilder::new(ui)
            .striped(true)
            .resizable(true)
            .sense(egui::Sense::click())
            .cell_layout(egui::Layout::left_to_right(egui::Align::Center))
            .column(Column::initial(150.0).at_least(60.0).clip(true))
            .column(Column::initial(200.0).at_least(60.0).clip(true))
            .column(Column::initial(70.0).at_least(40.0).clip(true))
            .column(Column::initial(220.0).at_least(60.0).clip(true))
            .column(Column::remainder().at_least(80.0).clip(true))
            .min_scrolled_height(0.0);
        if self.scroll_to_selected {
            if let Some(r) = selected_row {
                table = table.scroll_to_row(r, Some(egui::Align::Center));
            }
            self.scroll_to_selected = false;
        }
        table
            .header(row_h + 2.0, |mut header| {
                for (col, name) in [
                    (SortBy::Source, "source"),
                    (SortBy::Asset, "asset"),
                    (SortBy::Kind, "kind"),
                    (SortBy::Resolved, "resolved"),
                    (SortBy::Stats, "stats"),
                ] {
                    header.col(|ui| {
                        let arrow = match (self.sort == col, self.ascending) {
                            (true, true) => " ^",
                            (true, false) => " v",
                            _ => "",
                        };
                        if ui
                            .button(RichText::new(format!("{name}{arrow}")).strong())
                            .clicked()
                        {
                            if self.sort == col {
                                self.ascending = !self.ascending;
                            } else {
                                self.sort = col;
                                self.ascending = true;
                            }
                        }
                    });
                }
            })
            .body(|body| {
                body.rows(row_h, rows.len(), |mut row| {
                    let i = rows[row.index()];
                    let f = &features[i];
                    row.set_selected(self.selected == Some(i));
                    let problem = index.problem.get(i).copied().unwrap_or(false);
                    row.col(|ui| {
                        cut_label(ui, short_source(&f.source), &f.source, None);
                    });
                    row.col(|ui| {
                        cut_label(ui, &f.asset, &f.asset, None);
                    });
                    row.col(|ui| {
                        ui.label(f.kind.name());
                    });
                    row.col(|ui| match (&f.resolved, &f.package) {
                        (Some(r), Some(p)) => {
                            cut_label(ui, r, &format!("{r}\nfrom the library of {p}"), None);
                        }
                        (Some(r), None) => {
                            cut_label(ui, r, r, None);
                        }
                        (None, _) if is_builtin(f) => {
                            ui.weak("agview's own art");
                        }
                        (None, _) if f.kind == FeatureKind::Road => {
                            cut_label(
                                ui,
                                "not found: plain profile",
                                &format!("{}: not found; drawn in the plain profile", f.asset),
                                Some(WARNING),
                            );
                        }
                        (None, _) => {
                            cut_label(ui, "not found: a placeholder", &f.asset, Some(ERROR));
                        }
                    });
                    row.col(|ui| {
                        let text = stats_text(f);
                        let why = f.dropped.clone().or_else(|| {
                            f.choice
                                .as_ref()
                                .filter(|c| !c.fits)
                                .map(|_| "no spelling fits: the closest is drawn".to_string())
                        });
                        match why {
                            Some(w) => cut_label(ui, &format!("{text}; {w}"), &w, Some(ERROR)),
                            None if problem => {
                                cut_label(ui, &text, "a warning names this feature", Some(WARNING))
                            }
                            None => cut_label(ui, &text, &text, None),
                        }
                    });
                    let r = row.response();
                    if r.double_clicked() {
                        action = Some(TableAction::Frame(i));
                    } else if r.clicked() {
                        action = Some(TableAction::Select(i));
                    }
                });
            });
        if let Some(TableAction::Select(i) | TableAction::Frame(i)) = action {
            self.selected = Some(i);
        }
        self.rows = rows;
        action
    }
}

/// A one-line label cut with an ellipsis where it does not fit, the full text on hover.
pub fn cut_label(ui: &mut egui::Ui, text: &str, hover: &str, color: Option<Color32>) {
    let rich = match color {
        Some(c) => RichText::new(text).color(c),
        None => RichText::new(text),
    };
    ui.add(egui::Label::new(rich).truncate().selectable(false))
        .on_hover_text(hover);
}

/// The warnings grouped by file and by kind, with counts. Returns the feature of a message
/// that was clicked.
pub fn show_messages(
    ui: &mut egui::Ui,
    messages: &[Diagnostic],
    index: &FeatureIndex,
) -> Option<usize> {
    let mut clicked = None;
    for (file, kinds) in &index.groups {
        let n: usize = kinds.iter().map(|(_, v)| v.len()).sum();
        let errors: usize = kinds
            .iter()
            .filter(|(k, _)| k.starts_with("error"))
            .map(|(_, v)| v.len())
            .sum();
        let short = short_source(file);
        let title = if errors > 0 {
            RichText::new(format!("{short} ({n}, {errors} error(s))")).color(ERROR)
        } else {
            RichText::new(format!("{short} ({n})")).color(WARNING)
        };
        egui::CollapsingHeader::new(title)
            .id_salt(("messages", file))
            .default_open(index.groups.len() == 1)
            .show(ui, |ui| {
                ui.weak(file);
                for (kind, list) in kinds {
                    egui::CollapsingHeader::new(format!("{kind} ({})", list.len()))
                        .id_salt(("kind", file, kind))
                        .default_open(list.len() <= 3)
                        .show(ui, |ui| {
                            for &k in list.iter().take(100) {
                                let d = &messages[k];
                                let m = d.to_string();
                                let color = severity_color(d.severity);
                                let text = RichText::new(&m).monospace().size(11.0).color(color);
                                let feature = index.message_feature.get(k).copied().flatten();
                                let r = ui
                                    .add(
                                        egui::Label::new(text)
                                            .truncate()
                                            .sense(egui::Sense::click()),
                                    )
                                    .on_hover_text(match feature {
                                        Some(_) => format!("{m}\n(click: select its feature)"),
                                        None => m,
                                    });
                                if r.clicked() {
                                    clicked = feature;
                                }
                            }
                            if list.len() > 100 {
                                ui.weak(format!("… and {} more", list.len() - 100));
                            }
                        });
                }
            });
    }
    clicked
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::kind;

    fn feature(source: &str, asset: &str, kind: FeatureKind, objects: usize) -> FeatureInfo {
        let mut f = FeatureInfo::new(source.into(), asset.into(), kind, 0);
        f.resolved = Some(format!("/pkg/{asset}"));
        f.stats.objects = objects;
        f
    }

    #[test]
    fn messages_name_their_features_and_group_by_file_and_kind() {
        let features = vec![
            feature("doc.txt:12", "a.agp", FeatureKind::Agp, 3),
            feature("doc.txt:20", "b.obj", FeatureKind::Obj, 1),
        ];
        let doc = std::path::Path::new("doc.txt");
        let messages = vec![
            Diagnostic::warning_at(doc, 20, 1, "`x.obj` not found (tried a, b)")
                .with_kind(kind::UNRESOLVED)
                .for_feature(1),
            Diagnostic::warning_at(doc, 31, 1, "`y.obj` not found (tried c)")
                .with_kind(kind::UNRESOLVED),
            Diagnostic::error_at(
                std::path::Path::new("a.agp"),
                4,
                7,
                "TILE: <left> must be a number",
            )
            .with_kind(kind::SYNTAX),
            Diagnostic::general(Severity::Warning, "mesh m: drawn as a placeholder box")
                .with_kind(kind::RENDER),
            Diagnostic::general(Severity::Note, "texture budget").for_feature(0),
        ];
        let ix = FeatureIndex::of(&features, &messages);
        assert_eq!(ix.message_feature, [Some(1), None, None, None, Some(0)]);
        // A note names its feature without making it a problem.
        assert_eq!(ix.problem, [false, true]);
        assert_eq!(ix.errors, 1);
        let files: Vec<&str> = ix.groups.iter().map(|(f, _)| f.as_str()).collect();
        assert_eq!(files, ["(scene)", "a.agp", "doc.txt"]);
        let (_, kinds) = &ix.groups[2];
        assert_eq!(kinds, &[("warning: unresolved".to_string(), vec![0, 1])]);
        let (_, scene) = &ix.groups[0];
        let scene: Vec<&str> = scene.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(scene, ["note: general", "warning: render"]);
    }

    fn road(source: &str, length: f32, road_type: Option<u32>, plain: Option<&str>) -> FeatureInfo {
        let mut f = FeatureInfo::new(
            source.into(),
            "lib/g10/roads.net".into(),
            FeatureKind::Road,
            0,
        );
        f.resolved = road_type.map(|_| "/x/roads.net".to_string());
        f.road = Some(Box::new(crate::scene::FeatureRoad {
            length,
            road_type,
            plain: plain.map(str::to_string),
            ..Default::default()
        }));
        f.stats.road_segments = 1;
        f.stats.road_length = length.round() as usize;
        f
    }

    #[test]
    fn road_rows_show_length_and_type_and_say_plain_profile() {
        let mut features = vec![
            road("d.txt:10", 120.4, Some(12), None),
            road("d.txt:11", 80.0, None, Some("residential")),
            road("d.txt:12", 30.0, Some(40), None),
            feature("d.txt:13", "a.agp", FeatureKind::Agp, 2),
        ];
        features[2].road.as_mut().unwrap().levels = [0, 1];
        assert_eq!(stats_text(&features[0]), "120 m, type 12");
        assert_eq!(stats_text(&features[1]), "80 m, plain profile residential");
        assert_eq!(stats_text(&features[2]), "30 m, type 40, levels 0 → 1");
        // A tunnel is not drawn.
        let mut tunnel = road("d.txt:14", 0.0, None, None);
        tunnel.stats.road_segments = 0;
        tunnel.road.as_mut().unwrap().levels = [0, -1];
        assert_eq!(stats_text(&tunnel), "a tunnel: not drawn, levels 0 → -1");
        let ix = FeatureIndex::of(&features, &[]);
        assert_eq!(ix.kinds, [(FeatureKind::Agp, 1), (FeatureKind::Road, 3)]);
        let mut t = FeatureTable {
            filter: "plain profile".into(),
            ..FeatureTable::default()
        };
        assert_eq!(t.rows(1, &features, &ix), [1]);
        t.filter.clear();
        t.hidden.push(FeatureKind::Road);
        assert_eq!(t.rows(1, &features, &ix), [3]);
        // Longest road first, by what it placed.
        t.hidden.clear();
        t.sort = SortBy::Stats;
        t.ascending = false;
        assert_eq!(t.rows(1, &features, &ix)[0], 0);
    }

    #[test]
    fn rows_filter_and_sort_and_are_made_again_only_on_a_change() {
        let mut features: Vec<FeatureInfo> = (0..30_000)
            .map(|i| {
                feature(
                    &format!("doc.txt:{}", i + 5),
                    &format!("lib/kind_{}.agp", i % 7),
                    if i % 3 == 0 {
                        FeatureKind::Obj
                    } else {
                        FeatureKind::Agp
                    },
                    i % 11,
                )
            })
            .collect();
        features[7].resolved = None;
        let ix = FeatureIndex::of(&features, &[]);
        let mut t = FeatureTable::default();
        assert_eq!(t.rows(1, &features, &ix).len(), 30_000);
        t.problems_only = true;
        assert_eq!(t.rows(1, &features, &ix), [7]);
        t.problems_only = false;
        t.filter = "KIND_3".into();
        assert!(t.rows(1, &features, &ix).iter().all(|&i| i % 7 == 3));
        t.filter.clear();
        t.hidden.push(FeatureKind::Obj);
        assert!(t.rows(1, &features, &ix).iter().all(|&i| i % 3 != 0));
        t.hidden.clear();
        t.sort = SortBy::Stats;
        t.ascending = false;
        let rows = t.rows(1, &features, &ix).to_vec();
        assert!(rows
            .windows(2)
            .all(|w| stats_key(&features[w[0]]) >= stats_key(&features[w[1]])));
        // Asked again with nothing changed: the same rows, not made again.
        let again = t.rows(1, &features, &ix).as_ptr();
        assert_eq!(again, t.rows(1, &features, &ix).as_ptr());
    }
}
