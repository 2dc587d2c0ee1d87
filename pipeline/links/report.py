"""The link report (`links.json`): settings, targets, results, and storing them. The checker that
fills it is `pipeline.links.check` (fetching through `pipeline.links.fetch`, the only module that
imports httpx)."""

from __future__ import annotations

import hashlib
import json
from datetime import datetime, timedelta
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from pipeline import __version__
from pipeline.artifacts.links import (
    LinkResult,
    LinkTarget,
    link_key,
    load_report,
)
from pipeline.artifacts.sources import Corpus, normalize_url
from pipeline.errors import InputError
from pipeline.plan.model import Plan

DEFAULT_USER_AGENT = f"tujie-linkcheck/{__version__} (+local)"
ACCEPT_HEADER = "text/html,application/xhtml+xml,application/pdf;q=0.9,*/*;q=0.5"
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
# Results worth reusing from the cache: they describe the page, not a passing network mood.
CACHEABLE = frozenset({"ok", "redirected-ok", "mismatch", "soft-404"})
PROBE_PREFIX = "tujie-no-such-page-"

class LinkSettings(BaseModel):
    """Every limit of the checker, each with its default."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    global_concurrency: int = 32
    per_host_concurrency: int = 4
    per_host_spacing: float = Field(
        default=0.05, description="seconds between request starts, per host"
    )
    connect_timeout: float = 5.0
    read_timeout: float = 10.0
    request_deadline: float = Field(default=30.0, description="whole request incl. body, seconds")
    dns_timeout: float = 3.0
    retries: int = 2
    backoff_base: float = 0.5
    backoff_max: float = 8.0
    max_retry_after: float = Field(
        default=10.0, description="cap on a server's Retry-After, seconds"
    )
    max_body_bytes: int = 2_000_000
    max_pdf_bytes: int = 20_000_000
    accepted_statuses: frozenset[int] = frozenset({200, 203, 206})
    retry_statuses: frozenset[int] = frozenset({429, 502, 503, 504})
    max_redirects: int = 10
    max_cache_age: float = Field(default=7 * 24 * 3600.0, description="seconds")
    head_first: bool = Field(
        default=False, description="HEAD before GET; GET is needed for titles anyway"
    )
    soft404_probe: bool = True
    offline_after_failures: int = Field(
        default=2, description="unreachable public hosts => offline"
    )
    user_agent: str = DEFAULT_USER_AGENT


DEFAULT_LINK_SETTINGS = LinkSettings()


# ---------------------------------------------------------------------------------------------
# Targets


def collect_targets(plan: Plan | None, corpus: Corpus) -> list[LinkTarget]:
    """Route stops, reading list, canonical URLs of cited sources (all sources without a plan).

    The claimed title is the sources' own (reading list, then article title) when the URL is
    there, since the plan's wording may be a translation; the route's title otherwise.
    """
    known: dict[str, str] = {}
    for s in corpus.sources:
        if s.url:
            known.setdefault(normalize_url(s.url), s.title)
    listed = [(i, e.url, e) for i, e in enumerate(corpus.reading_list) if e.url]  # cut short: none
    for _, url, e in listed:
        known[normalize_url(url)] = e.title
    found: dict[str, tuple[str, str, list[str]]] = {}

    def add(url: str, title: str, where: str) -> None:
        k = link_key(url)
        if k in found:
            found[k][2].append(where)
        else:
            found[k] = (url.strip(), known.get(normalize_url(url), title), [where])

    if plan is not None:
        for i, stop in enumerate(plan.route):
            add(stop.url, stop.title, f"route[{i}]")
    for i, url, e in listed:
        add(url, e.title, f"reading-list[{i}]")
    if plan is not None:
        for i, c in enumerate(plan.concepts):
            for cit in c.citations:
                src = corpus.source(cit.source)
                if src is not None and src.url:
                    add(src.url, src.title, f"citation:concepts[{i}]")
    else:
        for s in corpus.sources:
            if s.url:
                add(s.url, s.title, f"source:{s.id}")
    return [
        LinkTarget(url=url, claimed_title=title, where=", ".join(dict.fromkeys(wheres)))
        for url, title, wheres in found.values()
    ]


def verdict_options(settings: LinkSettings, allow_private: bool) -> str:
    """A key of every option that can change a verdict: the limits and whether private hosts
    may be reached. Cached results are reused only by a run with the same key."""
    options = {"allow_private": allow_private, "settings": settings.model_dump(mode="json")}
    return hashlib.sha256(json.dumps(options, sort_keys=True).encode()).hexdigest()[:16]


def _cached(
    path: Path | None, settings: LinkSettings, now: datetime, options: str
) -> dict[tuple[str, str], LinkResult]:
    if path is None or not path.exists():
        return {}
    try:
        old = load_report(path)
    except InputError:
        return {}  # a broken cache is just no cache: everything is checked again
    if old.options != options:
        return {}  # made under other options (e.g. --allow-private): its verdicts do not carry
    fresh = now - timedelta(seconds=settings.max_cache_age)
    return {
        (r.url, r.claimed_title): r
        for r in old.results
        if r.status in CACHEABLE and r.checked_at > fresh
    }
