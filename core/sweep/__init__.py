"""Parameter sweeps: many Simulation runs over a grid and/or random samples of live parameters, on Dask.

```python
import core.sweep
runs, characters = core.sweep.run("scenes/sigma.sweep.json")              # in this process
with core.sweep.local_client(2) as client:                                # a LocalCluster of 2 processes
    runs, characters = core.sweep.run("scenes/sigma.sweep.json", client, out="results.parquet")
```

``run`` returns pandas DataFrames (``SweepTables``): a sweep's results are compared by grouping, pivoting and
plotting, which is what pandas (and matplotlib on top of it) is for; Arrow is how the tables are stored (Parquet),
not what a researcher handles. The spec (core.sweep.spec), a task (core.sweep.task) and the warm-up need no
optional package; running on Dask, the tables, the progress bar and the plots need the ``sweep`` extra
(``pip install 'miran-studio[sweep]'``), and say so when it is missing.
"""

from .cluster import default_workers, local_client, scheduler_client
from .deps import MissingExtra
from .runner import SweepInterrupted, as_spec, finished_runs, run
from .spec import FORMAT, METRICS, VERSION, RunTask, SweepSpec, load_spec, parse_spec
from .table import SweepTables, characters_path, read_tables, same_tables, write_tables
from .task import character_status, run_task, warm

__all__ = ["FORMAT", "METRICS", "MissingExtra", "RunTask", "SweepInterrupted", "SweepSpec", "SweepTables", "VERSION",
           "as_spec", "character_status", "characters_path", "default_workers", "finished_runs", "load_spec",
           "local_client", "parse_spec", "read_tables", "run", "run_task", "same_tables", "scheduler_client", "warm",
           "write_tables"]
