#!/usr/bin/env python3
"""Paints every texture of the sample scenery (sample_scenery/textures/).

Run from anywhere:  python3 sample_scenery/tools/make_textures.py
Needs Pillow and numpy (pip install pillow numpy). The output is deterministic:
every random choice comes from a seeded generator.

Ground sheets are painted in the autogen files' own pixel frame (s to the right,
t UP from the bottom edge); `Sheet` flips to image rows. Where an autogen file
puts a building, the sheet gets a foundation pad and a soft contact shadow: the
positions are read from the autogen files themselves (see `annotations()`), so
texture and annotations cannot drift apart.

DDS files are written by the small BC1/BC3 encoder at the end of this file
(endpoints: per-block min/max colour; full mip chain down to 1 x 1; rows stored
top row first like the PNGs, which is how desktop DDS files are stored).
"""

import math
import os
import struct
import sys

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

sys.dont_write_bytecode = True  # keep tools/ free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import atlas  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TEX = os.path.join(ROOT, "textures")


# =========================================================================== noise
def value_noise(h, w, cell, seed, octaves=3):
    """Smooth noise in -1..1, features about `cell` pixels across."""
    rng = np.random.default_rng(seed)
    out = np.zeros((h, w), np.float32)
    amp, total = 1.0, 0.0
    for o in range(octaves):
        c = max(1, int(cell / (2 ** o)))
        gh, gw = h // c + 2, w // c + 2
        grid = rng.uniform(-1, 1, (gh, gw)).astype(np.float32)
        img = Image.fromarray(grid, mode="F").resize((gw * c, gh * c), Image.BICUBIC)
        out += amp * np.asarray(img)[:h, :w]
        total += amp
        amp *= 0.5
    return np.clip(out / total, -1, 1)


def grain(h, w, seed, amp):
    rng = np.random.default_rng(seed)
    return rng.normal(0, amp, (h, w)).astype(np.float32)


def colour_field(h, w, base, seed, mottle=10.0, cell=24, fine=3.0, tint=(1.0, 1.0, 1.0)):
    """An RGB float image: a base colour with mottling and fine grain."""
    n = value_noise(h, w, cell, seed) * mottle
    g = grain(h, w, seed + 1, fine)
    arr = np.zeros((h, w, 3), np.float32)
    for c in range(3):
        arr[..., c] = base[c] + (n + g) * tint[c]
    return arr


def to_img(arr):
    return Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8), "RGB")


# =========================================================================== materials
def m_lawn(h, w, seed, stripe=8, along="t"):
    a = colour_field(h, w, (86, 128, 56), seed, mottle=9, cell=20, fine=4, tint=(0.7, 1.0, 0.5))
    if stripe:
        idx = np.arange(h if along == "t" else w)
        band = np.where((idx // stripe) % 2 == 0, 5.0, -4.0).astype(np.float32)
        if along == "t":
            a += band[:, None, None]
        else:
            a += band[None, :, None]
    return a


def m_grass_rough(h, w, seed):
    a = colour_field(h, w, (92, 122, 58), seed, mottle=14, cell=14, fine=6, tint=(0.8, 1.0, 0.6))
    return a


def m_concrete(h, w, seed, slab=6, base=(178, 175, 168)):
    a = colour_field(h, w, base, seed, mottle=5, cell=30, fine=2.5)
    if slab:
        a[::slab, :, :] -= 28
        a[:, ::slab, :] -= 28
    return a


def m_asphalt(h, w, seed, base=(74, 74, 78)):
    return colour_field(h, w, base, seed, mottle=6, cell=40, fine=4)


def m_pavers(h, w, seed, bw=8, bh=4, base=(176, 160, 138), joint=36, vary=14):
    """Running-bond block paving."""
    a = colour_field(h, w, base, seed, mottle=4, cell=50, fine=2)
    rng = np.random.default_rng(seed + 7)
    yy, xx = np.mgrid[0:h, 0:w]
    row = yy // bh
    col = (xx + (row % 2) * (bw // 2)) // bw
    tone = rng.uniform(-vary, vary, (row.max() + 2, col.max() + 2)).astype(np.float32)
    a += tone[row, col][..., None]
    jmask = (yy % bh == 0) | ((xx + (row % 2) * (bw // 2)) % bw == 0)
    a[jmask] -= joint
    return a


def m_gravel(h, w, seed, base=(190, 178, 150)):
    a = colour_field(h, w, base, seed, mottle=6, cell=10, fine=12)
    return a


def m_soil(h, w, seed):
    a = colour_field(h, w, (112, 84, 58), seed, mottle=10, cell=8, fine=6)
    return a


def m_hedge(h, w, seed):
    a = colour_field(h, w, (46, 84, 38), seed, mottle=22, cell=4, fine=6, tint=(0.6, 1.0, 0.5))
    return a


def m_water(h, w, seed):
    a = colour_field(h, w, (58, 104, 138), seed, mottle=10, cell=30, fine=2, tint=(0.6, 0.9, 1.0))
    yy = np.arange(h)[:, None]
    ripple = (np.sin(yy * 0.9 + value_noise(h, w, 16, seed + 3) * 6) > 0.93) * 22.0
    a += ripple[..., None]
    return a


def m_tiles_terracotta(h, w, seed, tile=6):
    return m_pavers(h, w, seed, bw=tile, bh=tile, base=(176, 110, 78), joint=40, vary=10)


def m_pool(h, w, seed):
    a = colour_field(h, w, (92, 186, 214), seed, mottle=8, cell=12, fine=2, tint=(0.5, 0.8, 1.0))
    return a


# =========================================================================== sheet
class Sheet:
    """An RGBA image addressed in autogen pixels: s right, t up from the bottom."""

    def __init__(self, w, h, ppm, seed):
        self.w, self.h, self.ppm = w, h, ppm
        self.seed = seed
        self.rgb = np.zeros((h, w, 3), np.float32)
        self.alpha = np.full((h, w), 255.0, np.float32)
        self._mats = {}

    # -- coordinates
    def y(self, t):
        return self.h - t

    def pts(self, pts):
        return [(s, self.h - t) for s, t in pts]

    # -- materials are generated once per sheet, full size, and masked in
    def mat(self, name, fn, *args, **kw):
        key = (name, args, tuple(sorted(kw.items())))
        if key not in self._mats:
            self.seed += 11
            self._mats[key] = fn(self.h, self.w, self.seed, *args, **kw)
        return self._mats[key]

    def _mask(self):
        return Image.new("L", (self.w, self.h), 0)

    def paint(self, mask_img, material, soft=0.0):
        m = mask_img
        if soft:
            m = m.filter(ImageFilter.GaussianBlur(soft))
        k = np.asarray(m, np.float32)[..., None] / 255.0
        self.rgb = self.rgb * (1 - k) + material * k

    def rect(self, s0, t0, s1, t1, material, soft=0.0):
        m = self._mask()
        ImageDraw.Draw(m).rectangle([s0, self.h - t1, s1 - 1, self.h - t0 - 1], fill=255)
        self.paint(m, material, soft)

    def poly(self, pts, material, soft=0.0):
        m = self._mask()
        ImageDraw.Draw(m).polygon(self.pts(pts), fill=255)
        self.paint(m, material, soft)

    def ellipse(self, cs, ct, rs, rt, material, soft=0.0):
        m = self._mask()
        ImageDraw.Draw(m).ellipse([cs - rs, self.h - ct - rt, cs + rs, self.h - ct + rt], fill=255)
        self.paint(m, material, soft)

    def ring(self, cs, ct, r_out, r_in, material):
        m = self._mask()
        d = ImageDraw.Draw(m)
        d.ellipse([cs - r_out, self.h - ct - r_out, cs + r_out, self.h - ct + r_out], fill=255)
        d.ellipse([cs - r_in, self.h - ct - r_in, cs + r_in, self.h - ct + r_in], fill=0)
        self.paint(m, material)

    def line(self, pts, material, width):
        m = self._mask()
        ImageDraw.Draw(m).line(self.pts(pts), fill=255, width=width, joint="curve")
        self.paint(m, material)

    def shade(self, mask_img, amount, blur):
        """Darken by a blurred mask (contact shadows)."""
        m = mask_img.filter(ImageFilter.GaussianBlur(blur))
        k = np.asarray(m, np.float32)[..., None] / 255.0
        self.rgb *= 1 - amount * k

    def lines_paint(self, segs, colour, width=1):
        m = self._mask()
        d = ImageDraw.Draw(m)
        for a, b in segs:
            d.line(self.pts([a, b]), fill=255, width=width)
        self.paint(m, np.array(colour, np.float32)[None, None, :] * np.ones((self.h, self.w, 1), np.float32))

    def solid(self, colour):
        return np.ones((self.h, self.w, 3), np.float32) * np.array(colour, np.float32)

    # -- alpha edges
    def fade(self, s0, t0, s1, t1, axis, start, end):
        """Alpha ramps 0 -> 255 across [start, end) along 's' or 't' inside the rect."""
        y0, y1 = self.h - t1, self.h - t0
        region = self.alpha[y0:y1, s0:s1]
        if axis == "s":
            x = np.arange(s0, s1, dtype=np.float32)
            ramp = np.clip((x + 0.5 - start) / (end - start), 0, 1) * 255
            region[:] = np.minimum(region, ramp[None, :])
        else:
            t = self.h - np.arange(y0, y1, dtype=np.float32) - 0.5
            ramp = np.clip((t - start) / (end - start), 0, 1) * 255
            region[:] = np.minimum(region, ramp[:, None])

    def save(self, name, with_alpha=True):
        rgb = np.clip(self.rgb, 0, 255).astype(np.uint8)
        if with_alpha:
            a = np.clip(self.alpha, 0, 255).astype(np.uint8)
            img = Image.fromarray(np.dstack([rgb, a]), "RGBA")
        else:
            img = Image.fromarray(rgb, "RGB")
        path = os.path.join(TEX, name)
        img.save(path, optimize=True)
        print("%-20s %dx%d %s %7d bytes" % (name, img.width, img.height, img.mode, os.path.getsize(path)))
        return img


# =========================================================================== annotations
FOOTPRINTS = {  # meters: (width along x, depth along z) of each object's walls
    "house_small.obj": (8.0, 7.0),
    "house_medium.obj": (10.0, 8.0),
    "house_large.obj": (12.0, 10.0),
    "house_gable.obj": (8.0, 11.0),
    "any_house.obj": (10.0, 11.0),
    "apartment_block.obj": (20.0, 12.0),
    "shop.obj": (14.0, 10.0),
    "kiosk.obj": (3.0, 3.0),
}


def annotations(path):
    """Buildings an autogen file places: [(kind, data)] with kind 'obj' -> (name, s, t,
    heading) or 'fac' -> [(s, t), ...]. Only what the textures need."""
    objs, out = [], []
    with open(path) as f:
        for raw in f:
            tok = raw.split("#")[0].split()
            if not tok:
                continue
            k, a = tok[0], tok[1:]
            if k == "OBJECT":
                objs.append(os.path.basename(a[0]))
            elif k in ("OBJ_DRAPED", "OBJ_GRADED", "OBJ_SCRAPER"):
                out.append(("obj", (objs[int(a[3])], float(a[0]), float(a[1]), float(a[2]))))
            elif k == "OBJ_DELTA":
                out.append(("obj", (objs[int(a[4])], float(a[0]), float(a[1]), float(a[2]))))
            elif k == "FAC":
                v = [float(x) for x in a[2:]]
                out.append(("fac", list(zip(v[0::2], v[1::2]))))
    return out


def footprint_px(name, s, t, hdg, ppm, grow=0.0):
    """Corners of an object's footprint on the sheet. Heading 0 puts the object's
    -Z (front) toward +t and +X toward +s; headings turn clockwise."""
    w, d = FOOTPRINTS[name]
    w, d = w + 2 * grow, d + 2 * grow
    h = math.radians(hdg)
    ux = (math.cos(h), -math.sin(h))  # object +X on the sheet
    un = (math.sin(h), math.cos(h))  # object -Z (north, front) on the sheet
    pts = []
    for x, n in ((-w / 2, -d / 2), (w / 2, -d / 2), (w / 2, d / 2), (-w / 2, d / 2)):
        pts.append((s + ppm * (x * ux[0] + n * un[0]), t + ppm * (x * ux[1] + n * un[1])))
    return pts


def building_pads(sh, path, pad_material, only=None):
    """Contact shadow and foundation pad under every building of an autogen file."""
    ann = annotations(path)
    shadow = sh._mask()
    ds = ImageDraw.Draw(shadow)
    pads = []
    for kind, data in ann:
        if kind == "obj":
            name, s, t, hdg = data
            if name not in FOOTPRINTS or (only and not only(s, t)):
                continue
            ds.polygon(sh.pts(footprint_px(name, s, t, hdg, sh.ppm, grow=0.6)), fill=255)
            pads.append(footprint_px(name, s, t, hdg, sh.ppm, grow=0.4))
        else:
            if only and not only(*data[0]):
                continue
            ds.polygon(sh.pts(data), fill=255)
            pads.append(data)
    sh.shade(shadow, 0.45, sh.ppm * 0.8)
    for p in pads:
        sh.poly(p, pad_material)


# =========================================================================== ground_block.png
def ground_block():
    """The AGB sheet (city_block.agb): 1024 x 512, 4 px = 1 m."""
    sh = Sheet(1024, 512, 4, 100)
    lawn = sh.mat("lawn", m_lawn, 8, "t")
    lawn2 = sh.mat("lawn2", m_lawn, 6, "s")
    rough = sh.mat("rough", m_grass_rough)
    walk = sh.mat("walk", m_concrete, 6)
    drive = sh.mat("drive", m_concrete, 0, (150, 148, 142))
    tar = sh.mat("tar", m_asphalt)
    hedge = sh.mat("hedge", m_hedge)
    soil = sh.mat("soil", m_soil)
    patio = sh.mat("patio", m_tiles_terracotta, 4)
    pavers = sh.mat("pavers", m_pavers, 6, 3, (168, 160, 150), 30, 10)
    pool = sh.mat("pool", m_pool)
    gravel = sh.mat("gravel", m_gravel)
    pad = sh.mat("pad", m_concrete, 0, (120, 118, 114))
    white = sh.solid((228, 228, 222))

    # background outside both grids: rough grass
    sh.rect(0, 0, 1024, 512, rough)

    # ---------------- grid 0: houses (s 0..464, t 0..320)
    sh.rect(0, 0, 464, 320, lawn)
    # slop column c3 and slop row r2: plain lawn mown the other way, so that a
    # covered part never shows a seam
    sh.rect(240, 0, 304, 320, lawn2)
    sh.rect(0, 160, 464, 224, lawn2)
    # hedges on lot lines (left edge of c1, c2; right edge of c4) in the front and back rows
    for s in (80, 160, 240):
        sh.rect(s, 14, s + 3, 90, hedge)
        sh.rect(s, 230, s + 3, 306, hedge)
    sh.rect(381, 14, 384, 90, hedge)
    sh.rect(381, 230, 384, 306, hedge)
    # back-garden boundary hedge between r1 and r2
    sh.rect(12, 154, 452, 158, hedge)
    # r0 drives and paths (to the front doors, facing the street)
    sh.rect(138, 12, 152, 74, drive)  # c1 drive
    sh.rect(218, 12, 232, 62, drive)  # c2 drive
    sh.rect(438, 12, 450, 70, drive)  # c5 drive
    for s, t_door in ((44, 38), (112, 42), (196, 42), (356, 38), (420, 38)):
        sh.rect(s - 3, 12, s + 3, t_door, pavers)
    # r0/r1 patios behind the houses
    sh.rect(96, 74, 128, 86, patio)
    sh.rect(336, 78, 376, 92, patio)
    # r1: vegetable beds (c1), pool (c2), gravel shed base (c0), flower bed (c5)
    for k in range(4):
        sh.rect(88 + k * 16, 104, 100 + k * 16, 128, soil)
    sh.ellipse(204, 120, 18, 10, pool)
    sh.rect(22, 100, 46, 116, gravel)
    sh.ellipse(420, 108, 20, 6, soil)
    # r3 drives and paths from the back street (top)
    sh.rect(222, 246, 234, 308, drive)  # c2 drive with the car
    for s, t_door in ((40, 276), (118, 284), (198, 278), (352, 276), (420, 278)):
        sh.rect(s - 3, t_door, s + 3, 308, pavers)
    sh.rect(100, 226, 136, 242, patio)
    # sidewalks: front (r0 bottom), back (r3 top), west (c0 left), east (c5 right)
    sh.rect(0, 0, 464, 12, walk)
    sh.rect(0, 308, 464, 320, walk)
    sh.rect(0, 0, 12, 320, walk)
    sh.rect(452, 0, 464, 320, walk)
    # kerb lines at the outer edges
    sh.rect(0, 0, 464, 1, white)
    sh.rect(0, 319, 464, 320, white)
    sh.rect(0, 0, 1, 320, white)
    sh.rect(463, 0, 464, 320, white)
    building_pads(sh, os.path.join(ROOT, "autogen", "city_block.agb"), pad, only=lambda s, t: s < 480)

    # ---------------- grid 1: shops (s 512..992, t 0..384)
    sh.rect(512, 0, 992, 384, walk)
    # building plots behind the sidewalks: paved forecourts
    sh.rect(528, 16, 976, 128, pavers)
    sh.rect(528, 256, 976, 368, pavers)
    # the car park: asphalt with white stall lines, planter islands
    sh.rect(528, 128, 976, 256, tar)
    stall_lines = []
    for s in range(528, 977, 10):
        stall_lines.append(((s, 138), (s, 160)))
        stall_lines.append(((s, 224), (s, 246)))
    stall_lines.append(((528, 160), (976, 160)))
    stall_lines.append(((528, 224), (976, 224)))
    sh.lines_paint(stall_lines, (226, 226, 220))
    for s in (560, 752, 944):
        sh.rect(s - 10, 182, s + 10, 202, soil)
        sh.rect(s - 12, 180, s + 12, 182, walk)
        sh.rect(s - 12, 202, s + 12, 204, walk)
    for s in (656, 848):
        sh.rect(s - 4, 188, s + 4, 196, walk)
    # a strip of lawn along the car park edges
    sh.rect(528, 120, 976, 128, lawn)
    sh.rect(528, 256, 976, 264, lawn)
    # sidewalks and kerbs
    sh.rect(512, 0, 992, 16, walk)
    sh.rect(512, 368, 992, 384, walk)
    sh.rect(512, 0, 528, 384, walk)
    sh.rect(976, 0, 992, 384, walk)
    sh.rect(512, 0, 992, 1, white)
    sh.rect(512, 383, 992, 384, white)
    sh.rect(512, 0, 513, 384, white)
    sh.rect(991, 0, 992, 384, white)
    building_pads(sh, os.path.join(ROOT, "autogen", "city_block.agb"), pad, only=lambda s, t: s >= 480)

    # ---------------- alpha: soft edges that the overlapping tiles bring
    sh.fade(304, 0, 320, 320, "s", 304, 320)  # c4 over the slop column c3
    sh.fade(384, 0, 392, 320, "s", 384, 392)  # c5's anti-slop edge over c4
    sh.fade(0, 224, 464, 240, "t", 224, 240)  # r3 over the slop row r2
    return sh.save("ground_block.png")


# =========================================================================== ground_string.png
def ground_string():
    """The AGS sheet (lakeside.ags): 1024 x 256, 4 px = 1 m, tiles 30 m deep."""
    sh = Sheet(1024, 256, 4, 200)
    lawn = sh.mat("lawn", m_lawn, 8, "t")
    rough = sh.mat("rough", m_grass_rough)
    walk = sh.mat("walk", m_concrete, 6)
    drive = sh.mat("drive", m_concrete, 0, (150, 148, 142))
    tar = sh.mat("tar", m_asphalt)
    hedge = sh.mat("hedge", m_hedge)
    soil = sh.mat("soil", m_soil)
    gravel = sh.mat("gravel", m_gravel)
    pavers = sh.mat("pavers", m_pavers, 6, 3, (168, 160, 150), 30, 10)
    patio = sh.mat("patio", m_tiles_terracotta, 4)
    pad = sh.mat("pad", m_concrete, 0, (120, 118, 114))
    white = sh.solid((228, 228, 222))

    sh.rect(0, 0, 1024, 256, rough)
    # ---- row A (t 0..120): house lots, garden, caps, corners
    for s0, s1 in ((0, 80), (80, 160), (160, 224), (224, 288), (288, 328), (336, 416),
                   (424, 448), (456, 480), (496, 608), (704, 784), (784, 848), (848, 928)):
        sh.rect(s0, 0, s1, 120, lawn)
    sh.rect(624, 0, 688, 64, lawn)
    # lot-line hedges along the tile sides (inside each tile, so tiles can be reordered)
    for s0, s1 in ((0, 80), (80, 160), (160, 224), (224, 288), (336, 416), (704, 784), (848, 928)):
        sh.rect(s0, 14, s0 + 2, 116, hedge)
        sh.rect(s1 - 2, 14, s1, 116, hedge)
    # back hedge of every lot
    sh.rect(0, 116, 416, 120, hedge)
    sh.rect(704, 116, 928, 120, hedge)
    # drives and paths
    sh.rect(64, 12, 76, 70, drive)  # 10
    for s, t in ((40, 40), (116, 40), (196, 38), (252, 38), (376, 40), (546, 42), (740, 42), (888, 42)):
        sh.rect(s - 3, 12, s + 3, t, pavers)
    sh.rect(28, 74, 56, 86, patio)
    sh.rect(100, 70, 132, 80, patio)
    # 14: a garden with a gravel path and flower beds
    sh.rect(304, 12, 312, 116, gravel)
    sh.ellipse(296, 70, 6, 16, soil)
    sh.ellipse(320, 90, 5, 14, soil)
    # caps: 40 hedge end, 41 fence end (a strip of gravel under the fence)
    sh.rect(426, 14, 446, 110, hedge)
    sh.rect(464, 14, 472, 112, gravel)
    # 20: corner lot with sidewalk on the bottom and on the right edge
    sh.rect(596, 0, 608, 120, walk)
    sh.rect(596, 0, 597, 120, white)
    sh.rect(576, 12, 590, 70, drive)
    # 21: pocket park: paved square with a planter ring
    sh.rect(624, 0, 688, 64, pavers)
    sh.ring(656, 32, 24, 18, lawn)
    sh.ellipse(656, 32, 6, 6, soil)
    # 31: the corner-shop forecourt
    sh.rect(784, 12, 848, 70, pavers)
    # sidewalk + kerb along the bottom of every row-A tile
    for s0, s1 in ((0, 328), (336, 416), (424, 448), (456, 480), (496, 608), (624, 688), (704, 928)):
        sh.rect(s0, 0, s1, 12, walk)
        sh.rect(s0, 0, s1, 1, white)

    # ---- row B (t 136..256): the atomic spelling 50-51-52
    sh.rect(0, 136, 288, 256, lawn)
    sh.rect(4, 148, 92, 200, tar)  # 50 car park
    sh.lines_paint([((s, 160), (s, 184)) for s in range(12, 93, 16)], (226, 226, 220))
    sh.rect(96, 148, 192, 156, pavers)  # 51 forecourt of the flats
    sh.rect(196, 148, 284, 156, pavers)  # 52 shop forecourt
    sh.rect(196, 196, 284, 230, tar)  # 52 yard behind the shop
    sh.rect(0, 252, 288, 256, hedge)
    sh.rect(0, 136, 288, 148, walk)
    sh.rect(0, 136, 288, 137, white)
    building_pads(sh, os.path.join(ROOT, "autogen", "lakeside.ags"), pad)
    return sh.save("ground_string.png", with_alpha=False)


# =========================================================================== ground_plaza.png
def ground_plaza():
    """The AGP sheet (plaza.agp): 1024 x 512, 8 px = 1 m."""
    sh = Sheet(1024, 512, 8, 300)
    rough = sh.mat("rough", m_grass_rough)
    lawn = sh.mat("lawn", m_lawn, 16, "s")
    stone = sh.mat("stone", m_pavers, 16, 8, (192, 184, 170), 40, 12)
    cobble = sh.mat("cobble", m_pavers, 6, 6, (128, 120, 112), 40, 18)
    walk = sh.mat("walk", m_concrete, 12)
    tar = sh.mat("tar", m_asphalt)
    gravel = sh.mat("gravel", m_gravel)
    water = sh.mat("water", m_water)
    soil = sh.mat("soil", m_soil)
    hedge = sh.mat("hedge", m_hedge)
    pad = sh.mat("pad", m_concrete, 0, (120, 118, 114))
    white = sh.solid((232, 232, 226))
    red = sh.solid((178, 62, 52))
    yellow = sh.solid((214, 170, 60))

    sh.rect(0, 0, 1024, 512, rough)
    # ---------------- tile 0: the square (0..384)
    sh.rect(0, 0, 384, 384, stone)
    # cobbled border and the circle round the kiosk
    sh.rect(0, 24, 384, 32, cobble)
    sh.ring(192, 176, 96, 84, cobble)
    sh.ring(192, 176, 30, 24, cobble)
    for k in range(8):
        a = math.pi * k / 4
        p0 = (192 + 30 * math.cos(a), 176 + 30 * math.sin(a))
        p1 = (192 + 84 * math.cos(a), 176 + 84 * math.sin(a))
        sh.line([p0, p1], cobble, 6)
    # street sidewalk along the bottom edge, kerb at the very edge
    sh.rect(0, 0, 384, 24, walk)
    sh.rect(0, 0, 384, 2, white)
    # parking bay at the lower left (cars at 44,56 and 44,88)
    sh.rect(12, 36, 80, 108, tar)
    sh.lines_paint([((12, 40), (80, 40)), ((12, 72), (80, 72)), ((12, 104), (80, 104))], (230, 230, 224), 2)
    # tree pits
    for s, t in ((40, 150), (40, 220)):
        sh.ellipse(s, t, 14, 14, soil)
    # a planting strip under the TREE_LINE (the line's spacing comes from the forest)
    sh.rect(88, 30, 296, 42, soil)
    sh.rect(88, 29, 296, 30, cobble)
    sh.rect(88, 42, 296, 43, cobble)
    building_pads(sh, os.path.join(ROOT, "autogen", "plaza.agp"), pad, only=lambda s, t: s < 384)

    # ---------------- tile 1: the park (384..768), shown inside its octagon crop
    sh.rect(384, 0, 768, 384, lawn)
    cx, cy = 576, 192
    # ring path and four spokes to the tile edges
    sh.ring(cx, cy, 128, 112, gravel)
    for p0, p1 in (((cx, 0), (cx, cy - 112)), ((cx, cy + 112), (cx, 384)),
                   ((384, cy), (cx - 112, cy)), ((cx + 112, cy), (768, cy))):
        sh.line([p0, p1], gravel, 16)
    # the pond with a stone edge
    sh.ellipse(cx, cy, 70, 46, stone)
    sh.ellipse(cx, cy, 64, 40, water)
    # flower beds in the four quadrants, hedges along the outer edge
    for s, t in ((500, 120), (652, 120), (500, 264), (652, 264)):
        sh.ellipse(s, t, 20, 12, soil)
        m = sh._mask()
        rng = np.random.default_rng(int(s * 7 + t))
        d = ImageDraw.Draw(m)
        for _ in range(40):
            ds, dt = rng.uniform(-17, 17), rng.uniform(-9, 9)
            if (ds / 18) ** 2 + (dt / 10) ** 2 < 1:
                d.ellipse([s + ds - 1.5, sh.h - (t + dt) - 1.5, s + ds + 1.5, sh.h - (t + dt) + 1.5], fill=255)
        sh.paint(m, red if s < 600 else yellow)
    sh.poly([(384, 64), (448, 0), (456, 0), (392, 64)], hedge)
    sh.poly([(768, 64), (704, 0), (696, 0), (760, 64)], hedge)
    sh.poly([(384, 320), (448, 384), (456, 384), (392, 320)], hedge)
    sh.poly([(768, 320), (704, 384), (696, 384), (760, 320)], hedge)

    # ---------------- tile 2: the car park (768..1024)
    sh.rect(768, 0, 1024, 384, tar)
    sh.rect(768, 0, 1024, 24, walk)
    sh.rect(768, 0, 1024, 2, white)
    sh.rect(768, 272, 1024, 384, stone)  # forecourt of the shop
    sh.rect(768, 24, 784, 272, lawn)  # the fence stands on a grass verge
    segs = []
    for t in range(40, 200, 24):
        segs.append(((800, t), (840, t)))
    for t in range(84, 240, 24):
        segs.append(((952, t), (992, t)))
    segs.append(((840, 40), (840, 184)))
    segs.append(((952, 84), (952, 228)))
    sh.lines_paint(segs, (232, 232, 226), 2)
    # arrows in the aisle
    for t in (90, 170):
        sh.poly([(896, t + 12), (888, t), (893, t), (893, t - 12), (899, t - 12), (899, t), (904, t)], white)
    sh.rect(1004, 268, 1018, 292, soil)
    sh.rect(784, 288, 798, 312, soil)
    building_pads(sh, os.path.join(ROOT, "autogen", "plaza.agp"), pad, only=lambda s, t: s >= 768)

    # ---------------- the unused strip above the tiles (t 384..512): a paving sample
    sh.rect(0, 392, 1024, 512, stone)
    return sh.save("ground_plaza.png", with_alpha=False)


# =========================================================================== buildings.png
def font(size):
    for p in ("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
              "/usr/share/fonts/dejavu/DejaVuSans-Bold.ttf",
              "/usr/share/fonts/truetype/liberation/LiberationSans-Bold.ttf"):
        if os.path.exists(p):
            return ImageFont.truetype(p, size)
    try:
        return ImageFont.load_default(size=size)
    except TypeError:
        return ImageFont.load_default()


def wall_material(kind, h, w, seed):
    if kind == "plaster":
        return colour_field(h, w, (226, 214, 188), seed, mottle=6, cell=20, fine=3)
    if kind == "yellow":
        return colour_field(h, w, (226, 196, 120), seed, mottle=6, cell=20, fine=3)
    if kind == "concrete":
        return colour_field(h, w, (196, 192, 184), seed, mottle=5, cell=30, fine=3)
    if kind == "brick":
        a = m_pavers(h, w, seed, bw=12, bh=4, base=(160, 74, 52), joint=-30, vary=16)
        return a
    if kind == "siding":
        a = colour_field(h, w, (176, 196, 210), seed, mottle=4, cell=30, fine=2)
        yy = np.arange(h)
        a[(yy % 6) == 0] -= 40
        a[(yy % 6) == 1] += 10
        return a
    raise ValueError(kind)


def draw_window(d, x0, y0, x1, y1, frame=(245, 245, 240), glass=(70, 96, 120), bars=True, sill=True):
    d.rectangle([x0 - 2, y0 - 2, x1 + 2, y1 + 2], fill=frame)
    d.rectangle([x0, y0, x1, y1], fill=glass)
    # a reflection
    d.polygon([(x0, y0 + (y1 - y0) * 0.55), (x0 + (x1 - x0) * 0.5, y0), (x0 + (x1 - x0) * 0.7, y0),
               (x0, y0 + (y1 - y0) * 0.85)], fill=tuple(min(255, c + 38) for c in glass))
    if bars:
        xm, ym = (x0 + x1) // 2, (y0 + y1) // 2
        d.line([(xm, y0), (xm, y1)], fill=frame, width=2)
        d.line([(x0, ym), (x1, ym)], fill=frame, width=2)
    if sill:
        d.rectangle([x0 - 4, y1 + 2, x1 + 4, y1 + 5], fill=(200, 198, 190))


def draw_door(d, x0, y0, x1, y1, colour):
    d.rectangle([x0 - 3, y0 - 3, x1 + 3, y1], fill=(240, 240, 234))
    d.rectangle([x0, y0, x1, y1], fill=colour)
    w = x1 - x0
    d.rectangle([x0 + 5, y0 + 6, x1 - 5, y0 + 26], fill=(80, 100, 120))
    d.rectangle([x0 + 5, y0 + 34, x0 + w // 2 - 3, y1 - 8], outline=tuple(max(0, c - 30) for c in colour), width=2)
    d.rectangle([x0 + w // 2 + 3, y0 + 34, x1 - 5, y1 - 8], outline=tuple(max(0, c - 30) for c in colour), width=2)
    d.ellipse([x1 - 10, (y0 + y1) // 2, x1 - 6, (y0 + y1) // 2 + 4], fill=(220, 200, 120))
    d.rectangle([x0 - 8, y1 - 3, x1 + 8, y1], fill=(170, 168, 160))


def buildings():
    W, H = atlas.BUILDINGS_SIZE
    img = Image.new("RGB", (W, H), (128, 128, 128))
    B = atlas.BUILDINGS
    seed = 400

    def region(name, arr):
        x0, y0, x1, y1 = B[name]
        img.paste(to_img(arr[: y1 - y0, : x1 - x0]), (x0, y0))

    def mat(kind, name):
        nonlocal seed
        seed += 3
        x0, y0, x1, y1 = B[name]
        return wall_material(kind, y1 - y0, x1 - x0, seed)

    door_colours = {"plaster": (120, 60, 40), "brick": (40, 70, 110), "siding": (150, 40, 40),
                    "yellow": (60, 100, 60), "concrete": (90, 90, 96)}
    for kind in ("plaster", "brick", "siding", "yellow", "concrete"):
        region(kind + "_window", mat(kind, kind + "_window"))
        region(kind + "_door", mat(kind, kind + "_door"))
        region(kind + "_plain", mat(kind, kind + "_plain"))
        d = ImageDraw.Draw(img)
        x0, y0, _, _ = B[kind + "_window"]
        if kind == "concrete":
            draw_window(d, x0 + 18, y0 + 22, x0 + 78, y0 + 70, frame=(210, 210, 204), glass=(70, 90, 110))
        else:
            draw_window(d, x0 + 28, y0 + 20, x0 + 68, y0 + 70)
            if kind in ("plaster", "yellow"):  # shutters
                sc = (70, 110, 70) if kind == "plaster" else (110, 80, 50)
                d.rectangle([x0 + 14, y0 + 18, x0 + 24, y0 + 72], fill=sc)
                d.rectangle([x0 + 72, y0 + 18, x0 + 82, y0 + 72], fill=sc)
        x0, y0, _, _ = B[kind + "_door"]
        draw_door(d, x0 + 30, y0 + 16, x0 + 66, y0 + 95, door_colours[kind])
        if kind == "concrete":
            d.rectangle([x0 + 20, y0 + 8, x0 + 76, y0 + 12], fill=(150, 150, 150))
        # a darker plinth strip at the foot of every ground-floor cell
    # shop front: big glazing with goods, and a glazed door
    d = ImageDraw.Draw(img)
    x0, y0, x1, y1 = B["shop_window"]
    d.rectangle([x0, y0, x1 - 1, y1 - 1], fill=(60, 60, 64))
    d.rectangle([x0 + 6, y0 + 8, x1 - 7, y1 - 14], fill=(96, 128, 150))
    rng = np.random.default_rng(7)
    for k in range(7):  # goods on shelves
        cx = x0 + 12 + k * 11
        d.rectangle([cx, y1 - 30, cx + 7, y1 - 16], fill=tuple(int(v) for v in rng.integers(90, 230, 3)))
        d.rectangle([cx, y1 - 52, cx + 7, y1 - 40], fill=tuple(int(v) for v in rng.integers(90, 230, 3)))
    d.polygon([(x0 + 6, y0 + 60), (x0 + 44, y0 + 8), (x0 + 58, y0 + 8), (x0 + 6, y0 + 76)], fill=(130, 160, 180))
    d.rectangle([x0, y1 - 12, x1 - 1, y1 - 1], fill=(120, 116, 110))
    x0, y0, x1, y1 = B["shop_door"]
    d.rectangle([x0, y0, x1 - 1, y1 - 1], fill=(60, 60, 64))
    d.rectangle([x0 + 20, y0 + 8, x1 - 21, y1 - 4], fill=(110, 140, 160))
    d.line([(x0 + 48, y0 + 8), (x0 + 48, y1 - 4)], fill=(60, 60, 64), width=3)
    d.rectangle([x0 + 40, y0 + 50, x0 + 44, y0 + 64], fill=(200, 200, 200))
    d.rectangle([x0 + 52, y0 + 50, x0 + 56, y0 + 64], fill=(200, 200, 200))
    # garage door
    x0, y0, x1, y1 = B["garage_door"]
    img.paste(to_img(wall_material("plaster", 96, 96, 17)), (x0, y0))
    d.rectangle([x0 + 10, y0 + 20, x1 - 11, y1 - 1], fill=(200, 200, 196))
    for k in range(6):
        d.line([(x0 + 10, y0 + 30 + k * 11), (x1 - 11, y0 + 30 + k * 11)], fill=(160, 160, 156), width=2)
    # shop sign: the top 40 px carry the lettering (the mesh maps an 8.4 x 1.2 m board
    # onto them), the rest is a plain board
    x0, y0, x1, y1 = B["shop_sign"]
    d.rectangle([x0, y0, x1 - 1, y1 - 1], fill=(30, 60, 110))
    text = Image.new("RGB", (280, 40), (30, 60, 110))
    td = ImageDraw.Draw(text)
    f = font(30)
    tw = td.textlength("BAKERY", font=f)
    td.text(((280 - tw) / 2, 3), "BAKERY", font=f, fill=(250, 236, 170))
    td.rectangle([0, 0, 279, 39], outline=(250, 236, 170), width=2)
    img.paste(text.resize((96, 40), Image.LANCZOS), (x0, y0))
    # awning: red and white stripes along the wall, with a scalloped lower edge hint
    x0, y0, x1, y1 = B["awning"]
    for k in range(8):
        d.rectangle([x0 + k * 12, y0, x0 + k * 12 + 11, y1 - 1], fill=(196, 40, 40) if k % 2 == 0 else (238, 236, 226))
    # eave boards and chimney brick
    x0, y0, x1, y1 = B["eave"]
    img.paste(to_img(colour_field(y1 - y0, x1 - x0, (236, 232, 222), 21, mottle=3, fine=2)), (x0, y0))
    for k in range(0, 96, 8):
        d.line([(x0, y0 + k), (x1, y0 + k)], fill=(200, 196, 186))
    x0, y0, x1, y1 = B["chimney"]
    img.paste(to_img(m_pavers(y1 - y0, x1 - x0, 22, bw=10, bh=4, base=(140, 64, 48), joint=-30, vary=12)), (x0, y0))
    x0, y0, x1, y1 = B["slab"]
    img.paste(to_img(colour_field(y1 - y0, x1 - x0, (170, 168, 162), 23, mottle=5, fine=3)), (x0, y0))

    # roofs: red clay tiles and grey slate in courses running along the eave (u),
    # the eave at the bottom of the region; a flat gravel roof
    for name, base, course, vary in (("roof_red", (168, 70, 48), 8, 18), ("roof_slate", (88, 92, 100), 7, 10)):
        x0, y0, x1, y1 = B[name]
        h, w = y1 - y0, x1 - x0
        a = m_pavers(h, w, 30 + len(name), bw=course + 4, bh=course, base=base, joint=0, vary=vary)
        yy = np.arange(h)[:, None]
        shade = ((yy % course) / course) * 34.0 - 12.0  # each course darker toward its lower edge
        a += shade[..., None]
        img.paste(to_img(a), (x0, y0))
    x0, y0, x1, y1 = B["roof_flat"]
    img.paste(to_img(m_gravel(y1 - y0, x1 - x0, 33, base=(132, 130, 124))), (x0, y0))
    # glass, metal, railing
    x0, y0, x1, y1 = B["glass"]
    img.paste(to_img(colour_field(64, 64, (70, 96, 120), 34, mottle=8, fine=2)), (x0, y0))
    x0, y0, x1, y1 = B["metal"]
    img.paste(to_img(colour_field(64, 64, (150, 154, 158), 35, mottle=6, fine=3)), (x0, y0))
    for k in range(0, 64, 6):
        d.line([(x0, y0 + k), (x1, y0 + k)], fill=(120, 124, 128))
    x0, y0, x1, y1 = B["railing"]
    d.rectangle([x0, y0, x1 - 1, y1 - 1], fill=(196, 192, 184))
    d.rectangle([x0, y0, x1 - 1, y0 + 5], fill=(90, 94, 100))
    for k in range(0, 64, 8):
        d.line([(x0 + k, y0), (x0 + k, y1)], fill=(90, 94, 100), width=2)
    # the apartment block's far LOD: whole facades, 5 px per meter
    for name, bays in (("apt_front_lod", 7), ("apt_side_lod", 4)):
        x0, y0, x1, y1 = B[name]
        w, h = x1 - x0, y1 - y0
        img.paste(to_img(wall_material("concrete", h, w, 40 + bays)), (x0, y0))
        floor_h = 15  # 3 m
        for f_i in range(4):
            yb = y1 - 4 - f_i * floor_h  # bottom of storey f_i
            for b_i in range(bays):
                bx = x0 + b_i * w / bays
                if name == "apt_front_lod" and f_i == 0 and b_i == bays // 2:
                    d.rectangle([bx + 4, yb - 12, bx + w / bays - 4, yb], fill=(90, 90, 96))
                else:
                    d.rectangle([bx + 3, yb - 10, bx + w / bays - 3, yb - 4], fill=(70, 90, 110))
        d.rectangle([x0, y0, x1 - 1, y0 + 3], fill=(170, 168, 162))
    img.save(os.path.join(TEX, "buildings.png"), optimize=True)
    print("%-20s %dx%d %7d bytes" % ("buildings.png", W, H, os.path.getsize(os.path.join(TEX, "buildings.png"))))
    return img


# =========================================================================== props.png
def props():
    W, H = atlas.PROPS_SIZE
    img = Image.new("RGB", (W, H), (110, 110, 110))
    d = ImageDraw.Draw(img)
    P = atlas.PROPS
    x0, y0, x1, y1 = P["wood"]
    a = colour_field(y1 - y0, x1 - x0, (150, 104, 64), 50, mottle=10, cell=6, fine=5, tint=(1.0, 0.8, 0.6))
    a[:, ::3] += 6
    img.paste(to_img(a), (x0, y0))
    for k in range(0, 128, 32):
        d.line([(x0, y0 + k), (x1, y0 + k)], fill=(90, 60, 36), width=2)
    x0, y0, x1, y1 = P["fence_paint"]
    a = colour_field(y1 - y0, x1 - x0, (236, 234, 226), 51, mottle=5, cell=8, fine=3)
    img.paste(to_img(a), (x0, y0))
    x0, y0, x1, y1 = P["dark_metal"]
    img.paste(to_img(colour_field(128, 128, (58, 62, 64), 52, mottle=5, fine=3)), (x0, y0))
    x0, y0, x1, y1 = P["lamp_glow"]
    yy, xx = np.mgrid[0:128, 0:128]
    r = np.hypot(yy - 64, xx - 64) / 64
    glow = np.dstack([255 - 20 * r, 244 - 50 * r, 200 - 90 * r])
    img.paste(to_img(glow), (x0, y0))
    x0, y0, x1, y1 = P["concrete"]
    img.paste(to_img(colour_field(128, 128, (170, 168, 160), 53, mottle=6, fine=4)), (x0, y0))
    x0, y0, x1, y1 = P["green_metal"]
    img.paste(to_img(colour_field(128, 128, (44, 84, 60), 54, mottle=6, fine=3)), (x0, y0))
    x0, y0, x1, y1 = P["post_wood"]
    a = colour_field(y1 - y0, x1 - x0, (226, 224, 214), 55, mottle=6, cell=6, fine=3)
    img.paste(to_img(a), (x0, y0))
    # the unused lower part: a plain mid grey, labelled so nobody mistakes it for art
    d.rectangle([256, 256, 511, 511], fill=(128, 128, 128))
    img.save(os.path.join(TEX, "props.png"), optimize=True)
    print("%-20s %dx%d %7d bytes" % ("props.png", W, H, os.path.getsize(os.path.join(TEX, "props.png"))))


# =========================================================================== facade_brick.png
def facade_brick():
    """512 x 512, 32 px = 1 m. Rows as brick.fac describes them (t up from the bottom):
    0-128 ground floor, 128-224 one upper floor, 224-288 cornice, 320-512 roof."""
    W = H = 512
    img = Image.new("RGB", (W, H), (60, 60, 60))
    d = ImageDraw.Draw(img)
    brick = m_pavers(288, 512, 60, bw=14, bh=5, base=(150, 70, 50), joint=-34, vary=18)
    img.paste(to_img(brick), (0, H - 288))

    def Y(t):
        return H - t

    # ground floor (t 0..128): shop windows between piers, a stone plinth
    for b in range(4):
        sx = 32 + b * 112
        d.rectangle([sx + 10, Y(110), sx + 102, Y(14)], fill=(230, 226, 214))
        d.rectangle([sx + 14, Y(106), sx + 98, Y(14)], fill=(64, 84, 100))
        d.polygon([(sx + 14, Y(60)), (sx + 50, Y(106)), (sx + 64, Y(106)), (sx + 14, Y(40))], fill=(96, 120, 138))
        d.line([(sx + 56, Y(106)), (sx + 56, Y(14))], fill=(230, 226, 214), width=3)
    d.rectangle([0, Y(12), 511, Y(0) - 1], fill=(170, 164, 150))
    d.rectangle([0, Y(126), 511, Y(116)], fill=(196, 190, 176))  # fascia over the shops
    # upper floor (t 128..224): two sash windows per bay with stone lintels and sills
    for b in range(4):
        sx = 32 + b * 112
        for wx in (sx + 16, sx + 64):
            d.rectangle([wx - 3, Y(206), wx + 35, Y(200)], fill=(214, 208, 194))  # lintel
            d.rectangle([wx, Y(200), wx + 32, Y(146)], fill=(242, 240, 232))
            d.rectangle([wx + 3, Y(197), wx + 29, Y(149)], fill=(70, 92, 112))
            d.line([(wx + 3, Y(173)), (wx + 29, Y(173))], fill=(242, 240, 232), width=3)
            d.rectangle([wx - 4, Y(146), wx + 36, Y(140)], fill=(214, 208, 194))  # sill
    # cornice and parapet (t 224..288)
    d.rectangle([0, Y(240), 511, Y(224)], fill=(210, 204, 190))
    d.rectangle([0, Y(246), 511, Y(240)], fill=(180, 174, 160))
    for k in range(0, 512, 16):
        d.rectangle([k + 4, Y(238), k + 10, Y(228)], fill=(170, 164, 150))
    d.rectangle([0, Y(288), 511, Y(280)], fill=(196, 190, 176))
    # corner piers (s 0..32 and 480..512): quoins
    for sx in (0, 480):
        for k in range(0, 280, 20):
            w = 30 if (k // 20) % 2 == 0 else 22
            x = sx if sx == 0 else 512 - w
            d.rectangle([x, Y(k + 18), x + w - 1, Y(k)], fill=(206, 198, 182))
    # roof (t 320..512): tar paper with gravel and a hatch
    roof = m_gravel(192, 512, 61, base=(96, 94, 92))
    img.paste(to_img(roof), (0, 0))
    d.rectangle([200, 60, 260, 110], fill=(150, 150, 150), outline=(90, 90, 90), width=3)
    d.rectangle([0, Y(320), 511, Y(288) - 1], fill=(60, 60, 60))
    img.save(os.path.join(TEX, "facade_brick.png"), optimize=True)
    print("%-20s %dx%d %7d bytes" % ("facade_brick.png", W, H, os.path.getsize(os.path.join(TEX, "facade_brick.png"))))


# =========================================================================== facade_brick_LIT.png
def facade_brick_lit():
    """The night texture of facade_brick.png (`TEXTURE_LIT` in brick.fac): black, with the
    shop windows lit warm and every other sash window above lit a paler yellow, at the same
    pixels as the day texture's panes."""
    W = H = 512
    img = Image.new("RGB", (W, H), (0, 0, 0))
    d = ImageDraw.Draw(img)

    def Y(t):
        return H - t

    for b in range(4):
        sx = 32 + b * 112
        d.rectangle([sx + 14, Y(106), sx + 98, Y(14)], fill=(255, 214, 150))
        d.line([(sx + 56, Y(106)), (sx + 56, Y(14))], fill=(0, 0, 0), width=3)
        for k, wx in enumerate((sx + 16, sx + 64)):
            if (b + k) % 2 == 0:
                d.rectangle([wx + 3, Y(197), wx + 29, Y(149)], fill=(255, 220, 150))
                d.line([(wx + 3, Y(173)), (wx + 29, Y(173))], fill=(0, 0, 0), width=3)
    img.save(os.path.join(TEX, "facade_brick_LIT.png"), optimize=True)
    print("%-20s %dx%d %7d bytes" % ("facade_brick_LIT.png", W, H, os.path.getsize(os.path.join(TEX, "facade_brick_LIT.png"))))


# =========================================================================== trees.png
def tree_sprite(w, h, kind, seed):
    """An RGBA sprite (w x h) of one tree, trunk at the bottom centre."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    alpha = np.zeros((h, w), np.float32)
    rgb = np.zeros((h, w, 3), np.float32)
    cx = w / 2

    leaf_noise = value_noise(h, w, 7, seed + 5, octaves=2)
    clump_noise = value_noise(h, w, 18, seed + 6, octaves=2)

    def blobs(shape_fn, n, rmin, rmax, base, light):
        """A canopy: the union of many small leaf clusters inside an envelope, lit as
        one volume from the upper left, with darker gaps between the clumps."""
        nonlocal alpha, rgb
        mask = np.zeros((h, w), bool)
        centres = []
        for _ in range(n * 3):
            for _try in range(50):
                px, py = rng.uniform(3, w - 3), rng.uniform(3, h - 3)
                if shape_fn(px, py):
                    break
            else:
                continue
            r = rng.uniform(rmin, rmax) * 0.6
            mask |= np.hypot(xx - px, yy - py) < r
            centres.append((px, py))
        cs = np.array(centres)
        ccx, ccy = cs[:, 0].mean(), cs[:, 1].mean()
        ex = max(1.0, np.abs(cs[:, 0] - ccx).max())
        ey = max(1.0, np.abs(cs[:, 1] - ccy).max())
        # volume lighting: brighter toward the upper left of the crown
        nx, ny = (xx - ccx) / ex, (yy - ccy) / ey
        lit = np.clip(0.55 - 0.35 * nx - 0.45 * ny, 0, 1)
        tone = 0.62 + 0.5 * lit + 0.16 * leaf_noise + 0.12 * clump_noise
        gaps = (clump_noise < -0.35) & (leaf_noise < -0.1)
        tone = np.where(gaps, tone * 0.6, tone)
        col = np.array(base, np.float32)[None, None, :] * tone[..., None]
        rgb[mask] = col[mask]
        # ragged silhouette: drop a few edge pixels
        edge = mask & ~np.asarray(Image.fromarray((mask * 255).astype(np.uint8)).filter(ImageFilter.MinFilter(3))).astype(bool)
        keep = ~(edge & (rng.random((h, w)) < 0.35))
        alpha[mask & keep] = 255

    def trunk(x0, x1, top, colour, birch=False):
        m = (xx >= x0) & (xx < x1) & (yy >= top)
        rgb[m] = colour
        if birch:
            marks = m & (((yy.astype(int) // 5) % 4) == 0) & (rng.random((h, w)) < 0.7)
            rgb[marks] = (40, 40, 40)
        alpha[m] = 255

    bark = (92, 70, 50)
    if kind == "lime":
        trunk(cx - 5, cx + 5, h * 0.55, bark)
        blobs(lambda x, y: ((x - cx) / (w * 0.42)) ** 2 + ((y - h * 0.38) / (h * 0.32)) ** 2 < 1, 90, 9, 18,
              (70, 118, 48), 1)
    elif kind == "oak":
        trunk(cx - 7, cx + 7, h * 0.5, (84, 66, 50))
        blobs(lambda x, y: ((x - cx) / (w * 0.45)) ** 2 + ((y - h * 0.36) / (h * 0.3)) ** 2 < 1, 110, 8, 17,
              (62, 98, 44), 1)
    elif kind == "poplar":
        trunk(cx - 4, cx + 4, h * 0.8, bark)
        blobs(lambda x, y: ((x - cx) / (w * 0.2)) ** 2 + ((y - h * 0.45) / (h * 0.42)) ** 2 < 1, 90, 6, 11,
              (84, 122, 56), 1)
    elif kind == "birch":
        trunk(cx - 4, cx + 4, h * 0.3, (226, 224, 214), birch=True)
        blobs(lambda x, y: ((x - cx) / (w * 0.34)) ** 2 + ((y - h * 0.35) / (h * 0.3)) ** 2 < 1, 70, 6, 12,
              (120, 160, 72), 1)
        trunk(cx - 4, cx + 4, h * 0.62, (226, 224, 214), birch=True)
    elif kind == "cherry":
        trunk(cx - 5, cx + 5, h * 0.6, (96, 64, 56))
        blobs(lambda x, y: ((x - cx) / (w * 0.44)) ** 2 + ((y - h * 0.45) / (h * 0.26)) ** 2 < 1, 90, 7, 14,
              (236, 170, 190), 1)
    elif kind in ("spruce", "small_fir"):
        trunk(cx - 4, cx + 4, h * 0.86, (80, 60, 44))
        layers = 9 if kind == "spruce" else 5
        for k in range(layers):
            top = h * 0.04 + k * (h * 0.84 / layers)
            bottom = top + h * 0.84 / layers * 1.9
            half = w * 0.46 * (k + 1) / layers
            tri = (yy >= top) & (yy <= bottom) & (np.abs(xx - cx) <= half * (yy - top) / (bottom - top) + 1)
            edge = rng.random((h, w)) < 0.25
            tri &= ~(edge & (np.abs(xx - cx) > half * (yy - top) / (bottom - top) - 3))
            shade = 0.75 + 0.35 * (xx < cx)
            col = np.array((40, 80, 52), np.float32)[None, None, :] * shade[..., None]
            col = col + rng.normal(0, 4, (h, w, 1))
            rgb[tri] = col[tri]
            alpha[tri] = 255
    elif kind == "pine":
        trunk(cx - 5, cx + 5, h * 0.3, (150, 90, 60))
        blobs(lambda x, y: ((x - cx) / (w * 0.46)) ** 2 + ((y - h * 0.22) / (h * 0.16)) ** 2 < 1, 70, 7, 13,
              (50, 90, 50), 1)
    elif kind == "bush":
        blobs(lambda x, y: ((x - cx) / (w * 0.44)) ** 2 + ((y - h * 0.6) / (h * 0.36)) ** 2 < 1, 60, 8, 16,
              (66, 110, 46), 1)
    # colour the transparent pixels with the mean leaf colour (no dark fringes when filtered)
    if (alpha > 0).any():
        mean = rgb[alpha > 0].mean(axis=0)
        rgb[alpha == 0] = mean
    return np.dstack([np.clip(rgb, 0, 255), alpha]).astype(np.uint8)


def trees():
    W = H = 512
    out = np.zeros((H, W, 4), np.uint8)
    # (s, t, w, h) in forest pixels (t up), as trees.for lists them
    layout = [
        ("lime", 0, 0, 128, 256), ("oak", 128, 0, 128, 256), ("spruce", 256, 0, 128, 256),
        ("poplar", 384, 0, 128, 256), ("birch", 0, 256, 128, 256), ("pine", 128, 256, 128, 256),
        ("cherry", 256, 256, 128, 256), ("bush", 384, 256, 128, 128), ("small_fir", 384, 384, 128, 128),
    ]
    for k, (kind, s, t, w, h) in enumerate(layout):
        spr = tree_sprite(w, h, kind, 70 + k)
        y0 = H - (t + h)
        out[y0:y0 + h, s:s + w] = spr
    img = Image.fromarray(out, "RGBA")
    img.save(os.path.join(TEX, "trees.png"), optimize=True)
    print("%-20s %dx%d %7d bytes" % ("trees.png", W, H, os.path.getsize(os.path.join(TEX, "trees.png"))))


# =========================================================================== car and kiosk art (DDS)
def car_art():
    W, H = atlas.CAR_SIZE
    img = Image.new("RGB", (W, H), (120, 120, 120))
    d = ImageDraw.Draw(img)
    C = atlas.CAR
    paint = (176, 36, 36)
    x0, y0, x1, y1 = C["paint"]
    a = colour_field(y1 - y0, x1 - x0, paint, 80, mottle=4, cell=40, fine=1.5)
    yy = np.arange(y1 - y0)[:, None]
    a += (20 - yy * 0.3)[..., None]
    img.paste(to_img(a), (x0, y0))
    x0, y0, x1, y1 = C["glass"]
    g = colour_field(y1 - y0, x1 - x0, (46, 58, 72), 81, mottle=5, fine=1.5)
    img.paste(to_img(g), (x0, y0))
    d.polygon([(x0 + 20, y1 - 4), (x0 + 60, y0 + 4), (x0 + 80, y0 + 4), (x0 + 40, y1 - 4)], fill=(90, 104, 120))
    x0, y0, x1, y1 = C["tire"]
    d.rectangle([x0, y0, x1 - 1, y1 - 1], fill=(26, 26, 28))
    d.ellipse([x0 + 14, y0 + 14, x1 - 15, y1 - 15], fill=(170, 172, 176))
    d.ellipse([x0 + 26, y0 + 26, x1 - 27, y1 - 27], fill=(110, 112, 116))
    x0, y0, x1, y1 = C["tread"]
    d.rectangle([x0, y0, x1 - 1, y1 - 1], fill=(34, 34, 36))
    for k in range(0, 64, 6):
        d.line([(x0, y0 + k), (x1, y0 + k)], fill=(20, 20, 22), width=2)
    for name, lights, lamp in (("front", True, (236, 236, 210)), ("rear", False, (200, 30, 30))):
        x0, y0, x1, y1 = C[name]
        img.paste(to_img(colour_field(y1 - y0, x1 - x0, paint, 82, mottle=4, fine=1.5)), (x0, y0))
        d.rectangle([x0 + 8, y0 + 12, x0 + 30, y0 + 26], fill=lamp)
        d.rectangle([x1 - 31, y0 + 12, x1 - 9, y0 + 26], fill=lamp)
        if lights:
            d.rectangle([x0 + 38, y0 + 14, x1 - 39, y0 + 30], fill=(30, 30, 32))
            for k in range(5):
                d.line([(x0 + 38, y0 + 16 + k * 3), (x1 - 39, y0 + 16 + k * 3)], fill=(70, 70, 72))
        else:
            d.rectangle([x0 + 44, y0 + 30, x1 - 45, y0 + 42], fill=(236, 236, 230))
        d.rectangle([x0, y1 - 14, x1 - 1, y1 - 1], fill=(40, 40, 42))  # bumper
    x0, y0, x1, y1 = C["side"]
    img.paste(to_img(colour_field(y1 - y0, x1 - x0, paint, 83, mottle=4, fine=1.5)), (x0, y0))
    d.line([(x0 + 96, y0 + 6), (x0 + 96, y1 - 12)], fill=(110, 20, 20), width=2)
    d.line([(x0 + 160, y0 + 6), (x0 + 160, y1 - 12)], fill=(110, 20, 20), width=2)
    d.rectangle([x0 + 104, y0 + 20, x0 + 116, y0 + 24], fill=(200, 200, 200))
    d.rectangle([x0 + 168, y0 + 20, x0 + 180, y0 + 24], fill=(200, 200, 200))
    d.rectangle([x0, y1 - 12, x1 - 1, y1 - 1], fill=(40, 40, 42))
    return img


def kiosk_art():
    W, H = atlas.KIOSK_SIZE
    img = Image.new("RGBA", (W, H), (0, 0, 0, 255))
    d = ImageDraw.Draw(img)
    K = atlas.KIOSK
    green = (40, 100, 70)
    for name in ("front", "side", "back"):
        x0, y0, x1, y1 = K[name]
        a = colour_field(y1 - y0, x1 - x0, green, 90 + len(name), mottle=5, cell=8, fine=3)
        a[:, ::8] -= 18  # vertical boards
        img.paste(to_img(a).convert("RGBA"), (x0, y0))
    x0, y0, x1, y1 = K["front"]
    d.rectangle([x0 + 14, y0 + 30, x1 - 15, y0 + 80], fill=(236, 232, 214, 255))
    d.rectangle([x0 + 18, y0 + 34, x1 - 19, y0 + 76], fill=(64, 74, 84, 255))
    d.rectangle([x0 + 10, y0 + 80, x1 - 11, y0 + 88], fill=(180, 140, 90, 255))  # counter
    for k in range(5):  # newspapers on the counter
        d.rectangle([x0 + 20 + k * 18, y0 + 66, x0 + 34 + k * 18, y0 + 80],
                    fill=((240, 240, 236, 255) if k % 2 else (236, 210, 120, 255)))
    x0, y0, x1, y1 = K["side"]
    for k, col in enumerate(((220, 70, 60), (60, 120, 200), (240, 200, 60))):
        px = x0 + 8 + k * 40
        d.rectangle([px, y0 + 24, px + 32, y0 + 84], fill=col + (255,))
        d.rectangle([px + 4, y0 + 30, px + 28, y0 + 40], fill=(250, 250, 250, 255))
    x0, y0, x1, y1 = K["roof"]
    for k in range(0, 128, 16):
        d.rectangle([x0 + k, y0, x0 + k + 7, y1 - 1], fill=(190, 50, 40, 255))
        d.rectangle([x0 + k + 8, y0, x0 + k + 15, y1 - 1], fill=(236, 232, 220, 255))
    # the cut-out sign: letters on a transparent background (alpha 0), with a
    # soft 1-pixel edge so DXT5's interpolated alpha has something to do
    x0, y0, x1, y1 = K["sign"]
    # the mesh stretches this 128 x 64 region over a 2.4 x 0.6 m board (4:1), so the
    # letters are drawn on a 256 x 64 canvas and squeezed to half width
    wide = Image.new("L", (2 * (x1 - x0), y1 - y0), 0)
    sd = ImageDraw.Draw(wide)
    f = font(44)
    tw = sd.textlength("KIOSK", font=f)
    sd.text(((wide.width - tw) / 2, 2), "KIOSK", font=f, fill=255)
    sd.rectangle([16, wide.height - 9, wide.width - 17, wide.height - 4], fill=255)  # a bar under the letters
    sign = wide.resize((x1 - x0, y1 - y0), Image.LANCZOS)
    sign = sign.filter(ImageFilter.GaussianBlur(0.6))
    sign_rgb = Image.new("RGBA", (x1 - x0, y1 - y0), (250, 200, 40, 0))
    sign_rgb.putalpha(sign)
    img.paste(sign_rgb, (x0, y0))
    return img


# =========================================================================== BC1 / BC3 encoder
def _to565(c):
    c = c.astype(np.int32)
    return ((c[..., 0] >> 3) << 11) | ((c[..., 1] >> 2) << 5) | (c[..., 2] >> 3)


def _from565(v):
    r = (v >> 11) & 31
    g = (v >> 5) & 63
    b = v & 31
    return np.stack([(r << 3) | (r >> 2), (g << 2) | (g >> 4), (b << 3) | (b >> 2)], -1).astype(np.int32)


def _blocks(rgba):
    """(H, W, 4) -> (H/4 * W/4, 16, 4), padding small images by edge replication."""
    h, w = rgba.shape[:2]
    ph, pw = max(4, (h + 3) // 4 * 4), max(4, (w + 3) // 4 * 4)
    if (ph, pw) != (h, w):
        rgba = np.pad(rgba, ((0, ph - h), (0, pw - w), (0, 0)), mode="edge")
    b = rgba.reshape(ph // 4, 4, pw // 4, 4, 4).transpose(0, 2, 1, 3, 4).reshape(-1, 16, 4)
    return b.astype(np.int32)


def _colour_blocks(b):
    """BC1 colour blocks (8 bytes each) in four-colour mode."""
    rgb = b[..., :3]
    hi, lo = rgb.max(axis=1), rgb.min(axis=1)
    c0, c1 = _to565(hi), _to565(lo)
    swap = c0 < c1
    c0, c1 = np.where(swap, c1, c0), np.where(swap, c0, c1)
    e0, e1 = _from565(c0), _from565(c1)
    pal = np.stack([e0, e1, (2 * e0 + e1) // 3, (e0 + 2 * e1) // 3], 1)  # (n, 4, 3)
    dist = ((rgb[:, :, None, :] - pal[:, None, :, :]) ** 2).sum(-1)  # (n, 16, 4)
    idx = dist.argmin(-1)
    idx[c0 == c1] = 0
    bits = (idx.astype(np.uint64) << (2 * np.arange(16, dtype=np.uint64))[None, :]).sum(1)
    out = np.zeros((len(b), 8), np.uint8)
    out[:, 0:2] = np.stack([c0 & 255, c0 >> 8], 1)
    out[:, 2:4] = np.stack([c1 & 255, c1 >> 8], 1)
    for k in range(4):
        out[:, 4 + k] = (bits >> np.uint64(8 * k)) & np.uint64(255)
    return out


def _alpha_blocks(b):
    """BC3 alpha blocks (8 bytes each), eight-value mode (a0 > a1)."""
    a = b[..., 3]
    a0, a1 = a.max(axis=1), a.min(axis=1)
    steps = np.arange(8)
    # palette for indices 0..7: a0, a1, then 6 interpolated values
    pal = np.zeros((len(b), 8), np.int32)
    pal[:, 0], pal[:, 1] = a0, a1
    for k in range(2, 8):
        pal[:, k] = ((8 - k) * a0 + (k - 1) * a1) // 7
    dist = np.abs(a[:, :, None] - pal[:, None, :])
    idx = dist.argmin(-1)
    idx[a0 == a1] = 0
    bits = (idx.astype(np.uint64) << (3 * np.arange(16, dtype=np.uint64))[None, :]).sum(1)
    out = np.zeros((len(b), 8), np.uint8)
    out[:, 0], out[:, 1] = a0, a1
    for k in range(6):
        out[:, 2 + k] = (bits >> np.uint64(8 * k)) & np.uint64(255)
    del steps
    return out


def mip_chain(img):
    levels = [img]
    w, h = img.size
    while w > 1 or h > 1:
        w, h = max(1, w // 2), max(1, h // 2)
        levels.append(levels[-1].resize((w, h), Image.BOX))
    return levels


def write_dds(path, img, fmt):
    """A DDS with a full mip chain; fmt 'DXT1' or 'DXT5'."""
    img = img.convert("RGBA")
    w, h = img.size
    assert w % 4 == 0 and h % 4 == 0
    levels = mip_chain(img)
    data = []
    for lv in levels:
        blocks = _blocks(np.asarray(lv))
        colour = _colour_blocks(blocks)
        if fmt == "DXT5":
            data.append(np.concatenate([_alpha_blocks(blocks), colour], 1).tobytes())
        else:
            data.append(colour.tobytes())
    block_bytes = 8 if fmt == "DXT1" else 16
    DDSD_CAPS, DDSD_HEIGHT, DDSD_WIDTH, DDSD_PIXELFORMAT = 0x1, 0x2, 0x4, 0x1000
    DDSD_MIPMAPCOUNT, DDSD_LINEARSIZE = 0x20000, 0x80000
    DDPF_FOURCC = 0x4
    DDSCAPS_COMPLEX, DDSCAPS_TEXTURE, DDSCAPS_MIPMAP = 0x8, 0x1000, 0x400000
    flags = DDSD_CAPS | DDSD_HEIGHT | DDSD_WIDTH | DDSD_PIXELFORMAT | DDSD_MIPMAPCOUNT | DDSD_LINEARSIZE
    linear = (w // 4) * (h // 4) * block_bytes
    header = struct.pack("<4sIIIIIII", b"DDS ", 124, flags, h, w, linear, 0, len(levels))
    header += b"\0" * 44  # dwReserved1[11]
    header += struct.pack("<II4sIIIII", 32, DDPF_FOURCC, fmt.encode(), 0, 0, 0, 0, 0)
    header += struct.pack("<IIIII", DDSCAPS_COMPLEX | DDSCAPS_TEXTURE | DDSCAPS_MIPMAP, 0, 0, 0, 0)
    assert len(header) == 128
    with open(path, "wb") as f:
        f.write(header)
        for blob in data:
            f.write(blob)
    print("%-20s %dx%d %s, %d mips %7d bytes" % (os.path.basename(path), w, h, fmt, len(levels),
                                                os.path.getsize(path)))


# =========================================================================== main
def main():
    os.makedirs(TEX, exist_ok=True)
    ground_block()
    ground_string()
    ground_plaza()
    buildings()
    props()
    facade_brick()
    facade_brick_lit()
    trees()
    write_dds(os.path.join(TEX, "car.dds"), car_art(), "DXT1")
    write_dds(os.path.join(TEX, "kiosk.dds"), kiosk_art(), "DXT5")


if __name__ == "__main__":
    main()
