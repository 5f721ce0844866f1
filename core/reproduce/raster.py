"""A small numpy rasteriser for the report's figures: filled polygons, polylines, discs, a 5x7 bitmap font and a
PNG writer (zlib + struct), so that ``miran reproduce`` needs no plotting library.

A ``Canvas`` maps a world rectangle (scene units, y up) onto an RGB image (``rgb`` (h, w, 3) uint8, row 0 at the
top). Polygons are filled by scanline with the even-odd rule (holes are rings of their own), lines are drawn as
chains of discs of the line's width (exact enough at report resolution), text is the bitmap font scaled by whole
pixels.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import numpy as np

from core.scene.atomic import write_bytes_atomic

Color = tuple[int, int, int]

# 5x7 glyphs: 7 rows of 5 bits (bit 4 = leftmost pixel).
_FONT = {
    " ": (0, 0, 0, 0, 0, 0, 0), "0": (14, 17, 19, 21, 25, 17, 14), "1": (4, 12, 4, 4, 4, 4, 14),
    "2": (14, 17, 1, 2, 4, 8, 31), "3": (31, 2, 4, 2, 1, 17, 14), "4": (2, 6, 10, 18, 31, 2, 2),
    "5": (31, 16, 30, 1, 1, 17, 14), "6": (6, 8, 16, 30, 17, 17, 14), "7": (31, 1, 2, 4, 8, 8, 8),
    "8": (14, 17, 17, 14, 17, 17, 14), "9": (14, 17, 17, 15, 1, 2, 12), ".": (0, 0, 0, 0, 0, 12, 12),
    "-": (0, 0, 0, 31, 0, 0, 0), "%": (24, 25, 2, 4, 8, 19, 3), ":": (0, 12, 12, 0, 12, 12, 0),
    "=": (0, 0, 31, 0, 31, 0, 0), "(": (2, 4, 8, 8, 8, 4, 2), ")": (8, 4, 2, 2, 2, 4, 8), "/": (1, 1, 2, 4, 8, 16, 16),
    ",": (0, 0, 0, 0, 12, 4, 8), "+": (0, 4, 4, 31, 4, 4, 0), "_": (0, 0, 0, 0, 0, 0, 31),
    "A": (14, 17, 17, 31, 17, 17, 17), "B": (30, 17, 17, 30, 17, 17, 30), "C": (14, 17, 16, 16, 16, 17, 14),
    "D": (28, 18, 17, 17, 17, 18, 28), "E": (31, 16, 16, 30, 16, 16, 31), "F": (31, 16, 16, 30, 16, 16, 16),
    "G": (14, 17, 16, 23, 17, 17, 15), "H": (17, 17, 17, 31, 17, 17, 17), "I": (14, 4, 4, 4, 4, 4, 14),
    "J": (7, 2, 2, 2, 2, 18, 12), "K": (17, 18, 20, 24, 20, 18, 17), "L": (16, 16, 16, 16, 16, 16, 31),
    "M": (17, 27, 21, 21, 17, 17, 17), "N": (17, 17, 25, 21, 19, 17, 17), "O": (14, 17, 17, 17, 17, 17, 14),
    "P": (30, 17, 17, 30, 16, 16, 16), "Q": (14, 17, 17, 17, 21, 18, 13), "R": (30, 17, 17, 30, 20, 18, 17),
    "S": (15, 16, 16, 14, 1, 1, 30), "T": (31, 4, 4, 4, 4, 4, 4), "U": (17, 17, 17, 17, 17, 17, 14),
    "V": (17, 17, 17, 17, 17, 10, 4), "W": (17, 17, 17, 21, 21, 21, 10), "X": (17, 17, 10, 4, 10, 17, 17),
    "Y": (17, 17, 17, 10, 4, 4, 4), "Z": (31, 1, 2, 4, 8, 16, 31),
}


def write_png(path: str | Path, rgb: np.ndarray) -> None:
    """Write an (h, w, 3) uint8 image as an 8-bit RGB PNG (filter 0 on every row, zlib level 6), atomically."""
    rgb = np.ascontiguousarray(rgb, dtype=np.uint8)
    h, w, _ = rgb.shape
    raw = np.zeros((h, 1 + 3 * w), dtype=np.uint8)
    raw[:, 1:] = rgb.reshape(h, 3 * w)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
           + chunk(b"IDAT", zlib.compress(raw.tobytes(), 6)) + chunk(b"IEND", b""))
    write_bytes_atomic(path, png)


def read_png_size(path: str | Path) -> tuple[int, int]:
    """(width, height) from a PNG's IHDR chunk."""
    data = Path(path).read_bytes()[:32]
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path} is not a PNG file")
    return struct.unpack(">II", data[16:24])


def hex_color(s: str) -> Color:
    """'#rrggbb' (or '#rrggbbaa', alpha dropped) as an RGB tuple."""
    return int(s[1:3], 16), int(s[3:5], 16), int(s[5:7], 16)


class Canvas:
    """An RGB image showing the world rectangle ``box`` = (x0, y0, x1, y1), ``width`` pixels wide plus margins."""

    def __init__(self, box, width: int = 800, margin: int = 10, background: Color = (255, 255, 255),
                 height: int | None = None) -> None:
        x0, y0, x1, y1 = (float(v) for v in box)
        self.box = (x0, y0, x1, y1)
        self.margin = int(margin)
        self.sx = (width - 2 * margin) / (x1 - x0)
        self.sy = self.sx if height is None else (height - 2 * margin) / (y1 - y0)
        h = int(round((y1 - y0) * self.sy)) + 2 * margin if height is None else int(height)
        self.rgb = np.empty((h, int(width), 3), dtype=np.uint8)
        self.rgb[:] = background

    @property
    def height(self) -> int:
        return self.rgb.shape[0]

    @property
    def width(self) -> int:
        return self.rgb.shape[1]

    def to_px(self, pts: np.ndarray) -> np.ndarray:
        """World points (n, 2) to pixel coordinates (n, 2) as floats (x right, y down)."""
        p = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
        x0, y0, x1, y1 = self.box
        return np.column_stack([self.margin + (p[:, 0] - x0) * self.sx,
                                self.height - self.margin - (p[:, 1] - y0) * self.sy])

    def fill_polygon(self, rings, color: Color) -> None:
        """Fill the region of one or more rings (world coordinates) by the even-odd rule."""
        edges = []
        for ring in rings:
            p = self.to_px(ring)
            q = np.roll(p, -1, axis=0)
            edges.append(np.column_stack([p, q]))
        if not edges:
            return
        e = np.concatenate(edges)
        e = e[e[:, 1] != e[:, 3]]
        if len(e) == 0:
            return
        ylo = max(int(np.floor(min(e[:, 1].min(), e[:, 3].min()))), 0)
        yhi = min(int(np.ceil(max(e[:, 1].max(), e[:, 3].max()))), self.height - 1)
        for row in range(ylo, yhi + 1):
            yc = row + 0.5
            a = (e[:, 1] <= yc) != (e[:, 3] <= yc)
            if not a.any():
                continue
            s = e[a]
            xs = np.sort(s[:, 0] + (yc - s[:, 1]) * (s[:, 2] - s[:, 0]) / (s[:, 3] - s[:, 1]))
            for xa, xb in zip(xs[0::2], xs[1::2]):
                c0 = max(int(np.ceil(xa - 0.5)), 0)
                c1 = min(int(np.floor(xb - 0.5)), self.width - 1)
                if c1 >= c0:
                    self.rgb[row, c0: c1 + 1] = color

    def _stamp(self, cx: np.ndarray, cy: np.ndarray, r: float, color: Color) -> None:
        """Discs of pixel radius r at pixel centres (cx, cy)."""
        k = int(np.ceil(r))
        oy, ox = np.mgrid[-k: k + 1, -k: k + 1]
        mask = ox * ox + oy * oy <= r * r + 0.25
        ox, oy = ox[mask], oy[mask]
        xs = (np.round(cx)[:, None] + ox[None, :]).astype(np.int64).ravel()
        ys = (np.round(cy)[:, None] + oy[None, :]).astype(np.int64).ravel()
        ok = (xs >= 0) & (xs < self.width) & (ys >= 0) & (ys < self.height)
        self.rgb[ys[ok], xs[ok]] = color

    def polyline(self, pts, color: Color, width: float = 2.0, dash: float = 0.0) -> None:
        """A polyline (world coordinates) ``width`` pixels wide; ``dash`` > 0 draws dashes of that many pixels."""
        p = self.to_px(pts)
        if len(p) == 0:
            return
        if len(p) == 1:
            self._stamp(p[:, 0], p[:, 1], width / 2, color)
            return
        seg = np.diff(p, axis=0)
        lens = np.hypot(seg[:, 0], seg[:, 1])
        s = np.concatenate([[0.0], np.cumsum(lens)])
        t = np.arange(0.0, s[-1] + 0.5, 0.5)
        if dash > 0:
            t = t[(t // dash) % 2 == 0]
        x = np.interp(t, s, p[:, 0])
        y = np.interp(t, s, p[:, 1])
        self._stamp(x, y, max(width / 2, 0.5), color)

    def points(self, pts, color: Color, radius: float = 3.0) -> None:
        """Filled dots of ``radius`` pixels at world points."""
        p = self.to_px(pts)
        if len(p):
            self._stamp(p[:, 0], p[:, 1], radius, color)

    def circle(self, centre, r_world: float, color: Color, width: float = 1.0) -> None:
        """A circle outline of world radius ``r_world``."""
        a = np.linspace(0, 2 * np.pi, max(16, int(4 * r_world * self.sx)))
        c = np.asarray(centre, dtype=np.float64)
        self.polyline(np.column_stack([c[0] + r_world * np.cos(a), c[1] + r_world * np.sin(a)]), color, width)

    def text(self, px: float, py: float, s: str, color: Color = (0, 0, 0), scale: int = 2) -> None:
        """Text with its top-left corner at pixel (px, py); unknown characters are drawn as spaces."""
        x = int(px)
        for ch in s.upper():
            glyph = _FONT.get(ch, _FONT[" "])
            for r, bits in enumerate(glyph):
                for c in range(5):
                    if bits & (16 >> c):
                        y0, x0 = int(py) + r * scale, x + c * scale
                        self.rgb[max(y0, 0): max(min(y0 + scale, self.height), 0),
                                 max(x0, 0): max(min(x0 + scale, self.width), 0)] = color
            x += 6 * scale

    def save(self, path: str | Path) -> None:
        write_png(path, self.rgb)


def text_width(s: str, scale: int = 2) -> int:
    """Pixel width of a text line."""
    return 6 * scale * len(s)
