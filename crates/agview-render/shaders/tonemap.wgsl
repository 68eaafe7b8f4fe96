// tonemap.wgsl — the frame's last pass: the exposed HDR frame (Rgba16Float, scene nits times
// the camera's exposure, `agview_mesh::photometry`) through the tonemap curve into the output
// (the window's surface or the offscreen image, sRGB-encoded by its format). A full-screen
// triangle; one texel read a pixel (no filtering: the sizes match). `vs_scaled`/`fs_scaled`
// stretch a smaller frame over the output.
//
// Bind groups:
//   @group(0) binding 0: the resolved HDR frame (texture_2d<f32>, read with textureLoad)
// No vertex buffers: the triangle comes from the vertex index (`full_screen_corner`). Not
// prepended with common.wgsl (its bindings are the scene's), only with screen.wgsl (the
// triangle and the tone curve `tonemap`).

@group(0) @binding(0) var hdr: texture_2d<f32>;

@vertex
fn vs_main(@builtin(vertex_index) vi: u32) -> @builtin(position) vec4<f32> {
    return vec4<f32>(full_screen_corner(vi), 0.0, 1.0);
}

@fragment
fn fs_main(@builtin(position) pos: vec4<f32>) -> @location(0) vec4<f32> {
    let c = textureLoad(hdr, vec2<i32>(pos.xy), 0);
    return vec4<f32>(tonemap(c.rgb), 1.0);
}

// A smaller HDR frame stretched over the output (`FrameTargets::reduced`, the viewer's drag
// preview): the triangle carries the output's 0..1 coordinates, and each pixel mixes the
// four nearest texels, each through the curve, as bilinear filtering would.
struct Scaled {
    @builtin(position) pos: vec4<f32>,
    @location(0) uv: vec2<f32>,
};

@vertex
fn vs_scaled(@builtin(vertex_index) vi: u32) -> Scaled {
    let p = full_screen_corner(vi);
    var out: Scaled;
    out.pos = vec4<f32>(p, 0.0, 1.0);
    out.uv = vec2<f32>(p.x * 0.5 + 0.5, 0.5 - p.y * 0.5);
    return out;
}

@fragment
fn fs_scaled(in: Scaled) -> @location(0) vec4<f32> {
    let size = vec2<i32>(textureDimensions(hdr));
    let c = in.uv * vec2<f32>(size) - 0.5;
    let base = floor(c);
    let f = c - base;
    let i = vec2<i32>(base);
    let hi = size - vec2<i32>(1);
    let a = tonemap(textureLoad(hdr, clamp(i, vec2<i32>(0), hi), 0).rgb);
    let b = tonemap(textureLoad(hdr, clamp(i + vec2<i32>(1, 0), vec2<i32>(0), hi), 0).rgb);
    let d = tonemap(textureLoad(hdr, clamp(i + vec2<i32>(0, 1), vec2<i32>(0), hi), 0).rgb);
    let e = tonemap(textureLoad(hdr, clamp(i + vec2<i32>(1, 1), vec2<i32>(0), hi), 0).rgb);
    return vec4<f32>(mix(mix(a, b, f.x), mix(d, e, f.x), f.y), 1.0);
}
