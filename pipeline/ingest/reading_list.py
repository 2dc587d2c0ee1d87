"""Reading lists as people write them: the entries of `reading-list.md`.

People paste a list from wherever they keep it: `- [Title](https://…) — note` lines,
`Title <https://…>`, bare URLs, a post copied from a social site (prose, numbered paragraphs,
links without a scheme, some cut short with "…"), even flattened into one line. Every line is
read (addresses: `pipeline.ingest.addresses`):

- lines are list items (`-`, `*`, `1.`, `1、`, `[1]`, `①`; numbers that count up from 1 inside
  one line split it too) or prose; an item runs to the next item or heading, a prose block to
  the next blank line;
- an address's title is the link's text, else the text before it on its line (the last sentence;
  a byline "，作者 …" or a venue "，OSDI 2022" dropped; in a long sentence the last clause, or
  the English title at its end), else the line above it in the same block; with none, the
  matched saved copy's title is used later, else the URL;
- its note is the text after it, up to the next address's title (or the line below);
- an address cut short is kept as written, with no URL, until `pipeline.ingest.settle` completes
  it from a saved copy whose URL starts with it or from a full address elsewhere in the list;
- a list item with no address is a title to look for among the saved copies (kipply's
  "Transformer Inference Arithmetic"); one that names none is reported, not kept;
- a link to something other than the web (javascript:, data:, file:, a relative path) is refused,
  and a line that looks like an entry but whose address cannot be read is reported: both in
  `skipped` with the line's number. Nothing is dropped silently.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field

from pipeline.artifacts.sources import (
    READING_LIST_NAME,
    ReadingListEntry,
    SkippedFile,
    normalize_url,
)
from pipeline.ingest.addresses import Found, find_addresses, plain_text, web_url
from pipeline.ingest.formats import TITLE_MAX_CHARS

MARKER = re.compile(
    r"^(?:[-*+•·▪]\s+(?:\[[ xX]\]\s+)?|\d{1,3}[.)]\s+|\d{1,3}、\s*"
    r"|[\[【(（]\d{1,3}[\]】)）]\s*(?![(\[])|[①-⑳]\s*)"
)
# List numbers inside a line ("… 1. 如果只选一篇 … 2. 想弄懂 …"): a post flattened into one line.
INLINE_NUMBER = (
    re.compile(r"(?:(?<=\s)|^)(\d{1,2})[.)]\s+"),
    re.compile(r"(?:(?<=\s)|^)(\d{1,2})、"),
    re.compile(r"(?:(?<=\s)|^)[\[【](\d{1,2})[\]】]\s*(?![(\[])"),
)
HEADING = re.compile(r"^#{1,6}\s+")
QUOTE = re.compile(r"^(?:>\s?)+")
FENCE = re.compile(r"^\s*(```|~~~)")
DEFINITION = re.compile(r"^\s{0,3}\[(?P<label>[^\]]+)\]:\s*<?(?P<target>\S+?)>?(?:\s+.*)?$")
SENTENCE_END = re.compile(r"[。！？!?]|\.(?=\s)")
CLAUSE = re.compile(r"[，、；;]")
# Stripped from both ends of a title or note.
SEPARATORS = " \t—–-:：|｜,，、;；。.!！?？"
QUOTE_PAIRS = {'"': '"', "'": "'", "“": "”", "‘": "’", "《": "》", "「": "」", "『": "』"}
CLOSERS = {close: open_ for open_, close in QUOTE_PAIRS.items()}
MARKUP_ENDS = "*_"
BYLINE = re.compile(r"[，,]\s*(?:作者|译者|by)\s*[:：]?\s*[^，,。]{1,40}$", re.I)
VENUE = re.compile(r"[，,]\s*(?:[A-Za-z][\w&-]*\s+){0,2}'?\d{2,4}$")
# A title a line gives whole; a longer one is prose, whose last clause (or the English title at
# its end) is taken.
WHOLE_TITLE_MAX_CHARS = 40
LATIN_RUN = re.compile(r"(?:^|(?<=[^\x00-\u024f’–—]))\s*([A-Za-z0-9][\x00-\u024f’–—]*)$")
# Text in a line that says it meant to give an address.
ADDRESS_HINT = re.compile(r"https?:/|://|www\.\w|\]\(", re.I)
SHOWN_CHARS = 60


@dataclass
class Segment:
    """One line of the list, or one numbered part of a line, without its list marker."""

    line: int
    text: str
    item: bool = False
    heading: bool = False
    blank_before: bool = False


@dataclass
class ParsedList:
    """What the text of a reading list gives, before the saved copies are looked at."""

    entries: list[ReadingListEntry] = field(default_factory=list)
    skipped: list[SkippedFile] = field(default_factory=list)


def parse_reading_list(text: str) -> list[ReadingListEntry]:
    """The entries of a reading list's text (see the module docstring)."""
    return read_reading_list(text).entries


def read_reading_list(text: str) -> ParsedList:
    out = ParsedList()
    lines = text.lstrip("\ufeff").splitlines()
    definitions = _definitions(lines)
    used: set[str] = set()
    for block in _blocks(_segments(lines)):
        _read_block(block, definitions, used, out)
    for key, (number, target, label) in definitions.items():
        if key not in used:  # "[Orca]: https://…" on its own names an entry too
            name = "" if label.isdigit() else label
            _add(out, number, Found(0, 0, "link", target, name), name, "")
    return deduplicated(out)


def shown(text: str) -> str:
    """A text for a message: at most SHOWN_CHARS characters."""
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "…"


# ---------------------------------------------------------------------------------------------
# Lines into segments and blocks


def _definitions(lines: list[str]) -> dict[str, tuple[int, str, str]]:
    """Reference-style link definitions: label (case-folded) → (line, target, label)."""
    found: dict[str, tuple[int, str, str]] = {}
    for number, line in enumerate(lines, 1):
        m = DEFINITION.match(line)
        if m:
            label = m.group("label").strip()
            found.setdefault(label.casefold(), (number, m.group("target"), label))
    return found


def _segments(lines: list[str]) -> list[Segment]:
    segments: list[Segment] = []
    fenced, blank = False, False
    for number, raw in enumerate(lines, 1):
        if FENCE.match(raw):
            fenced = not fenced
            continue
        line = QUOTE.sub("", raw.strip()).strip()
        if fenced or DEFINITION.match(raw) or (line.startswith("<!--") and line.endswith("-->")):
            continue
        if not line:
            blank = True
            continue
        if HEADING.match(line):
            segments.append(Segment(number, HEADING.sub("", line), heading=True))
        else:
            for k, (text, item) in enumerate(_split_numbered(line)):
                segments.append(Segment(number, text, item=item, blank_before=blank and k == 0))
        blank = False
    return segments


def _split_numbered(
    line: str, patterns: tuple[re.Pattern[str], ...] = INLINE_NUMBER
) -> list[tuple[str, bool]]:
    """A line as (text, starts an item) parts: split where list numbers count up from 1 (each
    style in turn: "1. … 2. …" and, inside a part, "[1] … [2] …")."""
    addresses = find_addresses(line)
    starts = [f.start for f in addresses]
    for k, pattern in enumerate(patterns):
        chains: list[list[re.Match[str]]] = []
        for m in pattern.finditer(line):
            before = bisect_right(starts, m.start()) - 1  # the address starting at or before it
            if before >= 0 and m.start() < addresses[before].end:
                continue  # a number inside a link's text or address
            number = int(m.group(1))
            if number == 1:  # "正文 [1] … [2] … 出处 [1] [2] [3] [4]": every 1 may start the list
                chains.append([m])
            elif chains and number == len(chains[-1]) + 1:
                chains[-1].append(m)
        chain = max(reversed(chains), key=len, default=[])  # the longest; a tie: the last
        if len(chain) < 2:
            continue
        rest = patterns[k + 1 :]
        ends = [m.start() for m in chain[1:]] + [len(line)]
        head = line[: chain[0].start()].strip()
        parts = _split_numbered(head, rest) if head else []
        for m, end in zip(chain, ends, strict=True):
            inner = _split_numbered(line[m.end() : end].strip(), rest)
            parts += [(inner[0][0], True), *inner[1:]] if inner else [("", True)]
        return parts
    marker = MARKER.match(line)
    return [(line[marker.end() :].strip(), True)] if marker else [(line, False)]


def _blocks(segments: list[Segment]) -> list[list[Segment]]:
    """Items run to the next item or heading; prose runs to the next blank line."""
    blocks: list[list[Segment]] = []
    in_item = False
    for seg in segments:
        if seg.heading:
            blocks.append([seg])
            in_item = False
        elif seg.item:
            blocks.append([seg])
            in_item = True
        elif blocks and (in_item or not seg.blank_before) and not blocks[-1][0].heading:
            blocks[-1].append(seg)
        else:
            blocks.append([seg])
            in_item = False
    return blocks


# ---------------------------------------------------------------------------------------------
# One block: its addresses, their titles and notes


def _read_block(
    block: list[Segment],
    definitions: dict[str, tuple[int, str, str]],
    used: set[str],
    out: ParsedList,
) -> None:
    found = [[f for f in find_addresses(s.text) if _resolves(f, definitions)] for s in block]
    reported = _report_unread(block, found, out)
    if not any(found):
        if not reported:
            _no_address(block, out)
        return
    titles: dict[tuple[int, int], tuple[str, int]] = {}
    title_lines: set[int] = set()
    for i, seg in enumerate(block):
        for j, f in enumerate(found[i]):
            prev_end = found[i][j - 1].end if j else 0
            title, at = _title_of(f, seg.text[prev_end : f.start])
            titles[(i, j)] = (title, prev_end + at if f.kind not in ("link", "ref") else f.start)
            above = block[i - 1] if i else None
            if not title and j == 0 and not seg.text[: f.start].strip() and above is not None:
                introduces = above.text.rstrip().endswith((":", "："))  # "My favourites:"
                if not found[i - 1] and not introduces and (i - 1) not in title_lines:
                    lifted, _ = _title_in(above.text)
                    if lifted:
                        titles[(i, j)] = (lifted, f.start)
                        title_lines.add(i - 1)
    for i, seg in enumerate(block):
        for j, f in enumerate(found[i]):
            title, _ = titles[(i, j)]
            last = j == len(found[i]) - 1
            stop = len(seg.text) if last else titles[(i, j + 1)][1]
            note = seg.text[f.end : stop].strip(SEPARATORS)
            below = i + 1
            if not note and last and below < len(block) and not found[below]:
                if below not in title_lines and not block[below].heading:
                    note = block[below].text.strip(SEPARATORS)
            if f.kind == "ref":
                used.add(f.label.casefold())
                target = definitions[f.label.casefold()][1]
                f = Found(f.start, f.end, "link", target, f.text)
            _add(out, seg.line, f, title, plain_text(note))


def _resolves(found: Found, definitions: dict[str, tuple[int, str, str]]) -> bool:
    """A reference-style link counts only when its label is defined (else it is plain text)."""
    return found.kind != "ref" or found.label.casefold() in definitions


def _title_of(found: Found, before: str) -> tuple[str, int]:
    """A link's text is its title unless it is itself an address; else the text before it."""
    if found.kind in ("link", "ref"):
        text = _unquote(plain_text(found.text))
        if text and not _is_address(text):
            return text[:TITLE_MAX_CHARS], 0
    return _title_in(before)


def _is_address(text: str) -> bool:
    addresses = find_addresses(text)
    return len(addresses) == 1 and addresses[0].written.strip() == text.strip()


def _unquote(text: str) -> str:
    """The title without the quotes and emphasis around it; a quote that closes one inside the
    title stays (`chapter 9 "Transaction Fees"`)."""
    text = text.strip(MARKUP_ENDS + " ")
    while len(text) >= 2 and _closes_first(text) == len(text) - 1:
        text = text[1:-1].strip(MARKUP_ENDS + " ")
    if text and text[-1] in CLOSERS and not _balanced(text):
        text = text[:-1]  # a closing quote with nothing it closes
    if text and text[0] in QUOTE_PAIRS and not _balanced(text):
        text = text[1:]  # an opening quote with nothing that closes it
    return text.strip(MARKUP_ENDS + " ")


def _closes_first(text: str) -> int:
    """Where the quote that opens `text` is closed (-1: it does not open with a quote)."""
    close = QUOTE_PAIRS.get(text[0])
    if close is None:
        return -1
    depth = 0
    for i, ch in enumerate(text):
        if ch == close and (i > 0 or close != text[0]):
            depth -= 1
            if depth == 0:
                return i
        elif ch == text[0]:
            depth += 1
    return -1


def _balanced(text: str) -> bool:
    """Every quote in `text` has its partner (an apostrophe inside a word is no quote)."""
    text = re.sub(r"(?<=\w)'(?=\w)", "", text)
    for open_, close in QUOTE_PAIRS.items():
        if open_ == close:
            if text.count(open_) % 2:
                return False
        elif text.count(open_) != text.count(close):
            return False
    return True


def _title_in(before: str) -> tuple[str, int]:
    """The title the text before an address gives, and where it starts; ("", len) for none."""
    end = len(before.rstrip(SEPARATORS))
    start = max((m.end() for m in SENTENCE_END.finditer(before, 0, end)), default=0)
    text = before[start:end]
    start += len(text) - len(text.lstrip(SEPARATORS))
    text = text.strip(SEPARATORS)
    text = VENUE.sub("", BYLINE.sub("", text)).strip(SEPARATORS)
    if len(text) > WHOLE_TITLE_MAX_CHARS and CLAUSE.search(text) or len(text) > TITLE_MAX_CHARS:
        clauses = list(CLAUSE.finditer(text))
        cut = clauses[-1].end() if clauses else 0
        run = LATIN_RUN.search(text[cut:])
        if run and len(re.findall(r"[A-Za-z]{2,}", run.group(1))) >= 2:
            cut += run.start(1)
        start, text = start + cut, text[cut:].strip(SEPARATORS)
    text = _unquote(plain_text(text))
    if len(re.findall(r"\w", text)) < 2 or len(text) > TITLE_MAX_CHARS:
        return "", len(before)  # "见https://…": one word of prose, no title
    return text, start


def _report_unread(block: list[Segment], found: list[list[Found]], out: ParsedList) -> bool:
    """Report each line that tried to give an address and failed (`[Title](https://`, `www.`):
    what is left of it once its addresses are read still looks like one. True when any did."""
    reported = False
    for seg, addresses in zip(block, found, strict=True):
        rest = seg.text
        for f in addresses:
            rest = rest[: f.start] + " " * (f.end - f.start) + rest[f.end :]
        if ADDRESS_HINT.search(rest):
            out.skipped.append(
                SkippedFile(
                    path=f"{READING_LIST_NAME}:{seg.line}",
                    reason=f"looks like a reading-list entry but its address cannot be read "
                    f"({shown(seg.text)}); write it as [Title](https://…)",
                )
            )
            reported = True
    return reported


def _no_address(block: list[Segment], out: ParsedList) -> None:
    """A block without an address: prose is fine; an item names a title to look for."""
    head = block[0]
    if not head.item or head.text.rstrip().endswith((":", "：")):
        return  # prose, or a sub-heading ("- 论文："): no entry meant
    text = head.text
    first = SENTENCE_END.search(text)
    text = text[: first.start()] if first else text
    for seg in block[1:]:  # a title on its own line below the item's first line
        if first or SENTENCE_END.search(seg.text) or len(seg.text) > WHOLE_TITLE_MAX_CHARS * 2:
            break
        text += " " + seg.text
    if re.search(r"\w", plain_text(text)):  # an empty item names nothing
        out.entries.append(
            ReadingListEntry(title=plain_text(text), title_from="item", line=head.line)
        )


def _add(out: ParsedList, line: int, found: Found, title: str, note: str) -> None:
    """One address into an entry, or a refusal (not a web link) in `skipped`."""
    where = f"{READING_LIST_NAME}:{line}"
    written = found.written.strip()
    if found.kind in ("link", "auto") and not re.match(r"^https?://", written, flags=re.I):
        what = shown(written) or "an empty link"
        out.skipped.append(SkippedFile(path=where, reason=f"not an http(s) web address ({what})"))
        return
    url = web_url(written)
    if url is None and not found.cut_short:
        out.skipped.append(
            SkippedFile(path=where, reason=f"cannot read the address ({shown(written)})")
        )
        return
    out.entries.append(
        ReadingListEntry(
            title=title or url or written,
            title_from="list" if title else "address",
            url=url,
            note=note,
            address=written,
            address_cut_short=url is None,
            line=line,
        )
    )


def deduplicated(parsed: ParsedList) -> ParsedList:
    """An article listed twice is kept once, where it first appears (a later note or title fills
    what the first one lacks)."""
    kept: dict[str, ReadingListEntry] = {}
    for entry in parsed.entries:
        key = _identity(entry)
        first = kept.get(key)
        if first is None:
            kept[key] = entry
            continue
        if not first.note:
            first.note = entry.note
        if first.title_from == "address" and entry.title_from == "list":
            first.title, first.title_from = entry.title, entry.title_from
    return ParsedList(list(kept.values()), parsed.skipped)


def _identity(entry: ReadingListEntry) -> str:
    if entry.url:
        return "url " + normalize_url(entry.url)
    if entry.address:
        return "cut " + entry.address
    return f"item {entry.line} {entry.title}"
