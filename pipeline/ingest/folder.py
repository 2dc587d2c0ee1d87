"""Ingest a folder of articles into a `Corpus` (`sources.json`): the `tujie ingest` stage.

Walks the folder (nested, sorted, hidden entries ignored), parses each article by format
(`pipeline.ingest.formats`), counts words and reading time, and lists every skipped file with why.
"""

from __future__ import annotations

import hashlib
import math
import re
import unicodedata
from pathlib import Path

from pipeline.artifacts.sources import (
    READING_LIST_NAME,
    Corpus,
    FileWarning,
    Paragraph,
    ReadingListEntry,
    SkippedFile,
    Source,
)
from pipeline.atomic import write_atomic
from pipeline.errors import SourceError
from pipeline.ingest.formats import Extracted, Unreadable, parse_pdf, parse_text
from pipeline.ingest.htmlpage import parse_html
from pipeline.ingest.markdown import parse_markdown
from pipeline.ingest.reading_list import read_reading_list
from pipeline.ingest.settle import settle_reading_list
from pipeline.ingest.titles import title_from_file_name
from pipeline.ingest.walk import walk_folder
from pipeline.reader import ARTICLE, MAX_ARTICLE_BYTES, READING_LIST, FileRefused, read_file

PARSERS = {"md": parse_markdown, "txt": parse_text, "html": parse_html, "pdf": parse_pdf}

MAX_FILE_BYTES = MAX_ARTICLE_BYTES  # per article (pipeline.reader, with the other limits)
# Reading speed used for `reading_minutes` (stated on the page, P10): Chinese is read by the
# character, English by the word; a source never takes less than one minute.
CJK_CHARS_PER_MINUTE = 300
WORDS_PER_MINUTE = 200
MIN_READING_MINUTES = 1
# Titles that are only a guess (a section heading, a first line): the name the file was saved
# under is trusted before them.
WEAK_TITLE_SOURCES = frozenset({"heading", "first-line"})
# A text is Chinese when at least this share of its words are CJK characters.
ZH_WORD_SHARE = 0.3
KIND_BY_SUFFIX = {
    ".md": "md",
    ".markdown": "md",
    ".txt": "txt",
    ".text": "txt",
    ".html": "html",
    ".htm": "html",
    ".pdf": "pdf",
}
# Files of the folder that are not articles: the reading list is parsed on its own, the config
# and a reviewed plan are read by other stages.
NOT_ARTICLES = {READING_LIST_NAME, "page.toml", "plan.json", "plan.invalid.json", "sources.json"}
ID_HASH_CHARS = 8
ID_MAX_CHARS = 80

CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af]")
LATIN_WORD = re.compile(r"[A-Za-z0-9\u00c0-\u024f]+(?:['’.-][A-Za-z0-9\u00c0-\u024f]+)*")


def ingest_folder(src: Path) -> Corpus:
    """Read every article under `src` into a Corpus. Raises `SourceError` when the folder is
    missing, empty, or holds no readable article; an unreadable file is only skipped."""
    if not src.exists():
        raise SourceError(
            f"{src}: folder not found; pass a folder of articles (.md, .txt, .html, .pdf)"
        )
    if not src.is_dir():
        raise SourceError(f"{src}: not a folder; pass the folder that holds the articles")
    sources: list[Source] = []
    skipped: list[SkippedFile] = []
    used_ids: set[str] = set()
    reading_list: list[ReadingListEntry] = []
    warnings: list[FileWarning] = []
    walk = walk_folder(src)
    skipped.extend(SkippedFile(path=s.rel, reason=s.reason) for s in walk.skipped)
    for file in walk.files:
        path, rel = file.path, file.rel
        if rel == READING_LIST_NAME:
            reading_list = _read_reading_list(path, src, skipped)
            continue
        if path.name in NOT_ARTICLES:
            continue
        kind = KIND_BY_SUFFIX.get(path.suffix.lower())
        if kind is None:
            skipped.append(
                SkippedFile(
                    path=rel, reason=f"not an article format ({path.suffix or 'no extension'})"
                )
            )
            continue
        try:
            source, extracted = _read_source(path, src, rel, kind, used_ids)
            sources.append(source)
            warnings += [FileWarning(path=rel, warning=w) for w in extracted.warnings]
        except Unreadable as why:
            skipped.append(SkippedFile(path=rel, reason=str(why)))
    skipped.sort(key=lambda s: s.path)
    if not walk.files and not walk.skipped:
        raise SourceError(f"{src}: folder is empty; put articles (.md, .txt, .html, .pdf) in it")
    if not sources:
        reasons = "; ".join(f"{s.path}: {s.reason}" for s in skipped[:5]) or "no article files"
        raise SourceError(
            f"{src}: no readable article ({reasons}); add .md, .txt, .html or .pdf files"
        )
    settled = settle_reading_list(reading_list, sources)
    skipped = sorted([*skipped, *settled.skipped], key=lambda s: s.path)
    return Corpus(
        folder=src.as_posix(),
        sources=sources,
        reading_list=settled.entries,
        skipped=skipped,
        warnings=[*warnings, *settled.warnings],
        unmatched=settled.unmatched,
    )


def _read_source(
    path: Path, src: Path, rel: str, kind: str, used_ids: set[str]
) -> tuple[Source, Extracted]:
    try:
        data = read_file(path, src, ARTICLE)
    except FileRefused as why:
        raise Unreadable(str(why)) from None
    if not data:
        raise Unreadable("empty file")
    try:
        extracted = PARSERS[kind](data)
    except RecursionError:
        raise Unreadable("nested too deeply to read") from None
    if not extracted.paragraphs:
        raise Unreadable("no text in the file")
    return _make_source(extracted, rel, kind, data, used_ids), extracted


def _make_source(ex: Extracted, rel: str, kind: str, data: bytes, used_ids: set[str]) -> Source:
    source_id = source_id_for(rel, used_ids)
    used_ids.add(source_id)
    text = "\n".join(ex.paragraphs)
    cjk = len(CJK.findall(text))
    latin = len(LATIN_WORD.findall(text))
    url = ex.url if ex.url and ex.url.startswith(("http://", "https://")) else None
    title, title_from = _title(ex, rel)
    return Source(
        id=source_id,
        path=rel,
        kind=kind,
        encoding=ex.encoding,
        title=title,
        title_from=title_from,
        url=url,
        url_from=ex.url_from if url else None,
        date=ex.date,
        lang=_language(ex.lang, cjk, latin),
        words=cjk + latin,
        chars=len(re.sub(r"\s+", "", text)),  # whitespace is layout, not content
        reading_minutes=reading_minutes(cjk, latin),
        sha256=hashlib.sha256(data).hexdigest(),
        paragraphs=[
            Paragraph(anchor=f"{source_id}-p{i}", text=p) for i, p in enumerate(ex.paragraphs, 1)
        ],
        links=_unique([u for u in ex.links if u != url]),
    )


def _title(ex: Extracted, rel: str) -> tuple[str, str]:
    """The parser's title unless it is only a guess; then the name the file was saved under."""
    if ex.title and ex.title.strip() and ex.title_from not in WEAK_TITLE_SOURCES:
        return ex.title.strip(), ex.title_from or "file"
    from_name = title_from_file_name(rel)
    if from_name:
        return from_name, "file-name"
    if ex.title and ex.title.strip():
        return ex.title.strip(), ex.title_from or "first-line"
    return Path(rel).stem, "file-name"


def source_id_for(rel: str, used: set[str]) -> str:
    """A stable, readable id from the relative path in any script: `notes/01 KV Cache.md` →
    `notes-01-kv-cache`, `08-大模型推理框架概述.md` → `08-大模型推理框架概述`. Letters, marks
    and digits of every script and "_" are kept (NFKC, lower-cased); anything else joins words with
    "-". A path with no letter or digit, or a colliding one, gets a short hash of the path."""
    stem = rel.rsplit(".", 1)[0] if "." in Path(rel).name else rel
    stem = unicodedata.normalize("NFKC", stem).lower()
    kept = "".join(ch if ch == "_" or unicodedata.category(ch)[0] in "LMN" else "-" for ch in stem)
    slug = re.sub(r"-{2,}", "-", kept).strip("-")[:ID_MAX_CHARS].rstrip("-")
    digest = hashlib.sha256(rel.encode("utf-8", "surrogateescape")).hexdigest()[:ID_HASH_CHARS]
    if not slug:
        return f"src-{digest}"
    return slug if slug not in used else f"{slug}-{digest}"


def reading_minutes(cjk_chars: int, latin_words: int) -> int:
    """Minutes to read: CJK_CHARS_PER_MINUTE and WORDS_PER_MINUTE, rounded up, at least 1."""
    minutes = cjk_chars / CJK_CHARS_PER_MINUTE + latin_words / WORDS_PER_MINUTE
    return max(MIN_READING_MINUTES, math.ceil(minutes))


def _language(declared: str | None, cjk: int, latin: int) -> str:
    if declared:
        primary = re.split(r"[-_]", declared.strip().lower())[0]
        if primary:
            return primary
    total = cjk + latin
    return "zh" if total and cjk / total >= ZH_WORD_SHARE else "en"


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))


# ---------------------------------------------------------------------------------------------
# Reading list (parsed by `pipeline.ingest.reading_list`)


def _read_reading_list(
    path: Path, src: Path, skipped: list[SkippedFile]
) -> list[ReadingListEntry]:
    from pipeline.ingest.formats import decode_text

    try:
        text, _ = decode_text(read_file(path, src, READING_LIST))
    except (FileRefused, Unreadable) as why:
        skipped.append(
            SkippedFile(path=READING_LIST_NAME, reason=f"reading list unreadable: {why}")
        )
        return []
    parsed = read_reading_list(text)
    skipped.extend(parsed.skipped)
    return parsed.entries


# ---------------------------------------------------------------------------------------------
# Output


def write_corpus(corpus: Corpus, path: Path) -> None:
    """Write `sources.json` atomically (temp file in the same folder, then rename)."""
    write_atomic(path, corpus.model_dump_json(indent=2) + "\n")
