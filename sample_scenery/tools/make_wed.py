#!/usr/bin/env python3
"""Writes sample_scenery/earth.wed.xml: a WED 2.x project holding the same town as
polygons/town.txt (DSFTool text), as a person would have drawn it in WED.

Reads town.txt's OBJECT_DEF / POLYGON_DEF tables, its OBJECT lines and its
BEGIN_POLYGON ... END_POLYGON blocks, and writes one WED object per feature, in the
shape WED_Thing::ToXML saves (xptools src/WEDEntities/WED_Thing.cpp):

  <doc><objects>
    <object class="WED_Root" id="1" parent_id="0"> ... world group "world" ...
    <object class="WED_AutogenPlacement" ...>      autogen_placement height/spelling/resource
      <object class="WED_Ring">                    one per winding (outer first, then holes)
        <object class="WED_AutogenNode">           point latitude/longitude, autogen_node spawn_tiles
    <object class="WED_ObjPlacement">              point latitude/longitude/heading, obj_placement
    <object class="WED_FacadePlacement">           facade_placement height; WED_FacadeRing, WED_FacadeNode
    <object class="WED_ForestPlacement">           forest_placement density; WED_ForestRing, WED_SimpleBoundaryNode

How each DSF feature maps back (the inverse of WED_DSFExport.cpp):
  - .agb: height = (param >> 8) * 4 m, spelling = param & 255; the nodes spawn tiles
    (spawn_tiles="1", WED's default for a block drawn by hand), so WED writes the winding
    closed (first point repeated at the end).
  - .ags: height as above; the outer ring's nodes all spawn, the lake hole's do not. town.txt
    closes AGS windings by repeating the first point; WED nodes never repeat it, so the
    repeated point is dropped here.
  - .obj / .agp: WED_ObjPlacement at the point with the heading.
  - .fac: height = param (meters); .for: density = param / 255 (written so that WED's
    trunc(density * 255) gives the parameter back).
One more placement, a second kiosk, is hidden: WED's exporter leaves it out.

Only the properties agview reads are written, plus WED's usual hierarchy bookkeeping.
Deterministic: running it again gives the same bytes.

Run:  python3 sample_scenery/tools/make_wed.py
"""

import os
from xml.sax.saxutils import quoteattr

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOWN = os.path.join(ROOT, "polygons", "town.txt")
OUT = os.path.join(ROOT, "earth.wed.xml")


def read_town(path):
    """The definitions, objects and polygons of a DSFTool text file, with the comment line
    just above each feature (used as its WED name)."""
    obj_defs, pol_defs, objects, polygons = [], [], [], []
    comment = ""
    poly = None
    with open(path, encoding="utf-8") as f:
        for raw in f:
            line = raw.strip()
            if not line:
                continue
            if line.startswith("#"):
                comment = line.lstrip("# ").strip()
                continue
            words = line.split()
            key = words[0]
            if key == "OBJECT_DEF":
                obj_defs.append(words[1])
            elif key == "POLYGON_DEF":
                pol_defs.append(words[1])
            elif key == "OBJECT":
                objects.append(
                    dict(def_=int(words[1]), lon=float(words[2]), lat=float(words[3]),
                         heading=float(words[4]), note=comment))
            elif key == "BEGIN_POLYGON":
                poly = dict(def_=int(words[1]), param=int(words[2]), windings=[], note=comment)
            elif key == "BEGIN_WINDING":
                poly["windings"].append([])
            elif key == "POLYGON_POINT":
                poly["windings"][-1].append((float(words[1]), float(words[2])))
            elif key == "END_POLYGON":
                polygons.append(poly)
                poly = None
    return obj_defs, pol_defs, objects, polygons


class Project:
    def __init__(self):
        self.objects = {}  # id -> dict(cls, parent, children, props)
        self.next_id = 1

    def add(self, cls, parent, props):
        oid = self.next_id
        self.next_id += 1
        self.objects[oid] = dict(cls=cls, parent=parent, children=[], props=props)
        if parent:
            self.objects[parent]["children"].append(oid)
        return oid

    def write(self, path):
        out = ['<?xml version="1.0" encoding="UTF-8"?>', "<doc>", "  <objects>"]
        for oid, o in self.objects.items():
            out.append('    <object class="%s" id="%d" parent_id="%d">' % (o["cls"], oid, o["parent"]))
            if o["children"]:
                out.append("      <children>")
                out.extend('        <child id="%d"/>' % c for c in o["children"])
                out.append("      </children>")
            else:
                out.append("      <children/>")
            for tag, attrs in o["props"]:
                text = " ".join("%s=%s" % (k, quoteattr(v)) for k, v in attrs)
                out.append("      <%s %s/>" % (tag, text) if text else "      <%s/>" % tag)
            out.append("    </object>")
        out += ["  </objects>", "</doc>", ""]
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write("\n".join(out))


def hierarchy(name, hidden=False, entity=True):
    attrs = [("name", name)]
    if entity:
        attrs += [("locked", "0"), ("hidden", "1" if hidden else "0")]
    return ("hierarchy", attrs)


def point(lon, lat, heading=None):
    attrs = [("latitude", "%.9f" % lat), ("longitude", "%.9f" % lon)]
    if heading is not None:
        attrs.append(("heading", "%.2f" % heading))
    return ("point", attrs)


def open_ring(w):
    """WED rings never repeat their first node."""
    return w[:-1] if len(w) > 1 and w[0] == w[-1] else w


def add_ring(p, parent, ring_cls, node_cls, name, pts, node_props=None):
    ring = p.add(ring_cls, parent, [hierarchy(name)])
    for i, (lon, lat) in enumerate(open_ring(pts)):
        props = [hierarchy("Point %d" % (i + 1)), point(lon, lat)]
        if node_props:
            props.append(node_props)
        p.add(node_cls, ring, props)
    return ring


def add_object(p, parent, name, resource, lon, lat, heading, hidden=False):
    p.add("WED_ObjPlacement", parent, [
        hierarchy(name, hidden),
        point(lon, lat, heading),
        ("obj_placement", [("custom_msl", "0"), ("msl", "0.000"), ("resource", resource),
                           ("show_level", "1 Default")]),
    ])


def main():
    obj_defs, pol_defs, objects, polygons = read_town(TOWN)
    p = Project()
    root = p.add("WED_Root", 0, [hierarchy("root", entity=False)])
    p.add("WED_Select", root, [hierarchy("selection", entity=False), ("selection", [])])
    p.add("WED_KeyObjects", root, [hierarchy("key objects", entity=False)])
    world = p.add("WED_Group", root, [hierarchy("world")])
    town = p.add("WED_Group", world, [hierarchy("town (from polygons/town.txt)")])

    for o in objects:
        add_object(p, town, o["note"], obj_defs[o["def_"]], o["lon"], o["lat"], o["heading"])

    for pol in polygons:
        res = pol_defs[pol["def_"]]
        param = pol["param"]
        if res.endswith((".agb", ".ags")):
            height = (param >> 8) * 4
            spelling = param & 255 if res.endswith(".agb") else 0
            ag = p.add("WED_AutogenPlacement", town, [
                hierarchy(pol["note"]),
                ("autogen_placement", [("height", "%.1f" % height), ("spelling", str(spelling)),
                                       ("resource", res)]),
            ])
            for i, w in enumerate(pol["windings"]):
                # AGB: every side spawns. AGS: the first (param & 255) windings spawn, the
                # rest (the lake) do not.
                spawn = res.endswith(".agb") or i < (param & 255)
                add_ring(p, ag, "WED_Ring", "WED_AutogenNode",
                         "Outer ring" if i == 0 else "Hole %d" % i, w,
                         ("autogen_node", [("spawn_tiles", "1" if spawn else "0")]))
        elif res.endswith(".fac"):
            fac = p.add("WED_FacadePlacement", town, [
                hierarchy(pol["note"]),
                ("facade_placement", [("height", "%d" % param), ("pick_walls", "0"),
                                      ("resource", res), ("show_level", "1 Default")]),
            ])
            for i, w in enumerate(pol["windings"]):
                add_ring(p, fac, "WED_FacadeRing", "WED_FacadeNode",
                         "Outer ring" if i == 0 else "Hole %d" % i, w)
        elif res.endswith(".for"):
            # WED writes trunc(density * 255): aim at the middle of the parameter's step.
            density = round((param + 0.5) / 255.0, 4)
            fst = p.add("WED_ForestPlacement", town, [
                hierarchy(pol["note"]),
                ("forest_placement", [("density", "%.4f" % density), ("resource", res)]),
            ])
            for i, w in enumerate(pol["windings"]):
                add_ring(p, fst, "WED_ForestRing", "WED_SimpleBoundaryNode",
                         "Outer ring" if i == 0 else "Hole %d" % i, w)
        else:
            raise SystemExit("make_wed.py: no WED placement for %s" % res)

    # A hidden placement: a second kiosk beside the first. WED's exporter skips it.
    kiosk = next(o for o in objects if obj_defs[o["def_"]].endswith("kiosk.obj"))
    add_object(p, world, "hidden kiosk (left out of the DSF export)", obj_defs[kiosk["def_"]],
               kiosk["lon"] + 0.0002, kiosk["lat"], 120.0, hidden=True)

    p.write(OUT)
    print("wrote %s: %d objects" % (os.path.relpath(OUT), len(p.objects)))


if __name__ == "__main__":
    main()
