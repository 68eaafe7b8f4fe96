//! Edit mode (issue 37): shape the polygon or point the asset is laid out on, in the window.
//!
//! - [`model`]: the shape, its operations and undo (pure);
//! - [`handles`]: window ⇄ world, hit tests, the overlay drawn over the 3D view;
//! - [`script`]: the `--script` test hook's events.
//!
//! Each edit lays the asset out again on the loader thread (a newer edit supersedes one
//! still pending, [`crate::app::reload::Loader`]), with the edited shape as the layout input
//! ([`crate::input::EditedInput`]); `Ctrl+S` writes it back through [`agview_load::edit::save`].

use std::path::{Path, PathBuf};
use std::time::Instant;

use winit::keyboard::KeyCode;

use super::App;
use crate::scene::SceneKind;
use agview_load::edit::{EditedShape, Origin, Shape};

pub mod handles;
pub mod model;
pub mod script;

use handles::Projector;
use model::{Frame, Geometry, Handle, Model, Op, State};

/// The default origin (longitude, latitude) of a shape with no place on the earth (`--rect`,
/// one drawn by hand) when `--origin` is not given: where "Save as GeoJSON" puts it.
pub const DEFAULT_ORIGIN: [f64; 2] = [0.0, 0.0];
/// A new hole's side, meters.
const HOLE_SIZE: f64 = 10.0;

/// One feature being edited.
pub struct Session {
    pub model: Model,
    pub origin: Origin,
    /// The asset path the feature names (for a GeoJSON's properties).
    pub asset: String,
    /// The polygon file and line, for the layout's messages.
    pub source: Option<(PathBuf, u32)>,
    /// Inside a document: the feature edited (its index in `Scene::features`); the others
    /// stay as laid out, and each edit lays out this one alone.
    pub feature: Option<usize>,
    /// What the window's loads keep of the document to lay the edited feature out alone.
    pub doc_cache: std::sync::Arc<agview_load::document::EditCache>,
    pub selected: Option<Handle>,
    /// The handle being dragged, and whether the drag has moved it yet.
    pub drag: Option<(Handle, bool)>,
    /// The last save's or refusal's message, and whether it is an error.
    pub message: Option<(String, bool)>,
    /// An edit waiting for its layout to be on screen: when it was made.
    pub pending: Option<Instant>,
    /// The last edit's time to frame, layout and upload (ms).
    pub last: Option<(f64, f64, f64)>,
    /// "Save as GeoJSON"'s path.
    pub save_as: String,
    /// The source file's modification stamp when read or last saved (a change on disk
    /// while edits are unsaved asks before reloading).
    pub source_stamp: Option<(std::time::SystemTime, u64)>,
}

/// A file's modification time and length.
pub fn stamp(p: &Path) -> Option<(std::time::SystemTime, u64)> {
    let m = std::fs::metadata(p).ok()?;
    Some((m.modified().ok()?, m.len()))
}

/// What the edit window and the dialogs asked for this frame.
#[derive(Debug, Clone, PartialEq)]
pub enum EditAction {
    Undo,
    Redo,
    Save,
    SaveAs(PathBuf),
    AddHole,
    RemoveHole(usize),
    Delete,
    Param(Option<u32>),
    Height(Option<f32>),
    /// Start drawing a new polygon (the old shape is replaced, undoably).
    Draw,
    /// The quit dialog: save then quit, quit without saving, stay.
    QuitSave,
    QuitDiscard,
    QuitCancel,
    /// The file changed on disk with edits unsaved: reload it (dropping them), or keep them.
    ReloadFile,
    KeepEdits,
}

/// An `.ags`'s DSF windings (runs that join at shared end points, the first `low byte` of
/// them spawning; a one-point winding is WED's marker) as closed rings with a spawn flag per
/// edge.
pub fn join_windings(
    windings: &[Vec<[f64; 2]>],
    param: Option<u32>,
) -> (Vec<Vec<[f64; 2]>>, Vec<Vec<bool>>) {
    let n = windings.len();
    let spawning = param.map_or(n, |p| (p & 0xFF) as usize).min(n);
    let mut used = vec![false; n];
    let (mut rings, mut flags) = (Vec::new(), Vec::new());
    for start in 0..n {
        if used[start] {
            continue;
        }
        used[start] = true;
        if windings[start].len() < 2 {
            continue;
        }
        let first = windings[start][0];
        let (mut pts, mut fl) = (Vec::new(), Vec::new());
        let mut cur = start;
        loop {
            let w = &windings[cur];
            let sp = cur < spawning;
            for p in &w[..w.len() - 1] {
                pts.push(*p);
                fl.push(sp);
            }
            let end = w[w.len() - 1];
            if end == first {
                break;
            }
            let next =
                (0..n).find(|&j| !used[j] && windings[j].len() >= 2 && windings[j][0] == end);
            match next {
                Some(j) => {
                    used[j] = true;
                    cur = j;
                }
                None => {
                    // A closed ring written open: its last edge closes it.
                    pts.push(end);
                    fl.push(sp);
                    break;
                }
            }
        }
        rings.push(pts);
        flags.push(fl);
    }
    (rings, flags)
}

impl Session {
    /// The shape to lay out and save; `None` while a polygon is being drawn.
    pub fn edited_shape(&self) -> Option<EditedShape> {
        let m = &self.model;
        let geometry = match &m.state.geometry {
            Geometry::Polygon { rings, .. } => Shape::Polygon(rings.clone()),
            Geometry::Point { at, heading } => Shape::Point {
                lon: at[0],
                lat: at[1],
                heading: *heading,
            },
            Geometry::Drawing(_) => return None,
        };
        Some(EditedShape {
            geometry,
            spawn: m.spawn(),
            param: m.state.param,
            height: m.state.height,
        })
    }

    /// What `Ctrl+S` writes to, in words.
    pub fn target(&self) -> String {
        match &self.origin {
            Origin::GeoJson { path, index } => {
                format!("{} (feature {index})", crate::diag::shown_path(path))
            }
            Origin::DsfText { path, line } => {
                format!("{}:{line}", crate::diag::shown_path(path))
            }
            Origin::ReadOnly { why, .. } => format!("read-only: {why}; use Save as GeoJSON"),
            Origin::Unsaved => "no file yet: use Save as GeoJSON".into(),
        }
    }

    fn writes_back(&self) -> bool {
        matches!(self.origin, Origin::GeoJson { .. } | Origin::DsfText { .. })
    }
}

impl App {
    /// Whether edit mode is on.
    pub(super) fn editing(&self) -> bool {
        self.controls.edit
    }

    /// `P`, the panel's toggle, `--edit`: edit mode on or off (the edits stay).
    pub(super) fn toggle_edit(&mut self) {
        self.controls.edit = !self.controls.edit;
        eprintln!(
            "edit mode {}",
            if self.controls.edit { "on" } else { "off" }
        );
        if self.controls.edit {
            self.ensure_session();
        } else if let Some(s) = &mut self.edit {
            s.drag = None;
        }
        self.request_redraw();
    }

    /// Starts a session on the shown scene's shape, if edit mode is on and none is open.
    pub(super) fn ensure_session(&mut self) {
        if !self.controls.edit || self.edit.is_some() || self.shown.is_none() || self.partial {
            return;
        }
        match self.start_session() {
            Ok(s) => self.edit = Some(s),
            Err(e) => {
                eprintln!("edit mode: {e}");
                self.edit_refusal = Some(e);
            }
        }
    }

    fn start_session(&self) -> Result<Session, String> {
        let s = self.shown.as_ref().ok_or("nothing is loaded yet")?;
        let scene = &s.view.loaded.scene;
        match scene.kind {
            SceneKind::Dsf | SceneKind::Wed => return self.start_feature_session(),
            SceneKind::Agn => {
                return Err("an .agn is laid out on its own square: nothing to edit".into())
            }
            SceneKind::Art => {
                return Err(
                    "a lone .obj, .fac or .for stands on a default place: give --at, --rect \
                     or --polygon to lay it out elsewhere; editing it is not written yet"
                        .into(),
                )
            }
            _ => {}
        }
        let ags = scene.kind == SceneKind::Ags;
        let inputs = &self.job.inputs;
        let asset = self.job.asset.display().to_string();
        let default_origin = inputs
            .origin
            .map_or(DEFAULT_ORIGIN, |(lat, lon)| [lon, lat]);
        let scene_origin = scene.geo.as_ref().map(|g| [g.origin_lon, g.origin_lat]);
        let state = |geometry| State {
            geometry,
            param: inputs.param,
            height: inputs.height,
        };
        let (frame, st, origin, source, source_stamp) =
            match crate::input::source_shape(inputs, &self.job.asset).map_err(|d| d.to_string())? {
                Some(src) => {
                    let path = inputs
                        .polygon_path()
                        .map(Path::to_path_buf)
                        .unwrap_or_default();
                    let geometry = match src.shape.geometry {
                        Shape::Polygon(w) if src.dsf_windings && ags => {
                            let (rings, spawn) = join_windings(&w, src.shape.param);
                            Geometry::Polygon {
                                rings,
                                spawn: Some(spawn),
                            }
                        }
                        Shape::Polygon(rings) => Geometry::Polygon {
                            rings,
                            spawn: src.shape.spawn.clone(),
                        },
                        Shape::Point { lon, lat, heading } => Geometry::Point {
                            at: [lon, lat],
                            heading,
                        },
                    };
                    let first = match &geometry {
                        Geometry::Polygon { rings, .. } => {
                            rings.first().and_then(|r| r.first()).copied()
                        }
                        Geometry::Point { at, .. } => Some(*at),
                        Geometry::Drawing(_) => None,
                    };
                    let frame = scene_origin.or(first).unwrap_or(default_origin);
                    let origin = match src.geojson_feature {
                        Some(index) => Origin::GeoJson {
                            path: path.clone(),
                            index,
                        },
                        None => Origin::DsfText {
                            path: path.clone(),
                            line: src.line as usize,
                        },
                    };
                    let st = State {
                        geometry,
                        param: src.shape.param,
                        height: src.shape.height,
                    };
                    let stamp = stamp(&path);
                    (frame, st, origin, Some((path, src.line)), stamp)
                }
                None => {
                    if let Some([w, d]) = inputs.rect {
                        let f = Frame {
                            origin: default_origin,
                        };
                        let (w, d) = (f64::from(w), f64::from(d));
                        let ring = [[0.0, 0.0], [w, 0.0], [w, d], [0.0, d]]
                            .iter()
                            .map(|p| f.to_geo(*p))
                            .collect();
                        let g = Geometry::Polygon {
                            rings: vec![ring],
                            spawn: None,
                        };
                        (default_origin, state(g), Origin::Unsaved, None, None)
                    } else if let Some(at) = inputs.at {
                        let g = Geometry::Point {
                            at: [at.lon, at.lat],
                            heading: f64::from(inputs.heading.unwrap_or(at.heading)),
                        };
                        ([at.lon, at.lat], state(g), Origin::Unsaved, None, None)
                    } else if scene.kind == SceneKind::Agp {
                        let o = scene_origin.unwrap_or(default_origin);
                        let g = Geometry::Point {
                            at: o,
                            heading: f64::from(inputs.heading.unwrap_or(0.0)),
                        };
                        (o, state(g), Origin::Unsaved, None, None)
                    } else {
                        (
                            default_origin,
                            state(Geometry::Drawing(Vec::new())),
                            Origin::Unsaved,
                            None,
                            None,
                        )
                    }
                }
            };
        let stem = self
            .job
            .asset
            .file_stem()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_else(|| "shape".into());
        let save_as = match &source {
            Some((p, _)) => p.with_file_name(format!("{stem}-edited.geojson")),
            None => self
                .job
                .asset
                .with_file_name(format!("{stem}-edited.geojson")),
        };
        let drawing = matches!(st.geometry, Geometry::Drawing(_));
        let mut session = Session {
            model: Model::new(Frame { origin: frame }, st, ags),
            origin,
            asset,
            source,
            feature: None,
            doc_cache: Default::default(),
            selected: None,
            drag: None,
            message: drawing.then(|| {
                (
                    "no polygon: click points on the terrain, then Enter closes the ring".into(),
                    false,
                )
            }),
            pending: None,
            last: None,
            save_as: save_as.display().to_string(),
            source_stamp,
        };
        if let Some(e) = session.model.unsavable().filter(|_| !drawing) {
            session.message = Some((e, true));
        }
        Ok(session)
    }

    /// Inside a document: a session on the feature selected in the feature table (or
    /// clicked in edit mode), one feature at a time.
    fn start_feature_session(&self) -> Result<Session, String> {
        let s = self.shown.as_ref().ok_or("nothing is loaded yet")?;
        let scene = &s.view.loaded.scene;
        let i = self.table.selected.ok_or(
            "inside a document, one feature is edited at a time: click it in edit mode, or \
             select it in the feature table",
        )?;
        let f = agview_load::edit::document_feature(&self.job.asset, &self.job.inputs, i)
            .map_err(|e| format!("feature {i}: {e}"))?;
        let ags = f.kind == crate::scene::FeatureKind::Ags;
        let geometry = match f.shape.geometry {
            Shape::Polygon(w) if ags => {
                let (rings, spawn) = join_windings(&w, f.shape.param);
                Geometry::Polygon {
                    rings,
                    spawn: Some(spawn),
                }
            }
            Shape::Polygon(w) => Geometry::Polygon {
                // A DSF ring may repeat its first point; the model's rings do not.
                rings: w
                    .into_iter()
                    .map(|mut r| {
                        if r.len() > 3 && r.first() == r.last() {
                            r.pop();
                        }
                        r
                    })
                    .collect(),
                spawn: None,
            },
            Shape::Point { lon, lat, heading } => Geometry::Point {
                at: [lon, lat],
                heading,
            },
        };
        // The document's frame, so handles sit on what is drawn.
        let frame = scene
            .geo
            .as_ref()
            .map_or(DEFAULT_ORIGIN, |g| [g.origin_lon, g.origin_lat]);
        let st = State {
            geometry,
            param: f.shape.param,
            height: None,
        };
        let (path, line) = f.source;
        let stem = Path::new(&f.asset)
            .file_stem()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_else(|| "feature".into());
        eprintln!(
            "edit mode: feature {i} ({}, {})",
            f.asset,
            self.edit_target_words(&f.origin)
        );
        let mut session = Session {
            model: Model::new(Frame { origin: frame }, st, ags),
            origin: f.origin,
            asset: f.asset,
            source: Some((path.clone(), line)),
            feature: Some(i),
            doc_cache: self
                .edit
                .as_ref()
                .map(|s| s.doc_cache.clone())
                .unwrap_or_default(),
            selected: None,
            drag: None,
            message: None,
            pending: None,
            last: None,
            save_as: path
                .with_file_name(format!("{stem}-{i}-edited.geojson"))
                .display()
                .to_string(),
            source_stamp: stamp(&path),
        };
        if let Some(e) = session.model.unsavable() {
            session.message = Some((e, true));
        }
        Ok(session)
    }

    fn edit_target_words(&self, o: &Origin) -> String {
        match o {
            Origin::DsfText { path, line } => format!("Ctrl+S writes {}:{line}", path.display()),
            Origin::ReadOnly { why, .. } => format!("read-only: {why}"),
            _ => String::new(),
        }
    }

    /// Inside a document, edit mode follows the selected feature: another feature selected
    /// (in the table or by a click) starts a session on it, when the edits of the one open
    /// are saved or none were made.
    pub(super) fn follow_selected_feature(&mut self) {
        let doc = self
            .shown
            .as_ref()
            .is_some_and(|s| matches!(s.view.loaded.scene.kind, SceneKind::Dsf | SceneKind::Wed));
        if !self.editing() || !doc || self.partial {
            return;
        }
        let selected = self.table.selected;
        match &mut self.edit {
            Some(s) if s.feature == selected || selected.is_none() => return,
            Some(s) if s.model.dirty() => {
                s.message = Some((
                    format!(
                        "feature {} has unsaved edits: save (Ctrl+S) or undo them before \
                         editing another",
                        s.feature.map_or(String::new(), |f| f.to_string())
                    ),
                    true,
                ));
                return;
            }
            _ => {}
        }
        self.edit = None;
        self.edit_refusal = None;
        self.ensure_session();
        if self.edit.is_some() {
            self.job.inputs.edited = None;
        }
        self.request_redraw();
    }

    /// Applies one edit and lays the shape out again (off this thread).
    pub(super) fn edit_op(&mut self, op: Op) {
        let Some(s) = self.edit.as_mut() else { return };
        match s.model.apply(op) {
            Ok(()) => self.edit_relayout(),
            Err(e) => {
                eprintln!("edit: {e}");
                s.message = Some((e, true));
            }
        }
        self.request_redraw();
    }

    /// Sends the edited shape to the loader; a newer one supersedes it while it waits.
    pub(super) fn edit_relayout(&mut self) {
        let Some(s) = self.edit.as_mut() else { return };
        let Some(shape) = s.edited_shape() else {
            return;
        };
        s.message = s.model.unsavable().map(|e| (e, true));
        let now = Instant::now();
        s.pending.get_or_insert(now);
        self.job.inputs.edited = Some(crate::input::EditedInput {
            frame: s.model.frame.origin,
            shape,
            source: s.source.clone(),
            feature: s.feature,
            cache: s.feature.map(|_| s.doc_cache.clone()),
        });
        self.loading = true;
        self.loader
            .load(self.job.clone(), crate::app::reload::Trigger::Edit(now));
    }

    /// After a frame showing an edit's layout: `edit to frame N ms`.
    pub(super) fn edit_after_frame(&mut self) {
        let Some((t, load_ms, upload_ms)) = self.edit_shown.take() else {
            return;
        };
        let ms = t.elapsed().as_secs_f64() * 1e3;
        eprintln!("edit to frame {ms:.0} ms (layout {load_ms:.0} ms, upload {upload_ms:.0} ms)");
        if let Some(s) = &mut self.edit {
            s.last = Some((ms, load_ms, upload_ms));
            s.pending = None;
        }
    }

    /// The window size in pixels and the world → window-pixel projector.
    fn projector_px(&self) -> Option<Projector> {
        let (c, g) = (self.cam.as_ref()?, self.gfx.as_ref()?);
        let screen = egui::Rect::from_min_size(
            egui::Pos2::ZERO,
            egui::vec2(g.config.width as f32, g.config.height as f32),
        );
        Some(Projector::new(&c.camera, screen))
    }

    /// The ground height (meters, exaggeration included) at `(x, y)`, and whether the
    /// terrain is flat.
    fn ground_fn(&self) -> Option<impl Fn(f32, f32) -> f32 + '_> {
        let s = self.shown.as_ref()?;
        s.framing.terrain()?;
        let exag = s.gpu.exaggeration();
        Some(move |x: f32, y: f32| s.framing.ground_at(x, y) * exag)
    }

    fn ground_z(&self, x: f32, y: f32) -> f32 {
        self.ground_fn().map_or(0.0, |g| g(x, y))
    }

    /// The point on the ground under window pixel `at`, in the frame's meters.
    pub(super) fn ground_under(&self, at: (f64, f64)) -> Option<[f64; 2]> {
        let (c, g) = (self.cam.as_ref()?, self.gfx.as_ref()?);
        let (w, h) = (g.config.width as f32, g.config.height as f32);
        let (o, d) = super::picking::pick_ray(&c.camera, at.0 as f32 / w, at.1 as f32 / h, w / h)?;
        let ground = self.ground_fn();
        let gref = ground.as_ref().map(|g| g as &dyn Fn(f32, f32) -> f32);
        let p = handles::ray_ground(o, d, gref)?;
        Some([f64::from(p.x), f64::from(p.y)])
    }

    /// Each ring's vertices in window pixels (or points, with `ppp` the pixels per point).
    fn screen_rings(&self, pr: &Projector) -> Vec<Vec<Option<egui::Pos2>>> {
        let Some(s) = &self.edit else {
            return Vec::new();
        };
        s.model
            .rings_local()
            .iter()
            .map(|r| {
                r.iter()
                    .map(|p| {
                        let (x, y) = (p[0] as f32, p[1] as f32);
                        pr.to_screen(glam::Vec3::new(x, y, self.ground_z(x, y) + 0.2))
                    })
                    .collect()
            })
            .collect()
    }

    /// The point and its heading handle in window units (`arm`: the handle's distance).
    fn screen_point(&self, pr: &Projector, arm: f32) -> Option<(egui::Pos2, egui::Pos2)> {
        let s = self.edit.as_ref()?;
        let Geometry::Point { at, heading } = s.model.state.geometry else {
            return None;
        };
        let l = s.model.frame.to_local(at);
        let (x, y) = (l[0] as f32, l[1] as f32);
        let z = self.ground_z(x, y) + 0.2;
        let p = pr.to_screen(glam::Vec3::new(x, y, z))?;
        // The heading's direction on screen: project a point a metre along it.
        let hr = (heading as f32).to_radians();
        let q = pr.to_screen(glam::Vec3::new(x + hr.sin(), y + hr.cos(), z))?;
        let dir = (q - p).normalized();
        let dir = if dir.x.is_finite() {
            dir
        } else {
            egui::vec2(0.0, -1.0)
        };
        Some((p, p + dir * arm))
    }

    /// A left-button press in the view in edit mode; true when it was taken (no camera
    /// steering, no feature pick).
    pub(super) fn edit_press(&mut self, at: (f64, f64)) -> bool {
        if !self.editing() {
            return false;
        }
        if self.edit.is_none() {
            return self.pick_feature_to_edit(at);
        }
        let Some(pr) = self.projector_px() else {
            return false;
        };
        let ppp = self.egui_ctx.pixels_per_point();
        let cursor = egui::pos2(at.0 as f32, at.1 as f32);
        // Radii in points, hit tests in pixels.
        let scale = |p: egui::Pos2| egui::pos2(p.x / ppp, p.y / ppp);
        let cursor_pt = scale(cursor);
        let rings: Vec<Vec<Option<egui::Pos2>>> = self
            .screen_rings(&pr)
            .into_iter()
            .map(|r| r.into_iter().map(|p| p.map(scale)).collect())
            .collect();
        let point = self
            .screen_point(&pr, handles::HEADING_ARM * ppp)
            .map(|(p, h)| (scale(p), scale(h)));
        let mods = self.mods;
        let cmd = command_key(mods);
        let drawing = self
            .edit
            .as_ref()
            .is_some_and(|s| matches!(s.model.state.geometry, Geometry::Drawing(_)));
        if drawing {
            if let Some(p) = self.ground_under(at) {
                self.edit_op(Op::AddPoint(p));
            }
            return true;
        }
        if cmd || mods.shift_key() {
            let Some((ring, edge, _)) = handles::nearest_edge(&rings, cursor_pt) else {
                return false;
            };
            if cmd {
                self.edit_op(Op::ToggleSpawn { ring, edge });
            } else if let Some(p) = self.ground_under(at) {
                self.edit_op(Op::Insert { ring, edge, at: p });
                if let Some(s) = &mut self.edit {
                    s.selected = Some(Handle::Vertex {
                        ring,
                        index: edge + 1,
                    });
                }
            }
            return true;
        }
        let mut all: Vec<(Handle, egui::Pos2)> = Vec::new();
        for (k, r) in rings.iter().enumerate() {
            for (i, p) in r.iter().enumerate() {
                if let Some(p) = p {
                    all.push((Handle::Vertex { ring: k, index: i }, *p));
                }
            }
        }
        if let Some((p, h)) = point {
            all.push((Handle::Point, p));
            all.push((Handle::Heading, h));
        }
        let hit = handles::nearest_handle(all, cursor_pt);
        if hit.is_none() && self.pick_feature_to_edit(at) {
            return true;
        }
        let Some(s) = self.edit.as_mut() else {
            return false;
        };
        s.selected = hit;
        match hit {
            Some(h) => {
                s.drag = Some((h, false));
                self.request_redraw();
                true
            }
            None => false,
        }
    }

    /// Inside a document, a click in edit mode on another feature (no handle under it)
    /// selects it, and the session follows ([`App::follow_selected_feature`]).
    fn pick_feature_to_edit(&mut self, at: (f64, f64)) -> bool {
        let doc = self
            .shown
            .as_ref()
            .is_some_and(|s| matches!(s.view.loaded.scene.kind, SceneKind::Dsf | SceneKind::Wed));
        if !doc {
            return false;
        }
        let Some(i) = self.feature_at(at) else {
            return false;
        };
        if self.edit.as_ref().is_some_and(|s| s.feature == Some(i)) {
            return false;
        }
        self.table.select(i);
        eprintln!("edit mode: picked feature {i}");
        self.follow_selected_feature();
        true
    }

    /// The pointer moved to `at` with a handle grabbed.
    pub(super) fn edit_drag_to(&mut self, at: (f64, f64)) -> bool {
        let Some((handle, moved)) = self.edit.as_ref().and_then(|s| s.drag) else {
            return false;
        };
        let snap = !self.mods.alt_key();
        let op = match handle {
            Handle::Heading => {
                let Some(p) = self.ground_under(at) else {
                    return true;
                };
                let Some(s) = &self.edit else { return true };
                let Geometry::Point { at: c, .. } = s.model.state.geometry else {
                    return true;
                };
                let c = s.model.frame.to_local(c);
                let (dx, dy) = (p[0] - c[0], p[1] - c[1]);
                if dx.hypot(dy) < 1e-6 {
                    return true;
                }
                let deg = dx.atan2(dy).to_degrees();
                let deg = if snap { deg.round() } else { deg };
                Op::Heading {
                    degrees: deg,
                    continued: moved,
                }
            }
            h => {
                let Some(p) = self.ground_under(at) else {
                    return true;
                };
                Op::Move {
                    handle: h,
                    to: p,
                    snap,
                    continued: moved,
                }
            }
        };
        if let Some(s) = &mut self.edit {
            s.drag = Some((handle, true));
        }
        self.edit_op(op);
        true
    }

    /// The left button came up: the drag ends, and the next frame is a full one (not the
    /// drag preview, `crate::app::drag_preview`).
    pub(super) fn edit_release(&mut self) -> bool {
        let ended = self.edit.as_mut().and_then(|s| s.drag.take()).is_some();
        if ended {
            self.request_redraw();
        }
        ended
    }

    /// A handle is being dragged and has moved.
    pub(super) fn edit_dragging(&self) -> bool {
        self.edit
            .as_ref()
            .is_some_and(|s| matches!(s.drag, Some((_, true))))
    }

    /// Edit mode's keys; true when the key was taken. `P` toggles the mode; the others
    /// work in it: `Delete`, `Enter`, `Ctrl+Z`, `Ctrl+Y` (`Ctrl+Shift+Z`), `Ctrl+S`.
    pub(super) fn edit_key(&mut self, code: KeyCode, pressed: bool, repeat: bool) -> bool {
        let cmd = command_key(self.mods);
        if code == KeyCode::KeyP && !cmd {
            if pressed && !repeat {
                self.toggle_edit();
            }
            return true;
        }
        if !self.editing() {
            return false;
        }
        let action = match code {
            KeyCode::KeyZ if cmd && self.mods.shift_key() => Some(EditAction::Redo),
            KeyCode::KeyZ if cmd => Some(EditAction::Undo),
            KeyCode::KeyY if cmd => Some(EditAction::Redo),
            KeyCode::KeyS if cmd => Some(EditAction::Save),
            KeyCode::Delete | KeyCode::Backspace => Some(EditAction::Delete),
            KeyCode::Enter | KeyCode::NumpadEnter => {
                if pressed && !repeat {
                    self.edit_op(Op::Close);
                }
                return true;
            }
            _ => None,
        };
        let Some(a) = action else {
            // Ctrl with a flying key does not fly.
            return cmd;
        };
        if pressed && (!repeat || matches!(a, EditAction::Undo | EditAction::Redo)) {
            self.edit_act(a);
        }
        true
    }

    /// Does what the edit window, a dialog or a key asked.
    pub(super) fn edit_act(&mut self, a: EditAction) {
        match a {
            EditAction::Undo | EditAction::Redo => {
                let Some(s) = self.edit.as_mut() else { return };
                let done = if a == EditAction::Undo {
                    s.model.undo()
                } else {
                    s.model.redo()
                };
                if done {
                    s.selected = None;
                    eprintln!(
                        "edit: {}",
                        if a == EditAction::Undo {
                            "undo"
                        } else {
                            "redo"
                        }
                    );
                    self.edit_relayout();
                }
            }
            EditAction::Save => self.edit_save(None),
            EditAction::SaveAs(p) => self.edit_save(Some(p)),
            EditAction::AddHole => {
                let at = self.edit.as_ref().and_then(|s| {
                    let r = s.model.rings_local();
                    let outer = r.first()?;
                    let n = outer.len() as f64;
                    Some([
                        outer.iter().map(|p| p[0]).sum::<f64>() / n,
                        outer.iter().map(|p| p[1]).sum::<f64>() / n,
                    ])
                });
                if let Some(at) = at {
                    self.edit_op(Op::AddHole {
                        at,
                        size: HOLE_SIZE,
                    });
                }
            }
            EditAction::RemoveHole(ring) => {
                self.edit_op(Op::RemoveHole { ring });
                if let Some(s) = &mut self.edit {
                    s.selected = None;
                }
            }
            EditAction::Delete => {
                if let Some(Handle::Vertex { ring, index }) =
                    self.edit.as_ref().and_then(|s| s.selected)
                {
                    self.edit_op(Op::Delete { ring, index });
                    if let Some(s) = &mut self.edit {
                        s.selected = None;
                    }
                }
            }
            EditAction::Param(p) => self.edit_op(Op::Param(p)),
            EditAction::Height(h) => self.edit_op(Op::Height(h)),
            EditAction::Draw => {
                self.edit_op(Op::Draw);
                if let Some(s) = &mut self.edit {
                    s.selected = None;
                    s.message = Some((
                        "click points on the terrain, then Enter closes the ring".into(),
                        false,
                    ));
                }
            }
            EditAction::QuitSave => {
                self.edit_save(None);
                if !self.edit.as_ref().is_some_and(|s| s.model.dirty()) {
                    self.quit_now = true;
                }
                self.quit_asked = false;
            }
            EditAction::QuitDiscard => {
                self.quit_now = true;
                self.quit_asked = false;
            }
            EditAction::QuitCancel => {
                eprintln!("edit: not quitting; the edits stay");
                self.quit_asked = false;
            }
            EditAction::ReloadFile => {
                let t = self.reload_asked.take().unwrap_or_else(Instant::now);
                self.drop_session();
                self.loader
                    .load(self.job.clone(), crate::app::reload::Trigger::Files(t));
                self.loading = true;
            }
            EditAction::KeepEdits => {
                eprintln!("edit: the edits stay; the file's change on disk is not loaded");
                self.reload_asked = None;
                if let Some(s) = &mut self.edit {
                    s.source_stamp = s.source.as_ref().and_then(|(p, _)| stamp(p));
                }
            }
        }
        self.request_redraw();
    }

    /// Forgets the session and its edits: the file's shape is laid out again.
    pub(super) fn drop_session(&mut self) {
        self.edit = None;
        self.job.inputs.edited = None;
    }

    /// `Ctrl+S` (to the file the shape came from) or "Save as GeoJSON" (`to`).
    fn edit_save(&mut self, to: Option<PathBuf>) {
        let Some(s) = self.edit.as_mut() else { return };
        if let Some(why) = s.model.unsavable() {
            let m = format!("not saved: {why}");
            eprintln!("edit: {m}");
            s.message = Some((m, true));
            return;
        }
        let Some(shape) = s.edited_shape() else {
            return;
        };
        let to = to.or_else(|| (!s.writes_back()).then(|| PathBuf::from(s.save_as.trim())));
        let target = match (&to, &s.origin) {
            (Some(p), _) => p.clone(),
            (None, Origin::GeoJson { path, .. } | Origin::DsfText { path, .. }) => path.clone(),
            (None, _) => return,
        };
        // The watcher must not take this write for a foreign change.
        self.watcher.expect_own_write(&target);
        let result = match &to {
            Some(p) => {
                let placed = match s.origin {
                    Origin::Unsaved => Some(s.model.frame.origin),
                    _ => None,
                };
                agview_load::edit::save_as_geojson(p, &shape, &s.asset, placed)
            }
            None => agview_load::edit::save(&s.origin, &shape, &s.asset),
        };
        match result {
            Ok(path) => {
                self.watcher.own_write_done(&path);
                eprintln!("saved {}", path.display());
                s.model.mark_saved();
                if s.source.as_ref().is_some_and(|(p, _)| *p == path) {
                    s.source_stamp = stamp(&path);
                }
                s.message = Some((format!("saved {}", crate::diag::shown_path(&path)), false));
            }
            Err(e) => {
                self.watcher.own_write_done(&target);
                eprintln!("agview: error: saving: {e}");
                s.message = Some((format!("not saved: {e} (the edits are kept)"), true));
            }
        }
    }

    /// A change on disk: with unsaved edits and the shape's own file changed, ask first;
    /// else reload (a changed source file ends the session: its shape is read again).
    pub(super) fn files_changed(&mut self, t: Instant) {
        let source_changed = self.edit.as_ref().is_some_and(|s| {
            s.source
                .as_ref()
                .is_some_and(|(p, _)| stamp(p) != s.source_stamp)
        });
        if source_changed {
            if self.edit.as_ref().is_some_and(|s| s.model.dirty()) {
                eprintln!("the shape's file changed on disk while edits are unsaved: asking");
                self.reload_asked = Some(t);
                self.controls.show_panel = true;
                self.request_redraw();
                return;
            }
            self.drop_session();
        }
        self.loader
            .load(self.job.clone(), crate::app::reload::Trigger::Files(t));
    }

    /// A close request: with unsaved edits, ask first.
    pub(super) fn close_requested(&mut self) -> bool {
        if self.edit.as_ref().is_some_and(|s| s.model.dirty()) && !self.quit_now {
            self.quit_asked = true;
            self.controls.show_panel = true;
            eprintln!("unsaved edits: asking before quitting");
            self.request_redraw();
            return false;
        }
        true
    }
}

/// `Ctrl`, or `Cmd` on macOS.
pub fn command_key(m: winit::keyboard::ModifiersState) -> bool {
    if cfg!(target_os = "macos") {
        m.super_key()
    } else {
        m.control_key()
    }
}

/// What the edit overlay and window need, gathered before the panel runs.
pub struct EditUi<'a> {
    pub session: Option<&'a Session>,
    pub on: bool,
    pub refusal: Option<&'a str>,
    /// The rings' vertices and the point with its heading handle, in window points.
    pub rings: Vec<Vec<Option<egui::Pos2>>>,
    pub point: Option<(egui::Pos2, egui::Pos2)>,
    pub quit_asked: bool,
    pub reload_asked: bool,
    /// This frame is the drag preview (`crate::app::drag_preview`).
    pub preview: bool,
}

/// The overlay's window points, for one frame.
pub type ScreenShape = (
    Vec<Vec<Option<egui::Pos2>>>,
    Option<(egui::Pos2, egui::Pos2)>,
);

impl App {
    /// The shape's handles in window points (pixels over pixels per point), for the frame;
    /// nothing when edit mode is off.
    pub(super) fn edit_screen(&self) -> ScreenShape {
        let ppp = self.egui_ctx.pixels_per_point();
        let scale = |p: egui::Pos2| egui::pos2(p.x / ppp, p.y / ppp);
        match (self.editing(), self.projector_px()) {
            (true, Some(pr)) => (
                self.screen_rings(&pr)
                    .into_iter()
                    .map(|r| r.into_iter().map(|p| p.map(scale)).collect())
                    .collect(),
                self.screen_point(&pr, handles::HEADING_ARM * ppp)
                    .map(|(p, h)| (scale(p), scale(h))),
            ),
            _ => (Vec::new(), None),
        }
    }
}

/// Draws the overlay over the view, the edit window and the dialogs; returns what was asked.
pub fn show(ui: &egui::Ui, view_rect: egui::Rect, e: &EditUi) -> Vec<EditAction> {
    let mut out = Vec::new();
    let ctx = ui.ctx();
    if e.on {
        if let Some(s) = e.session {
            let painter = ctx
                .layer_painter(egui::LayerId::new(
                    egui::Order::Background,
                    egui::Id::unique("agview-edit-handles"),
                ))
                .with_clip_rect(view_rect);
            let spawn = s.model.spawn();
            handles::draw(
                &painter,
                &handles::Overlay {
                    rings: &e.rings,
                    spawn: spawn.as_deref(),
                    open: matches!(s.model.state.geometry, Geometry::Drawing(_)),
                    point: e.point,
                    selected: s.selected,
                },
            );
        }
        egui::Window::new("Edit")
            .default_pos(view_rect.right_top() + egui::vec2(-300.0, 10.0))
            .default_width(280.0)
            .resizable(false)
            .show(ctx, |ui| window(ui, e, &mut out));
    }
    if e.quit_asked {
        egui::Modal::new(egui::Id::unique("agview-quit")).show(ctx, |ui| {
            ui.heading("Unsaved edits");
            ui.label("The shape has edits that are not saved.");
            ui.horizontal(|ui| {
                if ui.button("Save and quit").clicked() {
                    out.push(EditAction::QuitSave);
                }
                if ui.button("Quit without saving").clicked() {
                    out.push(EditAction::QuitDiscard);
                }
                if ui.button("Cancel").clicked() {
                    out.push(EditAction::QuitCancel);
                }
            });
        });
    }
    if e.reload_asked {
        egui::Modal::new(egui::Id::unique("agview-reload")).show(ctx, |ui| {
            ui.heading("The file changed on disk");
            ui.label(
                "The shape's file was changed by another program while your edits are unsaved.",
            );
            ui.horizontal(|ui| {
                if ui.button("Reload it (drop my edits)").clicked() {
                    out.push(EditAction::ReloadFile);
                }
                if ui.button("Keep my edits").clicked() {
                    out.push(EditAction::KeepEdits);
                }
            });
        });
    }
    out
}

fn window(ui: &mut egui::Ui, e: &EditUi, out: &mut Vec<EditAction>) {
    let Some(s) = e.session else {
        ui.label(e.refusal.unwrap_or("nothing to edit yet"));
        return;
    };
    let m = &s.model;
    ui.small(format!("saves to {}", s.target()));
    if let Some((msg, err)) = &s.message {
        let c = if *err {
            egui::Color32::from_rgb(255, 90, 80)
        } else {
            egui::Color32::from_rgb(120, 210, 120)
        };
        ui.colored_label(c, msg);
    }
    match &m.state.geometry {
        Geometry::Polygon { rings, .. } => {
            ui.label(format!(
                "{} vertices, {} hole(s)",
                rings.iter().map(Vec::len).sum::<usize>(),
                rings.len().saturating_sub(1)
            ));
        }
        Geometry::Point { heading, .. } => {
            ui.label(format!("a point, heading {heading:.0}°"));
        }
        Geometry::Drawing(p) => {
            ui.label(format!("drawing: {} point(s); Enter closes", p.len()));
        }
    }
    ui.horizontal(|ui| {
        if ui
            .add_enabled(m.can_undo(), egui::Button::new("undo"))
            .clicked()
        {
            out.push(EditAction::Undo);
        }
        if ui
            .add_enabled(m.can_redo(), egui::Button::new("redo"))
            .clicked()
        {
            out.push(EditAction::Redo);
        }
        if ui
            .add_enabled(s.writes_back(), egui::Button::new("save (Ctrl+S)"))
            .clicked()
        {
            out.push(EditAction::Save);
        }
        if m.dirty() {
            ui.weak("unsaved");
        }
    });
    let polygon = matches!(m.state.geometry, Geometry::Polygon { .. });
    if polygon {
        ui.horizontal(|ui| {
            if ui.button("add a hole").clicked() {
                out.push(EditAction::AddHole);
            }
            if let Some(Handle::Vertex { ring, .. }) = s
                .selected
                .filter(|h| matches!(h, Handle::Vertex { ring, .. } if *ring > 0))
            {
                if ui.button(format!("remove hole {ring}")).clicked() {
                    out.push(EditAction::RemoveHole(ring));
                }
            }
            if ui.button("draw anew").clicked() {
                out.push(EditAction::Draw);
            }
        });
    }
    // The parameter and height, with their meaning.
    let mut param = m.state.param.unwrap_or(0);
    let mut has_param = m.state.param.is_some();
    ui.horizontal(|ui| {
        let a = ui.checkbox(&mut has_param, "param");
        let b = ui.add_enabled(
            has_param,
            egui::DragValue::new(&mut param).range(0..=0xFFFF),
        );
        if a.changed() || b.changed() {
            out.push(EditAction::Param(has_param.then_some(param)));
        }
    });
    let low = param & 0xFF;
    let meaning = if m.ags {
        format!(
            "low byte {low}: tile-spawning contours (follows the edge toggles, as WED counts \
             them); high byte {}: {} m",
            param >> 8,
            (param >> 8) * 4
        )
    } else {
        format!(
            "low byte {low}: the spelling set (.agb); high byte {}: height {} m",
            param >> 8,
            (param >> 8) * 4
        )
    };
    ui.small(meaning);
    let mut h = m.state.height.unwrap_or(0.0);
    let mut has_h = m.state.height.is_some();
    ui.horizontal(|ui| {
        let a = ui.checkbox(&mut has_h, "height m");
        let b = ui.add_enabled(
            has_h,
            egui::DragValue::new(&mut h).range(0.0..=1000.0).speed(0.5),
        );
        if a.changed() || b.changed() {
            out.push(EditAction::Height(has_h.then_some(h)));
        }
    });
    ui.small("the building height in metres (over the parameter's high byte)");
    if m.ags {
        if let Some(flags) = m.spawn() {
            ui.horizontal(|ui| {
                ui.colored_label(handles::SPAWNING, "orange: spawning edges;");
                ui.label(format!(
                    "{} of {} edges spawn",
                    flags.iter().flatten().filter(|f| **f).count(),
                    flags.iter().map(Vec::len).sum::<usize>()
                ));
            });
        }
    }
    let mut path = s.save_as.clone();
    ui.horizontal(|ui| {
        ui.add(egui::TextEdit::singleline(&mut path).desired_width(170.0));
        if ui.button("Save as GeoJSON").clicked() {
            out.push(EditAction::SaveAs(PathBuf::from(path.trim())));
        }
    });
    if let Some((ms, l, u)) = s.last {
        ui.small(format!(
            "edit to frame {ms:.0} ms (layout {l:.0}, upload {u:.0})"
        ));
    }
    if e.preview {
        ui.colored_label(
            egui::Color32::from_rgb(240, 190, 60),
            crate::app::drag_preview::WORDS,
        );
    }
    ui.weak(
        "drag a handle · Shift+click an edge: insert · Delete: remove vertex\n\
         Ctrl+click an edge (.ags): spawn or not · Alt: no snap · Ctrl+Z/Y · P: leave",
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ags_windings_join_into_rings_with_their_flags() {
        let (a, b, c, d) = ([0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]);
        // A spawning run a→b→c, then c→d→a not spawning, then a hole.
        let hole = vec![[0.2, 0.2], [0.2, 0.4], [0.4, 0.4]];
        let w = vec![vec![a, b, c], vec![c, d, a], hole.clone()];
        let (rings, flags) = join_windings(&w, Some(1));
        assert_eq!(rings, vec![vec![a, b, c, d], hole]);
        assert_eq!(flags, vec![vec![true, true, false, false], vec![false; 3]]);
        // WED's one-point marker winding is dropped.
        let w = vec![vec![a], vec![b, c, d, a, b]];
        let (rings, _) = join_windings(&w, Some(1));
        assert_eq!(rings, vec![vec![b, c, d, a]]);
    }
}
