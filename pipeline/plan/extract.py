"""Extract the page plan from a corpus with the LLM: prompt, validate, repair, cache, cost.

`extract_plan()` sends the corpus once (marked for prompt caching), checks every answer with the
plan model and the page rules, re-asks with the exact violations, and falls back to per-source
notes when the corpus is over the token budget or the answer will not fit the output limit.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import Field

from pipeline.artifacts.sources import Corpus, Source
from pipeline.atomic import write_atomic
from pipeline.errors import LLMError, LLMUsage, PlanError, PlanRepairFailed, Violation
from pipeline.plan.llm import LLMClient, LLMReply, LLMRequest
from pipeline.plan.model import (
    MAX_BODY_SENTENCES,
    MAX_CAPTION,
    MAX_CONCEPTS,
    MAX_ROUTE,
    MIN_CONCEPTS,
    MIN_ROUTE,
    PLAN_FORMAT,
    Concept,
    Meta,
    Panel,
    Plan,
    RouteStop,
    SceneKind,
    dump_plan,
    parse_plan,
)
from pipeline.plan.pricing import estimate_cost, usage_dict
from pipeline.plan.prompting import (
    corpus_hash,
    estimate_tokens,
    plan_tool_schema,
    render_prompt,
)
from pipeline.plan.rules import plan_violations

PLAN_TOOL, NOTES_TOOL = "submit_plan", "record_notes"
PLAN_MAX_TOKENS = 16_000
# A cut-off plan is re-asked with twice the output limit, up to this; then the notes path runs.
PLAN_MAX_TOKENS_CAP = 32_000
NOTES_MAX_TOKENS = 4_096
# Above this many input tokens the corpus is condensed into per-source notes first.
CORPUS_TOKEN_BUDGET = 120_000
CACHE_DIR_NAME = "llm"
INVALID_PLAN_NAME = "plan.invalid.json"
JSON_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S)
NOTES_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "concepts": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "problem": {"type": "string"},
                    "fix": {"type": "string"},
                    "cost": {"type": "string"},
                },
                "required": ["name"],
            },
        },
        "quotes": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"quote": {"type": "string"}, "about": {"type": "string"}},
                "required": ["quote"],
            },
        },
        "urls": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["concepts", "quotes"],
}

ExtractPath = Literal["direct", "notes"]


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


class _Truncated(Exception):
    """The answer hit the output limit even at PLAN_MAX_TOKENS_CAP."""


class _LenientPlan(Plan):
    """The plan with its list lengths relaxed, so the page rules can still be checked (and all
    violations reported in one round) when the concept or route count is wrong."""

    concepts: list[Concept] = Field(min_length=1)
    route: list[RouteStop] = Field(default_factory=list)


def extract_plan(
    corpus: Corpus,
    *,
    lang: str,
    stuck: list[str],
    out_dir: Path,
    scenarios: Mapping[str, str],
    values_for: Callable[[Panel], Mapping[str, str]] | None = None,
    refresh: bool = False,
    model: str | None = None,
    max_rounds: int = 3,
) -> ExtractResult:
    """Plan `corpus` with the model from the environment (see `LLMClient.from_env`).
    `max_rounds` bounds the attempts (first answer + repairs); raises `PlanRepairFailed`."""
    client = LLMClient.from_env(model)
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
    )


def run_extraction(
    client: LLMClient,
    corpus: Corpus,
    *,
    lang: str,
    stuck: list[str],
    out_dir: Path,
    scenarios: Mapping[str, str],
    values_for: Callable[[Panel], Mapping[str, str]] | None = None,
    refresh: bool = False,
    max_rounds: int = 3,
    token_budget: int = CORPUS_TOKEN_BUDGET,
) -> ExtractResult:
    """`extract_plan` with an explicit client (tests pass one with short timeouts)."""
    session = _Session(client, out_dir / CACHE_DIR_NAME, refresh)
    job = _PlanJob(session, corpus, lang, stuck, scenarios, values_for, max(1, max_rounds), out_dir)
    corpus_block = render_prompt(
        "corpus.j2", sources=corpus.sources, reading_list=corpus.reading_list
    )
    path: ExtractPath = "direct"
    if job.input_tokens(corpus_block) > token_budget:
        path, corpus_block = "notes", _notes_corpus(session, corpus, lang, token_budget)
    try:
        plan, attempts = job.run(corpus_block, path)
    except _Truncated:
        if path == "notes":
            raise LLMError(
                f"the model's plan was cut off at {PLAN_MAX_TOKENS_CAP} output tokens even from "
                "notes; try a model with a larger output limit (TUJIE_MODEL) or fewer articles"
            ) from None
        path = "notes"
        plan, attempts = job.run(_notes_corpus(session, corpus, lang, token_budget), path)
    cost, known = estimate_cost(client.model, session.usage)
    meta = Meta(
        made_by="llm",
        model=client.model,
        date=datetime.date.today().isoformat(),
        source_hash=corpus_hash(corpus),
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
# One conversation: ask, check, re-ask


@dataclass
class _PlanJob:
    session: _Session
    corpus: Corpus
    lang: str
    stuck: list[str]
    scenarios: Mapping[str, str]
    values_for: Callable[[Panel], Mapping[str, str]] | None
    max_rounds: int
    out_dir: Path
    system: str = ""

    def __post_init__(self) -> None:
        self.system = render_prompt(
            "plan_system.j2",
            tool_name=PLAN_TOOL,
            lang=self.lang,
            stuck=self.stuck,
            min_concepts=MIN_CONCEPTS,
            max_concepts=MAX_CONCEPTS,
            caption_limit=self._limit(),
            max_body_sentences=MAX_BODY_SENTENCES,
            scene_kinds=list(get_args(SceneKind)),
            scenarios=dict(self.scenarios),
            placeholders=self._placeholder_catalogue(),
            min_route=MIN_ROUTE,
            max_route=MAX_ROUTE,
        )

    def _limit(self) -> int:
        return MAX_CAPTION.get(self.lang, MAX_CAPTION["en"])

    def _placeholder_catalogue(self) -> dict[str, list[str]]:
        """Ask `values_for` what each scenario can fill, so the model picks real names and can
        count the filled length against the caption limit."""
        if self.values_for is None:
            return {}
        out: dict[str, list[str]] = {}
        for sid in sorted(self.scenarios):
            names: dict[str, str] = {}
            for variant in ("without", "with"):
                probe = Panel(caption="-", scene="timeline", scenario=sid, variant=variant)
                names.update(self.values_for(probe))
            out[sid] = [f"{{{k}}} = {v}" for k, v in sorted(names.items())]
        return out

    def _first_message(self, corpus_block: str) -> dict[str, Any]:
        task = render_prompt(
            "plan_task.j2", tool_name=PLAN_TOOL, lang=self.lang, stuck=self.stuck, title=None
        )
        # The corpus is one block with a cache marker: repair rounds re-read it from the cache.
        return {
            "role": "user",
            "content": [
                {"type": "text", "text": corpus_block, "cache_control": {"type": "ephemeral"}},
                {"type": "text", "text": task},
            ],
        }

    def input_tokens(self, corpus_block: str) -> int:
        request = self._request([self._first_message(corpus_block)], PLAN_MAX_TOKENS)
        if self.session.has_answer(request):
            return 0  # answered before at this size: no need to count (works offline)
        counted = self.session.client.count_tokens(request)
        return counted if counted is not None else estimate_tokens(self.system + corpus_block)

    def _request(self, messages: list[dict[str, Any]], max_tokens: int) -> LLMRequest:
        return LLMRequest(
            system=self.system,
            messages=messages,
            max_tokens=max_tokens,
            tools=[
                {
                    "name": PLAN_TOOL,
                    "input_schema": plan_tool_schema(),
                    "description": "Submit the complete page plan.",
                }
            ],
            tool_choice={"type": "tool", "name": PLAN_TOOL},
        )

    def run(self, corpus_block: str, path: ExtractPath) -> tuple[Plan, int]:
        first = self._first_message(corpus_block)
        messages = [first]
        best: tuple[list[Violation], Any, Plan | None] | None = None
        for attempt in range(1, self.max_rounds + 1):
            reply = self.session.call(self._request(messages, PLAN_MAX_TOKENS))
            data, plan, violations = self._evaluate(reply, path)
            if plan is not None and not violations:
                return plan, attempt
            if best is None or len(violations) <= len(best[0]):
                best = (violations, data, plan)
            messages = [first, _assistant_turn(reply), self._repair_turn(reply, violations)]
        assert best is not None
        saved = self._save_invalid(best[1], best[2])
        raise PlanRepairFailed(
            best[0],
            self.max_rounds,
            self.session.usage,
            saved,
            last_output=json.dumps(best[1], ensure_ascii=False)[:2000],
            model=self.session.client.model,
        )

    def _evaluate(
        self, reply: LLMReply, path: ExtractPath
    ) -> tuple[Any, Plan | None, list[Violation]]:
        data, problem = _plan_data(reply)
        if problem is not None:
            return data, None, [problem]
        data = {
            **data,
            "format": PLAN_FORMAT,
            "lang": self.lang,
            "meta": {
                "made_by": "llm",
                "model": self.session.client.model,
                "date": datetime.date.today().isoformat(),
                "path": path,
            },
        }
        checks: dict[str, Any] = {
            "values_for": self.values_for,
            "scenario_ids": set(self.scenarios),
        }
        try:
            plan = parse_plan(data)
        except PlanError as err:
            found = list(err.violations)
            try:
                lenient = _LenientPlan.model_validate(data)
            except ValueError:
                return data, None, found
            found += [v for v in plan_violations(lenient, self.corpus, **checks) if v not in found]
            return data, None, found
        return data, plan, plan_violations(plan, self.corpus, **checks)

    def _repair_turn(self, reply: LLMReply, violations: list[Violation]) -> dict[str, Any]:
        text = render_prompt(
            "repair.j2", violations=violations, tool_name=PLAN_TOOL, caption_limit=self._limit()
        )
        tool_id = reply.tool_use_id(PLAN_TOOL)
        if tool_id is not None and isinstance(reply.tool_input(PLAN_TOOL), dict):
            return {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": tool_id,
                        "is_error": True,
                        "content": text,
                    }
                ],
            }
        return {"role": "user", "content": [{"type": "text", "text": text}]}

    def _save_invalid(self, data: Any, plan: Plan | None) -> Path | None:
        if data is None:
            return None
        text = (
            dump_plan(plan)
            if plan is not None
            else json.dumps(data, ensure_ascii=False, indent=2) + "\n"
        )
        target = self.out_dir / INVALID_PLAN_NAME
        write_atomic(target, text)
        return target


def _plan_data(reply: LLMReply) -> tuple[Any, Violation | None]:
    """The plan object of a reply, or a violation saying why there is none."""
    data = reply.tool_input(PLAN_TOOL)
    if data is None:
        text = reply.text().strip()
        fenced = JSON_FENCE.search(text)
        data = fenced.group(1) if fenced else text
        if not data:
            return None, Violation("(output)", f"no plan: call the tool {PLAN_TOOL} with the plan")
    if isinstance(data, str):
        try:
            data = json.loads(data)
        except json.JSONDecodeError as err:
            return data, Violation(
                "(json)", f"not valid JSON at line {err.lineno} column {err.colno}: {err.msg}"
            )
    if not isinstance(data, dict):
        return data, Violation("(root)", "the plan must be a JSON object")
    return data, None


def _assistant_turn(reply: LLMReply) -> dict[str, Any]:
    """The previous answer, replayed so the model repairs its own output."""
    blocks: list[dict[str, Any]] = []
    for block in reply.content:
        if block.get("type") == "tool_use" and isinstance(block.get("input"), dict):
            blocks.append({k: block[k] for k in ("type", "id", "name", "input")})
        elif block.get("type") == "tool_use":
            blocks.append(
                {"type": "text", "text": json.dumps(block.get("input"), ensure_ascii=False)}
            )
        elif block.get("type") == "text" and str(block.get("text", "")).strip():
            blocks.append({"type": "text", "text": block["text"]})
    return {"role": "assistant", "content": blocks or [{"type": "text", "text": "(no output)"}]}


# ---------------------------------------------------------------------------------------------
# Calls, cache, truncation


class _Session:
    """Every model call of one extraction: cached by request hash, usage summed."""

    def __init__(self, client: LLMClient, cache_dir: Path, refresh: bool):
        self.client = client
        self.cache_dir = cache_dir
        self.refresh = refresh
        self.usage = LLMUsage()
        self.live_calls = 0
        self.cached_calls = 0
        self._asked: set[str] = set()

    def _key(self, request: LLMRequest) -> str:
        body = json.dumps(request.body(self.client.model), sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(body.encode("utf-8")).hexdigest()

    def has_answer(self, request: LLMRequest) -> bool:
        return not self.refresh and self._load(self._key(request)) is not None

    def call(self, request: LLMRequest) -> LLMReply:
        while True:
            key = self._key(request)
            # A request repeated within this run (a repair round that got the same answer)
            # goes to the model again: replaying the cached answer would only repeat it.
            cached = None if self.refresh or key in self._asked else self._load(key)
            self._asked.add(key)
            reply = cached or self.client.create(request)
            if cached is None:
                self.live_calls += 1
                _add_usage(self.usage, reply.usage)
            else:
                self.cached_calls += 1
            self.usage.extra["cached_calls"] = float(self.cached_calls)
            if reply.stop_reason == "refusal":
                raise LLMError(
                    "the model refused to plan these articles (stop_reason 'refusal'); "
                    "check their content, or write plan.json by hand"
                )
            if reply.stop_reason != "max_tokens":
                if cached is None:
                    self._store(key, reply)
                return reply
            if request.max_tokens >= PLAN_MAX_TOKENS_CAP:
                raise _Truncated()
            request.max_tokens = min(PLAN_MAX_TOKENS_CAP, request.max_tokens * 2)

    def _load(self, key: str) -> LLMReply | None:
        try:
            data = json.loads((self.cache_dir / f"{key}.json").read_text(encoding="utf-8"))
            return LLMReply.from_dict(data["reply"])
        except (OSError, ValueError, KeyError, TypeError):
            return None  # no entry, or a damaged one: ask again

    def _store(self, key: str, reply: LLMReply) -> None:
        entry = {"request_sha256": key, "model": self.client.model, "reply": reply.to_dict()}
        write_atomic(
            self.cache_dir / f"{key}.json", json.dumps(entry, ensure_ascii=False, indent=2) + "\n"
        )


def _add_usage(total: LLMUsage, one: LLMUsage) -> None:
    total.input_tokens += one.input_tokens
    total.output_tokens += one.output_tokens
    total.cache_creation_input_tokens += one.cache_creation_input_tokens
    total.cache_read_input_tokens += one.cache_read_input_tokens
    total.calls += 1


# ---------------------------------------------------------------------------------------------
# Notes path (large corpora)


def _notes_corpus(session: _Session, corpus: Corpus, lang: str, budget: int) -> str:
    """Condense each source into notes (concepts + verbatim quotes), keeping only quotes that
    really are in the source, and render them as the corpus block of the plan request."""
    system = render_prompt("notes_system.j2", tool_name=NOTES_TOOL, lang=lang)
    notes = []
    for source in corpus.sources:
        paragraphs, truncated = _fit(source, budget)
        task = render_prompt(
            "notes_task.j2",
            tool_name=NOTES_TOOL,
            source=source,
            paragraphs=paragraphs,
            truncated=truncated,
        )
        request = LLMRequest(
            system=system,
            max_tokens=NOTES_MAX_TOKENS,
            messages=[
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": task, "cache_control": {"type": "ephemeral"}}
                    ],
                }
            ],
            tools=[
                {
                    "name": NOTES_TOOL,
                    "input_schema": NOTES_SCHEMA,
                    "description": "Record the notes of one article.",
                }
            ],
            tool_choice={"type": "tool", "name": NOTES_TOOL},
        )
        raw = session.call(request).tool_input(NOTES_TOOL)
        notes.append({"source": source, "text": _notes_text(corpus, source, raw)})
    return render_prompt("notes_corpus.j2", notes=notes, reading_list=corpus.reading_list)


def _fit(source: Source, budget: int) -> tuple[list[Any], bool]:
    kept: list[Any] = []
    used = 0
    for p in source.paragraphs:
        used += estimate_tokens(p.text)
        if used > budget:
            return kept, True
        kept.append(p)
    return kept, False


def _notes_text(corpus: Corpus, source: Source, raw: Any) -> str:
    if not isinstance(raw, dict):
        return "(no notes)"
    lines = []
    for c in raw.get("concepts") or []:
        if isinstance(c, dict):
            parts = [f"{k}: {c[k]}" for k in ("name", "problem", "fix", "cost") if c.get(k)]
            lines.append("- concept — " + "; ".join(parts))
    for q in raw.get("quotes") or []:
        quote = q.get("quote") if isinstance(q, dict) else None
        if isinstance(quote, str) and corpus.find_quote(source.id, quote):
            lines.append(f'- quote: "{quote}"' + (f" ({q['about']})" if q.get("about") else ""))
    for url in raw.get("urls") or []:
        if isinstance(url, str) and corpus.has_url(url):
            lines.append(f"- url: {url}")
    return "\n".join(lines) or "(no notes)"


# ---------------------------------------------------------------------------------------------
# Usage


def format_usage(result: ExtractResult) -> str:
    """One line: tokens by kind and the estimated cost."""
    u = result.usage
    cost = (
        f"est. cost ${result.cost_usd:.4f}"
        if result.price_known
        else (f"cost unknown ({result.model} is not in pipeline/pricing.json)")
    )
    source = " — answered from the cache, no API call" if result.cached else ""
    return (
        f"LLM {result.model}, {result.path} path, {result.attempts} attempt(s), {u.calls} call(s): "
        f"input {u.input_tokens:,} · output {u.output_tokens:,} · cache write "
        f"{u.cache_creation_input_tokens:,} · cache read {u.cache_read_input_tokens:,} tokens · "
        f"{cost}{source}"
    )


__all__ = [
    "ExtractResult",
    "extract_plan",
    "format_usage",
    "run_extraction",
    "corpus_hash",
    "estimate_cost",
    "plan_tool_schema",
]
