"""What one load of the page in the browser produced: the probe's boxes, fonts used, axe
findings, network requests, console errors and the screenshot. The browser module fills it; the
rules read it (so the rule code imports no browser)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# Every page is checked (and screenshotted) in both themes at a desktop and a phone width.
THEMES = ("light", "dark")
WIDTHS = (1280, 390)


def shot_name(theme: str, width: int) -> str:
    return f"{theme}-{width}.png"


@dataclass
class Measurement:
    """What one load of the page at one theme and width produced."""

    theme: str
    width: int
    probe: dict[str, Any]
    fonts: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    axe: list[dict[str, Any]] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    screenshot: Path | None = None
    renderer: str = ""  # the browser's version
