"""Entry script for the frozen application (PyInstaller needs a script). Run as ``miran-studio`` it opens the app
(``app.main:entry``); run through the ``miran`` link beside it, the command line (``core.cli.main:main``).

A bundle built with its kernels (packaging/build_bundle.py) carries them compiled for a baseline x86-64 CPU, so
the engine is compiled for that CPU here too: numba finds a cached kernel only under the CPU it was built for.
"""

import os
import sys

if getattr(sys, "frozen", False) and os.path.isdir(os.path.join(getattr(sys, "_MEIPASS", ""), "kernels")):
    os.environ.setdefault("NUMBA_CPU_NAME", "generic")

if __name__ == "__main__":
    if os.path.basename(sys.argv[0]) == "miran":
        from core.cli.main import main

        sys.exit(main())
    from app.main import entry

    sys.exit(entry())
