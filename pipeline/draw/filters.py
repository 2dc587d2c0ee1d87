"""The shared wobble filters: which of the few page-wide filters (defined once in `defs`) a
drawing uses. Panels and step strips import this; `defs` draws the filters themselves."""

from __future__ import annotations

from pipeline.draw import rough

# How many differently seeded wobble filters each kind of drawing shares: enough that
# neighbouring panels do not wobble identically, few enough to stay small.
SHARED_SEEDS = {"p": 4, "s": 2}
SEED_RANGE = 997


def shared_filter(kind: str, svg_id: str) -> str:
    """The id of the shared wobble filter a drawing of `kind` ("p" panel, "s" strip) uses."""
    return f"wob-{kind}{rough.seed_int(svg_id, SHARED_SEEDS[kind])}"
