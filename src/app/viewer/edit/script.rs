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
//! click "Cancel"           # the middle of the widget labelled Cancel (waits for it)
//! expect "not saved"       # waits until a widget's text contains this
//! drag 600,300 700,340     # press at one point, move to the other in 8 steps, release
//! drag 600,300 700,340 20  # … in 20 steps
//! shot after.png           # a screenshot (with the panel under --screenshot-panel)
//! dragshot 600,300 700,340 drag.png  # a drag in 8 steps; its last frame before the
//!                          #   release, read back as the window presented it (the drag
//!                          #   preview when one is drawn, with the panel), goes to drag.png
//! quit                     # close the window, as its close button does
//! ```
//!
//! Every event waits until the layout in flight (if any) is on screen, so a script sees the
//! outcome of the edit before it. Events run once the scene is first on screen.
//!
//! The pointer takes the path real input takes: each event becomes steps, one a frame (the
//! pointer moves, then the button goes down, then up), and each step goes both to egui, as
//! the frame's input events, and to the window's own handlers, which see the pointer as
//! over the panel or not just as a real button would. So a scripted click presses a dialog's
//! button, and one over the panel does not reach the 3D view. The widgets a script names
//! are found by their text in egui's accessibility tree of the last frame.

use std::collections::VecDeque;
use std::path::Path;
use std::time::{Duration, Instant};

use winit::event::MouseButton;
use winit::keyboard::{KeyCode, ModifiersState};

/// One scripted event.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    Wait(u64),
    Key(ModifiersState, KeyCode),
    Click(ModifiersState, (f64, f64)),
    /// A click on the middle of the widget with this text (waits until one is on screen).
    ClickLabel(String),
    /// Waits until a widget's text contains this.
    Expect(String),
    Drag(ModifiersState, (f64, f64), (f64, f64), u32),
    Shot(std::path::PathBuf),
    /// A drag in [`DRAG_STEPS`] steps whose last frame before the release is read back as
    /// presented into the file.
    DragShot(ModifiersState, (f64, f64), (f64, f64), std::path::PathBuf),
    Quit,
}

/// The steps of a drag when the script gives none.
const DRAG_STEPS: u32 = 8;

/// How long `click "LABEL"` and `expect "TEXT"` wait for their widget.
const WIDGET_WAIT: Duration = Duration::from_secs(60);

/// Reads a script; errors read `path:line: error: …`.
pub fn read(path: &Path) -> Result<Vec<Event>, String> {
    let text =
        std::fs::read_to_string(path).map_err(|e| format!("{}: error: {e}", path.display()))?;
    parse(&text).map_err(|(line, m)| format!("{}:{line}: error: {m}", path.display()))
}

/// A `"quoted text"` argument (no escapes: the text ends at the next quote).
fn quoted(rest: &str) -> Option<&str> {
    let rest = rest.trim().strip_prefix('"')?;
    let (text, after) = rest.split_once('"')?;
    let after = after.trim();
    (after.is_empty() || after.starts_with('#')).then_some(text)
}

/// Parses a script's text; an error names its 1-based line.
pub fn parse(text: &str) -> Result<Vec<Event>, (usize, String)> {
    let mut out = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let err = |m: String| (n + 1, m);
        // A quoted text may hold `#`: a label is read before comments are cut.
        let trimmed = raw.trim();
        let (verb, after) = trimmed
            .split_once(char::is_whitespace)
            .unwrap_or((trimmed, ""));
        let verb_lc = verb.to_ascii_lowercase();
        if after.trim_start().starts_with('"') && matches!(verb_lc.as_str(), "click" | "expect") {
            let text = quoted(after)
                .filter(|t| !t.is_empty())
                .ok_or_else(|| err(format!("`{trimmed}`: expected {verb_lc} \"TEXT\"")))?;
            out.push(if verb_lc == "click" {
                Event::ClickLabel(text.to_string())
            } else {
                Event::Expect(text.to_string())
            });
            continue;
        }
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
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
                    None => DRAG_STEPS,
                };
                Event::Drag(mods, point(a).map_err(err)?, point(b).map_err(err)?, steps)
            }
            ("dragshot", [a, b, file]) => {
                let (mods, a) = modifiers(a);
                let (a, b) = (point(a).map_err(err)?, point(b).map_err(err)?);
                Event::DragShot(mods, a, b, std::path::PathBuf::from(file))
            }
            ("quit", []) => Event::Quit,
            ("shot", [file]) => Event::Shot(std::path::PathBuf::from(file)),
            _ => {
                return Err(err(format!(
                    "`{line}`: expected wait MS, key KEY, click X,Y, click \"LABEL\", expect \"TEXT\", \
                     drag X,Y X,Y [STEPS], dragshot X,Y X,Y FILE, shot FILE or quit"
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

/// One frame's part of a scripted event.
#[derive(Debug, Clone, PartialEq)]
enum Step {
    /// The pointer moves to a window pixel.
    Move((f64, f64)),
    /// The left button goes down, or up; a click does both in one frame (egui takes a
    /// press and release in one frame as a click, however slow the frames are).
    Down,
    Up,
    Click,
    /// The next frame, as presented, is read back into this file.
    Present(std::path::PathBuf),
    /// Nothing: a frame for what the click asked for to happen (egui reports a button's
    /// click in the frame after the one that took the press) before the next event looks.
    Settle,
}

/// A widget on screen, as egui's accessibility tree of the last frame gives it.
#[derive(Debug, Clone)]
pub struct Widget {
    /// Its label, else its value (a label widget's text), else the labels naming it.
    pub text: String,
    /// In points.
    pub rect: egui::Rect,
    pub disabled: bool,
}

/// A running script.
#[derive(Default)]
pub struct Runner {
    events: Vec<Event>,
    next: usize,
    /// The end of a `wait`.
    wait_until: Option<Instant>,
    /// How long a widget is waited for.
    widget_deadline: Option<Instant>,
    /// The event under way, one step a frame, with its modifiers.
    steps: VecDeque<Step>,
    mods: ModifiersState,
    /// Pointer events for egui's next frame, in points.
    egui_events: Vec<egui::Event>,
    /// The last frame's widgets (recorded while a script runs).
    widgets: Vec<Widget>,
    /// `dragshot`: the frame being drawn is read back into this file.
    present: Option<std::path::PathBuf>,
}

impl Runner {
    pub fn new(events: Vec<Event>) -> Self {
        Runner {
            events,
            ..Runner::default()
        }
    }

    /// Whether events or steps are left.
    pub fn active(&self) -> bool {
        self.next < self.events.len() || !self.steps.is_empty()
    }

    /// Where the frame about to be drawn goes, read back as presented (`dragshot`); taken.
    pub fn take_present(&mut self) -> Option<std::path::PathBuf> {
        self.present.take()
    }

    /// Adds the script's pointer events to egui's input of this frame.
    pub fn feed_egui(&mut self, raw: &mut egui::RawInput) {
        if self.egui_events.is_empty() {
            return;
        }
        raw.events
            .push(egui::Event::ModifiersChanged(egui_modifiers(self.mods)));
        raw.events.append(&mut self.egui_events);
    }

    /// Keeps the frame's widgets (egui's accessibility tree) for `click "LABEL"`.
    pub fn record(&mut self, update: &egui::accesskit::TreeUpdate) {
        let text_of = |n: &egui::accesskit::Node| {
            n.label()
                .or_else(|| n.value())
                .map(str::to_string)
                .filter(|t| !t.is_empty())
        };
        let by_id: std::collections::HashMap<_, _> =
            update.nodes.iter().map(|(id, n)| (*id, n)).collect();
        self.widgets = update
            .nodes
            .iter()
            .filter_map(|(_, n)| {
                let b = n.bounds()?;
                let text = text_of(n).or_else(|| {
                    let names: Vec<String> = n
                        .labelled_by()
                        .iter()
                        .filter_map(|id| text_of(by_id.get(id)?))
                        .collect();
                    (!names.is_empty()).then(|| names.join(" "))
                })?;
                Some(Widget {
                    text,
                    rect: egui::Rect::from_min_max(
                        egui::pos2(b.x0 as f32, b.y0 as f32),
                        egui::pos2(b.x1 as f32, b.y1 as f32),
                    ),
                    disabled: n.is_disabled(),
                })
            })
            .collect();
    }

    /// The enabled widget whose text is `label`; of several, the one nearest the top left
    /// (the tree does not say which is drawn on top), with a warning.
    fn find(&self, label: &str) -> Option<&Widget> {
        let mut all: Vec<&Widget> = self
            .widgets
            .iter()
            .filter(|w| w.text.trim() == label && !w.disabled)
            .collect();
        all.sort_by(|a, b| {
            (a.rect.min.y, a.rect.min.x)
                .partial_cmp(&(b.rect.min.y, b.rect.min.x))
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        all.dedup_by(|a, b| a.rect == b.rect);
        if all.len() > 1 {
            eprintln!(
                "agview: warning: --script: {} widgets are labelled `{label}`; pressing the first",
                all.len()
            );
        }
        all.first().copied()
    }

    /// The texts on screen, for a message.
    fn on_screen(&self) -> String {
        let mut t: Vec<&str> = self.widgets.iter().map(|w| w.text.as_str()).collect();
        t.dedup();
        t.join(" | ")
    }
}

/// A drag's steps from `a` to `b`: press, `steps` moves, (`shot`: the frame after the last
/// move read back while the button is still down), release.
fn drag_steps(
    a: (f64, f64),
    b: (f64, f64),
    steps: u32,
    shot: Option<std::path::PathBuf>,
) -> VecDeque<Step> {
    let mut s: VecDeque<Step> = [Step::Move(a), Step::Down].into();
    for i in 1..=steps {
        let f = f64::from(i) / f64::from(steps);
        s.push_back(Step::Move((a.0 + (b.0 - a.0) * f, a.1 + (b.1 - a.1) * f)));
    }
    s.extend(shot.map(Step::Present));
    s.extend([Step::Up, Step::Settle]);
    s
}

/// winit's modifiers as egui's.
fn egui_modifiers(m: ModifiersState) -> egui::Modifiers {
    egui::Modifiers {
        alt: m.alt_key(),
        ctrl: m.control_key(),
        shift: m.shift_key(),
        mac_cmd: cfg!(target_os = "macos") && m.super_key(),
        command: if cfg!(target_os = "macos") {
            m.super_key()
        } else {
            m.control_key()
        },
    }
}

impl crate::app::viewer::App {
    /// Runs the script: the next step of the event under way, else the next event that is
    /// due (each once the layout in flight is on screen).
    pub(in crate::app::viewer) fn run_script(&mut self) {
        if let Some(step) = self.script.steps.pop_front() {
            self.script_step(step);
            self.request_redraw();
            return;
        }
        let r = &self.script;
        if r.next >= r.events.len() || self.loading {
            return;
        }
        let ev = r.events[r.next].clone();
        // Widgets are found in the accessibility tree, which egui builds only when asked.
        if matches!(ev, Event::ClickLabel(_) | Event::Expect(_)) {
            self.egui_ctx.enable_accesskit();
        }
        if let Some(t) = self.script.wait_until {
            if Instant::now() < t {
                self.request_redraw();
                return;
            }
            self.script.wait_until = None;
        }
        let mods = ModifiersState::empty();
        match &ev {
            Event::ClickLabel(label) | Event::Expect(label) => {
                let found = match &ev {
                    Event::ClickLabel(_) => self.script.find(label).map(|w| w.rect),
                    _ => self
                        .script
                        .widgets
                        .iter()
                        .find(|w| w.text.contains(label.as_str()))
                        .map(|w| w.rect),
                };
                let Some(rect) = found else {
                    let deadline = *self
                        .script
                        .widget_deadline
                        .get_or_insert_with(|| Instant::now() + WIDGET_WAIT);
                    if Instant::now() > deadline {
                        let m = format!(
                            "--script: no widget {} `{label}` came on screen within {} s \
                             (on screen: {})",
                            if matches!(ev, Event::ClickLabel(_)) {
                                "labelled"
                            } else {
                                "with the text"
                            },
                            WIDGET_WAIT.as_secs(),
                            self.script.on_screen()
                        );
                        eprintln!("agview: error: {m}");
                        self.fatal = Some(m);
                    }
                    self.request_redraw();
                    return;
                };
                self.script.widget_deadline = None;
                self.script.next += 1;
                eprintln!("script: {ev:?}");
                if let Event::ClickLabel(_) = ev {
                    let ppp = f64::from(self.egui_ctx.pixels_per_point());
                    let c = rect.center();
                    let at = (f64::from(c.x) * ppp, f64::from(c.y) * ppp);
                    self.script.mods = mods;
                    self.script.steps = [Step::Move(at), Step::Click, Step::Settle].into();
                } else {
                    eprintln!("script: found `{label}` on screen");
                }
            }
            _ => {
                self.script.next += 1;
                eprintln!("script: {ev:?}");
            }
        }
        match ev {
            Event::ClickLabel(_) | Event::Expect(_) => {}
            Event::Wait(ms) => {
                self.script.wait_until = Some(Instant::now() + Duration::from_millis(ms));
            }
            Event::Key(m, code) => {
                let saved = self.mods;
                self.mods = m;
                let egui_wants = self.egui_ctx.egui_wants_keyboard_input();
                self.key(code, true, false, egui_wants);
                self.key(code, false, false, egui_wants);
                self.mods = saved;
            }
            Event::Click(m, at) => {
                self.script.mods = m;
                self.script.steps = [Step::Move(at), Step::Click, Step::Settle].into();
            }
            Event::Drag(m, a, b, steps) => {
                self.script.mods = m;
                self.script.steps = drag_steps(a, b, steps, None);
            }
            Event::DragShot(m, a, b, path) => {
                self.script.mods = m;
                self.script.steps = drag_steps(a, b, DRAG_STEPS, Some(path));
            }
            Event::Shot(path) => self.write_shot(&path),
            Event::Quit => {
                if self.close_requested() {
                    self.quit_now = true;
                }
            }
        }
        self.request_redraw();
    }

    /// One step: to egui (next frame's input) and to the window's handlers, with the
    /// pointer over the panel or not as egui saw it last frame (as for a real button).
    fn script_step(&mut self, step: Step) {
        let ppp = self.egui_ctx.pixels_per_point();
        let saved = self.mods;
        self.mods = self.script.mods;
        let modifiers = egui_modifiers(self.script.mods);
        let panel = self.controls.show_panel || self.controls.edit;
        let free = !(panel
            && (self.egui_ctx.is_pointer_over_egui() || self.egui_ctx.egui_wants_pointer_input()));
        let at = self.cursor.unwrap_or((0.0, 0.0));
        let pos = egui::pos2(at.0 as f32 / ppp, at.1 as f32 / ppp);
        let button = |pressed| egui::Event::PointerButton {
            pos,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers,
        };
        match step {
            Step::Move(p) => {
                self.script
                    .egui_events
                    .push(egui::Event::PointerMoved(egui::pos2(
                        p.0 as f32 / ppp,
                        p.1 as f32 / ppp,
                    )));
                self.pointer_moved(p);
            }
            Step::Down => {
                self.script.egui_events.push(button(true));
                self.pointer_button(MouseButton::Left, true, free);
            }
            Step::Up => {
                self.script.egui_events.push(button(false));
                self.pointer_button(MouseButton::Left, false, free);
            }
            Step::Click => {
                self.script.egui_events.push(button(true));
                self.script.egui_events.push(button(false));
                self.pointer_button(MouseButton::Left, true, free);
                self.pointer_button(MouseButton::Left, false, free);
            }
            Step::Present(path) => self.script.present = Some(path),
            Step::Settle => {}
        }
        self.mods = saved;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_script_reads_line_by_line_and_bad_lines_name_themselves() {
        let s = "# test\nwait 100\nkey P\nkey ctrl+shift+z\nclick shift+10,20\n\
                 drag 1,2 3.5,4 3  # slow\nshot a.png\ndragshot ctrl+1,2 3,4 d.png\nquit\n";
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
                Event::DragShot(
                    ModifiersState::CONTROL,
                    (1.0, 2.0),
                    (3.0, 4.0),
                    "d.png".into()
                ),
                Event::Quit,
            ]
        );
        assert_eq!(
            parse("click \"Quit without saving\"  # the dialog\nexpect \"a #1\"\n").unwrap(),
            vec![
                Event::ClickLabel("Quit without saving".into()),
                Event::Expect("a #1".into())
            ]
        );
        assert_eq!(parse("\nclick \"open\n").unwrap_err().0, 2);
        assert_eq!(parse("expect \"\"").unwrap_err().0, 1);
        assert_eq!(parse("wait\n").unwrap_err().0, 1);
        assert_eq!(parse("\nkey Nope\n").unwrap_err().0, 2);
        assert!(parse("click 1;2").is_err());
        assert!(parse("dragshot 1,2 3,4").is_err(), "a file is needed");
        // The shot's frame is drawn after the last move, with the button still down.
        let s = drag_steps((0.0, 0.0), (2.0, 0.0), 2, Some("d.png".into()));
        assert_eq!(
            Vec::from(s),
            vec![
                Step::Move((0.0, 0.0)),
                Step::Down,
                Step::Move((1.0, 0.0)),
                Step::Move((2.0, 0.0)),
                Step::Present("d.png".into()),
                Step::Up,
                Step::Settle
            ]
        );
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
