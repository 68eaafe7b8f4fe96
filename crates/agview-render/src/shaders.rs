//! The WGSL sources of the frame's pipelines, assembled from the files in `shaders/`: every
//! one begins with the tone curve's coefficients (written here from
//! [`photometry::ACES_FIT`], the one place they are) and `screen.wgsl` (the full-screen
//! triangle and the tone curve, which bind nothing); the scene's pipelines then have
//! `common.wgsl` (the frame's bindings and helpers) and their own file, the tonemap pass
//! `tonemap.wgsl`. Each is assembled once, on first use.

use std::sync::LazyLock;

use super::photometry;

/// The WGSL that every frame shader begins with: the curve's constants, then screen.wgsl.
fn prelude() -> String {
    let mut s =
        String::from("// The tone curve's coefficients (agview_mesh::photometry::ACES_FIT).\n");
    for (name, value) in ["ACES_A", "ACES_B", "ACES_C", "ACES_D", "ACES_E"]
        .iter()
        .zip(photometry::ACES_FIT)
    {
        // `{:?}` writes the shortest decimal that reads back as the same f32.
        s.push_str(&format!("const {name}: f32 = {value:?};\n"));
    }
    s.push_str(include_str!("../shaders/screen.wgsl"));
    s
}

/// A scene pipeline's shader: the prelude, common.wgsl, then its own file.
macro_rules! scene_shader {
    ($name:ident, $file:literal) => {
        pub(crate) static $name: LazyLock<String> = LazyLock::new(|| {
            format!(
                "{}\n{}\n{}",
                prelude(),
                include_str!("../shaders/common.wgsl"),
                include_str!(concat!("../shaders/", $file))
            )
        });
    };
}

scene_shader!(TERRAIN_WGSL, "terrain.wgsl");
scene_shader!(TILE_WGSL, "tile.wgsl");
scene_shader!(OBJECT_WGSL, "object.wgsl");
scene_shader!(FACADE_WGSL, "facade.wgsl");
scene_shader!(TREE_WGSL, "tree.wgsl");
scene_shader!(LINES_WGSL, "lines.wgsl");
scene_shader!(SKY_WGSL, "sky.wgsl");
scene_shader!(LIGHTS_WGSL, "lights.wgsl");

/// The last pass: the prelude and tonemap.wgsl (no frame uniforms: not common.wgsl).
pub(crate) static TONEMAP_WGSL: LazyLock<String> =
    LazyLock::new(|| format!("{}\n{}", prelude(), include_str!("../shaders/tonemap.wgsl")));

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use glam::Vec3;

    use super::*;
    use crate::context::GpuContext;
    use crate::readback::map_for_reading;

    const W: u32 = 256;
    const H: u32 = 4;
    /// Read back as floats: the curve compared without the output's 8-bit rounding.
    const FLOAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba32Float;

    fn float_texture(ctx: &GpuContext, usage: wgpu::TextureUsages) -> wgpu::Texture {
        ctx.device.create_texture(&wgpu::TextureDescriptor {
            label: Some("tone test"),
            size: wgpu::Extent3d {
                width: W,
                height: H,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: FLOAT,
            usage,
            view_formats: &[],
        })
    }

    /// Draws the full-screen triangle with `pipeline` (and `bind`) into a W×H float image
    /// and reads it back, row after row.
    fn draw(
        ctx: &GpuContext,
        pipeline: &wgpu::RenderPipeline,
        bind: Option<&wgpu::BindGroup>,
    ) -> Vec<Vec3> {
        let target = float_texture(
            ctx,
            wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
        );
        let view = target.create_view(&Default::default());
        let buffer = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("tone test"),
            size: u64::from(W * H * 16),
            usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
            mapped_at_creation: false,
        });
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("tone test"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color::BLACK),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                ..Default::default()
            });
            pass.set_pipeline(pipeline);
            if let Some(bind) = bind {
                pass.set_bind_group(0, bind, &[]);
            }
            pass.draw(0..3, 0..1);
        }
        encoder.copy_texture_to_buffer(
            target.as_image_copy(),
            wgpu::TexelCopyBufferInfo {
                buffer: &buffer,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(W * 16),
                    rows_per_image: Some(H),
                },
            },
            target.size(),
        );
        ctx.queue.submit([encoder.finish()]);
        map_for_reading(ctx, &buffer).expect("read back");
        let data = buffer.get_mapped_range(..).expect("mapped");
        let floats: &[f32] = bytemuck::cast_slice(&data);
        floats
            .chunks_exact(4)
            .map(|p| Vec3::new(p[0], p[1], p[2]))
            .collect()
    }

    /// The `i`-th colour of the ramp: 0 to 16 (white is about 10), in two hues.
    fn ramp(i: u32) -> Vec3 {
        let x = i as f32 / 64.0;
        let hue = if i.is_multiple_of(2) {
            Vec3::new(1.0, 0.6, 0.2)
        } else {
            Vec3::new(0.3, 0.3, 1.0)
        };
        hue * x
    }

    /// The shaders' tone curve (tonemap.wgsl's pass, screen.wgsl's `tonemap`) and its
    /// inverse (`untonemap`, for the overlays) are `photometry`'s, drawn over a ramp: a
    /// coefficient or a step changed in one and not the other fails here.
    #[test]
    fn the_shaders_tone_curve_is_photometrys() {
        let ctx = GpuContext::headless().unwrap_or_else(|e| panic!("cannot render: {e}"));
        let device = &ctx.device;

        // The tonemap pass itself, from an HDR frame of the ramp.
        let (pipeline, _, layout) = crate::pipelines::tonemap_pipelines(device, FLOAT);
        let hdr = float_texture(
            &ctx,
            wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
        );
        let texels: Vec<[f32; 4]> = (0..W * H).map(|i| ramp(i).extend(1.0).into()).collect();
        ctx.queue.write_texture(
            hdr.as_image_copy(),
            bytemuck::cast_slice(&texels),
            wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(W * 16),
                rows_per_image: Some(H),
            },
            hdr.size(),
        );
        let view = hdr.create_view(&Default::default());
        let bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("tone test"),
            layout: &layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::TextureView(&view),
            }],
        });
        let shown = draw(&ctx, &pipeline, Some(&bind));
        for (i, got) in shown.iter().enumerate() {
            let want = photometry::tonemap(ramp(i as u32));
            assert!(
                (*got - want).abs().max_element() < 1e-5,
                "tonemap of {}: the shader gives {got}, photometry {want}",
                ramp(i as u32)
            );
        }

        // `untonemap` (in every scene shader's prelude) over y from 0 to 1.
        let source = format!(
            "{}\n{}",
            prelude(),
            "@vertex fn vs(@builtin(vertex_index) vi: u32) -> @builtin(position) vec4<f32> {
                 return vec4<f32>(full_screen_corner(vi), 0.0, 1.0);
             }
             @fragment fn fs(@builtin(position) pos: vec4<f32>) -> @location(0) vec4<f32> {
                 let y = (floor(pos.y) * 256.0 + floor(pos.x)) / 1024.0;
                 return vec4<f32>(untonemap(vec3<f32>(y, 0.5 * y, 0.25 * y)), 1.0);
             }"
        );
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("untonemap test"),
            source: wgpu::ShaderSource::Wgsl(Cow::Owned(source)),
        });
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("untonemap test"),
            layout: None,
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: Some("vs"),
                compilation_options: Default::default(),
                buffers: &[],
            },
            primitive: Default::default(),
            depth_stencil: None,
            multisample: Default::default(),
            fragment: Some(wgpu::FragmentState {
                module: &module,
                entry_point: Some("fs"),
                compilation_options: Default::default(),
                targets: &[Some(FLOAT.into())],
            }),
            multiview_mask: None,
            cache: None,
        });
        let exposed = draw(&ctx, &pipeline, None);
        for (i, got) in exposed.iter().enumerate() {
            let y = i as f32 / 1024.0;
            let want = photometry::untonemap(Vec3::new(y, 0.5 * y, 0.25 * y));
            // Near the top the inverse is steep and the quadratic's root loses digits.
            let tolerance = if y < 0.98 { 1e-4 } else { 1e-3 };
            assert!(
                (*got - want).abs().max_element() < tolerance * want.max_element().max(1.0),
                "untonemap of {y}: the shader gives {got}, photometry {want}"
            );
        }
    }
}
