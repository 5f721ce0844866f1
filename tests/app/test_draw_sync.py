"""The tool's drawings ride on the simulation's frames while it plays, and apply at once otherwise."""

from __future__ import annotations

from app.viewport.draw_sync import DrawSync


def test_changes_apply_at_once_without_a_playing_simulation(qtbot):
    sync = DrawSync()
    done = []
    sync.defer("preview", lambda: done.append(1))
    assert done == [1] and sync.waiting == 0


def test_held_changes_wait_for_the_frame_and_the_latest_of_a_kind_wins(qtbot):
    sync = DrawSync(max_wait_s=10.0)
    done = []
    sync.hold(True)
    sync.defer("preview", lambda: done.append("first move"))
    sync.defer("other", lambda: done.append("other"))
    sync.defer("preview", lambda: done.append("second move"))
    assert done == [] and sync.waiting == 2
    sync.flush()  # the frame is drawn
    assert done == ["other", "second move"] and sync.waiting == 0
    sync.flush()
    assert done == ["other", "second move"]


def test_a_held_change_never_waits_past_its_limit(qtbot):
    sync = DrawSync(max_wait_s=0.02)
    done = []
    sync.hold(True)
    sync.defer("preview", lambda: done.append(1))
    qtbot.waitUntil(lambda: done == [1], timeout=2000)  # no frame came (a paused or slowed run)


def test_letting_go_applies_what_waits(qtbot):
    sync = DrawSync(max_wait_s=10.0)
    done = []
    sync.hold(True)
    sync.defer("preview", lambda: done.append(1))
    sync.hold(False)
    assert done == [1]
    sync.defer("preview", lambda: done.append(2))
    assert done == [1, 2]
