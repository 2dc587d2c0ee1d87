"""The stages, one artifact each under `output/<name>/`, each skipped when its inputs (content
hashes, including the code that runs it) did not change. `pipeline.build.runner` runs them in
order (`run_build`) and holds what each command of the CLI runs.

    ingest → sources.json · plan → plan.json · links → links.json · sim → sim/*.json
    render → index.html · check → check.json + shots/ · review → review.html
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pipeline.artifacts.links import LinkReport
from pipeline.artifacts.sim import SimResults
from pipeline.artifacts.sources import Corpus
from pipeline.atomic import write_atomic
from pipeline.build.state import (
    Build,
    sha256_bytes,
    source_tree_hash,
)
from pipeline.config import CONFIG_FILE, PageConfig
from pipeline.errors import ConfigError, EnvironmentMissing, PlanError, TujieError, Violation
from pipeline.plan.bounds import SpendBounds
from pipeline.plan.catalogue import Catalogues
from pipeline.plan.model import Plan, dump_plan, load_plan, parse_plan, read_plan_text


def stage_ingest(build: Build) -> Corpus:
    from pipeline.ingest.folder import ingest_folder, write_corpus

    path = build.dir / "sources.json"
    key = build.source_key or source_tree_hash(build.src)

    def run() -> str:
        corpus = ingest_folder(build.src)
        write_corpus(corpus, path)
        note = f"{len(corpus.sources)} articles, {len(corpus.reading_list)} reading-list entries"
        if corpus.skipped or corpus.warnings:
            note += f", {len(corpus.skipped)} skipped, {len(corpus.warnings)} warning(s)"
            note += " (`tujie ingest` lists them)"
        return note

    build.stage("ingest", [key], [path], run)
    return Corpus.model_validate_json(path.read_text(encoding="utf-8"))


def shipped_plan_path(build: Build) -> Path:
    return build.src / "plan.json"


def stage_plan(build: Build, corpus: Corpus, *, use_llm: bool | None = None) -> Plan:
    """The folder's reviewed plan.json when it exists (and no LLM is asked for); else the plan
    extracted before into the output folder, while the sources and the prompt are unchanged (key
    or no key: nothing is paid twice); else the LLM."""
    path = build.dir / "plan.json"
    shipped = shipped_plan_path(build)
    corpus_key = sha256_bytes(corpus.model_dump_json().encode())
    has_key = bool(os.environ.get("ANTHROPIC_API_KEY"))
    reused = None if shipped.exists() or use_llm else reusable_extraction(build, corpus)
    llm = use_llm if use_llm is not None else (not shipped.exists() and reused is None and has_key)
    origin = "llm" if llm else "shipped" if shipped.exists() else "extracted" if reused else "none"
    key = [
        corpus_key,
        # Read like load_plan reads it (a FIFO or a link out of the folder is refused here).
        sha256_bytes(read_plan_text(shipped).encode()) if shipped.exists() else "-",
        origin,
        build.config.model_dump_json(),
    ]

    def run() -> str:
        if llm:
            plan = extract_with_llm(build, corpus).plan
            note = f"extracted by {plan.meta.model}"
        elif shipped.exists():
            plan = load_plan(shipped)
            note = f"{shipped} ({plan.meta.made_by})"
        elif reused is not None:
            plan = reused
            note = (
                f"reused {path} (extracted by {plan.meta.model} on {plan.meta.date}; sources "
                "and prompt unchanged, no LLM call)"
            )
        else:
            raise _no_plan_error(shipped, has_key, stale=path.exists())
        origin_file = shipped if origin == "shipped" else path
        plan = apply_config(plan, build.config, origin_file)
        # The one gate (the repair loop's, `tujie validate`'s and the sim stage's): every rule,
        # captions measured with their own run's numbers filled in.
        found = page_rules(corpus, build.config)(plan)
        if found:
            raise PlanError(origin_file, found)
        write_atomic(path, dump_plan(plan))
        return note

    build.stage("plan", key, [path], run)
    return load_plan(path)


def reusable_extraction(build: Build, corpus: Corpus) -> Plan | None:
    """The plan an earlier `tujie plan`/`build` extracted into the output folder, if it was made
    from these sources with this prompt (its `meta.source_hash` and `meta.prompt_hash`)."""
    from pipeline.plan.job import prompt_hash
    from pipeline.plan.prompting import corpus_hash

    path = build.dir / "plan.json"
    if not path.exists():
        return None
    try:
        plan = load_plan(path)
    except PlanError:
        return None
    meta = plan.meta
    if meta.made_by != "llm" or meta.source_hash != corpus_hash(corpus):
        return None
    wanted = prompt_hash(
        build.config.lang,
        build.config.stuck,
        prompt_catalogue(corpus, build.config),
        list(build.config.progress),
    )
    return plan if meta.prompt_hash == wanted else None


def _no_plan_error(shipped: Path, has_key: bool, *, stale: bool = False) -> TujieError:
    """No reviewed plan and no way to extract one: without a key that is the missing key (exit 3,
    like `tujie plan`); with one, the plan file itself was asked for."""
    fix = "write one by hand (`tujie schema` gives its JSON Schema) or set ANTHROPIC_API_KEY"
    if not has_key:
        why = (
            " (the extracted plan in the output folder was made from other sources or another "
            "prompt; `tujie plan --save` keeps an extraction in the folder for good)"
            if stale
            else ""
        )
        return EnvironmentMissing(
            f"{shipped}: not found and ANTHROPIC_API_KEY is not set: {fix} to extract it with "
            f"the LLM{why}"
        )
    return PlanError(shipped, [Violation("(file)", f"not found: {fix}")])


def plan_origin(build: Build) -> Path:
    """The file a human edits to fix the plan: the folder's reviewed plan.json when there is one,
    else the extracted copy in the output folder. Errors found after the plan stage name it."""
    shipped = shipped_plan_path(build)
    return shipped if shipped.exists() else build.dir / "plan.json"


def apply_config(plan: Plan, config: PageConfig, plan_file: str | Path = "plan.json") -> Plan:
    """page.toml wins over the plan for language-independent reader settings; the language is
    not one of them: a plan written in one language under a page.toml that asks for the other
    is refused, naming both (its captions were measured against the wrong limits)."""
    if "lang" in config.model_fields_set and config.lang != plan.lang:
        raise PlanError(
            plan_file,
            [
                Violation(
                    "lang",
                    f"the plan says lang '{plan.lang}' but page.toml says lang = "
                    f"\"{config.lang}\": make them agree (change page.toml, or write the plan "
                    f"in that language)",
                )
            ],
        )
    _refuse_unknown_concepts(plan, config, plan_file)
    data = plan.model_dump(mode="json")
    if config.stuck:
        data["walkthrough"]["concept"] = config.stuck[0]
    # The stamps are the reader's record in page.toml, never a plan's guess (reader sf7: a
    # stamp the plan set showed a second "next").
    for c in data["concepts"]:
        c["progress"] = config.progress.get(c["id"])
    if config.title:
        data["title"] = config.title
    return parse_plan(data, "page.toml + plan.json")


def unknown_concepts(plan: Plan, config: PageConfig) -> list[tuple[str, str]]:
    """(page.toml key, id) of every concept `progress` or `stuck` names that the plan lacks."""
    known = {c.id for c in plan.concepts}
    named = [("progress", cid) for cid in config.progress] + [("stuck", cid) for cid in config.stuck]
    return [(key, cid) for key, cid in named if cid not in known]


def _refuse_unknown_concepts(plan: Plan, config: PageConfig, plan_file: str | Path) -> None:
    """page.toml's `progress` and `stuck` name concepts of the plan: an id it does not have is a
    typo (or a plan that changed), never silently ignored."""
    unknown = unknown_concepts(plan, config)
    if unknown:
        key, cid = unknown[0]
        known = [c.id for c in plan.concepts]
        listed = ", ".join(known[:14]) + (", ..." if len(known) > 14 else "")
        raise ConfigError(
            f"{CONFIG_FILE}: {key}: no concept {cid!r} in {plan_file} (its concepts: {listed}); "
            f"fix the id or remove it"
        )


def prompt_catalogue(corpus: Corpus, config: PageConfig) -> Catalogues:
    """The catalogues of the fields the prompt offers: the folder's chosen fields (detected, or
    page.toml's `field`) and the general field."""
    from pipeline import fields

    return fields.catalogues(fields.chosen_fields(corpus, config).chosen)


def page_rules(corpus: Corpus, config: PageConfig) -> Callable[[Plan], list[Violation]]:
    """Every page rule, the simulated ones included (`pipeline.simulate.checks`), checked on the
    plan as page.toml shapes it: what the repair loop, the plan stage, `tujie validate` and the
    sim stage all check, so a plan the model could have been told to mend is never refused
    after the loop accepted it."""
    from pipeline.simulate.checks import page_violations

    def rules(plan: Plan) -> list[Violation]:
        # The model was told the ids page.toml names: a plan without one is the plan's to mend.
        missing = [
            Violation("concepts", f"{CONFIG_FILE} {key} names concept '{cid}': give a card this id")
            for key, cid in unknown_concepts(plan, config)
        ]
        if missing:
            return missing
        try:
            shaped = apply_config(plan, config)
        except PlanError as err:
            return err.violations
        return page_violations(shaped, corpus)[0]

    return rules


def extract_with_llm(
    build: Build,
    corpus: Corpus,
    *,
    refresh: bool = False,
    bounds: SpendBounds | None = None,
    notify: Callable[[str], None] | None = None,
) -> Any:
    """The LLM's plan for the folder (an `ExtractResult`: plan, usage, cost), within `bounds`
    (None: the default cap on calls and deadlines)."""
    from pipeline.plan.extract import extract_plan

    return extract_plan(
        corpus,
        lang=build.config.lang,
        stuck=build.config.stuck,
        out_dir=build.dir,
        catalogue=prompt_catalogue(corpus, build.config),
        rules=page_rules(corpus, build.config),
        progress=list(build.config.progress),
        refresh=refresh,
        bounds=bounds,
        notify=notify,
    )


def stage_links(
    build: Build, plan: Plan, corpus: Corpus, *, allow_private: bool = False, refresh: bool = False
) -> LinkReport:
    from pipeline.links.check import check_links, collect_targets, write_report

    path = build.dir / "links.json"
    targets = collect_targets(plan, corpus)
    key = [json.dumps([t.model_dump(mode="json") for t in targets], sort_keys=True)]
    # Results expire: an old report re-runs the stage (its fresh results are reused from it).
    key.append("expired" if _links_expired(path) else "fresh")
    # Verdicts depend on the options: a report made with --allow-private is no report for a
    # run without it (its loopback "ok"s would pass the publish gate).
    key.append(f"allow_private={allow_private}")

    def run() -> str:
        report = check_links(
            targets, corpus, cache_path=path, allow_private=allow_private, refresh=refresh
        )
        write_report(report, path)
        counts: dict[str, int] = {}
        for r in report.results:
            counts[r.status] = counts.get(r.status, 0) + 1
        return ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))

    build.stage("links", key, [path], run, rerun=refresh)  # --refresh re-checks every time
    return LinkReport.model_validate_json(path.read_text(encoding="utf-8"))


def _links_expired(path: Path) -> bool:
    from datetime import UTC, datetime

    from pipeline.artifacts.links import load_report
    from pipeline.links.report import DEFAULT_LINK_SETTINGS

    if not path.exists():
        return False
    try:
        report = load_report(path)
    except TujieError:
        return True
    oldest = min((r.checked_at for r in report.results), default=None)
    if oldest is None:
        return False
    if oldest.tzinfo is None:
        oldest = oldest.replace(tzinfo=UTC)
    age = (datetime.now(UTC) - oldest).total_seconds()
    return age > DEFAULT_LINK_SETTINGS.max_cache_age


def stage_sim(build: Build, plan: Plan, corpus: Corpus) -> SimResults:
    """Every scenario the panels need (with their knobs) and the ruler's sweep, under
    `sim/`; first every page rule that needs them (`pipeline.simulate.checks`), so a plan that
    passes renders. The stage key is the content of the workloads, so an unchanged one is not
    run again."""
    from pipeline.simulate.checks import page_violations
    from pipeline.simulate.results import runs_key

    sim_dir = build.dir / "sim"
    key = runs_key(plan)
    saved = SimResults.load(sim_dir) if build.is_current("sim", key, [sim_dir]) else None
    # H1 after filling, knobbed runs, every text fitted: checked before anything is drawn.
    found, checked = page_violations(plan, corpus, sim=saved)
    if found:
        raise PlanError(plan_origin(build), found)

    def run() -> str:
        tmp_dir = build.dir / f".sim-tmp-{os.getpid()}"
        for leftover in build.dir.glob(".sim-tmp-*"):  # of a build killed here (we hold the lock)
            shutil.rmtree(leftover, ignore_errors=True)
        try:
            checked.save(tmp_dir)
            if sim_dir.exists():
                shutil.rmtree(sim_dir)
            tmp_dir.rename(sim_dir)
        finally:
            shutil.rmtree(tmp_dir, ignore_errors=True)  # interrupted: no half-made copy stays
        return f"{len(checked.traces)} traces + ruler sweep"

    build.stage("sim", key, [sim_dir], run)
    return SimResults.load(sim_dir)


