// lights.wgsl — OBJ8 light points (`LIGHT_NAMED`, `LIGHT_PARAM`, `LIGHT_CUSTOM`) as glowing
// camera-facing billboards: one instance per (placed object, light), six vertices each, added
// to the frame (additive blend), depth-tested and not depth-written.
//
// Bind groups:
//   @group(0) frame: Frame uniforms (common.wgsl); `frame.sky_ambient.w` is the night factor
//             the glow is switched by, `frame.zenith.w` the camera's exposure,
//             `frame.flags.z` the frame's height in pixels
// Vertex buffer 0 (per instance, 80 bytes; src/render/lights.rs): the object instance's
//   x, y, heading, z offset and its ground, mode + 4 × show code, seed, thinning number (as
//   object.wgsl's `InstanceIn`); the light's OBJ8 offset and radius (m); its linear colour and
//   intensity in candela; the LOD range [near, far] it was listed in.
//
// A light shows where its object's LOD and density rules (`place_vertex` in object.wgsl) show
// the LOD it belongs to, fading in the same cross-fade band, so it follows its object on every
// culling path without being culled itself.

struct LightIn {
    @location(0) pos_heading: vec4<f32>,
    @location(1) ground_mode: vec4<f32>,
    @location(2) local_size: vec4<f32>,
    @location(3) color: vec4<f32>,
    @location(4) lod: vec4<f32>,
};

struct LightOut {
    @builtin(position) clip: vec4<f32>,
    // -1..1 across the billboard
    @location(0) corner: vec2<f32>,
    @location(1) @interpolate(flat) color: vec3<f32>,
};

// The smallest radius a light is drawn at, in pixels: far lights stay visible.
const MIN_PIXELS: f32 = 1.5;

// The share of the billboard's disc the glow profile of `fs_main` fills
// (`agview_mesh::photometry::LIGHT_GLOW_SHARE`, set by the pipeline).
override GLOW_SHARE: f32 = 0.19;

@vertex
fn vs_main(@builtin(vertex_index) vi: u32, l: LightIn) -> LightOut {
    var out: LightOut;
    var corners = array<vec2<f32>, 6>(
        vec2<f32>(-1.0, -1.0), vec2<f32>(1.0, -1.0), vec2<f32>(1.0, 1.0),
        vec2<f32>(-1.0, -1.0), vec2<f32>(1.0, 1.0), vec2<f32>(-1.0, 1.0),
    );
    let corner = corners[vi % 6u];
    // The object's origin, as `instance_origin` in object.wgsl.
    var z = l.ground_mode.x * frame.params.x;
    if ((u32(l.ground_mode.y) & 3u) >= 2u) {
        z = z + l.pos_heading.w;
    }
    let origin = vec3<f32>(l.pos_heading.xy, z);
    let d = distance(origin, frame.camera.xyz);
    var fade_in = 1.0;
    if (l.lod.x > 0.0) {
        fade_in = band_step(l.lod.x, d);
    }
    let fade_out = band_step(l.lod.y, d);
    let shown = shown_at_density(u32(l.ground_mode.y) >> 2u, l.ground_mode.w);
    // The haze dims a light as it hides the object.
    let haze = exp(-d * frame.camera.w);
    // Candela, switched on by the night factor, dimmed by the haze and the LOD fades.
    let strength = fade_in * (1.0 - fade_out) * frame.sky_ambient.w * l.color.a * haze;
    if (!shown || strength <= 0.0) {
        out.clip = vec4<f32>(2.0, 2.0, 0.5, 1.0);
        out.corner = vec2<f32>(0.0);
        out.color = vec3<f32>(0.0);
        return out;
    }
    // OBJ8 axes to the world and the object's heading, as `place_vertex`.
    let h = l.pos_heading.z;
    let c = cos(h);
    let s = sin(h);
    let local = vec3<f32>(l.local_size.x, -l.local_size.z, l.local_size.y);
    let turned = vec3<f32>(local.x * c + local.y * s, -local.x * s + local.y * c, local.z);
    let center = origin + turned;
    let c0 = frame.view_proj * vec4<f32>(center, 1.0);
    // The camera's right and up in clip units per meter: the first two rows of view_proj.
    let vp = frame.view_proj;
    let right = length(vec3<f32>(vp[0].x, vp[1].x, vp[2].x));
    let up = length(vec3<f32>(vp[0].y, vp[1].y, vp[2].y));
    let w = max(c0.w, 1e-3);
    let px_per_m = up * f32(frame.flags.z) * 0.5 / w;
    let r = max(l.local_size.w, MIN_PIXELS / max(px_per_m, 1e-9));
    // Depth-tested as if pulled toward the eye by its radius, so the lamp housing around a
    // light does not hide its glow.
    let eye = frame.camera.xyz - center;
    let toward = normalize(eye) * min(r, 0.9 * length(eye));
    let cz = frame.view_proj * vec4<f32>(center + toward, 1.0);
    let depth = cz.z / max(cz.w, 1e-6);
    out.clip = vec4<f32>(
        c0.x + corner.x * r * right,
        c0.y + corner.y * r * up,
        depth * c0.w,
        c0.w,
    );
    out.corner = corner;
    // The intensity spread over the glow as drawn (radius r): its luminance, so that the
    // light reaches the eye as I / d² however large it is drawn, through the exposure.
    let nits = strength / (3.14159265 * r * r * GLOW_SHARE);
    out.color = l.color.rgb * nits * frame.zenith.w;
    return out;
}

@fragment
fn fs_main(in: LightOut) -> @location(0) vec4<f32> {
    let q = dot(in.corner, in.corner);
    if (q >= 1.0) {
        discard;
    }
    // A soft halo and a bright core.
    let a = 1.0 - q;
    let glow = a * a * a * 0.6 + exp(-q * 25.0);
    return vec4<f32>(in.color * glow, 0.0);
}
