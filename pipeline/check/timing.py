"""Where the check's time goes: named phases (launch, load, probe, fonts, screenshot, axe, rules,
annotate), each recorded as wall-clock intervals. Pages are measured concurrently, so a phase is
reported twice: `busy`, the wall time during which at least one page was in it (the union of its
intervals), and `summed`, the total over pages (what it would cost one after another).
`tujie check --timings` prints them; `tests/bench/bench_build.py` reads them.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pipeline.atomic import write_atomic

TIMINGS_FILE = "check-timings.json"  # beside check.json; diagnostics only, no stage reads it


@dataclass
class PhaseTimer:
    """Intervals per phase name, in the order phases were first seen."""

    intervals: dict[str, list[tuple[float, float]]] = field(default_factory=dict)
    rounds: int = 0
    counts: dict[str, int] = field(default_factory=dict)  # e.g. screenshot bands captured
    started: float = field(default_factory=time.perf_counter)

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.intervals.setdefault(name, []).append((start, time.perf_counter()))

    def count(self, name: str, n: int) -> None:
        self.counts[name] = self.counts.get(name, 0) + n

    def rows(self) -> list[dict[str, Any]]:
        """One row per phase: name, busy and summed seconds, how many intervals."""
        return [
            {
                "phase": name,
                "busy": round(_union(spans), 3),
                "summed": round(sum(end - start for start, end in spans), 3),
                "count": len(spans),
            }
            for name, spans in self.intervals.items()
        ]

    def as_json(self) -> dict[str, Any]:
        return {
            "wall": round(time.perf_counter() - self.started, 3),
            "rounds": self.rounds,
            "phases": self.rows(),
            "counts": dict(self.counts),
        }

    def save(self, path: Path) -> None:
        write_atomic(path, json.dumps(self.as_json(), indent=1) + "\n")


def _union(spans: list[tuple[float, float]]) -> float:
    total, reach = 0.0, float("-inf")
    for start, end in sorted(spans):
        if end <= reach:
            continue
        total += end - max(start, reach)
        reach = end
    return total


def format_timings(data: dict[str, Any]) -> list[str]:
    """The breakdown as lines of text (from `PhaseTimer.as_json()` or the saved file)."""
    lines = [f"check {data['wall']:.2f} s wall, {data['rounds']} round(s)"]
    lines.append(f"  {'phase':<12}{'busy s':>8}{'summed s':>10}{'n':>4}")
    for row in data["phases"]:
        lines.append(
            f"  {row['phase']:<12}{row['busy']:>8.2f}{row['summed']:>10.2f}{row['count']:>4}"
        )
    counts = data.get("counts") or {}
    if "bands" in counts:
        lines.append(
            f"  screenshot bands: {counts.get('bands captured', 0)} captured, "
            f"{counts['bands'] - counts.get('bands captured', 0)} reused of {counts['bands']}"
        )
    if "font targets" in counts:
        lines.append(
            f"  platform fonts: {counts.get('font questions', 0)} question(s) for "
            f"{counts['font targets']} text(s)"
        )
    return lines


def load_timings(path: Path) -> dict[str, Any] | None:
    try:
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data
