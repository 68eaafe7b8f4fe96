//! `agview sweep`: a contact sheet of one asset over a range of sizes, rendered headless.
//!
//! A block (`.agb`) is laid out on rectangles `W × D`; with `--polygon` (the usual way for a
//! string, `.ags`) the polygon is scaled so its bounding box is `W × D`. Cells run left to
//! right by width and top to bottom by depth, each labelled `WxD` in the corner with the
//! built-in pixel font. A cell whose block found no spelling that fits
//! (`scene.choice.fits == false`) gets a red border; a size the layout refuses is a grey
//! cell crossed in red.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;

use crate::app::font;
use crate::app::layout_args::LayoutArgs;
use crate::app::options::{parse_size, RenderArgs};
use crate::document::OpenedAsset;
use crate::input;

/// Most cells a sheet may have.
pub const MAX_CELLS: usize = 1024;
/// Most pixels a sheet may have (about 400 MB of RGBA).
pub const MAX_SHEET_PIXELS: u64 = 100_000_000;
/// Pixels between cells and around the sheet.
pub const GAP: u32 = 4;
const BORDER: u32 = 3;
const RED: [u8; 4] = [230, 30, 30, 255];
const BACKGROUND: [u8; 4] = [40, 40, 44, 255];

/// `agview sweep` options.
#[derive(Debug, Clone, clap::Args)]
pub struct SweepArgs {
    /// The .agb (or, with --polygon, .ags) to sweep.
    pub asset: PathBuf,
    /// Widths in meters: A..B (inclusive), or one width.
    #[arg(long, value_name = "A..B", value_parser = parse_range)]
    pub width: (f32, f32),
    /// Depths in meters: C..D (inclusive), or one depth.
    #[arg(long, value_name = "C..D", value_parser = parse_range)]
    pub depth: (f32, f32),
    /// Step in meters between sizes.
    #[arg(long, value_name = "M")]
    pub step: f32,
    /// Where to write the sheet (PNG).
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Size of one cell in pixels.
    #[arg(long, default_value = "240x180", value_parser = parse_size)]
    pub cell: (u32, u32),
    #[command(flatten)]
    pub layout: LayoutArgs,
    #[command(flatten)]
    pub render: RenderArgs,
}

/// Parses `A..B` (or a single number) into positive meters, `A <= B`.
pub fn parse_range(s: &str) -> Result<(f32, f32), String> {
    let num = |t: &str| -> Result<f32, String> {
        let v: f32 = t
            .trim()
            .parse()
            .map_err(|_| format!("{s}: `{t}` is not a number of meters"))?;
        if !(v.is_finite() && v > 0.0) {
            return Err(format!("{s}: sizes must be positive meters"));
        }
        Ok(v)
    };
    let (a, b) = match s.split_once("..") {
        Some((a, b)) => (num(a)?, num(b.trim_start_matches('='))?),
        None => {
            let v = num(s)?;
            (v, v)
        }
    };
    if a > b {
        return Err(format!(
            "{s}: the range runs from the smaller size to the larger"
        ));
    }
    Ok((a, b))
}

/// The sizes `a, a+step, …` up to `b` inclusive (within a millimetre).
pub fn steps((a, b): (f32, f32), step: f32) -> Vec<f32> {
    let n = ((b - a) / step + 1e-4).floor().max(0.0) as usize + 1;
    (0..n.min(MAX_CELLS + 1))
        .map(|i| a + i as f32 * step)
        .collect()
}

/// The sheet's size in pixels for `cols × rows` cells of `cell` pixels.
pub fn sheet_size(cols: u32, rows: u32, cell: (u32, u32)) -> (u32, u32) {
    (
        cols * cell.0 + (cols + 1) * GAP,
        rows * cell.1 + (rows + 1) * GAP,
    )
}

/// A label such as `100x80` or `12.5x40`.
pub fn size_label(w: f32, d: f32) -> String {
    let f = |v: f32| {
        let r = (v * 10.0).round() / 10.0;
        if r.fract() == 0.0 {
            format!("{}", r as i64)
        } else {
            format!("{r:.1}")
        }
    };
    format!("{}x{}", f(w), f(d))
}

/// Scales rings so their bounding box becomes `w × d`, keeping its minimum corner.
pub fn scale_rings(rings: &[Vec<[f32; 2]>], w: f32, d: f32) -> Vec<Vec<[f32; 2]>> {
    let mut lo = [f32::INFINITY; 2];
    let mut hi = [f32::NEG_INFINITY; 2];
    for p in rings.iter().flatten() {
        for i in 0..2 {
            lo[i] = lo[i].min(p[i]);
            hi[i] = hi[i].max(p[i]);
        }
    }
    let sx = w / (hi[0] - lo[0]).max(1e-3);
    let sy = d / (hi[1] - lo[1]).max(1e-3);
    rings
        .iter()
        .map(|r| {
            r.iter()
                .map(|p| [lo[0] + (p[0] - lo[0]) * sx, lo[1] + (p[1] - lo[1]) * sy])
                .collect()
        })
        .collect()
}

fn fill(img: &mut image::RgbaImage, x: u32, y: u32, w: u32, h: u32, c: [u8; 4]) {
    for yy in y..(y + h).min(img.height()) {
        for xx in x..(x + w).min(img.width()) {
            img.put_pixel(xx, yy, image::Rgba(c));
        }
    }
}

fn frame_rect(img: &mut image::RgbaImage, x: u32, y: u32, w: u32, h: u32, t: u32, c: [u8; 4]) {
    fill(img, x, y, w, t, c);
    fill(img, x, (y + h).saturating_sub(t), w, t, c);
    fill(img, x, y, t, h, c);
    fill(img, (x + w).saturating_sub(t), y, t, h, c);
}

fn cross(img: &mut image::RgbaImage, x: u32, y: u32, w: u32, h: u32, c: [u8; 4]) {
    let n = w.max(h);
    for i in 0..n {
        let px = x + i * w / n;
        let py = y + i * h / n;
        for t in 0..2 {
            if px + t < x + w {
                img.put_pixel(px + t, py, image::Rgba(c));
                let qy = y + h - 1 - (py - y);
                img.put_pixel(px + t, qy, image::Rgba(c));
            }
        }
    }
}

fn label(img: &mut image::RgbaImage, x: u32, y: u32, text: &str) {
    let scale = 2;
    let w = font::text_width(text, scale) + 6;
    let h = font::HEIGHT * scale + 6;
    fill(img, x, y, w, h, [0, 0, 0, 170]);
    font::draw_text(
        img,
        i64::from(x) + 3,
        i64::from(y) + 3,
        text,
        scale,
        [255, 255, 255, 255],
    );
}

/// What a sweep drew.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SweepReport {
    pub cols: usize,
    pub rows: usize,
    pub no_fit: usize,
    pub failed: usize,
}

/// Runs `agview sweep`.
pub fn run(args: &SweepArgs) -> anyhow::Result<ExitCode> {
    if !(args.step.is_finite() && args.step > 0.0) {
        eprintln!(
            "agview: error: --step {}: must be a positive number of meters",
            args.step
        );
        return Ok(ExitCode::from(2));
    }
    let widths = steps(args.width, args.step);
    let depths = steps(args.depth, args.step);
    if widths.len() * depths.len() > MAX_CELLS {
        eprintln!(
            "agview: error: {} x {} cells is more than {MAX_CELLS}; use a larger --step",
            widths.len(),
            depths.len()
        );
        return Ok(ExitCode::from(2));
    }
    let (sw, sh) = sheet_size(widths.len() as u32, depths.len() as u32, args.cell);
    if u64::from(sw) * u64::from(sh) > MAX_SHEET_PIXELS {
        eprintln!(
            "agview: error: the sheet would be {sw}x{sh} pixels; use a smaller --cell or a larger --step"
        );
        return Ok(ExitCode::from(2));
    }
    if args.layout.rect.is_some() || args.layout.at.is_some() {
        eprintln!("agview: error: sweep sets the size itself: drop --rect and --at");
        return Ok(ExitCode::from(2));
    }
    if crate::document::is_document_path(&args.asset) {
        eprintln!(
            "{}: error: sweep lays one asset out over sizes; a document places its features at their own sizes (use view or render)",
            args.asset.display()
        );
        return Ok(ExitCode::from(2));
    }
    let inputs = match args.layout.inputs() {
        Ok(i) => i,
        Err(e) => {
            eprintln!("agview: error: {e}");
            return Ok(ExitCode::from(2));
        }
    };
    let resolver = asset_resolver(&args.asset, &inputs.resolve);
    let opened = match OpenedAsset::open(&args.asset, &resolver) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e}");
            return Ok(ExitCode::from(1));
        }
    };
    if opened.is_point() {
        eprintln!(
            "{}: error: sweep lays out blocks and strings over sizes; an .agp is placed at a point",
            args.asset.display()
        );
        return Ok(ExitCode::from(1));
    }
    for d in &opened.diagnostics {
        eprintln!("{d}");
    }
    let mut diags = Vec::new();
    let base = match input::build(&inputs, &args.asset, &mut diags) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{e}");
            return Ok(ExitCode::from(1));
        }
    };
    for d in &diags {
        eprintln!("{d}");
    }
    let rings = base
        .polygon
        .clone()
        .unwrap_or_else(|| vec![vec![[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]]);
    let headless = crate::render::Headless::new()?;
    let cells = crate::app::progress::bar("sweep", "cells", (widths.len() * depths.len()) as u64);
    let (sheet, report) = render_sheet(
        &headless,
        (&widths, &depths),
        args.cell,
        &args.render,
        |w, d| {
            let mut input = base.clone();
            input.polygon = Some(scale_rings(&rings, w, d));
            opened.layout(input)
        },
        |m| cells.suspend(|| eprintln!("{m}")),
        || cells.inc(1),
    )?;
    cells.finish_and_clear();
    write_sheet(&args.out, &sheet)?;
    eprintln!(
        "wrote {} ({sw}x{sh}): {} x {} = {} cell(s), {} without a fitting spelling, {} not laid out",
        args.out.display(),
        report.cols,
        report.rows,
        report.cols * report.rows,
        report.no_fit,
        report.failed
    );
    Ok(ExitCode::SUCCESS)
}

/// The resolver of an asset opened on its own, as `render` and `layout` make it: its
/// package, then `--library`, then the install's (`--xplane`, `XPLANE_ROOT`); what reading
/// the libraries said goes to stderr. An error when the install is not one.
pub fn asset_resolver(
    asset: &std::path::Path,
    opts: &crate::resolve::ResolveOptions,
) -> crate::resolve::Resolver {
    let mut diags = Vec::new();
    let libs = crate::resolve::Libraries::load(opts, &mut diags);
    let r = crate::resolve::Resolver::new(asset, &libs, &mut diags);
    for d in diags {
        eprintln!("{d}");
    }
    r
}

/// Lays out and renders one cell per (width, depth) with `layout`, into a sheet: widths left
/// to right, depths top to bottom, each labelled; a block without a fitting spelling gets a
/// red border, a size the layout refuses a grey cell crossed in red. The art is loaded once,
/// from the first cell laid out. `warn` gets each art warning and refusal, `done` each cell.
pub fn render_sheet(
    headless: &crate::render::Headless,
    (widths, depths): (&[f32], &[f32]),
    (cw, ch): (u32, u32),
    render: &RenderArgs,
    layout: impl Fn(f32, f32) -> Result<crate::scene::Scene, crate::diag::Diagnostic>,
    mut warn: impl FnMut(crate::diag::Diagnostic),
    mut done: impl FnMut(),
) -> anyhow::Result<(image::RgbaImage, SweepReport)> {
    let (sw, sh) = sheet_size(widths.len() as u32, depths.len() as u32, (cw, ch));
    let mut sheet = image::RgbaImage::from_pixel(sw, sh, image::Rgba(BACKGROUND));
    let mut art: Option<crate::art::ArtSet> = None;
    let mut report = SweepReport {
        cols: widths.len(),
        rows: depths.len(),
        no_fit: 0,
        failed: 0,
    };
    for (r, &d) in depths.iter().enumerate() {
        for (c, &w) in widths.iter().enumerate() {
            let x = GAP + c as u32 * (cw + GAP);
            let y = GAP + r as u32 * (ch + GAP);
            let text = size_label(w, d);
            match layout(w, d) {
                Ok(scene) => {
                    let art = art.get_or_insert_with(|| {
                        let a = crate::pipeline::load_art_with(&scene, &render.headless_art());
                        for w in &a.warnings {
                            warn(w.clone());
                        }
                        a
                    });
                    let terrain = render
                        .terrain
                        .terrain_for(&scene)
                        .map_err(anyhow::Error::msg)?;
                    let framing = crate::render::Framing::new(&scene, Some(art), Some(&terrain));
                    let params = render.frame_params(&framing);
                    let mut gpu = headless.upload(&scene, art, &terrain)?;
                    gpu.prepare_overlays(&headless.ctx, &scene, params.overlays);
                    let img = headless.render(&mut gpu, &params, cw, ch)?;
                    image::imageops::replace(&mut sheet, &img, i64::from(x), i64::from(y));
                    if scene.choice.as_ref().is_some_and(|ch| !ch.fits) {
                        report.no_fit += 1;
                        frame_rect(&mut sheet, x, y, cw, ch, BORDER, RED);
                    }
                }
                Err(e) => {
                    // The refusal, located where the layout found it, with the cell's size.
                    let mut e = e;
                    e.message = format!("{} (cell {text})", e.message);
                    warn(e);
                    report.failed += 1;
                    fill(&mut sheet, x, y, cw, ch, [70, 70, 70, 255]);
                    cross(&mut sheet, x, y, cw, ch, RED);
                }
            }
            label(&mut sheet, x + BORDER + 1, y + BORDER + 1, &text);
            done();
        }
    }
    Ok((sheet, report))
}

fn write_sheet(out: &Path, sheet: &image::RgbaImage) -> anyhow::Result<()> {
    crate::render::write_png(out, sheet).with_context(|| format!("writing {}", out.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_and_steps() {
        assert_eq!(parse_range("60..100"), Ok((60.0, 100.0)));
        assert_eq!(parse_range("60..=100"), Ok((60.0, 100.0)));
        assert_eq!(parse_range("80"), Ok((80.0, 80.0)));
        assert!(parse_range("100..60").unwrap_err().contains("smaller"));
        assert!(parse_range("0..10").unwrap_err().contains("positive"));
        assert!(parse_range("a..10").unwrap_err().contains("not a number"));
        assert!(parse_range("nan..10").is_err());
        assert_eq!(steps((60.0, 100.0), 20.0), vec![60.0, 80.0, 100.0]);
        assert_eq!(steps((60.0, 99.0), 20.0), vec![60.0, 80.0]);
        assert_eq!(steps((0.1, 0.3), 0.1).len(), 3, "float steps reach the end");
        assert_eq!(steps((1.0, 1e9), 1e-6).len(), MAX_CELLS + 1, "capped");
    }

    #[test]
    fn labels_and_scaling() {
        assert_eq!(size_label(100.0, 80.0), "100x80");
        assert_eq!(size_label(12.5, 40.0), "12.5x40");
        let r = scale_rings(
            &[vec![[10.0, 10.0], [20.0, 10.0], [20.0, 30.0]]],
            50.0,
            40.0,
        );
        assert_eq!(r[0], vec![[10.0, 10.0], [60.0, 10.0], [60.0, 50.0]]);
        assert_eq!(
            sheet_size(3, 2, (100, 50)),
            (3 * 100 + 4 * GAP, 2 * 50 + 3 * GAP)
        );
    }

    #[test]
    fn marks_draw_inside_the_cell() {
        let mut img = image::RgbaImage::new(30, 20);
        frame_rect(&mut img, 5, 5, 10, 8, 2, RED);
        assert_eq!(img.get_pixel(5, 5).0, RED);
        assert_eq!(img.get_pixel(14, 12).0, RED);
        assert_eq!(img.get_pixel(9, 8).0, [0, 0, 0, 0], "the inside stays");
        assert_eq!(
            img.get_pixel(15, 5).0,
            [0, 0, 0, 0],
            "nothing past the cell"
        );
        cross(&mut img, 0, 0, 30, 20, RED);
        assert_eq!(img.get_pixel(0, 0).0, RED);
        assert_eq!(img.get_pixel(0, 19).0, RED);
    }
}
