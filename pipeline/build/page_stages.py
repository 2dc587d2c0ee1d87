"""The page stages: render (index.html, with the layout fixes the last check found), check
(the browser measures its own trial renders; the page stays the render stage's artifact) and
review; each skipped when its inputs did not change. The earlier stages are in `stages`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pipeline.artifacts.check import CheckReport, load_check_report
from pipeline.artifacts.links import LinkReport
from pipeline.artifacts.sim import SimResults
from pipeline.artifacts.sources import Corpus
from pipeline.atomic import write_atomic
from pipeline.build.stages import plan_origin
from pipeline.build.state import Build, sha256_file, tree_hash
from pipeline.errors import PlanError, TujieError, Violation
from pipeline.plan.model import Plan, dump_plan


def build_info(build: Build) -> dict[str, str]:
    """What the footer says about the build: deterministic (no clock), so rebuilds are identical."""
    from pipeline import __version__

    return {"tool": f"tujie {__version__}", "code": build.code[:12], "source": build.src.name}

def stage_render(
    build: Build, plan: Plan, corpus: Corpus, sim: SimResults, links: LinkReport | None
) -> Path:
    """index.html from the plan, the simulator's traces and the link report, with the layout
    fixes the last browser check found (`check.json` overrides) applied."""
    from pipeline.draw.layout import FitError
    from pipeline.render.page import render_page

    path = build.dir / "index.html"
    fixes = _check_fixes(build)
    key = [*_page_inputs(build, plan, corpus, links), json.dumps(fixes, sort_keys=True)]

    def run() -> str:
        try:
            html = render_page(
                plan, corpus, build.config, sim, links, overrides=fixes,
                build_info=build_info(build),
            )  # fmt: skip
        except FitError as err:
            # A text the layout cannot place is the plan's to fix: name the file a human edits.
            raise PlanError(plan_origin(build), [Violation("(layout)", str(err))]) from None
        write_atomic(path, html)
        return f"{len(html.encode()) // 1024} KB"

    build.stage("render", key, [path], run)
    return path

def _page_inputs(
    build: Build, plan: Plan, corpus: Corpus, links: LinkReport | None
) -> list[str]:
    """What the page is made of (the render and check stages' key, fixes aside)."""
    config = build.config.model_dump_json()
    return [dump_plan(plan), corpus.model_dump_json(), sim_key(build), links_key(links), config]

def _check_fixes(build: Build) -> dict[str, dict[str, Any]]:
    """The layout fixes (per-text overrides) the last check found; none before the first."""
    try:
        return load_check_report(build.dir / "check.json").overrides
    except TujieError:
        return {}

def sim_key(build: Build) -> str:
    files = sorted((build.dir / "sim").glob("*.json"))
    return tree_hash(files, build.dir) if files else "-"

def links_key(links: LinkReport | None) -> str:
    if links is None:
        return "-"
    return json.dumps([(r.url, r.status) for r in links.results], sort_keys=True)

def stage_check(
    build: Build, plan: Plan, corpus: Corpus, sim: SimResults, links: LinkReport | None
) -> CheckReport:
    from pipeline.check.measurement import THEMES, WIDTHS, shot_name
    from pipeline.check.run import check_and_fix
    from pipeline.check.timing import TIMINGS_FILE, PhaseTimer
    from pipeline.render.page import render_page

    # The check measures its own renders (the fix loop's trial pages) in a scratch file: the
    # page itself is the render stage's artifact, re-rendered with the fixes the check found.
    scratch = build.dir / ".check-page.html"
    report_path = build.dir / "check.json"
    shots = [build.dir / "shots" / shot_name(t, w) for t in THEMES for w in WIDTHS]

    def render(overrides: dict[str, dict[str, Any]]) -> str:
        return render_page(
            plan,
            corpus,
            build.config,
            sim,
            links,
            overrides=overrides,
            build_info=build_info(build),
        )

    def run() -> str:
        timer = PhaseTimer()
        try:
            report = check_and_fix(render, scratch, build.dir, lang=plan.lang, timer=timer)
        finally:
            scratch.unlink(missing_ok=True)
        timer.save(build.dir / TIMINGS_FILE)  # `--timings` prints it
        return "clean" if report.ok else f"{len(report.problems)} problem(s)"

    build.stage("check", _page_inputs(build, plan, corpus, links), [report_path, *shots], run)
    return load_check_report(report_path)

def stage_review(build: Build) -> Path:
    from pipeline.artifacts.review import REVIEW_FILE, page_fingerprint
    from pipeline.review.page import REVIEW_DIR, write_review

    site_dir = build.out_root / "site" / build.name
    path = build.dir / "review.html"
    published = (site_dir / "index.html").is_file()
    command = publish_command(build)
    key = [
        page_fingerprint(build.dir),
        sim_key(build),
        page_fingerprint(site_dir) if published else "-",
        # the published page's numbers, as its review recorded them
        sha256_file(site_dir / REVIEW_FILE) if (site_dir / REVIEW_FILE).is_file() else "-",
        command,
    ]

    def run() -> str:
        from pipeline.artifacts.review import ReviewReport

        write_review(build.dir, site_dir, publish_command=command)
        return ReviewReport.load(build.dir / REVIEW_FILE).summary.split(";")[0]

    outputs = [path, build.dir / REVIEW_FILE, build.dir / REVIEW_DIR]
    build.stage("review", key, outputs, run)
    return path

def publish_command(build: Build) -> str:
    """How the review tells this build to be published: `make publish` (with the folder when it
    is not the default example)."""
    import shlex

    from pipeline.cli_parser import DEFAULT_SRC

    if build.src.resolve() == Path(DEFAULT_SRC).resolve():
        return "make publish"
    return f"make publish SRC={shlex.quote(str(build.src))}"
