//! `--script FILE` (a hidden test hook): timed input events that drive the window as the
//! keyboard and mouse do, one a line:
//!
//! ```text
//! # a comment
//! wait 200                 # at least 200 ms
//! key P                    # a key: a letter, a digit, Delete, Backspace, Enter, Escape,
//! key ctrl+z               #   Tab, Space, F1..F12; with ctrl+, shift+, alt+ (cmd+ = ctrl+)
//! click 640,360            # the left button at window pixel X,Y
//! click shift+640,360      # with Shift (ctrl+, alt+ too)
//! drag 600,300 700,340     # press at one point, move to the other in 8 steps, release
//! drag 600,300 700,340 20  # … in 20 steps
//! shot after.png           # a screenshot (with the panel under --screenshot-panel)
//! quit                     # close the window, as its close button does
//! ```
//!
//! Every event waits until the layout in flight (if any) is on screen, so a script sees the
//! outcome of the edit before it. Events run once the scene is first on screen.

use std::path::Path;

use winit::keyboard::{KeyCode, ModifiersState};

/// One scripted event.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    Wait(u64),
    Key(ModifiersState, KeyCode),
    Click(ModifiersState, (f64, f64)),
    Drag(ModifiersState, (f64, f64), (f64, f64), u32),
    Shot(std::path::PathBuf),
    Quit,
}

/// Reads a script; errors read `path:line: error: …`.
pub fn read(path: &Path) -> Result<Vec<Event>, String> {
    let text =
        std::fs::read_to_string(path).map_err(|e| format!("{}: error: {e}", path.display()))?;
    parse(&text).map_err(|(line, m)| format!("{}:{line}: error: {m}", path.display()))
}

/// Parses a script's text; an error names its 1-based line.
pub fn parse(text: &str) -> Result<Vec<Event>, (usize, String)> {
    let mut out = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let err = |m: String| (n + 1, m);
        let mut words = line.split_whitespace();
        let verb = words.next().unwrap_or("").to_ascii_lowercase();
        let rest: Vec<&str> = words.collect();
        let ev = match (verb.as_str(), rest.as_slice()) {
            ("wait", [ms]) => Event::Wait(
                ms.parse()
                    .map_err(|_| err(format!("wait `{ms}`: milliseconds expected")))?,
            ),
            ("key", [k]) => {
                let (mods, name) = modifiers(k);
                Event::Key(mods, key_code(name).ok_or_else(|| err(format!("no key `{name}`")))?)
            }
            ("click", [at]) => {
                let (mods, at) = modifiers(at);
                Event::Click(mods, point(at).map_err(err)?)
            }
            ("drag", [a, b, steps @ ..]) if steps.len() <= 1 => {
                let (mods, a) = modifiers(a);
                let steps = match steps.first() {
                    Some(s) => s
                        .parse::<u32>()
                        .ok()
                        .filter(|&s| s > 0)
                        .ok_or_else(|| err(format!("drag steps `{s}`: a positive number")))?,
                    None => 8,
                };
                Event::Drag(mods, point(a).map_err(err)?, point(b).map_err(err)?, steps)
            }
            ("quit", []) => Event::Quit,
            ("shot", [file]) => Event::Shot(std::path::PathBuf::from(file)),
            _ => {
                return Err(err(format!(
                    "`{line}`: expected wait MS, key KEY, click X,Y, drag X,Y X,Y [STEPS], shot FILE or quit"
                )))
            }
        };
        out.push(ev);
    }
    Ok(out)
}

/// `ctrl+shift+X` → the modifiers and `X`.
fn modifiers(s: &str) -> (ModifiersState, &str) {
    let mut mods = ModifiersState::empty();
    let mut rest = s;
    loop {
        let lower = rest.to_ascii_lowercase();
        let (m, len) = if lower.starts_with("ctrl+") {
            (ModifiersState::CONTROL, 5)
        } else if lower.starts_with("cmd+") {
            (ModifiersState::CONTROL, 4)
        } else if lower.starts_with("shift+") {
            (ModifiersState::SHIFT, 6)
        } else if lower.starts_with("alt+") {
            (ModifiersState::ALT, 4)
        } else {
            return (mods, rest);
        };
        mods |= m;
        rest = &rest[len..];
    }
}

fn point(s: &str) -> Result<(f64, f64), String> {
    let (x, y) = s
        .split_once(',')
        .ok_or_else(|| format!("`{s}`: expected X,Y in window pixels"))?;
    let n = |v: &str| {
        v.trim()
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| format!("`{s}`: expected X,Y in window pixels"))
    };
    Ok((n(x)?, n(y)?))
}

fn key_code(name: &str) -> Option<KeyCode> {
    use KeyCode as K;
    let up = name.to_ascii_uppercase();
    const LETTERS: [K; 26] = [
        K::KeyA,
        K::KeyB,
        K::KeyC,
        K::KeyD,
        K::KeyE,
        K::KeyF,
        K::KeyG,
        K::KeyH,
        K::KeyI,
        K::KeyJ,
        K::KeyK,
        K::KeyL,
        K::KeyM,
        K::KeyN,
        K::KeyO,
        K::KeyP,
        K::KeyQ,
        K::KeyR,
        K::KeyS,
        K::KeyT,
        K::KeyU,
        K::KeyV,
        K::KeyW,
        K::KeyX,
        K::KeyY,
        K::KeyZ,
    ];
    const DIGITS: [K; 10] = [
        K::Digit0,
        K::Digit1,
        K::Digit2,
        K::Digit3,
        K::Digit4,
        K::Digit5,
        K::Digit6,
        K::Digit7,
        K::Digit8,
        K::Digit9,
    ];
    const F: [K; 12] = [
        K::F1,
        K::F2,
        K::F3,
        K::F4,
        K::F5,
        K::F6,
        K::F7,
        K::F8,
        K::F9,
        K::F10,
        K::F11,
        K::F12,
    ];
    let b = up.as_bytes();
    if b.len() == 1 && b[0].is_ascii_uppercase() {
        return Some(LETTERS[usize::from(b[0] - b'A')]);
    }
    if b.len() == 1 && b[0].is_ascii_digit() {
        return Some(DIGITS[usize::from(b[0] - b'0')]);
    }
    if let Some(n) = up.strip_prefix('F').and_then(|n| n.parse::<usize>().ok()) {
        return F.get(n.checked_sub(1)?).copied();
    }
    Some(match up.as_str() {
        "DELETE" => K::Delete,
        "BACKSPACE" => K::Backspace,
        "ENTER" | "RETURN" => K::Enter,
        "ESCAPE" | "ESC" => K::Escape,
        "TAB" => K::Tab,
        "SPACE" => K::Space,
        _ => return None,
    })
}

impl crate::app::viewer::App {
    /// Runs the script's events that are due: one at a time, each once the layout in
    /// flight is on screen.
    pub(in crate::app::viewer) fn run_script(&mut self) {
        if self.script_at >= self.script.len() || self.loading || self.quit_asked {
            return;
        }
        if let Some(t) = self.script_wait {
            if std::time::Instant::now() < t {
                self.request_redraw();
                return;
            }
            self.script_wait = None;
        }
        let ev = self.script[self.script_at].clone();
        self.script_at += 1;
        eprintln!("script: {ev:?}");
        let saved = self.mods;
        match ev {
            Event::Wait(ms) => {
                self.script_wait =
                    Some(std::time::Instant::now() + std::time::Duration::from_millis(ms));
            }
            Event::Key(m, code) => {
                self.mods = m;
                self.key(code, true, false, false);
                self.key(code, false, false, false);
            }
            Event::Click(m, at) => {
                self.mods = m;
                self.cursor = Some(at);
                self.pointer_button(winit::event::MouseButton::Left, true, true);
                self.pointer_button(winit::event::MouseButton::Left, false, true);
            }
            Event::Drag(m, a, b, steps) => {
                self.mods = m;
                self.cursor = Some(a);
                self.pointer_button(winit::event::MouseButton::Left, true, true);
                for i in 1..=steps {
                    let f = f64::from(i) / f64::from(steps);
                    self.pointer_moved((a.0 + (b.0 - a.0) * f, a.1 + (b.1 - a.1) * f));
                }
                self.pointer_button(winit::event::MouseButton::Left, false, true);
            }
            Event::Shot(path) => self.write_shot(&path),
            Event::Quit => {
                if self.close_requested() {
                    self.quit_now = true;
                }
            }
        }
        self.mods = saved;
        self.request_redraw();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_script_reads_line_by_line_and_bad_lines_name_themselves() {
        let s = "# test\nwait 100\nkey P\nkey ctrl+shift+z\nclick shift+10,20\n\
                 drag 1,2 3.5,4 3  # slow\nshot a.png\nquit\n";
        let ev = parse(s).unwrap();
        assert_eq!(
            ev,
            vec![
                Event::Wait(100),
                Event::Key(ModifiersState::empty(), KeyCode::KeyP),
                Event::Key(
                    ModifiersState::CONTROL | ModifiersState::SHIFT,
                    KeyCode::KeyZ
                ),
                Event::Click(ModifiersState::SHIFT, (10.0, 20.0)),
                Event::Drag(ModifiersState::empty(), (1.0, 2.0), (3.5, 4.0), 3),
                Event::Shot("a.png".into()),
                Event::Quit,
            ]
        );
        assert_eq!(parse("wait\n").unwrap_err().0, 1);
        assert_eq!(parse("\nkey Nope\n").unwrap_err().0, 2);
        assert!(parse("click 1;2").is_err());
        assert_eq!(
            parse("key F12").unwrap()[0],
            Event::Key(ModifiersState::empty(), KeyCode::F12)
        );
        assert_eq!(
            parse("key delete").unwrap()[0],
            Event::Key(ModifiersState::empty(), KeyCode::Delete)
        );
    }
}
