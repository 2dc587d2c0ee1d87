"""`tujie review`: a page for a human to look at before publishing. It compares this build's
screenshots with the last published ones (diff images, changed pixels per card), and shows the
check report, the link report and what changed in the plan. No baseline: "first publication".
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from jinja2 import Environment

from pipeline.artifacts.links import load_report
from pipeline.atomic import read_json_object, write_atomic
from pipeline.errors import InputError
from pipeline.review.diff import (
    PIXELMATCH_THRESHOLD,
    PlanDiff,
    ShotDiff,
    compare_shot,
    plan_diff,
)
from pipeline.templating import html_environment

SHOT_ORDER = ("light-1280", "dark-1280", "light-390", "dark-390")
CARD_CHANGED_PCT = 0.05  # a card counts as changed above this share of changed pixels


def _environment() -> Environment:
    return html_environment()


def _shot_entries(
    build_dir: Path, site_dir: Path, check: dict[str, Any] | None
) -> list[dict[str, Any]]:
    review_dir = build_dir / "review"
    cards = (check or {}).get("cards", {})
    entries = []
    for name in SHOT_ORDER:
        new = build_dir / "shots" / f"{name}.png"
        if not new.exists():
            continue
        old = site_dir / "shots" / f"{name}.png"
        entry: dict[str, Any] = {
            "name": name,
            "new": f"shots/{name}.png",
            "old": None,
            "diff": None,
        }
        if old.exists():
            # A copy of the baseline: the published one changes on the next publish.
            shutil.copyfile(old, review_dir / f"baseline-{name}.png")
            result: ShotDiff = compare_shot(
                old, new, review_dir / f"diff-{name}.png", cards.get(name, {})
            )
            entry.update(
                old=f"review/baseline-{name}.png",
                diff=f"review/diff-{name}.png",
                changed_pct=result.changed_pct,
                approximate=result.approximate,
                cards=sorted(result.cards.items(), key=lambda kv: (-kv[1], kv[0])),
                changed_cards=[c for c, pct in result.cards.items() if pct > CARD_CHANGED_PCT],
            )
        entries.append(entry)
    return entries


def _links(build_dir: Path) -> dict[str, Any] | None:
    """The link report as the review template shows it (None when there is none to read)."""
    try:
        report = load_report(build_dir / "links.json")
    except InputError:
        return None
    results = [r.model_dump(mode="json") for r in report.results]
    return {
        "offline": report.offline,
        "checked_at": report.checked_at.isoformat(),
        "results": results,
        "blocking": [r.model_dump(mode="json") for r in report.blocking()],
    }


def write_review(build_dir: Path, site_dir: Path) -> Path:
    """Write `build_dir/review.html` (+ `review/` images and `review/review.json`) comparing
    this build with the page last published at `site_dir`; return the review page's path."""
    review_dir = build_dir / "review"
    if review_dir.exists():
        shutil.rmtree(review_dir)
    review_dir.mkdir(parents=True)
    check = read_json_object(build_dir / "check.json")
    shots = _shot_entries(build_dir, site_dir, check)
    baseline = any(s["old"] for s in shots)
    new_plan = read_json_object(build_dir / "plan.json")
    old_plan = read_json_object(site_dir / "plan.json")
    diff = plan_diff(old_plan, new_plan) if old_plan and new_plan else PlanDiff()
    summary = {
        "first_publication": not baseline,
        "threshold": PIXELMATCH_THRESHOLD,
        "shots": [
            {k: s.get(k) for k in ("name", "changed_pct", "changed_cards", "approximate")}
            for s in shots
        ],
        "plan": {
            "added": diff.added,
            "removed": diff.removed,
            "reordered": diff.reordered,
            "captions": [list(c) for c in diff.captions],
        },
        "check_ok": bool(check and check.get("ok")),
    }
    (review_dir / "review.json").write_text(
        json.dumps(summary, ensure_ascii=False, indent=2, sort_keys=True) + "\n", encoding="utf-8"
    )
    html = (
        _environment()
        .get_template("review.html.j2")
        .render(
            title=(new_plan or {}).get("title", build_dir.name),
            first_publication=not baseline,
            has_old_plan=old_plan is not None,
            threshold=PIXELMATCH_THRESHOLD,
            card_changed_pct=CARD_CHANGED_PCT,
            shots=shots,
            check=check,
            links=_links(build_dir),
            plan=diff,
        )
    )
    out = build_dir / "review.html"
    write_atomic(out, html)
    return out
