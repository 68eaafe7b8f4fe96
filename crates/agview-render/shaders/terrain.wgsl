// terrain.wgsl — the ground: a lit grid over the height field with a procedural grass and
// earth texture, drawn in chunks (src/render/terrain_chunks.rs).
//
// Bind groups:
//   @group(0) frame: Frame uniforms, height field, sampler (common.wgsl)
//   (no material group)
// Vertex input: per instance, the grid sample at the chunk's south-west corner. The index
// buffer holds the chunk's pattern at its level of detail as points of a shared lattice
// (index = j × CHUNK_LATTICE + i): each cell split along its south-west → north-east
// diagonal, edges toward a finer neighbour taking its vertices.

// Lattice points per row: `LATTICE` in src/render/terrain_chunks.rs.
const CHUNK_LATTICE: u32 = 65u;

struct TerrainOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) normal: vec3<f32>,
};

@vertex
fn vs_main(@builtin(vertex_index) vi: u32, @location(0) chunk: vec2<u32>) -> TerrainOut {
    // A chunk past the grid's edge folds onto it: no area, no sample outside the texture.
    let last = u32(frame.grid.w) - 1u;
    let i = i32(min(chunk.x + vi % CHUNK_LATTICE, last));
    let j = i32(min(chunk.y + vi / CHUNK_LATTICE, last));
    let xy = frame.grid.xy + vec2<f32>(f32(i), f32(j)) * frame.grid.z;
    let world = vec3<f32>(xy, height_sample(i, j));
    var out: TerrainOut;
    out.clip = frame.view_proj * vec4<f32>(world, 1.0);
    out.world = world;
    out.normal = grid_normal(i, j);
    return out;
}

// Segments per side of the skirt.
const SKIRT_SEGMENTS: u32 = 64u;
// How far the skirt reaches past the height field (m): where the haze is the sky's colour.
const SKIRT_REACH: f32 = 300000.0;

// The skirt: a flat ring from the height field's edge out to the horizon, so the ground does
// not end at the grid (`SKIRT_VERTICES` in src/render/terrain_chunks.rs: 4 sides ×
// SKIRT_SEGMENTS quads × 6). Each segment joins two points of the grid's border to the
// points as far along the side of a square SKIRT_REACH larger; each such line is level at
// the border's height there, so the ring meets the grid's edge and stays at its heights.
@vertex
fn vs_skirt(@builtin(vertex_index) vi: u32) -> TerrainOut {
    let side = vi / (SKIRT_SEGMENTS * 6u);
    let segment = (vi / 6u) % SKIRT_SEGMENTS;
    // Two triangles, counter-clockwise from above: (inner a, outer b, inner b) and
    // (inner a, outer a, outer b).
    let corner = array<vec2<u32>, 6>(
        vec2<u32>(0u, 0u), vec2<u32>(1u, 1u), vec2<u32>(1u, 0u),
        vec2<u32>(0u, 0u), vec2<u32>(0u, 1u), vec2<u32>(1u, 1u),
    )[vi % 6u];
    let t = f32(segment + corner.x) / f32(SKIRT_SEGMENTS);
    let size = (frame.grid.w - 1.0) * frame.grid.z;
    let lo = frame.grid.xy;
    let hi = lo + vec2<f32>(size);
    // Counter-clockwise around the grid seen from above: south, east, north, west; the
    // outward direction of each side.
    var a: vec2<f32>;
    var b: vec2<f32>;
    var outward: vec2<f32>;
    switch side {
        case 0u: { a = lo; b = vec2<f32>(hi.x, lo.y); outward = vec2<f32>(0.0, -1.0); }
        case 1u: { a = vec2<f32>(hi.x, lo.y); b = hi; outward = vec2<f32>(1.0, 0.0); }
        case 2u: { a = hi; b = vec2<f32>(lo.x, hi.y); outward = vec2<f32>(0.0, 1.0); }
        default: { a = vec2<f32>(lo.x, hi.y); b = lo; outward = vec2<f32>(-1.0, 0.0); }
    }
    let inner = mix(a, b, t);
    let along = normalize(b - a);
    // The outer side is longer by SKIRT_REACH at each end.
    let outer = inner + outward * SKIRT_REACH + along * SKIRT_REACH * (2.0 * t - 1.0);
    var xy = inner;
    if (corner.y == 1u) {
        xy = outer;
    }
    // Against the grid, a hair below its edge, so no crack shows sky between them.
    let world = vec3<f32>(xy, height_at(inner) - 0.05 * f32(1u - corner.y));
    var out: TerrainOut;
    out.clip = frame.view_proj * vec4<f32>(world, 1.0);
    out.world = world;
    out.normal = vec3<f32>(0.0, 0.0, 1.0);
    return out;
}

fn hash2(p: vec2<f32>) -> f32 {
    let q = fract(p * vec2<f32>(0.1031, 0.1030));
    let r = q + dot(q, q.yx + 33.33);
    return fract((r.x + r.y) * r.x);
}

// Smooth value noise in [0, 1].
fn value_noise(p: vec2<f32>) -> f32 {
    let i = floor(p);
    let f = fract(p);
    let u = f * f * (3.0 - 2.0 * f);
    let a = hash2(i);
    let b = hash2(i + vec2<f32>(1.0, 0.0));
    let c = hash2(i + vec2<f32>(0.0, 1.0));
    let d = hash2(i + vec2<f32>(1.0, 1.0));
    return mix(mix(a, b, u.x), mix(c, d, u.x), u.y);
}

// Noise at a wavelength (m), faded to its mean where a pixel covers more than a wavelength.
fn octave(p: vec2<f32>, wavelength: f32, footprint: f32) -> f32 {
    let keep = clamp(1.5 - footprint / wavelength * 2.0, 0.0, 1.0);
    return mix(0.5, value_noise(p / wavelength), keep);
}

// The ground's albedo (linear RGB) at `p` (metres), seen with a pixel `footprint` metres
// wide, where the terrain's normal points `normal_z` up. agview-export's
// `scene/terrain_texture.rs` mirrors `hash2` down to here to bake the exported terrain's
// texture; its test fails on any change here until it follows.
fn ground_albedo(p: vec2<f32>, footprint: f32, normal_z: f32) -> vec3<f32> {
    let big = octave(p + vec2<f32>(137.0, 71.0), 90.0, footprint);
    let mid = octave(p, 17.0, footprint);
    let fine = octave(p * 1.7 + vec2<f32>(9.0, 3.0), 2.5, footprint);

    let grass_dark = vec3<f32>(0.16, 0.26, 0.08);
    let grass_light = vec3<f32>(0.30, 0.40, 0.14);
    let dry = vec3<f32>(0.42, 0.40, 0.22);
    let earth = vec3<f32>(0.36, 0.27, 0.17);

    var albedo = mix(grass_dark, grass_light, mid * 0.7 + fine * 0.3);
    albedo = mix(albedo, dry, smoothstep(0.55, 0.85, big) * 0.6);
    // Bare earth in patches and on steep slopes.
    let slope = 1.0 - normal_z;
    let bare = max(smoothstep(0.68, 0.8, mid * 0.6 + big * 0.4), smoothstep(0.25, 0.45, slope));
    return mix(albedo, earth * (0.85 + 0.3 * fine), bare);
}

@fragment
fn fs_main(in: TerrainOut) -> @location(0) vec4<f32> {
    let p = in.world.xy;
    let footprint = max(length(dpdx(p)), length(dpdy(p)));
    let albedo = ground_albedo(p, footprint, in.normal.z);
    let n = normalize(in.normal);
    let color = fog(shade(albedo, n, in.world), in.world);
    return vec4<f32>(color, 1.0);
}
