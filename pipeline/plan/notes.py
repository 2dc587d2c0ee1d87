"""The notes path for large corpora: each source condensed into notes (concepts and verbatim
quotes, only those really in the source kept), rendered as the corpus block of the plan request."""

from __future__ import annotations

from functools import partial
from typing import Any

from pipeline.artifacts.sources import Corpus, Source
from pipeline.plan.llm import LLMRequest
from pipeline.plan.pricing import forecast_line
from pipeline.plan.prompting import estimate_tokens, render_prompt
from pipeline.plan.session import PLAN_MAX_TOKENS, Session
from pipeline.plan.structured import Answer, Mode

NOTES_TOOL = "record_notes"
NOTES_MAX_TOKENS = 4_096
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
NOTES_ANSWER = Answer(NOTES_TOOL, "Record the notes of one article.", NOTES_SCHEMA)


def notes_corpus(
    session: Session, corpus: Corpus, lang: str, budget: int, plan_calls: int = 1
) -> str:
    """Condense each source into notes (concepts + verbatim quotes), keeping only quotes that
    really are in the source, and render them as the corpus block of the plan request.

    One call per source: before the first, the calls not answered from the cache (and the
    `plan_calls` the plan will take after them) are counted and priced, and the run is refused
    over the session's cap (`Session.allow`)."""
    asks = [
        partial(
            _notes_request,
            source=source,
            paragraphs=paragraphs,
            truncated=truncated,
            lang=lang,
            forced_tool_use=session.caps.forced_tool_use,
        )
        for source in corpus.sources
        for paragraphs, truncated in [_fit(source, budget)]
    ]
    _allow_notes_run(session, [ask(session.mode) for ask in asks], budget, plan_calls)
    notes = []
    for source, ask in zip(corpus.sources, asks, strict=True):
        raw = session.read_answer(NOTES_ANSWER, session.ask(ask))
        notes.append({"source": source, "text": _notes_text(corpus, source, raw)})
    return render_prompt("notes_corpus.j2", notes=notes, reading_list=corpus.reading_list)


def _allow_notes_run(
    session: Session, requests: list[LLMRequest], budget: int, plan_calls: int
) -> None:
    paid = [r for r in requests if not session.has_answer(r)]
    calls = [(_request_tokens(r), r.max_tokens) for r in paid]
    calls += [(budget, PLAN_MAX_TOKENS)] * plan_calls
    what = f"{len(paid):,} notes, one per article not answered before, + up to {plan_calls} for the plan"
    session.allow(len(calls), what, forecast_line(session.client.model, calls))


def _request_tokens(request: LLMRequest) -> int:
    texts = [request.system] + [
        str(block.get("text", "")) for m in request.messages for block in m["content"]
    ]
    return sum(estimate_tokens(t) for t in texts)


def _notes_request(
    mode: Mode,
    *,
    source: Source,
    paragraphs: list[Any],
    truncated: bool,
    lang: str,
    forced_tool_use: bool,
) -> LLMRequest:
    tool_name = NOTES_TOOL if mode == "tool" else None
    task = render_prompt(
        "notes_task.j2",
        tool_name=tool_name,
        source=source,
        paragraphs=paragraphs,
        truncated=truncated,
    )
    block = {"type": "text", "text": task, "cache_control": {"type": "ephemeral"}}
    return LLMRequest(
        system=render_prompt("notes_system.j2", tool_name=tool_name, lang=lang),
        max_tokens=NOTES_MAX_TOKENS,
        messages=[{"role": "user", "content": [block]}],
        **NOTES_ANSWER.request_fields(mode, forced_tool_use),
    )


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
