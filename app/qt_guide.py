"""Help > User Guide: the built HTML guide in the web browser when it is there (``docs/_build/html``, which the
packaged app carries), otherwise the guide's own Markdown pages in a window of the app (QTextBrowser renders
Markdown). The guide's MyST markup (roles, directives) is turned into plain Markdown for that window."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from PySide6 import QtCore, QtGui, QtWidgets

_ROOT = Path(__file__).resolve().parent.parent
INDEX = "index.md"
# Where the pages of an rST directive that only the HTML build renders are shown instead.
HTML_ONLY = "*This part is generated when the guide is built (see Development, \"This guide\"): run* " \
            "`python -m sphinx -b html docs docs/_build/html` *to read it.*"


def docs_dir() -> Path:
    """The guide's sources: ``docs/`` beside the packages, or an installed copy under ``share/miran-studio``."""
    for d in (_ROOT / "docs", Path(sys.prefix) / "share" / "miran-studio" / "docs"):
        if (d / INDEX).is_file():
            return d
    return _ROOT / "docs"


def built_guide() -> Path | None:
    """The built HTML guide's front page, when the guide has been built (or shipped built)."""
    index = docs_dir() / "_build" / "html" / "index.html"
    return index if index.is_file() else None


def open_url(url: QtCore.QUrl) -> bool:
    """Open a URL in the desktop's browser (tests replace this)."""
    return QtGui.QDesktopServices.openUrl(url)


_ROLE = re.compile(r"\{(kbd|doc|ref|term|code)\}`([^`]*)`")
_FENCE = re.compile(r"^(```+|:::+)\{(\w[\w-]*)\}\s*(.*)$")


def _toctree_links(lines: list[str]) -> list[str]:
    """A toctree's entries as a list of links to their pages."""
    return [f"- [{e.strip()}]({e.strip()}.md)" for e in lines if e.strip() and not e.strip().startswith(":")]


def plain_markdown(text: str, page: Path) -> str:
    """The page's MyST Markdown as CommonMark: roles as code, a toctree as a list of links, an included file's text
    as a code block, an admonition as a quote, and any other directive (generated reference) as a note."""
    out: list[str] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            out.append(_ROLE.sub(lambda r: f"`{r.group(2)}`", lines[i]))
            i += 1
            continue
        fence, name, arg = m.groups()
        body: list[str] = []
        i += 1
        while i < len(lines) and lines[i].strip() != fence:
            body.append(lines[i])
            i += 1
        i += 1
        if name == "toctree":
            out += _toctree_links(body)
        elif name in ("include", "literalinclude"):
            target = (page.parent / arg.strip()).resolve()
            language = next((b.split(":", 2)[2].strip() for b in body if b.startswith(":language:")), "")
            try:
                included = target.read_text(encoding="utf-8")
            except OSError:
                included = f"({arg.strip()} is not there)"
            out += [f"```{language}", included.rstrip(), "```"] if name == "literalinclude" else \
                plain_markdown(included, target).splitlines()
        elif name in ("note", "tip", "warning", "important"):
            out += [f"> **{name.capitalize()}.** {body[0] if body else ''}"] + [f"> {b}" for b in body[1:]]
        else:
            out.append(HTML_ONLY)
    return "\n".join(out) + "\n"


class QtGuideWindow(QtWidgets.QMainWindow):
    """The guide's Markdown pages, one at a time, with back and forward; links between pages stay in the window and
    others open in the browser. objectName ``guide_window``; its browser ``guide.browser``."""

    def __init__(self, parent: QtWidgets.QWidget | None = None, folder: Path | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("guide_window")
        self.setWindowTitle("MIRAN Studio — User Guide")
        self.folder = (folder or docs_dir()).resolve()
        self.page: Path | None = None
        self._history: list[Path] = []
        self._ahead: list[Path] = []
        self.browser = QtWidgets.QTextBrowser()
        self.browser.setObjectName("guide.browser")
        self.browser.setOpenLinks(False)
        self.browser.anchorClicked.connect(self.follow)
        self.setCentralWidget(self.browser)
        bar = self.addToolBar("Guide")
        bar.setMovable(False)
        self.back_action = bar.addAction("Back", self.back)
        self.back_action.setShortcut(QtGui.QKeySequence.StandardKey.Back)
        self.forward_action = bar.addAction("Forward", self.forward)
        self.forward_action.setShortcut(QtGui.QKeySequence.StandardKey.Forward)
        bar.addAction("Contents", lambda: self.show_page(self.folder / INDEX))
        self.resize(900, 760)
        self.show_page(self.folder / INDEX)

    def show_page(self, page: Path, anchor: str = "", remember: bool = True) -> None:
        """Show one Markdown page of the guide (scrolled to ``anchor``)."""
        page = page.resolve()
        if remember and self.page is not None and page != self.page:
            self._history.append(self.page)
            self._ahead.clear()
        self.page = page
        doc = self.browser.document()
        doc.setBaseUrl(QtCore.QUrl.fromLocalFile(str(page.parent) + "/"))
        self.browser.setMarkdown(plain_markdown(page.read_text(encoding="utf-8"), page))
        self._fit_pictures()
        if anchor:
            self.browser.scrollToAnchor(anchor)
        self.back_action.setEnabled(bool(self._history))
        self.forward_action.setEnabled(bool(self._ahead))

    def _fit_pictures(self) -> None:
        """Scale each picture down to the window's width (the screenshots are 1280 pixels wide)."""
        doc = self.browser.document()
        room = max(200, self.browser.viewport().width() - 24)
        block = doc.begin()
        while block.isValid():
            it = block.begin()
            while not it.atEnd():
                frag = it.fragment()
                fmt = frag.charFormat()
                if fmt.isImageFormat():
                    image = fmt.toImageFormat()
                    size = QtGui.QImageReader(doc.baseUrl().resolved(QtCore.QUrl(image.name())).toLocalFile()).size()
                    if size.width() > 0:
                        width = min(room, size.width())
                        image.setWidth(width)
                        image.setHeight(size.height() * width / size.width())
                        cursor = QtGui.QTextCursor(doc)
                        cursor.setPosition(frag.position())
                        cursor.setPosition(frag.position() + frag.length(), QtGui.QTextCursor.MoveMode.KeepAnchor)
                        cursor.setCharFormat(image)
                it += 1
            block = block.next()

    def resizeEvent(self, ev: QtGui.QResizeEvent) -> None:
        super().resizeEvent(ev)
        if self.page is not None and ev.oldSize().width() != ev.size().width():
            self._fit_pictures()

    def follow(self, url: QtCore.QUrl) -> None:
        """A clicked link: a page of the guide opens here, anything else in the browser."""
        if url.scheme() in ("http", "https", "mailto"):
            open_url(url)
            return
        base = self.page.parent if self.page is not None else self.folder
        target = (base / url.path()).resolve() if url.path() else (self.page or self.folder / INDEX)
        inside = target == self.folder / INDEX or self.folder in target.parents
        if target.suffix == ".md" and target.is_file() and inside:
            self.show_page(target, url.fragment())
        elif target.exists():
            open_url(QtCore.QUrl.fromLocalFile(str(target)))

    def back(self) -> None:
        if self._history and self.page is not None:
            self._ahead.append(self.page)
            self.show_page(self._history.pop(), remember=False)

    def forward(self) -> None:
        if self._ahead and self.page is not None:
            self._history.append(self.page)
            self.show_page(self._ahead.pop(), remember=False)


def open_guide(parent: QtWidgets.QWidget) -> QtGuideWindow | None:
    """Help > User Guide: the built HTML in the browser; else (or when no browser opens) the Markdown window, which
    is returned."""
    html = built_guide()
    if html is not None and open_url(QtCore.QUrl.fromLocalFile(str(html))):
        return None
    window = parent.findChild(QtGuideWindow, "guide_window")
    if window is None:
        window = QtGuideWindow(parent)
    window.show()
    window.raise_()
    window.activateWindow()
    return window
