// facade.wgsl — facade walls and roofs.
//
// Bind groups:
//   @group(0) frame: Frame uniforms, height field, sampler (common.wgsl)
//   @group(1) material: the wall or roof texture, Material and the walls' lit texture
//             (`TEXTURE_LIT`, black for roofs and where none; common.wgsl). When
//             repeat_m.z is 1 the vertices carry their texture coordinates (facades laid
//             out from their definition); otherwise Material.rect is the wall (or roof)
//             rectangle and repeat_m.xy the meters it covers: bay width × floor height for
//             walls, a square for roofs. Material.lod.xy: the camera distances (to the
//             facade's ground point) the group is drawn between.
// Vertex buffer 0: footprint point x, y; the facade's ground point x, y (its walls stand on
//   the terrain there, its roof is flat); wall: meters along the wall (repeated bays),
//   meters above the ground point, sink (1: lowered a meter below the ground under it, or
//   below the ground point if that is lower), kind (0 wall, 1 roof); normal x, y, z;
//   texture coordinate s, t.

struct FacadeIn {
    @location(0) xy: vec2<f32>,
    @location(1) ground: vec2<f32>,
    @location(2) wall: vec4<f32>,
    @location(3) normal: vec3<f32>,
    @location(4) uv: vec2<f32>,
};

struct FacadeOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) normal: vec3<f32>,
    // x: meters along the wall; y: meters above the base; z: kind
    @location(2) wall: vec3<f32>,
    @location(3) uv: vec2<f32>,
};

@vertex
fn vs_main(in: FacadeIn) -> FacadeOut {
    let base = height_at(in.ground);
    var z = base + in.wall.y;
    if (in.wall.z > 0.5) {
        z = min(surface_at(in.xy), z) - 1.0;
    }
    let world = vec3<f32>(in.xy, z);
    var out: FacadeOut;
    out.clip = frame.view_proj * vec4<f32>(world, 1.0);
    // A level of detail is drawn only between its distances, as X-Plane switches them.
    let d = distance(vec3<f32>(in.ground, base), frame.camera.xyz);
    if (d < material.lod.x || d >= material.lod.y) {
        out.clip = vec4<f32>(2.0, 2.0, 2.0, 1.0);
    }
    out.world = world;
    out.normal = in.normal;
    out.wall = vec3<f32>(in.wall.x, z - base, in.wall.w);
    out.uv = in.uv;
    return out;
}

// A coordinate repeated every `period` meters inside [lo, hi] of the texture.
fn repeat_in(x: f32, period: f32, lo: f32, hi: f32) -> f32 {
    if (period <= 0.0) {
        return mix(lo, hi, clamp(x, 0.0, 1.0));
    }
    return lo + fract(x / period) * (hi - lo);
}

@fragment
fn fs_main(in: FacadeOut) -> @location(0) vec4<f32> {
    if (material.repeat_m.z > 0.5) {
        let mapped = textureSample(material_texture, material_sampler, st_to_uv(in.uv));
        let glow = textureSample(material_lit, material_sampler, st_to_uv(in.uv)).rgb * frame.sky.w;
        let c = fog(shade(mapped.rgb * material.tint.rgb, normalize(in.normal), in.world) + glow, in.world);
        return vec4<f32>(c, 1.0);
    }
    var coord = in.wall.xy;
    if (in.wall.z > 0.5) {
        coord = in.world.xy;
    }
    let r = material.rect;
    let period = material.repeat_m.xy;
    let st = vec2<f32>(repeat_in(coord.x, period.x, r.x, r.z), repeat_in(coord.y, period.y, r.y, r.w));
    // Gradients of the unwrapped coordinate, so the wrap does not pick the smallest mip.
    let scale = vec2<f32>((r.z - r.x) / max(period.x, 1e-3), (r.y - r.w) / max(period.y, 1e-3));
    let gx = dpdx(coord) * scale;
    let gy = dpdy(coord) * scale;
    let texel = textureSampleGrad(material_texture, material_sampler, st_to_uv(st), gx, gy);
    // `TEXTURE_LIT`: the same texels of the lit texture glow as night comes (frame.sky.w).
    let glow = textureSampleGrad(material_lit, material_sampler, st_to_uv(st), gx, gy).rgb * frame.sky.w;
    let color = fog(shade(texel.rgb * material.tint.rgb, normalize(in.normal), in.world) + glow, in.world);
    return vec4<f32>(color, 1.0);
}
