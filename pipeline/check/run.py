"""`tujie check`: load the page in headless Chromium in both themes at 1280 and 390 px, apply the
page rules (`pipeline.check.rules`), write `check.json`, the screenshots and magenta-annotated
copies; and the fix loop that re-renders with per-text overrides until the layout is clean.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw

from pipeline.artifacts.check import CheckReport, Overrides, Problem, write_check_report
from pipeline.atomic import write_atomic, write_png_atomic
from pipeline.check.bands import BandStore
from pipeline.check.browser import Chrome
from pipeline.check.measurement import Measurement, shot_name
from pipeline.check.rules import CONTENT_RULES, LAYOUT_RULES, all_problems
from pipeline.check.timing import PhaseTimer

MAGENTA = (255, 0, 255)
OUTLINE_PX = 3
SCALE_STEP = 0.9  # each fix round shrinks a text by this factor, never below its data-floor

Renderer = Callable[[Overrides], str]


def check_page(
    html: Path,
    out_dir: Path,
    *,
    lang: str = "zh",
    chrome: Chrome | None = None,
    timer: PhaseTimer | None = None,
) -> CheckReport:
    """Check `html` in both themes at 1280 and 390 px; write `out_dir/check.json` and
    `out_dir/shots/`. `chrome` reuses a running browser (else one is started and closed);
    `timer` collects where the time went."""
    timer = timer if timer is not None else PhaseTimer()
    shots_dir = out_dir / "shots"
    if shots_dir.exists():
        shutil.rmtree(shots_dir)  # stale annotated copies from an earlier run would mislead
    shots_dir.mkdir(parents=True)
    own = chrome is None
    browser = chrome or Chrome()
    try:
        measurements = browser.measure_layouts(html, shots_dir=shots_dir, timer=timer)
    finally:
        if own:
            browser.close()
    if timer.counts.get("bands captured"):
        BandStore().prune()  # only new bands can take the store past its size
    with timer.phase("rules"):
        report = _report(measurements, lang)
    report.shots = [f"shots/{shot_name(m.theme, m.width)}" for m in measurements]
    with timer.phase("annotate"):
        for m in measurements:
            _annotate(m, [p for p in report.problems if _belongs(p, m)], shots_dir)
    write_check_report(report, out_dir / "check.json")
    return report


def _belongs(problem: Problem, m: Measurement) -> bool:
    return problem.theme == m.theme and problem.width == m.width


def _report(measurements: list[Measurement], lang: str) -> CheckReport:
    problems: list[Problem] = []
    seen_content: set[tuple[str, str]] = set()
    cards: dict[str, dict[str, list[float]]] = {}
    sections: dict[str, dict[str, list[float]]] = {}
    texts: dict[str, dict[str, Any]] = {}
    for m in measurements:
        for problem in all_problems(m, lang):
            if problem.rule in CONTENT_RULES or problem.rule == "network-request":
                key = (problem.rule, problem.element)
                if key in seen_content:
                    continue  # the same in every theme and width: report it once
                seen_content.add(key)
            problems.append(problem)
        shot = f"{m.theme}-{m.width}"
        cards[shot] = {c["card"]: c["box"] for c in m.probe.get("cards", [])}
        sections[shot] = {s["section"]: s["box"] for s in m.probe.get("sections", [])}
        for text in m.probe.get("texts", []):
            texts.setdefault(text["id"], text)
    return CheckReport(
        problems=problems,
        cards=cards,
        sections=sections,
        texts=texts,
        renderer=renderer(measurements),
    )


def renderer(measurements: list[Measurement]) -> str:
    """What drew the screenshots besides the page: the browser and the platform fonts it used
    (the review trusts the same markup to draw the same pixels only under the same renderer)."""
    versions = sorted({m.renderer for m in measurements if m.renderer})
    families = sorted({f["family"] for m in measurements for fs in m.fonts.values() for f in fs})
    return f"{', '.join(versions)}; fonts: {', '.join(families)}" if versions else ""


def _annotate(m: Measurement, problems: list[Problem], shots_dir: Path) -> None:
    """A copy of the screenshot with every located problem outlined in magenta."""
    boxed = [p for p in problems if p.boxes]
    if m.screenshot is None or not boxed:
        return
    with Image.open(m.screenshot) as src:
        image = src.convert("RGB")
    draw = ImageDraw.Draw(image)
    for problem in boxed:
        for x, y, w, h in problem.boxes:
            pad = OUTLINE_PX
            draw.rectangle(
                [x - pad, y - pad, x + w + pad, y + h + pad], outline=MAGENTA, width=OUTLINE_PX
            )
        x, y = problem.boxes[0][0], problem.boxes[0][1]
        draw.text((x, max(0, y - 14)), problem.rule, fill=MAGENTA)
    # zlib's fastest level: a 15,000 px page otherwise takes seconds to save.
    write_png_atomic(shots_dir / f"annotated-{m.theme}-{m.width}.png", image, compress_level=1)


# ---------------------------------------------------------------------------------------------
# The fix loop


def _fix_for(text: dict[str, Any] | None, current: dict[str, Any]) -> dict[str, Any] | None:
    """The next override for one text: its alternate anchor first, then shrinking to the floor."""
    if text is None:
        return None
    if text.get("alt") and current.get("anchor") != "alt":
        return {**current, "anchor": "alt"}
    floor = text.get("floor")
    scale = float(current.get("scale", 1.0))
    if floor is not None and scale > floor + 1e-9:
        return {**current, "scale": round(max(float(floor), scale * SCALE_STEP), 3)}
    return None


def next_overrides(report: CheckReport, overrides: Overrides) -> Overrides:
    """Overrides for the next round: one fix per layout problem, on whichever of its texts can
    still move or shrink. Empty when nothing more can be done by rule."""
    out = {k: dict(v) for k, v in overrides.items()}
    changed: set[str] = set()
    for problem in report.problems:
        if problem.rule not in LAYOUT_RULES:
            continue
        candidates = [problem.element] + ([problem.other] if problem.other else [])
        if any(c in changed for c in candidates):
            continue  # one move per conflict per round: the next check shows whether it sufficed
        for element in candidates:
            fix = _fix_for(report.texts.get(element), out.get(element, {}))
            if fix is not None:
                out[element] = fix
                changed.add(element)
                break
    return out if changed else {}


def _describe(element: str, override: dict[str, Any]) -> str:
    parts = []
    if override.get("anchor") == "alt":
        parts.append("moved to its alternate anchor")
    if "scale" in override:
        parts.append(f"scaled to {override['scale']}")
    return f"{element}: " + " and ".join(parts)


def _plan_messages(report: CheckReport) -> list[str]:
    """Problems only the plan can fix: over-long captions, captions that do not fit even at
    their floor scale with no alternate anchor left."""
    out = []
    for p in report.problems:
        where = (
            f"concept '{p.card}'" + (f", panel '{p.panel}'" if p.panel else "")
            if p.card
            else p.element
        )
        if p.rule == "caption-too-long":
            out.append(f"{where}: {p.message}; shorten the caption in plan.json and rebuild")
        elif p.rule in LAYOUT_RULES and report.texts.get(p.element, {}).get("role") == "caption":
            out.append(
                f"{where}: caption {p.element} does not fit even at its floor scale; "
                "shorten it in plan.json and rebuild"
            )
    return sorted(set(out))


def check_and_fix(
    render: Renderer,
    html: Path,
    out_dir: Path,
    *,
    lang: str,
    max_rounds: int = 3,
    chrome: Chrome | None = None,
    timer: PhaseTimer | None = None,
) -> CheckReport:
    """Render with no overrides, check, and while fixable layout problems remain (and at most
    `max_rounds` re-renders), re-render with the accumulated overrides and check again, in the
    same browser. The final report lists what was fixed and every problem that remains."""
    timer = timer if timer is not None else PhaseTimer()
    own = chrome is None
    browser = chrome or Chrome()
    overrides: Overrides = {}
    try:
        rounds = 0
        while True:
            with timer.phase("render"):
                write_atomic(html, render(overrides))
            report = check_page(html, out_dir, lang=lang, chrome=browser, timer=timer)
            rounds += 1
            timer.rounds = rounds
            following = next_overrides(report, overrides)
            if not following or rounds > max_rounds:
                break
            overrides = following
    finally:
        if own:
            browser.close()
    still = {p.element for p in report.problems} | {p.other for p in report.problems if p.other}
    report.fixed = [_describe(k, v) for k, v in sorted(overrides.items()) if k not in still]
    report.overrides = overrides
    report.rounds = rounds
    report.plan_messages = _plan_messages(report)
    write_check_report(report, out_dir / "check.json")
    return report
