// tree.wgsl — forest trees as crossed quads and a flat crown quad, alpha-tested, drawn from
// both sides. One instance per tree (src/render/trees.rs); each draw gives every instance
// 6 × (max_quads + 1) vertices: vertex 6q..6q+5 is quad q's two triangles, quad `quads` is
// the crown and later quads collapse.
//
// Bind groups:
//   @group(0) frame: Frame uniforms, height field, sampler (common.wgsl)
//   @group(1) material: the forest texture; Material.tint.a is the alpha-test threshold;
//             Material.lod.y the forest's `LOD`, past which its trees are not drawn
// Vertex buffer 0 (per instance): base x, y, heading (radians clockwise from north), quads;
//   width, height (m), the trunk's place across the width (0..1), 1 when the samples stay
//   inside the picture (`atlas::clamp_rect`: it lies inside the texture); the picture
//   [s1 t1 s2 t2].

struct TreeIn {
    @location(0) base_heading_quads: vec4<f32>,
    @location(1) size_offset: vec4<f32>,
    @location(2) uv: vec4<f32>,
};

struct TreeOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) uv: vec2<f32>,
    @location(2) height: f32,
    // the picture in image coordinates (`st_rect_to_uv`); the whole texture for no clamp
    @location(3) @interpolate(flat) rect: vec4<f32>,
};

// Where the crown quad sits, as a fraction of the tree's height.
const CROWN_AT: f32 = 0.6;
// The part of the picture mapped onto the crown quad: from this fraction of its height up.
const CROWN_FROM: f32 = 0.4;
const PI: f32 = 3.14159265358979;

@vertex
fn vs_main(@builtin(vertex_index) vi: u32, tree: TreeIn) -> TreeOut {
    var out: TreeOut;
    let q = vi / 6u;
    // The quad's corners, counter-clockwise from its lower left: (0,0) (1,0) (1,1) (0,1).
    var corner_of = array<u32, 6>(0u, 1u, 2u, 0u, 2u, 3u);
    let c = corner_of[vi % 6u];
    let cx = select(0.0, 1.0, c == 1u || c == 2u);
    let cy = select(0.0, 1.0, c >= 2u);
    let quads = u32(tree.base_heading_quads.w);
    let heading = tree.base_heading_quads.z;
    let w = tree.size_offset.x;
    let h = tree.size_offset.y;
    let st0 = tree.uv.xy;
    let st1 = tree.uv.zw;
    var offset: vec2<f32>;
    var up: f32;
    var st: vec2<f32>;
    if (q < quads) {
        // Crossed quads, evenly turned over half a circle; the quad's horizontal axis is
        // east at heading 0, turned clockwise.
        let angle = heading + f32(q) * PI / f32(quads);
        let axis = vec2<f32>(cos(angle), -sin(angle));
        let along = mix(-tree.size_offset.z * w, (1.0 - tree.size_offset.z) * w, cx);
        offset = axis * along;
        up = cy * h;
        st = vec2<f32>(mix(st0.x, st1.x, cx), mix(st0.y, st1.y, cy));
    } else if (q == quads) {
        // Seen from straight above the vertical quads are edge-on and vanish: a horizontal
        // quad across the crown (the picture's upper part, where the foliage is) keeps the
        // tree visible from above, and is itself edge-on from the side.
        let r = 0.4 * w;
        let x = mix(-r, r, cx);
        let y = mix(-r, r, cy);
        let sn = sin(heading);
        let cs = cos(heading);
        offset = vec2<f32>(x * cs + y * sn, -x * sn + y * cs);
        up = CROWN_AT * h;
        let crown = st0.y + CROWN_FROM * (st1.y - st0.y);
        st = vec2<f32>(mix(st0.x, st1.x, cx), mix(crown, st1.y, cy));
    }
    let base = tree.base_heading_quads.xy;
    // Sink the trunk a little so slopes do not show a gap under it.
    let ground = height_at(base) - 0.3;
    if (q > quads || distance(vec3<f32>(base, ground), frame.camera.xyz) > material.lod.y) {
        // Past this tree's quads, or past its forest's LOD: a point outside the view, so
        // the triangles are dropped.
        out.clip = vec4<f32>(2.0, 2.0, 0.5, 1.0);
        out.world = vec3<f32>(0.0);
        out.uv = vec2<f32>(0.0);
        out.height = 0.0;
        out.rect = vec4<f32>(0.0);
        return out;
    }
    let world = vec3<f32>(base + offset, ground + up);
    out.clip = frame.view_proj * vec4<f32>(world, 1.0);
    out.world = world;
    out.uv = st_to_uv(st);
    out.height = up;
    out.rect = vec4<f32>(0.0, 0.0, 1.0, 1.0);
    if (tree.size_offset.w > 0.5) {
        out.rect = st_rect_to_uv(vec4<f32>(min(st0, st1), max(st0, st1)));
    }
    return out;
}

override COVERAGE: bool = false;

@fragment
fn fs_main(in: TreeOut) -> @location(0) vec4<f32> {
    let texel = atlas_sample(in.uv, in.rect);
    // Under MSAA with alpha-to-coverage (COVERAGE), the alpha becomes a coverage that
    // crosses one half at the cutoff over about a pixel (as object.wgsl's): far crowns keep
    // their coverage and their edges are smooth. Else the plain cutoff.
    let coverage = clamp((texel.a - material.tint.a) / max(fwidth(texel.a), 1e-4) + 0.5, 0.0, 1.0);
    var alpha = 1.0;
    var dropped = texel.a < material.tint.a;
    if (COVERAGE) {
        alpha = coverage;
        dropped = coverage <= 0.0;
    }
    if (dropped) {
        discard;
    }
    // Crossed quads have no useful normal: light them as a soft, upward-facing volume,
    // darker toward the ground.
    let n = normalize(vec3<f32>(0.0, 0.0, 1.0) + frame.sun.xyz * 0.5);
    let occlusion = 0.75 + 0.25 * clamp(in.height / 6.0, 0.0, 1.0);
    let color = fog(shade(texel.rgb * material.tint.rgb, n, in.world) * occlusion, in.world);
    return vec4<f32>(color, alpha);
}

// The shadow map (depth only): the alpha-tested crown.
@fragment
fn fs_shadow(in: TreeOut) {
    let texel = atlas_sample(in.uv, in.rect);
    if (texel.a < material.tint.a) {
        discard;
    }
}
