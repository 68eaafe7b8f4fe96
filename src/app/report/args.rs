//! `agview report`'s options, and a report being written: the options with the layout
//! inputs they give.

use std::path::PathBuf;

use crate::app::layout_args::LayoutArgs;
use crate::app::options::{parse_size, RenderArgs};
use crate::input::Inputs;

/// What `--fail-on` gates on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FailOn {
    /// Exit 3 when the report found an error.
    Error,
    /// Exit 3 when it found an error or a warning.
    Warning,
}

/// A report being written: its options, and the layout inputs they give, parsed once.
pub struct Report<'a> {
    pub args: &'a ReportArgs,
    pub inputs: Inputs,
}

impl std::ops::Deref for Report<'_> {
    type Target = ReportArgs;
    fn deref(&self) -> &ReportArgs {
        self.args
    }
}

/// `agview report` options.
#[derive(Debug, Clone, clap::Args)]
pub struct ReportArgs {
    /// A document (DSF text or binary, WED project, apt.dat) or an asset with its layout
    /// inputs.
    pub path: PathBuf,
    #[command(flatten)]
    pub layout: LayoutArgs,
    #[command(flatten)]
    pub render: RenderArgs,
    /// The folder to write: index.html, img/, summary.json. A folder that holds anything
    /// but an earlier report is left alone.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Close-up renders of the first N features; with --against, also of the first N
    /// changes (old, new and the changed pixels, framed on the changed feature with a
    /// margin of a quarter of its size plus 5 m).
    #[arg(long, default_value_t = 50, value_name = "N")]
    pub closeups: usize,
    /// Exit 3 (after writing the report) when it found errors, or warnings too.
    #[arg(long, value_enum, value_name = "error|warning")]
    pub fail_on: Option<FailOn>,
    /// An older version of the same document or asset: the report adds what changed, with
    /// old and new renders side by side and their difference, and a close-up of each
    /// change (changes.json too).
    #[arg(long, value_name = "OLD")]
    pub against: Option<PathBuf>,
    /// Also render the overview in each of X-Plane 12's seasons (spr, sum, fal, win):
    /// seasons in which every definition resolves to the same files are rendered once and
    /// named together, and the page lists the definitions whose file changes with the
    /// season.
    #[arg(long)]
    pub seasons: bool,
    /// Size of the overview renders in pixels (close-ups are half as wide).
    #[arg(long, default_value = "960x540", value_parser = parse_size)]
    pub size: (u32, u32),
    /// Leave out the page's interactive 3D view of the overview scene.
    #[arg(long = "no-3d")]
    pub no_3d: bool,
    /// The largest scene the 3D view embeds, in megabytes (10^6 bytes) of the page's
    /// base64 text (about 4/3 of the .glb); a larger one is left out with a note on the page.
    /// With --against, each version within it.
    #[arg(long = "3d-max-mb", default_value_t = 50.0, value_name = "MB", value_parser = parse_max_mb)]
    pub max_3d_mb: f64,
}

/// `--3d-max-mb`: a size in megabytes, 0 or more.
fn parse_max_mb(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!(
            "`{s}`: expected a size in megabytes, 0 or more (e.g. 50)"
        )),
    }
}
