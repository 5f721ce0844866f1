"""Problems found in input files: a JSON path and a plain sentence, collected and reported all at once."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Problem:
    """One problem in a file, located by its JSON path (``obstacles[3].polygon``)."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


class InputError(ValueError):
    """Raised with every problem of a bad input at once; the command line prints them and exits 2."""

    def __init__(self, problems: list[Problem], source: str = ""):
        self.problems = list(problems)
        self.source = source
        head = f"{source}: " if source else ""
        super().__init__(head + "; ".join(str(p) for p in self.problems))

    def __reduce__(self) -> tuple[Any, tuple[type[InputError], list[Problem], str]]:
        """Pickled with its problems and source (it crosses to and from a sweep's worker processes), whatever the
        subclass's own constructor takes."""
        return (_rebuilt, (type(self), self.problems, self.source))

    def lines(self) -> list[str]:
        """One line per problem, prefixed by the source file where known."""
        head = f"{self.source}: " if self.source else ""
        return [head + str(p) for p in self.problems]


def _rebuilt(cls: type[InputError], problems: list[Problem], source: str) -> InputError:
    """An InputError (or subclass) with these problems, unpickled."""
    e: InputError = InputError.__new__(cls)
    InputError.__init__(e, problems, source)
    return e


def fmt_point(p: Any) -> str:
    """A point as the messages print it: ``(12.0, 40.5)``."""
    return f"({float(p[0]):.6g}, {float(p[1]):.6g})"
