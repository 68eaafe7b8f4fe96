//! Edge tiles: each side's free stretch filled with spellings by the best fit (see
//! [`super::spell`]), tiles sliding past stop points, and the caps at the sides' ends.

use super::*;

impl Placer<'_> {
    #[allow(clippy::too_many_arguments)]
    fn edge_tile(
        &self,
        tile: usize,
        side: &Side<'_>,
        s0: f32,
        (a, b, s1): (P2, P2, f32),
        contour: usize,
        side_index: usize,
        unit: usize,
        shared: bool,
    ) -> Placed {
        let frame = Frame::along(a, b);
        let size = self.t.size[tile];
        Placed {
            tile,
            frame,
            size,
            allowance: allowance_of(&frame, size, side.points_between(s0, s1)),
            role: TileRole::Edge,
            contour,
            side: side_index,
            unit,
            atomic: None,
            shared,
        }
    }

    /// Fills `[a, b]` (arc lengths) of a side with spellings by the best fit (see
    /// [`spell`]). Returns the last edge tile placed (index into `placed`) with the arc
    /// lengths it spans.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn fill_side(
        &mut self,
        rules: &StringRules,
        contour: usize,
        side_index: usize,
        side: &Side<'_>,
        a: f32,
        b: f32,
        rng: &mut Rng,
    ) -> Option<(usize, f32, f32)> {
        let t = self.t;
        if b - a <= FIT_TOLERANCE || t.spells.is_empty() {
            return None;
        }
        let mut scratch = std::mem::take(&mut self.scratch);
        let Scratch {
            excluded,
            plan,
            chords,
            tries,
        } = &mut scratch;
        plan.build(&t.spells, &t.masks, t.quantum, b - a, |r| {
            side.segment_len(side.segment_at(b - r))
        });
        let mut pos = a;
        // The last tile placed on the side (index in file order).
        let mut prev: Option<usize> = None;
        let mut last = None;
        // Spellings refused at `pos`: `true` when an atomic one could not be placed whole.
        excluded.clear();
        for _ in 0..MAX_STEPS_PER_SIDE {
            if self.full {
                break;
            }
            let rem = b - pos;
            if rem <= FIT_TOLERANCE {
                break;
            }
            let seg = side.segment_len(side.segment_at(pos));
            let prev_id = prev.map(|i| self.ag.tiles[i].id);
            let r = plan.quanta(rem);
            let allowed = |sp: &Spelling| {
                if sp.len > rem + FIT_TOLERANCE || excluded.iter().any(|&(i, _)| i == sp.index) {
                    return false;
                }
                match &rules.spellings[sp.index].atomic {
                    Some(at) => {
                        within(Some(at.length), seg)
                            && (at.group == 0
                                || prev_id.is_none_or(|id| rules.in_group(at.group, id)))
                    }
                    None => true,
                }
            };
            let Some(k) = spell::pick(plan, &t.spells, r, allowed, rng) else {
                if excluded.iter().any(|&(_, atomic)| atomic) {
                    // Only atomic spellings fit here and none can be placed whole: the side
                    // goes on a little further.
                    pos += SKIP_STEP.max(plan.q.min(1.0));
                    excluded.clear();
                    continue;
                }
                break;
            };
            let si = t.spells[k].index;
            let Some((tiles, _)) = t.spelling(si) else {
                break;
            };
            // The chords of the spelling's tiles from `from` (they take more arc across
            // bends than the tiles' widths).
            let walk = |from: f32, out: &mut Vec<(P2, P2, f32)>| {
                out.clear();
                let mut s = from;
                for &ti in tiles {
                    let c = side.chord(s, t.size[ti][0]);
                    s = c.2;
                    out.push(c);
                }
            };
            walk(pos, chords);
            let end = chords.last().map_or(pos, |c| c.2);
            if end > b + FIT_TOLERANCE {
                excluded.push((si, false));
                continue;
            }
            if rules.spellings[si].atomic.is_some() {
                let unit = self.units;
                let shared = rules.share_y;
                let mut ok = false;
                let mut slide = 0.0f32;
                for k in 0..=MAX_SLIDES {
                    let from = pos + slide;
                    if k > 0 {
                        walk(from, chords);
                    }
                    if chords.last().is_some_and(|c| c.2 > b + FIT_TOLERANCE) {
                        break;
                    }
                    let mut s = from;
                    tries.clear();
                    for (&ti, &c) in tiles.iter().zip(chords.iter()) {
                        tries.push(
                            self.edge_tile(ti, side, s, c, contour, side_index, unit, shared),
                        );
                        s = c.2;
                    }
                    let mut verdict = Check::Fits;
                    for p in tries.iter() {
                        verdict = verdict.and(self.check(p));
                        if verdict == Check::Blocked {
                            break;
                        }
                    }
                    if verdict == Check::Fits {
                        let id = self.atomics;
                        self.atomics += 1;
                        self.units += 1;
                        let mut s = from;
                        for (p, c) in tries.iter().zip(chords.iter()) {
                            last = Some((self.placed.len(), s, c.2));
                            s = c.2;
                            self.commit(Placed {
                                atomic: Some(id),
                                ..*p
                            });
                        }
                        prev = tiles.last().copied();
                        pos = s;
                        ok = true;
                        break;
                    }
                    match verdict.slide() {
                        Some(d) => slide += d,
                        None => break,
                    }
                }
                if ok {
                    excluded.clear();
                } else {
                    // Discarded for this place; the other spellings are tried here.
                    excluded.push((si, true));
                }
                continue;
            }
            excluded.clear();
            let mut cursor = pos;
            for (k, &ti) in tiles.iter().enumerate() {
                let rest: f32 = tiles[k + 1..].iter().map(|&i| t.size[i][0]).sum();
                let w = t.size[ti][0];
                let mut skip_to = cursor + w;
                let mut placed = false;
                let mut slide = 0.0f32;
                // The slide of the last try whose own stop point was outside.
                let mut out_at: Option<f32> = None;
                for step in 0..=MAX_SLIDES {
                    let s = cursor + slide;
                    let c = side.chord(s, w);
                    if step == 0 {
                        skip_to = c.2;
                    }
                    if c.2 + rest > b + FIT_TOLERANCE {
                        break;
                    }
                    let unit = self.units;
                    let mut p = self.edge_tile(ti, side, s, c, contour, side_index, unit, false);
                    let verdict = self.check(&p);
                    if verdict == Check::Fits {
                        let (mut s, mut c) = (s, c);
                        if let Some(lo) = out_at.filter(|lo| slide - lo <= SLIDE_STEP + 1e-4) {
                            // Moved just far enough to bring its stop points inside: halve
                            // the last step back to within 2 cm of where they come in.
                            let (mut lo, mut hi) = (lo, slide);
                            for _ in 0..4 {
                                let mid = (lo + hi) * 0.5;
                                let cm = side.chord(cursor + mid, w);
                                let q = self.edge_tile(
                                    ti,
                                    side,
                                    cursor + mid,
                                    cm,
                                    contour,
                                    side_index,
                                    unit,
                                    false,
                                );
                                if self.check(&q) == Check::Fits {
                                    (hi, s, c, p) = (mid, cursor + mid, cm, q);
                                } else {
                                    lo = mid;
                                }
                            }
                        }
                        last = Some((self.placed.len(), s, c.2));
                        self.commit(p);
                        self.units += 1;
                        prev = Some(ti);
                        cursor = c.2;
                        placed = true;
                        break;
                    }
                    if verdict == Check::StopOut {
                        out_at = Some(slide);
                    }
                    match verdict.slide() {
                        Some(d) => slide += d,
                        None => break,
                    }
                }
                if !placed {
                    cursor = skip_to;
                }
            }
            pos = cursor.max(pos + MIN_SPELLING);
        }
        self.scratch = scratch;
        last
    }

    /// Puts a cap over the end of the last edge tile of a side; returns that end (`None`
    /// when that tile was never kept: the tile limit was reached as it was placed).
    pub(super) fn cap(
        &mut self,
        last: usize,
        side: &Side<'_>,
        s0: f32,
        s1: f32,
        rng: &mut Rng,
    ) -> Option<P2> {
        let prev = *self.placed.get(last)?;
        let end = prev.frame.to_world([prev.size[0], 0.0]);
        let mut order = std::mem::take(&mut self.rule_order);
        order.clear();
        order.extend((0..self.t.caps.len()).map(|i| (i, 0)));
        spell::tier_order(&mut order, rng);
        for &(ci, _) in &order {
            let tile = self.t.caps[ci];
            let size = self.t.size[tile];
            let frame = Frame {
                origin: geom::sub(end, geom::scale(prev.frame.u, size[0])),
                u: prev.frame.u,
                v: prev.frame.v,
            };
            let p = Placed {
                tile,
                frame,
                size,
                allowance: allowance_of(&frame, size, side.points_between(s0, s1)),
                role: TileRole::Cap,
                contour: prev.contour,
                side: prev.side,
                unit: self.units,
                atomic: None,
                shared: false,
            };
            if self.fits(&p) {
                self.commit(p);
                self.units += 1;
                break;
            }
        }
        self.rule_order = order;
        Some(end)
    }
}
