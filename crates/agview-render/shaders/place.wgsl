// place.wgsl — the ground height under each object instance, from the height field, when the
// terrain changes (src/render/placement.rs): what `Terrain::raw_height_at` gives on the CPU
// at upload. Each instance's sample point is under its origin when draped, at its ground
// point otherwise; the vertex and cull shaders multiply the height by the exaggeration.

struct Instance {
    pos_heading: vec4<f32>,
    ground_mode: vec4<f32>,
};

struct Grid {
    // x, y: south-west corner of the height field; z: cell size (m); w: samples per side
    grid: vec4<f32>,
    // x: instances
    counts: vec4<u32>,
};

@group(0) @binding(0) var<uniform> g: Grid;
@group(0) @binding(1) var heights: texture_2d<f32>;
@group(0) @binding(2) var<storage, read_write> instances: array<Instance>;
@group(0) @binding(3) var<storage, read> points: array<vec2<f32>>;

fn sample(i: i32, j: i32) -> f32 {
    let n = i32(g.grid.w);
    return textureLoad(heights, vec2<i32>(clamp(i, 0, n - 1), clamp(j, 0, n - 1)), 0).r;
}

// Bilinear, unexaggerated: `height_at` of common.wgsl without the exaggeration.
fn raw_height_at(p: vec2<f32>) -> f32 {
    let n = g.grid.w;
    let q = clamp((p - g.grid.xy) / g.grid.z, vec2<f32>(0.0), vec2<f32>(n - 1.0));
    let c = min(floor(q), vec2<f32>(n - 2.0));
    let f = q - c;
    let i = i32(c.x);
    let j = i32(c.y);
    let a = mix(sample(i, j), sample(i + 1, j), f.x);
    let b = mix(sample(i, j + 1), sample(i + 1, j + 1), f.x);
    return mix(a, b, f.y);
}

@compute @workgroup_size(256)
fn place(
    @builtin(local_invocation_index) li: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let k = (wid.x + wid.y * nwg.x) * 256u + li;
    if (k >= g.counts.x) {
        return;
    }
    instances[k].ground_mode.x = raw_height_at(points[k]);
}
