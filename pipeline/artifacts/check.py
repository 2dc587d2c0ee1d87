"""The browser check's report (`check.json`): every broken page rule with where it broke, the
cards' and the page parts' boxes (the review compares and crops by them), the fix loop's overrides and its messages for the plan.
`pipeline.check` writes it; the build, the review and publish read it through `load_check_report`.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from pipeline.atomic import write_atomic
from pipeline.errors import InputError

CHECK_FORMAT = 1

Box = list[float]  # [x, y, width, height] in page CSS px
Overrides = dict[str, dict[str, Any]]  # element id -> {"anchor": "alt"} / {"scale": 0.9}


@dataclass
class Problem:
    """One broken rule at one place (an element id, or a path from the nearest id)."""

    rule: str
    element: str
    message: str
    theme: str | None = None
    width: int | None = None
    card: str | None = None
    panel: str | None = None
    boxes: list[Box] = field(default_factory=list)
    other: str | None = None  # the second element of a text-overlap

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def sort_key(self) -> tuple[str, str, str, int, str]:
        return (self.rule, self.element, self.theme or "", self.width or 0, self.other or "")


@dataclass
class CheckReport:
    """The outcome of a check (and of the fix loop, which fills `fixed` and `overrides`)."""

    problems: list[Problem]
    cards: dict[str, dict[str, list[float]]] = field(default_factory=dict)  # shot -> card -> box
    sections: dict[str, dict[str, list[float]]] = field(default_factory=dict)  # shot -> part -> box
    shots: list[str] = field(default_factory=list)
    fixed: list[str] = field(default_factory=list)
    overrides: Overrides = field(default_factory=dict)
    rounds: int = 1
    plan_messages: list[str] = field(default_factory=list)
    texts: dict[str, dict[str, Any]] = field(default_factory=dict, repr=False)
    renderer: str = ""  # the browser's version and the platform fonts it used ("" unknown)

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_json(self) -> dict[str, Any]:
        return {
            "format": CHECK_FORMAT,
            "ok": self.ok,
            "problems": [p.to_json() for p in self.problems],
            "fixed": self.fixed,
            "overrides": self.overrides,
            "rounds": self.rounds,
            "plan_messages": self.plan_messages,
            "cards": self.cards,
            "sections": self.sections,
            "shots": self.shots,
            "renderer": self.renderer,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CheckReport:
        return cls(
            problems=[Problem(**p) for p in data.get("problems", [])],
            cards=data.get("cards", {}),
            sections=data.get("sections", {}),
            shots=data.get("shots", []),
            fixed=data.get("fixed", []),
            overrides=data.get("overrides", {}),
            rounds=int(data.get("rounds", 1)),
            plan_messages=data.get("plan_messages", []),
            renderer=str(data.get("renderer", "")),
        )

    def summary(self) -> str:
        if self.ok:
            return f"check ok ({len(self.fixed)} fixed in {self.rounds} round(s))"
        rules = sorted({p.rule for p in self.problems})
        return f"check failed: {len(self.problems)} problem(s) ({', '.join(rules)})"


def write_check_report(report: CheckReport, path: Path) -> None:
    """Atomically (temp file + rename): a half-written check.json must never look valid."""
    write_atomic(
        path, json.dumps(report.to_json(), ensure_ascii=False, indent=2, sort_keys=True) + "\n"
    )


def load_check_report(path: Path) -> CheckReport:
    """Read `check.json`; missing or malformed is an InputError naming it."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
        return CheckReport.from_json(data)
    except FileNotFoundError:
        raise InputError(f"{path} not found; run `tujie check SRC` first") from None
    except (OSError, ValueError, TypeError) as err:
        raise InputError(f"{path} is not a valid check report ({err}); run `tujie check` again") from None
