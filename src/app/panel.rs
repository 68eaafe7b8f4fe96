//! The viewer's side panel (egui): what was laid out, the warnings and errors with their
//! lines, and the controls (seed, density, terrain, block size, layers, overlays, camera).
//!
//! The panel only edits [`Controls`] and returns [`Action`]s; the window decides what each
//! one costs (a new layout on the loader thread, a uniform, a camera move).

use std::path::Path;

use egui::{Color32, RichText};

use crate::app::camera_control::Mode;
use crate::app::features::{
    cut_label, severity_color, short_source, show_messages, FeatureIndex, FeatureTable, TableAction,
};
use crate::document::Document;
use crate::render::{DrawStats, Overlays, SceneGpuStats};
use crate::scene::SceneKind;

const ERROR: Color32 = Color32::from_rgb(255, 90, 80);
const WARNING: Color32 = Color32::from_rgb(240, 190, 60);
const GOOD: Color32 = Color32::from_rgb(120, 210, 120);

/// How the terrain is made, as the panel offers it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TerrainKind {
    Flat,
    Hills,
    Heightmap,
}

/// Layers drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layers {
    pub terrain: bool,
    pub tiles: bool,
    pub objects: bool,
    pub facades: bool,
    pub trees: bool,
    /// Draped polygons and orthophotos.
    pub draped: bool,
    /// Painted lines.
    pub lines: bool,
    /// An airport's pavement.
    pub pavement: bool,
    /// An airport's painted markings.
    pub markings: bool,
    /// Road networks.
    pub roads: bool,
}

impl Default for Layers {
    fn default() -> Self {
        Layers {
            terrain: true,
            tiles: true,
            objects: true,
            facades: true,
            trees: true,
            draped: true,
            lines: true,
            pavement: true,
            markings: true,
            roads: true,
        }
    }
}

/// What the user can change.
#[derive(Debug, Clone, PartialEq)]
pub struct Controls {
    pub seed: u64,
    /// The season library paths resolve in (`--season`; the `N` key cycles it).
    pub season: crate::season::Season,
    pub density: u8,
    pub terrain: TerrainKind,
    pub heightmap: String,
    pub exaggeration: f32,
    /// The block's rectangle in meters when it is laid out on one (`--rect`).
    pub rect: Option<[f32; 2]>,
    pub layers: Layers,
    pub overlays: Overlays,
    /// Objects switch LOD at the distance (X-Plane's pop), not by a cross-fade.
    pub hard_lod_switch: bool,
    /// The sun, and the time of day (hours) the slider last set it from ([`Sun::at_hour`]).
    pub sun: crate::render::Sun,
    pub hour: f32,
    /// Exposure compensation in stops (`--exposure`; the Sun panel's slider).
    pub exposure_ev: f32,
    pub shadows: bool,
    pub show_panel: bool,
    /// The feature table under the view (documents).
    pub show_features: bool,
    /// Edit mode (`P`, `--edit`): handles on the shape instead of picking features.
    pub edit: bool,
}

/// What the user asked for this frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Seed, season or rectangle changed: lay out again.
    Relayout,
    /// N: the next season (`spr`, `sum`, `fal`, `win`), resolved and laid out again.
    NextSeason,
    /// Terrain kind or height map changed: rebuild the terrain.
    Terrain,
    Reroll,
    /// F: frame the selected feature, else what the view frames by default.
    Frame,
    /// Frame the main cluster (the default) or everything.
    FrameMain,
    FrameAll,
    /// Select a feature (a row, a warning); highlight it.
    Select(usize),
    /// Select a feature and frame it.
    FrameFeature(usize),
    /// Clear the selection.
    Deselect,
    ToggleOrbitFly,
    ToggleTop,
    Screenshot,
    /// Shift+F12: the screenshot with the panel in it.
    ScreenshotWithPanel,
    /// P: edit mode on or off.
    ToggleEdit,
}

/// What the panel shows (read-only).
pub struct Info<'a> {
    pub asset: &'a Path,
    pub view: Option<&'a Document>,
    /// Every warning and error line (`path:line:col: …`).
    pub messages: &'a [crate::diag::Diagnostic],
    /// The last load's error, while the last good scene stays on screen.
    pub error: Option<&'a str>,
    pub loading: bool,
    /// While a document loads: features laid out, of how many, and the stage.
    pub progress: (usize, usize),
    pub stage: crate::progress::Stage,
    pub mode: Mode,
    pub speed: f32,
    pub frame_ms: f32,
    pub draw: DrawStats,
    pub gpu: Option<SceneGpuStats>,
    pub adapter: &'a str,
    /// The last screenshot's message and whether it is an error.
    pub status: Option<&'a (String, bool)>,
    pub watched: usize,
    pub watch_error: Option<&'a str>,
    /// The scene's feature index (made once per scene) and its generation.
    pub index: Option<&'a FeatureIndex>,
    pub generation: u64,
    /// Milliseconds the panel took last frame (egui's layout and tessellation).
    pub ui_ms: f32,
    /// The camera as the `--camera X,Y,Z,YAW,PITCH` argument that places it again (`None`
    /// for the top view).
    pub camera: Option<String>,
}

fn kind_name(k: SceneKind) -> &'static str {
    match k {
        SceneKind::Agp => "autogen point (.agp)",
        SceneKind::Agb => "autogen block (.agb)",
        SceneKind::Ags => "autogen string (.ags)",
        SceneKind::Agn => "FSX autogen (.agn)",
        SceneKind::Dsf => "DSF: its features",
        SceneKind::Wed => "WED project: its features",
        SceneKind::Art => "object, facade or forest alone (.obj .fac .for)",
    }
}

/// The side panel's width: about 320 points or 22% of the window, whichever is larger.
pub fn default_width(window: f32) -> f32 {
    320.0f32.max(window * 0.22)
}

/// The widest the side panel may be: the 3D view keeps at least 60% of the window.
pub fn max_width(window: f32) -> f32 {
    (window * 0.4).max(120.0)
}

/// Draws the panel and, for a document, the feature table under the view, and returns
/// what the user asked for. `width` is the side panel's width as remembered (`None`: the
/// default); it is updated to the width drawn.
pub fn show(
    ui: &mut egui::Ui,
    c: &mut Controls,
    info: &Info,
    table: &mut FeatureTable,
    width: &mut Option<f32>,
) -> Vec<Action> {
    let mut actions = Vec::new();
    let window = ui.max_rect();
    let max = max_width(window.width());
    let start = width
        .unwrap_or_else(|| default_width(window.width()))
        .clamp(120.0_f32.min(max), max);
    let r = egui::Panel::left("agview-panel")
        .resizable(true)
        .default_size(start)
        .size_range(120.0_f32.min(max)..=max)
        .show(ui, |ui| {
            egui::ScrollArea::vertical().show(ui, |ui| {
                contents(ui, c, info, table, &mut actions);
            });
        });
    *width = Some(r.response.rect.width());
    let features = info.view.map_or(&[][..], |v| &v.loaded.scene.features[..]);
    if c.show_features && !features.is_empty() {
        if let Some(index) = info.index {
            egui::Panel::bottom("agview-features")
                .resizable(true)
                .default_size(window.height() * 0.3)
                .size_range(80.0..=window.height() * 0.7)
                .show(ui, |ui| {
                    ui.horizontal(|ui| {
                        ui.strong("Features");
                        ui.weak("click: select · double-click or F: frame · click in the view: pick · L: hide");
                    });
                    match table.show(ui, info.generation, features, index) {
                        Some(TableAction::Select(i)) => actions.push(Action::Select(i)),
                        Some(TableAction::Frame(i)) => actions.push(Action::FrameFeature(i)),
                        None => {}
                    }
                });
        }
    }
    actions
}

fn contents(
    ui: &mut egui::Ui,
    c: &mut Controls,
    info: &Info,
    table: &mut FeatureTable,
    actions: &mut Vec<Action>,
) {
    let name = info
        .asset
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    ui.add(egui::Label::new(RichText::new(&name).heading()).truncate())
        .on_hover_text(&name);
    let full = crate::diag::shown_path(info.asset);
    ui.add(egui::Label::new(RichText::new(&full).small()).truncate())
        .on_hover_text(&full);
    if let Some(e) = info.error {
        ui.colored_label(ERROR, RichText::new(e).strong());
        if info.view.is_some() {
            ui.weak("showing the last scene that loaded; fix the file to reload");
        } else {
            ui.weak("nothing to show yet; fix the file to reload");
        }
    }
    if info.loading {
        let (done, total) = info.progress;
        let stage = info.stage;
        if stage == crate::progress::Stage::LayingOut && total > 0 {
            ui.add(
                egui::ProgressBar::new(done as f32 / total as f32)
                    .text(format!("laying out: {done} of {total} features")),
            );
        } else {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label(format!("{}…", stage.label()));
            });
        }
        if info.view.is_some() {
            ui.weak("the last scene stays on screen until the new one is ready");
        }
    }
    if let Some(v) = info.view {
        scene_section(ui, v, info, c, table, actions);
    }
    // Counted once per scene (`FeatureIndex`), not every frame.
    let n_err = info.index.map_or(0, |i| i.errors);
    egui::CollapsingHeader::new(format!("Warnings and errors ({})", info.messages.len()))
        .default_open(!info.messages.is_empty())
        .show(ui, |ui| {
            if info.messages.is_empty() {
                ui.colored_label(GOOD, "none");
            }
            if n_err > 0 {
                ui.colored_label(ERROR, format!("{n_err} error(s)"));
            }
            match info.index {
                Some(index) if index.message_feature.len() == info.messages.len() => {
                    if let Some(i) = show_messages(ui, info.messages, index) {
                        actions.push(Action::Select(i));
                    }
                }
                _ => {
                    for d in info.messages.iter().take(200) {
                        let m = d.to_string();
                        let color = severity_color(d.severity);
                        let text = RichText::new(&m).monospace().size(11.0).color(color);
                        ui.add(egui::Label::new(text).truncate()).on_hover_text(m);
                    }
                    if info.messages.len() > 200 {
                        ui.weak(format!("… and {} more", info.messages.len() - 200));
                    }
                }
            }
        });
    controls_section(ui, c, info, actions);
    egui::CollapsingHeader::new("Frame")
        .default_open(true)
        .show(ui, |ui| {
            let fps = if info.frame_ms > 0.0 {
                1000.0 / info.frame_ms
            } else {
                0.0
            };
            ui.label(format!("{:.1} ms a frame ({fps:.0} fps)", info.frame_ms));
            ui.label(format!("UI {:.2} ms a frame", info.ui_ms));
            ui.label(format!(
                "{} draw call(s), {} triangle(s), {} instance(s)",
                info.draw.draw_calls, info.draw.triangles, info.draw.instances
            ));
            if let Some(g) = info.gpu {
                ui.label(format!(
                    "GPU memory: {:.1} MB buffers, {:.1} MB textures",
                    g.buffer_bytes as f64 / 1e6,
                    g.texture_bytes as f64 / 1e6
                ));
            }
            if let Some(c) = &info.camera {
                let arg = format!("--camera={c}");
                ui.horizontal(|ui| {
                    ui.add(egui::Label::new(RichText::new(&arg).monospace().size(11.0)).truncate())
                        .on_hover_text(
                            "the camera as the argument that places it again (agview render, view)",
                        );
                    if ui.small_button("copy").clicked() {
                        ui.ctx().copy_text(arg.clone());
                    }
                });
            }
            ui.small(info.adapter);
            match info.watch_error {
                Some(e) => ui.colored_label(WARNING, e),
                None => ui.small(format!("watching {} file(s) for changes", info.watched)),
            };
        });
    ui.separator();
    ui.weak(
        "W A S D Q E move · right drag look · wheel speed/zoom · Shift fast\n\
         O orbit/fly · T top · F frame · G frame what is under the cursor\n\
         click pick · L feature table · R reroll · F12 screenshot · H panel · P edit",
    );
}

fn scene_section(
    ui: &mut egui::Ui,
    v: &Document,
    info: &Info,
    c: &mut Controls,
    table: &mut FeatureTable,
    actions: &mut Vec<Action>,
) {
    let s = &v.loaded.scene;
    egui::CollapsingHeader::new("Layout")
        .default_open(true)
        .show(ui, |ui| {
            ui.label(kind_name(s.kind));
            let shown = info.gpu.map_or(s.stats.objects, |g| g.objects_shown);
            egui::Grid::new("stats").num_columns(2).show(ui, |ui| {
                ui.label("tiles");
                ui.label(format!(
                    "{} ({} quad(s))",
                    s.stats.tiles, s.stats.tile_quads
                ));
                ui.end_row();
                ui.label("objects");
                ui.label(format!("{} ({shown} at this density)", s.stats.objects));
                ui.end_row();
                ui.label("facades");
                ui.label(s.stats.facades.to_string());
                ui.end_row();
                ui.label("trees");
                ui.label(s.stats.trees.to_string());
                ui.end_row();
                ui.label("seed");
                ui.label(s.seed.to_string());
                ui.end_row();
                ui.label("season");
                ui.label(s.season.word());
                ui.end_row();
            });
            if let Some(ch) = &s.choice {
                ui.separator();
                ui.label(format!(
                    "spelling set {}, grid {}",
                    ch.spelling_set, ch.grid
                ));
                ui.monospace(format!("columns {:?}", ch.spelling_s));
                ui.monospace(format!("rows    {:?}", ch.spelling_t));
                if ch.fits {
                    ui.colored_label(GOOD, "a spelling fits");
                } else {
                    ui.colored_label(ERROR, "no spelling fits: the closest is drawn");
                }
            }
            if !s.corners.is_empty() {
                ui.separator();
                ui.label(format!("{} corner(s)", s.corners.len()));
                egui::Grid::new("corners").striped(true).show(ui, |ui| {
                    for (i, k) in s.corners.iter().enumerate().take(64) {
                        ui.monospace(format!("c{} v{i}", k.contour));
                        ui.monospace(format!("{:+.1}°", k.angle));
                        match k.rule_line {
                            Some(l) => ui.monospace(format!("rule line {l}")),
                            None => ui.weak("none placed"),
                        };
                        ui.end_row();
                    }
                });
            }
            if !s.roof_types.is_empty() {
                ui.separator();
                ui.label(format!("{} roof type(s)", s.roof_types.len()));
                egui::Grid::new("roof_types").striped(true).show(ui, |ui| {
                    for r in s.roof_types.iter().take(64) {
                        ui.monospace(&r.guid);
                        ui.label(format!("{} building(s)", r.buildings));
                        match &r.texture {
                            Some(t) => ui.label(t),
                            None if r.guid == "default" => ui.weak("pitched ≤ 3 floors, else flat"),
                            None => ui.weak("flat (map it with --guid-map)"),
                        };
                        ui.end_row();
                    }
                });
            }
            let features = &v.loaded.scene.features;
            if !features.is_empty() {
                ui.separator();
                let problems = info.index.map_or(0, |ix| ix.problems);
                ui.horizontal(|ui| {
                    ui.label(format!("{} feature(s)", features.len()));
                    if problems > 0 {
                        ui.colored_label(ERROR, format!("{problems} with problems"));
                    }
                });
                ui.checkbox(&mut c.show_features, "feature table (L)");
                if let Some(i) = table.selected.filter(|&i| i < features.len()) {
                    let f = &features[i];
                    ui.horizontal(|ui| {
                        ui.label("selected:");
                        cut_label(ui, short_source(&f.source), &f.source, None);
                    });
                    cut_label(ui, &f.asset, &f.asset, None);
                    ui.horizontal(|ui| {
                        if ui.button("frame it (F)").clicked() {
                            actions.push(Action::FrameFeature(i));
                        }
                        if ui.button("clear").clicked() {
                            actions.push(Action::Deselect);
                        }
                    });
                }
            }
        });
}

fn controls_section(ui: &mut egui::Ui, c: &mut Controls, info: &Info, actions: &mut Vec<Action>) {
    egui::CollapsingHeader::new("Layout controls")
        .default_open(true)
        .show(ui, |ui| {
            let mut edit = c.edit;
            if ui
                .checkbox(&mut edit, "edit mode (P)")
                .on_hover_text("drag the polygon's vertices or the point; Ctrl+S saves (docs/viewer.md)")
                .changed()
            {
                actions.push(Action::ToggleEdit);
            }
            ui.horizontal(|ui| {
                ui.label("seed");
                if ui.add(egui::DragValue::new(&mut c.seed)).changed() {
                    actions.push(Action::Relayout);
                }
                if ui.button("reroll (R)").clicked() {
                    actions.push(Action::Reroll);
                }
            });
            ui.horizontal(|ui| {
                ui.label("season");
                for s in crate::season::Season::ALL {
                    if ui.selectable_value(&mut c.season, s, s.word()).changed() {
                        actions.push(Action::Relayout);
                    }
                }
                ui.weak("(N)");
            })
            .response
            .on_hover_text(
                "The season library paths resolve in: EXPORT*_SEASON lines apply only in their seasons",
            );
            ui.add(egui::Slider::new(&mut c.density, 1..=6).text("object density"));
            ui.checkbox(&mut c.hard_lod_switch, "hard LOD switch (as X-Plane)")
                .on_hover_text("Objects switch LOD at the distance instead of cross-fading");
            let kind = info.view.map(|v| v.loaded.scene.kind);
            if kind == Some(SceneKind::Agb) {
                match &mut c.rect {
                    Some(r) => {
                        let w = ui.add(egui::Slider::new(&mut r[0], 5.0..=600.0).text("width m"));
                        let d = ui.add(egui::Slider::new(&mut r[1], 5.0..=600.0).text("depth m"));
                        if w.changed() || d.changed() {
                            actions.push(Action::Relayout);
                        }
                    }
                    None => {
                        if ui.button("lay out on a rectangle (size sliders)").clicked() {
                            let (lo, hi) = info
                                .view
                                .map_or(([0.0; 2], [100.0, 80.0]), |v| v.loaded.scene.bounds());
                            c.rect = Some([
                                (hi[0] - lo[0]).clamp(5.0, 600.0).round(),
                                (hi[1] - lo[1]).clamp(5.0, 600.0).round(),
                            ]);
                            actions.push(Action::Relayout);
                        }
                    }
                }
            }
        });
    egui::CollapsingHeader::new("Terrain")
        .default_open(false)
        .show(ui, |ui| {
            ui.horizontal(|ui| {
                for (k, n) in [
                    (TerrainKind::Flat, "flat"),
                    (TerrainKind::Hills, "hills"),
                    (TerrainKind::Heightmap, "height map"),
                ] {
                    if ui.radio_value(&mut c.terrain, k, n).changed() && k != TerrainKind::Heightmap
                    {
                        actions.push(Action::Terrain);
                    }
                }
            });
            if c.terrain == TerrainKind::Heightmap {
                ui.horizontal(|ui| {
                    ui.text_edit_singleline(&mut c.heightmap);
                    if ui.button("load").clicked() {
                        actions.push(Action::Terrain);
                    }
                });
            }
            ui.add(egui::Slider::new(&mut c.exaggeration, 0.0..=5.0).text("exaggeration"));
        });
    egui::CollapsingHeader::new("Sun")
        .default_open(true)
        .show(ui, |ui| {
            use crate::render::Sun;
            // The slider's day: an equinox at 30° north (Sun::at_hour): sunrise in the
            // east at 6:00, 60° high in the south at 12:00, sunset in the west at 18:00.
            let slider = egui::Slider::new(&mut c.hour, 0.0..=24.0)
                .text("time of day (h)")
                .fixed_decimals(1);
            if ui
                .add(slider)
                .on_hover_text("An equinox day at 30° north: sunrise 6:00, noon 60° high in the south, sunset 18:00. The exposure follows the light (agview's auto-exposure and ACES-fit tonemap; docs/light.md)")
                .changed()
            {
                c.sun = Sun::at_hour(c.hour);
            }
            ui.horizontal(|ui| {
                for (name, sun) in [("noon", Sun::NOON), ("dusk", Sun::DUSK), ("night", Sun::NIGHT)] {
                    if ui.button(name).clicked() {
                        c.sun = sun;
                        c.hour = sun.nearest_hour();
                    }
                }
            });
            ui.label(format!(
                "elevation {:.1}°, azimuth {:.0}°",
                c.sun.elevation_deg, c.sun.azimuth_deg
            ));
            let max = crate::app::options::MAX_EXPOSURE_EV;
            ui.add(
                egui::Slider::new(&mut c.exposure_ev, -max..=max)
                    .text("exposure (EV)")
                    .step_by(0.1)
                    .fixed_decimals(1),
            )
            .on_hover_text("Exposure compensation in stops on top of the auto-exposure (--exposure): +1 lets in twice the light, -1 half; 0 is the metered exposure (docs/light.md)");
            ui.checkbox(&mut c.shadows, "shadows");
        });
    egui::CollapsingHeader::new("Show")
        .default_open(true)
        .show(ui, |ui| {
            ui.horizontal_wrapped(|ui| {
                let l = &mut c.layers;
                ui.checkbox(&mut l.terrain, "terrain");
                ui.checkbox(&mut l.tiles, "tiles");
                ui.checkbox(&mut l.objects, "objects");
                ui.checkbox(&mut l.facades, "facades");
                ui.checkbox(&mut l.trees, "trees");
                ui.checkbox(&mut l.draped, "draped polygons");
                ui.checkbox(&mut l.lines, "painted lines");
                ui.checkbox(&mut l.pavement, "airport pavement");
                ui.checkbox(&mut l.markings, "airport markings");
                ui.checkbox(&mut l.roads, "roads")
                    .on_hover_text("road networks: DSF network segments and WED roads");
            });
            ui.label("debug overlays");
            ui.horizontal_wrapped(|ui| {
                let o = &mut c.overlays;
                ui.checkbox(&mut o.polygon, "polygon");
                ui.checkbox(&mut o.cut_lines, "cut lines");
                ui.checkbox(&mut o.slop_regions, "slop");
                ui.checkbox(&mut o.ground_points, "ground points");
                ui.checkbox(&mut o.stop_points, "stop points");
                ui.checkbox(&mut o.corners, "corners, sides");
                ui.checkbox(&mut o.caps, "caps");
                ui.checkbox(&mut o.edge_rects, "edges (rects, crossing tiles)");
                ui.checkbox(&mut o.slope_drops, "slope drops");
            });
        });
    egui::CollapsingHeader::new("Camera")
        .default_open(true)
        .show(ui, |ui| {
            let mode = match info.mode {
                Mode::Orbit => "orbit around the scene centre",
                Mode::Fly => "fly",
                Mode::Top => "top view",
            };
            ui.label(format!("{mode}; fly speed {:.0} m/s", info.speed));
            ui.horizontal(|ui| {
                if ui.button("orbit / fly (O)").clicked() {
                    actions.push(Action::ToggleOrbitFly);
                }
                if ui.button("top (T)").clicked() {
                    actions.push(Action::ToggleTop);
                }
                if ui.button("frame (F)").clicked() {
                    actions.push(Action::Frame);
                }
            });
            ui.horizontal(|ui| {
                ui.label("frame");
                if ui
                    .button("main cluster")
                    .on_hover_text("the smallest box holding 90% of the features")
                    .clicked()
                {
                    actions.push(Action::FrameMain);
                }
                if ui.button("everything").clicked() {
                    actions.push(Action::FrameAll);
                }
            });
            if ui.button("screenshot (F12)").clicked() {
                actions.push(Action::Screenshot);
            }
            if let Some((m, is_err)) = info.status {
                ui.colored_label(if *is_err { ERROR } else { GOOD }, m);
            }
        });
}
