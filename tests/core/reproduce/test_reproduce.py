"""``miran reproduce``: the PNG writer against an independent decoder (zlib + the PNG layout), the rasteriser's
fills against shapely areas, and a quick run that writes every figure and the report."""

from __future__ import annotations

import struct
import zlib

import numpy as np
import pytest
import shapely

from core.cli.main import main
from core.reproduce import EXPERIMENTS
from core.reproduce.raster import Canvas, read_png_size, write_png


def _decode_png(data: bytes) -> np.ndarray:
    """A minimal independent PNG reader for 8-bit RGB, filter type 0 (what write_png promises)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, w, h = 8, b"", 0, 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos: pos + 8])
        body = data[pos + 8: pos + 8 + n]
        assert struct.unpack(">I", data[pos + 8 + n: pos + 12 + n])[0] == zlib.crc32(kind + body) & 0xFFFFFFFF
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert (depth, ctype) == (8, 2)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = np.frombuffer(zlib.decompress(idat), dtype=np.uint8).reshape(h, 1 + 3 * w)
    assert np.all(raw[:, 0] == 0)
    return raw[:, 1:].reshape(h, w, 3)


def test_png_round_trip(tmp_path):
    img = np.random.default_rng(1).integers(0, 256, size=(37, 53, 3), dtype=np.uint8)
    write_png(tmp_path / "a.png", img)
    assert np.array_equal(_decode_png((tmp_path / "a.png").read_bytes()), img)
    assert read_png_size(tmp_path / "a.png") == (53, 37)


@pytest.mark.parametrize("seed", range(4))
def test_polygon_fill_covers_the_polygon_area(seed):
    """Filled pixels times pixel area equals the polygon's area (shapely) up to the boundary pixels."""
    rng = np.random.default_rng(seed)
    ang = np.sort(rng.uniform(0, 2 * np.pi, 9))
    rad = rng.uniform(20, 45, 9)
    ring = np.column_stack([50 + rad * np.cos(ang), 50 + rad * np.sin(ang)])
    hole = np.column_stack([50 + 8 * np.cos(ang), 50 + 8 * np.sin(ang)])
    cv = Canvas((0, 0, 100, 100), width=400, margin=0)
    cv.fill_polygon([ring, hole], (255, 0, 0))
    filled = np.count_nonzero(np.all(cv.rgb == (255, 0, 0), axis=2)) / (cv.sx * cv.sy)
    poly = shapely.Polygon(ring, [hole])
    assert abs(filled - poly.area) <= poly.length / cv.sx + 1.0


def test_quick_reproduce_writes_every_figure_and_the_report(tmp_path):
    assert main(["reproduce", str(tmp_path), "--quick"]) == 0
    for name in EXPERIMENTS:
        w, h = read_png_size(tmp_path / f"{name}.png")
        assert w >= 400 and h >= 200
    report = (tmp_path / "report.md").read_text()
    for name in EXPERIMENTS:
        assert f"({name}.png)" in report
    assert "FAILED" not in report
    assert "7.13" in report and "6.15" in report and "0.60 s" in report


def test_unknown_experiment_is_refused(tmp_path, capsys):
    assert main(["reproduce", str(tmp_path), "--only", "figure99"]) == 2
    assert "unknown experiment 'figure99'" in capsys.readouterr().err
