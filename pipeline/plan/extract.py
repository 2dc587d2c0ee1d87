"""Extract the page plan from a corpus with the LLM: prompt, validate, repair, cache, cost.

`extract_plan()` sends the corpus once (marked for prompt caching), checks every answer with the
plan model and the page rules, re-asks with the exact violations, and falls back to per-source
notes when the corpus is over the token budget or the answer will not fit the output limit.
The plan is asked for by structured outputs, or by a forced tool call for models without them
(`pipeline/plan/models.json`). The parts: `session` (calls, cache, usage), `job` (one plan
conversation and its repair rounds), `notes` (the large-corpus path), `structured` (how an
answer is asked for and read back).
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from pipeline.artifacts.sources import READING_LIST_NAME, Corpus
from pipeline.errors import LLMError, LLMUsage, SourceError
from pipeline.plan.bounds import SpendBounds
from pipeline.plan.catalogue import Catalogue, Catalogues
from pipeline.plan.job import PLAN_TOOL, ExtractPath, PlanJob, PlanRules
from pipeline.plan.llm import LLMClient
from pipeline.plan.model import MIN_ROUTE, Meta, Panel, Plan
from pipeline.plan.notes import NOTES_TOOL, notes_corpus
from pipeline.plan.pricing import estimate_cost, tokens_and_cost, usage_dict
from pipeline.plan.prompting import corpus_hash, plan_tool_schema, render_prompt
from pipeline.plan.session import PLAN_MAX_TOKENS, PLAN_MAX_TOKENS_CAP, Notify, Session, Truncated

# Above this many input tokens the corpus is condensed into per-source notes first.
CORPUS_TOKEN_BUDGET = 120_000
CACHE_DIR_NAME = "llm"


@dataclass
class ExtractResult:
    """A validated plan and what it took to get it."""

    plan: Plan
    usage: LLMUsage
    cost_usd: float
    path: ExtractPath
    cached: bool
    attempts: int
    model: str = ""
    price_known: bool = True


def extract_plan(
    corpus: Corpus,
    *,
    lang: str,
    stuck: list[str],
    out_dir: Path,
    scenarios: Mapping[str, str] | None = None,
    values_for: Callable[[Panel], Mapping[str, str]] | None = None,
    refresh: bool = False,
    model: str | None = None,
    max_rounds: int = 3,
    catalogue: Catalogue | Catalogues | None = None,
    rules: PlanRules | None = None,
    progress: Sequence[str] = (),
    bounds: SpendBounds | None = None,
    notify: Notify | None = None,
) -> ExtractResult:
    """Plan `corpus` with the model from the environment (see `LLMClient.from_env`).
    `max_rounds` bounds the attempts (first answer + repairs); raises `PlanRepairFailed`.
    `bounds` caps the paid calls and sets the deadlines (`pipeline.plan.bounds`; raises
    `CallCapRefused` before a run over the cap, `LLMStopped` part-way); `notify` is handed the
    notices worth a line on the terminal (the estimate before a large run, a damaged cache).
    `catalogue` is what the prompt offers (scenarios, scenes, placeholders, knobs, techniques)
    and `rules` every page rule an answer is checked against (default `plan_violations`); a
    caller without them gives `scenarios` (id → description) and `values_for`."""
    client = LLMClient.from_env(model, **_client_options(bounds))
    return run_extraction(
        client,
        corpus,
        lang=lang,
        stuck=stuck,
        out_dir=out_dir,
        scenarios=scenarios,
        values_for=values_for,
        refresh=refresh,
        max_rounds=max_rounds,
        catalogue=catalogue,
        rules=rules,
        progress=progress,
        bounds=bounds,
        notify=notify,
    )


def require_route_links(corpus: Corpus) -> None:
    """Before any paid call: the learning route needs MIN_ROUTE distinct links the plan may use
    (the reading list's complete addresses, the articles' own URLs). With fewer, no answer could
    meet the route rule, and the run would end in exit 4 after paying for it."""
    urls = sorted(corpus.urls())
    if len(urls) >= MIN_ROUTE:
        return
    found = f"only {len(urls)} ({', '.join(urls)})" if urls else "none"
    raise SourceError(
        f"{READING_LIST_NAME}: the learning route needs {MIN_ROUTE} links, the folder gives "
        f"{found}: add links to {READING_LIST_NAME} (one per line, with https://), then run "
        "again; no model call was made"
    )


def _client_options(bounds: SpendBounds | None) -> dict[str, float]:
    return {} if bounds is None else {"call_deadline_s": bounds.call_deadline_s}


def run_extraction(
    client: LLMClient,
    corpus: Corpus,
    *,
    lang: str,
    stuck: list[str],
    out_dir: Path,
    scenarios: Mapping[str, str] | None = None,
    values_for: Callable[[Panel], Mapping[str, str]] | None = None,
    refresh: bool = False,
    max_rounds: int = 3,
    token_budget: int = CORPUS_TOKEN_BUDGET,
    catalogue: Catalogue | Catalogues | None = None,
    rules: PlanRules | None = None,
    progress: Sequence[str] = (),
    bounds: SpendBounds | None = None,
    notify: Notify | None = None,
) -> ExtractResult:
    """`extract_plan` with an explicit client (tests pass one with short timeouts)."""
    require_route_links(corpus)
    session = Session(client, out_dir / CACHE_DIR_NAME, refresh, bounds, notify)
    if scenarios is None:
        scenarios = (
            {
                sid: e.title
                for cat in Catalogues.of(catalogue).by_field.values()
                for sid, e in cat.scenarios.items()
            }
            if catalogue
            else {}
        )
    job = PlanJob(
        session,
        corpus,
        lang,
        stuck,
        scenarios,
        values_for,
        max(1, max_rounds),
        out_dir,
        catalogue=catalogue,
        rules=rules,
        progress=progress,
    )
    corpus_block = render_prompt(
        "corpus.j2", sources=corpus.sources, reading_list=corpus.reading_list
    )
    path: ExtractPath = "direct"
    if job.input_tokens(corpus_block) > token_budget:
        path = "notes"
        corpus_block = notes_corpus(session, corpus, lang, token_budget, job.max_rounds)
    try:
        plan, attempts = job.run(corpus_block, path)
    except Truncated:
        if path == "notes":
            raise LLMError(
                f"the model's plan was cut off at {PLAN_MAX_TOKENS_CAP} output tokens even from "
                "notes; try a model with a larger output limit (TUJIE_MODEL) or fewer articles"
            ) from None
        path = "notes"
        notes = notes_corpus(session, corpus, lang, token_budget, job.max_rounds)
        plan, attempts = job.run(notes, path)
    cost, known = estimate_cost(client.model, session.usage)
    meta = Meta(
        made_by="llm",
        model=client.model,
        date=datetime.date.today().isoformat(),
        source_hash=corpus_hash(corpus),
        prompt_hash=job.prompt_hash(),
        path=path,
        usage=usage_dict(session.usage, cost),
    )
    return ExtractResult(
        plan=plan.model_copy(update={"meta": meta}),
        usage=session.usage,
        cost_usd=cost,
        path=path,
        cached=session.live_calls == 0,
        attempts=attempts,
        model=client.model,
        price_known=known,
    )


# ---------------------------------------------------------------------------------------------
# Usage


def format_usage(result: ExtractResult) -> str:
    """One line: tokens by kind and the estimated cost."""
    source = " — answered from the cache, no API call" if result.cached else ""
    return (
        f"LLM {result.model}, {result.path} path, {result.attempts} attempt(s), "
        f"{result.usage.calls} call(s): {tokens_and_cost(result.model, result.usage)}{source}"
    )


__all__ = [
    "NOTES_TOOL",
    "PLAN_MAX_TOKENS",
    "PLAN_MAX_TOKENS_CAP",
    "PLAN_TOOL",
    "ExtractResult",
    "extract_plan",
    "format_usage",
    "run_extraction",
    "corpus_hash",
    "estimate_cost",
    "plan_tool_schema",
]
