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
//! CELL_COL DX DY DZ WIDTH …`, as Laminar's XPlane2Blender reads it), and its first spill
//! (`SPILL_SW`, `SPILL_HW_DIR`, `SPILL_HW_FLA`, the same five first) for a light that has no
//! billboard (XP12's `*_pm` lights). Every other record (`SPILL_GND`, `TEXTURE` after the
//! header, …) is skipped.
//!
//! X-Plane 12 writes the size column as an intensity in candela, `750cd` ("size become
//! intensity expressed in candela", XP12.md §4), and its parameter lights (`airplane_*_bb`,
//! `*_pm`) name it `INTENSITY`; their alpha column is the parameter `INDEX`, not a dimmer. A line that cannot be read is a located warning; only a file that is not a
//! `LIGHT_SPECS` file at all is an error.

use std::collections::HashMap;
use std::path::Path;

use crate::diag::Diagnostic;

/// One argument of an overload: a number, or the name of one of the light's parameters.
#[derive(Debug, Clone, PartialEq)]
pub enum LightArg {
    Number(f32),
    /// `750cd`: an XP12 intensity in candela (the size column only).
    Candela(f32),
    Param(String),
}

/// How big or bright a light is: an XP11 billboard's size in meters, or an XP12 intensity
/// in candela (a `cd` value, or the `INTENSITY` parameter).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LightSize {
    Meters(f32),
    Candela(f32),
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
    /// The first spill, the look of a light without a billboard.
    pub spill: Option<Billboard>,
}

/// A parsed `lights.txt`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LightsTxt {
    pub lights: HashMap<String, LightSpec>,
}

impl LightsTxt {
    /// The colour (`R G B A`, clamped to 0..1) and size of `name`'s billboard (else its
    /// spill), with `values` for its parameters (`LIGHT_PARAM`). `None` when the file has
    /// neither for it or a parameter has no usable value. An `INDEX` parameter in the alpha
    /// column is a light index, not a dimmer: alpha 1.
    pub fn look(&self, name: &str, values: &[String]) -> Option<([f32; 4], LightSize)> {
        let spec = self.lights.get(name)?;
        let bb = spec.billboard.as_ref().or(spec.spill.as_ref())?;
        let mut v = [0f32; 5];
        let mut candela = false;
        for (k, (out, arg)) in v.iter_mut().zip(&bb.args).enumerate() {
            *out = match arg {
                LightArg::Number(x) => *x,
                LightArg::Candela(x) => {
                    candela = true;
                    *x
                }
                LightArg::Param(p) if k == 3 && p == "INDEX" => 1.0,
                LightArg::Param(p) => {
                    candela |= k == 4 && p == "INTENSITY";
                    let i = spec.params.iter().position(|q| q == p)?;
                    let text = values.get(i)?;
                    match parse_candela(text) {
                        Some(x) if k == 4 => {
                            candela = true;
                            x
                        }
                        _ => text.parse::<f32>().ok()?,
                    }
                }
            };
            if !out.is_finite() {
                return None;
            }
        }
        let color = [v[0], v[1], v[2], v[3]].map(|c| c.clamp(0.0, 1.0));
        let size = if candela {
            LightSize::Candela(v[4].abs())
        } else {
            LightSize::Meters(v[4].abs())
        };
        Some((color, size))
    }
}

/// `750cd` (or `750CD`): the candela of an XP12 size.
fn parse_candela(t: &str) -> Option<f32> {
    let n = t.strip_suffix("cd").or_else(|| t.strip_suffix("CD"))?;
    n.parse::<f32>().ok().filter(|x| x.is_finite())
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
            "LIGHT_PARAM_DEF" | "BILLBOARD_HW" | "BILLBOARD_SW" | "SPILL_SW" | "SPILL_HW_DIR"
            | "SPILL_HW_FLA" => {}
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
        for (k, &(t, c)) in args[..5].iter().enumerate() {
            if let Some(cd) = parse_candela(t).filter(|_| k == 4) {
                parsed.push(LightArg::Candela(cd));
                continue;
            }
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
        let slot = if record.starts_with("SPILL") {
            &mut spec.spill
        } else {
            &mut spec.billboard
        };
        if slot.is_none() {
            if let Ok(args) = <[LightArg; 5]>::try_from(parsed) {
                *slot = Some(Billboard { args, line: n });
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
            Some(([0.5, 0.25, 1.0, 1.0], LightSize::Meters(3.0))),
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
            Some(([1.0, 0.0, 0.0, 1.0], LightSize::Meters(2.5)))
        );
        // `SPILL_GND` is not a look; an unknown light is not there.
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
        assert_eq!(t.look("e", &[]), Some(([1.0; 4], LightSize::Meters(2.0))));
        assert!(t.lights.get("c").is_none_or(|s| s.billboard.is_none()));
    }

    /// XP12's form, as in the sim's own file (XPlane2Blender's copy, `xp1200r6`).
    const XP12: &str = "A\n850\nLIGHT_SPECS\nTEXTURE 1000_lights_close.dds\n\
BILLBOARD_HW\ttaillight\t\t\t0.9\t\t0.05\t0\t\t1\t\t750cd\t\t1 6 6\t0\t\t0.5\t\t0.86\t-0.4\t0\t\t0\t\t0\t\t0\n\
SPILL_HW_DIR\ttaillight\t\t\t0.9\t\t0.05\t0\t\t0.8\t\t750cd\t\t\t\t0\t\t-0.5\t0.86\t0.7\t\t0\n\
LIGHT_PARAM_DEF\t\tairplane_landing_bb\t\t\t9\tR\tG\tB\tINDEX\tINTENSITY \t\t\tDX\tDY\tDZ\tWIDTH\n\
BILLBOARD_SW\t\tairplane_landing_bb\t\t\t\tR\tG\tB\tINDEX\tINTENSITY\t1 6 5\tDX\tDY\tDZ\tWIDTH\t\tsim/x\n\
LIGHT_PARAM_DEF\t\tairplane_landing_pm\t\t\t9\tR\tG\tB\tINDEX\tINTENSITY \t\t\tDX\tDY\tDZ\tWIDTH\n\
SPILL_SW\t\t\tairplane_landing_pm\t\t\t\tR\tG\tB\tINDEX\tINTENSITY\t\t\tDX\tDY\tDZ\tWIDTH\t\tsim/x\n";

    #[test]
    fn reads_the_xp12_form_candela_and_parameter_lights() {
        let (r, w) = p(XP12);
        let t = r.unwrap();
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(
            t.look("taillight", &[]),
            Some(([0.9, 0.05, 0.0, 1.0], LightSize::Candela(750.0))),
            "the billboard, its size in candela"
        );
        // INDEX is no dimmer; INTENSITY is candela, from LIGHT_PARAM's values.
        let values: Vec<String> = ["1", "0.9", "0.8", "3", "40000", "0", "0", "1", "0.5"]
            .map(String::from)
            .to_vec();
        assert_eq!(
            t.look("airplane_landing_bb", &values),
            Some(([1.0, 0.9, 0.8, 1.0], LightSize::Candela(40000.0)))
        );
        // The `_pm` light has only a spill: its look.
        assert_eq!(
            t.look("airplane_landing_pm", &values),
            Some(([1.0, 0.9, 0.8, 1.0], LightSize::Candela(40000.0)))
        );
        // A cd value given as a parameter's value.
        let mut cd = values.clone();
        cd[4] = "900cd".into();
        assert_eq!(
            t.look("airplane_landing_bb", &cd).map(|l| l.1),
            Some(LightSize::Candela(900.0))
        );
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
