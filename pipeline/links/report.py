"""The link report (`links.json`): settings, targets, results, and storing them. The checker that
fills it is `pipeline.links.check` (fetching through `pipeline.links.fetch`, the only module that
imports httpx)."""

from __future__ import annotations

import hashlib
import json
from datetime import datetime, timedelta
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from pipeline.artifacts.sources import Corpus, normalize_url
from pipeline.atomic import write_atomic
from pipeline.errors import InputError
from pipeline.plan.model import Plan

LINKS_FORMAT = 1


def _tujie_version() -> str:
    # The installed distribution's version: works however `pipeline` itself was imported.
    try:
        return version("tujie")
    except PackageNotFoundError:
        return "0"


DEFAULT_USER_AGENT = f"tujie-linkcheck/{_tujie_version()} (+local)"
ACCEPT_HEADER = "text/html,application/xhtml+xml,application/pdf;q=0.9,*/*;q=0.5"
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
# Results worth reusing from the cache: they describe the page, not a passing network mood.
CACHEABLE = frozenset({"ok", "redirected-ok", "mismatch", "soft-404"})
PROBE_PREFIX = "tujie-no-such-page-"

LinkStatus = Literal[
    "ok", "redirected-ok", "mismatch", "soft-404", "broken",
    "unverified-offline", "not-from-sources", "refused",
]  # fmt: skip


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


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class LinkTarget(_Model):
    """One URL the page will show, the title it is shown under, and where on the page."""

    url: str
    claimed_title: str
    where: str


class RedirectHop(_Model):
    url: str
    status: int
    location: str


class LinkResult(_Model):
    """The verdict on one link, with the evidence in one human sentence."""

    url: str
    where: str
    claimed_title: str
    status: LinkStatus
    http_status: int | None = None
    final_url: str | None = None
    redirect_chain: list[RedirectHop] = Field(default_factory=list)
    title_found: str | None = None
    evidence: str
    checked_at: datetime
    words: int | None = Field(
        default=None, description="visible words of the page, CJK chars count 1"
    )
    body_truncated: bool = False
    fragment_ok: bool | None = None
    attempts: int = 0
    from_cache: bool = False

    @property
    def verified(self) -> bool:
        return self.status in ("ok", "redirected-ok")


class LinkReport(_Model):
    """`links.json`: one result per target, in target order, and the options that made them."""

    format: int = LINKS_FORMAT
    checked_at: datetime
    offline: bool
    options: str = Field(
        default="", description="`verdict_options` of the run; the cache is reused only on a match"
    )
    results: list[LinkResult] = Field(default_factory=list)

    def blocking(self) -> list[LinkResult]:
        """Every result that is not ok / redirected-ok: publish must not go ahead with these."""
        return [r for r in self.results if not r.verified]

    def unverified(self) -> bool:
        return any(r.status == "unverified-offline" for r in self.results)

    def for_url(self, url: str) -> LinkResult | None:
        return next((r for r in self.results if _key(r.url) == _key(url)), None)


# ---------------------------------------------------------------------------------------------
# Targets


def _key(url: str) -> str:
    """Dedup key: the normalised URL plus its fragment (different anchors are different links)."""
    frag = urlsplit(url.strip()).fragment
    return normalize_url(url) + (f"#{frag}" if frag else "")


def collect_targets(plan: Plan | None, corpus: Corpus) -> list[LinkTarget]:
    """Route stops, reading list, canonical URLs of cited sources (all sources without a plan).

    The claimed title is the sources' own (reading list, then article title) when the URL is
    there, since the plan's wording may be a translation; the route's title otherwise.
    """
    known: dict[str, str] = {}
    for s in corpus.sources:
        if s.url:
            known.setdefault(normalize_url(s.url), s.title)
    for e in corpus.reading_list:
        known[normalize_url(e.url)] = e.title
    found: dict[str, tuple[str, str, list[str]]] = {}

    def add(url: str, title: str, where: str) -> None:
        k = _key(url)
        if k in found:
            found[k][2].append(where)
        else:
            found[k] = (url.strip(), known.get(normalize_url(url), title), [where])

    if plan is not None:
        for i, stop in enumerate(plan.route):
            add(stop.url, stop.title, f"route[{i}]")
    for i, e in enumerate(corpus.reading_list):
        add(e.url, e.title, f"reading-list[{i}]")
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


# ---------------------------------------------------------------------------------------------
# Report storage


def write_report(report: LinkReport, path: Path) -> None:
    """Write `links.json` atomically: a temp file in the same folder, then a rename."""
    write_atomic(
        path, json.dumps(report.model_dump(mode="json"), ensure_ascii=False, indent=2) + "\n"
    )


def load_report(path: Path) -> LinkReport:
    """Read `links.json`; a missing or malformed file is an InputError naming it."""
    try:
        return LinkReport.model_validate_json(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"{path} not found; run `tujie links SRC` first") from None
    except (OSError, UnicodeDecodeError, ValidationError) as err:
        first = str(err).splitlines()[0]
        raise InputError(
            f"{path} is not a valid links report ({first}); delete it and re-run `tujie links`"
        ) from None


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
