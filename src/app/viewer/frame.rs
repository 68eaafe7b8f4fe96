//! One frame in the window: the scene, the highlight, the panel on top, presented.

use std::time::{Duration, Instant};

use winit::event_loop::{ActiveEventLoop, ControlFlow};

use super::App;
use crate::app::{drag_preview, panel};
use crate::diag::Diagnostic;
use crate::render::{DrawStats, GpuContext, ReadBack};

impl App {
    pub(super) fn redraw(&mut self, event_loop: &ActiveEventLoop) {
        let now = Instant::now();
        let dt = now.duration_since(self.last_frame).as_secs_f32();
        self.last_frame = now;
        // Back-to-back frames with the scene: their interval is the frame time.
        if self.frames_with_scene >= 2 && self.continuous && dt < 60.0 {
            let ms = f64::from(dt) * 1e3;
            self.timing = (self.timing.0 + 1, self.timing.1 + ms, self.timing.2.max(ms));
        }
        let moving = self.cam.as_mut().is_some_and(|c| c.update(dt));
        if self.minimized || self.gfx.is_none() {
            return;
        }
        // An edit's layout on its way: this frame waits for it a moment (`EDIT_HOLD` from
        // the edit at most, or while its upload runs), so that it shows the edit rather
        // than the frame after it.
        let pending = self.edit.as_ref().and_then(|s| s.pending);
        let uploading = self.loader.uploading_edit();
        if let Some(wait) = crate::app::reload::edit_hold(pending, self.loading, uploading) {
            if let Ok(o) = self.loader.results.recv_timeout(wait) {
                self.take_outcome(o, event_loop);
            }
        }
        // A part of a large document's rest on its way: this frame waits for it a moment,
        // so that the upload does not wait behind the frame and the frame shows the part.
        if self.partial && self.loader.uploading_part() {
            if let Ok(o) = self
                .loader
                .results
                .recv_timeout(crate::app::reload::PART_HOLD)
            {
                self.take_outcome(o, event_loop);
            }
        }
        // While a handle is dragged and full frames are slow: the drag preview.
        let preview = self.edit_dragging()
            && self.shown.is_some()
            && drag_preview::wanted(self.preview.full_ms);
        if preview && !self.preview.on {
            eprintln!(
                "{} (full frames take {:.0} ms)",
                drag_preview::WORDS,
                self.preview.full_ms
            );
        }
        self.preview.on = preview;
        let drawing = Instant::now();
        let frame = {
            let Some(g) = self.gfx.as_ref() else { return };
            match g.surface.get_current_texture() {
                wgpu::CurrentSurfaceTexture::Success(t) => (t, false),
                wgpu::CurrentSurfaceTexture::Suboptimal(t) => (t, true),
                // Try again soon; an occluded window is redrawn when it shows again.
                wgpu::CurrentSurfaceTexture::Timeout => {
                    self.request_redraw();
                    return;
                }
                wgpu::CurrentSurfaceTexture::Occluded => return,
                wgpu::CurrentSurfaceTexture::Outdated => {
                    self.recover_surface(false);
                    return;
                }
                wgpu::CurrentSurfaceTexture::Lost => {
                    if !self.device_was_lost(event_loop) {
                        self.recover_surface(true);
                    }
                    return;
                }
                wgpu::CurrentSurfaceTexture::Validation => {
                    if !self.device_was_lost(event_loop) {
                        eprintln!("agview: the window's surface reported a validation error");
                        self.recover_surface(false);
                    }
                    return;
                }
            }
        };
        let (frame, suboptimal) = frame;
        let params = if preview {
            drag_preview::params(&self.frame_params())
        } else {
            self.frame_params()
        };
        let presented_due = self.presented_due();
        // `--script`'s `dragshot`: this frame, as presented, into a file.
        let script_frame = self.script.take_present();
        let (edit_rings, edit_point) = self.edit_screen();
        let view = frame
            .texture
            .create_view(&wgpu::TextureViewDescriptor::default());
        // Progressive antialiasing (`refine`): busy frames are 1× on a CPU adapter.
        let busy = moving
            || self.cam.as_ref().is_some_and(|c| c.held.any_motion())
            || self.loading
            || self.partial
            || preview
            || pending.is_some()
            || uploading
            || self.edit_dragging()
            // A slider dragged in the panel (the sun, the exaggeration).
            || self.egui_ctx.egui_is_using_pointer();
        let parts = self.shown.as_ref().map_or(0, |s| s.gpu.part_count());
        let Some(g) = self.gfx.as_mut() else { return };
        let ctx = &g.gpu.ctx;
        let software = crate::render::cpu_adapter(ctx);
        let (w, h) = (g.config.width, g.config.height);
        let (draft, refine_at) =
            g.refine
                .choose(&g.gpu, (self.generation, parts, &params), busy, (w, h));
        let drafted = draft.is_some();
        // The hooks that read the presented frame back wait for the still, 4× frame.
        let presented_due = presented_due && !drafted;
        let mut encoder = ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("window frame"),
            });
        let draw = match &mut self.shown {
            Some(s) => {
                s.gpu.set_exaggeration(self.controls.exaggeration);
                s.gpu
                    .prepare_overlays(ctx, &s.view.loaded.scene, params.overlays);
                let (renderer, targets) = match draft {
                    _ if preview => (
                        &g.gpu.renderer,
                        self.preview.targets.get(&ctx.device, &g.gpu.renderer, w, h),
                    ),
                    Some(d) => d,
                    None => (&g.gpu.renderer, &g.targets),
                };
                s.gpu.prepare(ctx, &params, targets.width, targets.height);
                renderer.draw(&mut encoder, &view, targets, &s.gpu)
            }
            None => {
                clear(&mut encoder, &view, params.horizon());
                DrawStats::default()
            }
        };
        self.draw = draw;

        let mut actions = Vec::new();
        // When egui wants the panel drawn again (an animation, a tooltip's delay): `None`
        // when it does not.
        let mut repaint_in = None;
        if !self.controls.show_panel {
            self.last_ui = None;
        }
        let mut extra = Vec::new();
        let mut edit_actions = Vec::new();
        let show_panel = self.controls.show_panel;
        if show_panel || self.controls.edit {
            if let (Some(state), Some(window)) = (self.egui_state.as_mut(), self.window.as_ref()) {
                let mut raw = state.take_egui_input(window);
                // `--script`: its pointer events reach egui as a real pointer's do.
                self.script.feed_egui(&mut raw);
                // Borrowed: a document's thousands of warnings are not copied every frame.
                let messages: &[Diagnostic] = self.shown.as_ref().map_or(&[], |s| &s.messages);
                let watched = self.watcher.files().len();
                let adapter = format!(
                    "{}, culling {}, {}",
                    g.gpu.ctx.describe(),
                    self.shown
                        .as_ref()
                        .and_then(|s| s.gpu.culling())
                        .map_or("-".to_string(), |c| c.to_string()),
                    g.refine.words(g.gpu.renderer.sample_count())
                );
                let cam = self.cam.as_ref();
                let info = panel::Info {
                    asset: &self.args.asset,
                    view: self.shown.as_ref().map(|s| &s.view),
                    messages,
                    error: self.error.as_deref(),
                    loading: self.loading,
                    progress: self.job.load.progress.as_ref().map_or((0, 0), |p| p.get()),
                    stage: self
                        .job
                        .load
                        .progress
                        .as_ref()
                        .map_or(crate::progress::Stage::Reading, |p| p.stage()),
                    mode: cam.map_or(crate::app::camera_control::Mode::Orbit, |c| c.mode()),
                    speed: cam.map_or(0.0, |c| c.speed),
                    frame_ms: self.frame_ms,
                    draw,
                    gpu: self.shown.as_ref().map(|s| s.gpu.stats()),
                    adapter: &adapter,
                    status: self.status.as_ref(),
                    watched,
                    watch_error: self.watcher.error.as_deref(),
                    index: self.shown.as_ref().map(|s| &s.index),
                    generation: self.generation,
                    ui_ms: self.ui_ms,
                    camera: cam.and_then(|c| c.camera.as_argument()),
                };
                let controls = &mut self.controls;
                let table = &mut self.table;
                let width = &mut self.panel_width;
                let highlight = self
                    .shown
                    .as_ref()
                    .zip(self.cam.as_ref())
                    .and_then(|(s, c)| {
                        let b = s.boxes.get(table.selected?).copied().flatten()?;
                        Some((b, c.camera))
                    });
                let edit_ui = super::edit::EditUi {
                    session: self.edit.as_ref(),
                    on: controls.edit,
                    refusal: self.edit_refusal.as_deref(),
                    rings: edit_rings,
                    point: edit_point,
                    quit_asked: self.quit_asked,
                    reload_asked: self.reload_asked.is_some(),
                    preview,
                };
                let ui_start = Instant::now();
                let out = self.egui_ctx.run_ui(raw, |ui| {
                    if show_panel {
                        actions = panel::show(ui, controls, &info, table, width);
                    }
                    // What the panels leave of the window: the view the outline may cover.
                    let view_rect = ui.available_rect_before_wrap();
                    if let Some((b, camera)) = highlight {
                        draw_highlight(ui, view_rect, b, &camera);
                    }
                    edit_actions = super::edit::show(ui, view_rect, &edit_ui);
                });
                if let Some(tree) = &out.platform_output.accesskit_update {
                    self.script.record(tree);
                }
                state.handle_platform_output(window, out.platform_output);
                repaint_in = out
                    .viewport_output
                    .get(&egui::ViewportId::ROOT)
                    .map(|v| v.repaint_delay)
                    .filter(|d| *d < EGUI_NO_REPAINT);
                let jobs = self.egui_ctx.tessellate(out.shapes, out.pixels_per_point);
                let ui_ms = ui_start.elapsed().as_secs_f64() * 1e3;
                self.ui_ms = ui_ms as f32;
                if self.shown.is_some() {
                    let t = &mut self.ui_timing;
                    *t = (t.0 + 1, t.1 + ui_ms, t.2.max(ui_ms));
                }
                let mut textures = out.textures_delta;
                for (id, deltas) in textures.set.drain() {
                    for delta in &deltas {
                        g.egui.update_texture(&ctx.device, &ctx.queue, id, delta);
                    }
                }
                let sd = egui_wgpu::ScreenDescriptor {
                    size_in_pixels: [w, h],
                    pixels_per_point: out.pixels_per_point,
                };
                extra = paint_panel(&mut g.egui, ctx, &mut encoder, &view, &jobs, &sd);
                self.last_ui = Some((jobs, sd.size_in_pixels, sd.pixels_per_point));
                for id in textures.free.drain() {
                    g.egui.free_texture(&id);
                }
            }
        }
        // `--presented-frame`: this frame, as it goes to the window, copied for reading.
        let presented = (presented_due || script_frame.is_some()).then(|| {
            let copy = ReadBack::copy(&ctx.device, &mut encoder, &frame.texture);
            (copy, g.config.usage)
        });
        ctx.queue
            .submit(extra.into_iter().chain([encoder.finish()]));
        if let Some(window) = &self.window {
            window.pre_present_notify();
        }
        ctx.queue.present(frame);
        if let Some((copy, usage)) = presented {
            let result = if usage.contains(wgpu::TextureUsages::COPY_SRC) {
                copy.read(&g.gpu.ctx).map_err(|e| e.to_string())
            } else {
                Err("the window's surface cannot be read back (no COPY_SRC)".to_string())
            };
            match script_frame {
                Some(path) => {
                    let what = if preview {
                        "the drag preview"
                    } else {
                        "a full frame"
                    };
                    self.write_frame(&path, result, what);
                }
                None => {
                    self.presented_taken = true;
                    self.write_presented(result);
                }
            }
        }
        if suboptimal {
            self.recover_surface(false);
        }
        if self.shown.is_none() || self.partial {
            self.frames_while_loading += 1;
        }
        if !preview && self.shown.is_some() {
            let ms = drawing.elapsed().as_secs_f64() * 1e3;
            let p = &mut self.preview;
            p.full_ms = if p.full_ms == 0.0 {
                ms
            } else {
                p.full_ms * 0.8 + ms * 0.2
            };
        }
        let spent = now.elapsed().as_secs_f32() * 1000.0;
        self.frame_ms = if self.frame_ms == 0.0 {
            spent
        } else {
            self.frame_ms * 0.9 + spent * 0.1
        };
        self.after_frame(event_loop);
        for a in actions {
            self.act(a);
        }
        for a in edit_actions {
            self.edit_act(a);
        }
        self.follow_selected_feature();
        let held = self.cam.as_ref().is_some_and(|c| c.held.any_motion());
        let repaint_soon = repaint_in.is_some_and(|d| d.is_zero());
        self.continuous = moving || held || repaint_soon || self.loading || self.wants_frames();
        // While the window waits for the scene (nothing, or only a preview, on screen) and
        // nothing moves, its next frame comes a while later rather than at once, the
        // panel's spinner too: on a software rasterizer every frame presented takes the
        // cores the load needs.
        let hooks_idle = !self.script.active()
            && !self.exit_pending
            && !self.quit_now
            && self.edit_shown.is_none()
            && self.reload_to_report.is_none();
        let waiting = (self.shown.is_none() || self.partial) && !(moving || held) && hooks_idle;
        // A preview on a software rasterizer: each frame of it costs the load hundreds of
        // ms and shows nothing new, so the next comes with what changes it: a part of the
        // rest or the whole arriving (`take_outcomes`), or input. The panel's spinner
        // stands still meanwhile.
        let preview_still = self.partial && software && !(moving || held) && hooks_idle;
        if self.continuous && preview_still {
            event_loop.set_control_flow(ControlFlow::Wait);
        } else if self.continuous && waiting {
            event_loop.set_control_flow(ControlFlow::WaitUntil(
                Instant::now() + LOADING_FRAME_INTERVAL,
            ));
        } else if self.continuous {
            self.request_redraw();
        } else {
            // A 1× frame: the 4× one follows once nothing has changed for a while; and
            // the panel's next frame where egui asks for one later (a tooltip's delay).
            let egui_at = repaint_in.map(|d| Instant::now() + d);
            let at = match (refine_at, egui_at) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            match at {
                Some(at) => event_loop.set_control_flow(ControlFlow::WaitUntil(at)),
                None => event_loop.set_control_flow(ControlFlow::Wait),
            }
        }
    }
}

/// A repaint delay from egui this long or longer means no repaint is wanted (egui says
/// `Duration::MAX` then).
const EGUI_NO_REPAINT: Duration = Duration::from_secs(3600);

/// How often the window draws while it waits for the scene and nothing moves (the loading
/// screen, a large document's preview): ten frames a second show the progress, and leave
/// the cores to the load, which the first full frame waits for.
pub(super) const LOADING_FRAME_INTERVAL: Duration = Duration::from_millis(100);

/// The drag preview's state in the window (`crate::app::drag_preview`).
#[derive(Default)]
pub(super) struct Preview {
    pub targets: drag_preview::Targets,
    /// The full frames' drawing time, ms: a running mean, 0 before the first.
    pub full_ms: f64,
    /// The last frame was a preview.
    pub on: bool,
}

/// Uploads the panel's buffers and records its pass over `view`; returns the command
/// buffers egui's callbacks want submitted first.
pub(super) fn paint_panel(
    egui: &mut egui_wgpu::Renderer,
    ctx: &GpuContext,
    encoder: &mut wgpu::CommandEncoder,
    view: &wgpu::TextureView,
    jobs: &[egui::ClippedPrimitive],
    sd: &egui_wgpu::ScreenDescriptor,
) -> Vec<wgpu::CommandBuffer> {
    let extra = egui.update_buffers(&ctx.device, &ctx.queue, encoder, jobs, sd);
    let pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
        label: Some("panel"),
        color_attachments: &[Some(wgpu::RenderPassColorAttachment {
            view,
            depth_slice: None,
            resolve_target: None,
            ops: wgpu::Operations {
                load: wgpu::LoadOp::Load,
                store: wgpu::StoreOp::Store,
            },
        })],
        depth_stencil_attachment: None,
        timestamp_writes: None,
        occlusion_query_set: None,
        multiview_mask: None,
    });
    let mut pass = pass.forget_lifetime();
    egui.render(&mut pass, jobs, sd);
    extra
}

/// A pass that only clears to the sky colour (no scene yet).
fn clear(encoder: &mut wgpu::CommandEncoder, view: &wgpu::TextureView, sky: [f32; 3]) {
    let _ = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
        label: Some("clear"),
        color_attachments: &[Some(wgpu::RenderPassColorAttachment {
            view,
            depth_slice: None,
            resolve_target: None,
            ops: wgpu::Operations {
                load: wgpu::LoadOp::Clear(wgpu::Color {
                    r: f64::from(sky[0]) * 0.5,
                    g: f64::from(sky[1]) * 0.5,
                    b: f64::from(sky[2]) * 0.5,
                    a: 1.0,
                }),
                store: wgpu::StoreOp::Store,
            },
        })],
        depth_stencil_attachment: None,
        timestamp_writes: None,
        occlusion_query_set: None,
        multiview_mask: None,
    });
}

/// The selected feature's box outlined over the 3D view (under the panels), its edges cut
/// at the near plane.
fn draw_highlight(
    ui: &egui::Ui,
    view_rect: egui::Rect,
    b: ([f32; 3], [f32; 3]),
    camera: &crate::render::Camera,
) {
    let screen = ui.ctx().content_rect();
    let vp = camera.view_proj(screen.width() / screen.height().max(1.0));
    let (lo, hi) = b;
    let corner = |k: usize| {
        let pick = |i: usize| if k >> i & 1 == 0 { lo[i] } else { hi[i] };
        vp * glam::Vec4::new(pick(0), pick(1), pick(2), 1.0)
    };
    let to_screen = |c: glam::Vec4| {
        egui::pos2(
            screen.left() + (c.x / c.w * 0.5 + 0.5) * screen.width(),
            screen.top() + (0.5 - c.y / c.w * 0.5) * screen.height(),
        )
    };
    let painter = ui
        .ctx()
        .layer_painter(egui::LayerId::new(
            egui::Order::Background,
            egui::Id::unique("agview-highlight"),
        ))
        .with_clip_rect(view_rect);
    let stroke = egui::Stroke::new(2.5, egui::Color32::from_rgb(255, 220, 40));
    const EPS: f32 = 1e-3;
    for a in 0..8usize {
        for bit in 0..3 {
            let b = a | 1 << bit;
            if b == a {
                continue;
            }
            let (mut p, mut q) = (corner(a), corner(b));
            if p.w < EPS && q.w < EPS {
                continue;
            }
            // Cut the edge where it passes behind the eye.
            if p.w < EPS {
                p = q + (p - q) * ((q.w - EPS) / (q.w - p.w));
            } else if q.w < EPS {
                q = p + (q - p) * ((p.w - EPS) / (p.w - q.w));
            }
            painter.line_segment([to_screen(p), to_screen(q)], stroke);
        }
    }
}
