"""``miran ecm SCENE [--backend auto|gpu|exact] [--resolution N] [--out ecm.json] [--png ecm.png] [--json]``."""

from __future__ import annotations

import argparse

from core.cli.output import check_destination, json_bytes, print_json, write_result
from core.scene.io import load_scene

SECONDS = {"gpu": ("sites", "cull", "resolve", "render", "readback", "tracing", "annotation", "total"),
           "exact": ("sites", "voronoi", "annotation", "total")}


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser("ecm", help="build the Explicit Corridor Map (exact on the CPU, or the GVD on the GPU)",
                       description="Read the scene's Explicit Corridor Map off the exact segment Voronoi diagram "
                                   "(Boost.Polygon); or, with --backend gpu, render its Generalized Voronoi "
                                   "Diagram with OpenGL (Mesa's llvmpipe where there is no GPU), trace its "
                                   "vertices and edges and annotate the edges with exact event points and "
                                   "closest points (Geraerts 2010).")
    p.add_argument("scene", metavar="SCENE")
    p.add_argument("--backend", default="auto", metavar="B",
                   help="gpu (OpenGL GVD), exact (CPU segment Voronoi diagram, no OpenGL) or auto (default: exact; "
                        "the output says which)")
    p.add_argument("--resolution", default="2048", metavar="N",
                   help="pixels along the longer side of the bounds (default 2048; with the exact backend, the "
                        "default, only the --png picture's size)")
    p.add_argument("--out", metavar="ECM_JSON", help="write the map: vertices (x, y, clearance) and edges with "
                                                      "their event points (B, R, l, r)")
    p.add_argument("--png", metavar="PNG", help="draw the medial axis coloured by clearance over the scene, with "
                   "the colours' legend below (the same colour map as the app's GVD/ECM overlay)")
    p.add_argument("--json", action="store_true", help="print counts and build times as JSON")
    return p


def run(args) -> int:
    from core.ecm.build import build_ecm, check_resolution, resolve_backend
    from core.ecm.ecmfile import ecm_to_dict
    from core.ecm.glcontext import renderer
    from core.ecm.gvd import GVD
    from core.ecm.colours import clearance_top, legend_entries
    from core.ecm.debug import medial_axis_segments
    from core.ecm.obstacle_raster import obstacle_labels
    from core.ecm.picture import ecm_picture, png_bytes

    resolution = check_resolution(args.resolution)
    backend, why = resolve_backend(args.backend)
    check_destination(args.out, "--out")
    check_destination(args.png, "--png")
    scene = load_scene(args.scene)
    ecm = build_ecm(scene, resolution, keep_gvd=bool(args.png), backend=backend)
    if args.out:
        write_result(args.out, "--out", json_bytes(ecm_to_dict(ecm, scene.name, scene.units), indent=None))
    legend: list[dict[str, str]] | None = None
    st = ecm.stats
    if args.png:
        gvd = ecm.gvd
        labels = gvd.labels if isinstance(gvd, GVD) else obstacle_labels(ecm.sites, st["height"], st["width"],
                                                                         ecm.pixel)
        write_result(args.png, "--png", png_bytes(ecm_picture(ecm, labels)))
        legend = [{"colour": c, "clearance": text}
                  for c, text in legend_entries(clearance_top(medial_axis_segments(ecm)[1]))]
    t = ecm.timings
    summary = {
        "scene": scene.name,
        "backend": backend,
        "backend_reason": why,
        "resolution": resolution,
        "image": [st["width"], st["height"]],
        "pixel_size": ecm.pixel,
        "renderer": renderer() if backend == "gpu" else "none (exact CPU backend: Boost.Polygon segment Voronoi)",
        "counts": {k: st[k] for k in ("sites", "obstacle_vertices", "vertices", "edges", "events")},
        "seconds": {k: t[k] for k in SECONDS[backend]},
        "bytes": st["bytes"],
        **({"png_legend": legend} if legend is not None else {}),
    }
    if args.json:
        print_json(summary)
        return 0
    c = summary["counts"]
    s = summary["seconds"]
    if backend == "gpu":
        print(f"{scene.name}: ECM at {st['width']} x {st['height']} px ({ecm.pixel:.4g} {scene.units} per pixel, "
              f"{summary['renderer']}; backend gpu, {why})")
    else:
        print(f"{scene.name}: ECM from the exact segment Voronoi diagram (backend exact, {why})")
    print(f"  {c['vertices']} vertices, {c['edges']} edges, {c['events']} event points "
          f"({c['sites']} sites from {c['obstacle_vertices']} obstacle vertices)")
    print(f"  built in {s['total']:.3f} s: " + ", ".join(f"{k} {v:.3f}" for k, v in s.items() if k != "total"))
    if args.out:
        print(f"  wrote {args.out}")
    if args.png:
        keys = ", ".join(f"{e['colour']} {e['clearance']}" for e in legend or [])
        print(f"  wrote {args.png} (clearance colours, narrow to wide: {keys})")
    return 0
