//! The `agview` command line. Only argument handling and reporting live here; every command
//! is a call into the library.

/// mimalloc, not the system allocator: laying out a document allocates and frees millions
/// of small vectors on every core, where glibc's allocator spent a quarter of the time and
/// its arenas' locks kept two cores from doing twice the work (benches/document.rs).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::path::PathBuf;
use std::process::ExitCode;

/// mimalloc 3 gives freed memory back to the system a second after it is freed
/// (`purge_delay`, 1000 ms): a render, which drops each texture's decoded copy as it is
/// uploaded, would hold every copy until it ended. Give it back at once, unless
/// `MIMALLOC_PURGE_DELAY` set another delay.
fn purge_freed_memory_at_once() {
    // `mi_option_purge_delay` in mimalloc 3's `mimalloc.h` (the binding names no constant).
    const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
    // SAFETY: plain option calls into the allocator in use; `mi_option_get` reads the
    // option, and only mimalloc 3's default for it (1000) is replaced.
    unsafe {
        if libmimalloc_sys::mi_option_get(PURGE_DELAY) == 1000 {
            libmimalloc_sys::mi_option_set(PURGE_DELAY, 0);
        }
    }
}

use clap::{Parser, Subcommand};

use agview::app::layout_args::{LayoutArgs, LibraryArgs};
use agview::app::options::{parse_size, LayoutTerrainArgs, RenderArgs};
use agview::diag::Diagnostic;

/// What `agview --version` prints after the name: "0.1.0 (commit 295c91f0a1b2,
/// x86_64-unknown-linux-gnu)", so a bug report names the build (build.rs sets the two).
const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("AGVIEW_GIT_COMMIT"),
    ", ",
    env!("AGVIEW_TARGET"),
    ")"
);

/// A previewer for X-Plane (.agp .agb .ags) and FSX (.agn) autogen art.
#[derive(Parser)]
#[command(name = "agview", version = VERSION, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Validate files (or folders) and everything they reference.
    ///
    /// Exit status: 0 clean or warnings only, 1 errors, 2 usage.
    Check {
        /// Files or folders to check.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Print only errors, not warnings.
        #[arg(long)]
        quiet: bool,
        /// `--xplane`, `--library` and `--season`, as the layout commands take them.
        #[command(flatten)]
        library: LibraryArgs,
    },
    /// Print the parsed model of a file.
    ///
    /// For a facade it says whether it is a 2-point axial (hangar) facade, by an UNCONFIRMED
    /// rule (RING 0, no roof, no #cabin, every segment at least 2 m deep: docs/facades.md),
    /// or a jetway (its #cabin and #tunnel walls), and which directives it uses that agview
    /// reads but does not draw.
    ///
    /// For an OBJ8 object it names the material model (legacy XP10/11, or XP12 PBR
    /// metalness/roughness) and lists the detail textures (DECAL*, TEXTURE_MODULATOR), which
    /// are not drawn. The XP12 map channels agview reads are its own decision, unconfirmed by
    /// Laminar's texts: material_gloss red = metalness, green = gloss; gloss map red = gloss;
    /// NORMAL_METALNESS normal blue = metalness, alpha = gloss; without a GLOBAL_luminance the
    /// lit texture shines at 1000 nits (docs/materials.md).
    ///
    /// For a road network (.net) it lists the textures, the road types with their rows (x
    /// about ROAD_CENTER, which is width/2 when missing: agview's choice, docs/roads.md), the
    /// virtual types with their height choices, and how many of each directive it reads but
    /// does not draw (objects, cars, wires, junction plugs).
    Dump {
        path: PathBuf,
        /// Print the model as JSON (the default; kept for scripts that name it).
        #[arg(long)]
        json: bool,
        /// Print a one-screen summary instead of JSON.
        #[arg(long, conflicts_with = "json")]
        summary: bool,
    },
    /// Lay out an asset on a polygon (or at a point), or every feature of a document, and
    /// print the Scene.
    ///
    /// The JSON is documented field by field in docs/layout-json.md.
    Layout {
        /// The .agp, .agb, .ags or .agn to lay out, or a document: DSF text, binary DSF
        /// (plain or 7-Zip), a WED project (earth.wed.xml or the scenery folder holding it),
        /// an apt.dat.
        asset: PathBuf,
        #[command(flatten)]
        layout: LayoutArgs,
        #[command(flatten)]
        terrain: LayoutTerrainArgs,
        /// Print the Scene as JSON (otherwise a summary).
        #[arg(long)]
        json: bool,
    },
    /// Lay out an asset (or a document) and render it to a PNG, without a window.
    Render {
        /// The .agp, .agb, .ags or .agn to render, or a document (DSF text or binary, WED
        /// project, apt.dat).
        asset: PathBuf,
        #[command(flatten)]
        layout: LayoutArgs,
        #[command(flatten)]
        render: RenderArgs,
        /// Where to write the PNG (written whole or not at all).
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
        /// Image size in pixels.
        #[arg(long, default_value = "1280x720", value_parser = parse_size)]
        size: (u32, u32),
    },
    /// Measure the renderer on a synthetic city (draw calls, encode and GPU time, upload,
    /// bytes per instance), or the whole way from a document to a frame on a synthetic tile.
    Bench {
        #[command(subcommand)]
        what: BenchWhat,
    },
    /// Open a window on an asset or a document (DSF text, binary or 7-Zip DSF, WED project
    /// or its folder): fly around it, change seed, density, terrain and size, and see edits
    /// on disk at once.
    View(agview::app::viewer::ViewArgs),
    /// Render a contact sheet of a block (or a string on a scaled polygon) over a range of
    /// sizes, each cell labelled with its size; cells where no spelling fits get a red border.
    Sweep(agview::app::sweep::SweepArgs),
    /// Write a review page of a document or an asset: DIR/index.html with its renders
    /// (summary, overview from five sides, dusk and night, every feature with close-ups).
    /// Exit 0 written, 1 nothing written, 2 usage, 3 written but --fail-on found problems.
    Report(agview::app::report::ReportArgs),
    /// Export the laid-out scene of an asset or a document (or a lone .obj, .fac or .for)
    /// as glTF 2.0 for Blender and the web: FILE.glb, or FILE.gltf with its .bin and images
    /// beside it (docs/export.md). Metres, Y up, X east, Z south; the origin at the framing
    /// centre. Nothing partial is left when it fails.
    Export(agview::app::export::ExportArgs),
}

#[derive(Subcommand)]
enum BenchWhat {
    /// A synthetic city of N object instances (200,000 by default) on tiled blocks.
    Render {
        /// Frame size in pixels.
        #[arg(long, default_value = "1920x1080", value_parser = parse_size)]
        size: (u32, u32),
        /// Frames measured after a warm-up frame.
        #[arg(long, default_value_t = 5)]
        frames: u32,
        /// Object instances in the city (N).
        #[arg(long, default_value_t = 200_000)]
        objects: usize,
        /// City blocks of 25 tiles each; by default one per 100 objects (at most 40,000).
        #[arg(long)]
        blocks: Option<usize>,
        /// Where the camera stands: over the city from the south-west at 35°, at most 4 km
        /// from its centre (orbit), in a street at 2 m (ground), or straight above (top).
        #[arg(long, default_value = "orbit")]
        camera: agview::render::BenchCamera,
        /// Print one JSON object instead of the table.
        #[arg(long)]
        json: bool,
    },
    /// A synthetic 1°×1° DSF of N autogen features (100,000 by default) from the sample
    /// package, laid out on every core, uploaded and drawn: layout, upload and frame figures.
    ///
    /// The mix: 60% blocks (city_block.agb), 15% strings (lakeside.ags), 10% squares
    /// (plaza.agp), 15% street-corner sets (props.agp); 80% of each in towns of falling
    /// sizes (one city, a few towns, many villages), 20% spread over the countryside. The
    /// assets are sample_scenery's, found in the current directory or agview's source tree.
    Tile {
        /// Autogen features in the tile (N).
        #[arg(long, default_value_t = 100_000)]
        features: usize,
        /// Frame size in pixels.
        #[arg(long, default_value = "1920x1080", value_parser = parse_size)]
        size: (u32, u32),
        /// Frames measured after the first.
        #[arg(long, default_value_t = 1)]
        frames: u32,
        /// Where the camera stands: over the largest town from the south-west at 35°, the
        /// town filling the image (town), or the whole tile framed from the south-west at
        /// 35° (tile: every feature in the frustum, the worst case, but from about 160 km
        /// the haze hides nearly all of it).
        #[arg(long, default_value = "town")]
        camera: agview::app::bench_tile::TileCamera,
        /// Layout workers (0: one per core).
        #[arg(long, default_value_t = 0)]
        threads: usize,
        /// Print one JSON object instead of the table.
        #[arg(long)]
        json: bool,
    },
    /// Edit mode's way from a changed shape to a frame, headless: an asset laid out on a
    /// square (lakeside.ags on 2,400 m: about 490 tiles), its corner moved by the window's
    /// loader while nothing is drawn, while frames are drawn, and every frame (a drag).
    /// Prints the plain frame time and each step's median and spread.
    Edit {
        /// The block or string laid out.
        #[arg(long, default_value = "sample_scenery/autogen/lakeside.ags")]
        asset: PathBuf,
        /// The square's side, meters.
        #[arg(long, default_value_t = agview::app::bench_edit::DEFAULT_SIDE_M)]
        side: f64,
        /// Frame size in pixels.
        #[arg(long, default_value = "1280x720", value_parser = parse_size)]
        size: (u32, u32),
        /// Plain frames measured.
        #[arg(long, default_value_t = 10)]
        frames: u32,
        /// Edits measured of each kind (no frame in flight; frames drawn meanwhile).
        #[arg(long, default_value_t = 10)]
        edits: u32,
        /// How long the drag lasts, seconds.
        #[arg(long, default_value_t = 3.0)]
        drag: f64,
        /// Print one JSON object instead of the table.
        #[arg(long)]
        json: bool,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if !matches!(cli.command, Command::View(_)) {
        no_display_probe();
    }
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("agview: error: {e:#}");
            ExitCode::from(1)
        }
    }
}

/// `println!` that ends the program quietly when stdout is closed early (`agview layout …
/// --json | head`), as command-line tools do, instead of panicking on the broken pipe.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let mut o = std::io::stdout().lock();
        if let Err(e) = writeln!(o, $($arg)*) {
            if e.kind() == std::io::ErrorKind::BrokenPipe {
                std::process::exit(0);
            }
            eprintln!("agview: error: writing to standard output: {e}");
            std::process::exit(1);
        }
    }};
}

/// Headless commands open no display, so nothing may ask one anything. Mesa's Vulkan
/// device-select layer (an implicit layer, on wherever Mesa is) asks the Wayland and X11
/// displays which GPU they use, to put that one first; with no display, libwayland prints
/// `error: XDG_RUNTIME_DIR is invalid or not set in the environment.` (twice) before a
/// render that then succeeds. `NODEVICE_SELECT=1` is the layer's own switch; the adapter is
/// still chosen by wgpu (high performance first). A value the user set is kept. This runs
/// first thing in `main`, while the process has one thread.
fn no_display_probe() {
    if std::env::var_os("NODEVICE_SELECT").is_none() {
        std::env::set_var("NODEVICE_SELECT", "1");
    }
}

fn print_diags(diags: &[Diagnostic], quiet: bool) {
    for d in diags {
        if !quiet || d.is_error() {
            eprintln!("{d}");
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Check {
            paths,
            quiet,
            library,
        } => {
            let progress = agview::progress::Progress::default();
            let opts = agview::check::CheckOptions {
                xplane: library.xplane.as_deref(),
                libraries: &library.libraries,
                season: library.season.into(),
                progress: Some(&progress),
            };
            let report = agview::app::progress::with_bar("checking", "files", &progress, || {
                agview::check::check_paths_with(&paths, &opts)
            });
            print_diags(&report.diagnostics, quiet);
            let features = match report.features {
                0 => String::new(),
                n => format!(" and {n} feature(s)"),
            };
            let notes = match report.notes() {
                0 => String::new(),
                n => format!(", {n} note(s)"),
            };
            eprintln!(
                "checked {} file(s){features}: {} error(s), {} warning(s){notes}",
                report.files,
                report.errors(),
                report.warnings()
            );
            Ok(if report.errors() > 0 {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            })
        }
        Command::Dump {
            path,
            json: _,
            summary,
        } => {
            let mut warnings = Vec::new();
            // A scenery folder means its WED project.
            let path = match agview::document::document_path(&path) {
                Ok(p) => p,
                Err(e) => {
                    eprintln!("{e}");
                    return Ok(ExitCode::from(1));
                }
            };
            let parsed = agview::format::parse_file(&path, &mut warnings);
            print_diags(&warnings, false);
            match parsed {
                Ok(p) => {
                    if summary {
                        out!("{}", agview::format::summary(&p));
                    } else {
                        out!("{}", serde_json::to_string_pretty(&p)?);
                    }
                    Ok(ExitCode::SUCCESS)
                }
                Err(e) => {
                    eprintln!("{e}");
                    Ok(ExitCode::from(1))
                }
            }
        }
        Command::Layout {
            asset,
            layout,
            terrain,
            json,
        } => {
            let doc = match load_document(&asset, &layout, terrain.ground()) {
                Ok(d) => d,
                Err(e) => {
                    eprintln!("{e}");
                    return Ok(ExitCode::from(1));
                }
            };
            let messages = doc.loaded.messages();
            for w in &messages {
                eprintln!("{w}");
            }
            // The JSON's `warnings` hold every warning and error printed, once each.
            let mut scene = doc.loaded.scene;
            scene.warnings = messages.into();
            let scene = &scene;
            if json {
                out!("{}", serde_json::to_string_pretty(scene)?);
            } else {
                print_scene_summary(scene);
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Render {
            asset,
            layout,
            render,
            out,
            size,
        } => render_command(&asset, &layout, &render, &out, size),
        Command::View(args) => agview::app::viewer::run(args),
        Command::Sweep(args) => agview::app::sweep::run(&args),
        Command::Report(args) => agview::app::report::run(&args),
        Command::Export(args) => agview::app::export::run(&args),
        Command::Bench {
            what:
                BenchWhat::Render {
                    size,
                    frames,
                    objects,
                    blocks,
                    camera,
                    json,
                },
        } => {
            let opts = agview::render::BenchOptions {
                blocks: blocks.unwrap_or_else(|| objects.div_ceil(100).clamp(1, 40_000)),
                objects,
                width: size.0,
                height: size.1,
                frames: frames.max(1),
                camera,
                ..Default::default()
            };
            let spinner =
                agview::app::progress::spinner("bench render: building, uploading and drawing");
            let report = agview::render::bench(&opts);
            spinner.finish_and_clear();
            let report = report?;
            if json {
                out!("{}", report.to_json());
            } else {
                out!("{report}");
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Bench {
            what:
                BenchWhat::Tile {
                    features,
                    size,
                    frames,
                    camera,
                    threads,
                    json,
                },
        } => {
            let opts = agview::app::bench_tile::TileBenchOptions {
                features,
                threads,
                width: size.0,
                height: size.1,
                frames: frames.max(1),
                camera,
            };
            let report = agview::app::bench_tile::run(&opts)?;
            if json {
                out!("{}", report.to_json());
            } else {
                out!("{report}");
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Bench {
            what:
                BenchWhat::Edit {
                    asset,
                    side,
                    size,
                    frames,
                    edits,
                    drag,
                    json,
                },
        } => {
            let opts = agview::app::bench_edit::EditBenchOptions {
                asset,
                side_m: side,
                width: size.0,
                height: size.1,
                frames,
                edits,
                drag_s: drag,
            };
            let report = agview::app::bench_edit::run(&opts)?;
            if json {
                out!("{}", report.to_json());
            } else {
                out!("{report}");
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Loads an asset or a document, with a progress bar on stderr when it takes over a second.
fn load_document(
    path: &std::path::Path,
    layout: &LayoutArgs,
    ground: Option<agview::document::Ground>,
) -> Result<agview::document::Document, Diagnostic> {
    let inputs = layout
        .inputs()
        .map_err(|m| Diagnostic::error_file(path, m))?;
    let progress = std::sync::Arc::new(agview::document::Progress::default());
    let opts = agview::document::LoadOptions {
        threads: 0,
        progress: Some(progress.clone()),
        ground,
    };
    agview::app::progress::with_bar("laying out", "features", &progress, || {
        agview::document::load_with(path, &inputs, &opts)
    })
}

/// Fails early when `out` cannot be written, before any rendering work.
fn check_writable(out: &std::path::Path) -> anyhow::Result<()> {
    let dir = match out.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if out.is_dir() {
        anyhow::bail!("--out {}: is a directory", out.display());
    }
    let probe = dir.join(format!(".agview-write-test-{}", std::process::id()));
    std::fs::write(&probe, b"").map_err(|e| {
        anyhow::anyhow!(
            "--out {}: cannot write in {}: {e}",
            out.display(),
            dir.display()
        )
    })?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

fn render_command(
    asset: &std::path::Path,
    layout: &LayoutArgs,
    render: &RenderArgs,
    out: &std::path::Path,
    (width, height): (u32, u32),
) -> anyhow::Result<ExitCode> {
    check_writable(out)?;
    purge_freed_memory_at_once();
    let mut doc = match load_document(asset, layout, Some(render.terrain.ground())) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("{e}");
            return Ok(ExitCode::from(1));
        }
    };
    for w in doc.loaded.warning_lines() {
        eprintln!("{w}");
    }
    let art = agview::document::load_document_art_with(&mut doc, &render.headless_art());
    let screened_on = doc.terrain.take();
    let scene = &doc.loaded.scene;
    print_diags(&art.warnings, false);
    // A document screened by SLOPE_LIMIT is drawn on the terrain it was screened on.
    let terrain = match screened_on {
        Some(t) => t,
        None => render
            .terrain
            .terrain_for(scene)
            .map_err(anyhow::Error::msg)?,
    };
    let (choice, ignored) = render.frame_choice(scene);
    if let Some(w) = ignored {
        eprintln!("agview: {w}");
    }
    let framing = agview::render::Framing::choose(scene, Some(&art), Some(&terrain), choice);
    if let Some(what) = framing.describe() {
        eprintln!("{what}");
    }
    let aspect = width as f32 / height.max(1) as f32;
    let params = render.frame_params_in(&framing, aspect);
    // The camera as the arguments that give this image again (with the same --size).
    if let Some(camera) = params.camera.as_argument() {
        let frame = match framing.choice {
            agview::render::FrameChoice::Main => String::new(),
            _ => render
                .frame
                .as_ref()
                .map_or(String::new(), |f| format!(" --frame={f}")),
        };
        eprintln!("camera: --camera={camera}{frame}");
    }
    let (lo, hi) = framing.whole;
    let (lo, hi) = ([lo[0], lo[1], framing.lo[2]], [hi[0], hi[1], framing.hi[2]]);
    if !scene.is_empty() && !params.camera.sees_box(lo, hi, aspect) {
        eprintln!(
            "agview: warning: the camera sees none of the scene (it lies within {:.0}..{:.0} m east, {:.0}..{:.0} m north); try --camera orbit or --frame all",
            lo[0], hi[0], lo[1], hi[1]
        );
    }
    let headless = agview::render::Headless::new()?;
    // The CPU copies of the textures go as they reach the GPU.
    let mut art = art;
    let mut gpu = headless.upload_releasing(scene, &mut art, &terrain)?;
    drop(art);
    gpu.prepare_overlays(&headless.ctx, scene, params.overlays);
    let image = headless.render(&mut gpu, &params, width, height)?;
    agview::render::write_png(out, &image)
        .map_err(|e| anyhow::anyhow!("writing {}: {e}", out.display()))?;
    let s = &scene.stats;
    let features = if scene.features.is_empty() {
        String::new()
    } else {
        format!("{} feature(s): ", scene.features.len())
    };
    // The ground, when there is any.
    let ground = if scene.draped.is_empty() && scene.lines.is_empty() {
        String::new()
    } else {
        format!(
            ", {} draped polygon(s), {} painted line(s)",
            scene.draped.len(),
            scene.lines.len()
        )
    };
    // Roads, when there are any.
    let roads = if scene.roads.is_empty() {
        String::new()
    } else {
        format!(", {} road segment(s)", scene.roads.len())
    };
    eprintln!(
        "wrote {} ({width}x{height}) on {}, {}: {features}{} tile(s), {} object(s), {} facade(s), {} tree(s){ground}{roads}",
        out.display(),
        headless.ctx.describe(),
        headless.renderer.culling().1,
        s.tiles,
        s.objects,
        s.facades,
        s.trees
    );
    Ok(ExitCode::SUCCESS)
}

fn print_scene_summary(scene: &agview::scene::Scene) {
    let s = &scene.stats;
    if !scene.features.is_empty() {
        out!("{} feature(s):", scene.features.len());
        for f in &scene.features {
            let fs = &f.stats;
            out!(
                "  {}: {} -> {}: {} tile(s), {} object(s), {} facade(s), {} tree(s){}",
                f.source,
                f.asset,
                f.resolved.as_deref().unwrap_or("(not found)"),
                fs.tiles,
                fs.objects,
                fs.facades,
                fs.trees,
                if f.dropped.is_some() {
                    " (dropped by SLOPE_LIMIT)"
                } else {
                    ""
                }
            );
        }
    }
    out!(
        "{}: {} tile(s) in {} quad(s), {} object(s), {} facade(s), {} tree(s)",
        scene.asset,
        s.tiles,
        s.tile_quads,
        s.objects,
        s.facades,
        s.trees
    );
    if let Some(c) = &scene.choice {
        out!(
            "spelling set {} on grid {}: columns {:?}, rows {:?}{}",
            c.spelling_set,
            c.grid,
            c.spelling_s,
            c.spelling_t,
            if c.fits {
                ""
            } else {
                " (closest fit: no spelling fits)"
            }
        );
    }
    let (lo, hi) = scene.bounds();
    out!("extent: {:.1} x {:.1} m", hi[0] - lo[0], hi[1] - lo[1]);
    out!("seed {}, season {}", scene.seed, scene.season);
}
