"""The one door to the Anthropic Messages API (the only module that imports `anthropic`).

`LLMClient.from_env()` reads ANTHROPIC_API_KEY / TUJIE_MODEL / ANTHROPIC_BASE_URL; `create()` sends
one request with bounded retries that honour `retry-after`, and turns every failure into `LLMError`
with a one-line reason that never contains the key (`LLMRejected` for a 400, naming the request
feature the model refused). Replies are plain dicts so they can be cached. Requests carry no
sampling parameters (temperature, top_p, top_k): current models reject non-default ones.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import anthropic

from pipeline.errors import DeadlinePassed, EnvironmentMissing, LLMError, LLMUsage
from pipeline.jsonlimits import MAX_JSON_DEPTH, nesting_depth, too_deep
from pipeline.plan.base_url import BASE_URL_ENV, BASE_URL_FIX, check_base_url, mask_password
from pipeline.plan.bounds import CALL_DEADLINE_S, Deadline, earliest, run_before
from pipeline.plan.models import default_model
from pipeline.urls import mask_credentials

# The current Sonnet (models.json "default", with its sources): asked by structured outputs.
DEFAULT_MODEL = default_model()
API_KEY_ENV, MODEL_ENV = "ANTHROPIC_API_KEY", "TUJIE_MODEL"
# Retries are ours, not the SDK's, so that every wait is bounded and visible here.
MAX_RETRIES = 4
INITIAL_BACKOFF_S = 1.0
MAX_BACKOFF_S = 30.0
# A server asking for a longer pause than this is treated as "try again later", not waited out.
MAX_RETRY_AFTER_S = 60.0
REQUEST_TIMEOUT_S = 600.0
CONNECT_TIMEOUT_S = 10.0
# Long outputs must stream: the SDK refuses non-streaming requests that may run over 10 minutes.
STREAM_FROM_MAX_TOKENS = 8192
RETRYABLE_STATUS = {408, 409, 429, 500, 502, 503, 504, 529}
RETRYABLE_ERROR_TYPES = {"overloaded_error", "rate_limit_error", "api_error", "timeout_error"}
NO_KEY_HELP = (
    f"{API_KEY_ENV} is not set: export {API_KEY_ENV}=<your Anthropic API key> to extract the plan "
    "with Claude (optionally TUJIE_MODEL=<model id>), or skip the LLM by writing plan.json in the "
    "article folder by hand (see `tujie schema`) and running `tujie build`"
)


@dataclass
class LLMRequest:
    """One Messages API request, minus the model (the client adds it)."""

    system: str
    messages: list[dict[str, Any]]
    max_tokens: int
    tools: list[dict[str, Any]] = field(default_factory=list)
    tool_choice: dict[str, Any] | None = None
    output_config: dict[str, Any] | None = None  # {"format": {"type": "json_schema", ...}}

    def body(self, model: str) -> dict[str, Any]:
        """The JSON body as sent (also the cache key's input)."""
        out: dict[str, Any] = {
            "model": model,
            "max_tokens": self.max_tokens,
            "system": self.system,
            "messages": self.messages,
        }
        if self.tools:
            out["tools"] = self.tools
        if self.tool_choice:
            out["tool_choice"] = self.tool_choice
        if self.output_config:
            out["output_config"] = self.output_config
        return out


class UnreadableReply(LLMError):
    """The model's reply could not be read at all (nested too deeply to parse, or not JSON
    where the SDK needs it). It was paid for: the plan session stops with the spend so far."""


class LLMRejected(LLMError):
    """The API refused the request itself (400). `feature` names what it refused, when the
    message says: "tool_choice" (forced tool use), "output_config" (structured outputs),
    "schema" (the structured-outputs schema, not the feature)."""

    def __init__(self, message: str, feature: str | None):
        super().__init__(message)
        self.feature = feature


def strict_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` in the JSON Schema subset structured outputs accept, by the SDK's own transform:
    `additionalProperties: false` on every object, `$defs` kept, and the constraints the API does
    not support (string lengths and patterns, number bounds, `minItems` over 1, `maxItems`,
    defaults) moved into each property's description."""
    return anthropic.transform_schema(schema)


@dataclass
class LLMReply:
    """A model answer as plain data: content blocks, stop reason, usage."""

    content: list[dict[str, Any]]
    stop_reason: str | None
    usage: LLMUsage
    model: str

    def tool_input(self, name: str) -> Any | None:
        """The input of the first `tool_use` block calling `name` (a dict, or whatever was sent)."""
        for block in self.content:
            if block.get("type") == "tool_use" and block.get("name") == name:
                return block.get("input")
        return None

    def tool_use_id(self, name: str) -> str | None:
        for block in self.content:
            if block.get("type") == "tool_use" and block.get("name") == name:
                return str(block.get("id"))
        return None

    def text(self) -> str:
        return "".join(str(b.get("text", "")) for b in self.content if b.get("type") == "text")

    def to_dict(self) -> dict[str, Any]:
        u = self.usage
        return {
            "content": self.content,
            "stop_reason": self.stop_reason,
            "model": self.model,
            "usage": {
                "input_tokens": u.input_tokens,
                "output_tokens": u.output_tokens,
                "cache_creation_input_tokens": u.cache_creation_input_tokens,
                "cache_read_input_tokens": u.cache_read_input_tokens,
            },
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LLMReply:
        usage = data.get("usage") or {}
        return cls(
            content=list(data.get("content") or []),
            stop_reason=data.get("stop_reason"),
            usage=LLMUsage(
                input_tokens=int(usage.get("input_tokens") or 0),
                output_tokens=int(usage.get("output_tokens") or 0),
                cache_creation_input_tokens=int(usage.get("cache_creation_input_tokens") or 0),
                cache_read_input_tokens=int(usage.get("cache_read_input_tokens") or 0),
                calls=1,
            ),
            model=str(data.get("model") or ""),
        )


class LLMClient:
    """A Messages API client with our retry policy and error messages."""

    def __init__(
        self,
        api_key: str,
        *,
        model: str = DEFAULT_MODEL,
        base_url: str | None = None,
        max_retries: int = MAX_RETRIES,
        timeout_s: float = REQUEST_TIMEOUT_S,
        initial_backoff_s: float = INITIAL_BACKOFF_S,
        sleep: Callable[[float], None] = time.sleep,
        call_deadline_s: float = CALL_DEADLINE_S,
    ):
        self.model = model
        self._key = api_key
        self._max_retries = max_retries
        self._backoff = initial_backoff_s
        self._sleep = sleep
        self.call_deadline_s = call_deadline_s
        named = BASE_URL_ENV if base_url is None else "the base URL"
        base_url = base_url if base_url is not None else os.environ.get(BASE_URL_ENV) or None
        if base_url is not None:
            check_base_url(base_url, named)
        try:
            self._client = anthropic.Anthropic(
                api_key=api_key,
                base_url=base_url,
                max_retries=0,
                timeout=anthropic.Timeout(timeout_s, connect=min(CONNECT_TIMEOUT_S, timeout_s)),
            )
        except Exception as err:  # the SDK's own URL parser refusing what ours let through
            raise EnvironmentMissing(
                f"{named} = {mask_password(base_url or '')} cannot be used "
                f"({type(err).__name__}: {mask_password(str(err))[:120]}); {BASE_URL_FIX}"
            ) from None
        self.base_url = mask_password(str(self._client.base_url))

    @classmethod
    def from_env(cls, model: str | None = None, **options: Any) -> LLMClient:
        """A client from the environment; `EnvironmentMissing` (exit 3) when there is no key."""
        key = os.environ.get(API_KEY_ENV, "").strip()
        if not key:
            raise EnvironmentMissing(NO_KEY_HELP)
        chosen = model or os.environ.get(MODEL_ENV, "").strip() or DEFAULT_MODEL
        return cls(key, model=chosen, **options)

    def create(self, request: LLMRequest, deadline: Deadline | None = None) -> LLMReply:
        """Send one request (streamed when the output may be long), retrying transient faults,
        all within `call_deadline_s` (and `deadline`, the plan's, when it comes first):
        `DeadlinePassed` when no attempt has answered by then, whatever the socket does."""
        kwargs = request.body(self.model)
        due = earliest(Deadline.after(self.call_deadline_s, "for one model call"), deadline)
        what = f"the model call to {self._where()}"
        for attempt in range(self._max_retries + 1):
            try:
                return run_before(due, lambda: self._send(request, kwargs), what)
            except anthropic.APIError as err:
                wait = self._retry_wait(err, attempt)
                if wait is None and isinstance(err, anthropic.BadRequestError):
                    raise LLMRejected(self._describe(err, attempt), _refused(err)) from None
                if wait is None:
                    raise LLMError(self._describe(err, attempt)) from None
                if wait >= due.remaining():
                    raise DeadlinePassed(
                        f"{what}: {self._describe(err, attempt)}; no time left to retry within "
                        f"the {due.what}"
                    ) from None
                self._sleep(wait)
        raise AssertionError("unreachable: the loop returns or raises")

    def _send(self, request: LLMRequest, kwargs: dict[str, Any]) -> LLMReply:
        """One attempt. A reply the SDK cannot parse (nested past the JSON parser's recursion
        limit, or a tool input that is no JSON) is `UnreadableReply`, not a traceback."""
        try:
            if request.max_tokens >= STREAM_FROM_MAX_TOKENS:
                with self._client.messages.stream(**kwargs) as stream:
                    message = stream.get_final_message()
            else:
                message = self._client.messages.create(**kwargs)
        except RecursionError:
            raise UnreadableReply(f"the model's reply is {too_deep()}") from None
        except ValueError as err:  # the stream's tool-input parser (jiter)
            said = " ".join(str(err).split())
            if "recursion limit" in said:
                raise UnreadableReply(f"the model's reply is {too_deep()}") from None
            raise UnreadableReply(f"the model's reply could not be read ({said[:120]}…)") from None
        if nesting_depth(message.model_dump(mode="json")) > MAX_JSON_DEPTH + 8:
            raise UnreadableReply(f"the model's reply is {too_deep()}")
        return _reply_from_message(message)

    def count_tokens(self, request: LLMRequest, deadline: Deadline) -> int | None:
        """Input tokens of `request` by the API's counter, or None when the endpoint is not
        available (the caller then estimates). Authentication failures still raise, and so
        does `DeadlinePassed` when the counter has not answered by `deadline`."""
        body = request.body(self.model)
        body.pop("max_tokens", None)
        what = f"the token count at {self._where()}"
        try:
            counted = run_before(deadline, lambda: self._client.messages.count_tokens(**body), what)
            return int(counted.input_tokens)
        except (anthropic.AuthenticationError, anthropic.PermissionDeniedError) as err:
            raise LLMError(self._describe(err, 0)) from None
        except (anthropic.APIError, RecursionError, ValueError, TypeError):
            return None

    # -- faults ---------------------------------------------------------------------------------

    def _retry_wait(self, err: anthropic.APIError, attempt: int) -> float | None:
        """Seconds to wait before retrying, or None when the error is final."""
        if attempt >= self._max_retries or not _retryable(err):
            return None
        asked = _retry_after_s(err)
        if asked is not None:
            return asked if asked <= MAX_RETRY_AFTER_S else None
        return float(min(self._backoff * 2**attempt, MAX_BACKOFF_S))

    def _where(self) -> str:
        return f"the Anthropic API ({self.base_url})"

    def _describe(self, err: anthropic.APIError, attempt: int) -> str:
        where = self._where()
        if isinstance(err, anthropic.AuthenticationError):
            text = f"{where} rejected the API key (401): check {API_KEY_ENV}"
        elif isinstance(err, anthropic.PermissionDeniedError):
            text = f"{where} refused access (403): this key may not use model {self.model}; check {API_KEY_ENV} and {MODEL_ENV}"
        elif isinstance(err, anthropic.NotFoundError):
            text = f"{where} does not know model '{self.model}' (404): set {MODEL_ENV} to a current model id"
        elif isinstance(err, anthropic.APITimeoutError):
            text = f"no answer from {where} in time after {attempt + 1} attempt(s); try again later"
        elif isinstance(err, anthropic.APIConnectionError):
            text = f"cannot reach {where} after {attempt + 1} attempt(s): check the network or {BASE_URL_ENV}"
        elif isinstance(err, anthropic.BadRequestError):
            text = (
                f"{where} rejected the request for model {self.model} (400 {_error_type(err)}): "
                f"{_error_message(err)}"
            )
        elif isinstance(err, anthropic.APIStatusError):
            asked = _retry_after_s(err)
            pause = (
                f" (it asks to wait {asked:.0f}s)" if asked and asked > MAX_RETRY_AFTER_S else ""
            )
            text = (
                f"{where} answered {err.status_code} {_error_type(err)}: {_error_message(err)}"
                f" after {attempt + 1} attempt(s){pause}; try again later"
            )
        else:
            text = f"{where} failed: {type(err).__name__}"
        return self._redact(text)

    def _redact(self, text: str) -> str:
        """No key, and no password of a credentialled ANTHROPIC_BASE_URL, in an error line."""
        return mask_credentials(text.replace(self._key, "[key]") if self._key else text)


def _reply_from_message(message: Any) -> LLMReply:
    data = message.model_dump(mode="json", exclude_none=True)
    content = [_plain_block(b) for b in data.get("content", [])]
    return LLMReply.from_dict({**data, "content": content})


def _plain_block(block: dict[str, Any]) -> dict[str, Any]:
    keep = {"tool_use": ("type", "id", "name", "input"), "text": ("type", "text")}
    fields = keep.get(str(block.get("type")), ("type",))
    return {k: block[k] for k in fields if k in block}


def _retryable(err: anthropic.APIError) -> bool:
    if isinstance(err, anthropic.APIConnectionError):
        return True  # includes APITimeoutError
    if isinstance(err, anthropic.APIStatusError):
        return (
            err.status_code in RETRYABLE_STATUS
            or err.status_code >= 500
            or (_error_type(err) in RETRYABLE_ERROR_TYPES)
        )
    return _error_type(err) in RETRYABLE_ERROR_TYPES  # an error event inside a stream


def _refused(err: anthropic.APIError) -> str | None:
    """The request feature a 400 names: forced tool use, structured outputs, or (not a refusal
    of the feature) the structured-outputs schema; None when it names none of them."""
    message = _error_message(err)
    if "format.schema" in message:
        return "schema"
    if "tool_choice" in message:
        return "tool_choice"
    if "output_config" in message or "output_format" in message:
        return "output_config"
    return None


def _retry_after_s(err: anthropic.APIError) -> float | None:
    response = getattr(err, "response", None)
    if response is None:
        return None
    for header, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        raw = response.headers.get(header)
        if raw is None:
            continue
        try:
            return max(0.0, float(raw) * scale)
        except ValueError:
            continue  # an HTTP date: fall back to our own backoff
    return None


def _error_body(err: anthropic.APIError) -> dict[str, Any]:
    body = err.body if isinstance(err.body, dict) else {}
    inner = body.get("error")
    return inner if isinstance(inner, dict) else body


def _error_type(err: anthropic.APIError) -> str:
    return str(_error_body(err).get("type") or "error")


def _error_message(err: anthropic.APIError) -> str:
    message = str(_error_body(err).get("message") or err.message)
    return " ".join(message.split())[:200]
