//! Screenshots (F12, `--screenshot`) and the presented frame (`--presented-frame`): the scene
//! drawn again offscreen, or the window's own frame, read back.

#[allow(unused_imports)]
use super::frame::paint_panel;
use super::*;

impl App {
    /// Whether the frame being drawn is the one `--presented-frame` reads back.
    pub(super) fn presented_due(&self) -> bool {
        self.args.presented_frame.is_some()
            && !self.presented_taken
            && self.shown.is_some()
            && self.frames_with_scene >= self.args.frames
    }

    /// Writes what `--presented-frame` read back, and ends the program.
    pub(super) fn write_presented(&mut self, result: Result<image::RgbaImage, String>) {
        let Some(path) = self.args.presented_frame.clone() else {
            return;
        };
        self.write_frame(&path, result, "the presented frame");
        self.exit_pending = true;
    }

    /// Writes a frame read back as presented (`what` it was, for the line printed); a
    /// failure sets the exit status.
    pub(super) fn write_frame(
        &mut self,
        path: &Path,
        result: Result<image::RgbaImage, String>,
        what: &str,
    ) {
        match result.and_then(|img| {
            crate::render::write_png(path, &img)
                .map(|()| img.dimensions())
                .map_err(|e| format!("writing {}: {e}", path.display()))
        }) {
            Ok((w, h)) => eprintln!("wrote {} ({w}x{h}, {what})", path.display()),
            Err(e) => {
                eprintln!("agview: error: {what}: {e}");
                self.exit_code = ExitCode::from(1);
            }
        }
    }

    /// Writes the test-hook screenshot; a failure sets the exit status.
    pub(super) fn write_shot(&mut self, path: &Path) {
        match self.capture(self.args.screenshot_panel) {
            Ok(img) => match crate::render::write_png(path, &img) {
                Ok(()) => eprintln!(
                    "wrote {} ({}x{})",
                    path.display(),
                    img.width(),
                    img.height()
                ),
                Err(e) => {
                    eprintln!("agview: error: writing {}: {e}", path.display());
                    self.exit_code = ExitCode::from(1);
                }
            },
            Err(e) => {
                eprintln!("agview: error: screenshot: {e}");
                self.exit_code = ExitCode::from(1);
            }
        }
    }

    /// The scene at the window's size, with the panel as last painted when `with_panel`,
    /// read back as RGBA.
    pub(super) fn capture(&mut self, with_panel: bool) -> Result<image::RgbaImage, String> {
        let params = self.frame_params();
        let (Some(g), Some(s)) = (&mut self.gfx, &mut self.shown) else {
            return Err("no scene on screen yet".into());
        };
        let (w, h) = (g.config.width, g.config.height);
        let ui = self
            .last_ui
            .as_ref()
            .filter(|(_, size, _)| with_panel && *size == [w, h]);
        match ui {
            Some((jobs, size, ppp)) => {
                let egui = &mut g.egui;
                let ctx = &g.gpu.ctx;
                let sd = egui_wgpu::ScreenDescriptor {
                    size_in_pixels: *size,
                    pixels_per_point: *ppp,
                };
                let mut panel = |enc: &mut wgpu::CommandEncoder, view: &wgpu::TextureView| {
                    paint_panel(egui, ctx, enc, view, jobs, &sd)
                };
                capture(&g.gpu, &mut s.gpu, &params, w, h, Some(&mut panel))
            }
            None => capture(&g.gpu, &mut s.gpu, &params, w, h, None),
        }
    }

    pub(super) fn screenshot(&mut self, with_panel: bool) {
        let result = self.capture(with_panel).and_then(|img| {
            screenshot::save(self.args.screenshot_dir.as_deref(), &self.args.asset, &img)
        });
        self.status = Some(match result {
            Ok(p) => {
                eprintln!("wrote {}", p.display());
                (format!("wrote {}", p.display()), false)
            }
            Err(e) => {
                eprintln!("agview: {e}");
                (e, true)
            }
        });
        self.request_redraw();
    }
}

/// Renders the scene (and `overlay`) into an offscreen texture of the renderer's format and
/// reads it back as RGBA (the renderer's one offscreen frame).
pub fn capture(
    gpu: &Gpu,
    scene: &mut SceneGpu,
    params: &FrameParams,
    width: u32,
    height: u32,
    overlay: Option<OverFrame>,
) -> Result<image::RgbaImage, String> {
    let size = (width, height);
    crate::render::draw_offscreen(
        &gpu.ctx,
        &gpu.renderer,
        scene,
        params,
        size,
        overlay,
        "taking a screenshot",
    )
    .map_err(|e| match e {
        RenderError::Size { width, height, .. } => {
            format!("cannot capture a {width}x{height} image")
        }
        e => e.to_string(),
    })
}
