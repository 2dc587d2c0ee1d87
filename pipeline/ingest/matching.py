"""Reading list ↔ saved copies: which article of the folder is the page a reading-list entry
names, so the learning route can give its reading time and the footer lists it once.

First the addresses (`complete_addresses`): one cut short ("anyscale.com/blog/continuous…") takes
the whole URL of the saved copy whose URL starts with it (scheme and `www.` aside), or of a full
address elsewhere in the list, when exactly one fits (titles decide between several, and a copy
whose title disagrees is not taken); one written without a scheme takes the copy's spelling.

Then each entry (`match_entry`), first by URL (normalised: scheme and host case, trailing
slash, fragment). A saved page (HTML, PDF) with the entry's URL is its copy. A Markdown or text
file with the entry's URL is its copy only when the titles agree too (URL_MATCH_MIN_SIMILARITY):
a note that merely cites the page in its front matter is much shorter than the page and would
understate its reading time. Without a URL match, by title, among the sources that have no URL of
their own, or one that is an ancestor of the entry's (a site-wide `og:url` such as
`https://kipply.github.io/blog` on every post: it neither blocks nor wins over the title, and the
page then gets the entry's URL): a normalised title within TITLE_MATCH_THRESHOLD
(`difflib.SequenceMatcher` over `pipeline.ingest.titles.normalize_title`), else an entry title
that contains the page's whole title ("LMDeploy 投机解码（Speculative Decoding）" for the page
"Speculative Decoding"), the file name breaking a tie between pages of the same title. A source
whose URL names another page is never matched by title: "Speculative Decoding" (vLLM's docs) is
not "Speculative decoding, explained". Every match says how (`matched_by`), how well
(`match_score`) and why (`match_why`).

A URL that several saved pages with different titles give (`site_wide_urls`) completes no
address, and is taken, after matching, from the pages that still hold it (`forget_site_wide`).
"""

from __future__ import annotations

import re
from collections.abc import Set
from urllib.parse import urlsplit

from pipeline.artifacts.sources import (
    READING_LIST_NAME,
    FileWarning,
    ReadingListEntry,
    Source,
    UnmatchedEntry,
    normalize_url,
)
from pipeline.ingest.addresses import loose_address
from pipeline.ingest.titles import normalize_title, title_from_file_name, title_similarity

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
# A page title found inside an entry's title must say something: two words, or four CJK
# characters ("Speculative Decoding", "投机解码"), not "Notes".
CONTAINED_MIN_WORDS = 2
CONTAINED_MIN_CJK = 4
# Share of an entry title's words a saved copy's title must hold for the copy to complete the
# entry's cut-short address ("Continuous Batching 博客" and "How continuous batching enables
# …": 1.0, the Chinese word aside as the copy has none; "LLM Inference Benchmarking: Fundamental
# Concepts" and "LLM Inference Benchmarking: How Much Does Your LLM Inference Cost?": 0.6).
COMPLETION_MIN_OVERLAP = 0.75
CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af]")


# ---------------------------------------------------------------------------------------------
# Addresses


def site_wide_urls(sources: list[Source]) -> set[str]:
    """URLs (normalised) that several saved pages with different titles give as their own: a
    theme's `og:url` or canonical set to the blog's base on every post names none of them."""
    titles: dict[str, set[str]] = {}
    for s in sources:
        if s.url and s.kind in SAVED_PAGE_KINDS:
            titles.setdefault(normalize_url(s.url), set()).add(normalize_title(s.title))
    return {url for url, names in titles.items() if len(names) > 1}


def forget_site_wide(sources: list[Source], shared: Set[str]) -> list[FileWarning]:
    """Drop, after matching (which gave each matched page its entry's URL), a site-wide URL
    from the pages that still hold it: it is no address of theirs to link to or route to."""
    warnings = []
    for s in sources:
        if s.url and normalize_url(s.url) in shared:
            warnings.append(
                FileWarning(
                    path=s.path,
                    warning=f"its {s.url_from or 'URL'} {s.url} is given by other saved pages "
                    f"too (a site-wide tag): not used as this page's address",
                )
            )
            s.url, s.url_from = None, None
    return warnings


def complete_addresses(
    entries: list[ReadingListEntry], sources: list[Source], shared: Set[str] = frozenset()
) -> dict[int, str]:
    """Complete, in place, the addresses cut short or written without a scheme (module
    docstring), never from a site-wide URL (`shared`). Returns, by `id()` of each entry still
    cut short, why nothing completed it."""
    known: dict[str, tuple[str, str, str]] = {}  # normalised URL → (URL, origin, title)
    for s in sources:
        if s.url and normalize_url(s.url) not in shared:
            known.setdefault(normalize_url(s.url), (s.url, s.id, s.title))
    for e in entries:
        if e.url and not e.address_cut_short:
            title = e.title if e.title_from == "list" else ""
            known.setdefault(normalize_url(e.url), (e.url, f"{READING_LIST_NAME}:{e.line}", title))
    unresolved: dict[int, str] = {}
    for e in entries:
        if e.address_cut_short:
            why = _complete(e, list(known.values()))
            if why:
                unresolved[id(e)] = why
        elif e.url and e.address and "://" not in e.address:
            same = [k for k in known.values() if loose_address(k[0]) == loose_address(e.url)]
            if same and same[0][0] != e.url:
                e.url, e.completed_from = same[0][0], same[0][1]
    return unresolved


def _complete(entry: ReadingListEntry, known: list[tuple[str, str, str]]) -> str | None:
    prefix = loose_address(entry.address)
    has_path = "/" in prefix
    fits = [k for k in known if _starts(loose_address(k[0]), prefix)]
    titled = entry.title_from == "list"
    agreeing = [k for k in fits if (not titled and has_path) or _titles_agree(entry.title, k[2])]
    if len(agreeing) == 1:
        entry.url, entry.completed_from = agreeing[0][0], agreeing[0][1]
        entry.address_cut_short = False
        return None
    if not fits:
        return "no saved copy's URL starts with it"
    names = ", ".join(k[1] for k in fits[:3])
    if agreeing:
        return f"several saved copies' URLs start with it ({names})"
    return f"the saved copy whose URL starts with it has another title ({names})"


def _starts(address: str, prefix: str) -> bool:
    return address.startswith(prefix) and address != prefix or address.startswith(prefix + "/")


def _titles_agree(entry_title: str, other_title: str) -> bool:
    """Whether a copy's title is the entry's: similar, or holding most of its words (words in a
    script the copy's title does not use aside: the list may name it in the reader's language)."""
    if not other_title:
        return False
    if title_similarity(entry_title, other_title) >= URL_MATCH_MIN_SIMILARITY:
        return True
    other = normalize_title(other_title)
    words = [w for w in normalize_title(entry_title).split() if len(w) > 1]
    if not CJK.search(other):
        words = [w for w in words if not CJK.search(w)]
    if not words:
        return False
    held = sum(1 for w in words if (w in other if CJK.search(w) else w in other.split()))
    return held / len(words) >= COMPLETION_MIN_OVERLAP


# ---------------------------------------------------------------------------------------------
# Entries


def match_reading_list(
    entries: list[ReadingListEntry], sources: list[Source]
) -> list[UnmatchedEntry]:
    """Match every entry (`match_entry`); the entries that have no saved copy, with the reason."""
    unmatched: list[UnmatchedEntry] = []
    for entry in entries:
        reason = match_entry(entry, sources)
        if reason:
            unmatched.append(
                UnmatchedEntry(title=entry.title, url=entry.url, reason=reason, line=entry.line)
            )
    return unmatched


def match_entry(entry: ReadingListEntry, sources: list[Source]) -> str | None:
    """Set `matched_source`, `matched_by`, `match_score`, `match_why` and `words` of an entry
    that has a saved copy; return the reason it has none, or None."""
    titled = entry.title_from in ("list", "item")
    notes: list[str] = []
    if entry.url:
        key = normalize_url(entry.url)
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
            why = "same URL"
            if entry.completed_from:
                why += f"; the address was completed from {entry.completed_from}"
            _set(entry, source, "url", score if titled else None, why)
            return None
        notes = [s.id for _, s in scored]
        pool = [s for s in sources if not s.url or _is_ancestor(s.url, entry.url)]
    elif entry.address_cut_short:
        prefix = loose_address(entry.address)
        pool = [s for s in sources if not s.url or loose_address(s.url).startswith(prefix)]
    else:
        pool = list(sources)  # no address that another page's URL could contradict
    if not titled:
        return _no_copy(notes, None)
    best = max(((_score(entry, s), s) for s in pool), key=lambda c: c[0], default=None)
    if best is not None and best[0] >= TITLE_MATCH_THRESHOLD:
        _set(entry, best[1], "title", best[0], "similar titles")
        return None
    contained = _contained(entry, pool)
    if isinstance(contained, str):
        return contained
    if contained is not None:
        return None
    return _no_copy(notes, best if best and best[0] >= NEAR_MISS_SIMILARITY else None)


def _contained(entry: ReadingListEntry, pool: list[Source]) -> str | bool | None:
    """Match by a page title inside the entry's: True when matched, a reason when several pages
    fit equally and their file names cannot tell them apart, None when none fits."""
    found = [(c, s) for s in pool if (c := title_coverage(entry.title, s.title)) is not None]
    if not found:
        return None
    found.sort(key=lambda f: -f[0])
    top = [f for f in found if f[0] == found[0][0]]
    coverage, source = top[0]
    why = "the entry's title contains the copy's whole title"
    if len(top) == 1:
        _set(entry, source, "contains", coverage, why)
        return True
    by_name = sorted(((_file_name_score(entry, s), s) for _, s in top), key=lambda f: -f[0])
    if by_name[0][0] == by_name[1][0]:
        names = ", ".join(s.id for _, s in top[:3])
        return f"no saved copy: several fit equally ({names}); give the entry its exact title"
    others = ", ".join(s.id for _, s in by_name[1:3])
    why += f"; the file name {by_name[0][1].path} chose it over {others}"
    _set(entry, by_name[0][1], "filename", coverage, why)
    return True


def title_coverage(entry_title: str, page_title: str) -> float | None:
    """The share of the entry's normalised title that the page's whole title covers, when it
    holds it between word boundaries (CJK text has none to respect); else None."""
    entry, page = normalize_title(entry_title), normalize_title(page_title)
    cjk = len(CJK.findall(page))
    if not page or len(page) >= len(entry):
        return None
    if len(page.split()) < CONTAINED_MIN_WORDS and cjk < CONTAINED_MIN_CJK:
        return None
    for m in re.finditer(re.escape(page), entry):
        before = entry[m.start() - 1] if m.start() else " "
        after = entry[m.end()] if m.end() < len(entry) else " "
        if _boundary(before, page[0]) and _boundary(after, page[-1]):
            return round(len(page) / len(entry), 3)
    return None


def _boundary(outside: str, inside: str) -> bool:
    return not (outside.isascii() and outside.isalnum() and inside.isascii() and inside.isalnum())


def _file_name_score(entry: ReadingListEntry, source: Source) -> float:
    """How much of the file's name is in the part of the entry's title that the page's title
    does not explain ("05-lmdeploy-投机解码.md" for "LMDeploy 投机解码（Speculative Decoding）")."""
    rest = normalize_title(entry.title).replace(normalize_title(source.title), " ")
    words = normalize_title(title_from_file_name(source.path) or "").split()
    total = sum(len(w) for w in words)
    return sum(len(w) for w in words if w in rest) / total if total else 0.0


def _is_ancestor(page_url: str, entry_url: str) -> bool:
    """Whether a page's URL is a folder above the entry's on the same site (a blog's base)."""
    page, entry = urlsplit(page_url), urlsplit(entry_url)
    if (page.hostname or "").removeprefix("www.") != (entry.hostname or "").removeprefix("www."):
        return False
    base, path = page.path.rstrip("/"), entry.path.rstrip("/")
    return not page.query and path != base and path.startswith(base + "/")


def _score(entry: ReadingListEntry, source: Source) -> float:
    return round(title_similarity(entry.title, source.title), 3)


def _set(
    entry: ReadingListEntry, source: Source, how: str, score: float | None, why: str
) -> None:
    if entry.url and source.url and _is_ancestor(source.url, entry.url):
        why += (
            f"; the copy's {source.url_from or 'URL'} {source.url} is an ancestor of the "
            f"entry's URL (a site-wide tag): the copy now has the entry's URL"
        )
        source.url, source.url_from = entry.url, "reading-list"
    entry.matched_source, entry.matched_by, entry.match_score = source.id, how, score
    entry.match_why, entry.words = why, source.words
    if entry.title_from in ("item", "address"):
        entry.title, entry.title_from = source.title, "copy"


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
