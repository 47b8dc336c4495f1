"""Pictures of a board: the map as players know it, with the chosen routes drawn over its track.

The picture reads the same board and track graph the search used, so a route is drawn along the
very pieces of track it was priced on (see :mod:`optimizer.render.svg`).
"""

from .svg import render_svg, render_tile_svg, write_svg

__all__ = ["render_svg", "render_tile_svg", "write_svg"]
