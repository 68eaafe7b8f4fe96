//! Rendering without a window: into an offscreen texture, read back as an RGBA image.

use std::path::Path;

use crate::art::ArtSet;
use crate::scene::Scene;
use crate::terrain::Terrain;

use super::context::{GpuContext, RenderError};
use super::frame::FrameParams;
use super::pipelines::{FrameTargets, Renderer};
use super::readback::ReadBack;
use super::scene_gpu::SceneGpu;

/// The offscreen colour format: RGBA so the read-back needs no swizzle.
pub(crate) const HEADLESS_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;

/// A device and a renderer for offscreen frames. Creating one is slow on a software
/// rasterizer; keep it and render many frames.
pub struct Headless {
    pub ctx: GpuContext,
    pub renderer: Renderer,
}

impl Headless {
    /// Opens a headless device ([`GpuContext::headless`]) and builds the pipelines for
    /// [`HEADLESS_FORMAT`], 4× multisampled where supported.
    pub fn new() -> Result<Self, RenderError> {
        let ctx = GpuContext::headless()?;
        let samples = Renderer::best_sample_count(&ctx.adapter, HEADLESS_FORMAT);
        let renderer = ctx.checked("building the pipelines", || {
            Renderer::new(&ctx, HEADLESS_FORMAT, samples)
        })?;
        Ok(Headless { ctx, renderer })
    }

    /// Uploads a scene for this renderer.
    pub fn upload(
        &self,
        scene: &Scene,
        art: &ArtSet,
        terrain: &Terrain,
    ) -> Result<SceneGpu, RenderError> {
        SceneGpu::new(&self.ctx, &self.renderer, scene, art, terrain)
    }

    /// [`Headless::upload`], dropping each image's pixels from `art` once it is on the GPU
    /// ([`SceneGpu::new_releasing`]): for a render that needs the art no more.
    pub fn upload_releasing(
        &self,
        scene: &Scene,
        art: &mut ArtSet,
        terrain: &Terrain,
    ) -> Result<SceneGpu, RenderError> {
        SceneGpu::new_releasing(&self.ctx, &self.renderer, scene, art, terrain)
    }

    /// Renders one `width × height` frame of an uploaded scene and reads it back.
    pub fn render(
        &self,
        scene: &mut SceneGpu,
        params: &FrameParams,
        width: u32,
        height: u32,
    ) -> Result<image::RgbaImage, RenderError> {
        let size = (width, height);
        draw_offscreen(
            &self.ctx,
            &self.renderer,
            scene,
            params,
            size,
            None,
            "rendering",
        )
    }
}

/// What is drawn over a frame drawn offscreen (the window's panel): it records into the
/// encoder and returns command buffers to submit before it.
pub type OverFrame<'a> =
    &'a mut dyn FnMut(&mut wgpu::CommandEncoder, &wgpu::TextureView) -> Vec<wgpu::CommandBuffer>;

/// Draws one `width × height` frame of `scene` into an offscreen texture of `renderer`'s
/// colour format, `over` on top, and reads it back as RGBA: the one offscreen frame of a
/// headless render and of the window's screenshot. `what` names it in a GPU error.
pub fn draw_offscreen(
    ctx: &GpuContext,
    renderer: &Renderer,
    scene: &mut SceneGpu,
    params: &FrameParams,
    (width, height): (u32, u32),
    over: Option<OverFrame>,
    what: &'static str,
) -> Result<image::RgbaImage, RenderError> {
    let max = ctx.device.limits().max_texture_dimension_2d;
    if width == 0 || height == 0 || width > max || height > max {
        return Err(RenderError::Size { width, height, max });
    }
    let (texture, copy) = ctx.checked(what, || {
        scene.prepare(ctx, params, width, height);
        let (texture, view) = offscreen_target(&ctx.device, renderer.color_format(), width, height);
        let targets = FrameTargets::new(&ctx.device, renderer, width, height);
        let mut encoder = ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("offscreen frame"),
            });
        renderer.draw(&mut encoder, &view, &targets, scene);
        let first = match over {
            Some(f) => f(&mut encoder, &view),
            None => Vec::new(),
        };
        let copy = ReadBack::copy(&ctx.device, &mut encoder, &texture);
        ctx.queue
            .submit(first.into_iter().chain([encoder.finish()]));
        (texture, copy)
    })?;
    let image = copy.read(ctx);
    drop(texture);
    image
}

/// A texture of `format` to render into and copy from.
pub(crate) fn offscreen_target(
    device: &wgpu::Device,
    format: wgpu::TextureFormat,
    width: u32,
    height: u32,
) -> (wgpu::Texture, wgpu::TextureView) {
    let texture = device.create_texture(&wgpu::TextureDescriptor {
        label: Some("offscreen"),
        size: wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
        view_formats: &[],
    });
    let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
    (texture, view)
}

/// Writes an image as PNG: to a temporary file beside `path`, then renamed over it, so a
/// reader never sees half a file.
pub fn write_png(path: &Path, img: &image::RgbaImage) -> std::io::Result<()> {
    use image::ImageEncoder;
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = std::path::PathBuf::from(tmp);
    let result = (|| {
        let file = std::fs::File::create(&tmp)?;
        let mut w = std::io::BufWriter::new(file);
        image::codecs::png::PngEncoder::new(&mut w)
            .write_image(
                img.as_raw(),
                img.width(),
                img.height(),
                image::ExtendedColorType::Rgba8,
            )
            .map_err(std::io::Error::other)?;
        std::io::Write::flush(&mut w)?;
        drop(w);
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}
