"""Reading a PDF's text layer with pypdf: the one module that imports it (ingest and the link
checker both read PDFs). pypdf logs what it repairs ("EOF marker not found") through `logging`,
which would print stray lines; here they are captured and handed back as `problems`, so the
caller reports them its own way (a skip reason, a warning naming the file).

Each PDF is read within a budget of pages and of text (`MAX_PDF_PAGES`, `MAX_PDF_TEXT_CHARS`):
past either, reading stops and `stopped` says where, for the caller's warning. Pages that share
their content stream and resources (5,000 pages drawing one stream took hours, each parsing it
again) are parsed once: the text is the same.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

PYPDF_LOGGER = "pypdf"
MAX_PROBLEM_CHARS = 120
# Per PDF: a book's worth of pages, and of text (about 1,500 dense pages); an article is far less.
MAX_PDF_PAGES = 2_000
MAX_PDF_TEXT_CHARS = 3_000_000
# A page's resources longer than this (written out) are not compared: its text is not reused.
MAX_SHARED_KEY_CHARS = 2_000


class PdfUnreadable(Exception):
    """The bytes are not a PDF whose text can be read; the message says why."""


@dataclass
class PdfText:
    """The text of each page read, the metadata title, what pypdf had to repair, and where
    reading stopped at the budget (None when every page was read)."""

    pages: list[str]
    title: str | None = None
    problems: list[str] = field(default_factory=list)
    stopped: str | None = None


class _Collect(logging.Handler):
    def __init__(self, into: list[str]):
        super().__init__(logging.WARNING)
        self.into = into

    def emit(self, record: logging.LogRecord) -> None:
        message = " ".join(record.getMessage().split())[:MAX_PROBLEM_CHARS]
        if message not in self.into:
            self.into.append(message)


@contextmanager
def _pypdf_log_captured() -> Iterator[list[str]]:
    """pypdf's warnings go into the yielded list instead of the terminal."""
    logger = logging.getLogger(PYPDF_LOGGER)
    problems: list[str] = []
    handler = _Collect(problems)
    propagate = logger.propagate
    logger.addHandler(handler)
    logger.propagate = False
    try:
        yield problems
    finally:
        logger.removeHandler(handler)
        logger.propagate = propagate


def read_pdf(
    data: bytes, *, max_pages: int | None = None, max_chars: int = MAX_PDF_TEXT_CHARS
) -> PdfText:
    """The text of the first `max_pages` pages (MAX_PDF_PAGES when None), stopping once
    `max_chars` of text are read. Raises `PdfUnreadable` for an encrypted or broken file,
    naming pypdf's first complaint (e.g. a truncated file)."""
    from pypdf import PdfReader  # imported here: only PDFs pay for it
    from pypdf.errors import PyPdfError

    with _pypdf_log_captured() as problems:
        try:
            reader = PdfReader(io.BytesIO(data))
            if reader.is_encrypted and not reader.decrypt(""):
                raise PdfUnreadable("encrypted PDF")
            pages, stopped = _page_texts(reader, max_pages or MAX_PDF_PAGES, max_chars)
            meta_title = reader.metadata.title if reader.metadata else None
        except PdfUnreadable:
            raise
        except (PyPdfError, ValueError, KeyError, TypeError, OSError, RecursionError) as err:
            said = f": {problems[0]}" if problems else ""
            raise PdfUnreadable(f"unreadable PDF ({type(err).__name__}{said})") from None
    title = meta_title.strip() if isinstance(meta_title, str) and meta_title.strip() else None
    return PdfText(pages, title, problems, stopped)


def _page_texts(reader: Any, max_pages: int, max_chars: int) -> tuple[list[str], str | None]:
    """Each page's text up to the budget, and why reading stopped (None: it did not)."""
    total = len(reader.pages)
    texts: list[str] = []
    chars = 0
    seen: dict[str, str] = {}  # a page's content + resources, written out → its text
    for number, page in enumerate(reader.pages, 1):
        if number > max_pages:
            return texts, f"read the first {max_pages:,} of {total:,} pages (the page budget)"
        key = _shared_key(page)
        text = seen.get(key) if key else None
        if text is None:
            text = page.extract_text() or ""
            if key:
                seen[key] = text
        texts.append(text)
        chars += len(text)
        if chars > max_chars and number < total:
            return texts, (
                f"read {number:,} of {total:,} pages: the text budget of {max_chars:,} "
                "characters is spent"
            )
    return texts, None


def _shared_key(page: Any) -> str | None:
    """What a page's text depends on, when it names its content stream by reference (so pages
    drawing the same stream with the same resources give one key); None otherwise."""
    contents = page.raw_get("/Contents") if "/Contents" in page else None
    refs: list[Any] = contents if isinstance(contents, list) else [contents]
    if not refs or not all(hasattr(ref, "idnum") for ref in refs):
        return None
    resources = repr(page.get("/Resources"))
    if len(resources) > MAX_SHARED_KEY_CHARS:
        return None
    return " ".join(f"{ref.idnum}:{ref.generation}" for ref in refs) + "|" + resources
