"""The learning route: each stop's reading minutes (from the link check's word count, a saved
copy, or the reading list) and its link verdict (verified, unverified, bad), ready for the page.

Links come as the typed `LinkReport` (`None` means "not checked"); a verified link is
`LinkResult.verified`, defined once with the report.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from pipeline.artifacts.links import UNVERIFIED_STATUSES, LinkReport, LinkResult
from pipeline.artifacts.sources import Corpus, Source, normalize_url
from pipeline.plan.model import Plan, RouteStop
from pipeline.urls import without_credentials

# Reading speeds behind the route's minutes; the rule is printed on the page next to them.
ENGLISH_WORDS_PER_MINUTE = 200
CHINESE_CHARS_PER_MINUTE = 300
SAVED_PAGE_KINDS = frozenset({"html", "pdf"})
SAFE_URL = re.compile(r"^https?://[^\s\"'<>]+$", re.IGNORECASE)


def safe_url(url: str | None) -> str | None:
    """The URL if it is plain http(s) (no javascript:, data:, quotes or spaces), else None;
    never with credentials (`user:password@` is dropped: the plan refuses them, and the corpus
    strips them, so this is the last guard before an href)."""
    if url and SAFE_URL.match(url.strip()):
        return without_credentials(url.strip())
    return None


@dataclass(frozen=True)
class RouteView:
    """One stop of the learning route, ready for the template."""

    number: int
    title: str
    why: str
    url: str | None
    minutes: int | None
    counted: str  # the rate the minutes were counted at: "zh" (characters), "en" (words), ""
    verdict: str  # "verified" | "unverified" | "bad"
    checked: str  # ISO date of the check, "" when unchecked


def _link_result(links: LinkReport | None, url: str) -> LinkResult | None:
    return links.for_url(url) if links is not None else None


def _matching_source(corpus: Corpus, url: str) -> Source | None:
    """An ingested saved copy of the page: the one ingest matched to its reading-list entry (by
    URL or title, any kind), else an HTML/PDF with its URL. A Markdown or text note whose front
    matter names the URL is a note ABOUT the page: its length says nothing of the page's."""
    key = normalize_url(url)
    for entry in corpus.reading_list:
        if entry.matched_source and entry.url and normalize_url(entry.url) == key:
            return corpus.source(entry.matched_source)
    return next(
        (
            s
            for s in corpus.sources
            if s.url and s.kind in SAVED_PAGE_KINDS and normalize_url(s.url) == key
        ),
        None,
    )


def reading_minutes(url: str, corpus: Corpus, links: LinkReport | None) -> int | None:
    """Minutes from the source's length: the link check's word count, else an ingested saved
    copy's length, else the reading list's `words`; None when the length is unknown."""
    return reading_time(url, corpus, links)[0]


def _minutes(count: int, per_minute: int) -> int:
    return max(1, math.ceil(count / per_minute))


def reading_time(url: str, corpus: Corpus, links: LinkReport | None) -> tuple[int | None, str]:
    """`reading_minutes` with the rate it counted at ("zh": characters, "en": words, "" when
    unknown), so the page states only the rates its minutes use."""
    result = _link_result(links, url)
    words = result.words if result is not None else None
    if words is not None and words > 0:
        return _minutes(words, ENGLISH_WORDS_PER_MINUTE), "en"
    source = _matching_source(corpus, url)
    if source is not None:
        if source.lang.startswith("zh") and source.chars > 0:
            return _minutes(source.chars, CHINESE_CHARS_PER_MINUTE), "zh"
        if source.words > 0:
            return _minutes(source.words, ENGLISH_WORDS_PER_MINUTE), "en"
    key = normalize_url(url)
    entry = next((e for e in corpus.reading_list if e.url and normalize_url(e.url) == key), None)
    if entry is not None and entry.words:
        return _minutes(entry.words, ENGLISH_WORDS_PER_MINUTE), "en"
    return None, ""


def _verdict(links: LinkReport | None, url: str) -> tuple[str, str]:
    result = _link_result(links, url)
    if result is None:
        return "unverified", ""
    checked = result.checked_at.date().isoformat()
    if result.verified:
        return "verified", checked
    if result.status in UNVERIFIED_STATUSES:
        return "unverified", ""
    return "bad", checked


def route_views(plan: Plan, corpus: Corpus, links: LinkReport | None) -> list[RouteView]:
    return [_route_view(i, stop, corpus, links) for i, stop in enumerate(plan.route)]


def _route_view(i: int, stop: RouteStop, corpus: Corpus, links: LinkReport | None) -> RouteView:
    verdict, checked = _verdict(links, stop.url)
    minutes, counted = reading_time(stop.url, corpus, links)
    return RouteView(
        number=i + 1,
        title=stop.title,
        why=stop.why,
        url=safe_url(stop.url),
        minutes=minutes,
        counted=counted,
        verdict=verdict,
        checked=checked,
    )
