//! Images: PNG and DDS files to an [`ImageData`] with its mip chain, each file decoded once
//! through an [`ImagePool`] that art refers into by index.
//!
//! - **Lookup.** Like X-Plane and WED (`process_texture_path`), a name ending in `.png` is
//!   looked for as `.dds` first, and a `.dds` name falls back to `.png`; file names match
//!   case-insensitively when the exact name is missing ([`super::files::find_file`]).
//! - **Rows.** Images keep the file's row order, top row first, for PNG and DDS alike
//!   (X-Plane's DDSTool writes DDS top row first on desktop, see xptools
//!   `WriteBitmapToDDS`). A texture coordinate `t` (up, as OBJ8 and facades use it)
//!   therefore samples row `(1 - t)·height`.
//! - **PNG** becomes RGBA8 with a mip chain averaged in linear light, as DDSTool does
//!   ([`mips`]).
//! - **DDS** ([`dds`]): BC1–5 and BC7 stay block-compressed with the file's mips
//!   ([`decode_bc`], on `bcdec_rs`, expands them for adapters without BC support); a DDS
//!   whose size is not a multiple of 4, or an uncompressed DDS, is expanded to RGBA8 here.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::files::as_warning;
use crate::diag::Diagnostic;

pub mod dds;
pub mod mips;

pub(crate) use mips::mip_chain;

/// Block-compressed formats of DDS files: DXT1/3/5 (BC1-3), ATI1 (BC4, one channel, drawn
/// grey), ATI2 (BC5, two channels, drawn as a normal map's colours) and BC7 (DX10 header).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BcFormat {
    Bc1,
    Bc2,
    Bc3,
    Bc4,
    Bc5,
    Bc7,
}

impl BcFormat {
    /// Bytes of one 4×4 block.
    pub fn block_bytes(self) -> usize {
        match self {
            BcFormat::Bc1 | BcFormat::Bc4 => 8,
            BcFormat::Bc2 | BcFormat::Bc3 | BcFormat::Bc5 | BcFormat::Bc7 => 16,
        }
    }
}

/// Pixel data of one image with its mip chain (mip 0 first).
#[derive(Debug, Clone, PartialEq)]
pub enum ImagePixels {
    /// RGBA8, sRGB.
    Rgba8(Vec<Vec<u8>>),
    /// Block-compressed, each mip the raw blocks.
    Bc(BcFormat, Vec<Vec<u8>>),
}

/// An image to upload as a texture.
#[derive(Debug, Clone, PartialEq)]
pub struct ImageData {
    pub name: String,
    pub width: u32,
    pub height: u32,
    pub pixels: ImagePixels,
    /// True when this is a checkerboard standing in for a missing file.
    pub missing: bool,
}

impl ImageData {
    /// Bytes of pixels, every level.
    pub fn bytes(&self) -> u64 {
        let levels = match &self.pixels {
            ImagePixels::Rgba8(l) | ImagePixels::Bc(_, l) => l,
        };
        levels.iter().map(|l| l.len() as u64).sum()
    }

    /// One black pixel: a night texture that lights nothing.
    pub fn black() -> Self {
        ImageData {
            name: "black".into(),
            width: 1,
            height: 1,
            pixels: ImagePixels::Rgba8(vec![vec![0, 0, 0, 255]]),
            missing: false,
        }
    }

    /// A magenta/grey checkerboard: what a missing texture looks like.
    pub fn checkerboard(name: &str) -> Self {
        let n = 64u32;
        let mut px = Vec::with_capacity((n * n * 4) as usize);
        for y in 0..n {
            for x in 0..n {
                let on = ((x / 8) + (y / 8)) % 2 == 0;
                px.extend_from_slice(if on {
                    &[255, 0, 255, 255]
                } else {
                    &[60, 60, 60, 255]
                });
            }
        }
        ImageData {
            name: name.to_string(),
            width: n,
            height: n,
            pixels: ImagePixels::Rgba8(vec![px]),
            missing: true,
        }
    }
}

/// An image decoded, and what decoding it said.
type Decoded = (ImageData, Vec<Diagnostic>);

/// Images loaded so far, each once, by the path they were asked for.
#[derive(Debug, Default)]
pub struct ImagePool {
    images: Vec<ImageData>,
    by_path: HashMap<PathBuf, usize>,
    /// The largest side kept ([`cap_side`]); `None`: every level of the file.
    max_side: Option<u32>,
    /// The most bytes of pixels the pool keeps ([`ImagePool::with_budget`]).
    budget: Option<u64>,
    /// Bytes of pixels kept now.
    held: u64,
    /// The images that lost top levels to the budget.
    trimmed: std::collections::BTreeSet<usize>,
    /// What decoding each image said (parallel to `images`).
    said: Vec<Vec<Diagnostic>>,
    /// Images handed over by an earlier load ([`ImagePool::seeded`]) not asked for yet in
    /// this one: the first ask repeats what decoding them said.
    unasked: std::collections::HashSet<usize>,
    /// How many images this pool decoded.
    decoded: usize,
    /// Images being decoded ahead of their first ask ([`ImagePool::plan`]), by the path
    /// they will be asked for: each comes with what decoding it said through its channel.
    ahead: HashMap<PathBuf, std::sync::mpsc::Receiver<Decoded>>,
    /// The workers that decode ahead, made at the first image decoded ahead.
    workers: Option<rayon::ThreadPool>,
    /// The planned paths not decoded yet, in the order they are expected to be asked for.
    planned: std::collections::VecDeque<PathBuf>,
    /// A pool that only records the paths asked for ([`ImagePool::recording`]).
    recording: bool,
}

/// The paths an art load's pool decoded its images from, and what decoding each said:
/// [`ArtSet::pool`](super::ArtSet::pool), so that a later load of the same files can start
/// from those images ([`super::ArtSet::take_decoded`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PoolRecord {
    /// The options the images were loaded with.
    pub(crate) opts: super::ArtOptions,
    /// Parallel to the first images of the art set: the path each was asked for.
    pub(crate) paths: Vec<PathBuf>,
    pub(crate) said: Vec<Vec<Diagnostic>>,
    /// How many images the load decoded (the others were handed over).
    pub(crate) decoded: usize,
}

impl PoolRecord {
    /// How many images the load decoded itself, not counting those an earlier load handed
    /// over ([`DecodedImages`]).
    pub fn decoded(&self) -> usize {
        self.decoded
    }
}

/// Decoded images handed from one art load to the next of the same files (a large
/// document's preview, then the whole, [`super::ArtSet::take_decoded`]): the next load's
/// pool starts with them at the same indices, and decodes only the images they lack.
#[derive(Debug, Default)]
pub struct DecodedImages {
    pub(crate) record: PoolRecord,
    pub(crate) images: Vec<ImageData>,
}

impl DecodedImages {
    /// How many images are handed over.
    pub fn len(&self) -> usize {
        self.images.len()
    }

    pub fn is_empty(&self) -> bool {
        self.images.is_empty()
    }
}

impl ImagePool {
    pub fn new() -> Self {
        Self::default()
    }

    /// A pool that keeps no level with a side over `max_side` ([`cap_side`]), and at most `budget` bytes of pixels: whenever an image takes
    /// it over, the largest image kept loses its top mip level, then the largest again, until
    /// the pool fits (or every image is down to one texel). The largest images lose
    /// resolution first, and the pool never holds more than the budget and one image.
    pub(crate) fn with_budget(max_side: Option<u32>, budget: Option<u64>) -> Self {
        ImagePool {
            max_side,
            budget,
            ..Self::default()
        }
    }

    /// A pool of `max_side` and `budget` ([`ImagePool::with_budget`]) that starts with the
    /// images `seed` hands over, at their indices, where they were loaded with the same
    /// options (otherwise it starts empty). Asking for one of them decodes nothing: it says
    /// what decoding it said, the first time.
    pub(crate) fn seeded(
        max_side: Option<u32>,
        budget: Option<u64>,
        seed: Option<DecodedImages>,
    ) -> Self {
        let mut pool = Self::with_budget(max_side, budget);
        let opts = super::ArtOptions {
            max_texture_side: max_side,
            texture_budget: budget,
        };
        let Some(seed) = seed.filter(|s| {
            s.record.opts == opts
                && s.record.paths.len() == s.images.len()
                && s.record.said.len() == s.images.len()
        }) else {
            return pool;
        };
        for (i, ((img, path), said)) in seed
            .images
            .into_iter()
            .zip(seed.record.paths)
            .zip(seed.record.said)
            .enumerate()
        {
            pool.held += img.bytes();
            pool.images.push(img);
            pool.said.push(said);
            pool.by_path.insert(path, i);
            pool.unasked.insert(i);
        }
        pool.fit_budget();
        pool
    }

    /// A pool that decodes nothing: each image it is asked for is a 1×1 stand-in with no
    /// pixels, and [`ImagePool::asked`] lists their paths in the order they were first
    /// asked for. An art load run once with it learns which images the real load will ask
    /// for, and in what order ([`ImagePool::plan`]).
    pub(crate) fn recording() -> Self {
        ImagePool {
            recording: true,
            ..Self::default()
        }
    }

    /// The paths this pool was asked for, in the order of their first ask (a
    /// [`ImagePool::recording`] pool's plan for a real one).
    pub(crate) fn asked(&self) -> Vec<PathBuf> {
        let mut paths: Vec<(usize, &PathBuf)> = self.by_path.iter().map(|(p, &i)| (i, p)).collect();
        paths.sort_unstable();
        paths.into_iter().map(|(_, p)| p.clone()).collect()
    }

    /// Plans to decode `paths` (those not already in the pool) ahead of their first ask,
    /// on worker threads of the pool's own, one per core: the first ask of a planned image
    /// starts it and the next planned ones, and each ask after tops them up, so the
    /// workers never wait for the slowest image of a batch nor for the art files read
    /// between asks. A pool with no budget starts them all at once (it keeps them all
    /// anyway); under a budget, four images per worker are started or waiting for their
    /// ask at any time, so the budget still bounds what the pool holds. What each image
    /// is, and what decoding it says, is the same as decoding it at its ask: only when the
    /// work is done changes.
    pub(crate) fn plan(&mut self, paths: Vec<PathBuf>) {
        let mut seen = std::collections::HashSet::new();
        self.planned = paths
            .into_iter()
            .filter(|p| !self.by_path.contains_key(p) && seen.insert(p.clone()))
            .collect();
    }

    /// `path`'s image, decoded ahead when it is planned (started now if it was not yet),
    /// once the next planned images are started; `None` when it is not planned or its
    /// worker failed (it is then decoded at its ask).
    fn decoded_ahead(&mut self, path: &Path) -> Option<Decoded> {
        if !self.ahead.contains_key(path) {
            let at = self.planned.iter().position(|p| p == path)?;
            let first = self.planned.remove(at)?;
            self.start(first);
        }
        let done = self.ahead.remove(path)?;
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let window = match self.budget {
            None => usize::MAX,
            Some(_) => 4 * cores - 1,
        };
        while self.ahead.len() < window {
            let Some(next) = self.planned.pop_front() else {
                break;
            };
            self.start(next);
        }
        done.recv().ok()
    }

    /// Starts decoding `path` on the workers (made now, the first time).
    fn start(&mut self, path: PathBuf) {
        let (tx, rx) = std::sync::mpsc::channel();
        if self.workers.is_none() {
            let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
            self.workers = rayon::ThreadPoolBuilder::new()
                .num_threads(cores)
                .thread_name(|i| format!("agview-decode-{i}"))
                .build()
                .ok();
        }
        let Some(workers) = &self.workers else {
            return; // decoded at its ask
        };
        let max_side = self.max_side;
        let p = path.clone();
        workers.spawn(move || {
            let _ = tx.send(decode_capped(&p, max_side));
        });
        self.ahead.insert(path, rx);
    }

    /// The index of the image at `path`, loading it (or a checkerboard) the first time.
    /// Images are added one at a time, and a capped pool drops the levels it does not
    /// keep before the next is added; planned images ([`ImagePool::plan`]) are decoded
    /// ahead on worker threads.
    pub fn load(&mut self, path: &Path, warnings: &mut Vec<Diagnostic>) -> usize {
        if let Some(&i) = self.by_path.get(path) {
            if self.unasked.remove(&i) {
                warnings.extend(self.said[i].iter().cloned());
            }
            return i;
        }
        let i = self.images.len();
        if self.recording {
            self.images.push(ImageData {
                name: path.display().to_string(),
                width: 1,
                height: 1,
                pixels: ImagePixels::Rgba8(Vec::new()),
                missing: false,
            });
            self.said.push(Vec::new());
            self.by_path.insert(path.to_path_buf(), i);
            return i;
        }
        let (img, said) = self
            .decoded_ahead(path)
            .unwrap_or_else(|| decode_capped(path, self.max_side));
        self.decoded += 1;
        warnings.extend(said.iter().cloned());
        self.said.push(said);
        self.held += img.bytes();
        self.images.push(img);
        self.by_path.insert(path.to_path_buf(), i);
        self.fit_budget();
        i
    }

    /// Drops top levels of the largest images until the pool fits its budget.
    fn fit_budget(&mut self) {
        let Some(budget) = self.budget else { return };
        while self.held > budget {
            let largest = self
                .images
                .iter()
                .enumerate()
                .filter(|(_, img)| img.width.max(img.height) > 1)
                .max_by_key(|(_, img)| img.bytes())
                .map(|(i, _)| i);
            let Some(i) = largest else { break };
            let img = std::mem::replace(&mut self.images[i], ImageData::black());
            let before = img.bytes();
            let side = img.width.max(img.height) / 2;
            let smaller = cap_side(img, side);
            self.held = self.held - before + smaller.bytes();
            self.images[i] = smaller;
            self.trimmed.insert(i);
        }
    }

    /// How many images lost levels to the budget.
    pub fn trimmed(&self) -> usize {
        self.trimmed.len()
    }

    /// Bytes of pixels kept.
    pub(crate) fn held_bytes(&self) -> u64 {
        self.held
    }

    /// The index of an image agview makes itself (built-in art), named `name`; made by
    /// `make` the first time it is asked for.
    pub(crate) fn builtin(&mut self, name: &str, make: impl FnOnce() -> ImageData) -> usize {
        let key = PathBuf::from(name);
        if let Some(&i) = self.by_path.get(&key) {
            return i;
        }
        let i = self.images.len();
        let img = make();
        self.held += img.bytes();
        self.images.push(img);
        self.said.push(Vec::new());
        self.by_path.insert(key, i);
        i
    }

    pub fn images(&self) -> &[ImageData] {
        &self.images
    }

    pub fn len(&self) -> usize {
        self.images.len()
    }

    pub fn is_empty(&self) -> bool {
        self.images.is_empty()
    }

    /// The images, for [`ArtSet::images`].
    pub fn into_images(self) -> Vec<ImageData> {
        self.images
    }

    /// The images, and the record of where each came from ([`PoolRecord`]).
    pub(crate) fn into_parts(self) -> (Vec<ImageData>, PoolRecord) {
        let mut paths = vec![PathBuf::new(); self.images.len()];
        for (p, &i) in &self.by_path {
            if let Some(slot) = paths.get_mut(i) {
                *slot = p.clone();
            }
        }
        let record = PoolRecord {
            opts: super::ArtOptions {
                max_texture_side: self.max_side,
                texture_budget: self.budget,
            },
            paths,
            said: self.said,
            decoded: self.decoded,
        };
        (self.images, record)
    }
}

/// [`load_image`] at `path`, without the levels over `max_side` ([`cap_side`]), and what
/// loading it said.
pub(crate) fn decode_capped(path: &Path, max_side: Option<u32>) -> (ImageData, Vec<Diagnostic>) {
    let mut said = Vec::new();
    let img = load_image(path, &mut said);
    let img = match max_side {
        Some(m) => cap_side(img, m),
        None => img,
    };
    (img, said)
}

/// Loads a texture (DDS, PNG, BMP, JPEG or TIFF, looked for as [`texture_candidates`]
/// says); a checkerboard and a warning when nothing usable is found.
pub(crate) fn load_image(path: &Path, warnings: &mut Vec<Diagnostic>) -> ImageData {
    let candidates = crate::format::texture_candidates(path);
    // Failures of earlier candidates are reported even when a later one loads, so that an
    // author learns why their `.dds` was not used.
    let mut failed: Vec<Diagnostic> = Vec::new();
    for c in &candidates {
        let Some(found) = super::files::find_file_warning(c, warnings) else {
            continue;
        };
        let bytes = match std::fs::read(&found) {
            Ok(b) => b,
            Err(e) => {
                failed.push(Diagnostic::warning_file(
                    &found,
                    format!("texture cannot be read: {e}"),
                ));
                continue;
            }
        };
        let mut local = Vec::new();
        match decode_image(&found, &bytes, &mut local) {
            Ok(img) => {
                let used = format!("{} used instead", found.display());
                warnings.extend(failed.into_iter().map(|d| as_warning(d, &used)));
                warnings.extend(local);
                return img;
            }
            Err(e) => failed.push(e),
        }
    }
    let last = failed.pop();
    warnings.extend(
        failed
            .into_iter()
            .map(|d| as_warning(d, "drawn as a checkerboard")),
    );
    let d = last.unwrap_or_else(|| {
        let tried: Vec<String> = candidates.iter().map(|c| c.display().to_string()).collect();
        Diagnostic::warning_file(
            path,
            format!("texture not found (tried {})", tried.join(", ")),
        )
    });
    warnings.push(as_warning(d, "drawn as a checkerboard"));
    ImageData::checkerboard(&path.display().to_string())
}

/// Decodes DDS, PNG, BMP, JPEG or TIFF bytes (told apart by their magic numbers).
pub(crate) fn decode_image(
    path: &Path,
    bytes: &[u8],
    warnings: &mut Vec<Diagnostic>,
) -> Result<ImageData, Diagnostic> {
    use ::image::ImageFormat as F;
    if bytes.starts_with(b"DDS ") {
        dds::decode_dds(path, bytes, warnings)
    } else if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        decode_with(path, bytes, F::Png, "PNG")
    } else if bytes.starts_with(b"BM") {
        decode_with(path, bytes, F::Bmp, "BMP")
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        decode_with(path, bytes, F::Jpeg, "JPEG")
    } else if bytes.starts_with(b"II*\0") || bytes.starts_with(b"MM\0*") {
        decode_with(path, bytes, F::Tiff, "TIFF")
    } else {
        Err(Diagnostic::error_file(
            path,
            "not a DDS, PNG, BMP, JPEG or TIFF file",
        ))
    }
}

/// Largest texture side accepted (what GPUs commonly allow).
pub(super) const MAX_SIDE: u32 = 16384;

fn decode_with(
    path: &Path,
    bytes: &[u8],
    format: ::image::ImageFormat,
    what: &str,
) -> Result<ImageData, Diagnostic> {
    // The size first: a header may promise more than memory holds.
    let reader = ::image::ImageReader::with_format(std::io::Cursor::new(bytes), format);
    if let Ok((w, h)) = reader.into_dimensions() {
        if w == 0 || h == 0 || w > MAX_SIDE || h > MAX_SIDE {
            return Err(Diagnostic::error_file(
                path,
                format!("{what} is {w} × {h}; sides must be 1..={MAX_SIDE}"),
            ));
        }
    }
    let img = ::image::load_from_memory_with_format(bytes, format)
        .map_err(|e| Diagnostic::error_file(path, format!("{what} cannot be decoded: {e}")))?;
    let (w, h) = (img.width(), img.height());
    if w == 0 || h == 0 || w > MAX_SIDE || h > MAX_SIDE {
        return Err(Diagnostic::error_file(
            path,
            format!("{what} is {w} × {h}; sides must be 1..={MAX_SIDE}"),
        ));
    }
    let rgba = img.into_rgba8().into_raw();
    Ok(ImageData {
        name: path.display().to_string(),
        width: w,
        height: h,
        pixels: ImagePixels::Rgba8(mip_chain(rgba, w, h)),
        missing: false,
    })
}

/// `img` without the mip levels that have a side over `max_side` (at least 1): the same
/// picture at a lower resolution. A block-compressed image keeps the file's own smaller
/// levels; one whose file has none small enough is expanded and averaged down. An image
/// already small enough comes back as it was.
pub(crate) fn cap_side(img: ImageData, max_side: u32) -> ImageData {
    let max_side = max_side.max(1);
    if img.width.max(img.height) <= max_side {
        return img;
    }
    // How many levels to drop, and the size after.
    let (mut w, mut h, mut drop) = (img.width, img.height, 0usize);
    while w.max(h) > max_side {
        w = (w / 2).max(1);
        h = (h / 2).max(1);
        drop += 1;
    }
    let ImageData {
        name,
        width,
        height,
        pixels,
        missing,
    } = img;
    let pixels = match pixels {
        ImagePixels::Rgba8(levels) if levels.len() > drop => {
            ImagePixels::Rgba8(levels.into_iter().skip(drop).collect())
        }
        // A BC level must be whole blocks: keep the file's smaller levels while they are.
        ImagePixels::Bc(format, levels) if levels.len() > drop && w % 4 == 0 && h % 4 == 0 => {
            ImagePixels::Bc(format, levels.into_iter().skip(drop).collect())
        }
        other => {
            // Too few levels in the file: average the top level down.
            let top = ImageData {
                name: String::new(),
                width,
                height,
                pixels: other,
                missing,
            };
            let rgba = rgba8_mips(&top).into_iter().next().unwrap_or_default();
            let chain = mip_chain(rgba, width, height);
            ImagePixels::Rgba8(chain.into_iter().skip(drop).collect())
        }
    };
    ImageData {
        name,
        width: w,
        height: h,
        pixels,
        missing,
    }
}

/// The RGBA8 mips of any image (block-compressed ones expanded with [`decode_bc`]).
pub(crate) fn rgba8_mips(img: &ImageData) -> Vec<Vec<u8>> {
    match &img.pixels {
        ImagePixels::Rgba8(m) => m.clone(),
        ImagePixels::Bc(f, levels) => {
            let (mut w, mut h) = (img.width, img.height);
            levels
                .iter()
                .map(|l| {
                    let px = decode_bc(*f, w, h, l);
                    w = (w / 2).max(1);
                    h = (h / 2).max(1);
                    px
                })
                .collect()
        }
    }
}

/// Expands block-compressed data (one mip level, blocks row by row) to RGBA8 with
/// `bcdec_rs`. Blocks the data does not hold come out transparent black. BC4's one channel
/// becomes grey; BC5's two become red and green with blue the third component of a unit
/// normal (what a normal map's colour would be); both are opaque.
pub fn decode_bc(format: BcFormat, width: u32, height: u32, data: &[u8]) -> Vec<u8> {
    let (w, h) = (width as usize, height as usize);
    let mut out = vec![0u8; w * h * 4];
    let blocks_wide = w.div_ceil(4);
    let blocks = blocks_wide * h.div_ceil(4);
    for (i, block) in data
        .chunks_exact(format.block_bytes())
        .take(blocks)
        .enumerate()
    {
        let texels = decode_block(format, block);
        let (bx, by) = (i % blocks_wide * 4, i / blocks_wide * 4);
        for y in by..(by + 4).min(h) {
            let row = (y - by) * 16;
            let n = ((bx + 4).min(w) - bx) * 4;
            let o = (y * w + bx) * 4;
            out[o..o + n].copy_from_slice(&texels[row..row + n]);
        }
    }
    out
}

/// The 16 RGBA8 texels of one block, row by row (`block` holds exactly the format's bytes).
fn decode_block(format: BcFormat, block: &[u8]) -> [u8; 64] {
    let mut rgba = [0u8; 64];
    match format {
        BcFormat::Bc1 => bcdec_rs::bc1(block, &mut rgba, 16),
        BcFormat::Bc2 => bcdec_rs::bc2(block, &mut rgba, 16),
        BcFormat::Bc3 => bcdec_rs::bc3(block, &mut rgba, 16),
        BcFormat::Bc7 => bcdec_rs::bc7(block, &mut rgba, 16),
        BcFormat::Bc4 => {
            let mut r = [0u8; 16];
            bcdec_rs::bc4(block, &mut r, 4, false);
            for (t, v) in rgba.chunks_exact_mut(4).zip(r) {
                t.copy_from_slice(&[v, v, v, 255]);
            }
        }
        BcFormat::Bc5 => {
            let mut rg = [0u8; 32];
            bcdec_rs::bc5(block, &mut rg, 8, false);
            for (t, v) in rgba.chunks_exact_mut(4).zip(rg.chunks_exact(2)) {
                let (x, y) = (f32::from(v[0]) / 127.5 - 1.0, f32::from(v[1]) / 127.5 - 1.0);
                let z = (1.0 - x * x - y * y).max(0.0).sqrt();
                t.copy_from_slice(&[v[0], v[1], ((z + 1.0) * 127.5).round() as u8, 255]);
            }
        }
    }
    rgba
}

#[cfg(test)]
mod tests {
    use super::super::testing::{bc1_block, dds_header, tmp, write_png};
    use super::*;

    #[test]
    fn bc1_decodes_both_colour_modes() {
        let red = 0xF800;
        let blue = 0x001F;
        let px = |b: [u8; 8]| decode_bc(BcFormat::Bc1, 4, 4, &b)[..4].to_vec();
        assert_eq!(px(bc1_block(red, blue, 0)), [255, 0, 0, 255]);
        assert_eq!(px(bc1_block(red, blue, 1)), [0, 0, 255, 255]);
        assert_eq!(px(bc1_block(red, blue, 2)), [170, 0, 85, 255]);
        // c0 <= c1: three colours and transparent black.
        assert_eq!(px(bc1_block(blue, red, 2)), [128, 0, 128, 255]);
        assert_eq!(px(bc1_block(blue, red, 3)), [0, 0, 0, 0]);
        // Short data: missing blocks stay transparent black, no panic.
        assert_eq!(
            decode_bc(BcFormat::Bc1, 8, 4, &bc1_block(red, blue, 0)).len(),
            8 * 4 * 4
        );
        assert_eq!(decode_bc(BcFormat::Bc3, 8, 8, &[1, 2, 3]), vec![0u8; 256]);
    }

    #[test]
    fn bc2_and_bc3_alpha() {
        // BC2: explicit 4-bit alpha, pixel 0 = 0xF, pixel 1 = 0x8.
        let mut b2 = [0u8; 16];
        b2[0] = 0x8F;
        b2[8..].copy_from_slice(&bc1_block(0x001F, 0xF800, 0));
        let d = decode_bc(BcFormat::Bc2, 4, 4, &b2);
        assert_eq!(&d[..8], &[0, 0, 255, 255, 0, 0, 255, 136]);
        // BC3: a0 = 255, a1 = 0; pixel 0 code 0, pixel 1 code 1, pixel 2 code 2 (6/7 of a0).
        let mut b3 = [0u8; 16];
        b3[0] = 255;
        b3[1] = 0;
        let codes: u64 = 1 << 3 | 2 << 6;
        b3[2..8].copy_from_slice(&codes.to_le_bytes()[..6]);
        b3[8..].copy_from_slice(&bc1_block(0xF800, 0x001F, 0));
        let d = decode_bc(BcFormat::Bc3, 4, 4, &b3);
        // 6/7 of 255 is 218.6: bcdec rounds down where D3D allows either.
        assert_eq!([d[3], d[7], d[11], d[15]], [255, 0, 218, 255]);
        // a0 <= a1: codes 6 and 7 are 0 and 255.
        b3[0] = 10;
        b3[1] = 20;
        let codes: u64 = 6 | 7 << 3;
        b3[2..8].copy_from_slice(&codes.to_le_bytes()[..6]);
        let d = decode_bc(BcFormat::Bc3, 4, 4, &b3);
        assert_eq!([d[3], d[7]], [0, 255]);
    }

    #[test]
    fn textures_prefer_dds_and_fall_back_to_checkerboards() {
        let d = tmp("tex");
        write_png(&d.join("wall.png"), 4, 4, |_, _| [1, 2, 3, 255]);
        let mut dds = dds_header(b"DXT1", 4, 4, 1);
        dds.extend_from_slice(&bc1_block(0xF800, 0, 0));
        std::fs::write(d.join("roof.dds"), &dds).unwrap();
        std::fs::write(d.join("roof.png"), b"not a png").unwrap();
        std::fs::write(
            d.join("Mixed.PNG"),
            std::fs::read(d.join("wall.png")).unwrap(),
        )
        .unwrap();
        let mut w = Vec::new();
        let mut pool = ImagePool::new();
        let a = pool.load(&d.join("wall.png"), &mut w);
        let b = pool.load(&d.join("roof.png"), &mut w);
        let c = pool.load(&d.join("wall.png"), &mut w);
        let m = pool.load(&d.join("mixed.png"), &mut w);
        let x = pool.load(&d.join("gone.png"), &mut w);
        assert_eq!((a, b, c, m, x), (0, 1, 0, 2, 3));
        assert_eq!(pool.len(), 4);
        let imgs = pool.images();
        assert!(matches!(imgs[1].pixels, ImagePixels::Bc(BcFormat::Bc1, _)));
        assert!(!imgs[2].missing, "case-insensitive match");
        assert!(imgs[3].missing);
        // Found only by ignoring case: drawn, with a warning naming the file found.
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(
            w[0].message.contains("Mixed.PNG only when case is ignored"),
            "{}",
            w[0]
        );
        w.remove(0);
        assert!(
            w[0].to_string()
                .contains("gone.png: warning: texture not found (tried"),
            "{}",
            w[0]
        );
        // A broken `.dds` twin is reported, and the `.png` is used.
        std::fs::write(d.join("wall.dds"), b"DDS rubbish").unwrap();
        let img = load_image(&d.join("wall.png"), &mut w);
        assert!(!img.missing);
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(
            w[1].to_string()
                .contains("wall.dds: offset 11: warning: DDS header truncated"),
            "{}",
            w[1]
        );
        assert!(w[1].message.ends_with("wall.png used instead)"), "{}", w[1]);
        w.remove(1);
        // A broken file is a warning naming it, and a checkerboard.
        std::fs::write(d.join("bad.png"), b"\x89PNG\r\n\x1a\nrubbish").unwrap();
        let img = load_image(&d.join("bad.png"), &mut w);
        assert!(img.missing);
        assert!(
            w[1].to_string()
                .contains("bad.png: warning: PNG cannot be decoded"),
            "{}",
            w[1]
        );
    }

    #[test]
    fn image_decoding_never_panics_on_any_prefix() {
        let d = tmp("prefix");
        write_png(&d.join("p.png"), 3, 3, |x, y| [x as u8, y as u8, 7, 255]);
        let png = std::fs::read(d.join("p.png")).unwrap();
        let mut dds = dds_header(b"DXT5", 8, 4, 4);
        dds.extend(std::iter::repeat_n(0x5A, 64));
        let mut w = Vec::new();
        for bytes in [&png, &dds] {
            for end in 0..=bytes.len() {
                let _ = decode_image(Path::new("x"), &bytes[..end], &mut w);
            }
        }
    }

    #[test]
    fn a_budget_lowers_the_largest_textures_first() {
        let d = super::super::testing::tmp("budget");
        for (name, side) in [("big.png", 64), ("mid.png", 32), ("small.png", 16)] {
            super::super::testing::write_png(&d.join(name), side, side, |x, y| {
                [(x * 4) as u8, (y * 4) as u8, 90, 255]
            });
        }
        let chain = |side: u64| {
            (1..=side.ilog2() + 1)
                .map(|k| (side >> (k - 1)).pow(2) * 4)
                .sum::<u64>()
        };
        // Room for the 32² and 16² whole, and the 64² at 32².
        let budget = 2 * chain(32) + chain(16);
        let mut pool = ImagePool::with_budget(None, Some(budget));
        let mut w = Vec::new();
        let big = pool.load(&d.join("big.png"), &mut w);
        let mid = pool.load(&d.join("mid.png"), &mut w);
        let small = pool.load(&d.join("small.png"), &mut w);
        assert!(w.is_empty(), "{w:?}");
        let sides: Vec<u32> = [big, mid, small]
            .iter()
            .map(|&i| pool.images()[i].width)
            .collect();
        assert_eq!(
            sides,
            [32, 32, 16],
            "the largest loses its top level, nothing else"
        );
        assert_eq!(pool.trimmed(), 1);
        assert_eq!(pool.held_bytes(), budget);
        assert_eq!(
            pool.images().iter().map(ImageData::bytes).sum::<u64>(),
            budget
        );
        // Without a budget nothing is lowered.
        let mut pool = ImagePool::with_budget(None, None);
        let big = pool.load(&d.join("big.png"), &mut w);
        assert_eq!((pool.images()[big].width, pool.trimmed()), (64, 0));
    }

    #[test]
    fn capped_images_drop_their_top_levels() {
        // RGBA8 64 × 32 with its chain: capped at 16, the chain from 16 × 8 on.
        let red = [200u8, 10, 10, 255].repeat(64 * 32);
        let img = ImageData {
            name: "r".into(),
            width: 64,
            height: 32,
            pixels: ImagePixels::Rgba8(mip_chain(red, 64, 32)),
            missing: false,
        };
        let c = cap_side(img.clone(), 16);
        assert_eq!((c.width, c.height), (16, 8));
        let ImagePixels::Rgba8(l) = &c.pixels else {
            panic!()
        };
        assert_eq!(l.len(), 5);
        assert_eq!(l[0].len(), 16 * 8 * 4);
        assert_eq!(&l[0][..4], &[200, 10, 10, 255]);
        // Small enough already: unchanged.
        assert_eq!(cap_side(img.clone(), 64), img);
        // BC1 16 × 16 with its own mips keeps them; without, it is averaged down to RGBA8.
        let block = bc1_block(0xF800, 0x001F, 0);
        let level = |w: u32, h: u32| block.repeat((w.div_ceil(4) * h.div_ceil(4)) as usize);
        let bc = |levels: Vec<Vec<u8>>| ImageData {
            name: "b".into(),
            width: 16,
            height: 16,
            pixels: ImagePixels::Bc(BcFormat::Bc1, levels),
            missing: false,
        };
        let with_mips = cap_side(bc(vec![level(16, 16), level(8, 8), level(4, 4)]), 8);
        assert_eq!((with_mips.width, with_mips.height), (8, 8));
        assert!(matches!(&with_mips.pixels, ImagePixels::Bc(_, l) if l.len() == 2));
        let without = cap_side(bc(vec![level(16, 16)]), 8);
        assert_eq!((without.width, without.height), (8, 8));
        let ImagePixels::Rgba8(l) = &without.pixels else {
            panic!()
        };
        assert_eq!(&l[0][..4], &[255, 0, 0, 255]);
    }
}
