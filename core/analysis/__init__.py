"""Measures of a crowd from its recorded trajectories, per PedPy's definitions: density (classic and Voronoi) in a
measurement area or on a grid, and the flow across a measurement line."""
