"""Exports: the ``miran-paths`` v1 file (docs: Reference, paths format), written from a simulation and read back
validated.

```python
from core.export import paths_from_simulation, write_paths, read_paths
write_paths("paths.json", paths_from_simulation(sim))
pf = read_paths("paths.json")             # InputError with located problems when the file is bad
```

For other tools (``miran export``): ``trajectories`` writes PedPy's text format, JuPedSim's SQLite trajectory file
and noise-free CSV; ``geojson`` writes paths and scenes as GeoJSON that ``core.importers`` reads back.
"""

from .measure import paths_from_simulation
from .paths import (FORMAT, VERSION, AgentPath, PathsFile, check_paths, parse_paths, paths_to_dict, read_paths,
                    write_paths)

__all__ = ["FORMAT", "VERSION", "AgentPath", "PathsFile", "check_paths", "parse_paths", "paths_from_simulation",
           "paths_to_dict", "read_paths", "write_paths"]
