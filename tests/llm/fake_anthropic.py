"""A fake Anthropic Messages API on 127.0.0.1 for tests: real HTTP, the real wire format.

Each test scripts the replies (`Reply`, built with `plan_reply`, `text_reply`, `error_reply`) and reads back the requests the fake received. Replies follow the request's
`stream` flag: a JSON Message, or the SSE event sequence the SDK's stream accumulator expects.

The fake plays models (`FakeAnthropic.models`, by model id; an id not listed accepts anything):
- `CURRENT_SONNET` (`REJECTS_FORCED_TOOLS`): like the current Sonnet, answers a forced tool call
  or a non-default sampling parameter with a 400, thinks before it answers;
- `NO_STRUCTURED_MODEL` (`NO_STRUCTURED_OUTPUTS`): answers `output_config.format` with a 400;
- a profile with `answer=` (see `rule_breaker`): answers that plan whenever no reply is scripted,
  e.g. a schema-valid plan that breaks the page rules, so the repair loop runs.
A structured-outputs request is checked like the API does (the schema subset, the limits on
optional and union-typed parameters), and the answer it gets must match the schema it sent.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import jsonschema

# SSE chunks of a tool input are cut this small so the SDK really reassembles partial JSON.
JSON_CHUNK_CHARS = 64
# A stream that pings forever sends one `ping` event this often: far inside any read timeout.
PING_EVERY_S = 0.05
RAW_KEY = "$raw"  # a tool input {RAW_KEY: text} is sent as `text` itself


# The key the tests give the SDK: it must never appear in output, caches or errors.
TEST_KEY = "sk-ant-test-SECRET-0123456789"


@dataclass
class Reply:
    """One scripted answer: a Message (status 200) or an error body with a status code."""

    status: int = 200
    message: dict[str, Any] | None = None
    error: dict[str, str] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    answer: Any = None  # with `message` None: this JSON, in the form the request asks for
    stop_reason: str = "end_turn"
    usage: dict[str, int] | None = None
    # Misbehaviours. `raw_answer`: this JSON text as the answer, sent as it is (a reply nested
    # 100,000 deep, which `json.dumps` could not write). `hang`: accept the request and never
    # answer. `pings_forever`: start the stream, then send only `ping` events. Both last until
    # the fake shuts down (the client must give up first).
    raw_answer: str | None = None
    hang: bool = False
    pings_forever: bool = False


@dataclass(frozen=True)
class ModelProfile:
    """What one fake model accepts, and what it answers when no reply is scripted."""

    forced_tool_use: bool = True
    structured_outputs: bool = True
    sampling_params: bool = True
    thinks: bool = False  # a thinking block before the answer (adaptive thinking)
    answer: Any = None


CURRENT_SONNET = "claude-sonnet-5-5"
NO_STRUCTURED_MODEL = "claude-opus-4-1"
REJECTS_FORCED_TOOLS = ModelProfile(forced_tool_use=False, sampling_params=False, thinks=True)
NO_STRUCTURED_OUTPUTS = ModelProfile(structured_outputs=False)
# The API's own words (https://github.com/anomalyco/opencode/issues/46735, and for
# output_config https://github.com/anomalyco/models.dev/pull/1765); the sampling one is ours.
FORCED_TOOL_ERROR = 'tool_choice: type "tool" and "any" are not supported for this model.'
NO_STRUCTURED_ERROR = "output_config.format: Extra inputs are not permitted"
SAMPLING_ERROR = "{}: non-default sampling parameters are not supported for this model"
SAMPLING_PARAMS = ("temperature", "top_p", "top_k")
# Structured outputs: the keywords a schema node may carry, and the documented limits.
SCHEMA_KEYWORDS = {
    "type", "properties", "required", "additionalProperties", "items", "anyOf", "allOf",
    "enum", "const", "description", "title", "$ref", "$defs", "format", "minItems",
}  # fmt: skip
MAX_OPTIONAL, MAX_UNION = 24, 16


def rule_breaker(plan: dict[str, Any]) -> ModelProfile:
    """The current Sonnet, answering `plan` (schema-valid, against the page rules) every time."""
    return replace(REJECTS_FORCED_TOOLS, answer=plan)


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


def usage(
    input_tokens: int = 1200, output_tokens: int = 900, cache_write: int = 1000, cache_read: int = 0
) -> dict[str, int]:
    return {
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "cache_creation_input_tokens": cache_write,
        "cache_read_input_tokens": cache_read,
    }


def _message(
    content: list[dict[str, Any]], stop_reason: str, use: dict[str, int] | None
) -> dict[str, Any]:
    return {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": "fake-model",
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": use or usage(),
    }


def text_reply(
    text: str, *, stop_reason: str = "end_turn", use: dict[str, int] | None = None
) -> Reply:
    return Reply(message=_message([{"type": "text", "text": text}], stop_reason, use))


def plan_reply(
    answer: Any, *, stop_reason: str = "end_turn", use: dict[str, int] | None = None
) -> Reply:
    """`answer` as the request asks for it: the JSON text of a structured-outputs reply, or the
    input of a call to the request's tool (stop reason "tool_use")."""
    return Reply(answer=answer, stop_reason=stop_reason, usage=use)


def error_reply(
    status: int, error_type: str, message: str, headers: dict[str, str] | None = None
) -> Reply:
    return Reply(
        status=status, error={"type": error_type, "message": message}, headers=headers or {}
    )


class FakeAnthropic:
    """Start with `with FakeAnthropic() as fake:`; set `fake.replies` / `fake.count_tokens`,
    and `fake.models` to change what a model id accepts or answers."""

    def __init__(self) -> None:
        self.replies: list[Reply] = []
        self.models: dict[str, ModelProfile] = {
            CURRENT_SONNET: REJECTS_FORCED_TOOLS,
            NO_STRUCTURED_MODEL: NO_STRUCTURED_OUTPUTS,
        }
        self.count_tokens: int | Reply | None = None  # None: a rough estimate of the body
        self.requests: list[Recorded] = []
        self._lock = threading.Lock()
        self._closing = threading.Event()  # set on exit: hanging and pinging replies end
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        # A short poll interval keeps shutdown (once per test) fast.
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def messages(self) -> list[Recorded]:
        """Requests to /v1/messages (not the token counter)."""
        return [r for r in self.requests if r.path == "/v1/messages"]

    def __enter__(self) -> FakeAnthropic:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._closing.set()
        self._server.shutdown()
        self._server.server_close()

    def _next(self, path: str, body: dict[str, Any]) -> Reply:
        with self._lock:
            profile = self.models.get(str(body.get("model")), ModelProfile())
            refused = _refusal(profile, body)
            if refused is not None:
                return refused  # the model never saw the request: no scripted reply is used
            if path.endswith("/count_tokens"):
                if isinstance(self.count_tokens, Reply):
                    return self.count_tokens
                n = (
                    self.count_tokens
                    if self.count_tokens is not None
                    else len(json.dumps(body)) // 4
                )
                return Reply(message={"input_tokens": n})
            if self.replies:
                reply = self.replies.pop(0)
            elif profile.answer is not None:
                reply = plan_reply(profile.answer)
            else:
                return error_reply(500, "api_error", "fake: no scripted reply left")
            if reply.error is not None or reply.message is not None or reply.hang or reply.pings_forever:
                return reply
            return _answer(reply, body, profile.thinks)

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                path = self.path.split("?", 1)[0]
                with fake._lock:
                    fake.requests.append(
                        Recorded(path, {k.lower(): v for k, v in self.headers.items()}, body)
                    )
                reply = fake._next(path, body)
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                if reply.hang:
                    fake._closing.wait()  # accepted, never answered
                    return
                try:
                    if reply.pings_forever:
                        self._send_pings()
                    elif reply.error is not None:
                        self._send_json(
                            reply.status, {"type": "error", "error": reply.error}, reply.headers
                        )
                    elif body.get("stream") and path == "/v1/messages":
                        self._send_sse(reply)
                    else:
                        self._send_json(reply.status, reply.message or {}, reply.headers)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout test)

            def _send_json(
                self, status: int, payload: dict[str, Any], headers: dict[str, str]
            ) -> None:
                data = _dumps_raw(payload).encode("utf-8")
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.send_header("request-id", "req_fake")
                for k, v in headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

            def _send_sse(self, reply: Reply) -> None:
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("cache-control", "no-cache")
                self.end_headers()
                for event in _sse_events(reply):
                    self._send_event(event)

            def _send_event(self, event: dict[str, Any]) -> None:
                data = _dumps_raw(event)
                self.wfile.write(f"event: {event['type']}\ndata: {data}\n\n".encode())
                self.wfile.flush()

            def _send_pings(self) -> None:
                """A stream that starts and then only keeps itself alive."""
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.end_headers()
                start = _message([], "end_turn", None) | {"stop_reason": None}
                self._send_event({"type": "message_start", "message": start})
                while not fake._closing.wait(PING_EVERY_S):
                    self._send_event({"type": "ping"})

        return Handler


def _refusal(profile: ModelProfile, body: dict[str, Any]) -> Reply | None:
    """The 400 the API gives for a request this model does not accept, or None."""
    if not profile.forced_tool_use and (body.get("tool_choice") or {}).get("type") in (
        "tool",
        "any",
    ):
        return error_reply(400, "invalid_request_error", FORCED_TOOL_ERROR)
    for param in SAMPLING_PARAMS:
        if not profile.sampling_params and param in body:
            return error_reply(400, "invalid_request_error", SAMPLING_ERROR.format(param))
    fmt = (body.get("output_config") or {}).get("format")
    if fmt is None:
        return None
    if not profile.structured_outputs:
        return error_reply(400, "invalid_request_error", NO_STRUCTURED_ERROR)
    problem = schema_problem(fmt.get("schema") or {})
    return None if problem is None else error_reply(400, "invalid_request_error", problem)


def schema_problem(schema: dict[str, Any]) -> str | None:
    """Why structured outputs would refuse `schema` (its subset and complexity limits)."""
    where = "output_config.format.schema"
    optional = unions = 0
    stack: list[Any] = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
            continue
        if not isinstance(node, dict):
            continue
        extra = sorted(set(node) - SCHEMA_KEYWORDS)
        if extra or node.get("minItems", 0) > 1:
            found = ", ".join(extra) or "minItems"
            return f"{where}: For '{node.get('type')}' type, properties {found} are not supported"
        props = node.get("properties", {})
        if node.get("type") == "object" and node.get("additionalProperties") is not False:
            return f"{where}: For 'object' type, 'additionalProperties' must be explicitly set to false"
        optional += len(set(props) - set(node.get("required", [])))
        unions += sum(1 for v in props.values() if "anyOf" in v or isinstance(v.get("type"), list))
        stack += [*props.values(), *node.get("$defs", {}).values()]
        stack += [node[k] for k in ("items", "anyOf", "allOf") if k in node]
    if unions > MAX_UNION:
        return (
            f"Schemas contains too many parameters with union types ({unions}, limit: {MAX_UNION})"
        )
    if optional > MAX_OPTIONAL:
        return f"Schemas contains too many optional parameters ({optional}, limit: {MAX_OPTIONAL})"
    return None


def with_defaults(answer: Any, schema: dict[str, Any]) -> Any:
    """`answer` as a model under structured outputs sends it: a property the schema requires but
    the script leaves out comes as its empty value (null where allowed, [], "", false, 0), as a
    strict grammar forces it (what `pipeline.plan.structured.output_schema` relies on)."""
    defs = schema.get("$defs", {})

    def resolve(node: dict[str, Any]) -> dict[str, Any]:
        ref = node.get("$ref", "")
        return resolve(defs[ref.removeprefix("#/$defs/")]) if ref.startswith("#/$defs/") else node

    def empty(node: dict[str, Any]) -> Any:
        node = resolve(node)
        options = node.get("anyOf", [node])
        types = [resolve(o).get("type") for o in options]
        for kind, value in (("null", None), ("array", []), ("string", ""), ("boolean", False),
                            ("number", 0), ("integer", 0)):
            if kind in types:
                return value
        return None

    def fill(value: Any, node: dict[str, Any]) -> Any:
        node = resolve(node)
        if isinstance(value, dict) and node.get("type") == "object":
            props = node.get("properties", {})
            out = {k: fill(v, props[k]) if k in props else v for k, v in value.items()}
            for key in node.get("required", []):
                if key not in out and key in props:
                    out[key] = empty(props[key])
            return out
        if isinstance(value, list) and "items" in node:
            return [fill(v, node["items"]) for v in value]
        if "anyOf" in node and value is not None:
            kinds = [resolve(o) for o in node["anyOf"]]
            match = next((k for k in kinds if k.get("type") == "object" and isinstance(value, dict)),
                         None)
            return fill(value, match) if match is not None else value
        return value

    return fill(answer, schema)


def _answer(reply: Reply, body: dict[str, Any], thinks: bool) -> Reply:
    """`reply.answer` in the form `body` asks for: structured-outputs JSON text (checked against
    the schema sent), a call to the request's first tool, or plain text."""
    fmt = (body.get("output_config") or {}).get("format")
    blocks: list[dict[str, Any]] = []
    if thinks:
        blocks.append({"type": "thinking", "thinking": "Plan the page.", "signature": "sig-fake"})
    stop = reply.stop_reason
    if reply.raw_answer is not None:
        if body.get("tools") and fmt is None:
            block = {"type": "tool_use", "id": "toolu_fake_1", "name": body["tools"][0]["name"]}
            blocks.append(block | {"input": {RAW_KEY: reply.raw_answer}})
            stop = "tool_use" if stop == "end_turn" else stop
        else:
            blocks.append({"type": "text", "text": reply.raw_answer})
    elif fmt is not None:
        answer = with_defaults(reply.answer, fmt["schema"])
        reply = replace(reply, answer=answer)
        try:
            jsonschema.validate(reply.answer, fmt["schema"])
        except jsonschema.ValidationError as err:
            return error_reply(
                500, "api_error", f"fake: the scripted answer breaks the schema: {err.message}"
            )
        blocks.append({"type": "text", "text": json.dumps(reply.answer, ensure_ascii=False)})
    elif body.get("tools"):
        name = body["tools"][0]["name"]
        blocks.append(
            {"type": "tool_use", "id": "toolu_fake_1", "name": name, "input": reply.answer}
        )
        stop = "tool_use" if stop == "end_turn" else stop
    else:
        blocks.append({"type": "text", "text": json.dumps(reply.answer, ensure_ascii=False)})
    return replace(reply, message=_message(blocks, stop, reply.usage))


def _sse_events(reply: Reply) -> list[dict[str, Any]]:
    msg = dict(reply.message or {})
    use = dict(msg.get("usage") or usage())
    start = {**msg, "content": [], "stop_reason": None, "usage": {**use, "output_tokens": 1}}
    events: list[dict[str, Any]] = [{"type": "message_start", "message": start}]
    for i, block in enumerate(msg.get("content") or []):
        if block["type"] == "thinking":
            start_block = {"type": "thinking", "thinking": "", "signature": ""}
            events.append({"type": "content_block_start", "index": i, "content_block": start_block})
            for delta in (
                {"type": "thinking_delta", "thinking": block["thinking"]},
                {"type": "signature_delta", "signature": block["signature"]},
            ):
                events.append({"type": "content_block_delta", "index": i, "delta": delta})
        elif block["type"] == "tool_use":
            events.append(
                {"type": "content_block_start", "index": i, "content_block": {**block, "input": {}}}
            )
            text = _dumps_raw(block["input"])
            for k in range(0, len(text), JSON_CHUNK_CHARS):
                events.append(
                    {
                        "type": "content_block_delta",
                        "index": i,
                        "delta": {
                            "type": "input_json_delta",
                            "partial_json": text[k : k + JSON_CHUNK_CHARS],
                        },
                    }
                )
        else:
            events.append(
                {
                    "type": "content_block_start",
                    "index": i,
                    "content_block": {"type": "text", "text": ""},
                }
            )
            events.append(
                {
                    "type": "content_block_delta",
                    "index": i,
                    "delta": {"type": "text_delta", "text": block["text"]},
                }
            )
        events.append({"type": "content_block_stop", "index": i})
    events.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": msg.get("stop_reason"), "stop_sequence": None},
            "usage": {"output_tokens": use["output_tokens"]},
        }
    )
    events.append({"type": "message_stop"})
    return events


def _dumps_raw(payload: Any) -> str:
    """`json.dumps`, with every tool input {RAW_KEY: text} replaced by `text` itself."""
    raws: list[str] = []

    def park(node: Any) -> Any:
        if isinstance(node, dict):
            if set(node) == {RAW_KEY}:
                raws.append(str(node[RAW_KEY]))
                return f"\x00raw{len(raws) - 1}\x00"
            return {k: park(v) for k, v in node.items()}
        if isinstance(node, list):
            return [park(v) for v in node]
        return node

    text = json.dumps(park(payload), ensure_ascii=False)
    for i, raw in enumerate(raws):
        text = text.replace(json.dumps(f"\x00raw{i}\x00"), raw)
    return text
