"""``miran ecm SCENE [--resolution N] [--out ecm.json] [--png ecm.png] [--json]``: the GVD on the GPU and the ECM."""

from __future__ import annotations

import argparse

from core.cli.output import check_destination, json_bytes, print_json, write_result
from core.scene.io import load_scene


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser("ecm", help="build the GVD on the GPU and the Explicit Corridor Map",
                       description="Render the scene's Generalized Voronoi Diagram with OpenGL (Mesa's llvmpipe "
                                   "where there is no GPU), trace its vertices and edges and annotate the edges "
                                   "with exact event points and closest points (Geraerts 2010).")
    p.add_argument("scene", metavar="SCENE")
    p.add_argument("--resolution", default="2048", metavar="N",
                   help="pixels along the longer side of the bounds (default 2048)")
    p.add_argument("--out", metavar="ECM_JSON", help="write the map: vertices (x, y, clearance) and edges with "
                                                      "their event points (B, R, l, r)")
    p.add_argument("--png", metavar="PNG", help="draw the medial axis coloured by clearance over the scene, with "
                   "the colours' legend below (the same colour map as the app's GVD/ECM overlay)")
    p.add_argument("--json", action="store_true", help="print counts and build times as JSON")
    return p


def run(args) -> int:
    from core.ecm.build import build_ecm, check_resolution
    from core.ecm.ecmfile import ecm_to_dict
    from core.ecm.glcontext import renderer
    from core.ecm.colours import clearance_top, legend_entries
    from core.ecm.debug import medial_axis_segments
    from core.ecm.picture import ecm_picture, png_bytes

    resolution = check_resolution(args.resolution)
    check_destination(args.out, "--out")
    check_destination(args.png, "--png")
    scene = load_scene(args.scene)
    ecm = build_ecm(scene, resolution, keep_gvd=bool(args.png))
    if args.out:
        write_result(args.out, "--out", json_bytes(ecm_to_dict(ecm, scene.name, scene.units), indent=None))
    legend = None
    if args.png:
        write_result(args.png, "--png", png_bytes(ecm_picture(ecm, ecm.gvd.labels)))
        legend = [{"colour": c, "clearance": text}
                  for c, text in legend_entries(clearance_top(medial_axis_segments(ecm)[1]))]
    t = ecm.timings
    st = ecm.stats
    summary = {
        "scene": scene.name,
        "resolution": resolution,
        "image": [st["width"], st["height"]],
        "pixel_size": ecm.pixel,
        "renderer": renderer(),
        "counts": {k: st[k] for k in ("sites", "obstacle_vertices", "vertices", "edges", "events")},
        "seconds": {k: t[k] for k in ("sites", "cull", "render", "readback", "tracing", "annotation", "total")},
        "bytes": st["bytes"],
        **({"png_legend": legend} if legend is not None else {}),
    }
    if args.json:
        print_json(summary)
        return 0
    c = summary["counts"]
    s = summary["seconds"]
    print(f"{scene.name}: ECM at {st['width']} x {st['height']} px ({ecm.pixel:.4g} {scene.units} per pixel, "
          f"{summary['renderer']})")
    print(f"  {c['vertices']} vertices, {c['edges']} edges, {c['events']} event points "
          f"({c['sites']} sites from {c['obstacle_vertices']} obstacle vertices)")
    print(f"  built in {s['total']:.3f} s: sites {s['sites']:.3f}, cull {s['cull']:.3f}, render {s['render']:.3f}, "
          f"readback {s['readback']:.3f}, tracing {s['tracing']:.3f}, annotation {s['annotation']:.3f}")
    if args.out:
        print(f"  wrote {args.out}")
    if args.png:
        keys = ", ".join(f"{e['colour']} {e['clearance']}" for e in legend)
        print(f"  wrote {args.png} (clearance colours, narrow to wide: {keys})")
    return 0
