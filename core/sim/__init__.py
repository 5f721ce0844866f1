"""The simulation: struct-of-arrays agents stepped by numba kernels at a fixed time step.

```python
from core.sim import Simulation
sim = Simulation(scene, method="disc-miran", integrator="verlet", dt=0.1)
sim.run()                                  # until every agent arrived
traces = sim.step(trace=[0])               # one step, with agent 0's debug trace
sim.params.set("c_s", 3.0)                 # live: applies on the next step
```
"""

from .params import GLOBAL_NAMES, PROFILE_FIELDS, SimParams
from .simulation import IMPLEMENTED, Simulation
from .state import ARRIVED, LOST, WALKING, AgentState
from .trace import AgentTrace

__all__ = ["ARRIVED", "AgentState", "AgentTrace", "GLOBAL_NAMES", "IMPLEMENTED", "LOST", "PROFILE_FIELDS",
           "SimParams", "Simulation", "WALKING"]
