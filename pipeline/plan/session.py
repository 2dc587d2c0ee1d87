"""Every model call of one extraction: how answers are asked for (by the model's row in
`models.json`), the response cache keyed by the request, usage summed, cut-off answers re-asked
with a higher output limit."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path

from pipeline.atomic import write_atomic
from pipeline.errors import LLMError, LLMUsage
from pipeline.plan.llm import LLMClient, LLMRejected, LLMReply, LLMRequest
from pipeline.plan.models import MODELS_FILE, capabilities
from pipeline.plan.structured import Mode

PLAN_MAX_TOKENS = 16_000
# A cut-off plan is re-asked with twice the output limit, up to this; then the notes path runs.
PLAN_MAX_TOKENS_CAP = 32_000


class Truncated(Exception):
    """The answer hit the output limit even at PLAN_MAX_TOKENS_CAP."""


class Session:
    """Every model call of one extraction: cached by request hash, usage summed."""

    def __init__(self, client: LLMClient, cache_dir: Path, refresh: bool):
        self.client = client
        self.cache_dir = cache_dir
        self.refresh = refresh
        self.usage = LLMUsage()
        self.live_calls = 0
        self.cached_calls = 0
        self._asked: set[str] = set()
        self.caps = capabilities(client.model)
        self.mode: Mode = "structured" if self.caps.structured_outputs else "tool"

    def _key(self, request: LLMRequest) -> str:
        body = json.dumps(request.body(self.client.model), sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(body.encode("utf-8")).hexdigest()

    def has_answer(self, request: LLMRequest) -> bool:
        return not self.refresh and self._load(self._key(request)) is not None

    def ask(self, make: Callable[[Mode], LLMRequest]) -> LLMReply:
        """`call` the request `make` builds for the current mode. A model models.json does not
        list that refuses structured outputs is asked again by a tool call (and stays so)."""
        try:
            return self.call(make(self.mode))
        except LLMRejected as err:
            if err.feature not in ("output_config", "tool_choice"):
                raise
            if self.caps.known:
                raise LLMError(
                    f"{err} — {MODELS_FILE.name} lists {self.client.model} with "
                    f"structured_outputs={str(self.caps.structured_outputs).lower()}, "
                    f"forced_tool_use={str(self.caps.forced_tool_use).lower()}: correct its row "
                    f"in {MODELS_FILE}"
                ) from None
            if err.feature != "output_config" or self.mode != "structured":
                raise
        self.mode = "tool"
        return self.call(make(self.mode))

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
                raise Truncated()
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
