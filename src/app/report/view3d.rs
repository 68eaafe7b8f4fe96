//! The page's 3D view (issue 38): the overview's scene exported as glTF (`crate::export`),
//! turned with the mouse in the page by three.js.
//!
//! The page must work opened from disk (`file://`) with no network, where browsers refuse
//! module imports and `fetch`; so everything is a classic script in `DIR/3d/`: three.js
//! with its `GLTFLoader` and `OrbitControls` (vendored in `vendor/three/`, embedded here),
//! the view's own script (`view3d.js`), and each version's `.glb` in base64 in
//! `3d/scene-KEY.js`, which the view decodes and hands to `GLTFLoader.parse`. The camera
//! and the light travel in the section's `data-view` attribute, in glTF's axes (metres, Y
//! up, X east, Z south, origin at the export's framing centre).
//!
//! A version whose scene is larger than `--3d-max-mb` (its base64 text, as the page loads
//! it) is left out with a note; `--no-3d` leaves the view out. Decisions:
//! docs/spec-decisions.md, "Report: 3D view".

use std::fmt::Write as _;
use std::path::Path;

use glam::Vec3;

use crate::art::ArtSet;
use crate::export::{Document, ExportOptions, Instancing};
use crate::render::{Camera, Framing, Lighting, Sun};
use crate::scene::Scene;
use crate::terrain::Terrain;

use super::args::Report;
use super::page::html;

/// The folder beside index.html that holds the view's scripts and scenes.
pub(super) const FOLDER: &str = "3d";

/// three.js, as vendored (`vendor/three/VERSION` names the release), and its licence: the
/// files written to [`FOLDER`], in the order the page loads the scripts.
const THREE: [(&str, &str); 4] = [
    (
        "three.min.js",
        include_str!("../../../vendor/three/three.min.js"),
    ),
    (
        "GLTFLoader.js",
        include_str!("../../../vendor/three/GLTFLoader.js"),
    ),
    (
        "OrbitControls.js",
        include_str!("../../../vendor/three/OrbitControls.js"),
    ),
    (
        "three-LICENSE.txt",
        include_str!("../../../vendor/three/LICENSE"),
    ),
];

/// The view's own script.
const VIEW_JS: &str = include_str!("view3d.js");

/// The largest texture side in the page's scene: enough to read the art at the overview's
/// distance, and it keeps the sample package's page near a megabyte.
const MAX_TEXTURE_SIZE: u32 = 512;
/// Opaque base colours are JPEG at this quality (the rest PNG, as the export writes them).
const JPEG_QUALITY: u8 = 85;
/// A megabyte of `--3d-max-mb`.
const MB: f64 = 1_000_000.0;

/// The export the page embeds: the render's LOD and density, instanced with
/// `EXT_mesh_gpu_instancing` (three.js draws each such node as one instanced mesh), the
/// terrain under the content, small textures, no lights (the view is lit at noon).
pub(super) fn export_options(a: &Report) -> ExportOptions {
    ExportOptions {
        instancing: Instancing::Extension,
        terrain_mesh: true,
        max_texture_size: Some(MAX_TEXTURE_SIZE),
        jpeg_quality: Some(JPEG_QUALITY),
        density_level: a.render.density,
        // A noon view: point lights would only cost (three.js lights every pixel by each).
        max_lights: 0,
        ..ExportOptions::default()
    }
}

/// One version's scene for the page.
pub(super) struct Exported {
    /// The `.glb`, or why there is none.
    glb: Result<Vec<u8>, String>,
    /// The export's origin in the scene's frame (x east, y north, z up).
    origin: Vec3,
}

/// Where the export put glTF's origin, in the scene's frame: its `extras` say
/// (`framing_centre_m`); an export that does not, at the ground under the centre of the
/// scene's main framing (issue 38: "the origin at the framing centre").
fn export_origin(doc: &Document, scene: &Scene, art: &ArtSet, terrain: &Terrain) -> Vec3 {
    let c = &doc.extras["framing_centre_m"];
    match (c["east"].as_f64(), c["north"].as_f64(), c["up"].as_f64()) {
        (Some(e), Some(n), Some(u)) => Vec3::new(e as f32, n as f32, u as f32),
        _ => Framing::new(scene, Some(art), Some(terrain)).center(),
    }
}

/// A point of the scene's frame (x east, y north, z up) in glTF's axes (X east, Y up, Z
/// south) about `origin`.
fn gltf_axes(p: Vec3, origin: Vec3) -> [f32; 3] {
    let d = p - origin;
    [d.x, d.z, -d.y]
}

/// The scene as the page's `.glb`; run before its art's textures go to the GPU.
pub(super) fn export(a: &Report, scene: &Scene, art: &ArtSet, terrain: &Terrain) -> Exported {
    let (doc, _warnings) = crate::export::export(scene, art, terrain, &export_options(a));
    // The export's warnings are the art's own (a missing texture), which the page already
    // lists by file.
    Exported {
        glb: crate::export::to_glb(&doc).map_err(|e| e.to_string()),
        origin: export_origin(&doc, scene, art, terrain),
    }
}

/// One version as the page has it.
#[derive(Debug)]
pub(super) struct Version {
    /// `new` or `old`: its script is `3d/scene-KEY.js`.
    key: &'static str,
    /// Where its origin lies in the scene's frame.
    origin: Vec3,
    /// The size of its embedded text, or why it was left out.
    embedded: Result<usize, String>,
}

/// What the view shows: each version written, or why not; `None` with `--no-3d`.
#[derive(Debug)]
pub(super) struct Written {
    versions: Vec<Version>,
}

/// The length of `n` bytes in base64 (with padding).
fn base64_len(n: usize) -> usize {
    n.div_ceil(3) * 4
}

/// `bytes` in standard base64 with padding (RFC 4648 §4), what `atob` reads.
fn base64(bytes: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut o = Vec::with_capacity(base64_len(bytes.len()));
    for c in bytes.chunks(3) {
        let n = (u32::from(c[0]) << 16)
            | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
            | u32::from(*c.get(2).unwrap_or(&0));
        o.push(ABC[(n >> 18) as usize & 63]);
        o.push(ABC[(n >> 12) as usize & 63]);
        o.push(if c.len() > 1 {
            ABC[(n >> 6) as usize & 63]
        } else {
            b'='
        });
        o.push(if c.len() > 2 {
            ABC[n as usize & 63]
        } else {
            b'='
        });
    }
    // Only ASCII was pushed.
    String::from_utf8(o).unwrap_or_default()
}

/// Writes `out/3d/`: three.js, the view's script, and each version's scene whose embedded
/// text is within `max_mb`. Run on a thread of its own while the renders are made.
pub(super) fn write(out: &Path, versions: Vec<(&'static str, Exported)>, max_mb: f64) -> Written {
    let dir = out.join(FOLDER);
    let mut written = Vec::new();
    let scripts = std::fs::create_dir_all(&dir).and_then(|_| {
        for (name, text) in THREE {
            std::fs::write(dir.join(name), text)?;
        }
        std::fs::write(dir.join("view3d.js"), VIEW_JS)
    });
    for (key, e) in versions {
        let embedded = match (&scripts, e.glb) {
            (Err(err), _) => Err(format!("{}: cannot write: {err}", dir.display())),
            (_, Err(why)) => Err(format!("the scene could not be exported: {why}")),
            (Ok(()), Ok(glb)) => {
                let size = base64_len(glb.len()) + 64;
                if size as f64 > max_mb * MB {
                    Err(format!(
                        "the scene takes {:.1} MB in the page, over --3d-max-mb {max_mb}",
                        size as f64 / MB
                    ))
                } else {
                    let text = format!(
                        "(window.agview3dScenes=window.agview3dScenes||{{}})[\"{key}\"]=\"{}\";\n",
                        base64(&glb)
                    );
                    let path = dir.join(format!("scene-{key}.js"));
                    std::fs::write(&path, &text)
                        .map(|_| text.len())
                        .map_err(|err| format!("{}: cannot write: {err}", path.display()))
                }
            }
        };
        written.push(Version {
            key,
            origin: e.origin,
            embedded,
        });
    }
    if written.iter().all(|v| v.embedded.is_err()) {
        let _ = std::fs::remove_dir_all(&dir);
    }
    Written { versions: written }
}

/// Linear RGB as the page's `#rrggbb` (sRGB).
fn srgb_hex(c: Vec3) -> String {
    let e = |x: f32| {
        let x = x.clamp(0.0, 1.0);
        let s = if x <= 0.003_130_8 {
            12.92 * x
        } else {
            1.055 * x.powf(1.0 / 2.4) - 0.055
        };
        (s * 255.0).round() as u8
    };
    format!("#{:02x}{:02x}{:02x}", e(c.x), e(c.y), e(c.z))
}

/// The view's camera and light, in glTF's axes about `origin`: the overview's camera from
/// the south-west of `framing` (the noon overview's), its sun ([`Sun::NOON`]) and sky.
/// Colours are scaled so that flat white ground in sun and sky shows white, as three.js
/// lights it (linear RGB, intensity 1).
fn config(framing: &Framing, origin: Vec3, versions: &[&Version]) -> serde_json::Value {
    let camera = Camera::frame_from(framing, 225.0);
    let target = match camera {
        Camera::Orbit { target, .. } => Vec3::from(target),
        _ => framing.center(),
    };
    let eye = camera.eye();
    let distance = eye.distance(target).max(1.0);
    let far = distance * 8.0 + framing.radius() * 8.0;
    let light = Lighting::of(Sun::NOON);
    let sun = light.sun_dir;
    let white = light.sun_color.y * sun.z.max(0.0) + light.sky_ambient.y;
    let k = if white > 0.0 { 1.0 / white } else { 1.0 };
    let rgb = |c: Vec3| short3((c * k).to_array());
    let horizon = light.horizon / light.horizon.max_element().max(1e-6);
    serde_json::json!({
        "camera": {
            "eye": short3(gltf_axes(eye, origin)),
            "target": short3(gltf_axes(target, origin)),
            "fov": short(fov_deg(&camera)),
            "near": short((distance / 1000.0).max(0.05)),
            "far": short(far),
        },
        "sun": { "dir": short3(gltf_axes(sun, Vec3::ZERO)), "color": rgb(light.sun_color) },
        "sky": rgb(light.sky_ambient),
        "ground": rgb(light.ground_ambient),
        "background": srgb_hex(horizon),
        "scenes": versions.iter().map(|v| serde_json::json!({
            "key": v.key,
            "label": label(v.key),
            "offset": short3(gltf_axes(v.origin, origin)),
        })).collect::<Vec<_>>(),
    })
}

/// A number for the page, to a thousandth (millimetres, for a position).
fn short(v: f32) -> f64 {
    (f64::from(v) * 1000.0).round() / 1000.0
}

/// [`short`] of each of three.
fn short3(v: [f32; 3]) -> [f64; 3] {
    v.map(short)
}

/// The vertical field of view of a perspective `camera`, degrees, read off its projection
/// (the renders' own): row 1 of `view_proj` is the view's unit up row times
/// `1 / tan(fov / 2)`.
fn fov_deg(camera: &Camera) -> f32 {
    let f = camera.view_proj(1.0).row(1).truncate().length();
    if f > 0.0 && f.is_finite() {
        2.0 * (1.0 / f).atan().to_degrees()
    } else {
        45.0
    }
}

/// What the page calls a version (`old`, `new`).
fn label(key: &str) -> &'static str {
    match key {
        "old" => "the old version",
        _ => "the new version",
    }
}

/// The "3D view" section: the canvas and its buttons, or why it is left out. `framing` is
/// what the view's camera frames (the overview's, or both versions' with `--against`).
pub(super) fn section(w: &Written, framing: &Framing) -> String {
    let mut o = String::from("<section id=\"view3d\"");
    let shown: Vec<&Version> = w.versions.iter().filter(|v| v.embedded.is_ok()).collect();
    let notes: Vec<String> = w
        .versions
        .iter()
        .filter_map(|v| {
            let of = if w.versions.len() > 1 {
                format!(" of {}", label(v.key))
            } else {
                String::new()
            };
            v.embedded
                .as_ref()
                .err()
                .map(|why| format!("The 3D view{of} is left out: {why}."))
        })
        .collect();
    let Some(first) = shown.first() else {
        let _ = write!(o, "><h2>3D view</h2>");
        for n in &notes {
            let _ = write!(o, "<p class=\"note\">{}</p>", html(n));
        }
        let _ = writeln!(o, "</section>");
        return o;
    };
    let view = config(framing, first.origin, &shown);
    let _ = write!(
        o,
        " data-view=\"{}\" data-state=\"loading\"><h2>3D view</h2>\
         <style>#v3d-canvas{{display:block;width:100%;height:min(70vh,600px);border:1px solid #ccd;\
         touch-action:none;background:{bg}}}.v3d-bar{{margin:4px 0}}.v3d-bar button{{margin-right:6px}}\
         .v3d-bar button[aria-pressed=true]{{font-weight:bold}}#v3d-status{{color:#556;font-size:.9em}}\
         @media print{{#view3d{{display:none}}}}</style>",
        html(&view.to_string()),
        bg = view["background"].as_str().unwrap_or("#ccc")
    );
    for n in &notes {
        let _ = write!(o, "<p class=\"note\">{}</p>", html(n));
    }
    let _ = write!(
        o,
        "<div class=\"v3d-bar\"><button type=\"button\" id=\"v3d-reset\">reset</button>"
    );
    if shown.len() > 1 {
        for v in &shown {
            let _ = write!(
                o,
                "<button type=\"button\" data-scene=\"{k}\" aria-pressed=\"{p}\">{k}</button>",
                k = v.key,
                p = v.key == first.key
            );
        }
    }
    let _ = write!(
        o,
        "<span id=\"v3d-status\">Loading the 3D view…</span></div>\
         <canvas id=\"v3d-canvas\"></canvas>\
         <noscript><p>The 3D view needs JavaScript: the images above show the scene.</p></noscript>"
    );
    let mut scripts: Vec<String> = THREE[..3].iter().map(|(n, _)| n.to_string()).collect();
    scripts.push(format!("scene-{}.js", first.key));
    scripts.push("view3d.js".into());
    for s in scripts {
        let _ = write!(o, "<script defer src=\"{FOLDER}/{s}\"></script>");
    }
    let _ = writeln!(o, "</section>");
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_is_rfc_4648s() {
        // RFC 4648 §10's test vectors.
        for (plain, coded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(plain.as_bytes()), coded);
            assert_eq!(base64_len(plain.len()), coded.len());
        }
        assert_eq!(base64(&[0xfb, 0xff]), "+/8=");
    }

    #[test]
    fn the_fov_is_the_renders() {
        let f = Framing::flat(([-10.0, -10.0], [10.0, 10.0]));
        assert!((fov_deg(&Camera::frame_from(&f, 225.0)) - 45.0).abs() < 0.01);
    }

    #[test]
    fn gltf_axes_are_y_up_z_south() {
        let o = Vec3::new(100.0, 200.0, 10.0);
        // 1 m east, 2 m north, 3 m up of the origin.
        assert_eq!(
            gltf_axes(Vec3::new(101.0, 202.0, 13.0), o),
            [1.0, 3.0, -2.0]
        );
    }

    #[test]
    fn the_noon_sun_shines_from_the_south_west_and_above() {
        let d = gltf_axes(Lighting::of(Sun::NOON).sun_dir, Vec3::ZERO);
        // West (X < 0), south (Z > 0), high (Y > 0).
        assert!(d[0] < 0.0 && d[2] > 0.0 && d[1] > 0.8, "{d:?}");
    }

    #[test]
    fn a_scene_over_the_cap_is_left_out_with_its_size() {
        let dir = std::env::temp_dir().join(format!("agview-view3d-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let exported = |n: usize| Exported {
            glb: Ok(vec![7; n]),
            origin: Vec3::ZERO,
        };
        let w = write(
            &dir,
            vec![("new", exported(3000)), ("old", exported(3_000_000))],
            1.0,
        );
        assert!(w.versions[0].embedded.is_ok());
        let why = w.versions[1].embedded.as_ref().unwrap_err();
        assert!(
            why.contains("4.0 MB") && why.contains("--3d-max-mb 1"),
            "{why}"
        );
        assert!(dir.join("3d/scene-new.js").is_file());
        assert!(!dir.join("3d/scene-old.js").exists());
        let page = section(&w, &Framing::flat(([-10.0, -10.0], [10.0, 10.0])));
        assert!(page.contains("3d/scene-new.js") && page.contains("left out"));
        assert!(!page.contains("data-scene="), "no toggle for one version");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn two_versions_get_a_toggle_and_line_up() {
        let dir = std::env::temp_dir().join(format!("agview-view3d2-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let exported = |x: f32| Exported {
            glb: Ok(vec![1, 2, 3]),
            origin: Vec3::new(x, 0.0, 0.0),
        };
        let w = write(
            &dir,
            vec![("new", exported(10.0)), ("old", exported(4.0))],
            50.0,
        );
        let page = section(&w, &Framing::flat(([-10.0, -10.0], [10.0, 10.0])));
        assert!(page.contains("data-scene=\"new\" aria-pressed=\"true\""));
        assert!(page.contains("data-scene=\"old\" aria-pressed=\"false\""));
        // The old version's script is read when first shown; only the new one's is loaded.
        assert!(page.contains("3d/scene-new.js") && !page.contains("3d/scene-old.js"));
        assert!(dir.join("3d/scene-old.js").is_file());
        // The old export's origin lies 6 m west of the new one's: its scene moves there.
        let at = page.find("data-view=\"").unwrap() + 11;
        let json = page[at..]
            .split('"')
            .next()
            .unwrap()
            .replace("&quot;", "\"");
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(
            v["scenes"][1]["offset"],
            serde_json::json!([-6.0, 0.0, 0.0])
        );
        assert_eq!(v["scenes"][0]["offset"], serde_json::json!([0.0, 0.0, 0.0]));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
