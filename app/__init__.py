"""MIRAN Studio, the desktop application (PySide6 + pyqtgraph): edits a core Scene and draws what core computes.

``app.model`` and ``app.tools`` hold no Qt: the document, the tool state and the tools' state machines. The
``qt_*`` modules and ``app.layers``, ``app.panels``, ``app.viewport`` are the views that observe them.
"""
