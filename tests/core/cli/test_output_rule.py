"""The output rule, for every command: an output never names an input (by path, through a symbolic link or as a
hard link), two outputs never name one file, a name derived from data never leaves its folder, every output is
checked before any work, and nothing but the writer's own temporaries is ever removed."""

from __future__ import annotations

import json
import os
import string
from pathlib import Path

import hypothesis.strategies as st
import pytest
from hypothesis import given, settings

from core.cli.main import build_parser, main
from core.cli.output import COMMAND_FILES
from core.scene.outputs import derived_path, inside, output_problems, safe_name, same_file

from hostile_corpus import BASE

ROOT = Path(__file__).resolve().parents[3]


def tree(folder: Path) -> dict[str, tuple[int, bytes]]:
    """Every file under ``folder`` (relative path -> (inode, bytes)), links as their target text."""
    out = {}
    for p in sorted(folder.rglob("*")):
        rel = p.relative_to(folder).as_posix()
        if p.is_symlink():
            out[rel] = (0, os.readlink(p).encode())
        elif p.is_file():
            out[rel] = (p.stat().st_ino, p.read_bytes())
        else:
            out[rel] = (0, b"<dir>")
    return out


@pytest.fixture
def scene_dir(tmp_path):
    (tmp_path / "s.json").write_text(json.dumps(BASE))
    (tmp_path / "link.json").symlink_to("s.json")
    os.link(tmp_path / "s.json", tmp_path / "hard.json")
    (tmp_path / "sub").mkdir()
    return tmp_path


def test_same_file_follows_links_and_inodes(scene_dir):
    s = scene_dir / "s.json"
    assert same_file(s, scene_dir / "link.json") and same_file(s, scene_dir / "hard.json")
    assert same_file(s, scene_dir / "sub" / ".." / "s.json")
    assert same_file(scene_dir / "link.json", scene_dir / "hard.json")
    assert not same_file(s, scene_dir / "other.json") and not same_file(s, scene_dir / "sub")
    # a link to a file that does not exist yet names that file
    (scene_dir / "dangling.json").symlink_to("future.json")
    assert same_file(scene_dir / "dangling.json", scene_dir / "future.json")


def test_output_problems_name_both_ends(scene_dir):
    s = str(scene_dir / "s.json")
    found = output_problems([("--out", scene_dir / "hard.json"), ("--png", scene_dir / "x.png"),
                             ("--csv", scene_dir / "x.png"), ("--dir", scene_dir / "sub")], [("SCENE", s)])
    assert [label for label, _ in found] == ["--out", "--csv", "--dir"]
    assert "the input SCENE" in found[0][1] and "also the output of --png" in found[1][1]
    assert "is a folder" in found[2][1]
    assert output_problems([("--out", scene_dir / "new.json")], [("SCENE", s)]) == []


def _options_with_dest(parser, dests):
    sub = next(a for a in parser._actions if a.dest == "command")
    for name, p in sub.choices.items():
        for a in p._actions:
            if a.dest in dests:
                yield name, a.dest


def test_every_command_that_writes_a_file_declares_it():
    """The rule is one table: every option that names an output file is in COMMAND_FILES."""
    found = set(_options_with_dest(build_parser(), {"out", "png"}))
    declared = {(cmd, dest) for cmd, (_, outs) in COMMAND_FILES.items() for dest, _ in outs}
    # reproduce's OUTDIR is a folder it fills with files of fixed names
    assert found <= declared, found - declared
    for cmd, (ins, outs) in COMMAND_FILES.items():
        dests = {a.dest for a in _subparser(cmd)._actions}
        assert {d for d, _ in ins + outs} <= dests, cmd


def _subparser(cmd):
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    return sub.choices[cmd]


CASES = [
    ["simulate", "{s}", "--out", "{o}", "--steps", "5"],
    ["route", "{s}", "--from", "2,2", "--to", "18,6", "--out", "{o}"],
    ["import", "{s}", "--out", "{o}"],
    ["export", "{s}", "--format", "geojson", "--out", "{o}"],
    ["ecm", "{s}", "--out", "{o}", "--resolution", "64"],
]


@pytest.mark.parametrize("argv", CASES, ids=lambda a: a[0])
@pytest.mark.parametrize("out", ["s.json", "./s.json", "sub/../s.json", "link.json", "hard.json"])
def test_no_command_writes_over_its_input(scene_dir, argv, out, capsys, monkeypatch):
    monkeypatch.chdir(scene_dir)
    before = tree(scene_dir)
    code = main([a.format(s="s.json", o=out) for a in argv])
    err = capsys.readouterr().err
    assert code == 2 and "an output never replaces an input" in err and "Traceback" not in err
    assert tree(scene_dir) == before


def test_two_outputs_never_name_one_file(scene_dir, capsys, monkeypatch):
    monkeypatch.chdir(scene_dir)
    (scene_dir / "x").symlink_to("y.png")
    before = tree(scene_dir)
    for pair in (["x.png", "x.png"], ["x", "y.png"], ["./sub/../x.png", "x.png"]):
        assert main(["ecm", "s.json", "--resolution", "64", "--out", pair[0], "--png", pair[1]]) == 2
        assert "two outputs of one command never name the same file" in capsys.readouterr().err
    assert tree(scene_dir) == before


def test_route_queries_are_an_input_too(scene_dir, capsys, monkeypatch):
    monkeypatch.chdir(scene_dir)
    (scene_dir / "q.json").write_text("[[2, 2, 18, 6]]")
    before = tree(scene_dir)
    assert main(["route", "s.json", "--queries", "q.json", "--out", "q.json"]) == 2
    assert "the input --queries" in capsys.readouterr().err
    assert tree(scene_dir) == before


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=string.printable + "é\u2028\x00", max_size=40))
def test_a_derived_name_stays_in_its_folder(tmp_path_factory, text):
    folder = tmp_path_factory.getbasetemp()
    name = safe_name(text)
    p = derived_path(folder, name)
    assert p.parent == folder and inside(folder, p) and "/" not in name and not name.startswith(".")


@pytest.mark.parametrize("name", ["..", ".", "../x", "a/b", "/etc/passwd", "a\\b", "", "x\0y"])
def test_a_path_is_not_a_derived_name(tmp_path, name):
    with pytest.raises(ValueError):
        derived_path(tmp_path, name)


def test_a_link_inside_the_folder_that_leads_out_is_refused(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "escape").symlink_to(tmp_path)
    with pytest.raises(ValueError):
        derived_path(tmp_path / "out", "escape")


def test_reproduce_runs_each_experiment_once(tmp_path, monkeypatch, capsys):
    """--only X given three times runs X once (the order of first mention kept) and reports it once."""
    import core.reproduce as reproduce
    from core.reproduce import report

    names = list(reproduce.EXPERIMENTS)[:2]
    ran = []

    class Done:
        def __init__(self, name):
            ran.append(name)
            raise RuntimeError("stand-in experiment")

    monkeypatch.setattr(report, "EXPERIMENTS", {n: (lambda quick, n=n: Done(n)) for n in names})
    argv = ["reproduce", str(tmp_path / "out")]
    for n in (names[1], names[0], names[1], names[1]):
        argv += ["--only", n]
    assert main(argv) == 1
    assert ran == [names[1], names[0]]
    err = capsys.readouterr().err
    assert err.count(f"running {names[1]} ...") == 1 and err.count(f"experiment {names[1]} failed") == 1
