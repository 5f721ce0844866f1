"""The ``miran`` parser: a command loads its own module only, and the help and the errors still list every
command."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from core.cli.main import COMMANDS, build_parser, main

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.subprocess
def test_a_command_does_not_load_the_other_commands_modules():
    code = ("import sys; from core.cli.main import main; code = main(['validate', 'scenes/mckenna_road.json']); "
            "print(code, sorted(m for m in ('core.cli.simulate', 'core.cli.sweep', 'core.cli.measure', "
            "'core.sim', 'core.sweep') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[-1] == "0 []"


def test_the_help_and_a_misspelt_command_name_every_command(capsys):
    full = build_parser().format_help()
    assert all(name in full for name in COMMANDS)
    with pytest.raises(SystemExit) as e:
        main(["swep", "x"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'swep'" in err and all(repr(name) in err for name in COMMANDS)


def test_one_commands_parser_is_the_full_parsers_for_that_command():
    for name in COMMANDS:
        one = build_parser(only=name)._subparsers._group_actions[0].choices[name]
        every = build_parser()._subparsers._group_actions[0].choices[name]
        assert one.format_help() == every.format_help(), name
