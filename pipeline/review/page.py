"""`tujie review`: the page a person reads before publishing (`review.html`, opened from disk).
It opens on one summary line, then one block per changed card or page part with before | after |
diff crops in every shot where it changed, a before ↔ after slider and a diff overlay; then what
changed in the plan, in the simulator's numbers, in the links and in the check; the unchanged and
only-moved blocks as a list; the full pages on demand. `j` / `k` go to the next / previous change.
Its one inline style and script are allowed by hash, as on the page.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from markupsafe import Markup

from pipeline.artifacts.review import REVIEW_FILE, BlockChange, ReviewReport
from pipeline.atomic import read_json_object, write_atomic
from pipeline.paths import templates_dir
from pipeline.render.csp import csp_policy
from pipeline.review.plan_diff import Piece, marked_words
from pipeline.review.report import CHANGED, SHOT_ORDER, build_report
from pipeline.templating import html_environment

REVIEW_DIR = "review"
STYLE_FILE = "review.css"
SCRIPT_FILE = "review.js"
DEFAULT_PUBLISH_COMMAND = "make publish"
ZOOM = 2  # the close-up of the first change is drawn twice its size


@dataclass(frozen=True)
class FieldRow:
    field: str
    before: list[Piece]
    after: list[Piece]


@dataclass(frozen=True)
class FullView:
    """One shot's full pages, loaded only when opened: the published one and this build's
    with its changed blocks outlined."""

    shot: str
    before: str | None
    after: str
    outlines: list[tuple[int, int, str]]  # top, height, status


def write_review(
    build_dir: Path, site_dir: Path, *, publish_command: str = DEFAULT_PUBLISH_COMMAND
) -> Path:
    """Write `build_dir/review.html`, `review.json` and the crops under `review/`, comparing the
    build with the page last published at `site_dir`; return the review page's path."""
    review_dir = build_dir / REVIEW_DIR
    if review_dir.exists():
        shutil.rmtree(review_dir)
    review_dir.mkdir(parents=True)
    report = build_report(build_dir, site_dir, review_dir, publish_command=publish_command)
    out = build_dir / "review.html"
    write_atomic(out, render_review(report, build_dir))
    # Last: publish trusts review.json, so it must never describe a review.html not yet written.
    report.save(build_dir / REVIEW_FILE)
    return out


def render_review(report: ReviewReport, build_dir: Path) -> str:
    plan = read_json_object(build_dir / "plan.json") or {}
    changes = [_only_changed_shots(b) for b in report.blocks if b.status in CHANGED]
    context = {
        "title": str(plan.get("title", build_dir.name)),
        "report": report,
        "changes": changes,
        "moved": report.with_status("moved"),
        "same": report.with_status("same"),
        "fields": [
            FieldRow(c.field, *marked_words(c.before or "", c.after or "")) for c in report.plan
        ],
        "full": _full_views(report, build_dir),
        "shot_label": shot_label,
        "zoomed": lambda size: (size[0] * ZOOM, size[1] * ZOOM) if size else None,
    }
    template = html_environment().get_template("review.html.j2")
    style = (templates_dir() / STYLE_FILE).read_text(encoding="utf-8")
    script = (templates_dir() / SCRIPT_FILE).read_text(encoding="utf-8")
    csp = csp_policy(style, [script], fonts="", images="'self'")
    return template.render(**context, style=Markup(style), script=Markup(script), csp=csp)


def shot_label(shot: str) -> str:
    theme, _, width = shot.partition("-")
    return f"{theme} · {width} px"


def _only_changed_shots(block: BlockChange) -> BlockChange:
    return block.model_copy(update={"shots": [s for s in block.shots if s.status in CHANGED]})


def _full_views(report: ReviewReport, build_dir: Path) -> list[FullView]:
    views = []
    for shot in SHOT_ORDER:
        if not (build_dir / "shots" / f"{shot}.png").is_file():
            continue
        baseline = f"{REVIEW_DIR}/baseline-{shot}.png"
        outlines: list[tuple[int, int, str]] = [
            (s.top, s.height, s.status)
            for b in report.blocks
            if (s := b.shot(shot)) is not None and s.status in ("changed", "added")
        ]
        views.append(
            FullView(
                shot,
                baseline if (build_dir / baseline).is_file() else None,
                f"shots/{shot}.png",
                outlines,
            )
        )
    return views
