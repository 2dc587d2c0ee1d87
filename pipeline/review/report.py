"""The review's findings, gathered into a `ReviewReport`: every block of every screenshot against
the published page (`diff`), every plan field (`plan_diff`), the simulator's numbers (`numbers`),
the links whose status changed and the check problems that are new, and the summary line.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

from PIL import Image

from pipeline.artifacts.check import CheckReport, load_check_report
from pipeline.artifacts.links import LinkReport, link_key, load_report
from pipeline.artifacts.review import (
    REVIEW_FILE,
    STATUS_RANK,
    BlockChange,
    BlockKind,
    BlockStatus,
    LinkChange,
    NewProblem,
    ReviewReport,
    ShownNumber,
    page_fingerprint,
)
from pipeline.artifacts.sim import SimResults
from pipeline.atomic import read_json_object
from pipeline.errors import InputError, TujieError
from pipeline.plan.model import load_plan
from pipeline.review.blocks import PAGE_TOP, SECTION_PREFIX, Band, page_bands
from pipeline.review.diff import ShotJob, compare_shots
from pipeline.review.markup import same_markup
from pipeline.review.numbers import number_changes, page_numbers
from pipeline.review.plan_diff import plan_changes

SHOT_ORDER = ("light-1280", "dark-1280", "light-390", "dark-390")
SECTION_LABELS = {
    "takeaway": "title and takeaway",
    "main-thread": "main thread",
    "cast": "cast",
    "cards": "cards heading",
    "ruler": "ruler",
    "walkthrough": "walkthrough",
    "route": "learning route",
    "footer": "footer",
}
CHANGED = ("changed", "added", "removed")
NAMED_IN_SUMMARY = 4  # changed cards named in the summary line before "…"


def build_report(
    build_dir: Path, site_dir: Path, review_dir: Path, *, publish_command: str
) -> ReviewReport:
    """Compare the build in `build_dir` with the page published at `site_dir` (crops go to
    `review_dir`)."""
    new_check, old_check = _check(build_dir), _check(site_dir)
    first = not (site_dir / "index.html").is_file()
    blocks = [] if first else _blocks(build_dir, site_dir, review_dir, new_check, old_check)
    new_plan = read_json_object(build_dir / "plan.json") or {}
    old_plan = read_json_object(site_dir / "plan.json")
    numbers = _numbers(build_dir)
    before = _published_numbers(site_dir)
    links, old_links = _links(build_dir), _links(site_dir)
    blocking = len(links.blocking()) if links is not None else 1
    report = ReviewReport(
        first_publication=first,
        build=page_fingerprint(build_dir),
        baseline=None if first else page_fingerprint(site_dir),
        summary="",
        check_ok=new_check is not None and new_check.ok,
        blocking_links=blocking,
        blocks=blocks,
        plan=plan_changes(old_plan, new_plan) if old_plan is not None and not first else [],
        numbers=numbers,
        number_changes=number_changes(before, numbers) if before is not None else [],
        numbers_compared=before is not None,
        links=[] if first else link_changes(old_links, links),
        new_problems=new_problems(old_check, new_check),
    )
    command = publish_command + (" ARGS=--allow-unverified" if blocking else "")
    return report.model_copy(update={"summary": summary_line(report, command, new_check)})


def _check(folder: Path) -> CheckReport | None:
    try:
        return load_check_report(folder / "check.json")
    except InputError:
        return None


def _links(folder: Path) -> LinkReport | None:
    try:
        return load_report(folder / "links.json")
    except InputError:
        return None


def _blocks(
    build_dir: Path,
    site_dir: Path,
    review_dir: Path,
    new_check: CheckReport | None,
    old_check: CheckReport | None,
) -> list[BlockChange]:
    same = _same_rendering(build_dir, site_dir, new_check, old_check)
    jobs = []
    for shot in SHOT_ORDER:
        new_png, old_png = build_dir / "shots" / f"{shot}.png", site_dir / "shots" / f"{shot}.png"
        if not (new_png.is_file() and old_png.is_file()):
            continue
        # Both sides cut at the same kinds of boxes (a page published before `sections` were
        # measured is cut at its cards only, and so is this build then).
        sections = bool(_boxes(new_check, "sections", shot) and _boxes(old_check, "sections", shot))
        jobs.append(
            ShotJob(
                shot,
                old_png,
                new_png,
                _bands(old_check, shot, old_png, sections),
                _bands(new_check, shot, new_png, sections),
                review_dir,
                build_dir,
                same,
            )
        )
        _link_or_copy(old_png, review_dir / f"baseline-{shot}.png")
    results = compare_shots(jobs)
    labels = _labels(build_dir, site_dir)
    order: list[str] = []
    kinds: dict[str, BlockKind] = {}
    for job in jobs:
        for band in [*job.new_bands, *job.old_bands]:
            if band.id not in kinds:
                order.append(band.id)
                kinds[band.id] = band.kind
    blocks = []
    for block_id in order:
        shots = [results[job.shot][block_id] for job in jobs if block_id in results[job.shot]]
        status: BlockStatus = max(
            (s.status for s in shots), key=lambda s: STATUS_RANK[s], default="same"
        )
        blocks.append(
            BlockChange(
                id=block_id,
                kind=kinds[block_id],
                label=labels.get(block_id, block_id),
                status=status,
                shots=shots,
            )
        )
    return blocks


def _same_rendering(
    build_dir: Path, site_dir: Path, new_check: CheckReport | None, old_check: CheckReport | None
) -> frozenset[str]:
    """The blocks that render the same pixels on both pages: the same markup, the same rest of
    the page (the page top is nothing else), under the same renderer (browser and fonts)."""
    if not (new_check and old_check and new_check.renderer == old_check.renderer != ""):
        return frozenset()
    same = same_markup(_text(site_dir / "index.html"), _text(build_dir / "index.html"))
    return frozenset() if same is None else same | {PAGE_TOP}


def _text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _boxes(check: CheckReport | None, what: str, shot: str) -> Mapping[str, Sequence[float]]:
    if check is None:
        return {}
    boxes: Mapping[str, Mapping[str, Sequence[float]]] = getattr(check, what)
    return boxes.get(shot, {})


def _bands(check: CheckReport | None, shot: str, png: Path, sections: bool) -> list[Band]:
    with Image.open(png) as image:
        width, height = image.size
    return page_bands(
        _boxes(check, "cards", shot),
        _boxes(check, "sections", shot) if sections else {},
        width=width,
        height=height,
    )


def _link_or_copy(src: Path, dst: Path) -> None:
    """The published screenshot for the full-page view: a hard link (no copy, and it survives
    the next publish replacing the site's files), else a copy."""
    dst.unlink(missing_ok=True)
    try:
        os.link(src.resolve(), dst)
    except OSError:
        shutil.copyfile(src, dst)


def _labels(build_dir: Path, site_dir: Path) -> dict[str, str]:
    labels = {PAGE_TOP: "page top"}
    labels.update({SECTION_PREFIX + k: v for k, v in SECTION_LABELS.items()})
    for folder in (site_dir, build_dir):  # this build's names win
        plan = read_json_object(folder / "plan.json") or {}
        concepts = [c for c in plan.get("concepts", []) if isinstance(c, dict)]
        for i, concept in enumerate(concepts):
            labels[str(concept.get("id"))] = (
                f"card {i + 1}/{len(concepts)} {concept.get('name', '')}"
            )
    return labels


def _numbers(build_dir: Path) -> list[ShownNumber]:
    if not (build_dir / "sim").is_dir():
        return []
    try:
        plan = load_plan(build_dir / "plan.json")
    except TujieError:
        return []
    return page_numbers(plan, SimResults.load(build_dir / "sim"))


def _published_numbers(site_dir: Path) -> list[ShownNumber] | None:
    """The numbers the published page shows, as its review recorded them (None: published
    without one)."""
    try:
        return ReviewReport.load(site_dir / REVIEW_FILE).numbers
    except InputError:
        return None


def link_changes(old: LinkReport | None, new: LinkReport | None) -> list[LinkChange]:
    """Links whose status differs from the published page's (or that are new or gone)."""
    before = {link_key(r.url): r for r in (old.results if old else [])}
    after = {link_key(r.url): r for r in (new.results if new else [])}
    out = [
        LinkChange(
            url=r.url,
            where=r.where,
            before=before[k].status if k in before else None,
            after=r.status,
        )
        for k, r in after.items()
        if k not in before or before[k].status != r.status
    ]
    out += [
        LinkChange(url=r.url, where=r.where, before=r.status, after=None)
        for k, r in before.items()
        if k not in after
    ]
    return out


def new_problems(old: CheckReport | None, new: CheckReport | None) -> list[NewProblem]:
    """Check problems of this build the published page did not have."""
    seen = {p.sort_key() for p in (old.problems if old else [])}
    return [
        NewProblem(
            rule=p.rule,
            element=p.element,
            message=p.message,
            where=" ".join(str(v) for v in (p.card, p.panel, p.theme, p.width) if v),
        )
        for p in (new.problems if new else [])
        if p.sort_key() not in seen
    ]


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def summary_line(report: ReviewReport, publish_command: str, check: CheckReport | None) -> str:
    """One line: what changed, the check, and how to publish (publish prints it back)."""
    parts = []
    if report.first_publication:
        cards = len(check.cards.get(SHOT_ORDER[0], {})) if check else 0
        parts.append(f"first publication ({_count(cards, 'card')}, nothing to compare with)")
    else:
        changed = [b.id for b in report.with_status(*CHANGED, kind="card")]
        named = ", ".join(changed[:NAMED_IN_SUMMARY]) + (
            ", …" if len(changed) > NAMED_IN_SUMMARY else ""
        )
        moved = len(report.with_status("moved", kind="card"))
        verdict = f"{_count(len(changed), 'card')} changed" + (f" ({named})" if changed else "")
        parts.append(f"{verdict}, {moved} moved")
        others = [b.label for b in report.blocks if b.kind != "card" and b.status in CHANGED]
        if others:
            parts.append(f"{_count(len(others), 'other part')} changed ({', '.join(others)})")
        numbers = (
            _count(len(report.number_changes), "number")
            if report.numbers_compared
            else "numbers not recorded"
        )
        parts.append(
            f"{_count(len(report.plan), 'plan field')}, {numbers}, "
            f"{_count(len(report.links), 'link')} changed"
        )
    if check is None:
        parts.append("no check report: run the check before publishing")
    elif check.ok:
        parts.append(f"check passed; publish: {publish_command}")
    else:
        new = len(report.new_problems)
        parts.append(
            f"check failed ({_count(len(check.problems), 'problem')}, {new} new): fix and "
            "rebuild before publishing"
        )
    return "; ".join(parts)
