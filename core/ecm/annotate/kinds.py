"""Node kinds of the medial-axis graph and the annotation's sampling constants."""

MAX_SIDE = 8  # distinct sites recorded per side of a chain
END_SKIP = 1.5  # pixels: crack midpoints this close to an exact end are not used as samples

NODE_VERTEX = 0     # a Voronoi vertex: three or more sites equidistant
NODE_TOUCH = 1      # the end of an edge where its two sides meet (a concave corner of the free space)
NODE_OPEN = 2       # the end of an edge that the pixels lost (two obstacles closer than a pixel or so)
NODE_INEXACT = 3    # a vertex whose exact solve did not converge: the pixel corner is kept
