"""numba kernels of the navigation mesh (``core.jitcache.jit``: nogil, cached), callable from other jitted code.

- ``predicates``: exact orientation sign.
- ``walk``: the straight-line triangle walk (``walk_start``, ``walk_step``) and point location (``locate_free``,
  ``locate_any``, ``locate_batch``).
- ``segments``: visibility, terrain lengths and weighted cost of segments, polylines and candidate fans.
- ``clearance``: distance to the nearest obstacle edge (points, segments, polylines).
- ``visibility``: visible intervals of a route window (MIRAN 2013, 3.2) by an exact triangle expansion.
- ``shadows``: the same from the shadows of the obstacle edges (faster; defers to ``visibility`` where the
  floating-point geometry is ill-conditioned), single and packed-route batch.
- ``disc``: traversal cost of a sweeping disc (Kremyzas 2014, ch. 3).
- ``disc_work``: the disc kernels' reusable scratch arrays (``DiscWork``).
- ``grids``: building the location and edge grids.

The mesh is one ``arrays.MeshArrays`` (``NavMesh.arrays``). Walk kernels take its triangulation ``walk``
(``arrays.WalkArrays``: V, T, N, TT, B, G, S) first; clearance kernels its obstacle edges ``edges``
(``arrays.EdgeGrid``: E, EG, ES, EI). See ``walk`` and ``clearance`` for the arrays. The visibility and fan kernels
take the whole structure, routes as ``arrays.RouteSpan``.
"""
