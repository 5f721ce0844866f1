"""MIRAN Studio's engine: scenes, navigation meshes, routes, steering, simulation and export.

The engine is headless: it never imports Qt, and every capability is reachable from the ``miran`` command line.
"""

__version__ = "0.1.0"
