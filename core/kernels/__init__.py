"""numba helpers shared by the engine's stages (all compiled with ``core.jitcache.jit``):

- ``heap``: a binary min-heap on two flat arrays (keys, values), the open list of every A* in core.
- ``geometry``: the 2-D cross product and orientation helpers.
- ``buffers``: growing a flat array when a kernel runs out of room.
- ``paths``: rebuilding a path from a parent array.
"""
