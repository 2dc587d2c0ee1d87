"""Every model call of one extraction: how answers are asked for (by the model's row in
`models.json`), the response cache keyed by the request, usage summed, cut-off answers re-asked
with a higher output limit, and the bounds (`pipeline.plan.bounds`): the cap on paid calls, the
plan's deadline, and the one line that stops the plan with what it spent so far."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pipeline.atomic import write_atomic
from pipeline.errors import CallCapRefused, DeadlinePassed, LLMError, LLMStopped, LLMUsage
from pipeline.jsonlimits import JSONRefused
from pipeline.jsonlimits import loads as json_loads
from pipeline.plan.bounds import Deadline, SpendBounds, earliest
from pipeline.plan.llm import LLMClient, LLMRejected, LLMReply, LLMRequest, UnreadableReply
from pipeline.plan.models import MODELS_FILE, capabilities
from pipeline.plan.pricing import spend_line
from pipeline.plan.structured import Answer, Mode
from pipeline.reader import FileKind, FileRefused, read_text

PLAN_MAX_TOKENS = 16_000
# A cut-off plan is re-asked with twice the output limit, up to this; then the notes path runs.
PLAN_MAX_TOKENS_CAP = 32_000


# A cached reply is one answer (at most PLAN_MAX_TOKENS_CAP tokens) and its request's hash.
CACHED_REPLY = FileKind("cached model reply", 4 * 1024 * 1024, utf8=True)
CLEAR_CACHE_HELP = "delete it (or run `tujie plan --refresh`) to ask the model again"


class Truncated(Exception):
    """The answer hit the output limit even at PLAN_MAX_TOKENS_CAP."""


Notify = Callable[[str], None]


class Session:
    """Every model call of one extraction: cached by request hash, usage summed, bounded."""

    def __init__(
        self,
        client: LLMClient,
        cache_dir: Path,
        refresh: bool,
        bounds: SpendBounds | None = None,
        notify: Notify | None = None,
    ):
        self.client = client
        self.cache_dir = cache_dir
        self.refresh = refresh
        self.bounds = bounds or SpendBounds()
        self.notify: Notify = notify or (lambda line: None)
        self.deadline = Deadline.after(self.bounds.plan_deadline_s, "for the whole plan")
        self.usage = LLMUsage()
        self.live_calls = 0
        self.cached_calls = 0
        self._asked: set[str] = set()
        self.caps = capabilities(client.model)
        self.mode: Mode = "structured" if self.caps.structured_outputs else "tool"

    # -- bounds ---------------------------------------------------------------------------------

    def stopped(self, reason: str) -> LLMStopped:
        """The error that ends the plan part-way, with what it spent so far."""
        model = self.client.model
        return LLMStopped(reason, self.usage, model, spend_line(model, self.usage) + " so far")

    def allow(self, planned: int, what: str, estimate: str) -> None:
        """Before a run of `planned` more paid calls (`what` they are, `estimate` their cost):
        refused over the cap with the estimate and the flags; shown when it is large."""
        cap = self.bounds.max_calls
        if cap is not None and self.live_calls + planned > cap:
            raise CallCapRefused(
                f"this plan needs {planned:,} more model calls ({what}), over the cap of {cap} "
                f"per plan; {estimate}. Run `tujie plan SRC --max-calls {self.live_calls + planned}`"
                f" (or --yes) to go ahead, or plan fewer articles"
            )
        if planned > 1:
            self.notify(f"planned: {planned:,} model calls ({what}); {estimate}")

    def count_tokens(self, request: LLMRequest) -> int | None:
        """`client.count_tokens` within its deadline (and the plan's)."""
        due = earliest(
            Deadline.after(self.bounds.count_deadline_s, "for the token count"), self.deadline
        )
        try:
            return self.client.count_tokens(request, due)
        except DeadlinePassed as err:
            raise self.stopped(str(err)) from None

    def read_answer(self, answer: Answer, reply: LLMReply) -> Any:
        """`answer.read(reply)`; a reply nested too deeply to read stops the plan."""
        try:
            return answer.read(reply)
        except JSONRefused as err:
            raise self.stopped(f"the model's answer is {err}") from None

    def _send(self, request: LLMRequest) -> LLMReply:
        cap = self.bounds.max_calls
        if cap is not None and self.live_calls >= cap:
            raise self.stopped(
                f"reached the cap of {cap} model calls for this plan (`tujie plan --max-calls N` "
                "allows more)"
            )
        if self.deadline.passed():
            raise self.stopped(f"the {self.deadline.what} has passed")
        try:
            return self.client.create(request, self.deadline)
        except (DeadlinePassed, UnreadableReply) as err:  # sent, perhaps paid: say the spend
            raise self.stopped(str(err)) from None

    # -- calls ----------------------------------------------------------------------------------

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
            reply = cached or self._send(request)
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
        """The cached reply to the request `key`; None when there is none, or when it is
        damaged (cut off, not JSON, not of the shape `_store` writes): then the model is asked
        again, and the notice names the file."""
        path = self.cache_dir / f"{key}.json"
        try:
            data = json_loads(read_text(path, self.cache_dir, CACHED_REPLY))
        except FileRefused as why:
            if not why.missing:
                self.notify(f"{path}: cached reply not used ({why}); {CLEAR_CACHE_HELP}")
            return None
        except ValueError as err:  # not JSON, or outside the limits (JSONRefused)
            self.notify(f"{path}: cached reply damaged ({err}); asking the model again")
            return None
        reply = cached_reply(data, key)
        if reply is None:
            self.notify(f"{path}: cached reply damaged (not a reply); asking the model again")
        return reply

    def _store(self, key: str, reply: LLMReply) -> None:
        entry = {"request_sha256": key, "model": self.client.model, "reply": reply.to_dict()}
        write_atomic(
            self.cache_dir / f"{key}.json", json.dumps(entry, ensure_ascii=False, indent=2) + "\n"
        )


def cached_reply(entry: object, key: str) -> LLMReply | None:
    """The reply of a cache entry written by `Session._store` for the request `key`, or None
    when any part of it is not what `_store` writes."""
    if not isinstance(entry, dict) or entry.get("request_sha256") != key:
        return None
    reply = entry.get("reply")
    if not isinstance(reply, dict) or not isinstance(reply.get("content"), list):
        return None
    usage = reply.get("usage", {})
    counts_ok = isinstance(usage, dict) and all(
        isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in usage.values()
    )
    blocks_ok = all(_cached_block_ok(b) for b in reply["content"])
    stop_ok = reply.get("stop_reason") is None or isinstance(reply.get("stop_reason"), str)
    return LLMReply.from_dict(reply) if counts_ok and blocks_ok and stop_ok else None


def _cached_block_ok(block: object) -> bool:
    if not isinstance(block, dict) or not isinstance(block.get("type"), str):
        return False
    if block["type"] == "text":
        return isinstance(block.get("text"), str)
    if block["type"] == "tool_use":
        return isinstance(block.get("name"), str) and isinstance(block.get("id"), str)
    return True


def _add_usage(total: LLMUsage, one: LLMUsage) -> None:
    total.input_tokens += one.input_tokens
    total.output_tokens += one.output_tokens
    total.cache_creation_input_tokens += one.cache_creation_input_tokens
    total.cache_read_input_tokens += one.cache_read_input_tokens
    total.calls += 1
