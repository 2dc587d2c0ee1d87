"""The semantic colours, as CSS variables the page defines per theme (P14).

Drawing code names a meaning (running, new, stored, freed, idle), never a colour; `freed` is always
drawn dashed. Nothing here is a literal colour: themes live in the page's CSS.
"""

from __future__ import annotations

from typing import Literal

State = Literal["running", "new", "stored", "freed", "idle"]

INK = "var(--ink)"
PAPER = "var(--paper)"
ACCENT = "var(--accent)"  # the stamp's red ink only
FAINT = "var(--faint)"  # guide lines, axes' grid

STATE_COLOUR: dict[str, str] = {
    "running": "var(--run)",
    "new": "var(--new)",
    "stored": "var(--stored)",
    "freed": "var(--freed)",
    "idle": "var(--idle)",
}
# Freed/evicted/invalid is ALWAYS dashed, so it reads without colour too.
FREED_DASH = "5 4"
# Body tint strength for cells: enough colour, ink still readable on top.
TINT_OPACITY = 0.35
# The cast's bodies are solid per-theme tints, not the state colour at an opacity: a thin tint
# over the dark board turns orange brown, and the characters are `<use>` clones that a document
# rule cannot re-tint. Light: the state colour at TINT_OPACITY over the card; dark: bright chalk.
STATE_TINT: dict[str, str] = {
    "running": "var(--run-tint)",
    "new": "var(--new-tint)",
    "stored": "var(--stored-tint)",
    "freed": "var(--freed-tint)",
    "idle": "var(--idle-tint)",
}
# Face and letter on a body: ink on light paper, the board's dark on bright chalk.
BEAN_INK = "var(--bean-ink)"
ALL_VARIABLES = (
    "--ink",
    "--paper",
    "--run",
    "--new",
    "--stored",
    "--freed",
    "--idle",
    "--accent",
    "--faint",
    "--run-tint",
    "--new-tint",
    "--stored-tint",
    "--freed-tint",
    "--idle-tint",
    "--bean-ink",
)


def colour(state: str) -> str:
    return STATE_COLOUR[state]


def tint(state: str) -> str:
    return STATE_TINT[state]
