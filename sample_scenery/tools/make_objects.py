#!/usr/bin/env python3
"""Writes the OBJ8 meshes of the sample scenery (sample_scenery/objects/*.obj).

Run from anywhere:  python3 sample_scenery/tools/make_objects.py

Conventions (X-Plane OBJ8):
  * meters; +X east, +Y up, +Z south; the origin is the centre of the footprint
    on the ground, so an autogen annotation's pixel is where the middle of the
    building stands.
  * the front of every object (front door, shop window, car bonnet, the side a
    bench is sat on from) faces -Z, i.e. north at heading 0.
  * triangles are wound clockwise seen from the front, as X-Plane draws them
    (xptools' AC3D importer reverses every OBJ8 triangle to get AC3D's
    counter-clockwise order); every vertex carries its face normal.
  * texture coordinates have t = 0 at the bottom of the image.
"""

import math
import os
import sys

sys.dont_write_bytecode = True  # keep tools/ free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import atlas  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "objects")


# --------------------------------------------------------------------------
# vector helpers
def sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def add(a, b):
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


def mul(a, k):
    return (a[0] * k, a[1] * k, a[2] * k)


def dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def norm(a):
    length = math.sqrt(dot(a, a))
    return (a[0] / length, a[1] / length, a[2] / length)


def newell(pts):
    """Normal of a planar polygon; points counter-clockwise seen from the tip."""
    n = [0.0, 0.0, 0.0]
    for i, p in enumerate(pts):
        q = pts[(i + 1) % len(pts)]
        n[0] += (p[1] - q[1]) * (p[2] + q[2])
        n[1] += (p[2] - q[2]) * (p[0] + q[0])
        n[2] += (p[0] - q[0]) * (p[1] + q[1])
    return norm(tuple(n))


# --------------------------------------------------------------------------
class Mesh:
    """Vertices (x y z nx ny nz s t), an index list, and LOD ranges over it."""

    def __init__(self, texture, size):
        self.texture = texture
        self.size = size
        self.verts = []
        self.idx = []
        self.lods = []  # (near, far, first index, count)
        self._lod_start = 0

    def poly(self, pts, uvs, outward):
        """A convex planar polygon facing `outward` (a rough direction is enough)."""
        n = newell(pts)
        if dot(n, outward) < 0:
            pts = list(reversed(pts))
            uvs = list(reversed(uvs))
            n = mul(n, -1.0)
        base = len(self.verts)
        for p, t in zip(pts, uvs):
            self.verts.append((p, n, t))
        # pts run counter-clockwise seen from the front; X-Plane wants clockwise
        for i in range(1, len(pts) - 1):
            self.idx += [base, base + i + 1, base + i]

    def region_poly(self, pts, region, origin, u_axis, v_axis, su, sv, outward):
        """A polygon textured by planar projection into an atlas region.

        u = dot(p - origin, u_axis) / su and v likewise, both clamped to 0..1, are
        the fractions across the region (v from its bottom edge).
        """
        uvs = []
        for p in pts:
            d = sub(p, origin)
            fu = min(1.0, max(0.0, dot(d, u_axis) / su))
            fv = min(1.0, max(0.0, dot(d, v_axis) / sv))
            uvs.append(atlas.uv(self.size, region, fu, fv))
        self.poly(pts, uvs, outward)

    def quad(self, a, b, c, d, region, outward, f=(0.0, 0.0, 1.0, 1.0)):
        """Quad a-b-c-d (bottom-left, bottom-right, top-right, top-left seen from the
        front) mapped onto the fraction f = (fx0, fy0, fx1, fy1) of a region."""
        fx0, fy0, fx1, fy1 = f
        uvs = [
            atlas.uv(self.size, region, fx0, fy0),
            atlas.uv(self.size, region, fx1, fy0),
            atlas.uv(self.size, region, fx1, fy1),
            atlas.uv(self.size, region, fx0, fy1),
        ]
        self.poly([a, b, c, d], uvs, outward)

    def end_lod(self, near, far):
        count = len(self.idx) - self._lod_start
        self.lods.append((near, far, self._lod_start, count))
        self._lod_start = len(self.idx)

    def triangles(self):
        return len(self.idx) // 3

    def bounds(self):
        xs = [v[0][0] for v in self.verts]
        ys = [v[0][1] for v in self.verts]
        zs = [v[0][2] for v in self.verts]
        return (min(xs), min(ys), min(zs)), (max(xs), max(ys), max(zs))

    def write(self, name, comment):
        if len(self.idx) > self._lod_start or not self.lods:
            # everything not yet in a LOD is drawn at every distance
            self.lods.append((None, None, self._lod_start, len(self.idx) - self._lod_start))
        lines = ["A", "800", "OBJ", ""]
        for c in comment.strip().splitlines():
            lines.append("# " + c if c else "#")
        (x0, y0, z0), (x1, y1, z1) = self.bounds()
        lines.append(
            "# %d vertices, %d triangles; bounds x %.2f..%.2f  y %.2f..%.2f  z %.2f..%.2f"
            % (len(self.verts), self.triangles(), x0, x1, y0, y1, z0, z1)
        )
        lines.append("")
        lines.append("TEXTURE %s" % self.texture)
        lines.append("POINT_COUNTS %d 0 0 %d" % (len(self.verts), len(self.idx)))
        lines.append("")
        for p, n, t in self.verts:
            lines.append(
                "VT %8.3f %8.3f %8.3f   %7.4f %7.4f %7.4f   %.5f %.5f"
                % (p[0], p[1], p[2], n[0], n[1], n[2], t[0], t[1])
            )
        lines.append("")
        i = 0
        while i + 10 <= len(self.idx):
            lines.append("IDX10 " + " ".join(str(k) for k in self.idx[i : i + 10]))
            i += 10
        while i < len(self.idx):
            lines.append("IDX %d" % self.idx[i])
            i += 1
        lines.append("")
        for near, far, first, count in self.lods:
            if near is not None:
                lines.append("ATTR_LOD %g %g" % (near, far))
            lines.append("TRIS %d %d" % (first, count))
        lines.append("")
        path = os.path.join(OUT, name)
        with open(path, "w", newline="\n") as f:
            f.write("\n".join(lines))
        print("%-24s %4d tris  %s" % (name, self.triangles(), self.texture))


# --------------------------------------------------------------------------
# building parts
B = atlas.BUILDINGS
UP = (0.0, 1.0, 0.0)
DOWN = (0.0, -1.0, 0.0)


def box(m, x0, x1, y0, y1, z0, z1, region, top=None, bottom=False, sides=None):
    """An axis-aligned box. `sides` optionally maps 'n','s','e','w' to regions."""
    sides = sides or {}
    top = top or region
    nw, ne = (x0, z0), (x1, z0)
    sw, se = (x0, z1), (x1, z1)
    faces = [
        ("n", ne, nw, (0, 0, -1)),
        ("w", nw, sw, (-1, 0, 0)),
        ("s", sw, se, (0, 0, 1)),
        ("e", se, ne, (1, 0, 0)),
    ]
    for key, a, b, out in faces:
        r = sides.get(key, region)
        m.quad((a[0], y0, a[1]), (b[0], y0, b[1]), (b[0], y1, b[1]), (a[0], y1, a[1]), r, out)
    m.quad((x0, y1, z1), (x1, y1, z1), (x1, y1, z0), (x0, y1, z0), top, UP)
    if bottom:
        m.quad((x0, y0, z0), (x1, y0, z0), (x1, y0, z1), (x0, y0, z1), region, DOWN)


def footprint(w, d):
    """Corners counter-clockwise seen from above with north up: NE, NW, SW, SE.
    Walking from one corner to the next keeps the outside on the right."""
    return [(w / 2, -d / 2), (-w / 2, -d / 2), (-w / 2, d / 2), (w / 2, d / 2)]


def wall_bays(m, a, b, y0, y1, cells, outward):
    """One storey of a wall from a to b (left to right seen from outside), split into
    equal bays, each textured with a whole wall cell."""
    n = len(cells)
    for i, cell in enumerate(cells):
        p = (a[0] + (b[0] - a[0]) * i / n, a[1] + (b[1] - a[1]) * i / n)
        q = (a[0] + (b[0] - a[0]) * (i + 1) / n, a[1] + (b[1] - a[1]) * (i + 1) / n)
        m.quad((p[0], y0, p[1]), (q[0], y0, q[1]), (q[0], y1, q[1]), (p[0], y1, p[1]), B[cell], outward)


def walls(m, w, d, floors, floor_h, style, door_floor0=True, y_base=0.0, front_cells=None):
    """Walls of a rectangular building with window bays on every storey and a door
    in the middle of the ground-floor front."""
    corners = footprint(w, d)
    outs = [(0, 0, -1), (-1, 0, 0), (0, 0, 1), (1, 0, 0)]
    for f in range(floors):
        y0 = y_base + f * floor_h
        y1 = y0 + floor_h
        for k in range(4):
            a, b = corners[k], corners[(k + 1) % 4]
            length = math.hypot(b[0] - a[0], b[1] - a[1])
            n = max(1, int(round(length / 3.0)))
            cells = [style + "_window"] * n
            if k == 0 and f == 0 and door_floor0:
                cells[n // 2] = style + "_door"
            if k == 0 and f == 0 and front_cells:
                cells = front_cells
            wall_bays(m, a, b, y0, y1, cells, outs[k])


def gable_roof(m, w, d, wall_h, pitch_deg, overhang, roof, wall_plain, ridge_along_x=True):
    """A pitched roof with two planes, gable triangles, and eave undersides."""
    tp = math.tan(math.radians(pitch_deg))
    if ridge_along_x:
        span, length = d, w
    else:
        span, length = w, d
    half = span / 2 + overhang
    ridge_y = wall_h + (span / 2) * tp
    eave_y = wall_h - overhang * tp
    slope_len = half / math.cos(math.radians(pitch_deg))
    L = length / 2 + overhang
    region = B[roof]
    rw, rh = 12.0, 8.0  # meters the roof region stands for

    def P(along, across, y):
        # along the ridge, across it; maps to x/z depending on the ridge direction
        return (along, y, across) if ridge_along_x else (across, y, along)

    for side in (-1, 1):
        e1 = P(-L, side * half, eave_y)
        e2 = P(L, side * half, eave_y)
        r2 = P(L, 0.0, ridge_y)
        r1 = P(-L, 0.0, ridge_y)
        out = P(0.0, side * 1.0, 1.0 / max(tp, 0.01))
        out = norm(out)
        u_axis = norm(sub(e2, e1))
        v_axis = norm(sub(r1, e1))
        su = max(rw, 2 * L)
        m.region_poly([e1, e2, r2, r1], region, e1, u_axis, v_axis, su, max(rh, slope_len), out)
        # underside of the overhang, 3 cm below the roof skin
        drop = (0.0, -0.03, 0.0)
        wall_line = P(-L, side * span / 2, wall_h - 0.03)
        wall_line2 = P(L, side * span / 2, wall_h - 0.03)
        m.quad(add(e2, drop), add(e1, drop), wall_line, wall_line2, B["eave"], mul(out, -1.0))
        # fascia board along the eave
        f1 = add(e1, (0.0, -0.18, 0.0))
        f2 = add(e2, (0.0, -0.18, 0.0))
        fout = P(0.0, side * 1.0, 0.0)
        m.quad(f1, f2, e2, e1, B["eave"], fout, f=(0.0, 0.0, 1.0, 0.2))
    # gable triangles on the two ends, flush with the walls
    for end in (-1, 1):
        a = P(end * length / 2, -span / 2, wall_h)
        b = P(end * length / 2, span / 2, wall_h)
        c = P(end * length / 2, 0.0, ridge_y)
        out = P(end * 1.0, 0.0, 0.0)
        u_axis = norm(sub(b, a))
        m.region_poly([a, b, c], B[wall_plain], a, u_axis, UP, span, ridge_y - wall_h, out)
    return ridge_y


def hip_roof(m, w, d, wall_h, pitch_deg, overhang, roof):
    """A hipped roof (ridge along x, w > d): two trapezoids and two triangles."""
    tp = math.tan(math.radians(pitch_deg))
    hx, hz = w / 2 + overhang, d / 2 + overhang
    ridge_y = wall_h + (d / 2) * tp
    eave_y = wall_h - overhang * tp
    rx = w / 2 - d / 2
    region = B[roof]
    ne, nw = (hx, eave_y, -hz), (-hx, eave_y, -hz)
    sw, se = (-hx, eave_y, hz), (hx, eave_y, hz)
    re, rwst = (rx, ridge_y, 0.0), (-rx, ridge_y, 0.0)
    slope_len = hz / math.cos(math.radians(pitch_deg))
    planes = [
        ([ne, nw, rwst, re], (0, 1 / tp, -1)),
        ([sw, se, re, rwst], (0, 1 / tp, 1)),
        ([nw, sw, rwst], (-1, 1 / tp, 0)),
        ([se, ne, re], (1, 1 / tp, 0)),
    ]
    for pts, out in planes:
        out = norm(out)
        u_axis = norm(sub(pts[1], pts[0]))
        v_axis = norm(cross(out, u_axis))
        if dot(v_axis, UP) < 0:
            v_axis = mul(v_axis, -1.0)
        su = max(12.0, math.dist(pts[0], pts[1]))
        m.region_poly(pts, region, pts[0], u_axis, v_axis, su, max(8.0, slope_len), out)
    # flat soffit under the overhang all round (one quad per side)
    y = wall_h - 0.03
    hw, hd = w / 2, d / 2
    ring_out = [(hx, hz), (-hx, hz), (-hx, -hz), (hx, -hz)]
    ring_in = [(hw, hd), (-hw, hd), (-hw, -hd), (hw, -hd)]
    for k in range(4):
        o1, o2 = ring_out[k], ring_out[(k + 1) % 4]
        i1, i2 = ring_in[k], ring_in[(k + 1) % 4]
        m.poly(
            [(o1[0], eave_y - 0.03, o1[1]), (o2[0], eave_y - 0.03, o2[1]), (i2[0], y, i2[1]), (i1[0], y, i1[1])],
            [atlas.uv(m.size, B["eave"], f, g) for f, g in ((0, 0), (1, 0), (1, 1), (0, 1))],
            DOWN,
        )
    return ridge_y


def chimney(m, x, z, y0, y1, size=0.6):
    s = size / 2
    box(m, x - s, x + s, y0, y1, z - s, z + s, B["chimney"], top=B["slab"])


# --------------------------------------------------------------------------
def house(name, w, d, floors, floor_h, style, roof, pitch, ridge_along_x=True, hip=False, chim=None, note=""):
    m = Mesh("../textures/buildings.png", atlas.BUILDINGS_SIZE)
    wall_h = floors * floor_h
    walls(m, w, d, floors, floor_h, style)
    if hip:
        ridge = hip_roof(m, w, d, wall_h, pitch, 0.5, roof)
    else:
        ridge = gable_roof(m, w, d, wall_h, pitch, 0.45, roof, style + "_plain", ridge_along_x)
    if chim:
        cx, cz = chim
        chimney(m, cx, cz, wall_h, ridge + 0.6)
    # a low plinth hides the join with sloping ground
    box(m, -w / 2 - 0.05, w / 2 + 0.05, -0.4, 0.0, -d / 2 - 0.05, d / 2 + 0.05, B["concrete_plain"])
    m.write(
        name,
        "%s\n%.0f m wide (x) by %.0f m deep (z), %d storey(s), ridge at %.1f m; front door faces -Z.\n%s"
        % (name, w, d, floors, ridge, note),
    )


def apartment_block():
    """20 x 12 m, four storeys, flat roof; two LODs."""
    m = Mesh("../textures/buildings.png", atlas.BUILDINGS_SIZE)
    w, d, fh, floors = 20.0, 12.0, 3.0, 4
    top = fh * floors
    par = 0.8
    walls(m, w, d, floors, fh, "concrete")
    # parapet: outside strip, inside faces, cap
    corners = footprint(w, d)
    outs = [(0, 0, -1), (-1, 0, 0), (0, 0, 1), (1, 0, 0)]
    t = 0.25
    inner = footprint(w - 2 * t, d - 2 * t)
    for k in range(4):
        a, b = corners[k], corners[(k + 1) % 4]
        m.quad((a[0], top, a[1]), (b[0], top, b[1]), (b[0], top + par, b[1]), (a[0], top + par, a[1]),
               B["concrete_plain"], outs[k], f=(0, 0, 1, par / 3.0))
        ia, ib = inner[k], inner[(k + 1) % 4]
        inw = mul(outs[k], -1.0)
        m.quad((ib[0], top, ib[1]), (ia[0], top, ia[1]), (ia[0], top + par, ia[1]), (ib[0], top + par, ib[1]),
               B["concrete_plain"], inw, f=(0, 0, 1, par / 3.0))
        m.poly([(a[0], top + par, a[1]), (b[0], top + par, b[1]), (ib[0], top + par, ib[1]), (ia[0], top + par, ia[1])],
               [atlas.uv(m.size, B["slab"], f, g) for f, g in ((0, 0), (1, 0), (1, 1), (0, 1))], UP)
    # gravel roof inside the parapet
    hw, hd = w / 2 - t, d / 2 - t
    m.quad((-hw, top, hd), (hw, top, hd), (hw, top, -hd), (-hw, top, -hd), B["roof_flat"], UP)
    # stair housing on the roof
    box(m, 4.0, 7.0, top, top + 2.6, -1.0, 2.0, B["concrete_plain"], top=B["slab"],
        sides={"n": B["concrete_door"]})
    # balconies on storeys 2-4 of the front, in bays 1 and 5 of 7
    bay = w / 7
    for f in range(1, floors):
        y = f * fh
        for b_i in (1, 5):
            x0 = w / 2 - (b_i + 1) * bay + 0.2
            x1 = w / 2 - b_i * bay - 0.2
            z0, z1 = -d / 2 - 1.2, -d / 2
            box(m, x0, x1, y - 0.15, y, z0, z1, B["slab"], bottom=True)
            # railing, both faces (the back face 2 cm behind the front one)
            for zz, out in ((z0, (0, 0, -1)), (z0 + 0.02, (0, 0, 1))):
                m.quad((x1, y, zz), (x0, y, zz), (x0, y + 1.0, zz), (x1, y + 1.0, zz), B["railing"], out)
    m.end_lod(0, 500)
    # far LOD: one box with the whole facade baked into small atlas regions
    h = top + par
    for k in range(4):
        a, b = corners[k], corners[(k + 1) % 4]
        reg = B["apt_front_lod"] if k % 2 == 0 else B["apt_side_lod"]
        m.quad((a[0], 0.0, a[1]), (b[0], 0.0, b[1]), (b[0], h, b[1]), (a[0], h, a[1]), reg, outs[k])
    m.quad((-w / 2, h, d / 2), (w / 2, h, d / 2), (w / 2, h, -d / 2), (-w / 2, h, -d / 2), B["roof_flat"], UP)
    m.end_lod(500, 3000)
    m.write(
        "apartment_block.obj",
        "apartment_block.obj\n20 m wide (x) by 12 m deep (z), 4 storeys of 3 m, parapet to 12.8 m;\n"
        "entrance and balconies on the -Z front. Two LODs: the detailed mesh 0-500 m, a\n"
        "textured box 500-3000 m.",
    )


def shop():
    """14 x 10 m single-storey shop with a glazed front, sign, awning, flat roof."""
    m = Mesh("../textures/buildings.png", atlas.BUILDINGS_SIZE)
    w, d = 14.0, 10.0
    glaze, top = 3.0, 4.8
    corners = footprint(w, d)
    outs = [(0, 0, -1), (-1, 0, 0), (0, 0, 1), (1, 0, 0)]
    # ground storey
    wall_bays(m, corners[0], corners[1], 0.0, glaze,
              ["shop_window", "shop_window", "shop_door", "shop_window", "shop_window"], outs[0])
    wall_bays(m, corners[1], corners[2], 0.0, glaze, ["plaster_window", "plaster_plain", "plaster_window"], outs[1])
    wall_bays(m, corners[2], corners[3], 0.0, glaze,
              ["plaster_plain", "plaster_door", "plaster_plain", "plaster_plain", "plaster_window"], outs[2])
    wall_bays(m, corners[3], corners[0], 0.0, glaze, ["plaster_window", "plaster_plain", "plaster_window"], outs[3])
    # upper band (plain plaster) all round
    for k in range(4):
        a, b = corners[k], corners[(k + 1) % 4]
        length = math.hypot(b[0] - a[0], b[1] - a[1])
        m.quad((a[0], glaze, a[1]), (b[0], glaze, b[1]), (b[0], top, b[1]), (a[0], top, a[1]),
               B["plaster_plain"], outs[k], f=(0, 0, min(1.0, length / 14.0), (top - glaze) / 3.0))
    # sign board, 8.4 m x 1.2 m, just proud of the front wall
    z = -d / 2 - 0.06
    m.quad((4.2, 3.35, z), (-4.2, 3.35, z), (-4.2, 4.55, z), (4.2, 4.55, z), B["shop_sign"], (0, 0, -1),
           f=(0.0, 0.58, 1.0, 1.0))
    # awning over the glazing: top and underside
    a0, a1 = (w / 2, 3.05, -d / 2), (-w / 2, 3.05, -d / 2)
    b0, b1 = (w / 2, 2.55, -d / 2 - 1.5), (-w / 2, 2.55, -d / 2 - 1.5)
    m.quad(b0, b1, a1, a0, B["awning"], (0, 1, -0.3))
    m.quad(add(b1, (0, -0.02, 0)), add(b0, (0, -0.02, 0)), add(a0, (0, -0.02, 0)), add(a1, (0, -0.02, 0)),
           B["awning"], (0, -1, 0.3))
    # valance along the front edge of the awning
    m.quad(add(b0, (0, -0.25, 0)), add(b1, (0, -0.25, 0)), b1, b0, B["awning"], (0, 0, -1), f=(0, 0, 1, 0.25))
    # parapet inside faces and flat roof 0.5 m below the top
    roof_y = top - 0.5
    inner = footprint(w - 0.4, d - 0.4)
    for k in range(4):
        ia, ib = inner[k], inner[(k + 1) % 4]
        a, b = corners[k], corners[(k + 1) % 4]
        m.quad((ib[0], roof_y, ib[1]), (ia[0], roof_y, ia[1]), (ia[0], top, ia[1]), (ib[0], top, ib[1]),
               B["concrete_plain"], mul(outs[k], -1.0), f=(0, 0, 1, 0.17))
        m.poly([(a[0], top, a[1]), (b[0], top, b[1]), (ib[0], top, ib[1]), (ia[0], top, ia[1])],
               [atlas.uv(m.size, B["slab"], f, g) for f, g in ((0, 0), (1, 0), (1, 1), (0, 1))], UP)
    hw, hd = w / 2 - 0.2, d / 2 - 0.2
    m.quad((-hw, roof_y, hd), (hw, roof_y, hd), (hw, roof_y, -hd), (-hw, roof_y, -hd), B["roof_flat"], UP)
    # a roof-top air-conditioning unit
    box(m, -4.0, -2.5, roof_y, roof_y + 1.0, 1.0, 2.2, B["metal"])
    box(m, -w / 2 - 0.05, w / 2 + 0.05, -0.4, 0.0, -d / 2 - 0.05, d / 2 + 0.05, B["concrete_plain"])
    m.write(
        "shop.obj",
        "shop.obj\n14 m wide (x) by 10 m deep (z), one storey (4.8 m with parapet); glazed\n"
        "shop front, sign and striped awning on the -Z side.",
    )


# --------------------------------------------------------------------------
def cylinder_x(m, cx, cy, cz, r, x0, x1, face_region, tread_region, n=8):
    """A cylinder along the x axis from x0 to x1 (a wheel)."""
    pts = [(cy + r * math.cos(2 * math.pi * i / n), cz + r * math.sin(2 * math.pi * i / n)) for i in range(n)]
    for i in range(n):
        (y0, z0), (y1, z1) = pts[i], pts[(i + 1) % n]
        mid = ((y0 + y1) / 2 - cy, (z0 + z1) / 2 - cz)
        out = (0.0, mid[0], mid[1])
        m.quad((x0, y0, z0), (x1, y0, z0), (x1, y1, z1), (x0, y1, z1), tread_region, out,
               f=(0.0, i / n, 1.0, (i + 1) / n))
    for x, out in ((x0, (-1, 0, 0)), (x1, (1, 0, 0))):
        poly = [(x, y, z) for y, z in pts]
        uvs = [atlas.uv(m.size, face_region, 0.5 + 0.5 * math.cos(2 * math.pi * i / n),
                        0.5 + 0.5 * math.sin(2 * math.pi * i / n)) for i in range(n)]
        m.poly(poly, uvs, out)


def car():
    m = Mesh("../textures/car.dds", atlas.CAR_SIZE)
    C = atlas.CAR
    hw, hl = 0.9, 2.15
    # lower body: sides use the side panel strip, ends the grille and tail
    box(m, -hw, hw, 0.28, 0.85, -hl, hl, C["paint"],
        sides={"n": C["front"], "s": C["rear"], "e": C["side"], "w": C["side"]}, bottom=True)
    # cabin: trapezoid in side view, glass all round, painted roof
    zb0, zb1 = -0.95, 1.35  # cabin foot (windscreen base, rear window base)
    zt0, zt1 = -0.35, 0.85  # roof front and back
    y0, y1 = 0.85, 1.42
    xb, xt = 0.84, 0.72
    # windscreen, rear window
    m.quad((xb, y0, zb0), (-xb, y0, zb0), (-xt, y1, zt0), (xt, y1, zt0), C["glass"], (0, 0.7, -0.7))
    m.quad((-xb, y0, zb1), (xb, y0, zb1), (xt, y1, zt1), (-xt, y1, zt1), C["glass"], (0, 0.7, 0.7))
    # side windows
    for s in (-1, 1):
        pts = [(s * xb, y0, zb0), (s * xb, y0, zb1), (s * xt, y1, zt1), (s * xt, y1, zt0)]
        uvs = [atlas.uv(m.size, C["glass"], f, g) for f, g in ((0, 0), (1, 0), (0.85, 1), (0.25, 1))]
        m.poly(pts, uvs, (s, 0.2, 0))
    m.quad((-xt, y1, zt1), (xt, y1, zt1), (xt, y1, zt0), (-xt, y1, zt0), C["paint"], UP)
    # wheels
    for zc in (-1.35, 1.35):
        for s in (-1, 1):
            x0, x1 = (0.66, 0.92) if s > 0 else (-0.92, -0.66)
            cylinder_x(m, 0.0, 0.32, zc, 0.32, x0, x1, C["tire"], C["tread"])
    m.write("car.obj", "car.obj\nA small hatchback, 4.3 m long (z) and 1.8 m wide; bonnet toward -Z.\n"
            "Textured with the DXT1 car.dds.")


def street_lamp():
    m = Mesh("../textures/props.png", atlas.PROPS_SIZE)
    P = atlas.PROPS
    box(m, -0.2, 0.2, 0.0, 0.35, -0.2, 0.2, P["concrete"])
    n, r = 8, 0.07
    pts = [(r * math.cos(2 * math.pi * i / n), r * math.sin(2 * math.pi * i / n)) for i in range(n)]
    for i in range(n):
        (x0, z0), (x1, z1) = pts[i], pts[(i + 1) % n]
        out = ((x0 + x1) / 2, 0.0, (z0 + z1) / 2)
        # counter-clockwise seen from outside means walking clockwise around +y
        m.quad((x1, 0.35, z1), (x0, 0.35, z0), (x0, 6.0, z0), (x1, 6.0, z1), P["dark_metal"], out,
               f=(i / n, 0, (i + 1) / n, 1))
    # arm toward -Z and the lamp head
    box(m, -0.04, 0.04, 5.85, 5.95, -1.3, 0.0, P["dark_metal"])
    box(m, -0.18, 0.18, 5.7, 5.95, -1.75, -1.15, P["green_metal"])
    m.quad((-0.16, 5.69, -1.73), (0.16, 5.69, -1.73), (0.16, 5.69, -1.17), (-0.16, 5.69, -1.17), P["lamp_glow"], DOWN)
    m.write("street_lamp.obj", "street_lamp.obj\nA 6 m street lamp; the arm and lamp head reach 1.75 m toward -Z.")


def bench():
    m = Mesh("../textures/props.png", atlas.PROPS_SIZE)
    P = atlas.PROPS
    for x in (-0.75, 0.75):
        box(m, x - 0.03, x + 0.03, 0.0, 0.43, -0.22, 0.18, P["green_metal"])
        box(m, x - 0.03, x + 0.03, 0.43, 0.85, 0.18, 0.24, P["green_metal"])
    for i, z in enumerate((-0.22, -0.08, 0.06)):
        box(m, -0.9, 0.9, 0.43, 0.47, z, z + 0.12, P["wood"], bottom=True)
    for y in (0.55, 0.7):
        box(m, -0.9, 0.9, y, y + 0.11, 0.16, 0.2, P["wood"])
    m.write("bench.obj", "bench.obj\nA 1.8 m park bench, seat toward -Z.")


def fence():
    m = Mesh("../textures/props.png", atlas.PROPS_SIZE)
    P = atlas.PROPS
    for x in (-2.0, 2.0):
        box(m, x - 0.05, x + 0.05, 0.0, 1.2, -0.05, 0.05, P["post_wood"])
    for y in (0.3, 0.8):
        box(m, -1.95, 1.95, y, y + 0.08, 0.02, 0.05, P["post_wood"])
    for i in range(9):
        x = -1.6 + i * 0.4
        box(m, x - 0.04, x + 0.04, 0.05, 1.05, -0.01, 0.01, P["fence_paint"])
    m.write("fence.obj", "fence.obj\nA 4 m picket fence segment along x (x from -2 to 2), posts at both ends.")


def kiosk():
    m = Mesh("../textures/kiosk.dds", atlas.KIOSK_SIZE)
    K = atlas.KIOSK
    s, h = 1.5, 2.5
    box(m, -s, s, 0.0, h, -s, s, K["back"], top=K["roof"],
        sides={"n": K["front"], "e": K["side"], "w": K["side"], "s": K["back"]})
    # serving counter under the hatch, a step along the front, a plinth
    box(m, -1.0, 1.0, 1.02, 1.1, -s - 0.35, -s, K["back"], bottom=True)
    box(m, -1.2, 1.2, 0.0, 0.15, -s - 0.5, -s, K["back"])
    box(m, -s - 0.05, s + 0.05, -0.3, 0.0, -s - 0.05, s + 0.05, K["back"])
    # pyramid roof with 0.4 m overhang
    o = s + 0.4
    apex = (0.0, h + 1.0, 0.0)
    ring = [(o, h - 0.1, -o), (-o, h - 0.1, -o), (-o, h - 0.1, o), (o, h - 0.1, o)]
    for k in range(4):
        a, b = ring[k], ring[(k + 1) % 4]
        out = norm((a[0] + b[0], 2.0, a[2] + b[2]))
        m.poly([a, b, apex], [atlas.uv(m.size, K["roof"], 0, 0), atlas.uv(m.size, K["roof"], 1, 0),
                              atlas.uv(m.size, K["roof"], 0.5, 1)], out)
    m.quad((o, h - 0.11, -o), (-o, h - 0.11, -o), (-o, h - 0.11, o), (o, h - 0.11, o), K["back"], DOWN)
    # cut-out sign on the front (alpha in the DXT5 texture), both faces
    z = -o - 0.02
    m.quad((1.2, h + 0.05, z), (-1.2, h + 0.05, z), (-1.2, h + 0.65, z), (1.2, h + 0.65, z), K["sign"], (0, 0, -1))
    m.quad((-1.2, h + 0.05, z + 0.01), (1.2, h + 0.05, z + 0.01), (1.2, h + 0.65, z + 0.01),
           (-1.2, h + 0.65, z + 0.01), K["sign"], (0, 0, 1))
    m.write("kiosk.obj", "kiosk.obj\nA 3 x 3 m news kiosk with a serving hatch and a cut-out sign on the -Z front.\n"
            "Textured with the DXT5 kiosk.dds (the sign needs its alpha).")


def main():
    os.makedirs(OUT, exist_ok=True)
    house("house_small.obj", 8.0, 7.0, 1, 2.9, "plaster", "roof_red", 40, chim=(2.0, 1.0),
          note="Cream plaster, red tiles, ridge along x.")
    house("house_medium.obj", 10.0, 8.0, 2, 2.8, "brick", "roof_red", 38, chim=(-3.0, -1.2),
          note="Red brick, red tiles, ridge along x.")
    house("house_large.obj", 12.0, 10.0, 2, 2.9, "siding", "roof_slate", 30, hip=True, chim=(3.5, 1.5),
          note="Pale blue siding, grey slate hip roof.")
    house("house_gable.obj", 8.0, 11.0, 1, 3.6, "yellow", "roof_red", 45, ridge_along_x=False, chim=(-1.5, 3.0),
          note="Yellow plaster, red tiles, ridge along z: the gable faces the street.")
    apartment_block()
    shop()
    car()
    street_lamp()
    bench()
    fence()
    kiosk()


if __name__ == "__main__":
    main()
