// sky.wgsl — the sky: a gradient from the horizon colour (the haze's) to the zenith colour,
// drawn last over what no geometry covered (a full-screen triangle at the far depth, 0).
//
// Bind groups:
//   @group(0) frame: Frame uniforms (inv_view_proj, sky, zenith) (common.wgsl)
// No vertex buffers: the triangle comes from the vertex index (`full_screen_corner`,
// screen.wgsl).

struct SkyOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) ndc: vec2<f32>,
};

@vertex
fn vs_main(@builtin(vertex_index) vi: u32) -> SkyOut {
    let p = full_screen_corner(vi);
    var out: SkyOut;
    out.clip = vec4<f32>(p, 0.0, 1.0);
    out.ndc = p;
    return out;
}

@fragment
fn fs_main(in: SkyOut) -> @location(0) vec4<f32> {
    // Two points on the pixel's view ray (reversed depth: 1 at the near plane).
    let a = frame.inv_view_proj * vec4<f32>(in.ndc, 1.0, 1.0);
    let b = frame.inv_view_proj * vec4<f32>(in.ndc, 0.5, 1.0);
    return vec4<f32>(sky_color(b.xyz / b.w - a.xyz / a.w), 1.0);
}
