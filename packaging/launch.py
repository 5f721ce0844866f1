"""Entry script for the frozen application (PyInstaller needs a script; this runs the ``miran-studio`` entry)."""

from app.main import entry

if __name__ == "__main__":
    entry()
