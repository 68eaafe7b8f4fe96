// screen.wgsl — what the scene's shaders (common.wgsl and a pipeline's file) and the tonemap
// pass (tonemap.wgsl) share and what binds nothing: the full-screen triangle and the tone
// curve. Prepended to both by `shaders.rs`, after the curve's coefficients `ACES_A` …
// `ACES_E`, which it writes from `agview_mesh::photometry::ACES_FIT` (the one place they
// are written). The curve here is `agview_mesh::photometry`'s; a test in `shaders.rs`
// draws it over a ramp and compares.

// Corner `vi` (0, 1, 2) of one triangle that covers the screen, in clip space: (-1, -1),
// (3, -1), (-1, 3). Drawn with `draw(0..3, 0..1)` and no vertex buffer.
fn full_screen_corner(vi: u32) -> vec2<f32> {
    return vec2<f32>(f32((vi << 1u) & 2u), f32(vi & 2u)) * 2.0 - 1.0;
}

// Narkowicz's ACES fit, clamped to 0..1 (`agview_mesh::photometry::aces_fit`).
fn aces_fit(x: f32) -> f32 {
    let v = max(x, 0.0);
    return clamp((v * (ACES_A * v + ACES_B)) / (v * (ACES_C * v + ACES_D) + ACES_E), 0.0, 1.0);
}

// The curve on the brightest channel, the colour scaled with it: a hue keeps its hue
// however bright (`agview_mesh::photometry::tonemap`).
fn tonemap(x: vec3<f32>) -> vec3<f32> {
    let v = max(x, vec3<f32>(0.0));
    let m = max(max(v.r, v.g), v.b);
    if (m <= 0.0) {
        return vec3<f32>(0.0);
    }
    return min(v * (aces_fit(m) / m), vec3<f32>(1.0));
}

// The exposed value the tonemap pass turns into `y` (0..1): for colours given as they are
// to be seen (debug overlays). `agview_mesh::photometry::untonemap`: the brightest channel
// is inverted below the curve's top (0.99 at most), the colour scaled with it.
fn untonemap(y: vec3<f32>) -> vec3<f32> {
    let v = clamp(y, vec3<f32>(0.0), vec3<f32>(1.0));
    let m = max(max(v.r, v.g), v.b);
    if (m <= 0.0) {
        return vec3<f32>(0.0);
    }
    let t = min(m, 0.99);
    let qa = ACES_C * t - ACES_A;
    let qb = ACES_D * t - ACES_B;
    let qc = ACES_E * t;
    let x = max((-qb - sqrt(max(qb * qb - 4.0 * qa * qc, 0.0))) / (2.0 * qa), 0.0);
    return v * (x / m);
}
