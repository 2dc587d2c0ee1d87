"""Link verification: every URL the page shows must come from the sources, resolve, and lead to
the page it claims. Fetching is `pipeline.links.fetch` (the only module that imports httpx), what a
page says is `pipeline.links.match`, and the not-found pages dressed as 200s are
`pipeline.links.soft404`; this module turns each into a verdict.

`collect_targets(plan, corpus)` lists the URLs; `check_links(...)` checks them into a `LinkReport`
(`links.json`, also the cache); `write_report` / `load_report` store and read it.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path

from pipeline.artifacts.links import (  # noqa: F401  (re-exported: the public API)
    LinkReport,
    LinkResult,
    LinkStatus,
    LinkTarget,
    RedirectHop,
    link_key,
    load_report,
    write_report,
)
from pipeline.artifacts.sources import Corpus, normalize_url
from pipeline.links.fetch import Answer, Fetcher, Transport, open_fetcher
from pipeline.links.match import PageFacts, read_page, right_page
from pipeline.links.report import (  # noqa: F401  (re-exported: the public API)
    DEFAULT_LINK_SETTINGS,
    DEFAULT_USER_AGENT,
    LinkSettings,
    _cached,
    collect_targets,
    verdict_options,
)
from pipeline.links.soft404 import Soft404Check


def _facts(answer: Answer) -> PageFacts:
    return read_page(answer.body, answer.content_type, answer.charset)


async def _judge(
    fetcher: Fetcher, soft404: Soft404Check, target: LinkTarget, now: datetime
) -> LinkResult:
    """Fetch one target and decide its status; the evidence names what decided it."""
    outcome = await fetcher.follow(target.url)
    a = outcome.final
    base = {
        "url": target.url, "where": target.where, "claimed_title": target.claimed_title,
        "http_status": a.status, "final_url": a.url, "redirect_chain": outcome.chain,
        "checked_at": now, "attempts": outcome.attempts, "body_truncated": a.truncated,
    }  # fmt: skip
    retried = f" ({'; '.join(a.waits)})" if a.waits else ""

    def result(status: LinkStatus, evidence: str, **extra: object) -> LinkResult:
        return LinkResult.model_validate(
            {**base, "status": status, "evidence": evidence.rstrip(".") + retried + ".", **extra}
        )

    if a.failure == "refused":
        return result("refused", a.evidence[:1].upper() + a.evidence[1:] + ".")
    if a.failure == "unreachable":
        return result("unverified-offline", f"Not verified: {a.evidence}.")
    if a.failure:
        return result("broken", f"Broken: {a.evidence}.")
    if a.status not in fetcher.s.accepted_statuses:
        return result("broken", f"The server answered HTTP {a.status}.")
    facts = _facts(a)
    shown = {"title_found": facts.title, "words": facts.words}
    not_found = await soft404.reason(target.url, outcome, facts)
    if not_found:
        return result("soft-404", f"HTTP {a.status} but {not_found}.", **shown)
    verdict = right_page(target.claimed_title, target.url, facts, a.truncated)
    status: LinkStatus = verdict.status
    if status == "ok" and outcome.chain and normalize_url(a.url) != normalize_url(target.url):
        status = "redirected-ok"
        verdict.evidence += f", after {len(outcome.chain)} redirect(s) to {a.url}"
    return result(
        status, f"HTTP {a.status}: {verdict.evidence}", fragment_ok=verdict.fragment_ok, **shown
    )


def _precheck(target: LinkTarget, allowed: set[str], now: datetime) -> LinkResult | None:
    """Provenance before anything else: a URL not in the sources is never requested.
    `allowed` is `corpus.urls()` computed once (`Corpus.has_url` rebuilds it per call)."""
    if normalize_url(target.url) in allowed:
        return None
    return LinkResult(
        url=target.url, where=target.where, claimed_title=target.claimed_title,
        status="not-from-sources", checked_at=now,
        evidence="Not requested: this URL is in no source (the reading list or an article's own URL).",
    )  # fmt: skip


async def check_links_async(
    targets: list[LinkTarget],
    corpus: Corpus,
    *,
    cache_path: Path | None = None,
    refresh: bool = False,
    allow_private: bool = False,
    settings: LinkSettings = DEFAULT_LINK_SETTINGS,
    transport: Transport | None = None,
) -> LinkReport:
    """Check every target (see the module docstring); results keep the targets' order.
    `transport` replaces the network under httpx (tests simulate an offline machine with it)."""
    now = datetime.now(UTC).replace(microsecond=0)
    options = verdict_options(settings, allow_private)
    cache = {} if refresh else _cached(cache_path, settings, now, options)
    results: list[LinkResult | None] = []
    pending: dict[int, LinkTarget] = {}
    allowed = corpus.urls()
    for i, t in enumerate(targets):
        early = _precheck(t, allowed, now)
        hit = cache.get((t.url, t.claimed_title))
        if early is None and hit is not None:
            early = hit.model_copy(update={"where": t.where, "from_cache": True})
        results.append(early)
        if early is None:
            pending[i] = t
    async with open_fetcher(settings, allow_private, transport) as fetcher:
        soft404 = Soft404Check(fetcher)
        checked = await asyncio.gather(
            *(_judge(fetcher, soft404, t, now) for t in pending.values())
        )
    for i, r in zip(pending, checked, strict=True):
        results[i] = r
    final = [r for r in results if r is not None]
    if fetcher.public_reached:
        # The network worked, so a host we could not reach is the link's fault, not ours.
        final = [
            r.model_copy(update={"status": "broken", "evidence": r.evidence.replace("Not verified", "Broken (the network is up)")})
            if r.status == "unverified-offline" else r
            for r in final
        ]  # fmt: skip
    offline = any(r.status == "unverified-offline" for r in final)
    return LinkReport(checked_at=now, offline=offline, results=final, options=options)


def check_links(
    targets: list[LinkTarget],
    corpus: Corpus,
    *,
    cache_path: Path | None = None,
    refresh: bool = False,
    allow_private: bool = False,
    settings: LinkSettings = DEFAULT_LINK_SETTINGS,
    transport: Transport | None = None,
) -> LinkReport:
    """Synchronous wrapper of `check_links_async` for the CLI and the build."""
    return asyncio.run(
        check_links_async(
            targets,
            corpus,
            cache_path=cache_path,
            refresh=refresh,
            allow_private=allow_private,
            settings=settings,
            transport=transport,
        )  # fmt: skip
    )
