"""The drawing library: hand-drawn SVG panels, the cast, main thread, legend, ruler, stamps.

Everything here turns a plan and simulator traces into SVG strings; nothing touches the network,
the LLM or the browser. Colours come only from the page's CSS variables.
"""

from pipeline.draw.layout import FitError
from pipeline.draw.panel import draw_panel

__all__ = ["FitError", "draw_panel"]
