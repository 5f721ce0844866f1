"""Sphinx configuration of the MIRAN Studio user guide (MyST Markdown pages, furo theme).

Build it with ``python -m sphinx -W -b html docs docs/_build/html`` (the ``docs`` extra installs the tools). It needs
no network and runs no notebook; the CLI reference is read from ``core.cli.main.build_parser`` and the Python API
from the engine's docstrings.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import core  # noqa: E402

project = "MIRAN Studio"
author = "MIRAN Studio contributors"
copyright = "MIRAN Studio contributors"  # noqa: A001  (Sphinx's name for it)
release = version = core.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.mathjax",
    "sphinxarg.ext",
]
myst_enable_extensions = ["colon_fence", "deflist", "dollarmath"]
myst_heading_anchors = 3
source_suffix = {".md": "markdown"}
exclude_patterns = ["_build", "scripts", "README.md"]
templates_path: list[str] = []
html_theme = "furo"
html_title = f"MIRAN Studio {release}"
html_static_path = ["_static"]
html_logo = "_static/miran-studio.svg"
html_theme_options = {"navigation_with_keys": True}

autodoc_default_options = {"members": True, "undoc-members": False, "show-inheritance": False}
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_mock_imports: list[str] = []
# The engine's names are documented where they are defined; re-exports would list each twice.
autodoc_inherit_docstrings = False

_FENCE = re.compile(r"^(\s*)```(\w*)\s*$")


def markdown_fences(app, what, name, obj, options, lines: list[str]) -> None:
    """The engine's docstrings show examples as Markdown code fences; reST needs a code-block directive."""
    out: list[str] = []
    inside = False
    indent = ""
    for line in lines:
        m = _FENCE.match(line)
        if m and not inside:
            inside, indent = True, m.group(1)
            if out and out[-1].strip():
                out.append("")
            out.append(f"{indent}.. code-block:: {m.group(2) or 'text'}")
            out.append("")
        elif m and inside:
            inside = False
            out.append("")
        elif inside:
            out.append(f"{indent}   {line[len(indent):]}" if line.strip() else "")
        else:
            out.append(line)
    lines[:] = out


def setup(app) -> None:
    app.connect("autodoc-process-docstring", markdown_fences)
