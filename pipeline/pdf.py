"""Reading a PDF's text layer with pypdf: the one module that imports it (ingest and the link
checker both read PDFs). pypdf logs what it repairs ("EOF marker not found") through `logging`,
which would print stray lines; here they are captured and handed back as `problems`, so the
caller reports them its own way (a skip reason, a warning naming the file).
"""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

PYPDF_LOGGER = "pypdf"
MAX_PROBLEM_CHARS = 120


class PdfUnreadable(Exception):
    """The bytes are not a PDF whose text can be read; the message says why."""


@dataclass
class PdfText:
    """The text of each page read, the metadata title, and what pypdf had to repair."""

    pages: list[str]
    title: str | None = None
    problems: list[str] = field(default_factory=list)


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


def read_pdf(data: bytes, *, max_pages: int | None = None) -> PdfText:
    """The text of the first `max_pages` pages (all when None). Raises `PdfUnreadable` for an
    encrypted or broken file, naming pypdf's first complaint (e.g. a truncated file)."""
    from pypdf import PdfReader  # imported here: only PDFs pay for it
    from pypdf.errors import PyPdfError

    with _pypdf_log_captured() as problems:
        try:
            reader = PdfReader(io.BytesIO(data))
            if reader.is_encrypted and not reader.decrypt(""):
                raise PdfUnreadable("encrypted PDF")
            pages = [page.extract_text() or "" for page in reader.pages[:max_pages]]
            meta_title = reader.metadata.title if reader.metadata else None
        except PdfUnreadable:
            raise
        except (PyPdfError, ValueError, KeyError, TypeError, OSError, RecursionError) as err:
            said = f": {problems[0]}" if problems else ""
            raise PdfUnreadable(f"unreadable PDF ({type(err).__name__}{said})") from None
    title = meta_title.strip() if isinstance(meta_title, str) and meta_title.strip() else None
    return PdfText(pages, title, problems)
