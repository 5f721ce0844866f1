"""``miran reproduce OUTDIR``: the papers' experiments rerun on this engine, as PNG figures and a Markdown report
with the papers' numbers beside ours.

```python
from core.reproduce import reproduce
written, failed = reproduce("out", quick=True)   # {"miran_fig7": Path("out/miran_fig7.png"), ...}, []
```
"""

from .experiments import EXPERIMENTS, Experiment
from .report import reproduce

__all__ = ["EXPERIMENTS", "Experiment", "reproduce"]
