// tile.wgsl — autogen base tiles, the draped parts of objects, draped polygons and roads:
// textured, alpha-blended pieces draped on the terrain. The material's repeat_m.x clamps the
// texture (`TEXTURE_NOWRAP`), repeat_m.y ignores its alpha (`NO_ALPHA`), repeat_m.w says a
// normal map (`TEXTURE_NORMAL`) bends the normal; the material's shading fields (SPECULAR,
// BUMP_LEVEL) shade it as objects are (`shade_material`). Autogen tiles keep `shade`'s look
// (specular 0).
//
// Bind groups:
//   @group(0) frame: Frame uniforms, height field, sampler (common.wgsl)
//   @group(1) material: the tile texture, its Material uniforms and its `TEXTURE_LIT` (common.wgsl)
// Vertex buffer 0: one vertex of a tile piece — world x, y, the texture s, t (normalised,
// t up), the tile's TILE_LOD in meters (each feature of a document keeps its own), a draped
// part's show levels, and the tile's atlas rectangle [s1 t1 s2 t2] (Unorm16; the whole
// texture, which is not clamped, for draped parts and rectangles that wrap). Pieces are
// already cut along the terrain's triangles and the tiles' crop polygons on the CPU, so
// lifting each vertex with `surface_at` lays them exactly on the drawn ground. Autogen
// tiles (`vs_autogen`) carry no show levels: theirs are 0, 0 (always shown), and their
// vertex is 8 bytes smaller (`tiles::AutogenVertex`).

struct TileIn {
    @location(0) xy: vec2<f32>,
    @location(1) st: vec2<f32>,
    @location(2) lod: f32,
    // an object's draped part: its show levels' code and thinning number; 0, 0 for tiles;
    // a road piece: -1 (`ROAD_LIFT`) and its height above the ground in metres
    @location(3) show: vec2<f32>,
    @location(4) rect: vec4<f32>,
};

struct TileOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) uv: vec2<f32>,
    @location(2) normal: vec3<f32>,
    @location(3) lod: f32,
    // the atlas rectangle in image coordinates (`st_rect_to_uv`)
    @location(4) @interpolate(flat) rect: vec4<f32>,
};

// An autogen tile's vertex: a `TileIn` without the show levels.
struct AutogenIn {
    @location(0) xy: vec2<f32>,
    @location(1) st: vec2<f32>,
    @location(2) lod: f32,
    @location(3) rect: vec4<f32>,
};

@vertex
fn vs_autogen(in: AutogenIn) -> TileOut {
    return tile_vertex(in.xy, in.st, in.lod, vec2<f32>(0.0, 0.0), in.rect);
}

@vertex
fn vs_main(in: TileIn) -> TileOut {
    return tile_vertex(in.xy, in.st, in.lod, in.show, in.rect);
}

fn tile_vertex(xy: vec2<f32>, st: vec2<f32>, lod: f32, show: vec2<f32>, rect: vec4<f32>) -> TileOut {
    let road = show.x < 0.0;
    let world = vec3<f32>(xy, surface_at(xy) + select(0.0, show.y, road));
    var out: TileOut;
    out.clip = lift_depth(frame.view_proj * vec4<f32>(world, 1.0), frame.params.w);
    if (!road && !shown_at_density(u32(show.x), show.y)) {
        // A draped part of an object not shown at this density: outside the view.
        out.clip = vec4<f32>(2.0, 2.0, 0.5, 1.0);
    }
    out.world = world;
    out.uv = st_to_uv(st);
    out.normal = terrain_normal(xy);
    out.lod = lod;
    out.rect = st_rect_to_uv(rect);
    return out;
}

@fragment
fn fs_main(in: TileOut) -> @location(0) vec4<f32> {
    var uv = in.uv;
    if (material.repeat_m.x > 0.5) {
        // `TEXTURE_NOWRAP` (a draped polygon): clamped half a texel inside the edges.
        let half = 0.5 / vec2<f32>(textureDimensions(material_texture));
        uv = clamp(uv, half, vec2<f32>(1.0) - half);
    }
    let a = atlas_at(uv, in.rect);
    let texel = textureSampleGrad(material_texture, material_sampler, a.at, a.gx, a.gy);
    // Tiles fade out over the last tenth of TILE_LOD; with hard LOD switching
    // (frame.params.z = 0) they end at it.
    let lod = in.lod;
    let d = distance(in.world, frame.camera.xyz);
    var fade = 1.0 - smoothstep(lod * 0.9, lod, d);
    if (frame.params.z <= 0.0) {
        fade = select(0.0, 1.0, d < lod);
    }
    // A draped polygon's or line's normal map (`TEXTURE_NORMAL scale file`, repeat_m.w: it
    // has one), repeating `scale` times over the texture, and its specular.
    var n = normalize(in.normal);
    var lit: vec3<f32>;
    // The material's values are uniform, so this branch keeps the samples and derivatives
    // in uniform control flow. Without a normal map or specular (autogen tiles, most
    // polygons) it is `shade` alone, as `shade_material` would give it, without their cost.
    if (material.repeat_m.w > 0.5 || material.shading.x > 0.5 || material.consts.z * material.shading.y > 0.0) {
        let nuv = uv * material.rough.z;
        let bump = textureSample(material_normal, material_sampler, nuv);
        if (material.repeat_m.w > 0.5) {
            n = bend_normal(n, dpdx(in.world), dpdy(in.world), dpdx(nuv), dpdy(nuv), normal_map_xy(bump));
        }
        let shaded = shade_material(texel.rgb * material.tint.rgb, n, in.world, material_at(bump, vec4<f32>(0.0)));
        lit = shaded.diffuse + shaded.specular;
    } else {
        lit = shade(texel.rgb * material.tint.rgb, n, in.world);
    }
    if (frame.sky.w > 0.0) {
        // `TEXTURE_LIT`: the same texels of the night texture glow as night comes
        // (black for draped parts and tiles without one).
        lit = lit + lit_emission(textureSampleGrad(material_lit, material_sampler, a.at, a.gx, a.gy).rgb);
    }
    let color = fog(lit, in.world);
    // `NO_ALPHA` (a draped polygon): the texture's alpha is ignored.
    let alpha = select(texel.a, 1.0, material.repeat_m.y > 0.5);
    return vec4<f32>(color, alpha * fade);
}
