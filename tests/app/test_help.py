"""The Help menu: User Guide (F1) opens the built HTML guide in the browser when it is there, else the guide's
Markdown pages in a window of the app; Keyboard Shortcuts lists every shortcut read from the actions themselves, and
the guide's shortcut table says the same keys."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from app import qt_guide
from app.actions import ACTIONS
from app.sim.actions import SIM_ACTIONS
from app.tools import TOOL_CLASSES

DOCS = Path(__file__).resolve().parents[2] / "docs"


@pytest.fixture
def browser_calls(monkeypatch):
    """No browser is started: the URLs the app asks to open are recorded (as opened) instead."""
    calls: list[QtCore.QUrl] = []

    def record(url):
        calls.append(url)
        return True

    monkeypatch.setattr(qt_guide, "open_url", record)
    return calls


def guide_windows(w) -> list[qt_guide.QtGuideWindow]:
    return [g for g in w.findChildren(qt_guide.QtGuideWindow) if g.isVisible()]


def test_f1_opens_the_built_html_guide_in_the_browser(make_studio, drive, browser_calls, monkeypatch, tmp_path):
    html = tmp_path / "_build" / "html" / "index.html"
    html.parent.mkdir(parents=True)
    html.write_text("<html><body>MIRAN Studio</body></html>")
    (tmp_path / "index.md").write_text("# MIRAN Studio\n")
    monkeypatch.setattr(qt_guide, "docs_dir", lambda: tmp_path)
    w = make_studio(new=(100, 100))
    drive(w).shortcut(QtGui.QKeySequence.StandardKey.HelpContents)
    assert [u.toLocalFile() for u in browser_calls] == [str(html)]
    assert guide_windows(w) == []


def test_without_a_built_guide_the_markdown_pages_open_in_a_window(make_studio, browser_calls, monkeypatch):
    monkeypatch.setattr(qt_guide, "built_guide", lambda: None)
    w = make_studio(new=(100, 100))
    w.actions["help.guide"].trigger()
    QtWidgets.QApplication.processEvents()
    assert browser_calls == []
    [guide] = guide_windows(w)
    text = guide.browser.toPlainText()
    assert text.startswith("MIRAN Studio") and "Getting started" in text
    # MyST's markup never shows raw: toctrees became links, roles plain text.
    assert "{toctree}" not in text and "{kbd}" not in text and ":maxdepth:" not in text
    # The index's links lead to the pages, inside the window; Back returns.
    guide.follow(QtCore.QUrl("getting-started.md"))
    assert guide.page == (DOCS / "getting-started.md").resolve()
    assert guide.browser.toPlainText().startswith("Getting started")
    assert "`F5`" not in guide.browser.toPlainText() and "F5" in guide.browser.toPlainText()
    guide.follow(QtCore.QUrl("tutorial/designer.md"))
    assert "Tutorial: a scene from nothing" in guide.browser.toPlainText()
    guide.back()
    assert guide.page == (DOCS / "getting-started.md").resolve()
    # A link out of the guide goes to the browser.
    guide.follow(QtCore.QUrl("https://example.org/"))
    assert [u.toString() for u in browser_calls] == ["https://example.org/"]
    # F1 again raises the same window rather than opening another.
    w.show_guide()
    assert len(guide_windows(w)) == 1


def test_the_markdown_window_shows_the_tutorial_pictures(make_studio, browser_calls, monkeypatch):
    monkeypatch.setattr(qt_guide, "built_guide", lambda: None)
    w = make_studio(new=(100, 100))
    guide = w.show_guide()
    guide.show_page(DOCS / "tutorial" / "designer.md")
    doc = guide.browser.document()
    images = re.findall(r'<img src="([^"]+)"', doc.toHtml())
    assert len(images) == 9
    for src in images:
        url = doc.baseUrl().resolved(QtCore.QUrl(src))
        assert Path(url.toLocalFile()).is_file(), src
        assert doc.resource(QtGui.QTextDocument.ResourceType.ImageResource, url) is not None


def test_reference_pages_say_what_only_the_html_build_renders(make_studio, browser_calls, monkeypatch):
    monkeypatch.setattr(qt_guide, "built_guide", lambda: None)
    w = make_studio(new=(100, 100))
    guide = w.show_guide()
    guide.show_page(DOCS / "reference" / "cli.md")
    assert "docs/_build/html" in guide.browser.toPlainText()
    guide.show_page(DOCS / "reference" / "scene-format.md")
    assert '"miran-scene"' in guide.browser.toPlainText()       # the schema, included as a code block


def test_plain_markdown_converts_myst_markup(tmp_path):
    (tmp_path / "x.json").write_text('{"a": 1}\n')
    page = tmp_path / "p.md"
    text = ("# Title\n\nPress {kbd}`Ctrl+S`.\n\n```{toctree}\n:maxdepth: 2\n\nguide/app\n```\n\n"
            "```{literalinclude} x.json\n:language: json\n```\n\n```{eval-rst}\n.. automodule:: core\n```\n\n"
            "```python\nprint(1)\n```\n")
    out = qt_guide.plain_markdown(text, page)
    assert "Press `Ctrl+S`." in out
    assert "- [guide/app](guide/app.md)" in out and "maxdepth" not in out
    assert '```json\n{"a": 1}\n```' in out
    assert "automodule" not in out and qt_guide.HTML_ONLY in out
    assert "```python\nprint(1)\n```" in out


def test_keyboard_shortcuts_lists_every_action_with_its_keys(make_studio, drive):
    w = make_studio(new=(100, 100))
    drive(w).shortcut("Ctrl+/")
    dlg = w.findChild(QtWidgets.QDialog, "shortcuts_dialog")
    assert dlg is not None and dlg.isVisible() and dlg.windowTitle() == "Keyboard Shortcuts"
    table = dlg.findChild(QtWidgets.QTableWidget)
    rows = {table.item(r, 0).text(): table.item(r, 1).text() for r in range(table.rowCount())}
    menus = [a.menu() for a in w.menuBar().actions() if a.menu() is not None]
    seen = 0
    for menu in menus:
        for a in menu.actions():
            keys = [s.toString(QtGui.QKeySequence.SequenceFormat.NativeText) for s in a.shortcuts()]
            if a.menu() is None and keys:
                name = next(k for k in rows if k.endswith("> " + a.text().replace("&", "").replace("…", "").strip()))
                assert all(k in rows[name] for k in keys), (name, rows[name], keys)
                seen += 1
    assert seen >= 30
    assert rows["Help > User Guide"].split(" or ")[0] == "F1" and rows["Help > Keyboard Shortcuts"] == "Ctrl+/"
    assert rows["Simulation > Play"] == "F5" and rows["Tools > Draw Obstacle"] == "O"


def test_the_guide_gives_every_key_the_app_has():
    """docs/guide/app.md's tables name each key an action has (the standard keys by the platform's name)."""
    page = (DOCS / "guide" / "app.md").read_text()
    keys = [spec.key for spec in (*ACTIONS, *SIM_ACTIONS) if isinstance(spec.key, str)]
    keys += [cls.shortcut for cls in TOOL_CLASSES]
    for key in keys:
        assert "{kbd}`" + key + "`" in page, key
