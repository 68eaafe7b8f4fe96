// object.wgsl — instanced object meshes (OBJ8), one draw per (mesh, LOD, material).
//
// Bind groups:
//   @group(0) frame: Frame uniforms, height field, sampler (common.wgsl)
//   @group(1) material: the mesh's texture, Material uniforms, lit texture, normal map and
//             material map; `material.lod` holds this draw's LOD range [near, far], the
//             shading fields its material (common.wgsl)
// Vertex buffer 0 (per vertex): mesh position, normal, s t — OBJ8 axes (+x east, +y up,
//   +z south).
//   @group(2) culled path only: all instances and the visible lists (storage buffers)
// Vertex buffer 1 (per instance, 32 bytes; or read from group 2 on the culled path): x, y, heading (radians clockwise from north),
//   z offset; the unexaggerated ground height where the placement mode says (the
//   height field's bilinear `height_at`, evaluated once per instance at upload), placement
//   mode (0 draped, 1 graded, 2 delta, 3 scraper) plus 4 × the show levels' code (lo × 8 +
//   hi), dither seed in [0, 1), thinning number (the density test, `shown_at_density`).
//
// Material attributes (OBJ8 ATTR_*, `ObjectPipeline` in src/render/pipelines.rs): back-face
// culling and blending are the pipeline's; `material.tint.a` is the alpha cutoff
// (ATTR_no_blend's, or 1/255 for blended ranges) and `material.lod.w` is 1 for
// ATTR_shade_flat. COVERAGE is set on alpha-tested pipelines under MSAA, which have
// alpha-to-coverage on: the alpha becomes a coverage that crosses one half at the cutoff
// over about a pixel, so cutout edges are smooth and thin cutouts keep their coverage.
//
// The exaggeration is applied here, so changing it moves every object without touching
// the instance buffer. An instance outside this draw's LOD range collapses to a point
// outside the view; inside the cross-fade band around `near` and `far` its pixels are
// dithered against the neighbouring LOD.

struct VertexIn {
    @location(0) pos: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) st: vec2<f32>,
};

struct InstanceIn {
    @location(3) pos_heading: vec4<f32>,
    @location(4) ground_mode: vec4<f32>,
};

struct ObjectOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) uv: vec2<f32>,
    // x: keep pixels whose hash is >= x (fading in at near); y: keep when < y (fading
    // out at far); z: the instance's dither seed
    @location(3) @interpolate(flat) fade: vec3<f32>,
};

// Where an instance stands: draped on the ground under it, graded at its ground point's
// height, delta and scraper that plus their offset.
fn instance_origin(inst: InstanceIn) -> vec3<f32> {
    var z = inst.ground_mode.x * frame.params.x;
    if ((u32(inst.ground_mode.y) & 3u) >= 2u) {
        z = z + inst.pos_heading.w;
    }
    return vec3<f32>(inst.pos_heading.xy, z);
}


// The culled path (src/render/cull.rs): the instances and this frame's visible lists, one
// list per (mesh, LOD); each indirect draw's first instance is its list's place.
@group(2) @binding(0) var<storage, read> all_instances: array<InstanceIn>;
@group(2) @binding(1) var<storage, read> visible: array<u32>;

@vertex
fn vs_main(v: VertexIn, inst: InstanceIn) -> ObjectOut {
    return place_vertex(v, inst);
}

@vertex
fn vs_culled(v: VertexIn, @builtin(instance_index) k: u32) -> ObjectOut {
    return place_vertex(v, all_instances[visible[k]]);
}

fn place_vertex(v: VertexIn, inst: InstanceIn) -> ObjectOut {
    var out: ObjectOut;
    let origin = instance_origin(inst);
    let d = distance(origin, frame.camera.xyz);
    var fade_in = 1.0;
    if (material.lod.x > 0.0) {
        fade_in = band_step(material.lod.x, d);
    }
    let fade_out = band_step(material.lod.y, d);
    let shown = shown_at_density(u32(inst.ground_mode.y) >> 2u, inst.ground_mode.w);
    if (fade_in <= 0.0 || fade_out >= 1.0 || !shown) {
        // Not this LOD, or not at this density: a point outside the view, so every triangle
        // is dropped.
        out.clip = vec4<f32>(2.0, 2.0, 0.5, 1.0);
        out.world = vec3<f32>(0.0);
        out.normal = vec3<f32>(0.0, 0.0, 1.0);
        out.uv = vec2<f32>(0.0);
        out.fade = vec3<f32>(0.0);
        return out;
    }
    // OBJ8 axes to the world: east = x, north = -z, up = y; then turn clockwise.
    let h = inst.pos_heading.z;
    let c = cos(h);
    let s = sin(h);
    let local = vec3<f32>(v.pos.x, -v.pos.z, v.pos.y);
    let turned = vec3<f32>(local.x * c + local.y * s, -local.x * s + local.y * c, local.z);
    let nl = vec3<f32>(v.normal.x, -v.normal.z, v.normal.y);
    let nt = vec3<f32>(nl.x * c + nl.y * s, -nl.x * s + nl.y * c, nl.z);
    let world = origin + turned;
    out.clip = frame.view_proj * vec4<f32>(world, 1.0);
    out.world = world;
    out.normal = nt;
    out.uv = st_to_uv(v.st);
    out.fade = vec3<f32>(1.0 - fade_in, 1.0 - fade_out, inst.ground_mode.z);
    return out;
}

override COVERAGE: bool = false;

@fragment
fn fs_main(in: ObjectOut) -> @location(0) vec4<f32> {
    // Sample and take derivatives first: they are only defined before any pixel is
    // discarded.
    let texel = textureSample(material_texture, material_sampler, in.uv);
    let glow = textureSample(material_lit, material_sampler, in.uv).rgb;
    let bump = textureSample(material_normal, material_sampler, in.uv);
    let map_texel = textureSample(material_map, material_sampler, in.uv);
    let cutoff = material.tint.a;
    let coverage = clamp((texel.a - cutoff) / max(fwidth(texel.a), 1e-4) + 0.5, 0.0, 1.0);
    let dp1 = dpdx(in.world);
    let dp2 = dpdy(in.world);
    let duv1 = dpdx(in.uv);
    let duv2 = dpdy(in.uv);
    let face = cross(dp1, dp2);
    let hash = lod_dither(in.clip.xy, in.fade.z);
    var alpha = texel.a;
    var dropped = texel.a < cutoff;
    if (COVERAGE) {
        alpha = coverage;
        dropped = coverage <= 0.0;
    }
    if (hash < in.fade.x || hash >= in.fade.y || dropped) {
        discard;
    }
    var n = in.normal;
    if (material.lod.w > 0.5 && dot(face, face) > 0.0) {
        // ATTR_shade_flat: the triangle's own normal, on the side its vertices' normals
        // face.
        n = select(face, -face, dot(face, n) < 0.0);
    }
    if (dot(n, n) < 1e-6) {
        n = vec3<f32>(0.0, 0.0, 1.0);
    }
    n = normalize(n);
    // `TEXTURE_MAP normal` / `TEXTURE_NORMAL`: the normal map bends the normal the light
    // sees (repeat_m.w: the object has one).
    if (material.repeat_m.w > 0.5) {
        n = bend_normal(n, dp1, dp2, duv1, duv2, normal_map_xy(bump));
    }
    // The material's model (XP12 PBR or the legacy specular), from its maps.
    let shaded = shade_material(texel.rgb * material.tint.rgb, n, in.world, material_at(bump, map_texel));
    // `TEXTURE_LIT`: its texels glow as night comes, whatever the sun does.
    var specular = shaded.specular;
    if (material.consts.w > 0.5) {
        // `BLEND_GLASS`: the reflection is not scaled by the alpha the pipeline blends
        // with (agview's reading; see docs/materials.md).
        specular = specular / max(alpha, 1.0 / 255.0);
    }
    let color = fog(shaded.diffuse + specular + lit_emission(glow), in.world);
    return vec4<f32>(color, alpha);
}

// The shadow map (depth only): the same pixels as `fs_main` keeps, LOD dither included.
@fragment
fn fs_shadow(in: ObjectOut) {
    let texel = textureSample(material_texture, material_sampler, in.uv);
    let hash = lod_dither(in.clip.xy, in.fade.z);
    if (hash < in.fade.x || hash >= in.fade.y || texel.a < material.tint.a) {
        discard;
    }
}
