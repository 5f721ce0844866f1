"""Steering methods for one character at a time, as numba kernels the simulation's phases call.

- ``miran``: MIRAN (Jaklin, Cook and Geraerts 2013, section 3): reference point, candidates, omega.
- ``disc_miran``: disc MIRAN (Kremyzas 2014, chapter 4): interval ends adjusted for a disc, disc traversal cost.
- ``candidates``: sampling the visible intervals every d and the choice with ties to the farthest (3.2-3.3).
- ``forces``: F_s, F_b, F_o (MIRAN 3.4, IRM section 4), relative to the maximum speed.
- ``methods``: the method names and the codes the kernels dispatch on.
"""

from .methods import CODES, DISC_MIRAN, IRM, MIRAN, method_code, method_name

__all__ = ["CODES", "DISC_MIRAN", "IRM", "MIRAN", "method_code", "method_name"]
