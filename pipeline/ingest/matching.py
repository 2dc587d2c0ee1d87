"""Reading list ↔ saved copies: which article of the folder is the page a reading-list entry
names, so the learning route can give its reading time.

An entry matches a source first by URL (normalised: scheme and host case, trailing slash,
fragment), then by title. A saved page (HTML, PDF) with the entry's URL is its copy. A Markdown
or text file with the entry's URL is its copy only when the titles agree too
(URL_MATCH_MIN_SIMILARITY): a note that merely cites the page in its front matter ("推理引擎的主循环"
about "Inside vLLM: Anatomy of …") is much shorter than the page and would understate its
reading time. Without a URL match, a source with no URL of its own (or the same one) whose
normalised title reaches TITLE_MATCH_THRESHOLD is taken; the ratio is `difflib.SequenceMatcher`'s
over titles normalised by `pipeline.ingest.titles.normalize_title` (case, punctuation, site
suffix). A source whose URL names another page is never matched by title: "Speculative
Decoding" (vLLM's docs) is not "Speculative decoding, explained".
"""

from __future__ import annotations

from pipeline.artifacts.sources import ReadingListEntry, Source, UnmatchedEntry, normalize_url
from pipeline.ingest.titles import title_similarity

# Kinds of source that are copies of a web page whatever their title.
SAVED_PAGE_KINDS = frozenset({"html", "pdf"})
# Title similarity (0..1) for a match by title alone. 0.9 accepts case, punctuation, a site
# suffix and a word's spelling ("KV-cache" / "KV Cache", "fit?" / "Fit:"), and rejects a title
# that only shares most words ("Speculative decoding" vs "Speculative decoding, explained" is
# 0.8).
TITLE_MATCH_THRESHOLD = 0.9
# Title similarity a Markdown/text source with the entry's URL needs to be its copy, not a note
# ("vllm bench serve" vs "怎么压测推理服务：vllm bench serve 的指标口径与分位数" is 0.71: a note).
URL_MATCH_MIN_SIMILARITY = 0.8
# Below the threshold, the closest title is named in the reason when it is at least this close.
NEAR_MISS_SIMILARITY = 0.5


def match_reading_list(
    entries: list[ReadingListEntry], sources: list[Source]
) -> list[UnmatchedEntry]:
    """Set `matched_source`, `matched_by`, `match_score` and `words` of every entry that has a
    saved copy; return the entries that have none, each with the reason."""
    unmatched: list[UnmatchedEntry] = []
    for entry in entries:
        reason = _match(entry, sources)
        if reason:
            unmatched.append(UnmatchedEntry(title=entry.title, url=entry.url, reason=reason))
    return unmatched


def _match(entry: ReadingListEntry, sources: list[Source]) -> str | None:
    """Match one entry in place; the reason it has no saved copy, or None when it has one."""
    key = normalize_url(entry.url)
    titled = entry.title.strip() and normalize_url(entry.title) != key
    same_url = [s for s in sources if s.url and normalize_url(s.url) == key]
    scored = [(_score(entry, s) if titled else 0.0, s) for s in same_url]
    copies = [
        (score, s)
        for score, s in scored
        if s.kind in SAVED_PAGE_KINDS or score >= URL_MATCH_MIN_SIMILARITY
    ]
    if copies:
        # A saved page before a Markdown copy, then the closer title; ties: the first file.
        score, source = max(copies, key=lambda c: (c[1].kind in SAVED_PAGE_KINDS, c[0]))
        _set(entry, source, "url", score if titled else None)
        return None
    notes = [s.id for _, s in scored]
    if not titled:
        return _no_copy(notes, None)
    pool = [s for s in sources if not s.url]
    best = max(((_score(entry, s), s) for s in pool), key=lambda c: c[0], default=None)
    if best is not None and best[0] >= TITLE_MATCH_THRESHOLD:
        _set(entry, best[1], "title", best[0])
        return None
    return _no_copy(notes, best if best and best[0] >= NEAR_MISS_SIMILARITY else None)


def _score(entry: ReadingListEntry, source: Source) -> float:
    return round(title_similarity(entry.title, source.title), 3)


def _set(entry: ReadingListEntry, source: Source, how: str, score: float | None) -> None:
    entry.matched_source, entry.matched_by, entry.match_score = source.id, how, score
    entry.words = source.words


def _no_copy(notes: list[str], near: tuple[float, Source] | None) -> str:
    if notes:
        return (
            f"no saved copy: {', '.join(notes)} give this URL but another title "
            f"(a note about the page, shorter than it)"
        )
    if near is not None:
        score, source = near
        return (
            f"no saved copy: closest title is {source.id} ({score:.2f} < "
            f"{TITLE_MATCH_THRESHOLD})"
        )
    return "no saved copy in the folder"
