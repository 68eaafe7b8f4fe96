// cull.wgsl — per-view culling and LOD selection of object instances (src/render/cull.rs).
//
// The instances are grouped by mesh; each (mesh, LOD) with instances is a *draw*. Each
// frame and view, the CPU keeps the runs of each draw's instances whose cells the view may
// show (`cells.rs`): each kept run is a *segment* with one *slot* per instance, and the
// segments of a draw lie one after the other. Per frame and view:
//
//   classify   one thread per slot: is the instance shown at the density, inside the view's
//              frustum (its mesh's bounding sphere) and inside this LOD's distance range
//              (its fade band included)? Each workgroup scans its 256 flags and writes,
//              per slot, the exclusive count before it (low 31 bits) and the flag (top bit),
//              and its total to `sums`.
//   scan_level the workgroup totals are scanned in the same way, level by level, until one
//              workgroup holds them all;
//   add_level  and added back down, so `sums[g / 256]` is the number of visible slots before
//              slot g's workgroup;
//   scatter    each visible slot writes its instance's index at its place in its draw's
//              list: a prefix sum, not an atomic append, so the lists keep the instances'
//              order and the image does not depend on thread timing;
//   write_args the last segment of each draw writes the draw's indirect arguments (count,
//              first instance); the draws none of whose instances is kept were cleared.
//
// The object vertex shader still applies the exact LOD, fade and density tests: these tests
// are conservative (a slack on every comparison), so culling never drops a pixel the
// uncut draw would show, and every path draws the same image.

struct Instance {
    pos_heading: vec4<f32>,
    ground_mode: vec4<f32>,
};

struct Segment {
    // First instance of the mesh in `instances`; its instance count; the segment's first
    // slot (also its list's place in `visible` and its draw's first instance).
    first: u32,
    count: u32,
    slot_base: u32,
    // 0 for a mesh's first LOD (where instances in the frustum are counted).
    rank: u32,
    index_count: u32,
    first_index: u32,
    // LOD range (m).
    near: f32,
    far: f32,
    // The mesh's bounding sphere: centre in OBJ8 axes, radius.
    sphere: vec4<f32>,
    // The draw the segment belongs to; the draw's first slot (its list's place in
    // `visible`); 1 for the draw's last segment.
    draw: u32,
    base: u32,
    last: u32,
    pad: u32,
};

struct View {
    // Inward planes (unit normal, distance): a point p is inside when dot(n, p) + d >= 0.
    planes: array<vec4<f32>, 6>,
    // xyz: where LOD distances are measured from (the camera's, in every view); w: the
    // terrain exaggeration.
    eye: vec4<f32>,
    // x: LOD fade band (fraction of the switch distance); y: density level 1..6.
    lod: vec4<f32>,
    // x: slots; y: segments.
    counts: vec4<u32>,
};

struct Step {
    // Entries of this level, where they start in `sums`, and where the next level starts
    // (NONE at the top).
    len: u32,
    src: u32,
    dst: u32,
    pad: u32,
};

const NONE: u32 = 0xffffffffu;
const COUNT: u32 = 0x7fffffffu;

@group(0) @binding(0) var<uniform> view: View;
@group(0) @binding(1) var<storage, read> instances: array<Instance>;
@group(0) @binding(2) var<storage, read> segments: array<Segment>;
@group(0) @binding(3) var<storage, read_write> slots: array<u32>;
@group(0) @binding(4) var<storage, read_write> sums: array<u32>;
@group(0) @binding(5) var<storage, read_write> visible: array<u32>;
@group(0) @binding(6) var<storage, read_write> args: array<u32>;
// [0]: instances shown at the density whose bounds meet the frustum.
@group(0) @binding(7) var<storage, read_write> counters: array<atomic<u32>>;
@group(1) @binding(0) var<uniform> step: Step;

var<workgroup> scratch: array<u32, 256>;
var<workgroup> in_view: atomic<u32>;

// Workgroups run on a 2D grid when there are more than 65,535.
fn group_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return wid.x + wid.y * nwg.x;
}

// The segment holding slot `g`: the last whose first slot is at or before it.
fn find_segment(g: u32) -> u32 {
    var lo = 0u;
    var hi = view.counts.y;
    while (hi - lo > 1u) {
        let mid = (lo + hi) / 2u;
        if (segments[mid].slot_base <= g) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    return lo;
}

// Where an instance stands: `instance_origin` of object.wgsl.
fn origin_of(inst: Instance) -> vec3<f32> {
    var z = inst.ground_mode.x * view.eye.w;
    if ((u32(inst.ground_mode.y) & 3u) >= 2u) {
        z = z + inst.pos_heading.w;
    }
    return vec3<f32>(inst.pos_heading.xy, z);
}

// `shown_at_density` of common.wgsl, with a slack on the thinning test.
fn shown(inst: Instance) -> bool {
    let code = u32(inst.ground_mode.y) >> 2u;
    let lo = code >> 3u;
    let hi = code & 7u;
    let level = u32(view.lod.y);
    if (level < lo) {
        return false;
    }
    if (level >= hi) {
        return true;
    }
    let p = (1.0 + f32(level) - f32(lo)) / (1.0 + f32(hi) - f32(lo));
    return inst.ground_mode.w < p + 1e-5;
}

// Whether the mesh's bounding sphere, placed and turned with the instance, meets the view.
fn in_frustum(inst: Instance, origin: vec3<f32>, sphere: vec4<f32>) -> bool {
    let h = inst.pos_heading.z;
    let c = cos(h);
    let s = sin(h);
    let local = vec3<f32>(sphere.x, -sphere.z, sphere.y);
    let centre = origin + vec3<f32>(local.x * c + local.y * s, -local.x * s + local.y * c, local.z);
    let r = sphere.w * 1.001 + 0.01;
    for (var k = 0u; k < 6u; k = k + 1u) {
        let pl = view.planes[k];
        if (dot(pl.xyz, centre) + pl.w < -r) {
            return false;
        }
    }
    return true;
}

// Whether object.wgsl could draw the instance at this LOD: `band_step(near) > 0` (or no
// near limit) and `band_step(far) < 1`, with a slack.
fn in_lod(d: f32, seg: Segment) -> bool {
    let band = view.lod.x;
    let slack = 1e-3 * d + 1e-3;
    let bn = max(seg.near * band * 0.5, 1e-3);
    let bf = max(seg.far * band * 0.5, 1e-3);
    return (seg.near <= 0.0 || d > seg.near - bn - slack) && d < seg.far + bf + slack;
}

// Inclusive sum of `v` over the workgroup's threads up to `li` (all threads must call).
fn workgroup_scan(li: u32, v: u32) -> u32 {
    scratch[li] = v;
    workgroupBarrier();
    for (var off = 1u; off < 256u; off = off * 2u) {
        var add = 0u;
        if (li >= off) {
            add = scratch[li - off];
        }
        workgroupBarrier();
        scratch[li] = scratch[li] + add;
        workgroupBarrier();
    }
    return scratch[li];
}

@compute @workgroup_size(256)
fn classify(
    @builtin(local_invocation_index) li: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let group = group_index(wid, nwg);
    let g = group * 256u + li;
    if (li == 0u) {
        atomicStore(&in_view, 0u);
    }
    var flag = 0u;
    var seen = 0u;
    if (g < view.counts.x) {
        let seg = segments[find_segment(g)];
        let inst = instances[seg.first + (g - seg.slot_base)];
        if (shown(inst)) {
            let origin = origin_of(inst);
            if (in_frustum(inst, origin, seg.sphere)) {
                if (seg.rank == 0u) {
                    seen = 1u;
                }
                if (in_lod(distance(origin, view.eye.xyz), seg)) {
                    flag = 1u;
                }
            }
        }
    }
    let inclusive = workgroup_scan(li, flag);
    if (seen != 0u) {
        atomicAdd(&in_view, 1u);
    }
    if (g < view.counts.x) {
        slots[g] = (inclusive - flag) | (flag << 31u);
    }
    workgroupBarrier();
    if (li == 255u && group * 256u < view.counts.x) {
        sums[group] = inclusive;
        atomicAdd(&counters[0], atomicLoad(&in_view));
    }
}

@compute @workgroup_size(256)
fn scan_level(
    @builtin(local_invocation_index) li: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let group = group_index(wid, nwg);
    let g = group * 256u + li;
    var v = 0u;
    if (g < step.len) {
        v = sums[step.src + g];
    }
    let inclusive = workgroup_scan(li, v);
    if (g < step.len) {
        sums[step.src + g] = inclusive - v;
    }
    if (li == 255u && step.dst != NONE && group * 256u < step.len) {
        sums[step.dst + group] = inclusive;
    }
}

@compute @workgroup_size(256)
fn add_level(
    @builtin(local_invocation_index) li: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let g = group_index(wid, nwg) * 256u + li;
    if (g < step.len) {
        sums[step.src + g] = sums[step.src + g] + sums[step.dst + g / 256u];
    }
}

// Visible slots before slot `g` in the whole list.
fn before(g: u32) -> u32 {
    return (slots[g] & COUNT) + sums[g / 256u];
}

@compute @workgroup_size(256)
fn scatter(
    @builtin(local_invocation_index) li: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let g = group_index(wid, nwg) * 256u + li;
    if (g >= view.counts.x || (slots[g] >> 31u) == 0u) {
        return;
    }
    let seg = segments[find_segment(g)];
    let place = before(g) - before(seg.base);
    visible[seg.base + place] = seg.first + (g - seg.slot_base);
}

@compute @workgroup_size(64)
fn write_args(@builtin(global_invocation_id) id: vec3<u32>) {
    let k = id.x;
    if (k >= view.counts.y) {
        return;
    }
    let seg = segments[k];
    if (seg.last == 0u) {
        return;
    }
    let last = seg.slot_base + seg.count - 1u;
    let shown = before(last) + (slots[last] >> 31u) - before(seg.base);
    let d = seg.draw;
    args[d * 5u] = seg.index_count;
    args[d * 5u + 1u] = shown;
    args[d * 5u + 2u] = seg.first_index;
    args[d * 5u + 3u] = 0u;
    args[d * 5u + 4u] = seg.base;
}
