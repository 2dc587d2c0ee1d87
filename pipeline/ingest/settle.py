"""The reading list against the folder's saved copies: what `tujie ingest` keeps of it.

`pipeline.ingest.reading_list` reads the list's text; here its addresses are completed from the
saved copies (`pipeline.ingest.matching`), what then names one article twice is kept once, each
entry is matched to its copy, and what stays unresolved is said: an address still cut short is
kept with a warning (never a link, never a route stop), a list item with no address and no copy
is reported in `skipped` and not kept, a site-wide URL is taken from the pages that share it.
"""

from __future__ import annotations

from dataclasses import dataclass

from pipeline.artifacts.sources import (
    READING_LIST_NAME,
    FileWarning,
    ReadingListEntry,
    SkippedFile,
    Source,
    UnmatchedEntry,
)
from pipeline.ingest.matching import (
    complete_addresses,
    forget_site_wide,
    match_entry,
    site_wide_urls,
)
from pipeline.ingest.reading_list import ParsedList, deduplicated, shown


@dataclass
class SettledList:
    """The reading list after its addresses were completed and its entries matched."""

    entries: list[ReadingListEntry]
    unmatched: list[UnmatchedEntry]
    skipped: list[SkippedFile]
    warnings: list[FileWarning]


def settle_reading_list(entries: list[ReadingListEntry], sources: list[Source]) -> SettledList:
    """Complete cut-short and scheme-less addresses from the saved copies, drop what then names
    an entry twice, match every entry to its saved copy, and report what stays unresolved: an
    address still cut short (kept, never a link), an item with no address and no copy (dropped)."""
    shared = site_wide_urls(sources)
    unresolved = complete_addresses(entries, sources, shared)
    kept: list[ReadingListEntry] = []
    unmatched: list[UnmatchedEntry] = []
    skipped: list[SkippedFile] = []
    warnings: list[FileWarning] = []
    for entry in deduplicated(ParsedList(entries)).entries:
        reason = match_entry(entry, sources)
        where = f"{READING_LIST_NAME}:{entry.line or '?'}"
        if reason and entry.title_from == "item":
            skipped.append(SkippedFile(path=where, reason=_no_address_reason(entry.title)))
            continue
        kept.append(entry)
        if reason:
            unmatched.append(
                UnmatchedEntry(title=entry.title, url=entry.url, reason=reason, line=entry.line)
            )
        if entry.address_cut_short:
            why = unresolved.get(id(entry), "no saved copy's URL starts with it")
            warnings.append(FileWarning(path=where, warning=_cut_short_warning(entry, why)))
    return SettledList(kept, unmatched, skipped, warnings + forget_site_wide(sources, shared))


def _no_address_reason(text: str) -> str:
    return (
        f"a list item with no address, and no saved copy whose title it gives "
        f"({shown(text)}): add its link, or save the article in the folder"
    )


def _cut_short_warning(entry: ReadingListEntry, why: str) -> str:
    return (
        f"address cut short ({shown(entry.address)}): {why}, so it is listed without a link "
        f"and is no route stop; write the whole address"
    )
