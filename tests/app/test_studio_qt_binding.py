"""The Qt binding itself: PySide6-Essentials 6.12.0 drops a reference to None on every void call under Python
3.11, and the app then aborts after a few thousand calls. This guards the installed binding."""

import sys

from PySide6 import QtCore


def test_void_calls_keep_none_alive():
    o = QtCore.QObject()
    before = sys.getrefcount(None)
    for _ in range(200):
        o.setObjectName("x")
    assert sys.getrefcount(None) >= before - 5, "this PySide6 build corrupts None's reference count"
