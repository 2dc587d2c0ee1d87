"""Soft 404s: answers that say 200 but are really "not found". Three tells: a redirect from an
article to the site's front page, a not-found phrase in the title or first heading (English and
Chinese), and a made-up sibling URL in the same folder returning the same page (so this page
proves nothing). `Soft404Check.reason` runs them in that order; the first two are pure.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
from difflib import SequenceMatcher
from urllib.parse import urlsplit

from pipeline.artifacts.sources import is_site_root
from pipeline.links.fetch import Fetcher, Outcome
from pipeline.links.match import CJK_CHAR, PageFacts, normalize_title, read_page
from pipeline.links.report import PROBE_PREFIX

# Two pages count as "the same page" (soft-404 sibling probe) at or above this text similarity.
SAME_PAGE_THRESHOLD = 0.95

# Phrases of an error page dressed as a 200, English and Chinese; matched on normalised text.
NOT_FOUND_PHRASES = (
    "page not found",
    "404 not found",
    "page does not exist",
    "page doesn't exist",
    "page you requested could not be found",
    "page you are looking for",
    "no longer available",
    "page has been removed",
    "error 404",
    "页面不存在",
    "页面未找到",
    "找不到页面",
    "找不到该页面",
    "页面找不到",
    "您访问的页面不存在",
    "该页面不存在",
    "内容不存在",
    "文章不存在",
    "页面已删除",
    "404错误",
)


def not_found_phrase(titles: list[str]) -> str | None:
    """The not-found phrase a title or heading carries, if any."""
    for t in titles:
        norm = normalize_title(t)
        squeezed = norm.replace(" ", "")
        for phrase in NOT_FOUND_PHRASES:
            p = normalize_title(phrase)
            if (p in norm) or (CJK_CHAR.search(p) and p.replace(" ", "") in squeezed):
                return phrase
        # A bare "404" or "Not Found" title; longer titles merely mentioning them are fine.
        if re.fullmatch(r"(error )?404( not found)?|not found|http 404", norm):
            return norm
    return None


def same_page(a: str, b: str) -> bool:
    """Whether two visible-text fingerprints are (nearly) the same page."""
    if not a or not b:
        return False
    if a == b:
        return True
    return SequenceMatcher(None, a, b, autojunk=False).quick_ratio() >= SAME_PAGE_THRESHOLD and (
        SequenceMatcher(None, a, b, autojunk=False).ratio() >= SAME_PAGE_THRESHOLD
    )


SIBLING_SAME = "a made-up sibling URL returns the same page, so this one proves nothing"


def hidden_not_found(url: str, final_url: str, redirected: bool, facts: PageFacts) -> str | None:
    """Why a 200 answer is really a not-found (redirect to the front page, a not-found title)."""
    if redirected and is_site_root(final_url) and not is_site_root(url):
        return f"it redirects to the site's front page {final_url}, a hidden not-found"
    phrase = not_found_phrase(facts.titles)
    if phrase:
        return f"the page says '{phrase}' in its title or heading"
    return None


class Soft404Check:
    """One run's soft-404 checks; the sibling probe is fetched once per folder of a site."""

    def __init__(self, fetcher: Fetcher) -> None:
        self.fetcher = fetcher
        self.probes: dict[str, asyncio.Task[PageFacts | None]] = {}

    async def reason(self, url: str, outcome: Outcome, facts: PageFacts) -> str | None:
        """Why the page `url` led to (a 200 read into `facts`) is a not-found, or None."""
        final_url = outcome.final.url
        hidden = hidden_not_found(url, final_url, bool(outcome.chain), facts)
        if hidden:
            return hidden
        if self.fetcher.s.soft404_probe and facts.kind == "html" and not is_site_root(final_url):
            sibling = await self.sibling(final_url)
            if sibling is not None and same_page(sibling.text, facts.text):
                return SIBLING_SAME
        return None

    async def sibling(self, final_url: str) -> PageFacts | None:
        """The page a made-up sibling URL returns (None when it is a proper error), per folder."""
        parts = urlsplit(final_url)
        folder = parts.path.rsplit("/", 1)[0] + "/"
        key = f"{parts.scheme}://{parts.netloc}{folder}"
        if key not in self.probes:
            name = PROBE_PREFIX + hashlib.sha256(key.encode()).hexdigest()[:10]
            self.probes[key] = asyncio.ensure_future(self._probe(key + name))
        return await self.probes[key]

    async def _probe(self, url: str) -> PageFacts | None:
        outcome = await self.fetcher.follow(url)
        answer = outcome.final
        if answer.failure or answer.status not in self.fetcher.s.accepted_statuses:
            return None
        return read_page(answer.body, answer.content_type, answer.charset)
