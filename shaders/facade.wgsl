// facade.wgsl — facade walls (the footprint extruded to its height) and roofs (flat, or
// the slopes of a gable).
//
// Bind groups:
//   @group(0) frame: Frame uniforms, height field, sampler (common.wgsl)
//   @group(1) material: the wall or roof texture; Material.rect is the wall (or roof)
//             rectangle and Material.repeat_m the meters it covers: bay width × floor height
//             for walls, a square for roofs (common.wgsl)
// Vertex buffer 0: footprint point x, y; the facade's ground point x, y (its roof is flat at
//   the terrain height there plus the wall height); wall: meters along the wall, top (1) or
//   bottom (0), wall height, kind (0 wall, 1 roof); outward normal x, y (for a roof: the
//   slope's outward direction times its rise per meter, 0 for a flat roof; the 3D normal is
//   then (normal, 1) normalised).
//
// Wall bottoms sink a meter below the lower of the ground under them and the ground point,
// so a building on a slope shows a foundation and never floats.

struct FacadeIn {
    @location(0) xy: vec2<f32>,
    @location(1) ground: vec2<f32>,
    @location(2) wall: vec4<f32>,
    @location(3) normal: vec2<f32>,
};

struct FacadeOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) normal: vec3<f32>,
    // x: meters along the wall; y: meters above the base; z: kind
    @location(2) wall: vec3<f32>,
};

@vertex
fn vs_main(in: FacadeIn) -> FacadeOut {
    let base = height_at(in.ground);
    var z = base + in.wall.z;
    if (in.wall.y < 0.5) {
        z = min(surface_at(in.xy), base) - 1.0;
    }
    let world = vec3<f32>(in.xy, z);
    var out: FacadeOut;
    out.clip = frame.view_proj * vec4<f32>(world, 1.0);
    out.world = world;
    if (in.wall.w > 0.5) {
        out.normal = normalize(vec3<f32>(in.normal, 1.0));
    } else {
        out.normal = vec3<f32>(in.normal, 0.0);
    }
    out.wall = vec3<f32>(in.wall.x, z - base, in.wall.w);
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
    let color = fog(shade(texel.rgb * material.tint.rgb, normalize(in.normal)), in.world);
    return vec4<f32>(color, 1.0);
}
