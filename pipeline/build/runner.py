"""What each command runs: `run_build` (every stage up to one, in order, under the output
folder's lock) and one function per other command of the CLI, so the CLI only parses arguments,
calls one of these, and prints what it returns.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pipeline.artifacts.links import LinkReport
from pipeline.artifacts.review import REVIEW_FILE, ReviewReport
from pipeline.artifacts.sources import Corpus
from pipeline.atomic import write_atomic
from pipeline.build import STAGES
from pipeline.build.page_stages import stage_check, stage_render, stage_review
from pipeline.build.stages import (
    apply_config,
    extract_with_llm,
    page_rules,
    shipped_plan_path,
    stage_ingest,
    stage_links,
    stage_plan,
    stage_sim,
)
from pipeline.build.state import Build, build_lock, inputs_hash
from pipeline.errors import PlanError, UsageError
from pipeline.plan.bounds import SpendBounds
from pipeline.plan.model import Plan, dump_plan, load_plan

if TYPE_CHECKING:
    from pipeline.publish.local import PublishResult

def run_build(
    build: Build, *, until: str = "review", allow_private: bool = False
) -> dict[str, Any]:
    """Run every stage up to `until` holding the output folder's lock; return the summary.
    Raises on the first failure."""
    with build_lock(build):
        return _run_stages(build, until=until, allow_private=allow_private)


def _run_stages(build: Build, *, until: str, allow_private: bool) -> dict[str, Any]:
    stop = STAGES.index(until)
    corpus = stage_ingest(build)
    summary: dict[str, Any] = {"name": build.name, "dir": str(build.dir)}
    if stop >= 1:
        plan = stage_plan(build, corpus)
        summary["concepts"] = len(plan.concepts)
    if stop >= 2:
        links = stage_links(build, plan, corpus, allow_private=allow_private)
        summary["links"] = {
            r.status: sum(1 for q in links.results if q.status == r.status) for r in links.results
        }
    if stop >= 3:
        sim = stage_sim(build, plan, corpus)
    if stop >= 4:
        stage_render(build, plan, corpus, sim, links)
    # The inputs as they were when this build first read them: an article edited since (during
    # a long LLM call, say) leaves the build stale, and publish says so.
    build.state.inputs_hash = build.built_from()
    build.save_state()
    if stop >= 5:
        report = stage_check(build, plan, corpus, sim, links)
        stage_render(build, plan, corpus, sim, links)  # with the check's fixes (skipped if none)
        summary["check_ok"] = report.ok
        summary["problems"] = len(report.problems)
    if stop >= 6:
        summary["review"] = str(stage_review(build))
        summary["review_summary"] = ReviewReport.load(build.dir / REVIEW_FILE).summary
    return summary


def run_ingest(build: Build) -> Corpus:
    """`tujie ingest`: the folder read into sources.json."""
    with build_lock(build):
        return stage_ingest(build)


@dataclass(frozen=True)
class PlanExtraction:
    """What `tujie plan` made: the plan (page.toml applied), where it was written, how the model
    was asked (`how`: the extraction path), whether the response came from the cache, the
    spend line, and where `--save` copied it (None without `--save`)."""

    plan: Plan
    path: Path
    how: str
    cached: bool
    usage_line: str
    saved: Path | None = None


def extract_plan_for(
    build: Build,
    *,
    refresh: bool = False,
    save: bool = False,
    force: bool = False,
    bounds: SpendBounds | None = None,
    notify: Callable[[str], None] | None = None,
) -> PlanExtraction:
    """`tujie plan`: ask the LLM for the folder's plan and write it to the output's plan.json
    (whatever the folder ships: this is how a shipped plan is regenerated). With `save`, also
    copy it to the folder's plan.json for review; a plan.json already there (a hand-reviewed
    one) is overwritten only with `force`, and refused before anything is paid. `bounds` and
    `notify`: the cap on calls and the deadlines, and the notices (`extract_plan`)."""
    from pipeline.plan.extract import format_usage

    with build_lock(build):
        corpus = stage_ingest(build)
        target = shipped_plan_path(build)
        if save and not force and target.exists():
            _refuse_overwrite(target)  # before paying for an extraction it could not save
        result = extract_with_llm(build, corpus, refresh=refresh, bounds=bounds, notify=notify)
        path = build.dir / "plan.json"
        plan = apply_config(result.plan, build.config, path)
        text = dump_plan(plan)
        write_atomic(path, text)
        saved = None
        if save:
            write_atomic(target, text)
            saved = target
    return PlanExtraction(
        plan, path, result.path, result.cached, format_usage(result), saved
    )


def _refuse_overwrite(target: Path) -> None:
    try:
        made_by: str = load_plan(target).meta.made_by
    except PlanError:
        made_by = "unreadable"
    raise UsageError(
        f"{target}: a plan.json ({made_by}) is already there; `tujie plan --save` overwrites it "
        "only with --force (the extraction stays in the output folder)"
    )


@dataclass(frozen=True)
class ValidationSummary:
    """A plan that passed every page rule: which file, and how big it is."""

    path: Path
    concepts: int
    route_stops: int


def validate_plan(build: Build, plan_path: Path | None = None) -> ValidationSummary:
    """`tujie validate`: check a plan file (default: the folder's plan.json) against every page
    rule, with page.toml applied — the registry's (scenes, placeholders, knobs, generic panels,
    ruler rows), the simulated ones (captions measured with the numbers filled in, knobbed
    runs) and every text fitted at both widths: what the build and the repair loop check.
    Raises PlanError naming the file and each JSON path."""
    with build_lock(build):
        corpus = stage_ingest(build)
    path = plan_path if plan_path is not None else build.src / "plan.json"
    plan = load_plan(path)
    apply_config(plan, build.config, path)  # a language page.toml contradicts names the file
    found = page_rules(corpus, build.config)(plan)
    if found:
        raise PlanError(path, found)
    return ValidationSummary(path, len(plan.concepts), len(plan.route))


def check_links_for(
    build: Build, *, allow_private: bool = False, refresh: bool = False
) -> LinkReport:
    """`tujie links`: every link the page will show, checked into links.json."""
    with build_lock(build):
        corpus = stage_ingest(build)
        plan = stage_plan(build, corpus)
        report: LinkReport = stage_links(
            build, plan, corpus, allow_private=allow_private, refresh=refresh
        )
    return report


def publish_build(
    build: Build, *, allow_unverified: bool = False, to: str | None = None, push: bool = False
) -> PublishResult:
    """`tujie publish`: the last build published to `<out>/site/<name>/` (or `to`); returns the
    `PublishResult` (address and summary bullets)."""
    from pipeline.publish.local import publish

    with build_lock(build):
        return publish(
            build.dir,
            build.out_root / "site",
            name=build.name,
            allow_unverified=allow_unverified,
            to=to,
            push=push,
            base_url=build.config.publish.base_url,
            current_inputs_hash=inputs_hash(build),
            keep=build.config.publish.keep,
            source=build.src,
        )
