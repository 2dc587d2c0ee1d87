"""The URLs the route may use (issue 20, item 4): the reading list's complete addresses and the
articles' own URLs (canonical link, front matter `url:`), and nothing else. `Corpus.has_url`
(what the plan's route rule asks) accepts exactly the URLs the prompt offers the model, in both
the direct and the notes form of the corpus, with or without a reading list."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from pipeline.artifacts.sources import Corpus, normalize_url
from pipeline.ingest.folder import ingest_folder
from pipeline.plan.prompting import render_prompt

OWN_MD = "https://notes.example/a/"
OWN_HTML = "https://blog.example/posts/b"
INNER = ("https://inner.example/cited", "https://inner.example/bare")
FULL = "https://arxiv.org/abs/2403.02310"


def _folder(root: Path, reading_list: str | None) -> Path:
    root.mkdir()
    (root / "a.md").write_text(
        f"---\ntitle: Note A\nurl: {OWN_MD}\n---\n\n"
        f"A cites [a paper]({INNER[0]}) and {INNER[1]} in its text.\n",
        encoding="utf-8",
    )
    (root / "b.html").write_text(
        f'<html><head><title>Post B</title><link rel="canonical" href="{OWN_HTML}"></head>'
        "<body><article><h1>Post B</h1><p>The body of B.</p></article></body></html>",
        encoding="utf-8",
    )
    (root / "c.html").write_text(  # og:url is the site's front page: not the article's
        '<html><head><meta property="og:url" content="https://blog.example/"></head>'
        "<body><article><h1>Post C</h1><p>The body of C.</p></article></body></html>",
        encoding="utf-8",
    )
    (root / "d.txt").write_text("Plain notes\n\nNo address at all.\n", encoding="utf-8")
    if reading_list is not None:
        (root / "reading-list.md").write_text(reading_list, encoding="utf-8")
    return root


def _offered(corpus: Corpus) -> dict[str, set[str]]:
    """The URLs each form of the corpus prompt shows the model (attributes and list lines)."""
    direct = render_prompt("corpus.j2", sources=corpus.sources, reading_list=corpus.reading_list)
    notes = [SimpleNamespace(source=s, text="- concept — name: x") for s in corpus.sources]
    summary = render_prompt("notes_corpus.j2", notes=notes, reading_list=corpus.reading_list)
    pattern = re.compile(r'url="([^"]+)"|<(https?://[^>]+)>')
    return {
        form: {normalize_url(a or b) for a, b in pattern.findall(text)}
        for form, text in (("direct", direct), ("notes", summary))
    }


@pytest.mark.parametrize("listed", [None, f"- [Sarathi-Serve]({FULL})\n"], ids=["no-list", "list"])
def test_has_url_accepts_exactly_what_the_prompt_offers(tmp_path: Path, listed: str | None) -> None:
    corpus = ingest_folder(_folder(tmp_path / "f", listed))
    expected = {normalize_url(OWN_MD), normalize_url(OWN_HTML)}
    if listed:
        expected.add(normalize_url(FULL))
    assert corpus.urls() == expected
    for form, urls in _offered(corpus).items():
        assert urls == expected, form
    # A folder with no reading list still has a route: its articles' own URLs.
    assert corpus.has_url(OWN_MD) and corpus.has_url(OWN_HTML + "/")
    # Links inside an article were never offered for the route, so they are not accepted.
    assert all(u in corpus.sources[0].links for u in INNER)
    assert not any(corpus.has_url(u) for u in INNER)
    assert not corpus.has_url("https://blog.example/")


def test_an_address_cut_short_is_never_offered(tmp_path: Path) -> None:
    corpus = ingest_folder(
        _folder(
            tmp_path / "f",
            f"- [Sarathi-Serve]({FULL})\n"
            "LLM Inference Benchmarking developer.nvidia.com/blog/ll…\n",
        )
    )
    assert [e.address_cut_short for e in corpus.reading_list] == [False, True]
    for form, urls in _offered(corpus).items():
        assert not any("nvidia" in u for u in urls), form
    direct = render_prompt("corpus.j2", sources=corpus.sources, reading_list=corpus.reading_list)
    assert "developer.nvidia.com/blog/ll" not in direct
    assert not any("nvidia" in u for u in corpus.urls())
