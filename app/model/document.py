"""The document: the Scene being edited, its file, the selection and each layer's visibility and lock.

The scene is replaced, never mutated: an edit sets some top-level fields and the document swaps in a new Scene
(``dataclasses.replace``) sharing the rest. A Scene held by anyone else (an undo command, the autosave thread,
later the simulation worker) is therefore a stable snapshot.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from core.scene import Scene
from core.scene.edits import ITEM_KINDS, KIND_FIELD, Ref, index_of, items
from core.scene.picking import PickIndex

from .events import Signal

def lookup(scene: Scene, refs):
    """The items named by refs, as ``(kind, item)`` pairs in order, skipping missing ones (one dict per kind)."""
    by_kind: dict[str, dict[str, Any]] = {}
    for kind, item_id in refs:
        if kind not in by_kind:
            by_kind[kind] = {it.id: it for it in items(scene, kind)}
        it = by_kind[kind].get(item_id)
        if it is not None:
            yield kind, it


# Layers in drawing order, bottom to top.
LAYER_KINDS = ("terrain", "obstacle", "network", "route", "agent")
LAYER_TITLES = {"terrain": "Terrain", "obstacle": "Obstacles", "network": "Networks", "route": "Routes",
                "agent": "Agents"}


@dataclasses.dataclass
class LayerState:
    """Whether a layer is drawn and whether its items can be picked and edited."""

    visible: bool = True
    locked: bool = False


class Document:
    """The scene being edited and what the views show of it.

    Events: ``changed(fields)`` after an edit with the set of Scene field names it set; ``reset()`` after a new
    scene was loaded; ``selection_changed()``; ``layers_changed(kind)``; ``path_changed()``.
    """

    def __init__(self, scene: Scene | None = None, path: str | Path | None = None) -> None:
        self.scene = scene if scene is not None else Scene.empty()
        self.path = Path(path) if path is not None else None
        self.selection: tuple[Ref, ...] = ()
        self.layers = {k: LayerState() for k in LAYER_KINDS}
        self.version = 0
        self.changed = Signal()
        self.reset = Signal()
        self.selection_changed = Signal()
        self.layers_changed = Signal()
        self.path_changed = Signal()
        self._picker: PickIndex | None = None
        self._picker_version = -1

    # -- the scene ---------------------------------------------------------------------------------------------

    def set_scene(self, scene: Scene, path: str | Path | None = None) -> None:
        """Start editing another scene (a file opened, a new scene, a recovered one)."""
        self.scene = scene
        self.path = Path(path) if path is not None else None
        self.selection = ()
        self.version += 1
        self.reset.emit()
        self.selection_changed.emit()
        self.path_changed.emit()

    def set_path(self, path: str | Path | None) -> None:
        self.path = Path(path) if path is not None else None
        self.path_changed.emit()

    def set_fields(self, values: dict[str, Any]) -> dict[str, Any]:
        """Set top-level Scene fields (a new Scene); returns their previous values, for undo."""
        old = {k: getattr(self.scene, k) for k in values}
        self.scene = dataclasses.replace(self.scene, **values)
        self.version += 1
        kept = self._existing(self.selection)
        self.changed.emit(frozenset(values))
        if kept != self.selection:
            self.selection = kept
            self.selection_changed.emit()
        return old

    def picker(self) -> PickIndex:
        """The hit-test index of the current scene (rebuilt lazily after an edit)."""
        if self._picker is None or self._picker_version != self.version:
            self._picker = PickIndex(self.scene)
            self._picker_version = self.version
        return self._picker

    # -- selection ---------------------------------------------------------------------------------------------

    def select(self, refs, mode: str = "replace") -> None:
        """Change the selection: ``replace`` it, ``add`` to it, or ``toggle`` each ref."""
        refs = list(self._existing(tuple(r) for r in refs))
        if mode == "replace":
            new = tuple(dict.fromkeys(refs))
        elif mode == "add":
            new = tuple(dict.fromkeys([*self.selection, *refs]))
        elif mode == "toggle":
            cur = list(self.selection)
            for r in refs:
                if r in cur:
                    cur.remove(r)
                else:
                    cur.append(r)
            new = tuple(cur)
        else:
            raise ValueError(f"unknown selection mode {mode!r} (valid: replace, add, toggle)")
        if new != self.selection:
            self.selection = new
            self.selection_changed.emit()

    def _existing(self, refs) -> tuple[Ref, ...]:
        """The refs whose item exists, in order (one id set per kind: selections can hold thousands)."""
        ids: dict[str, set[str]] = {}
        out = []
        for kind, item_id in refs:
            if kind not in ids:
                ids[kind] = {it.id for it in items(self.scene, kind)} if kind in KIND_FIELD else set()
            if item_id in ids[kind]:
                out.append((kind, item_id))
        return tuple(out)

    def selected_items(self) -> list[tuple[str, Any]]:
        """The selected items as ``(kind, item)`` pairs."""
        return list(lookup(self.scene, self.selection))

    def ref_at(self, kind: str, index: int) -> Ref:
        """The ref of the item at a list position."""
        return kind, items(self.scene, kind)[index].id

    def index(self, ref: Ref) -> int:
        return index_of(self.scene, *ref)

    # -- layers ------------------------------------------------------------------------------------------------

    def set_layer(self, kind: str, visible: bool | None = None, locked: bool | None = None) -> None:
        st = self.layers[kind]
        if visible is not None:
            st.visible = visible
        if locked is not None:
            st.locked = locked
        if not st.visible or st.locked:
            self.select([r for r in self.selection if r[0] != kind])
        self.layers_changed.emit(kind)

    def editable_kinds(self) -> tuple[str, ...]:
        """Kinds whose layer is visible and unlocked: the ones tools may pick and change."""
        return tuple(k for k in ITEM_KINDS if self.layers[k].visible and not self.layers[k].locked)

    def is_editable(self, kind: str) -> bool:
        return kind in self.editable_kinds()


__all__ = ["Document", "KIND_FIELD", "LAYER_KINDS", "LAYER_TITLES", "LayerState"]
