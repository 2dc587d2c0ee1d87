"""One plan conversation: the prompt, the answer checked against the plan model and the page
rules, and repair rounds that send back the exact violations (the schema, structured or not,
cannot express the page rules)."""

from __future__ import annotations

import datetime
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import Field

from pipeline.artifacts.sources import Corpus
from pipeline.atomic import write_atomic
from pipeline.errors import PlanError, PlanRepairFailed, Violation
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
    SceneKind,
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

    def __post_init__(self) -> None:
        self.answer = plan_answer()
        self._systems: dict[str | None, str] = {}  # by tool name: rendered once each

    def _tool_name(self) -> str | None:
        """The tool the prompts tell the model to call; None when it answers in JSON text."""
        return PLAN_TOOL if self.session.mode == "tool" else None

    def _system(self) -> str:
        tool_name = self._tool_name()
        if tool_name not in self._systems:
            self._systems[tool_name] = self._render_system(tool_name)
        return self._systems[tool_name]

    def _render_system(self, tool_name: str | None) -> str:
        return render_prompt(
            "plan_system.j2",
            tool_name=tool_name,
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
            "plan_task.j2",
            tool_name=self._tool_name(),
            lang=self.lang,
            stuck=self.stuck,
            title=None,
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
        request = self._request(self.session.mode, [self._first_message(corpus_block)])
        if self.session.has_answer(request):
            return 0  # answered before at this size: no need to count (works offline)
        counted = self.session.client.count_tokens(request)
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

    def _plan_data(self, reply: LLMReply) -> tuple[Any, Violation | None]:
        """The plan object of a reply, or a violation saying why there is none."""
        data = self.answer.read(reply)
        if data is None:
            how = (
                f"call the tool {PLAN_TOOL} with the plan"
                if self._tool_name()
                else "answer with the plan as one JSON object"
            )
            return None, Violation("(output)", f"no plan: {how}")
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
