// lines.wgsl — debug overlays: line segments draped on the terrain, one colour each.
//
// Bind groups:
//   @group(0) frame: Frame uniforms, height field, sampler (common.wgsl); Frame.flags.x is
//             the mask of overlay kinds to show (bit = kind)
//   (no material group)
// Vertex buffer 0: x, y; meters above the drawn ground; overlay kind; colour (RGBA8).
// Segments are split on the CPU at about the terrain's cell size so they follow it.

struct LineIn {
    @location(0) xy: vec2<f32>,
    @location(1) lift: f32,
    @location(2) kind: u32,
    @location(3) color: vec4<f32>,
};

struct LineOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) color: vec4<f32>,
};

@vertex
fn vs_main(in: LineIn) -> LineOut {
    var out: LineOut;
    if ((frame.flags.x & (1u << in.kind)) == 0u) {
        out.clip = vec4<f32>(2.0, 2.0, 0.5, 1.0);
        out.color = vec4<f32>(0.0);
        return out;
    }
    let world = vec3<f32>(in.xy, surface_at(in.xy) + in.lift);
    out.clip = lift_depth(frame.view_proj * vec4<f32>(world, 1.0), frame.params.w * 4.0);
    // The overlay's colour is how it is to be seen: the exposed value the tonemap pass
    // turns back into it.
    out.color = vec4<f32>(untonemap(in.color.rgb), in.color.a);
    return out;
}

@fragment
fn fs_main(in: LineOut) -> @location(0) vec4<f32> {
    return in.color;
}
