//! Rendering without a window: into an offscreen texture, read back as an RGBA image.

use std::path::Path;

use crate::art::ArtSet;
use crate::scene::Scene;
use crate::terrain::Terrain;

use super::context::{GpuContext, RenderError};
use super::pipelines::{FrameTargets, Renderer};
use super::scene_gpu::SceneGpu;
use super::FrameParams;

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

/// Records the copy of `texture` into a mappable buffer whose rows are padded to
/// `COPY_BYTES_PER_ROW_ALIGNMENT`; returns the buffer and the padded row length.
pub(crate) fn copy_to_buffer(
    device: &wgpu::Device,
    encoder: &mut wgpu::CommandEncoder,
    texture: &wgpu::Texture,
) -> (wgpu::Buffer, u32) {
    let (w, h) = (texture.width(), texture.height());
    let align = wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
    let padded = (w * 4).div_ceil(align) * align;
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("read-back"),
        size: u64::from(padded) * u64::from(h),
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });
    encoder.copy_texture_to_buffer(
        wgpu::TexelCopyTextureInfo {
            texture,
            mip_level: 0,
            origin: wgpu::Origin3d::ZERO,
            aspect: wgpu::TextureAspect::All,
        },
        wgpu::TexelCopyBufferInfo {
            buffer: &buffer,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(padded),
                rows_per_image: Some(h),
            },
        },
        wgpu::Extent3d {
            width: w,
            height: h,
            depth_or_array_layers: 1,
        },
    );
    (buffer, padded)
}

/// Maps a `MAP_READ` buffer whose copies are submitted, waiting for the GPU.
pub(crate) fn map_for_reading(ctx: &GpuContext, buffer: &wgpu::Buffer) -> Result<(), RenderError> {
    let (tx, rx) = std::sync::mpsc::channel();
    buffer.map_async(wgpu::MapMode::Read, .., move |r| {
        let _ = tx.send(r);
    });
    ctx.device
        .poll(wgpu::PollType::wait_indefinitely())
        .map_err(|e| RenderError::ReadBack(e.to_string()))?;
    rx.recv()
        .map_err(|e| RenderError::ReadBack(e.to_string()))?
        .map_err(|e| RenderError::ReadBack(e.to_string()))
}

/// Maps the read-back buffer and strips the row padding.
pub(crate) fn read_back(
    ctx: &GpuContext,
    buffer: &wgpu::Buffer,
    padded: u32,
    width: u32,
    height: u32,
) -> Result<Vec<u8>, RenderError> {
    map_for_reading(ctx, buffer)?;
    let row = width as usize * 4;
    let mut out = Vec::with_capacity(row * height as usize);
    {
        let data = buffer
            .get_mapped_range(..)
            .map_err(|e| RenderError::ReadBack(e.to_string()))?;
        for y in 0..height as usize {
            let start = y * padded as usize;
            out.extend_from_slice(&data[start..start + row]);
        }
    }
    buffer.unmap();
    Ok(out)
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
