"""The drawing library: hand-drawn SVG panels, the cast, main thread, legend, ruler, stamps.

Everything here turns a plan and simulator traces into SVG strings; nothing touches the network,
the LLM or the browser. Colours come only from the page's CSS variables.
"""

from pipeline.draw.defs import draw_symbol_defs
from pipeline.draw.layout import FitError
from pipeline.draw.legend import draw_cast_legend
from pipeline.draw.main_thread import draw_main_thread
from pipeline.draw.panel import draw_panel
from pipeline.draw.ruler import draw_ruler
from pipeline.draw.stamp import draw_stamp, draw_tick

__all__ = [
    "FitError", "draw_cast_legend", "draw_main_thread", "draw_panel", "draw_ruler", "draw_stamp",
    "draw_symbol_defs", "draw_tick",
]
