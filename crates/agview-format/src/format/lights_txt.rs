//! X-Plane's `Resources/lights.txt`: the looks of the named lights OBJ8 `LIGHT_NAMED` and
//! `LIGHT_PARAM` refer to (<https://developer.x-plane.com/article/lights-txt-file-format/>).
//!
//! ```text
//! A
//! 850
//! LIGHT_SPECS
//! TEXTURE lights.png
//!
//! LIGHT_PARAM_DEF  full_custom_halo  9  R G B A S X Y Z F
//! BILLBOARD_HW     full_custom_halo  R G B A S ...
//! BILLBOARD_SW     airplane_beacon   1 0 0 1 2 ...
//! ```
//!
//! The previewer draws a light as one glow, so of a light's records it keeps its
//! `LIGHT_PARAM_DEF` and its first billboard overload (`BILLBOARD_HW` or `BILLBOARD_SW`),
//! whose first five arguments are the colour `R G B A` and the `SIZE` (each a number or one
//! of the light's parameters: the billboards' prototype is `R G B A SIZE CELL_SIZE CELL_ROW
//! CELL_COL DX DY DZ WIDTH …`, as Laminar's XPlane2Blender reads it). Every other record (spills, `TEXTURE` after the header, …) is
//! skipped. A line that cannot be read is a located warning; only a file that is not a
//! `LIGHT_SPECS` file at all is an error.

use std::collections::HashMap;
use std::path::Path;

use crate::diag::Diagnostic;

/// One argument of an overload: a number, or the name of one of the light's parameters.
#[derive(Debug, Clone, PartialEq)]
pub enum LightArg {
    Number(f32),
    Param(String),
}

/// A light's billboard: `R G B A SIZE` as written.
#[derive(Debug, Clone, PartialEq)]
pub struct Billboard {
    pub args: [LightArg; 5],
    /// 1-based source line.
    pub line: u32,
}

/// What `lights.txt` says of one light name.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LightSpec {
    /// `LIGHT_PARAM_DEF`: the parameter names, in the order `LIGHT_PARAM` gives values.
    pub params: Vec<String>,
    pub billboard: Option<Billboard>,
}

/// A parsed `lights.txt`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LightsTxt {
    pub lights: HashMap<String, LightSpec>,
}

impl LightsTxt {
    /// The colour (`R G B A`, clamped to 0..1) and size (m) of `name`'s billboard, with
    /// `values` for its parameters (`LIGHT_PARAM`). `None` when the file has no billboard
    /// for it or a parameter has no usable value.
    pub fn look(&self, name: &str, values: &[String]) -> Option<([f32; 4], f32)> {
        let spec = self.lights.get(name)?;
        let bb = spec.billboard.as_ref()?;
        let mut v = [0f32; 5];
        for (out, arg) in v.iter_mut().zip(&bb.args) {
            *out = match arg {
                LightArg::Number(x) => *x,
                LightArg::Param(p) => {
                    let i = spec.params.iter().position(|q| q == p)?;
                    values.get(i)?.parse::<f32>().ok()?
                }
            };
            if !out.is_finite() {
                return None;
            }
        }
        let color = [v[0], v[1], v[2], v[3]].map(|c| c.clamp(0.0, 1.0));
        Some((color, v[4].abs()))
    }
}

/// Reads `lights.txt`. Header problems are an error (`path: error: …`); a line of the body
/// that cannot be read is a warning at its line and column, and is skipped.
pub fn parse(
    path: &Path,
    src: &str,
    warnings: &mut Vec<Diagnostic>,
) -> Result<LightsTxt, Diagnostic> {
    let mut lines = crate::lines::lines(src)
        .enumerate()
        .map(|(i, l)| (i as u32 + 1, l))
        .filter(|(_, l)| {
            let t = l.split('#').next().unwrap_or("").trim();
            !t.is_empty()
        });
    let header_err = |line: u32, what: &str| {
        Diagnostic::error_at(path, line, 1, format!("not a lights.txt file: {what}"))
    };
    match lines.next() {
        Some((_, l)) if matches!(l.trim(), "A" | "I") => {}
        Some((n, _)) => return Err(header_err(n, "expected `A` or `I` on the first line")),
        None => return Err(Diagnostic::error_file(path, "empty lights.txt")),
    }
    match lines.next() {
        Some((_, l)) if l.trim().parse::<u32>().is_ok() => {}
        Some((n, _)) => return Err(header_err(n, "expected a version number")),
        None => {
            return Err(Diagnostic::error_file(
                path,
                "lights.txt ends in its header",
            ))
        }
    }
    match lines.next() {
        Some((_, l)) if l.trim() == "LIGHT_SPECS" => {}
        Some((n, _)) => return Err(header_err(n, "expected `LIGHT_SPECS`")),
        None => {
            return Err(Diagnostic::error_file(
                path,
                "lights.txt ends in its header",
            ))
        }
    }
    let mut out = LightsTxt::default();
    for (n, raw) in lines {
        let text = raw.split('#').next().unwrap_or("");
        // Tokens with their 1-based columns.
        let mut toks = Vec::new();
        let mut start = None;
        for (i, ch) in text
            .char_indices()
            .chain(std::iter::once((text.len(), ' ')))
        {
            match (ch.is_whitespace(), start) {
                (false, None) => start = Some(i),
                (true, Some(s)) => {
                    toks.push((&text[s..i], s as u32 + 1));
                    start = None;
                }
                _ => {}
            }
        }
        let Some(&(record, _)) = toks.first() else {
            continue;
        };
        let warn = |col: u32, msg: String| Diagnostic::warning_at(path, n, col, msg);
        match record {
            "LIGHT_PARAM_DEF" | "BILLBOARD_HW" | "BILLBOARD_SW" => {}
            // The header's textures, spills and any record this reader does not draw.
            _ => continue,
        }
        let Some(&(name, _)) = toks.get(1) else {
            warnings.push(warn(
                text.len() as u32 + 1,
                format!("{record}: missing the light name; the line is skipped"),
            ));
            continue;
        };
        let args = &toks[2..];
        if record == "LIGHT_PARAM_DEF" {
            let count = args.first().map(|(t, c)| (t.parse::<usize>(), *c));
            match count {
                Some((Ok(k), _)) if k == args.len() - 1 => {
                    out.lights.entry(name.to_string()).or_default().params =
                        args[1..].iter().map(|(t, _)| t.to_string()).collect();
                }
                Some((Ok(k), c)) => warnings.push(warn(
                    c,
                    format!(
                        "LIGHT_PARAM_DEF {name}: says {k} parameters but names {}; the line is skipped",
                        args.len() - 1
                    ),
                )),
                Some((Err(_), c)) => warnings.push(warn(
                    c,
                    format!("LIGHT_PARAM_DEF {name}: `{}` is not a parameter count; the line is skipped", args[0].0),
                )),
                None => warnings.push(warn(
                    text.len() as u32 + 1,
                    format!("LIGHT_PARAM_DEF {name}: missing the parameter count; the line is skipped"),
                )),
            }
            continue;
        }
        // A billboard: R G B A SIZE first.
        if args.len() < 5 {
            warnings.push(warn(
                text.len() as u32 + 1,
                format!("{record} {name}: expected at least R G B A SIZE; the line is skipped"),
            ));
            continue;
        }
        let mut parsed = Vec::with_capacity(5);
        let mut bad = None;
        for &(t, c) in &args[..5] {
            match t.parse::<f32>() {
                Ok(x) if x.is_finite() => parsed.push(LightArg::Number(x)),
                Ok(_) => {
                    bad = Some((t, c));
                    break;
                }
                Err(_) if t.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '_') => {
                    parsed.push(LightArg::Param(t.to_string()))
                }
                Err(_) => {
                    bad = Some((t, c));
                    break;
                }
            }
        }
        if let Some((t, c)) = bad {
            warnings.push(warn(
                c,
                format!("{record} {name}: `{t}` is neither a number nor a parameter; the line is skipped"),
            ));
            continue;
        }
        let spec = out.lights.entry(name.to_string()).or_default();
        if spec.billboard.is_none() {
            if let Ok(args) = <[LightArg; 5]>::try_from(parsed) {
                spec.billboard = Some(Billboard { args, line: n });
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "A\n850\nLIGHT_SPECS\nTEXTURE lights.png\n\n\
# a comment\n\
LIGHT_PARAM_DEF\tfull_custom_halo\t4\tR\tG\tB\tS\n\
BILLBOARD_HW\tfull_custom_halo\tR\tG\tB\t1\tS\t0\t0\t0\t0\t-1\t0\t0\n\
SPILL_HW_DIR\tfull_custom_halo\tR\tG\tB\t1\tS\t0\t0\t0\t0\tNOOP\n\
\n\
BILLBOARD_SW\tairplane_beacon\t1\t0\t0\t1\t2.5\t4\t3\t0\t0\t-1\t0\t1\tsim/x\n\
BILLBOARD_HW\tairplane_beacon\t0\t1\t0\t1\t9\n\
SPILL_GND\tstreet_sodium\t1\t0.6\t0.3\t1\t12\n";

    fn p(src: &str) -> (Result<LightsTxt, Diagnostic>, Vec<Diagnostic>) {
        let mut w = Vec::new();
        let r = parse(Path::new("Resources/lights.txt"), src, &mut w);
        (r, w)
    }

    #[test]
    fn reads_param_defs_and_the_first_billboard() {
        let (r, w) = p(SAMPLE);
        let t = r.unwrap();
        assert!(w.is_empty(), "{w:?}");
        let halo = &t.lights["full_custom_halo"];
        assert_eq!(halo.params, ["R", "G", "B", "S"]);
        assert_eq!(halo.billboard.as_ref().unwrap().line, 8);
        let values: Vec<String> = ["0.5", "0.25", "2", "3"].map(String::from).to_vec();
        assert_eq!(
            t.look("full_custom_halo", &values),
            Some(([0.5, 0.25, 1.0, 1.0], 3.0)),
            "parameters substituted, colour clamped"
        );
        assert_eq!(
            t.look("full_custom_halo", &values[..2]),
            None,
            "too few values"
        );
        // The first billboard wins.
        assert_eq!(
            t.look("airplane_beacon", &[]),
            Some(([1.0, 0.0, 0.0, 1.0], 2.5))
        );
        // A light with only a spill has no billboard; an unknown one is not there.
        assert_eq!(t.look("street_sodium", &[]), None);
        assert_eq!(t.look("nothing", &[]), None);
    }

    #[test]
    fn bad_lines_are_located_warnings() {
        let src = "A\n850\nLIGHT_SPECS\n\
LIGHT_PARAM_DEF a 3 R G\n\
LIGHT_PARAM_DEF b x R\n\
BILLBOARD_HW c 1 1\n\
BILLBOARD_SW d 1 1 1 1 2.0.0\n\
BILLBOARD_HW\n\
BILLBOARD_HW e 1 1 1 1 2\n";
        let (r, w) = p(src);
        let t = r.unwrap();
        let text: Vec<String> = w.iter().map(|d| d.to_string()).collect();
        assert_eq!(w.len(), 5, "{text:#?}");
        assert!(
            text[0].starts_with("Resources/lights.txt:4:19: warning:"),
            "{}",
            text[0]
        );
        assert!(
            text[1].starts_with("Resources/lights.txt:5:19: warning:"),
            "{}",
            text[1]
        );
        assert!(
            text[2].starts_with("Resources/lights.txt:6:"),
            "{}",
            text[2]
        );
        assert!(
            text[3].starts_with("Resources/lights.txt:7:24: warning:"),
            "{}",
            text[3]
        );
        assert!(
            text[4].starts_with("Resources/lights.txt:8:"),
            "{}",
            text[4]
        );
        assert!(text.iter().all(|t| t.contains("skipped")));
        assert_eq!(t.look("e", &[]), Some(([1.0; 4], 2.0)));
        assert!(t.lights.get("c").is_none_or(|s| s.billboard.is_none()));
    }

    #[test]
    fn a_file_that_is_not_lights_txt_is_an_error() {
        for src in [
            "",
            "A\n",
            "A\nabc\n",
            "X\n850\nLIGHT_SPECS\n",
            "A\n850\nOBJ\n",
        ] {
            let (r, _) = p(src);
            assert!(r.is_err(), "{src:?}");
        }
    }

    #[test]
    fn never_panics_on_any_prefix() {
        for end in 0..SAMPLE.len() {
            if SAMPLE.is_char_boundary(end) {
                let _ = p(&SAMPLE[..end]);
            }
        }
    }
}
