"""A fake Anthropic Messages API on 127.0.0.1 for tests: real HTTP, the real wire format.

Each test scripts the replies (`Reply`, built with `tool_reply`, `text_reply`, `error_reply`) and
reads back the requests the fake received. Replies follow the request's `stream` flag: a JSON
Message, or the SSE event sequence the SDK's stream accumulator expects.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

# SSE chunks of a tool input are cut this small so the SDK really reassembles partial JSON.
JSON_CHUNK_CHARS = 64


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
    raw_tool_json: str | None = None  # streamed instead of json.dumps(input): truncated output


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


def tool_reply(
    name: str,
    tool_input: Any,
    *,
    stop_reason: str = "tool_use",
    use: dict[str, int] | None = None,
    raw_tool_json: str | None = None,
) -> Reply:
    block = {"type": "tool_use", "id": "toolu_fake_1", "name": name, "input": tool_input}
    return Reply(message=_message([block], stop_reason, use), raw_tool_json=raw_tool_json)


def text_reply(
    text: str, *, stop_reason: str = "end_turn", use: dict[str, int] | None = None
) -> Reply:
    return Reply(message=_message([{"type": "text", "text": text}], stop_reason, use))


def error_reply(
    status: int, error_type: str, message: str, headers: dict[str, str] | None = None
) -> Reply:
    return Reply(
        status=status, error={"type": error_type, "message": message}, headers=headers or {}
    )


class FakeAnthropic:
    """Start with `with FakeAnthropic() as fake:`; set `fake.replies` / `fake.count_tokens`."""

    def __init__(self) -> None:
        self.replies: list[Reply] = []
        self.count_tokens: int | Reply | None = None  # None: a rough estimate of the body
        self.requests: list[Recorded] = []
        self._lock = threading.Lock()
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
        self._server.shutdown()
        self._server.server_close()

    def _next(self, path: str, body: dict[str, Any]) -> Reply:
        with self._lock:
            if path.endswith("/count_tokens"):
                if isinstance(self.count_tokens, Reply):
                    return self.count_tokens
                n = (
                    self.count_tokens
                    if self.count_tokens is not None
                    else len(json.dumps(body)) // 4
                )
                return Reply(message={"input_tokens": n})
            if not self.replies:
                return error_reply(500, "api_error", "fake: no scripted reply left")
            return self.replies.pop(0)

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
                try:
                    if reply.error is not None:
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
                data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
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
                    self.wfile.write(
                        f"event: {event['type']}\ndata: {json.dumps(event, ensure_ascii=False)}\n\n".encode()
                    )
                    self.wfile.flush()

        return Handler


def _sse_events(reply: Reply) -> list[dict[str, Any]]:
    msg = dict(reply.message or {})
    use = dict(msg.get("usage") or usage())
    start = {**msg, "content": [], "stop_reason": None, "usage": {**use, "output_tokens": 1}}
    events: list[dict[str, Any]] = [{"type": "message_start", "message": start}]
    for i, block in enumerate(msg.get("content") or []):
        if block["type"] == "tool_use":
            events.append(
                {"type": "content_block_start", "index": i, "content_block": {**block, "input": {}}}
            )
            text = (
                reply.raw_tool_json
                if reply.raw_tool_json is not None
                else json.dumps(block["input"], ensure_ascii=False)
            )
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
