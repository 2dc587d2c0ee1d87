"""The footer's source list: every ingested article and every reading-list entry, once each."""

from __future__ import annotations

from dataclasses import dataclass

from pipeline.artifacts.sources import Corpus, normalize_url
from pipeline.plan.model import Plan
from pipeline.render.route import safe_url


@dataclass(frozen=True)
class SourceView:
    title: str
    url: str | None
    note: str


def source_views(plan: Plan, corpus: Corpus) -> list[SourceView]:
    """The footer's sources: every ingested article (linked when the plan cites it, since only
    those URLs go through the link check) and every reading-list entry."""
    cited = {c.source for concept in plan.concepts for c in concept.citations}
    out = [
        SourceView(s.title, safe_url(s.url) if s.id in cited else None, s.path)
        for s in corpus.sources
    ]
    seen = {normalize_url(v.url) for v in out if v.url}
    for e in corpus.reading_list:
        if normalize_url(e.url) not in seen:
            seen.add(normalize_url(e.url))
            out.append(SourceView(e.title, safe_url(e.url), ""))
    return out
