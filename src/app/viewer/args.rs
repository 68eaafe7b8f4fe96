//! `agview view`'s options.

use std::path::PathBuf;

use crate::app::layout_args::LayoutArgs;
use crate::app::options::{parse_size, RenderArgs};

/// `agview view` options.
#[derive(Debug, Clone, clap::Args)]
pub struct ViewArgs {
    /// The .agp, .agb, .ags or .agn to view, or a document, every feature in it: DSF text, a
    /// binary DSF (plain or 7-Zip), a WED project (earth.wed.xml or its folder) or an
    /// apt.dat (its airports' pavement).
    // Not needed with a hidden development flag that makes its own scene: empty then (a
    // parser that takes the empty default, which clap's path parser refuses; the default is
    // hidden, so help shows the argument as before).
    #[arg(
        required_unless_present_any = ["synthetic_tile", "synthetic_city"],
        default_value = "",
        hide_default_value = true,
        value_parser = |s: &str| Ok::<PathBuf, std::convert::Infallible>(PathBuf::from(s))
    )]
    pub asset: PathBuf,
    #[command(flatten)]
    pub layout: LayoutArgs,
    #[command(flatten)]
    pub render: RenderArgs,
    /// Window size in pixels.
    #[arg(long, default_value = "1280x720", value_parser = parse_size)]
    pub size: (u32, u32),
    /// Where F12 writes screenshots (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub screenshot_dir: Option<PathBuf>,
    /// Write a screenshot of the scene (without the panel) to FILE after --frames frames
    /// with the scene on screen, then exit.
    #[arg(long, value_name = "FILE")]
    pub screenshot: Option<PathBuf>,
    /// Frames drawn with the scene before --screenshot is taken.
    #[arg(long, default_value_t = 3, value_name = "N")]
    pub frames: u32,
    /// Include the panel in --screenshot (F12 leaves it out; Shift+F12 keeps it).
    #[arg(long)]
    pub screenshot_panel: bool,
    /// Start with the panel hidden (H shows it).
    #[arg(long)]
    pub no_panel: bool,
    /// Development: show the renderer's synthetic city with this many blocks (100 objects
    /// each) instead of the asset, to check that a city stays interactive.
    #[arg(long, hide = true, value_name = "BLOCKS")]
    pub synthetic_city: Option<usize>,
    /// Development: open the synthetic 1°×1° tile of N autogen features that `agview bench
    /// tile` measures, written to a folder of its own in the temporary folder and opened as a
    /// document (removed on exit), to fly through a tile-sized scene.
    #[arg(long, hide = true, value_name = "N", conflicts_with_all = ["synthetic_city", "asset"])]
    pub synthetic_tile: Option<usize>,
    /// Test hook: destroy the GPU device after N frames with the scene, as a driver reset
    /// would lose it; the viewer opens it again and goes on.
    #[arg(long, hide = true, value_name = "N")]
    pub lose_device_after: Option<u32>,
    /// Test hook: after --frames frames with the scene, copy the next frame the window
    /// presents (panel included unless --no-panel) to FILE, read back from the window's own
    /// surface texture, and exit.
    #[arg(long, hide = true, value_name = "FILE")]
    pub presented_frame: Option<PathBuf>,
    /// Test hook: the first load waits N ms before it starts (a slow document).
    #[arg(long, hide = true, value_name = "MS")]
    pub load_delay_ms: Option<u64>,
    /// Test hook: once the scene is on screen, click the view at window pixel X,Y (as the
    /// left button does: pick the feature under it).
    #[arg(long, hide = true, value_name = "X,Y", value_parser = parse_click)]
    pub click: Option<(f64, f64)>,
    /// Select feature N (an index into `features`) and frame it once the scene is shown, as
    /// a click on its row in the feature table does.
    #[arg(long, value_name = "FEATURE")]
    pub select: Option<usize>,
    /// Test hook: keep running after --screenshot; after the K-th reload caused by a file
    /// change, write `<FILE stem>-reloadK.png` (once a frame shows its outcome); exit after
    /// the N-th.
    #[arg(long, hide = true, value_name = "N")]
    pub exit_after_reloads: Option<u32>,
    /// Test hook: after the --screenshot is written, press these keys in turn (`N`: the next
    /// season, `R`: reroll); each layout they cause counts as a reload for
    /// --exit-after-reloads and its screenshots.
    #[arg(long, hide = true, value_name = "KEYS")]
    pub press: Option<String>,
    /// Start in edit mode (P turns it on and off): drag the polygon's vertices or the
    /// point, and save the shape back with Ctrl+S (docs/viewer.md, "Edit mode").
    #[arg(long)]
    pub edit: bool,
    /// Test hook: timed input events, one a line (`wait MS`, `key [ctrl+|shift+|alt+]KEY`,
    /// `click X,Y`, `click "LABEL"`, `expect "TEXT"`, `drag X,Y X,Y [STEPS]`, `shot FILE`,
    /// `quit`), run once the scene is on screen; the pointer reaches the panel and dialogs
    /// as a real one does.
    #[arg(long, hide = true, value_name = "FILE")]
    pub script: Option<PathBuf>,
    /// Test hook: when the window closes, write the last scene shown to FILE as `agview
    /// layout --json` writes it.
    #[arg(long, hide = true, value_name = "FILE")]
    pub dump_scene: Option<PathBuf>,
}

/// `X,Y` in window pixels.
fn parse_click(s: &str) -> Result<(f64, f64), String> {
    let (x, y) = s
        .split_once(',')
        .ok_or_else(|| format!("`{s}`: expected X,Y"))?;
    let n = |v: &str| {
        v.trim()
            .parse::<f64>()
            .map_err(|_| format!("`{s}`: expected X,Y in pixels"))
    };
    Ok((n(x)?, n(y)?))
}
