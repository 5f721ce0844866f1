"""The repository's shape: the top level the project fixed, the packaging metadata, the files CI relies on."""

from __future__ import annotations

import os
import subprocess
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
TOP_LEVEL = {"pyproject.toml", "README.md", "LICENSE", "CHANGELOG.md", "app", "core", "resources", "tests", "scenes",
             "packaging", "docs", ".ci", ".gitignore"}


@pytest.mark.subprocess
def test_top_level_is_exactly_the_agreed_set():
    try:
        out = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    tracked = {line.split("/")[0] for line in out.splitlines() if line}
    assert tracked <= TOP_LEVEL, tracked - TOP_LEVEL
    assert {"pyproject.toml", "README.md", "LICENSE", "core", "scenes", "resources", "tests", "docs", ".ci"} <= tracked


def test_pyproject_declares_the_distribution():
    meta = tomllib.loads((REPO / "pyproject.toml").read_text())
    project = meta["project"]
    assert project["name"] == "miran-studio"
    assert project["requires-python"] == ">=3.11"
    assert project["license"] == "MIT"                      # an SPDX expression, not the deprecated table
    deps = " ".join(project["dependencies"])
    for dep in ("PySide6-Essentials", "pyqtgraph", "numpy", "shapely", "moderngl", "numba", "triangle"):
        assert dep in deps
    test = " ".join(project["optional-dependencies"]["test"])
    for dep in ("pytest", "pytest-qt", "hypothesis", "jsonschema"):
        assert dep in test
    docs = " ".join(project["optional-dependencies"]["docs"])
    for dep in ("sphinx", "myst-parser", "furo", "sphinx-argparse"):
        assert dep in docs
    assert project["scripts"]["miran"] == "core.cli.main:entry"
    assert project["gui-scripts"]["miran-studio"] == "app.main:entry"


def test_ci_script_is_executable_bash():
    ci = REPO / ".ci" / "run"
    assert ci.read_text().startswith("#!/usr/bin/env bash")
    assert "set -euo pipefail" in ci.read_text()
    assert os.access(ci, os.X_OK)


def test_readme_test_command_is_what_ci_runs():
    readme = (REPO / "README.md").read_text()
    ci = (REPO / ".ci" / "run").read_text()
    assert "QT_QPA_PLATFORM=offscreen" in readme and "-m pytest" in readme
    assert "QT_QPA_PLATFORM=offscreen" in ci and "-m pytest" in ci


def test_ci_runs_the_static_checks_before_the_tests():
    ci = (REPO / ".ci" / "run").read_text()
    checks = (REPO / ".ci" / "checks").read_text()
    assert 0 <= ci.index("bash .ci/checks") < ci.index("-m pytest")
    assert "-m ruff check" in checks and "-m mypy" in checks and "lint-imports" in checks
    lint = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]["lint"]
    assert {d.split(">")[0] for d in lint} == {"ruff", "mypy", "import-linter"}


def test_desktop_entry_runs_the_declared_gui_script():
    entry = (REPO / "packaging" / "miran-studio.desktop").read_text().splitlines()
    assert entry[0] == "[Desktop Entry]"
    keys = dict(line.split("=", 1) for line in entry[1:] if "=" in line)
    assert keys["Type"] == "Application" and keys["Name"] == "MIRAN Studio"
    gui = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["gui-scripts"]
    assert keys["Exec"].split()[0] in gui
    assert (REPO / "packaging" / f"{keys['Icon']}.svg").exists()
    assert keys["Categories"].endswith(";")


def test_license_is_the_declared_mit_license():
    text = (REPO / "LICENSE").read_text()
    assert text.startswith("MIT License") and "MIRAN Studio contributors" in text
    assert "THE SOFTWARE IS PROVIDED \"AS IS\"" in text


def test_ci_builds_the_guide_with_warnings_as_errors():
    ci = (REPO / ".ci" / "run").read_text()
    assert "[docs]" in ci or "docs]" in ci
    assert "-m sphinx" in ci and " -W" in ci
