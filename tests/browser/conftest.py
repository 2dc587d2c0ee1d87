"""Fixtures for the browser tests: one real headless Chromium per test module, and a helper that
writes a small page following templates/MARKUP.md (clean unless a test breaks it on purpose)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pipeline.check.browser import Chrome

STYLE = """
body { font-family: sans-serif; margin: 16px; color: #111; background: #fff; }
[data-theme="dark"] body { color: #eee; background: #111; }
.card { border: 2px solid currentColor; padding: 16px; margin: 16px 0; max-width: 440px; }
svg.panel { width: 100%; max-width: 400px; height: auto; display: block; }
svg text { fill: currentColor; font-size: 16px; }
"""


def page_html(body: str, *, head: str = "", csp: bool = True) -> str:
    policy = (
        '<meta http-equiv="Content-Security-Policy" '
        "content=\"default-src 'none'; style-src 'unsafe-inline'; font-src data:\">"
        if csp
        else ""
    )
    return (
        '<!doctype html><html lang="zh" data-theme="light"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">{policy}'
        f"<title>test page</title><style>{STYLE}</style>{head}</head>"
        f"<body><main><h1>测试页</h1>{body}</main></body></html>"
    )


def panel(concept: str, words: str, *, inset: int = 12, title: bool = True) -> str:
    """A comic panel (viewBox 400x260) holding the given <text> elements."""
    heading = "<title>panel</title><desc>a test panel</desc>" if title else ""
    return (
        f'<svg class="panel" id="panel-{concept}-trouble" data-panel="{concept}/trouble" '
        f'data-inset="{inset}" role="img" viewBox="0 0 400 260">{heading}'
        '<g class="ink"><rect x="2" y="2" width="396" height="256" fill="none" '
        f'stroke="currentColor"/></g><g class="words">{words}</g></svg>'
    )


def card(concept: str, inner: str) -> str:
    return f'<article class="card" id="card-{concept}" data-card="{concept}">{inner}</article>'


@pytest.fixture(scope="module")
def chrome() -> Iterator[Chrome]:
    with Chrome() as browser:
        yield browser


@pytest.fixture
def write_page(tmp_path: Path):  # type: ignore[no-untyped-def]
    def write(html: str, name: str = "index.html") -> Path:
        path = tmp_path / name
        path.write_text(html, encoding="utf-8")
        return path

    return write
