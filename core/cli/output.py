"""Shared output helpers for the commands: JSON printing and error reporting."""

from __future__ import annotations

import json
import sys
from typing import Any


def print_json(data: Any) -> None:
    """Print a JSON document on stdout."""
    json.dump(data, sys.stdout, indent=1, allow_nan=False)
    sys.stdout.write("\n")
