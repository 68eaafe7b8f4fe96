// tree.wgsl — forest trees as crossed quads, alpha-tested, drawn from both sides.
//
// Bind groups:
//   @group(0) frame: Frame uniforms, height field, sampler (common.wgsl)
//   @group(1) material: the forest texture; Material.tint.a is the alpha-test threshold
// Vertex buffer 0: the tree's base x, y; the corner's horizontal offset x, y from the base;
//   its height above the ground; texture s, t (normalised, t up).

struct TreeIn {
    @location(0) base: vec2<f32>,
    @location(1) offset: vec2<f32>,
    @location(2) up: f32,
    @location(3) st: vec2<f32>,
};

struct TreeOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) uv: vec2<f32>,
    @location(2) height: f32,
};

@vertex
fn vs_main(in: TreeIn) -> TreeOut {
    // Sink the trunk a little so slopes do not show a gap under it.
    let z = height_at(in.base) - 0.3 + in.up;
    let world = vec3<f32>(in.base + in.offset, z);
    var out: TreeOut;
    out.clip = frame.view_proj * vec4<f32>(world, 1.0);
    out.world = world;
    out.uv = st_to_uv(in.st);
    out.height = in.up;
    return out;
}

@fragment
fn fs_main(in: TreeOut) -> @location(0) vec4<f32> {
    let texel = textureSample(material_texture, material_sampler, in.uv);
    if (texel.a < material.tint.a) {
        discard;
    }
    // Crossed quads have no useful normal: light them as a soft, upward-facing volume,
    // darker toward the ground.
    let n = normalize(vec3<f32>(0.0, 0.0, 1.0) + frame.sun.xyz * 0.5);
    let occlusion = 0.75 + 0.25 * clamp(in.height / 6.0, 0.0, 1.0);
    let color = fog(shade(texel.rgb * material.tint.rgb, n, in.world) * occlusion, in.world);
    return vec4<f32>(color, 1.0);
}

// The shadow map (depth only): the alpha-tested crown.
@fragment
fn fs_shadow(in: TreeOut) {
    let texel = textureSample(material_texture, material_sampler, in.uv);
    if (texel.a < material.tint.a) {
        discard;
    }
}
