"""The catalogue of the papers' experiments that ``miran reproduce`` runs, by name, in report order. Each paper's
experiments live in its own module (``miran``, ``irm``, ``ecm``, ``niederberger``); each returns an ``Experiment``
(core.reproduce.experiment).
"""

from __future__ import annotations

from typing import Callable

from .ecm import ecm_cpu_load, ecm_fig6, ecm_fig8, ecm_timings
from .experiment import Experiment
from .irm import irm_fig1, irm_fig3, irm_fig3c, irm_fig6, irm_lanes
from .miran import miran_fig1, miran_fig7, miran_fig8, miran_table1
from .niederberger import niederberger_fig9, niederberger_fig10, niederberger_table1

EXPERIMENTS: dict[str, Callable[[bool], Experiment]] = {
    "miran_fig7": miran_fig7, "miran_fig8": miran_fig8, "miran_fig1": miran_fig1, "miran_table1": miran_table1,
    "irm_fig1": irm_fig1, "irm_fig3": irm_fig3, "irm_fig3c": irm_fig3c, "irm_fig6": irm_fig6, "irm_lanes": irm_lanes,
    "ecm_timings": ecm_timings, "ecm_fig8": ecm_fig8, "ecm_fig6": ecm_fig6, "ecm_cpu_load": ecm_cpu_load,
    "niederberger_table1": niederberger_table1, "niederberger_fig9": niederberger_fig9,
    "niederberger_fig10": niederberger_fig10}
