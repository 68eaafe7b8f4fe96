// common.wgsl — prepended to every scene pipeline's shader, after screen.wgsl (see
// src/shaders.rs).
//
// Bind groups shared by all pipelines:
//   @group(0) frame    binding 0: Frame uniforms (camera, sun, sky, terrain grid, exaggeration)
//                      binding 1: the terrain height field, R32Float, read with textureLoad
//                      binding 2: the linear/repeat/mipmapped sampler used by materials
//                      binding 3: the sun's shadow map (Depth32Float, 0 toward the sun; a
//                                 1×1 stand-in while the shadow map itself is drawn)
//                      binding 4: its comparison sampler (less-equal, linear: 2×2 PCF a tap)
//   @group(1) material binding 0: the material's texture (sRGB)
//                      binding 1: Material uniforms (texture rectangle, repeat, tint, LOD)
//                      binding 2: its lit texture (OBJ8 `TEXTURE_LIT`, sRGB; black when none)
//                      binding 3: its normal map (OBJ8 `TEXTURE_MAP normal` / `TEXTURE_NORMAL`,
//                                 a `.pol`'s `TEXTURE_NORMAL`; uploaded as sRGB like every image
//                                 and re-encoded by `raw_texel`; flat when none)
//                      binding 4: its material map (OBJ8 `TEXTURE_MAP material_gloss` / `gloss`,
//                                 sRGB, re-encoded by `raw_texel`; black when none)
//
// World frame: x east, y north, z up, meters. Depth is reversed (1 near, 0 far).

struct Frame {
    view_proj: mat4x4<f32>,
    // xyz: the eye distances are measured from (LOD, tile fade, haze); w: fog density (1/m)
    camera: vec4<f32>,
    // xyz: unit vector toward the sun; w: 1 when the shadow map is drawn this frame
    sun: vec4<f32>,
    // All colours are exposed HDR values: nits (cd/m²) times the camera's exposure
    // (`agview_mesh::photometry`); the tonemap pass (tonemap.wgsl) maps them to the output.
    // rgb: sky colour at the horizon (and the haze); w: a lit texture's emission: what a
    // `TEXTURE_LIT` texel of 1.0 at the default luminance adds, night factor ×
    // LIT_TEXTURE_NITS × exposure (0 by day); multiply lit texels by it
    sky: vec4<f32>,
    // x, y: south-west corner of the height field; z: cell size (m); w: samples per side
    grid: vec4<f32>,
    // x: exaggeration; y: the scene's tile LOD (tiles carry their own per vertex); z: LOD cross-fade band (fraction); w: tile depth lift
    params: vec4<f32>,
    // x: debug overlay mask (one bit per overlay kind); y: object density level 1..6;
    // z: the frame's height in pixels
    flags: vec4<u32>,
    // the light's orthographic view-projection (world -> shadow map, depth 0 toward the sun)
    light_view_proj: mat4x4<f32>,
    // clip -> world of the camera (the sky's view rays)
    inv_view_proj: mat4x4<f32>,
    // rgb: direct sunlight; w: meters a shadow-map texel covers
    sun_color: vec4<f32>,
    // rgb: sky colour at the zenith; w: the camera's exposure (frame units per nit), for
    // light given in nits or candela (light points)
    zenith: vec4<f32>,
    // rgb: ambient light from the sky (on an upward face); w: how far night has come, 0
    // (day) to 1, the switch of light points and lit textures (`Lighting::of`)
    sky_ambient: vec4<f32>,
    // rgb: ambient light from the ground (on a downward face)
    ground_ambient: vec4<f32>,
};

struct Material {
    // normalised texture rectangle [s1, t1, s2, t2]; t counts up from the image's bottom
    rect: vec4<f32>,
    // x, y: meters one rectangle covers (facade bay width, floor height); 0 = no repeat;
    // z: 1 when facade vertices carry their texture coordinates; w: 1 when an object has a
    // normal map
    repeat_m: vec4<f32>,
    // rgb multiplied with the texture; a: alpha-test threshold
    tint: vec4<f32>,
    // x: LOD near, y: LOD far (m); z: 1 when the texture is a placeholder; w: 1 for an
    // object's `ATTR_shade_flat`
    lod: vec4<f32>,
    // The material rule's result (`agview_format::material`, written by `shading_uniforms`
    // in src/scene_gpu.rs). x: model (0 legacy, 1 XP12 PBR); y: specular scale
    // (`GLOBAL_specular`, `SPECULAR`, legacy `ATTR_shiny_rat`); z: the lit texture's
    // luminance against the default (`GLOBAL_luminance / DEFAULT_LUMINANCE`); w: `BUMP_LEVEL`
    shading: vec4<f32>,
    // Each value = its constant + dot(weights, normal-map texel) + dot(weights, material-map
    // texel), the texels re-encoded (`raw_texel`): one-hot weights pick a channel.
    metal_n: vec4<f32>,
    metal_m: vec4<f32>,
    gloss_n: vec4<f32>,
    gloss_m: vec4<f32>,
    // the legacy specular level's weights on the normal-map texel (its alpha)
    spec_n: vec4<f32>,
    // x: metalness, y: gloss, z: specular level constants; w: 1 for `BLEND_GLASS`
    consts: vec4<f32>,
    // x, y: roughness = x + y * gloss; z: repeats of the normal map over the texture (a
    // `.pol`'s `TEXTURE_NORMAL` scale); w: unused
    rough: vec4<f32>,
};

// Shadow-map taps per lookup: 4 (3×3 texels of PCF), or 1 (2×2) on software rasterizers; a
// pipeline constant (src/render/pipelines.rs), so the branch not taken is compiled out.
override SHADOW_TAPS: f32 = 4.0;

// The material sampler's anisotropy clamp (1 = isotropic), a pipeline constant: how far
// `atlas_sample` expects the sampler's probes to spread.
override ANISOTROPY: f32 = 1.0;

@group(0) @binding(0) var<uniform> frame: Frame;
@group(0) @binding(1) var height_field: texture_2d<f32>;
@group(0) @binding(2) var material_sampler: sampler;
@group(0) @binding(3) var shadow_map: texture_depth_2d;
@group(0) @binding(4) var shadow_sampler: sampler_comparison;

@group(1) @binding(0) var material_texture: texture_2d<f32>;
@group(1) @binding(1) var<uniform> material: Material;
@group(1) @binding(2) var material_lit: texture_2d<f32>;
@group(1) @binding(3) var material_normal: texture_2d<f32>;
@group(1) @binding(4) var material_map: texture_2d<f32>;

const MATERIAL_PI: f32 = 3.14159265;

// A data texel (normal map, material map) as stored in its file: every image is uploaded
// as sRGB, so red, green and blue are encoded back; alpha is stored linear.
fn raw_texel(texel: vec4<f32>) -> vec4<f32> {
    let c = texel.rgb;
    let encoded = select(1.055 * pow(c, vec3<f32>(1.0 / 2.4)) - 0.055, 12.92 * c, c <= vec3<f32>(0.0031308));
    return vec4<f32>(encoded, texel.a);
}

// A normal map's tangent-space x and y (-1..1) from its sampled texel, scaled by
// `BUMP_LEVEL` (material.shading.w): the image is uploaded as sRGB like every other, so its
// red and green are encoded back first.
fn normal_map_xy(texel: vec4<f32>) -> vec2<f32> {
    let xy = raw_texel(texel).rg * 2.0 - 1.0;
    return xy * material.shading.w;
}

// The surface normal `n` bent by a normal map's (x, y) at a pixel, in the tangent frame the
// mesh's texture coordinates give (s along x, t along y): the cotangent frame built from
// screen-space derivatives of the position and of the image coordinates `uv`. The usual
// formula assumes screen y up; here the framebuffer's y runs down, which turns both of its
// vectors round, and v runs down the image (t up is -v), which turns the second back.
// z is rebuilt from x and y (X-Plane's normal maps keep other data in blue and alpha).
fn bend_normal(n: vec3<f32>, dp1: vec3<f32>, dp2: vec3<f32>, duv1: vec2<f32>, duv2: vec2<f32>, xy: vec2<f32>) -> vec3<f32> {
    let dp2perp = cross(dp2, n);
    let dp1perp = cross(n, dp1);
    let t = -(dp2perp * duv1.x + dp1perp * duv2.x);
    let b = dp2perp * duv1.y + dp1perp * duv2.y;
    let len = max(dot(t, t), dot(b, b));
    if (len < 1e-20) {
        return n;
    }
    let inv = inverseSqrt(len);
    let z = sqrt(max(1.0 - dot(xy, xy), 0.0));
    return normalize(t * inv * xy.x + b * inv * xy.y + n * z);
}

// Exaggerated height of sample (i, j), clamped to the grid.
fn height_sample(i: i32, j: i32) -> f32 {
    let n = i32(frame.grid.w);
    let c = vec2<i32>(clamp(i, 0, n - 1), clamp(j, 0, n - 1));
    return textureLoad(height_field, c, 0).r * frame.params.x;
}

// Grid coordinates of a world point, clamped to the grid.
fn grid_coord(p: vec2<f32>) -> vec2<f32> {
    let n = frame.grid.w;
    return clamp((p - frame.grid.xy) / frame.grid.z, vec2<f32>(0.0), vec2<f32>(n - 1.0));
}

// Bilinear height: the same function as `Terrain::height_at` on the CPU.
fn height_at(p: vec2<f32>) -> f32 {
    let g = grid_coord(p);
    let c = min(floor(g), vec2<f32>(frame.grid.w - 2.0));
    let f = g - c;
    let i = i32(c.x);
    let j = i32(c.y);
    let a = mix(height_sample(i, j), height_sample(i + 1, j), f.x);
    let b = mix(height_sample(i, j + 1), height_sample(i + 1, j + 1), f.x);
    return mix(a, b, f.y);
}

// Height of the drawn (triangulated) terrain: `Terrain::surface_at` on the CPU.
fn surface_at(p: vec2<f32>) -> f32 {
    let g = grid_coord(p);
    let c = min(floor(g), vec2<f32>(frame.grid.w - 2.0));
    let f = g - c;
    let i = i32(c.x);
    let j = i32(c.y);
    let h00 = height_sample(i, j);
    let h11 = height_sample(i + 1, j + 1);
    if (f.x >= f.y) {
        let h10 = height_sample(i + 1, j);
        return h00 + (h10 - h00) * f.x + (h11 - h10) * f.y;
    }
    let h01 = height_sample(i, j + 1);
    return h00 + (h01 - h00) * f.y + (h11 - h01) * f.x;
}

// Terrain normal from central differences of the samples around grid point (i, j).
fn grid_normal(i: i32, j: i32) -> vec3<f32> {
    let dx = height_sample(i + 1, j) - height_sample(i - 1, j);
    let dy = height_sample(i, j + 1) - height_sample(i, j - 1);
    return normalize(vec3<f32>(-dx, -dy, 2.0 * frame.grid.z));
}

// Terrain normal at any world point (bilinear between the grid normals).
fn terrain_normal(p: vec2<f32>) -> vec3<f32> {
    let g = grid_coord(p);
    let c = min(floor(g), vec2<f32>(frame.grid.w - 2.0));
    let f = g - c;
    let i = i32(c.x);
    let j = i32(c.y);
    let a = mix(grid_normal(i, j), grid_normal(i + 1, j), f.x);
    let b = mix(grid_normal(i, j + 1), grid_normal(i + 1, j + 1), f.x);
    return normalize(mix(a, b, f.y));
}

// How much of the sun reaches `world` on a surface of normal `n`: 1 lit, 0 in the shadow of
// an object, a facade or a tree. The point is moved a texel and a half along the normal (more
// where the surface turns from the sun) before it is looked up, so that a surface does not
// shadow itself (acne); the shadow map's own depth bias is slope-scaled. Four linear
// comparison taps half a texel apart (3×3 texels of percentage-closer filtering), or on a
// software rasterizer one (2×2 texels), where four cost as much as the rest of the frame.
fn sun_visibility(world: vec3<f32>, n: vec3<f32>) -> f32 {
    if (frame.sun.w < 0.5) {
        return 1.0;
    }
    let texel = frame.sun_color.w;
    let facing = clamp(dot(n, frame.sun.xyz), 0.0, 1.0);
    let p = world + n * texel * (1.5 + 1.5 * (1.0 - facing));
    let c = frame.light_view_proj * vec4<f32>(p, 1.0);
    let uv = vec2<f32>(c.x * 0.5 + 0.5, 0.5 - c.y * 0.5);
    if (any(uv < vec2<f32>(0.0)) || any(uv > vec2<f32>(1.0))) {
        return 1.0;
    }
    // Below the light's far plane: compare as at it, so an empty map (cleared to 1) is lit.
    let depth = min(c.z, 0.99999);
    if (SHADOW_TAPS < 2.0) {
        return textureSampleCompareLevel(shadow_map, shadow_sampler, uv, depth);
    }
    let d = 0.5 / vec2<f32>(textureDimensions(shadow_map));
    var lit = 0.0;
    lit += textureSampleCompareLevel(shadow_map, shadow_sampler, uv + vec2<f32>(-d.x, -d.y), depth);
    lit += textureSampleCompareLevel(shadow_map, shadow_sampler, uv + vec2<f32>(d.x, -d.y), depth);
    lit += textureSampleCompareLevel(shadow_map, shadow_sampler, uv + vec2<f32>(-d.x, d.y), depth);
    lit += textureSampleCompareLevel(shadow_map, shadow_sampler, uv + vec2<f32>(d.x, d.y), depth);
    return lit * 0.25;
}

// How much sun falls on a surface of normal `n` at `world`: the cosine of its angle,
// where the shadow map lets the sun through.
fn sun_term(n: vec3<f32>, world: vec3<f32>) -> f32 {
    var sun = max(dot(n, frame.sun.xyz), 0.0);
    if (sun > 0.0) {
        sun = sun * sun_visibility(world, n);
    }
    return sun;
}

// The ambient light on a face turned toward `n`: the sky's and the ground's by how far it
// turns up.
fn ambient_light(n: vec3<f32>) -> vec3<f32> {
    let up = 0.5 + 0.5 * n.z;
    return mix(frame.ground_ambient.rgb, frame.sky_ambient.rgb, up);
}

// Sun and sky lighting of an albedo at `world` with a surface normal: the sky's and the
// ground's ambient by how far the normal turns up, and the direct sun where the shadow map
// lets it through. Colours from `Lighting::of` (src/render/sun.rs), linear radiance on any
// scale (nothing here assumes they stay below 1).
fn shade(albedo: vec3<f32>, n: vec3<f32>, world: vec3<f32>) -> vec3<f32> {
    return albedo * (ambient_light(n) + frame.sun_color.rgb * sun_term(n, world));
}

// What a material is at a pixel (`material_at`).
struct MaterialAt {
    metal: f32,
    rough: f32,
    // the legacy model's specular level times the specular scale
    spec: f32,
};

// The material values at a pixel from its normal-map and material-map texels, by the
// weights the material rule gave (`Material.metal_n` …).
fn material_at(normal_texel: vec4<f32>, map_texel: vec4<f32>) -> MaterialAt {
    let n = raw_texel(normal_texel);
    let m = raw_texel(map_texel);
    let metal = clamp(material.consts.x + dot(material.metal_n, n) + dot(material.metal_m, m), 0.0, 1.0);
    let gloss = clamp(material.consts.y + dot(material.gloss_n, n) + dot(material.gloss_m, m), 0.0, 1.0);
    let rough = clamp(material.rough.x + material.rough.y * gloss, 0.02, 1.0);
    let spec = max(material.consts.z + dot(material.spec_n, n), 0.0) * material.shading.y;
    return MaterialAt(metal, rough, spec);
}

// A lit surface in two parts: what its albedo scatters, and what it reflects (`BLEND_GLASS`
// keeps the reflection whole whatever the alpha).
struct Lit {
    diffuse: vec3<f32>,
    specular: vec3<f32>,
};

// The sun's GGX specular for unit vectors `n` (normal), `v` (to the eye) and `l` (to the
// sun), roughness `rough` and reflectance `f0`: π · D · G / (4 n·l n·v) · F, so that it is on
// the same scale as `shade`'s diffuse (which folds Lambert's 1/π into the light).
fn ggx_sun(n: vec3<f32>, v: vec3<f32>, l: vec3<f32>, rough: f32, f0: vec3<f32>) -> vec3<f32> {
    let h = normalize(v + l);
    let nh = max(dot(n, h), 0.0);
    let nv = max(dot(n, v), 1e-4);
    let nl = max(dot(n, l), 0.0);
    let vh = max(dot(v, h), 0.0);
    let a = max(rough * rough, 0.002);
    let a2 = a * a;
    let d = nh * nh * (a2 - 1.0) + 1.0;
    let ggx = a2 / (MATERIAL_PI * d * d);
    let k = a * 0.5;
    let vis = 0.25 / ((nv * (1.0 - k) + k) * (nl * (1.0 - k) + k));
    let fresnel = f0 + (vec3<f32>(1.0) - f0) * pow(1.0 - vh, 5.0);
    return MATERIAL_PI * ggx * vis * fresnel;
}

// The sky reflected along `r` by a surface of roughness `rough`: the sky's gradient
// (`sky_color`) seen sharp by a smooth surface, the ground's light below the horizon, and
// blurred toward the ambient light a face turned along `r` receives as the surface roughens.
fn sky_reflection(r: vec3<f32>, rough: f32) -> vec3<f32> {
    let below = smoothstep(0.05, -0.05, r.z);
    let sharp = mix(sky_color(r), frame.ground_ambient.rgb, below);
    return mix(sharp, ambient_light(r), smoothstep(0.0, 0.8, rough));
}

// XP12's PBR metalness/roughness model at `world` with normal `n`: energy conserving
// (what is reflected is not also scattered), a GGX highlight from the sun, and the sky's
// reflection weighted by a roughness-aware Fresnel. Metals take the albedo as their
// reflectance (their reflection's tint) and scatter nothing. `scale` multiplies the
// reflectance (`GLOBAL_specular`).
fn shade_pbr(albedo: vec3<f32>, n: vec3<f32>, world: vec3<f32>, metal: f32, rough: f32, scale: f32) -> Lit {
    let v = normalize(frame.camera.xyz - world);
    let l = frame.sun.xyz;
    let nv = max(dot(n, v), 1e-4);
    let f0 = mix(vec3<f32>(0.04), albedo, metal) * scale;
    let fr = f0 + (max(vec3<f32>(1.0 - rough), f0) - f0) * pow(1.0 - nv, 5.0);
    let sun = sun_term(n, world);
    var specular = sky_reflection(reflect(-v, n), rough) * fr;
    if (sun > 0.0) {
        specular = specular + ggx_sun(n, v, l, rough, f0) * frame.sun_color.rgb * sun;
    }
    let kd = (1.0 - metal) * (vec3<f32>(1.0) - fr);
    let diffuse = albedo * kd * (ambient_light(n) + frame.sun_color.rgb * sun);
    return Lit(diffuse, specular);
}

// The roughness of the legacy (XP10/11) highlight (agview's choice; XP10's exponent is
// not published).
const LEGACY_ROUGHNESS: f32 = 0.3;

// XP10/11's specular: today's diffuse (`shade`) unchanged, plus a sun highlight as strong
// as `level` (the normal map's alpha times `SPECULAR`/`ATTR_shiny_rat`), as XP10 added its
// specular without taking it from the diffuse.
fn shade_legacy_specular(albedo: vec3<f32>, n: vec3<f32>, world: vec3<f32>, level: f32) -> Lit {
    // `shade`, with the sun's term kept for the highlight (one shadow lookup).
    let sun = sun_term(n, world);
    let diffuse = albedo * (ambient_light(n) + frame.sun_color.rgb * sun);
    var specular = vec3<f32>(0.0);
    if (level > 0.0 && sun > 0.0) {
        let v = normalize(frame.camera.xyz - world);
        specular = ggx_sun(n, v, frame.sun.xyz, LEGACY_ROUGHNESS, vec3<f32>(0.04)) * frame.sun_color.rgb * (sun * level);
    }
    return Lit(diffuse, specular);
}

// A surface shaded by its material's model (`material.shading.x`): XP12's PBR, or the
// legacy diffuse with its specular (none at level 0: `shade` alone).
fn shade_material(albedo: vec3<f32>, n: vec3<f32>, world: vec3<f32>, at: MaterialAt) -> Lit {
    if (material.shading.x > 0.5) {
        return shade_pbr(albedo, n, world, at.metal, at.rough, material.shading.y);
    }
    return shade_legacy_specular(albedo, n, world, at.spec);
}

// `TEXTURE_LIT`'s glow at this frame: the lit texel times the material's luminance against
// the default (`GLOBAL_luminance`), times how far night has come. The one place the unit of
// emission is set.
fn lit_emission(glow: vec3<f32>) -> vec3<f32> {
    return glow * material.shading.z * frame.sky.w;
}

// The sky seen along a view ray: the horizon colour at and below the horizon, the zenith's
// overhead (the same horizon colour the haze fades to).
fn sky_color(dir: vec3<f32>) -> vec3<f32> {
    let up = clamp(normalize(dir).z, 0.0, 1.0);
    return mix(frame.sky.rgb, frame.zenith.rgb, pow(up, 0.6));
}

// Distance haze toward the sky colour.
fn fog(color: vec3<f32>, world: vec3<f32>) -> vec3<f32> {
    let d = distance(world, frame.camera.xyz);
    let k = 1.0 - exp(-d * frame.camera.w);
    return mix(color, frame.sky.rgb, clamp(k, 0.0, 1.0));
}

// A texture coordinate (s, t up from the bottom) to the image's (u, v down from the top).
fn st_to_uv(st: vec2<f32>) -> vec2<f32> {
    return vec2<f32>(st.x, 1.0 - st.y);
}

// A texture rectangle [s1, t1, s2, t2] (normalised, t up, s1 <= s2, t1 <= t2) in image
// coordinates: (u, v) of its top-left corner, then of its bottom-right.
fn st_rect_to_uv(r: vec4<f32>) -> vec4<f32> {
    return vec4<f32>(r.x, 1.0 - r.w, r.z, 1.0 - r.y);
}

// The material texture at `uv`, sampled inside the atlas rectangle `rect` (image
// coordinates, `st_rect_to_uv`), so that a tile or a tree does not take the colour of its
// atlas neighbours in the distance (src/render/atlas.rs). An axis the rectangle spans
// whole (0..1) has no neighbour there: it is sampled as textureSample would, wrapping; the
// whole texture (draped parts, rectangles that wrap) is not clamped at all. Call it in
// uniform control flow (it takes derivatives).
//
// The gradients, in texels, are shortened so that the level sampled keeps the rectangle at
// least two texels across (half its narrower side, rounded down to a power of two, is the
// longest footprint it holds). The level the sampler then picks is found as Vulkan defines
// it (the longer gradient over the anisotropy ratio, which is at most ANISOTROPY), and the
// point sampled is clamped into the rectangle shrunk by half a texel of the coarser of the
// two levels blended, plus half the spread of the anisotropic probes along the longer
// gradient. Anisotropic filtering stays on (textureSampleGrad).
struct AtlasAt {
    at: vec2<f32>,
    gx: vec2<f32>,
    gy: vec2<f32>,
};

// Where `atlas_sample` samples and with which gradients (for a second texture of the same
// layout, such as the night texture: the clamp is sized from the day texture, so a night
// texture of lower resolution may still bleed a little at coarse levels).
fn atlas_at(uv: vec2<f32>, rect: vec4<f32>) -> AtlasAt {
    let size = vec2<f32>(textureDimensions(material_texture));
    let lo = rect.xy;
    let hi = rect.zw;
    let whole = lo <= vec2<f32>(0.0) & hi >= vec2<f32>(1.0);
    let ext = select((hi - lo) * size, vec2<f32>(1e30), whole);
    let room = max(0.5 * exp2(floor(log2(max(min(ext.x, ext.y), 1.0)))), 1.0);
    var gx = dpdx(uv) * size;
    var gy = dpdy(uv) * size;
    let shorten = min(1.0, room / max(max(length(gx), length(gy)), 1e-20));
    gx = gx * shorten;
    gy = gy * shorten;
    let lx = length(gx);
    let ly = length(gy);
    let longest = max(lx, ly);
    let ratio = clamp(longest / max(min(lx, ly), 1e-20), 1.0, ANISOTROPY);
    let last = f32(textureNumLevels(material_texture) - 1u);
    let level = clamp(log2(max(longest / ratio, 1e-20)), 0.0, last);
    let spread = abs(select(gy, gx, lx >= ly)) * (0.5 - 0.5 / ratio);
    let margin = min((0.5 * exp2(ceil(level)) + spread) / size, 0.5 * (hi - lo));
    let at = select(clamp(uv, lo + margin, hi - margin), uv, whole);
    return AtlasAt(at, gx / size, gy / size);
}

fn atlas_sample(uv: vec2<f32>, rect: vec4<f32>) -> vec4<f32> {
    let a = atlas_at(uv, rect);
    return textureSampleGrad(material_texture, material_sampler, a.at, a.gx, a.gy);
}

// Clip-space position lifted toward the camera by a fraction of its distance (reversed Z).
fn lift_depth(clip: vec4<f32>, fraction: f32) -> vec4<f32> {
    return vec4<f32>(clip.x, clip.y, clip.z * (1.0 + fraction), clip.w);
}

// Whether something with show levels `code` (lo × 8 + hi) and thinning number `thin` shows
// at the frame's density level (flags.y), by the rule of `ObjectInstance::visible_at`.
fn shown_at_density(code: u32, thin: f32) -> bool {
    let lo = code >> 3u;
    let hi = code & 7u;
    let level = frame.flags.y;
    if (level < lo) {
        return false;
    }
    if (level >= hi) {
        return true;
    }
    let p = (1.0 + f32(level) - f32(lo)) / (1.0 + f32(hi) - f32(lo));
    return thin < p;
}

// 0 below the LOD cross-fade band around `edge`, 1 above it, linear inside (object.wgsl's
// LODs and lights.wgsl's lights).
fn band_step(edge: f32, d: f32) -> f32 {
    let b = max(edge * frame.params.z * 0.5, 1e-3);
    return clamp((d - (edge - b)) / (2.0 * b), 0.0, 1.0);
}

// LOD cross-fade threshold at pixel `p`: a fixed 4×4 ordered-dither (Bayer) pattern in
// screen space, shifted by an instance's seed in [0, 1) so neighbours in the same band do not
// open the same holes. In [0, 1); the same every frame. Two LODs that compare one value
// against the same fraction keep complementary pixels.
fn lod_dither(p: vec2<f32>, seed: f32) -> f32 {
    let s = u32(seed * 16.0) & 15u;
    let q = (vec2<u32>(vec2<i32>(floor(p))) + vec2<u32>(s & 3u, s >> 2u)) & vec2<u32>(3u, 3u);
    var bayer = array<u32, 16>(0u, 8u, 2u, 10u, 12u, 4u, 14u, 6u, 3u, 11u, 1u, 9u, 15u, 7u, 13u, 5u);
    return (f32(bayer[q.y * 4u + q.x]) + 0.5) / 16.0;
}
