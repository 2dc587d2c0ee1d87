"""Local HTTP sites on 127.0.0.1 for the link checker tests and benchmark: routes by path, a log."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from pipeline.artifacts.sources import Corpus, ReadingListEntry

POLL_SECONDS = 0.05  # how fast a stopped site notices; keeps fixture teardown quick
Route = Callable[[BaseHTTPRequestHandler], None]


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]


@dataclass
class Site:
    """One local server (one 'host'): routes by path, a log of what it was asked."""

    routes: dict[str, Route] = field(default_factory=dict)
    fallback: Route | None = None  # answers every path not in routes (else a plain 404)
    seen: list[Seen] = field(default_factory=list)
    port: int = 0
    in_flight: int = 0
    max_in_flight: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def paths(self) -> list[str]:
        return [s.path for s in self.seen]


def send(
    h: BaseHTTPRequestHandler,
    status: int,
    body: bytes = b"",
    ctype: str = "text/html; charset=utf-8",
    headers: dict[str, str] | None = None,
) -> None:
    h.send_response(status)
    h.send_header("Content-Type", ctype)
    h.send_header("Content-Length", str(len(body)))
    for k, v in (headers or {}).items():
        h.send_header(k, v)
    h.end_headers()
    if h.command != "HEAD":
        h.wfile.write(body)


def page(title: str, text: str = "Some words of the article body.", extra: str = "") -> bytes:
    return (
        f"<!doctype html><html><head><title>{title}</title></head>"
        f"<body><h1>{title}</h1><p>{text}</p>{extra}</body></html>"
    ).encode()


def html(title: str, text: str = "Some words of the article body.", extra: str = "") -> Route:
    return lambda h: send(h, 200, page(title, text, extra))


def status(code: int, headers: dict[str, str] | None = None) -> Route:
    return lambda h: send(h, code, page(f"{code}"), headers=headers)


def redirect(to: str, code: int = 301) -> Route:
    return lambda h: send(h, code, b"", headers={"Location": to})


def _handler(site: Site) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002
            pass  # quiet tests

        def _serve(self) -> None:
            with site.lock:
                site.seen.append(Seen(self.command, self.path, dict(self.headers.items())))
                site.in_flight += 1
                site.max_in_flight = max(site.max_in_flight, site.in_flight)
            try:
                route = site.routes.get(self.path, site.fallback)
                if route is None:
                    send(self, 404, page("Not Found"))
                else:
                    route(self)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client stopped reading on purpose (body cap, timeout)
            finally:
                with site.lock:
                    site.in_flight -= 1

        do_GET = _serve
        do_HEAD = _serve

    return Handler


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: object, client_address: object) -> None:
        pass  # clients hang up on purpose (body cap, timeouts); no traceback noise


def start_site() -> tuple[Site, Callable[[], None]]:
    """Start one site on a free port; returns it and the function that stops it."""
    site = Site()
    server = _QuietServer(("127.0.0.1", 0), _handler(site))
    server.daemon_threads = True
    site.port = server.server_address[1]
    threading.Thread(target=server.serve_forever, args=(POLL_SECONDS,), daemon=True).start()

    def stop() -> None:
        server.shutdown()
        server.server_close()

    return site, stop


def corpus_of(*entries: tuple[str, str]) -> Corpus:
    """A corpus whose reading list holds (title, url) pairs: what makes URLs 'from the sources'."""
    return Corpus(
        folder="tests",
        reading_list=[ReadingListEntry(title=t, url=u) for t, u in entries],
    )


def slow(seconds: float, then: Route) -> Route:
    def route(h: BaseHTTPRequestHandler) -> None:
        time.sleep(seconds)
        then(h)

    return route
