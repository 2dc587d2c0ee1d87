"""One plan conversation: the prompt, the answer checked against the plan model and the page
rules, and repair rounds that send back the exact violations (the schema, structured or not,
cannot express the page rules)."""

from __future__ import annotations

import datetime
import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from pipeline.artifacts.sources import Corpus
from pipeline.atomic import write_atomic
from pipeline.errors import PlanError, PlanRepairFailed, Violation
from pipeline.jsonlimits import JSONRefused
from pipeline.jsonlimits import loads as json_loads
from pipeline.plan.catalogue import GENERIC_ONE_IN, Catalogue, Catalogues
from pipeline.plan.llm import LLMReply, LLMRequest
from pipeline.plan.model import (
    MAX_BODY_SENTENCES,
    MAX_CAPTION,
    MAX_CONCEPTS,
    MAX_ROUTE,
    MIN_CONCEPTS,
    MIN_ROUTE,
    PLAN_FORMAT,
    Concept,
    Panel,
    Plan,
    RouteStop,
    dump_plan,
    parse_plan,
)
from pipeline.plan.prompting import estimate_tokens, plan_tool_schema, render_prompt
from pipeline.plan.rules import plan_violations
from pipeline.plan.session import PLAN_MAX_TOKENS, Session
from pipeline.plan.structured import Answer, Mode

PLAN_TOOL = "submit_plan"
INVALID_PLAN_NAME = "plan.invalid.json"
ExtractPath = Literal["direct", "notes"]


def plan_answer() -> Answer:
    return Answer(PLAN_TOOL, "Submit the complete page plan.", plan_tool_schema())


class _LenientPlan(Plan):
    """The plan with its list lengths relaxed, so the page rules can still be checked (and all
    violations reported in one round) when the concept or route count is wrong."""

    concepts: list[Concept] = Field(min_length=1)
    route: list[RouteStop] = Field(default_factory=list)


def fallback_catalogue(
    scenarios: Mapping[str, str], values_for: Callable[[Panel], Mapping[str, str]] | None
) -> Catalogue:
    """A serving catalogue from scenario descriptions alone (callers without the simulator's)."""
    from pipeline import fields

    return fields.fallback_catalogue(scenarios, values_for)


def render_system(
    tool_name: str | None, lang: str, stuck: list[str], catalogue: Catalogue | Catalogues
) -> str:
    """The plan's system prompt: every rule the validator checks, and a section per field the
    page may draw with (its cast, scenes, scenarios, placeholders, knobs and techniques)."""
    from pipeline import fields
    from pipeline.draw.fit import text_budgets, undrawable
    from pipeline.fields.vocabulary import prompt_lines

    chosen = Catalogues.of(catalogue)
    return render_prompt(
        "plan_system.j2",
        tool_name=tool_name,
        lang=lang,
        stuck=stuck,
        min_concepts=MIN_CONCEPTS,
        max_concepts=MAX_CONCEPTS,
        caption_limit=MAX_CAPTION.get(lang, MAX_CAPTION["en"]),
        max_body_sentences=MAX_BODY_SENTENCES,
        field_sections=[
            fields.field(fid).prompt_section(lang, cat) for fid, cat in chosen.by_field.items()
        ],
        vocabulary=prompt_lines(
            t for fid in chosen.by_field for t in fields.field(fid).vocabulary.get(lang, ())
        ),
        generic_shows=fields.GENERIC_SCENE.shows,
        ruler_min=chosen.ruler_minimum(),
        generic_one_in=GENERIC_ONE_IN,
        generic_examples=(MIN_CONCEPTS, 10, 12, MAX_CONCEPTS),
        budgets=text_budgets(lang),
        undrawable=undrawable(lang),
        min_route=MIN_ROUTE,
        max_route=MAX_ROUTE,
    )


def render_task(
    tool_name: str | None, lang: str, stuck: list[str], progress: Sequence[str] = ()
) -> str:
    """The task message; `progress` are the concept ids page.toml marks (they must exist)."""
    return render_prompt(
        "plan_task.j2", tool_name=tool_name, lang=lang, stuck=stuck, progress=list(progress),
        title=None,
    )


def prompt_hash(
    lang: str, stuck: list[str], catalogue: Catalogue | Catalogues, progress: Sequence[str] = ()
) -> str:
    """What a plan was extracted with, besides the sources: the system prompt and task (as for
    structured outputs) and the plan's schema. An extracted plan is reused while it is unchanged."""
    text = "\n".join(
        [
            render_system(None, lang, stuck, catalogue),
            render_task(None, lang, stuck, progress),
            json.dumps(plan_tool_schema(), sort_keys=True),
        ]
    )
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


PlanRules = Callable[[Plan], list[Violation]]


@dataclass
class PlanJob:
    session: Session
    corpus: Corpus
    lang: str
    stuck: list[str]
    scenarios: Mapping[str, str]
    values_for: Callable[[Panel], Mapping[str, str]] | None
    max_rounds: int
    out_dir: Path
    catalogue: Catalogue | Catalogues | None = None
    rules: PlanRules | None = None  # every page rule (default: plan_violations)
    progress: Sequence[str] = ()  # concept ids page.toml's [progress] names

    def __post_init__(self) -> None:
        self.answer = plan_answer()
        self._systems: dict[str | None, str] = {}  # by tool name: rendered once each
        self.prompt_catalogue = (
            self.catalogue
            if self.catalogue is not None
            else fallback_catalogue(self.scenarios, self.values_for)
        )

    def _tool_name(self) -> str | None:
        """The tool the prompts tell the model to call; None when it answers in JSON text."""
        return PLAN_TOOL if self.session.mode == "tool" else None

    def _system(self) -> str:
        tool_name = self._tool_name()
        if tool_name not in self._systems:
            self._systems[tool_name] = render_system(
                tool_name, self.lang, self.stuck, self.prompt_catalogue
            )
        return self._systems[tool_name]

    def prompt_hash(self) -> str:
        return prompt_hash(self.lang, self.stuck, self.prompt_catalogue, self.progress)

    def _limit(self) -> int:
        return MAX_CAPTION.get(self.lang, MAX_CAPTION["en"])

    def _violations(self, plan: Plan) -> list[Violation]:
        if self.rules is not None:
            return self.rules(plan)
        return plan_violations(
            plan,
            self.corpus,
            values_for=self.values_for,
            scenario_ids=set(self.scenarios) if self.catalogue is None else None,
            catalogue=self.catalogue,
        )

    def _first_message(self, corpus_block: str) -> dict[str, Any]:
        task = render_task(self._tool_name(), self.lang, self.stuck, self.progress)
        # The corpus is one block with a cache marker: repair rounds re-read it from the cache.
        return {
            "role": "user",
            "content": [
                {"type": "text", "text": corpus_block, "cache_control": {"type": "ephemeral"}},
                {"type": "text", "text": task},
            ],
        }

    def input_tokens(self, corpus_block: str) -> int:
        request = self._request(self.session.mode, [self._first_message(corpus_block)])
        if self.session.has_answer(request):
            return 0  # answered before at this size: no need to count (works offline)
        counted = self.session.count_tokens(request)
        return counted if counted is not None else estimate_tokens(request.system + corpus_block)

    def _request(self, mode: Mode, messages: list[dict[str, Any]]) -> LLMRequest:
        return LLMRequest(
            system=self._system(),
            messages=messages,
            max_tokens=PLAN_MAX_TOKENS,
            **self.answer.request_fields(mode, self.session.caps.forced_tool_use),
        )

    def run(self, corpus_block: str, path: ExtractPath) -> tuple[Plan, int]:
        """Ask, check, re-ask with the violations: (the valid plan, attempts), or raise
        `PlanRepairFailed` with the best attempt saved to plan.invalid.json."""
        turns: list[dict[str, Any]] = []
        best: tuple[list[Violation], Any, Plan | None] | None = None
        for attempt in range(1, self.max_rounds + 1):
            reply = self._ask(corpus_block, turns)
            data, plan, violations = self._evaluate(reply, path)
            if plan is not None and not violations:
                return plan, attempt
            if best is None or len(violations) <= len(best[0]):
                best = (violations, data, plan)
            turns = [_assistant_turn(reply), self._repair_turn(reply, violations)]
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

    def _ask(self, corpus_block: str, turns: list[dict[str, Any]]) -> LLMReply:
        # Built per mode: the session may move an unlisted model to the tool path.
        return self.session.ask(
            lambda mode: self._request(mode, [self._first_message(corpus_block), *turns])
        )

    def _evaluate(
        self, reply: LLMReply, path: ExtractPath
    ) -> tuple[Any, Plan | None, list[Violation]]:
        data, problem = self._plan_data(reply)
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
        try:
            plan = parse_plan(data)
        except PlanError as err:
            found = list(err.violations)
            try:
                lenient = _LenientPlan.model_validate(data)
            except ValueError:
                return data, None, found
            found += [v for v in self._violations(lenient) if v not in found]
            return data, None, found
        return data, plan, self._violations(plan)

    def _plan_data(self, reply: LLMReply) -> tuple[Any, Violation | None]:
        """The plan object of a reply, or a violation saying why there is none."""
        data = self.session.read_answer(self.answer, reply)
        if data is None:
            how = (
                f"call the tool {PLAN_TOOL} with the plan"
                if self._tool_name()
                else "answer with the plan as one JSON object"
            )
            return None, Violation("(output)", f"no plan: {how}")
        if isinstance(data, str):
            try:
                data = json_loads(data)
            except json.JSONDecodeError as err:
                return data, Violation(
                    "(json)", f"not valid JSON at line {err.lineno} column {err.colno}: {err.msg}"
                )
            except JSONRefused as err:
                raise self.session.stopped(f"the model's answer is {err}") from None
        if not isinstance(data, dict):
            return data, Violation("(root)", "the plan must be a JSON object")
        return data, None

    def _repair_turn(self, reply: LLMReply, violations: list[Violation]) -> dict[str, Any]:
        """The violations as the next user turn: a tool_result for a tool call, else text (the
        structured path sends them the same way, as text after the replayed JSON answer)."""
        text = render_prompt(
            "repair.j2",
            violations=violations,
            tool_name=self._tool_name(),
            caption_limit=self._limit(),
        )
        tool_id = reply.tool_use_id(PLAN_TOOL)
        if tool_id is not None and isinstance(reply.tool_input(PLAN_TOOL), dict):
            result = {"type": "tool_result", "tool_use_id": tool_id, "is_error": True}
            return {"role": "user", "content": [{**result, "content": text}]}
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


def _assistant_turn(reply: LLMReply) -> dict[str, Any]:
    """The previous answer, replayed so the model repairs its own output (thinking blocks are
    left out: the repair turn needs only what was answered)."""
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
