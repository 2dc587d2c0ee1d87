"""Ingest of hostile article files: HTML nested thousands deep is read, a truncated PDF is skipped
with a reason and a repairable one ingested with a warning, and pypdf prints nothing of its own
(issue 10, cases 9 and 12)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pdfs import pdf_bytes

from pipeline.cli import main
from pipeline.ingest.folder import ingest_folder
from pipeline.links.match import read_page

DEPTH = 5000
PDF_TEXT = "Paged attention splits memory into blocks."


def _deep(tag: str, depth: int = DEPTH) -> str:
    return f"<{tag}>" * depth + "Deep text at the bottom." + f"</{tag}>" * depth


@pytest.mark.parametrize("tag", ["div", "span", "section", "li", "blockquote"])
def test_html_nested_thousands_deep_is_read(tmp_path: Path, tag: str) -> None:
    (tmp_path / "deep.html").write_text(
        f"<html><head><title>Deep</title></head><body><p>Top.</p>{_deep(tag)}</body></html>",
        encoding="utf-8",
    )
    [source] = ingest_folder(tmp_path).sources
    assert source.title == "Deep"
    assert [p.text for p in source.paragraphs] == ["Top.", "Deep text at the bottom."]


def test_block_structure_is_kept_by_the_iterative_walk(tmp_path: Path) -> None:
    (tmp_path / "page.html").write_text(
        "<html><body><div>lead <b>bold</b><p>one</p>tail<br>line<ul><li>a</li><li>b</li></ul>"
        "</div><pre>code\n  kept</pre></body></html>",
        encoding="utf-8",
    )
    [source] = ingest_folder(tmp_path).sources
    assert [p.text for p in source.paragraphs] == [
        "lead bold",
        "one",
        "tail\nline",
        "a",
        "b",
        "code\n  kept",
    ]


def test_a_deep_page_fetched_by_the_link_checker_is_read() -> None:
    body = f"<html><head><title>Deep</title></head><body>{_deep('div')}</body></html>"
    facts = read_page(body.encode(), "text/html", "utf-8")
    assert facts.titles == ["Deep"] and facts.words > 0


def _folder_with(tmp_path: Path, name: str, data: bytes) -> Path:
    root = tmp_path / "pdfs"
    root.mkdir()
    (root / "ok.md").write_text("# Ok\n\nAn article.\n", encoding="utf-8")
    (root / name).write_bytes(data)
    return root


def test_truncated_pdf_is_skipped_with_the_reason_and_prints_nothing(
    tmp_path: Path,
    capfd: pytest.CaptureFixture[str],
) -> None:
    pdf = pdf_bytes(PDF_TEXT)
    root = _folder_with(tmp_path, "cut.pdf", pdf[: len(pdf) // 2])
    corpus = ingest_folder(root)
    assert [s.path for s in corpus.sources] == ["ok.md"]
    [skip] = corpus.skipped
    assert skip.path == "cut.pdf"
    assert skip.reason.startswith("unreadable PDF") and "EOF marker not found" in skip.reason
    captured = capfd.readouterr()
    assert captured.out == "" and captured.err == ""  # no stray pypdf log line


def test_damaged_pdf_is_ingested_with_a_one_line_warning(
    tmp_path: Path,
    capfd: pytest.CaptureFixture[str],
) -> None:
    wrong_pointer = re.sub(rb"startxref\n\d+", b"startxref\n12", pdf_bytes(PDF_TEXT))
    root = _folder_with(tmp_path, "bent.pdf", wrong_pointer)
    assert main(["ingest", str(root), "--out", str(tmp_path / "out")]) == 0
    captured = capfd.readouterr()
    assert captured.err == ""
    warnings = [ln for ln in captured.out.splitlines() if ln.startswith("warning")]
    assert warnings == [
        "warning bent.pdf: damaged PDF, read what could be read (incorrect startxref pointer(1))"
    ]
    corpus = ingest_folder(root)
    pdf = next(s for s in corpus.sources if s.path == "bent.pdf")
    assert PDF_TEXT in pdf.text
    assert [w.path for w in corpus.warnings] == ["bent.pdf"]


def test_reading_list_entries_that_are_not_web_links_are_listed_as_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "rl"
    root.mkdir()
    (root / "a.md").write_text("# A\n\nText.\n", encoding="utf-8")
    (root / "reading-list.md").write_text(
        "# List\n\n"
        "- [Good](https://a.example/good) — kept\n"
        "- [Click](javascript:alert(document.cookie)) — hostile\n"
        "- [Inline](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)\n"
        "- [Local](file:///etc/passwd)\n"
        "- <data:text/html,hi>\n"
        "* [Notes](notes/other.md) — relative\n"
        "Prose with [a link](javascript:void) is refused as well.\n",
        encoding="utf-8",
    )
    corpus = ingest_folder(root)
    assert [e.url for e in corpus.reading_list] == ["https://a.example/good"]
    reasons = {s.path: s.reason for s in corpus.skipped}
    assert sorted(reasons) == [f"reading-list.md:{n}" for n in (4, 5, 6, 7, 8, 9)]
    assert "javascript:alert(document.cookie" in reasons["reading-list.md:4"]
    assert reasons["reading-list.md:6"].endswith("(file:///etc/passwd)")
    assert all(r.startswith("not an http(s) web address") for r in reasons.values())
    assert main(["ingest", str(root), "--out", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert "skipped reading-list.md:6: not an http(s) web address (file:///etc/passwd)" in out
