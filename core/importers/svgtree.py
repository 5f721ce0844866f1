"""The SVG document as drawn: ``<use>`` instances expanded, never-drawn containers set aside, shapes named.

SVG draws the children of ``<defs>``, ``<symbol>``, ``<clipPath>``, ``<mask>``, ``<pattern>``, ``<marker>`` and
the gradients and filters only through a ``<use>`` (or as a fill, a clip, a marker), never in place. ``expand``
rewrites the document so that svgelements sees exactly what is drawn: each ``<use>`` becomes a group with the use's
transform and ``x``/``y`` (and, for a ``<symbol>``, the viewBox's scaling) holding a copy of what it refers to; the
never-drawn containers are left out, their shapes listed as skipped with the reason. Each shape the result draws is
tagged (``TAG_KEY``) with its index in ``Tree.elements``, which names it for the report (``layer 'Walls', rect
'box' via use 'u2'``).

The expansion is counted before it is made: ``<use>`` chains that refer to themselves are refused, nesting
deeper than ``MAX_DEPTH`` is refused, and the shapes an instance brings are charged to the budget first, so a
"use bomb" (ten uses of a group of ten uses ...) is refused from its size, not after it has been built.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

from core.scene.problems import InputError, Problem

from .budget import Budget
from .files import read_bytes

SVG_NS = "http://www.w3.org/2000/svg"
XLINK_HREF = "{http://www.w3.org/1999/xlink}href"
INKSCAPE = "{http://www.inkscape.org/namespaces/inkscape}"
# The attribute carrying a shape's index into Tree.elements through svgelements (kept in its ``values``).
TAG_KEY = "data-miran-element"
SHAPES = frozenset({"path", "rect", "circle", "ellipse", "line", "polyline", "polygon"})
# Drawn, but not geometry a scene can hold: listed in the report.
OTHER_DRAWN = frozenset({"text", "image"})
NEVER_DRAWN = frozenset({"defs", "symbol", "clipPath", "mask", "pattern", "marker", "linearGradient",
                         "radialGradient", "filter", "font", "font-face", "glyph", "missing-glyph", "view"})
CONTAINERS = frozenset({"svg", "g", "a", "switch"})
KEEP = frozenset({"style"})
# Groups and <use> chains nested deeper than this are refused (svgelements reads nesting by recursion).
MAX_DEPTH = 200
# Elements of every kind (groups included) an expansion may write, per shape the budget allows.
NODES_PER_ELEMENT = 4
PX_PER_UNIT = {"px": 1.0, "": 1.0, "in": 96.0, "cm": 96.0 / 2.54, "mm": 96.0 / 25.4, "pt": 96.0 / 72.0,
               "pc": 16.0}
_LENGTH = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*(px|in|cm|mm|pt|pc|%)?\s*$")


@dataclass(frozen=True)
class Element:
    """A drawn source element: its name for messages, its Inkscape layer ('' for none) and its classes."""

    where: str
    layer: str
    classes: tuple[str, ...]


@dataclass
class Tree:
    """The expanded document (bytes svgelements reads), the drawn elements by index, and what was set aside."""

    document: bytes
    elements: list[Element] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)


def _local(tag: object) -> tuple[str, bool]:
    """An element's local name and whether it is in the SVG namespace (or none)."""
    if not isinstance(tag, str):
        return "", False
    if tag.startswith("{"):
        ns, _, name = tag[1:].partition("}")
        return name, ns == SVG_NS
    return tag, True


def _length(text: str | None, ref: float, where: str) -> float:
    """A length attribute in user units (px): plain, with an absolute unit, or a percentage of ``ref``."""
    if text is None or not str(text).strip():
        return 0.0
    m = _LENGTH.match(str(text))
    if m is None:
        raise InputError([Problem(where, f"not a length: {str(text)[:40]!r}")])
    v = float(m.group(1))
    unit = m.group(2) or ""
    return v * ref / 100.0 if unit == "%" else v * PX_PER_UNIT[unit]


def _viewbox(text: str | None) -> tuple[float, float, float, float] | None:
    if not text:
        return None
    try:
        vals = [float(v) for v in re.split(r"[\s,]+", text.strip())]
    except ValueError:
        return None
    return (vals[0], vals[1], vals[2], vals[3]) if len(vals) == 4 and vals[2] > 0 and vals[3] > 0 else None


def _fit(vb: tuple[float, float, float, float], w: float, h: float, par: str) -> str:
    """The transform that fits viewBox ``vb`` into a w x h viewport under preserveAspectRatio ``par``."""
    vx, vy, vw, vh = vb
    parts = (par or "xMidYMid meet").split()
    align = parts[0] if parts else "xMidYMid"
    sx, sy = w / vw, h / vh
    if align != "none":
        s = max(sx, sy) if len(parts) > 1 and parts[1] == "slice" else min(sx, sy)
        sx = sy = s
    tx, ty = -vx * sx, -vy * sy
    if align != "none":
        fx = {"xMin": 0.0, "xMid": 0.5, "xMax": 1.0}.get(align[:4], 0.5)
        fy = {"YMin": 0.0, "YMid": 0.5, "YMax": 1.0}.get(align[4:], 0.5)
        tx += (w - vw * sx) * fx
        ty += (h - vh * sy) * fy
    return f"translate({tx!r},{ty!r}) scale({sx!r},{sy!r})"


class _Expander:
    def __init__(self, root: ET.Element, budget: Budget) -> None:
        self.root = root
        self.budget = budget
        self.ids: dict[str, ET.Element] = {}
        for el in root.iter():
            i = el.get("id")
            if i is not None:
                self.ids.setdefault(i, el)
        self.tree = Tree(b"")
        self.memo: dict[int, tuple[int, int]] = {}
        self.nodes = 0
        self.unnamed = 0
        vb = _viewbox(root.get("viewBox"))
        self.viewport = (vb[2], vb[3]) if vb else (100.0, 100.0)

    # -- names --------------------------------------------------------------------------------------------------
    def name(self, el: ET.Element, tag: str) -> str:
        i = el.get("id")
        if i:
            return f"{tag} {i!r}"
        self.unnamed += 1
        return f"{tag} #{self.unnamed}"

    def target(self, use: ET.Element) -> tuple[str, ET.Element | None]:
        href = use.get("href") or use.get(XLINK_HREF) or ""
        href = href.strip()
        if not href.startswith("#"):
            return href, None
        return href, self.ids.get(href[1:])

    # -- counting -------------------------------------------------------------------------------------------
    def count(self, el: ET.Element, chain: tuple[int, ...], as_instance: bool = False) -> tuple[int, int]:
        """(shapes, elements) that ``el`` draws once expanded; refuses cycles and nesting past MAX_DEPTH."""
        if len(chain) > MAX_DEPTH:
            raise InputError([Problem(self.name(el, _local(el.tag)[0]), f"groups and <use> references nest deeper "
                                                                        f"than {MAX_DEPTH} levels")])
        key = id(el)
        if key in self.memo and not as_instance:
            return self.memo[key]
        tag, svg = _local(el.tag)
        if not svg:
            out = (0, 0)
        elif tag in SHAPES or tag in OTHER_DRAWN:
            out = (1, 1)
        elif tag == "use":
            href, t = self.target(el)
            if t is None or id(t) in chain:
                out = (0, 1)
            else:
                s, n = self.count(t, chain + (id(t),), as_instance=True)
                out = (s, n + 1)
        elif tag in CONTAINERS or (as_instance and tag == "symbol"):
            s = n = 0
            for c in el:
                cs, cn = self.count(c, chain + (id(c),))
                s, n = s + cs, n + cn
            out = (s, n + 1)
        else:
            out = (0, 0)
        if not as_instance:
            self.memo[key] = out
        return out

    # -- the walk -------------------------------------------------------------------------------------------
    def walk(self, src: ET.Element, out: ET.Element, layer: str, via: str, chain: tuple[int, ...]) -> None:
        if len(chain) > MAX_DEPTH:
            raise InputError([Problem(self.name(src, _local(src.tag)[0]), f"groups and <use> references nest "
                                                                          f"deeper than {MAX_DEPTH} levels")])
        for c in src:
            self.child(c, out, layer, via, chain + (id(c),))

    def child(self, c: ET.Element, out: ET.Element, layer: str, via: str, chain: tuple[int, ...]) -> None:
        tag, svg = _local(c.tag)
        if not svg or not tag:
            return
        if tag in SHAPES or tag in OTHER_DRAWN:
            self.shape(c, out, layer, via)
        elif tag in CONTAINERS:
            g = ET.SubElement(out, f"{{{SVG_NS}}}{'svg' if tag == 'svg' else 'g'}", dict(c.attrib))
            self.add_nodes(c, 1)
            own = c.get(INKSCAPE + "groupmode") == "layer" and c.get(INKSCAPE + "label") not in (None, layer)
            self.walk(c, g, str(c.get(INKSCAPE + "label")) if own else layer, via, chain)
        elif tag == "use":
            self.use(c, out, layer, via, chain)
        elif tag in NEVER_DRAWN:
            self.set_aside(c, tag)
        elif tag in KEEP:
            ET.SubElement(out, c.tag, dict(c.attrib)).text = c.text

    def shape(self, c: ET.Element, out: ET.Element, layer: str, via: str) -> None:
        tag = _local(c.tag)[0]
        where = (f"layer {layer!r}, " if layer else "") + self.name(c, tag) + via
        self.budget.add_elements(where)
        self.add_nodes(c, 1)
        attrs = dict(c.attrib)
        attrs[TAG_KEY] = str(len(self.tree.elements))
        e = ET.SubElement(out, c.tag, attrs)
        if tag == "text":                                    # its text and spans, for svgelements to read
            e.text = c.text
            for sub in c:
                e.append(sub)
        classes = tuple(str(c.get("class", "") or "").split())
        self.tree.elements.append(Element(where, layer, classes))

    def use(self, c: ET.Element, out: ET.Element, layer: str, via: str, chain: tuple[int, ...]) -> None:
        uname = self.name(c, "use")
        where = (f"layer {layer!r}, " if layer else "") + uname + via
        href, t = self.target(c)
        if t is None:
            why = ("refers to another document, which is not read" if href and not href.startswith("#")
                   else f"its href {href!r} names no element of this document")
            self.tree.skipped.append((where, why))
            return
        if id(t) in chain:
            raise InputError([Problem(where, f"refers to {href!r}, which contains this <use> itself: the instance "
                                             "would never end")])
        shapes, nodes = self.count(t, chain + (id(t),), as_instance=True)
        self.budget.add_elements(where, shapes, f"<use> of {href!r} ({shapes:,} shapes)")
        self.add_nodes(c, nodes + 2)
        vw, vh = self.viewport
        x = _length(c.get("x"), vw, where)
        y = _length(c.get("y"), vh, where)
        attrs = {k: v for k, v in c.attrib.items() if k not in ("x", "y", "width", "height", "href", XLINK_HREF,
                                                                "id")}
        attrs["transform"] = f"{c.get('transform', '')} translate({x!r},{y!r})".strip()
        g = ET.SubElement(out, f"{{{SVG_NS}}}g", attrs)
        inner_via = f"{via} via {uname}"
        ttag = _local(t.tag)[0]
        if ttag == "symbol":
            sattrs = {k: v for k, v in t.attrib.items() if k not in ("id", "viewBox", "preserveAspectRatio", "x",
                                                                      "y", "width", "height", "refX", "refY")}
            vb = _viewbox(t.get("viewBox"))
            if vb is not None:
                w = _length(c.get("width") or t.get("width") or "100%", vw, where)
                h = _length(c.get("height") or t.get("height") or "100%", vh, where)
                if w > 0 and h > 0:
                    sattrs["transform"] = _fit(vb, w, h, t.get("preserveAspectRatio", ""))
            inner = ET.SubElement(g, f"{{{SVG_NS}}}g", sattrs)
            self.walk(t, inner, layer, inner_via, chain + (id(t),))
        else:
            self.child(t, g, layer, inner_via, chain + (id(t),))

    def set_aside(self, c: ET.Element, tag: str) -> None:
        """The shapes inside a never-drawn container, listed as skipped."""
        for el in c.iter():
            t, svg = _local(el.tag)
            if svg and (t in SHAPES or t in OTHER_DRAWN):
                self.tree.skipped.append((self.name(el, t), f"inside <{tag}>, which SVG does not draw in place "
                                                            "(only a <use> of it is drawn)"))

    def add_nodes(self, where_el: ET.Element, n: int) -> None:
        self.nodes += n
        limit = NODES_PER_ELEMENT * self.budget.max_elements
        if self.nodes > limit:
            raise InputError([Problem(self.name(where_el, _local(where_el.tag)[0]),
                                      f"the <use> instances expand the document past {limit:,} elements (groups "
                                      f"included; {NODES_PER_ELEMENT} per allowed shape); to import it anyway, "
                                      "raise --max-elements")])


def expand(path: str | Path, budget: Budget) -> Tree:
    """Read an SVG file and return the document as drawn (see the module's docstring); InputError for files that
    are not SVG, XML that defines entities (never expanded), and expansions past the budget."""
    data = read_bytes(path)
    try:
        root = ET.fromstring(data)
    except ET.ParseError as e:
        line, col = e.position
        raise InputError([Problem(f"line {line}, column {col}", f"not a readable SVG file: {e}")],
                         str(path)) from None
    tag, svg = _local(root.tag)
    if tag != "svg" or not svg:
        raise InputError([Problem("", f"not an SVG document: the root element is <{tag}>, not <svg>")], str(path))
    ex = _Expander(root, budget)
    out = ET.Element(root.tag, dict(root.attrib))
    try:
        ex.walk(root, out, "", "", (id(root),))
    except InputError as e:
        raise InputError(e.problems, str(path)) from None
    ex.tree.document = ET.tostring(out)
    return ex.tree


__all__ = ["MAX_DEPTH", "TAG_KEY", "Element", "Tree", "expand"]
