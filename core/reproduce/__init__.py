"""``miran reproduce OUTDIR``: the papers' experiments rerun on this engine, each with a computed verdict
(``reproduced`` or ``differs: ...``) from explicit criteria, figures (matplotlib, PNG and SVG) and a Markdown report
with the papers' numbers beside ours.

```python
from core.reproduce import reproduce
written, failed = reproduce("out", quick=True)   # {"miran_fig7": [Path("out/miran_fig7.png"), ...svg], ...}, []
```
"""

from .experiments import EXPERIMENTS, Experiment
from .report import reproduce
from .verdict import Check, verdict

__all__ = ["EXPERIMENTS", "Check", "Experiment", "reproduce", "verdict"]
