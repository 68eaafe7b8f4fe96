//! Corner tiles: the frames of one- and three-tile corners, and the walk that tries the
//! corner rules tier by tier at the corners between two spawning edges.

use super::*;

impl Placer<'_> {
    /// The frames of a corner's tiles (one, or three articulated), or `None` when the
    /// three cannot be joined (a turn too close to 0 or 180 degrees).
    fn corner_frames(&self, c: &Corner, tiles: &[usize]) -> Option<([Frame; 3], usize)> {
        let frame = |origin: P2, u: P2| Frame {
            origin,
            u,
            v: left(u),
        };
        match tiles {
            [one] => {
                let w = self.t.size[*one][0];
                let origin = if c.turn < 0.0 {
                    geom::sub(c.pos, geom::scale(c.d_in, w))
                } else {
                    c.pos
                };
                let f = frame(origin, c.d_in);
                Some(([f; 3], 1))
            }
            [t0, t1, t2] => {
                let (d1, d2) = (c.d_in, c.d_out);
                let phi = geom::cross(d1, d2).atan2(geom::dot(d1, d2));
                let (s, co) = (phi * 0.5).sin_cos();
                let u = [d1, [d1[0] * co - d1[1] * s, d1[0] * s + d1[1] * co], d2];
                let mpp = self.t.mpp;
                let pivots = |i: usize| {
                    let r = self.ag.tiles[i].rect;
                    let tl = &self.ag.tiles[i];
                    let lead = tl.pivot_lead.unwrap_or([r[2], r[1]]);
                    let trail = tl.pivot_trail.unwrap_or([r[0], r[1]]);
                    let m = |p: P2| [(p[0] - r[0]) * mpp[0], (p[1] - r[1]) * mpp[1]];
                    (m(lead), m(trail))
                };
                let rot =
                    |u: P2, p: P2| geom::add(geom::scale(u, p[0]), geom::scale(left(u), p[1]));
                let (a0, _) = pivots(*t0);
                let (a1, b1) = pivots(*t1);
                let (_, b2) = pivots(*t2);
                let step01 = geom::sub(rot(u[0], a0), rot(u[1], b1));
                let step12 = geom::sub(rot(u[1], a1), rot(u[2], b2));
                let chain = geom::add(step01, step12);
                let den = geom::cross(d2, d1);
                if den.abs() < 1e-3 {
                    return None;
                }
                let s = -geom::cross(d2, chain) / den;
                let o0 = geom::add(c.pos, geom::scale(d1, s));
                let o1 = geom::add(o0, step01);
                let o2 = geom::add(o1, step12);
                Some(([frame(o0, u[0]), frame(o1, u[1]), frame(o2, u[2])], 3))
            }
            _ => None,
        }
    }

    /// Places one corner unit (one tile or an articulated three) at `c`; returns how many
    /// tiles it placed. An atomic unit is placed whole or not at all.
    #[allow(clippy::too_many_arguments)]
    fn corner_unit(
        &mut self,
        c: &Corner,
        tiles: &[usize],
        order: [u8; 3],
        atomic: bool,
        shared: bool,
        contour: usize,
        side: usize,
    ) -> usize {
        let Some((frames, count)) = self.corner_frames(c, tiles) else {
            return 0;
        };
        let seq: &[u8] = if count == 3 { &order } else { &[0] };
        let unit = self.units;
        let mut tries: [Option<Placed>; 3] = [None; 3];
        for (slot, &k) in tries.iter_mut().zip(seq) {
            let k = k as usize;
            let (Some(&tile), Some(&frame)) = (tiles.get(k), frames.get(k)) else {
                continue;
            };
            let size = self.t.size[tile];
            *slot = Some(Placed {
                tile,
                frame,
                size,
                allowance: allowance_of(&frame, size, &[c.pos]),
                role: TileRole::Corner,
                contour,
                side,
                unit,
                atomic: None,
                shared,
            });
        }
        let mut n = 0;
        if atomic {
            if !tries.iter().flatten().all(|p| self.fits(p)) {
                return 0;
            }
            let id = self.atomics;
            self.atomics += 1;
            for mut p in tries.into_iter().flatten() {
                p.atomic = Some(id);
                self.commit(p);
                n += 1;
            }
        } else {
            for p in tries.into_iter().flatten() {
                if self.fits(&p) {
                    self.commit(p);
                    n += 1;
                }
            }
        }
        if n > 0 {
            self.units += 1;
        }
        n
    }

    /// How far the tiles `from..` reach back along the arriving side and on along the
    /// leaving side of corner `c`.
    fn reach(&self, c: &Corner, from: usize) -> P2 {
        let mut r = [0.0f32; 2];
        for p in &self.placed[from..] {
            for q in p.quad() {
                let d = geom::sub(q, c.pos);
                r[0] = r[0].max(-geom::dot(d, c.d_in));
                r[1] = r[1].max(geom::dot(d, c.d_out));
            }
        }
        r
    }

    /// Walks the corners of one contour and places corner rules at those between two
    /// spawning edges (`side_of[k]`: the side starting at corner `k`, `None` where the edge
    /// leaving it, or the one arriving, does not spawn); returns each corner's reach (see
    /// [`Placer::reach`]) and the line of the rule placed there.
    pub(super) fn corners(
        &mut self,
        rules: &StringRules,
        contour: usize,
        corners: &[Corner],
        side_of: &[Option<usize>],
        rng: &mut Rng,
    ) -> Vec<(P2, Option<u32>)> {
        let t = self.t;
        let k = corners.len();
        let mut out = vec![([0.0f32; 2], None); k];
        let mut done = vec![false; k];
        // The tiles (a range of `placed`) of the previous corner placed on this contour.
        let mut prev: Option<(usize, usize)> = None;
        let mut applies = std::mem::take(&mut self.rule_order);
        for j in 0..k {
            if done[j] {
                continue;
            }
            done[j] = true;
            let Some(side) = side_of.get(j).copied().flatten() else {
                continue;
            };
            let c = corners[j];
            let placed = &self.placed;
            let group_ok = |g: u32| {
                g == 0
                    || prev.is_none_or(|(a, b)| {
                        placed[a..b]
                            .iter()
                            .any(|p| rules.in_group(g, self.ag.tiles[p.tile].id))
                    })
            };
            applies.clear();
            applies.extend(
                rules
                    .corners
                    .iter()
                    .enumerate()
                    .filter(|(i, r)| {
                        t.corner(*i).is_some()
                            && within(Some(r.angle), c.turn)
                            && match r.kind {
                                CornerKind::Corner => true,
                                CornerKind::CornerLen | CornerKind::AtomicSpellingCorner => {
                                    within(r.len1, c.len_in)
                                        && within(r.len2, c.len_out)
                                        && group_ok(r.group)
                                }
                                CornerKind::CornerPair => {
                                    j + 1 < k
                                        && !done[j + 1]
                                        && side_of.get(j + 1).copied().flatten().is_some()
                                        && within(r.angle2, corners[j + 1].turn)
                                        && within(r.pair_len, c.len_out)
                                        && group_ok(r.group)
                                }
                            }
                    })
                    .map(|(i, r)| (i, r.priority)),
            );
            spell::tier_order(&mut applies, rng);
            for &(ri, _) in &applies {
                let rule = &rules.corners[ri];
                let Some(tiles) = t.corner(ri) else {
                    continue;
                };
                let atomic = rule.kind == CornerKind::AtomicSpellingCorner;
                let shared = rules.share_y && (atomic || tiles.len() == 3);
                if rule.kind == CornerKind::CornerPair {
                    let (ta, tb) = if tiles.len() == 2 {
                        (&tiles[..1], &tiles[1..])
                    } else {
                        (tiles, tiles)
                    };
                    let c2 = corners[j + 1];
                    let start = self.placed.len();
                    let side2 = side_of[j + 1].unwrap_or(side);
                    let na = self.corner_unit(&c, ta, rule.order, false, shared, contour, side);
                    let mid = self.placed.len();
                    let nb = self.corner_unit(&c2, tb, rule.order, false, shared, contour, side2);
                    if na + nb == 0 {
                        continue;
                    }
                    out[j] = (self.reach(&c, start), Some(rule.line));
                    out[j + 1] = (self.reach(&c2, mid), Some(rule.line));
                    done[j + 1] = true;
                    let end = self.placed.len();
                    prev = Some(if nb > 0 { (mid, end) } else { (start, mid) });
                    break;
                }
                let start = self.placed.len();
                if self.corner_unit(&c, tiles, rule.order, atomic, shared, contour, side) > 0 {
                    out[j] = (self.reach(&c, start), Some(rule.line));
                    prev = Some((start, self.placed.len()));
                    break;
                }
            }
        }
        self.rule_order = applies;
        out
    }
}
