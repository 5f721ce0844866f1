"""Text cells of the CSV files we write, escaped so that a spreadsheet never reads data as a formula.

OWASP's CSV injection advice: a cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is
prefixed with a single quote (``'=1+1``), which a spreadsheet shows as text; and such a cell, like any cell holding
a separator (``,`` or ``;``, which some locales use), a quote or a line break, is enclosed in double quotes with
its quotes doubled, so that no separator inside it can start a cell that begins with a formula. A cell that
already starts with a single quote gets one more, which keeps the escaping reversible: ``unescape_cell`` removes
exactly one leading quote, so a table written by ``miran sweep`` reads back with the ids it was given.
"""

from __future__ import annotations

from typing import Any, Iterable

# The characters that make a spreadsheet read a cell as a formula (OWASP), and our own escape.
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
ESCAPE = "'"
# What makes a cell need double quotes: the separators a spreadsheet may split on, quotes and line breaks.
_QUOTE_IF = frozenset(',;"\n\r\t')


def escape_cell(text: str) -> str:
    """A text cell with the formula escape applied (no quoting: see ``csv_cell``)."""
    return ESCAPE + text if text.startswith(FORMULA_PREFIXES + (ESCAPE,)) else text


def unescape_cell(text: str) -> str:
    """``escape_cell`` undone."""
    return text[1:] if text.startswith(ESCAPE) else text


def csv_cell(text: str) -> str:
    """One escaped text cell as it goes into a CSV line: double-quoted when it was escaped or holds a separator,
    a quote or a line break."""
    s = escape_cell(text)
    if s is not text or any(c in _QUOTE_IF for c in s) or s != s.strip():
        return '"' + s.replace('"', '""') + '"'
    return s


def csv_line(cells: Iterable[tuple[Any, bool]]) -> str:
    """A CSV line of (value, is_text) cells: text cells through ``csv_cell``, the others (numbers already
    formatted) as they are."""
    return ",".join(csv_cell(str(v)) if text else str(v) for v, text in cells)


def escape_frame(df: Any) -> Any:
    """A copy of a pandas DataFrame whose text cells (and column names) are escaped (``escape_cell``)."""
    out = df.copy()
    for c in out.columns:
        if out[c].dtype == object or str(out[c].dtype).startswith("str"):
            out[c] = out[c].map(lambda v: escape_cell(v) if isinstance(v, str) else v)
    out.columns = [escape_cell(str(c)) for c in out.columns]
    return out


def unescape_frame(df: Any) -> Any:
    """``escape_frame`` undone on a table read back."""
    for c in df.columns:
        if df[c].dtype == object or str(df[c].dtype).startswith("str"):
            df[c] = df[c].map(lambda v: unescape_cell(v) if isinstance(v, str) else v)
    df.columns = [unescape_cell(str(c)) for c in df.columns]
    return df


__all__ = ["ESCAPE", "FORMULA_PREFIXES", "csv_cell", "csv_line", "escape_cell", "escape_frame", "unescape_cell",
           "unescape_frame"]
