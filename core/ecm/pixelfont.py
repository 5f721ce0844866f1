"""A 3 x 5 pixel font for the few words a PNG legend needs (digits, a metre sign, "clearance"), drawn into a
uint8 RGB image without an imaging library."""

from __future__ import annotations

import numpy as np

GLYPH_W, GLYPH_H = 3, 5
_GLYPHS = {
    "0": "111101101101111", "1": "010110010010111", "2": "111001111100111", "3": "111001111001111",
    "4": "101101111001001", "5": "111100111001111", "6": "111100111101111", "7": "111001001001001",
    "8": "111101111101111", "9": "111101111001111", ".": "000000000000010", "-": "000000111000000",
    "+": "000010111010000", "<": "001010100010001", ">": "100010001010100", "=": "000111000111000",
    "m": "000000111111101", "e": "000111111100111", "c": "000111100100111", "l": "110010010010111",
    "a": "000111011101111", "r": "000101110100100", "n": "000110101101101", ":": "000010000010000",
    " ": "000000000000000",
}
GLYPHS = {ch: np.array([int(b) for b in bits], dtype=bool).reshape(GLYPH_H, GLYPH_W) for ch, bits in _GLYPHS.items()}


def text_width(text: str, scale: int = 1) -> int:
    """Pixels a text takes: each glyph 3 wide plus one between glyphs, times ``scale``."""
    return max(0, len(text) * (GLYPH_W + 1) - 1) * scale


def draw_text(img: np.ndarray, text: str, x: int, y: int, colour, scale: int = 1) -> int:
    """Draw ``text`` with its top-left corner at column x, row y (row 0 at the top); returns the x after it.
    Characters the font lacks are drawn as a gap; pixels outside the image are skipped."""
    H, W = img.shape[:2]
    col = np.asarray(colour, dtype=np.uint8)
    for ch in text:
        g = GLYPHS.get(ch)
        if g is not None:
            big = np.kron(g, np.ones((scale, scale), dtype=bool))
            rows, cols = np.nonzero(big)
            rows, cols = rows + y, cols + x
            ok = (rows >= 0) & (rows < H) & (cols >= 0) & (cols < W)
            img[rows[ok], cols[ok]] = col
        x += (GLYPH_W + 1) * scale
    return x
