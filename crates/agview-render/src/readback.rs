//! Reading what the GPU wrote back to the CPU: a texture copied into a mappable buffer, and
//! a mapped buffer waited for. Below every file that reads back (headless frames, the
//! viewer's screenshots, the GPU culling's counters).

use super::context::{GpuContext, RenderError};

/// Records the copy of `texture` into a mappable buffer whose rows are padded to
/// `COPY_BYTES_PER_ROW_ALIGNMENT`; returns the buffer and the padded row length.
fn copy_to_buffer(
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

/// The first `bytes` of `buffer` (`COPY_SRC`, `bytes` a multiple of 4), copied to a
/// read-back buffer and read, waiting for the GPU.
pub(crate) fn read_buffer(
    ctx: &GpuContext,
    buffer: &wgpu::Buffer,
    bytes: u64,
) -> Result<Vec<u8>, RenderError> {
    let read = ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("buffer read-back"),
        size: bytes,
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });
    let mut encoder = ctx
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("buffer read-back"),
        });
    encoder.copy_buffer_to_buffer(buffer, 0, &read, 0, bytes);
    ctx.queue.submit([encoder.finish()]);
    map_for_reading(ctx, &read)?;
    let data = read
        .get_mapped_range(..)
        .map_err(|e| RenderError::ReadBack(e.to_string()))?
        .to_vec();
    Ok(data)
}

/// Maps the read-back buffer and strips the row padding.
fn read_back(
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

/// A texture's pixels copied into a buffer, to be read on the CPU as an RGBA image: every
/// read-back of a whole frame (a headless render, the window's screenshot and its presented
/// frame) goes through it.
pub struct ReadBack {
    buffer: wgpu::Buffer,
    /// Bytes per row in the buffer (rows are padded to `COPY_BYTES_PER_ROW_ALIGNMENT`).
    padded: u32,
    width: u32,
    height: u32,
    format: wgpu::TextureFormat,
}

impl ReadBack {
    /// Records the copy of `texture`'s pixels (4 bytes each).
    pub fn copy(
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        texture: &wgpu::Texture,
    ) -> Self {
        let (buffer, padded) = copy_to_buffer(device, encoder, texture);
        ReadBack {
            buffer,
            padded,
            width: texture.width(),
            height: texture.height(),
            format: texture.format(),
        }
    }

    /// Waits for the copy (submitted by then) and returns the pixels as RGBA, swizzling a
    /// BGRA texture's.
    pub fn read(self, ctx: &GpuContext) -> Result<image::RgbaImage, RenderError> {
        let (width, height) = (self.width, self.height);
        let mut pixels = read_back(ctx, &self.buffer, self.padded, width, height)?;
        if matches!(
            self.format,
            wgpu::TextureFormat::Bgra8Unorm | wgpu::TextureFormat::Bgra8UnormSrgb
        ) {
            for px in pixels.chunks_exact_mut(4) {
                px.swap(0, 2);
            }
        }
        image::RgbaImage::from_raw(width, height, pixels)
            .ok_or_else(|| RenderError::ReadBack("image buffer has the wrong size".into()))
    }
}
