"""A per-PDF budget of pages and text (issue 22, deliverable 4): a 5,000-page PDF whose pages
all draw one content stream took hours, parsing the stream again for every page. It stops at
the page budget with a warning naming the file, and the shared stream is parsed once."""

from __future__ import annotations

from pathlib import Path

import pytest
from pdfs import pdf_bytes, shared_stream_pdf
from pypdf import PageObject

from pipeline.ingest.folder import ingest_folder
from pipeline.pdf import MAX_PDF_PAGES, read_pdf

TEXT = "Continuous batching refills the batch at every step."


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many times pypdf extracts a page's text (the real method, counted)."""
    calls: list[int] = []
    real = PageObject.extract_text

    def counted(self: PageObject, *args: object, **kwargs: object) -> str:
        calls.append(1)
        return real(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(PageObject, "extract_text", counted)
    return calls


def test_a_5000_page_pdf_sharing_one_stream_stops_at_the_page_budget(
    tmp_path: Path, parses: list[int]
) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "huge.pdf").write_bytes(shared_stream_pdf(5000, TEXT))
    corpus = ingest_folder(src)
    [source] = corpus.sources
    assert len(source.paragraphs) == MAX_PDF_PAGES and source.paragraphs[0].text == TEXT
    [warning] = corpus.warnings
    assert warning.path == "huge.pdf"
    assert warning.warning == f"long PDF: read the first {MAX_PDF_PAGES:,} of 5,000 pages (the page budget)"
    assert len(parses) == 1  # one stream, parsed once


def test_the_text_budget_stops_a_pdf_whose_pages_say_a_lot() -> None:
    pdf = read_pdf(shared_stream_pdf(30, TEXT), max_chars=10 * len(TEXT))
    assert len(pdf.pages) == 11
    assert pdf.stopped == (
        f"read 11 of 30 pages: the text budget of {10 * len(TEXT):,} characters is spent"
    )


def test_a_short_pdf_is_read_whole_without_a_warning(tmp_path: Path) -> None:
    assert read_pdf(pdf_bytes(TEXT)).stopped is None
    assert read_pdf(shared_stream_pdf(3, TEXT)).pages == [TEXT] * 3
