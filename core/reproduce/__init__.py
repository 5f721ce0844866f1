"""``miran reproduce OUTDIR``: the papers' experiments rerun on this engine, each with a computed verdict
(``reproduced`` or ``differs: ...``) from explicit criteria stating each paper's claims, figures (matplotlib, PNG and
SVG) and a Markdown report with the papers' numbers beside ours and the recovery share of each experiment's walkers
(how much of their walking the progress guarantee did instead of the method's forces). One module per paper:
``miran``, ``irm``, ``ecm``, ``niederberger``; ``experiment`` holds what they share.

```python
from core.reproduce import reproduce
written, failed = reproduce("out", quick=True)   # {"miran_fig7": [Path("out/miran_fig7.png"), ...svg], ...}, []
```
"""

from .experiment import Experiment, Recovery
from .experiments import EXPERIMENTS
from .report import reproduce
from .verdict import Check, verdict

__all__ = ["EXPERIMENTS", "Check", "Experiment", "Recovery", "reproduce", "verdict"]
