"""The ``miran`` command line: one module per command, each with ``add_parser`` and ``run``.

Every command prints a short human summary, or JSON with ``--json``; exit 0 on success, 2 on bad input, 130 when
Ctrl+C stopped it (wherever it landed: while the modules load, or inside a numba kernel call, core.interrupts).
Only the standard library and core.interrupts are imported before the SIGINT handler is installed.
"""

from __future__ import annotations

import argparse
import importlib
import keyword
import signal
import sys

from core import interrupts

# Command name -> module under core.cli that defines add_parser(subparsers) and run(args) -> int.
COMMANDS = ["validate", "info", "route", "measure", "bench", "simulate", "reproduce", "ecm", "import", "export",
            "sweep", "sweep-plot"]


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command. With ``only`` (a command name) only that command's module is imported and its
    parser built, the others named without options: a command starts without loading the other commands' modules
    (``miran sweep`` imported the simulation's and the measurements' for its parser, 0.6 s of a 3 s sweep)."""
    parser = argparse.ArgumentParser(
        prog="miran", description="MIRAN Studio's engine: terrain-aware path planning from the command line."
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in COMMANDS:
        if only is not None and name != only:
            sub.add_parser(name)
            continue
        module_name = name.replace("-", "_")
        # A command named like a Python keyword lives in a module with a trailing underscore (import_.py).
        module = importlib.import_module(f"core.cli.{module_name}{'_' * keyword.iskeyword(module_name)}")
        p = module.add_parser(sub)
        p.set_defaults(_run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command; bad input prints one line per problem on stderr and returns 2; Ctrl+C prints
    "interrupted" and returns 130, wherever it lands (core.interrupts)."""
    restore = interrupts.install()
    try:
        return _main(argv)
    except KeyboardInterrupt:
        return _interrupted()
    except BrokenPipeError:
        return 0
    except Exception as e:
        # numba's "SystemError: CPUDispatcher(...) returned a result with an exception set" when Ctrl+C landed
        # inside a kernel call; anything else is a bug and keeps its traceback
        if interrupts.is_interrupt(e) or interrupts.interrupted():
            return _interrupted()
        raise
    finally:
        try:
            restore()
        except KeyboardInterrupt:
            pass  # Ctrl+C in the instant the command ends: its result stands


def _main(argv: list[str] | None) -> int:
    from core.cli.output import check_command_files
    from core.scene.problems import InputError

    _tolerant_output()
    words = sys.argv[1:] if argv is None else argv
    parser = build_parser(only=words[0] if words and words[0] in COMMANDS else None)
    args = parser.parse_args(argv)
    try:
        check_command_files(args.command, args)
        return int(args._run(args) or 0)
    except InputError as e:
        if interrupts.is_interrupt(e):
            return _interrupted()
        for line in e.lines():
            print(f"error: {line}", file=sys.stderr)
        return 2


def _interrupted() -> int:
    print("interrupted", file=sys.stderr)
    return 130


def _tolerant_output() -> None:
    """Print what the terminal cannot encode (a file name of undecodable bytes) as escapes, never a traceback."""
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            try:
                stream.reconfigure(errors="backslashreplace")
            except (ValueError, OSError):
                pass


def entry() -> None:
    """Console-script entry point."""
    code = 130
    try:
        try:
            code = main()
        except KeyboardInterrupt:  # Ctrl+C in the instant between the command's end and the exit
            code = _interrupted()
    except KeyboardInterrupt:      # one more while the first was being reported: it is reported already
        code = 130
    finally:
        _ignore_further_interrupts()
    sys.exit(code)


def _ignore_further_interrupts() -> None:
    """Ignore SIGINT from here to the exit, so that the status reported stands: a KeyboardInterrupt that escaped
    the module would make Python end itself by SIGINT (status -2 after "interrupted" was printed, seen once in CI)."""
    while True:
        try:
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # runs a pending handler first, which may raise
            return
        except KeyboardInterrupt:
            continue
        except ValueError:  # not the main thread: nothing to ignore here
            return


if __name__ == "__main__":
    entry()
