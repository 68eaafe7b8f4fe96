//! What the window does after each frame for its test hooks and batch uses: the startup
//! screenshot, `--frames`, `--click`, `--exit-after-reloads`.

use winit::event_loop::ActiveEventLoop;

use super::App;

impl App {
    /// Whether the screenshot hooks still need frames.
    pub(super) fn wants_frames(&self) -> bool {
        (self.args.presented_frame.is_some() && !self.presented_taken)
            || (self.args.screenshot.is_some() && !self.shot_taken)
            || self.reload_to_report.is_some()
            || self.exit_pending
            || self.script.active()
            || self.edit_shown.is_some()
            || self.quit_now
    }

    /// Timing lines and the test hooks, after a frame was presented.
    pub(super) fn after_frame(&mut self, event_loop: &ActiveEventLoop) {
        // `--lose-device-after`: a destroyed device reports its loss on a later poll, which
        // nothing else may make on a loaded machine; poll it each frame until it has.
        if self.device_destroyed == Some(self.device_generation)
            && !self.device_was_lost(event_loop)
        {
            self.request_redraw();
        }
        if self.shown.is_none() {
            if !self.first_frame_reported && self.error.is_some() {
                self.first_frame_reported = true;
                eprintln!(
                    "first frame after {} ms (no scene: the asset did not load)",
                    self.launch.elapsed().as_millis()
                );
            }
        } else if self.partial {
            // A preview: the first frame is reported, but screenshots wait for the whole.
            if !self.first_frame_reported {
                self.first_frame_reported = true;
                eprintln!(
                    "first frame after {} ms (a preview)",
                    self.launch.elapsed().as_millis()
                );
            }
        } else {
            self.frames_with_scene += 1;
            if self.frames_with_scene == 1 {
                if let Some(at) = self.args.click {
                    self.pick(at, false);
                }
            }
            if self
                .args
                .lose_device_after
                .is_some_and(|n| self.frames_with_scene >= n && self.device_destroyed.is_none())
            {
                self.device_destroyed = Some(self.device_generation);
                if let Some(g) = &mut self.gfx {
                    // No other thread uses the device as it is destroyed: wgpu-core 30's
                    // device loss takes its locks in the order opposite to a texture write
                    // on another thread (gfx-rs/wgpu#5737), and the warm-up draw, still
                    // running on a busy machine, hung the hook 1 time in 40 there.
                    if let Some(t) = self.warm_up.take() {
                        let _ = t.join();
                    }
                    g.refine.finish_building();
                    eprintln!("agview: test hook: destroying the GPU device");
                    g.gpu.ctx.device.destroy();
                    let _ = g.gpu.ctx.device.poll(wgpu::PollType::Poll);
                }
            }
            if !self.first_frame_reported {
                self.first_frame_reported = true;
                eprintln!("first frame after {} ms", self.launch.elapsed().as_millis());
            }
            // The first frame with every feature drawn, after a preview or not; on a CPU
            // adapter 1×, and the 4× one (`refine`) said when it comes.
            let refine = self.gfx.as_mut().map(|g| &mut g.refine);
            let drafted = refine.as_ref().is_some_and(|r| r.drafted);
            if !self.full_frame_reported {
                self.full_frame_reported = true;
                eprintln!(
                    "first full frame after {} ms{}",
                    self.launch.elapsed().as_millis(),
                    if drafted { " (1× while loading)" } else { "" }
                );
                if let Some(r) = refine {
                    r.aa_to_report = drafted;
                }
            } else if let Some(r) = refine.filter(|r| r.aa_to_report && !drafted) {
                r.aa_to_report = false;
                eprintln!(
                    "first 4× frame after {} ms (antialiased once still)",
                    self.launch.elapsed().as_millis()
                );
            }
        }
        if let Some((k, t, ok)) = self.reload_to_report.take() {
            if let Some(t) = t {
                let ms = t.elapsed().as_secs_f64() * 1e3;
                if ok {
                    eprintln!(
                        "reloaded {} in {ms:.0} ms (file change to frame)",
                        self.args.asset.display()
                    );
                } else {
                    eprintln!("reload failed after {ms:.0} ms (file change to frame); the last good scene stays");
                }
            }
            if let Some(shot) = self.args.screenshot.clone() {
                let stem = shot
                    .file_stem()
                    .map(|s| s.to_string_lossy().to_string())
                    .unwrap_or_else(|| "shot".into());
                let path = shot.with_file_name(format!("{stem}-reload{k}.png"));
                self.write_shot(&path);
            }
            if self.args.exit_after_reloads.is_some_and(|n| k >= n) {
                self.exit_pending = true;
            }
        }
        if let Some(shot) = self.args.screenshot.clone() {
            if !self.shot_taken
                && self.shown.is_some()
                && self.frames_with_scene >= self.args.frames
            {
                self.shot_taken = true;
                self.write_shot(&shot);
                if self.args.exit_after_reloads.is_none() {
                    event_loop.exit();
                }
                self.press_keys();
            }
        }
        // The reload hook ends the program once the first screenshot is written too.
        if self.exit_pending && (self.args.screenshot.is_none() || self.shot_taken) {
            event_loop.exit();
        }
        self.edit_after_frame();
        if !self.partial && self.shown.is_some() {
            self.run_script();
        }
        if self.fatal.is_some() || self.quit_now {
            event_loop.exit();
        }
    }

    /// `--press KEYS`: acts on each key as the keyboard does; the layouts they cause are
    /// reported as reloads.
    fn press_keys(&mut self) {
        let Some(keys) = self.args.press.take() else {
            return;
        };
        for k in keys.chars() {
            let action = match k.to_ascii_uppercase() {
                'N' => crate::app::panel::Action::NextSeason,
                'R' => crate::app::panel::Action::Reroll,
                other => {
                    eprintln!("agview: warning: --press: no key `{other}` (N or R)");
                    continue;
                }
            };
            self.pressed = true;
            self.act(action);
        }
    }
}
