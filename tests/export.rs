//! `agview export` end to end (issue 38, docs/export.md): what it writes passes the
//! Khronos glTF Validator, reads back with the `gltf` crate as the scene it came from, and
//! a bad output path is refused with nothing left behind.
//!
//! **The validator.** npm's `gltf-validator` (a library; a few lines of node run it),
//! found through `AGVIEW_GLTF_VALIDATOR` (its package folder) or in
//! `target/npm/node_modules/gltf-validator`, where `.ci/run` installs it:
//! `npm install --prefix target/npm gltf-validator@2.0.0-dev.3.10`. Without it (or without
//! node) the validator tests fail and say so: no test is skipped for want of a tool.

mod common;
#[path = "../benches/common/packages.rs"]
mod packages;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{agview, Tmp};

/// The validator's pinned version, as `.ci/run` installs it.
const VALIDATOR_VERSION: &str = "2.0.0-dev.3.10";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn sample() -> PathBuf {
    root().join("sample_scenery")
}

/// The `gltf-validator` package folder, or a failure that says how to install it.
fn validator() -> PathBuf {
    let dir = std::env::var_os("AGVIEW_GLTF_VALIDATOR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/npm/node_modules/gltf-validator"));
    let how = format!(
        "install it with `npm install --prefix target/npm gltf-validator@{VALIDATOR_VERSION}` \
         in the repository (what .ci/run does), or name its package folder in \
         AGVIEW_GLTF_VALIDATOR; it needs node (Debian: apt-get install nodejs npm)"
    );
    assert!(
        dir.join("package.json").is_file(),
        "the Khronos glTF Validator is not at {}: {how}",
        dir.display()
    );
    let node = Command::new("node").arg("--version").output();
    assert!(
        node.is_ok_and(|o| o.status.success()),
        "node does not run: {how}"
    );
    dir
}

/// Runs the validator on `file` (`.glb`, or `.gltf` with its resources beside it): its
/// report's issues as JSON, and a failure when it counts any error.
fn validate(file: &Path) -> serde_json::Value {
    const SCRIPT: &str = r#"
const v = require(process.argv[1]);
const fs = require('fs');
const path = require('path');
const file = process.argv[2];
const dir = path.dirname(file);
const read = uri => new Promise((ok, bad) => {
  try { ok(new Uint8Array(fs.readFileSync(path.resolve(dir, decodeURIComponent(uri))))); }
  catch (e) { bad(e.toString()); }
});
v.validateBytes(new Uint8Array(fs.readFileSync(file)), {
  uri: path.basename(file), maxIssues: 0, externalResourceFunction: read,
}).then(r => { console.log(JSON.stringify(r.issues)); },
        e => { console.error('validator failed: ' + e); process.exit(2); });
"#;
    let out = Command::new("node")
        .arg("-e")
        .arg(SCRIPT)
        .arg(validator())
        .arg(file)
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}: {}{}",
        file.display(),
        stdout,
        String::from_utf8_lossy(&out.stderr)
    );
    let issues: serde_json::Value = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("the validator's report: {e}: {stdout}"));
    let errors = issues["numErrors"].as_u64().unwrap_or(u64::MAX);
    assert_eq!(
        errors,
        0,
        "{}: the glTF Validator found errors: {}",
        file.display(),
        serde_json::to_string_pretty(&issues["messages"]).unwrap_or_default()
    );
    issues
}

/// `agview export ARGS --out OUT`, which must succeed: its stderr.
fn export(cwd: &Path, args: &[&str], out: &Path) -> String {
    let mut all: Vec<&str> = vec!["export"];
    all.extend(args);
    let out_s = out.to_str().expect("a UTF-8 path");
    all.extend(["--out", out_s]);
    let (code, _, err) = agview(cwd, &all);
    assert_eq!(code, 0, "agview {all:?}: {err}");
    assert!(out.is_file(), "{} was not written: {err}", out.display());
    assert!(err.contains("wrote "), "{err}");
    err
}

#[test]
#[cfg_attr(
    windows,
    ignore = "starts node (the Khronos glTF Validator), a Linux program here: runs in the Linux part of CI"
)]
fn the_sample_package_exports_valid_gltf_both_ways() {
    let tmp = Tmp::new("export-sample");
    let glb = tmp.0.join("town.glb");
    export(&root(), &[sample().to_str().unwrap()], &glb);
    validate(&glb);
    // A .gltf with its .bin and images beside it, every instance its own node, and the
    // terrain with its ground texture.
    let gltf = tmp.0.join("town.gltf");
    export(
        &root(),
        &[
            sample().to_str().unwrap(),
            "--instancing",
            "nodes",
            "--terrain-mesh",
        ],
        &gltf,
    );
    validate(&gltf);
    assert!(tmp.0.join("town.bin").is_file());
}

#[test]
#[cfg_attr(
    windows,
    ignore = "starts node (the Khronos glTF Validator), a Linux program here: runs in the Linux part of CI"
)]
fn a_lone_object_exports_valid_gltf() {
    let tmp = Tmp::new("export-lone");
    // The street lamp has a light: a KHR_lights_punctual point light.
    let glb = tmp.0.join("lamp.glb");
    let lamp = sample().join("objects/street_lamp.obj");
    let err = export(&root(), &[lamp.to_str().unwrap()], &glb);
    assert!(!err.contains("not found"), "{err}");
    validate(&glb);
    let house = sample().join("objects/house_gable.obj");
    let glb = tmp.0.join("house.glb");
    export(&root(), &[house.to_str().unwrap()], &glb);
    validate(&glb);
}

#[test]
#[cfg_attr(
    windows,
    ignore = "starts node (the Khronos glTF Validator), a Linux program here: runs in the Linux part of CI"
)]
fn the_two_thousand_object_airport_exports_valid_gltf() {
    let tmp = Tmp::new("export-airport");
    let dsf = packages::airport(&tmp.0);
    let glb = tmp.0.join("airport.glb");
    export(
        &root(),
        &[dsf.to_str().unwrap(), "--max-texture-size", "1024"],
        &glb,
    );
    validate(&glb);
}

/// The `.glb` read back with the `gltf` crate holds what the scene holds: every object
/// placed once, whichever way instances are written, materials for the art, nodes named
/// after the features' assets, and the geographic origin in the asset's extras.
#[test]
fn the_sample_export_reads_back_as_its_scene() {
    let tmp = Tmp::new("export-roundtrip");
    let ext = tmp.0.join("ext.glb");
    let nodes = tmp.0.join("nodes.glb");
    export(&root(), &[sample().to_str().unwrap()], &ext);
    export(
        &root(),
        &[sample().to_str().unwrap(), "--instancing", "nodes"],
        &nodes,
    );
    let doc = agview::document::load(&sample(), &Default::default()).expect("the sample loads");
    let scene = &doc.loaded.scene;

    let read = |p: &Path| gltf::Gltf::from_slice(&std::fs::read(p).unwrap()).expect("a glTF");
    let (ext, nodes) = (read(&ext), read(&nodes));
    // Placed copies: an instanced node counts each instance, any other mesh node one.
    let placed = |g: &gltf::Gltf| -> usize {
        g.nodes()
            .filter(|n| n.mesh().is_some())
            .map(|n| instance_count(g, n.index()).unwrap_or(1))
            .sum()
    };
    let uses = |g: &gltf::Gltf| g.extensions_used().any(|e| e == "EXT_mesh_gpu_instancing");
    assert!(
        uses(&ext),
        "the default export instances with the extension"
    );
    assert!(!uses(&nodes), "--instancing nodes uses core glTF only");
    assert_eq!(placed(&ext), placed(&nodes), "the same copies either way");
    assert!(
        placed(&nodes) >= scene.stats.objects,
        "{} placed copies for {} objects",
        placed(&nodes),
        scene.stats.objects
    );
    assert_eq!(ext.meshes().count(), nodes.meshes().count());
    // With nodes, a mesh placed more than once is shared, not copied.
    assert!(nodes.meshes().count() < placed(&nodes));
    assert!(ext.materials().count() > 0);
    assert_eq!(ext.materials().count(), nodes.materials().count());
    // Named after what they place: every mesh the scene places (an object's path) shows
    // in a node's name.
    let names: Vec<String> = ext
        .nodes()
        .filter_map(|n| n.name().map(str::to_ascii_lowercase))
        .collect();
    for m in &scene.meshes {
        let stem = Path::new(&*m.name)
            .file_stem()
            .map(|s| s.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        assert!(
            names.iter().any(|n| n.contains(&stem)),
            "no node named after {} ({} node names, e.g. {:?})",
            m.name,
            names.len(),
            names.iter().take(8).collect::<Vec<_>>()
        );
    }
    // The street lamps' lights: one KHR_lights_punctual node per lamp shown, under its
    // own node with `--instancing nodes`, beside the instanced cells otherwise, the point
    // light itself written once.
    let lamps = scene
        .objects
        .iter()
        .filter(|o| {
            scene
                .meshes
                .get(o.mesh())
                .is_some_and(|m| m.name.contains("street_lamp"))
        })
        .count();
    assert!(lamps > 1, "the sample places street lamps");
    let light_nodes = |g: &gltf::Gltf| g.nodes().filter(|n| n.light().is_some()).count();
    assert_eq!(light_nodes(&ext), lamps);
    assert_eq!(light_nodes(&nodes), lamps);
    for g in [&ext, &nodes] {
        assert!(g.extensions_used().any(|e| e == "KHR_lights_punctual"));
        let lights: Vec<_> = g.lights().expect("KHR_lights_punctual").collect();
        assert!(
            !lights.is_empty() && lights.len() < lamps,
            "a point light per lamp mesh, shared by the lamps: {}",
            lights.len()
        );
        assert!(lights[0].intensity() > 0.0);
    }
    let lamp_with_light = nodes.nodes().any(|n| {
        n.name().is_some_and(|s| s.contains("street_lamp"))
            && n.mesh().is_some()
            && n.children().any(|c| c.light().is_some())
    });
    assert!(lamp_with_light, "a lamp's node carries its light");
    // The geographic origin and agview's version.
    let extras: serde_json::Value = ext
        .document
        .as_json()
        .asset
        .extras
        .as_ref()
        .map(|r| serde_json::from_str(r.get()).expect("JSON extras"))
        .unwrap_or_default();
    let text = extras.to_string();
    assert!(
        text.contains("agview") || text.contains(env!("CARGO_PKG_VERSION")),
        "{text}"
    );
    assert!(text.to_ascii_lowercase().contains("lon"), "{text}");
}

/// The instance count of node `i`'s `EXT_mesh_gpu_instancing` (its `TRANSLATION`
/// accessor's count), `None` without the extension.
fn instance_count(g: &gltf::Gltf, i: usize) -> Option<usize> {
    let json = g.document.as_json();
    let node = json.nodes.get(i)?;
    let ext = node
        .extensions
        .as_ref()?
        .others
        .get("EXT_mesh_gpu_instancing")?;
    let attrs = ext.get("attributes")?;
    let acc = attrs
        .get("TRANSLATION")
        .or_else(|| attrs.get("ROTATION"))
        .or_else(|| attrs.get("SCALE"))?
        .as_u64()?;
    g.accessors().nth(acc as usize).map(|a| a.count())
}

/// An output folder that does not exist, or a "folder" that is a file: a clear error, exit
/// 1, and nothing written anywhere.
#[test]
fn a_bad_output_path_is_refused_and_leaves_nothing() {
    let tmp = Tmp::new("export-bad");
    let house = sample().join("objects/house_gable.obj");
    let house = house.to_str().unwrap();
    let missing = tmp.0.join("no/such/folder/out.glb");
    let (code, _, err) = agview(
        &root(),
        &["export", house, "--out", missing.to_str().unwrap()],
    );
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("does not exist"), "{err}");
    let file = tmp.0.join("a-file");
    std::fs::write(&file, b"x").unwrap();
    let under_file = file.join("out.glb");
    let (code, _, err) = agview(
        &root(),
        &["export", house, "--out", under_file.to_str().unwrap()],
    );
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("error"), "{err}");
    let (code, _, err) = agview(
        &root(),
        &[
            "export",
            house,
            "--out",
            tmp.0.join("x.obj").to_str().unwrap(),
        ],
    );
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("must end in .glb or .gltf"), "{err}");
    // Only the file this test wrote is there: no partial output, no temporary folder.
    let left: Vec<_> = std::fs::read_dir(&tmp.0)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, ["a-file"], "{left:?}");
}

/// A write that fails half-way (the target is a folder that cannot be replaced) leaves
/// neither a partial file nor the temporary folder beside it.
#[test]
fn a_failed_write_leaves_nothing_beside_it() {
    let tmp = Tmp::new("export-failed-write");
    let house = sample().join("objects/house_gable.obj");
    let target = tmp.0.join("taken.glb");
    std::fs::create_dir(&target).unwrap();
    std::fs::write(target.join("keep"), b"x").unwrap();
    let (code, _, err) = agview(
        &root(),
        &[
            "export",
            house.to_str().unwrap(),
            "--out",
            target.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 1, "{err}");
    let left: Vec<_> = std::fs::read_dir(&tmp.0)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, ["taken.glb"], "{left:?}");
    assert!(target.join("keep").is_file(), "what was there is kept");
}
