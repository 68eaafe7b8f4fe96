//! Rendering without a window: into an offscreen texture, read back as an RGBA image.

use std::path::Path;

use crate::art::ArtSet;
use crate::scene::Scene;
use crate::terrain::Terrain;

use super::context::{GpuContext, RenderError};
use super::frame::FrameParams;
use super::pipelines::{FrameTargets, Renderer};
use super::readback::{copy_to_buffer, read_back};
use super::scene_gpu::SceneGpu;

/// The offscreen colour format: RGBA so the read-back needs no swizzle.
pub const HEADLESS_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;

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
        let max = self.ctx.device.limits().max_texture_dimension_2d;
        if width == 0 || height == 0 || width > max || height > max {
            return Err(RenderError::Size { width, height, max });
        }
        let ctx = &self.ctx;
        let (texture, readback, padded) = ctx.checked("rendering", || {
            scene.prepare(ctx, params, width, height);
            let (texture, view) = offscreen_target(&ctx.device, width, height);
            let targets = FrameTargets::new(&ctx.device, &self.renderer, width, height);
            let mut encoder = ctx
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("headless frame"),
                });
            self.renderer.draw(&mut encoder, &view, &targets, scene);
            let (readback, padded) = copy_to_buffer(&ctx.device, &mut encoder, &texture);
            ctx.queue.submit([encoder.finish()]);
            (texture, readback, padded)
        })?;
        let pixels = read_back(ctx, &readback, padded, width, height)?;
        drop(texture);
        image::RgbaImage::from_raw(width, height, pixels)
            .ok_or_else(|| RenderError::ReadBack("image buffer has the wrong size".into()))
    }
}

/// One-shot: opens a device, uploads, renders one frame and reads it back. Slow (device
/// and pipeline creation each time); use [`Headless`] for more than one frame.
pub fn render_to_rgba(
    scene: &Scene,
    art: &ArtSet,
    terrain: &Terrain,
    params: &FrameParams,
    width: u32,
    height: u32,
) -> Result<image::RgbaImage, RenderError> {
    let h = Headless::new()?;
    let mut gpu = h.upload(scene, art, terrain)?;
    gpu.prepare_overlays(&h.ctx, scene, params.overlays);
    h.render(&mut gpu, params, width, height)
}

/// A texture to render into and copy from.
pub(crate) fn offscreen_target(
    device: &wgpu::Device,
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
        format: HEADLESS_FORMAT,
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
