//! The window and its device: opening them, the surface's size, and recovering from a lost
//! device or surface.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

use winit::event_loop::ActiveEventLoop;
use winit::window::Window;

use super::capture::capture;
use super::{App, Gfx, UserEvent};
use crate::app::reload::Gpu;
use crate::render::{FrameParams, FrameTargets, GpuContext, RenderError, Renderer, SceneGpu};

impl App {
    /// Opens the GPU device for `window`: the surface, the pipelines, the frame targets and
    /// the panel's renderer; the loader thread uploads with the new device from now on.
    pub(super) fn open_gfx(&mut self, window: &Arc<Window>) -> Result<(), String> {
        let size = window.inner_size();
        let (surface, ctx) = open_gpu(window)?;
        ctx.device.on_uncaptured_error(Arc::new(|e| {
            eprintln!("agview: GPU error: {e}");
        }));
        self.device_generation += 1;
        let (generation, lost, proxy) = (
            self.device_generation,
            self.device_lost.clone(),
            self.proxy.clone(),
        );
        ctx.device
            .set_device_lost_callback(move |_reason, _message| {
                lost.store(generation, Ordering::SeqCst);
                let _ = proxy.send_event(UserEvent::DeviceLost);
            });
        let caps = surface.get_capabilities(&ctx.adapter);
        // (`--script`'s `dragshot` reads frames back too.)
        let read_presented = self.args.presented_frame.is_some() || self.args.script.is_some();
        let format = caps
            .formats
            .iter()
            .copied()
            .find(|f| f.is_srgb())
            .or_else(|| caps.formats.first().copied())
            .ok_or("the window's surface offers no colour format")?;
        // `--presented-frame` and `dragshot` read the surface texture back: it must be a copy
        // source.
        let mut usage = wgpu::TextureUsages::RENDER_ATTACHMENT;
        if read_presented && caps.usages.contains(wgpu::TextureUsages::COPY_SRC) {
            usage |= wgpu::TextureUsages::COPY_SRC;
        }
        let config = wgpu::SurfaceConfiguration {
            usage,
            format,
            color_space: wgpu::SurfaceColorSpace::Auto,
            width: size.width.max(1),
            height: size.height.max(1),
            present_mode: wgpu::PresentMode::Fifo,
            desired_maximum_frame_latency: 2,
            alpha_mode: caps
                .alpha_modes
                .first()
                .copied()
                .unwrap_or(wgpu::CompositeAlphaMode::Auto),
            view_formats: vec![],
        };
        surface.configure(&ctx.device, &config);
        let samples = Renderer::best_sample_count(&ctx.adapter, format);
        let renderer = ctx
            .checked("building the pipelines", || {
                Renderer::new(&ctx, format, samples)
            })
            .map_err(|e| e.to_string())?;
        eprintln!("agview: {} on {}", renderer.culling().1, ctx.describe());
        let targets = FrameTargets::new(&ctx.device, &renderer, config.width, config.height);
        let egui =
            egui_wgpu::Renderer::new(&ctx.device, format, egui_wgpu::RendererOptions::default());
        let gpu = Arc::new(Gpu { ctx, renderer });
        self.loader.set_gpu(gpu.clone());
        self.minimized = size.width == 0 || size.height == 0;
        self.gfx = Some(Gfx {
            refine: super::refine::Refine::new(&gpu),
            gpu,
            surface,
            config,
            targets,
            egui,
        });
        Ok(())
    }

    /// The panel's egui state for `window`, with the fonts; its textures go to the panel
    /// renderer of the current device with the next frame.
    pub(super) fn start_panel(&mut self, window: &Arc<Window>) {
        if let Err(e) = install_fonts(&self.egui_ctx) {
            eprintln!("agview: warning: {e}");
        }
        let max_side = self.gfx.as_ref().map_or(8192, |g| {
            g.gpu.ctx.device.limits().max_texture_dimension_2d as usize
        });
        self.egui_state = Some(egui_winit::State::new(
            self.egui_ctx.clone(),
            egui::ViewportId::ROOT,
            window.as_ref(),
            Some(window.scale_factor() as f32),
            window.theme(),
            Some(max_side),
        ));
    }

    /// Whether the device is lost (a surface that fails may be why): polls it so its
    /// device-lost callback runs, and recovers when it did.
    pub(super) fn device_was_lost(&mut self, event_loop: &ActiveEventLoop) -> bool {
        if let Some(g) = &self.gfx {
            let _ = g.gpu.ctx.device.poll(wgpu::PollType::Poll);
        }
        if self.device_lost.load(Ordering::SeqCst) != self.device_generation {
            return false;
        }
        self.recover_device(event_loop);
        true
    }

    /// After the device was lost: opens a new one and uploads the shown scene again (its
    /// layout and art are kept), so the viewer goes on where it was.
    pub(super) fn recover_device(&mut self, event_loop: &ActiveEventLoop) {
        let lost = self.device_lost.swap(0, Ordering::SeqCst);
        if lost == 0 || lost != self.device_generation {
            return; // none lost, or a device already replaced
        }
        let Some(window) = self.window.clone() else {
            return;
        };
        eprintln!("agview: the GPU device was lost; opening it again");
        let started = Instant::now();
        self.gfx = None;
        if let Err(e) = self.open_gfx(&window) {
            eprintln!("agview: error: the GPU device was lost and cannot be opened again: {e}");
            self.exit_code = ExitCode::from(1);
            self.fatal = Some(e);
            event_loop.exit();
            return;
        }
        // egui sends its textures (the font atlas) once, to the renderer of the lost
        // device: a new context sends them again to the new one.
        self.egui_ctx = egui::Context::default();
        self.last_ui = None;
        self.start_panel(&window);
        self.upload_shown_again();
        eprintln!(
            "agview: GPU device opened again and the scene uploaded in {:.0} ms",
            started.elapsed().as_secs_f64() * 1e3
        );
        self.request_redraw();
    }

    /// Uploads the shown scene again with the current device (after the one it was
    /// uploaded with was lost).
    pub(super) fn upload_shown_again(&mut self) {
        let (Some(s), Some(g)) = (self.shown.as_mut(), self.gfx.as_ref()) else {
            return;
        };
        let scene = &s.view.loaded.scene;
        let terrain = match s.framing.terrain() {
            Some(t) => t.clone(),
            None => match self.job.render.terrain.terrain_for(scene) {
                Ok(t) => Arc::new(t),
                Err(e) => {
                    self.error = Some(e);
                    self.shown = None;
                    return;
                }
            },
        };
        match SceneGpu::new(&g.gpu.ctx, &g.gpu.renderer, scene, &s.art, &terrain) {
            Ok(gpu) => s.gpu = gpu,
            Err(e) => {
                let e = format!("uploading the scene to the new GPU device: {e}");
                eprintln!("agview: error: {e}");
                self.error = Some(e);
                self.shown = None;
            }
        }
    }

    pub(super) fn init_window(&mut self, event_loop: &ActiveEventLoop) -> Result<(), String> {
        let (w, h) = self.args.size;
        let title = format!("agview — {}", self.args.asset.display());
        let attrs = Window::default_attributes()
            .with_title(title)
            .with_inner_size(winit::dpi::PhysicalSize::new(w, h));
        let window = Arc::new(
            event_loop
                .create_window(attrs)
                .map_err(|e| format!("cannot open a window: {e}"))?,
        );
        self.open_gfx(&window)?;
        self.start_panel(&window);
        if let Some(g) = &self.gfx {
            self.warm_up = warm_up(g.gpu.clone());
        }
        window.request_redraw();
        self.window = Some(window);
        Ok(())
    }

    pub(super) fn resize(&mut self, width: u32, height: u32) {
        self.minimized = width == 0 || height == 0;
        if self.minimized {
            return;
        }
        if let Some(g) = &mut self.gfx {
            if g.config.width == width && g.config.height == height {
                return;
            }
            g.config.width = width;
            g.config.height = height;
            g.surface.configure(&g.gpu.ctx.device, &g.config);
            g.targets = FrameTargets::new(&g.gpu.ctx.device, &g.gpu.renderer, width, height);
        }
        self.request_redraw();
    }

    /// Configures the surface again (outdated), or creates it again (lost).
    pub(super) fn recover_surface(&mut self, lost: bool) {
        let (Some(g), Some(w)) = (&mut self.gfx, &self.window) else {
            return;
        };
        if lost {
            match g.gpu.ctx.instance.create_surface(w.clone()) {
                Ok(s) => g.surface = s,
                Err(e) => {
                    eprintln!("agview: the window's surface was lost and cannot be recreated: {e}");
                    return;
                }
            }
        }
        let size = w.inner_size();
        if size.width == 0 || size.height == 0 {
            self.minimized = true;
            return;
        }
        g.config.width = size.width;
        g.config.height = size.height;
        g.surface.configure(&g.gpu.ctx.device, &g.config);
        g.targets = FrameTargets::new(&g.gpu.ctx.device, &g.gpu.renderer, size.width, size.height);
        w.request_redraw();
    }
}

/// The panel uses egui's built-in fonts (the `default_fonts` feature); `AGVIEW_FONT`
/// names a .ttf/.otf to put first, e.g. for scripts the built-in fonts lack.
fn install_fonts(ctx: &egui::Context) -> Result<(), String> {
    let Some(path) = std::env::var_os("AGVIEW_FONT").map(PathBuf::from) else {
        return Ok(());
    };
    let bytes = std::fs::read(&path).map_err(|e| {
        format!(
            "AGVIEW_FONT {}: {e}; using the built-in font",
            path.display()
        )
    })?;
    let mut defs = egui::FontDefinitions::default();
    defs.font_data.insert(
        "agview-user".into(),
        Arc::new(egui::FontData::from_owned(bytes)),
    );
    for family in [egui::FontFamily::Proportional, egui::FontFamily::Monospace] {
        defs.families
            .entry(family)
            .or_default()
            .insert(0, "agview-user".into());
    }
    ctx.set_fonts(defs);
    Ok(())
}

/// Opens the instance, the window's surface and a device that can present to it, in the
/// renderer's one order ([`GpuContext::choose`]).
fn open_gpu(window: &Arc<Window>) -> Result<(wgpu::Surface<'static>, GpuContext), String> {
    let open = |backends: wgpu::Backends| {
        // GL needs the display to present; other backends ignore it.
        let mut desc =
            wgpu::InstanceDescriptor::new_with_display_handle_from_env(Box::new(window.clone()));
        desc.backends = backends;
        let instance = wgpu::Instance::new(desc);
        let surface = instance
            .create_surface(window.clone())
            .map_err(|e| e.to_string())?;
        Ok((instance, surface))
    };
    GpuContext::choose(open, |s: &wgpu::Surface<'static>| Some(s))
        .map(|(ctx, surface)| (surface, ctx))
        .map_err(|e| match e {
            RenderError::NoAdapter { tried } => format!(
                "no GPU adapter can draw to the window (tried {tried}); {}",
                crate::render::NO_ADAPTER_ADVICE
            ),
            e => e.to_string(),
        })
}

/// Draws a tiny scene offscreen on another thread while the asset loads, so the driver
/// compiles the pipelines' shaders (a software rasterizer does that at first use) before the
/// first frame that shows the scene. The window waits for it before it exits (it holds the
/// device).
fn warm_up(gpu: Arc<Gpu>) -> Option<std::thread::JoinHandle<()>> {
    std::thread::Builder::new()
        .name("agview-warm-up".into())
        .spawn(move || {
            let opts = crate::render::BenchOptions {
                blocks: 1,
                tiles_per_side: 1,
                objects: 1,
                meshes: 1,
                ..crate::render::BenchOptions::default()
            };
            let (scene, art, terrain) = crate::render::synthetic_city(&opts);
            let Ok(mut s) = SceneGpu::new(&gpu.ctx, &gpu.renderer, &scene, &art, &terrain) else {
                return;
            };
            let params = FrameParams {
                overlays: crate::render::Overlays::all(),
                ..FrameParams::framing(scene.bounds())
            };
            s.prepare_overlays(&gpu.ctx, &scene, params.overlays);
            let _ = capture(&gpu, &mut s, &params, 16, 16, None);
        })
        .ok()
}
