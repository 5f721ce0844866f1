"""Computed verdicts: each experiment states the paper's claims as ``Check``s, each with an explicit criterion
evaluated on our numbers, and its verdict is ``reproduced`` when every counted check holds, else ``differs: ...``
naming the checks that failed with our number against the paper's and the known cause, where the experiment names
one (a different machine, a documented stand-in scene).

A check that holds by construction (the engine guarantees it whatever the method does: "every character arrives"
under the progress guarantee, a clearance the planner refuses to break) is still shown, labelled so, and does not
count towards the verdict (``construction``).
"""

from __future__ import annotations

from dataclasses import dataclass

REPRODUCED = "reproduced"


@dataclass(frozen=True)
class Check:
    """One claim of a paper, tested.

    - ``claim``: the paper's statement in words; ``criterion``: the test applied, in words (it mirrors the
      expression that computed ``holds`` beside it in the experiment);
    - ``paper`` / ``ours``: the two numbers or facts, as text;
    - ``holds``: the criterion's outcome;
    - ``cause``: when the check fails, the known reason (machine, stand-in scene); empty when none is known;
    - ``counts``: False for a check that holds by construction (``why`` says what guarantees it): shown, never
      counted towards the verdict.
    """

    claim: str
    criterion: str
    paper: str
    ours: str
    holds: bool
    cause: str = ""
    counts: bool = True
    why: str = ""

    def as_dict(self) -> dict:
        return {"claim": self.claim, "criterion": self.criterion, "paper": self.paper, "ours": self.ours,
                "holds": bool(self.holds), "cause": self.cause, "counts": self.counts, "by_construction": self.why}


def check(claim: str, criterion: str, paper: str, ours: str, holds: bool, cause: str = "") -> Check:
    """A ``Check`` with ``holds`` coerced to a plain bool (numpy booleans included)."""
    return Check(claim, criterion, paper, ours, bool(holds), cause)


def construction(claim: str, criterion: str, paper: str, ours: str, holds: bool, why: str) -> Check:
    """A check that holds by construction (``why``: what in the engine guarantees it): reported, not counted."""
    return Check(claim, criterion, paper, ours, bool(holds), "", counts=False, why=why)


def verdict(checks: list[Check]) -> str:
    """``reproduced`` when every counted check holds (and there is at least one), else ``differs:`` and, per
    failed counted check, its claim, ours against the paper's and the cause when known. Checks that hold by
    construction are left out."""
    counted = [c for c in checks if c.counts]
    if not counted:
        return "differs: no criterion was evaluated"
    failed = [c for c in counted if not c.holds]
    if not failed:
        return REPRODUCED
    return "differs: " + "; ".join(f"{c.claim} (ours {c.ours}, paper {c.paper}"
                                   + (f"; {c.cause}" if c.cause else "") + ")" for c in failed)


def checks_table(checks: list[Check]) -> str:
    """The checks as a Markdown table: claim, criterion, paper, ours, holds (checks that hold by construction
    labelled so, and not counted)."""
    rows = ["| claim | criterion | paper | ours | holds |", "|---|---|---|---|---|"]
    for c in checks:
        held = "yes" if c.holds else "**no**"
        if not c.counts:
            held += f"; by construction, not counted ({c.why})"
        rows.append(f"| {c.claim} | {c.criterion} | {c.paper} | {c.ours} | {held}"
                    + (f" ({c.cause})" if c.cause and not c.holds else "") + " |")
    return "\n".join(rows) + "\n"
