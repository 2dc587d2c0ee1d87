"""The footer's source list: each article once, its reading-list entry and its saved copies merged.

An article is a reading-list entry together with the saved copies ingest matched to it and the
files that give its URL (notes about the page); then each saved article the list does not name.
An item shows a title, a link when the page may link there, and the reading list's note. The
names the files were saved under are production notes (PAGE.md P24): they stay in `sources.json`
(`path`, `matched_source`), never in the reading flow.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pipeline.artifacts.sources import Corpus, ReadingListEntry, Source, normalize_url
from pipeline.plan.model import Plan
from pipeline.render.route import safe_url

# A note longer than this shows its first sentence only (a list copied from a post carries
# paragraphs under each link); the whole note stays in sources.json and in the prompt.
NOTE_MAX_CHARS = 90
FIRST_SENTENCE = re.compile(r"^.+?(?:[。！？]|[.!?](?=\s|$))")
BREAKS = (" ", "，", "；", "、", "：")


@dataclass(frozen=True)
class SourceView:
    title: str
    url: str | None
    note: str


def source_views(plan: Plan, corpus: Corpus) -> list[SourceView]:
    """The footer's sources (module docstring). A reading-list entry links to its complete
    address (every one goes through the link check); a saved article to its own URL when the
    plan cites it (only cited sources' URLs are checked). An address cut short is no link."""
    cited = {c.source for concept in plan.concepts for c in concept.citations}
    views: list[SourceView] = []
    merged: set[str] = set()
    for entry in corpus.reading_list:
        copies = _copies_of(entry, corpus.sources)
        merged.update(s.id for s in copies)
        url = safe_url(entry.url) or next(
            (safe_url(s.url) for s in copies if s.id in cited and safe_url(s.url)), None
        )
        views.append(SourceView(_entry_title(entry, copies), url, _short_note(entry.note)))
    linked = {normalize_url(v.url) for v in views if v.url}
    for source in corpus.sources:
        if source.id in merged:
            continue
        url = safe_url(source.url) if source.id in cited else None
        if url and normalize_url(url) in linked:
            url = None  # two saved pages under one site-wide URL: the link is shown once
        if url:
            linked.add(normalize_url(url))
        views.append(SourceView(source.title, url, ""))
    return views


def _copies_of(entry: ReadingListEntry, sources: list[Source]) -> list[Source]:
    """The saved copy matched to the entry, and every file that gives the entry's URL."""
    key = normalize_url(entry.url) if entry.url else None
    copies = [
        s
        for s in sources
        if s.id == entry.matched_source or (key and s.url and normalize_url(s.url) == key)
    ]
    return sorted(copies, key=lambda s: s.id != entry.matched_source)  # the matched copy first


def _entry_title(entry: ReadingListEntry, copies: list[Source]) -> str:
    """The list's own title; for an entry that gives only an address, its copy's title."""
    if entry.title_from == "address" and copies:
        return copies[0].title
    return entry.title


def _short_note(note: str) -> str:
    note = note.strip()
    if len(note) <= NOTE_MAX_CHARS:
        return note
    first = FIRST_SENTENCE.match(note)
    if first and len(first.group(0)) <= NOTE_MAX_CHARS:
        return first.group(0)
    cut = note[: NOTE_MAX_CHARS - 1]
    # at the last word or clause boundary in the second half, never inside a word (reader sf7
    # met "with the KV cache moved bet…")
    at = max(cut.rfind(mark) for mark in BREAKS)
    if at >= NOTE_MAX_CHARS // 2:
        cut = cut[:at]
    return cut.rstrip(" ,;:，；：、") + "…"
