"""The footer's sources (issue 20, item 3): each article once, its reading-list entry and its
saved copies merged; no saved file name in the reading flow (PAGE.md P24); an address cut short
is never a link."""

from __future__ import annotations

from bs4 import BeautifulSoup
from hypothesis import given
from hypothesis import strategies as st

from pipeline.artifacts.sources import Corpus, Paragraph, ReadingListEntry, Source, normalize_url
from pipeline.config import PageConfig
from pipeline.plan.model import Citation, Concept, Plan
from pipeline.render.page import render_page
from pipeline.render.source_list import NOTE_MAX_CHARS, source_views
from tests.render.conftest import fixture_corpus, fixture_links, fixture_sim, load_fixture_plan

VLLM = "https://www.aleksagordic.com/blog/vllm"
SPEC = "https://blog.example/spec"
KIPPLY = "https://kipp.ly/transformer-inference-arithmetic/"
BARE = "https://arxiv.org/abs/2403.02310"
SITE = "https://site.example/blog"


def _source(sid: str, path: str, kind: str, title: str, url: str | None) -> Source:
    return Source(
        id=sid, path=path, kind=kind, title=title, url=url, words=800, chars=800,
        sha256="0" * 64, paragraphs=[Paragraph(anchor=f"{sid}-p1", text="text")],
    )  # fmt: skip


def _corpus() -> Corpus:
    sources = [
        _source("vllm", "saved/inside-vllm.html", "html", "Inside vLLM (page)", VLLM),
        _source("my-notes", "my-notes.md", "md", "我读 Inside vLLM 的笔记", VLLM),  # about it
        _source("spec", "spec.md", "md", "Speculative Decoding, Explained!", None),
        _source("kipply", "kipply.html", "html", "Transformer Inference Arithmetic", KIPPLY),
        _source("sarathi", "2403.02310v1.pdf", "pdf", "Taming Throughput-Latency Tradeoff", BARE),
        _source("a", "a.html", "html", "Post A", SITE),  # two posts, one site-wide og:url
        _source("b", "b.html", "html", "Post B", SITE),
        _source("loose", "loose-notes.md", "md", "Loose notes", None),
    ]
    reading_list = [
        ReadingListEntry(title="Inside vLLM", url=VLLM, note="主线", matched_source="vllm"),
        ReadingListEntry(title="Speculative decoding, explained", url=SPEC, matched_source="spec"),
        ReadingListEntry(  # a list item with no address, matched by the title it names
            title="Transformer Inference Arithmetic", title_from="copy", matched_source="kipply",
            note="选读。" + "很长的一段说明" * 20,
        ),
        ReadingListEntry(  # cut short, no copy: never a link
            title="LLM Inference Benchmarking", address="developer.nvidia.com/blog/ll…",
            address_cut_short=True,
        ),
        ReadingListEntry(title=BARE, title_from="address", url=BARE, matched_source="sarathi"),
    ]  # fmt: skip
    return Corpus(folder="f", sources=sources, reading_list=reading_list)


def _plan_citing(*ids: str) -> Plan:
    citations = [Citation.model_construct(source=i, quote="q") for i in ids]
    return Plan.model_construct(concepts=[Concept.model_construct(citations=citations)])


def test_each_article_once_with_its_entry_and_copies_merged() -> None:
    corpus = _corpus()
    views = source_views(_plan_citing("kipply", "a", "b", "loose"), corpus)
    assert [(v.title, v.url) for v in views] == [
        ("Inside vLLM", VLLM),  # the entry, its saved page and the note about it: one item
        ("Speculative decoding, explained", SPEC),
        ("Transformer Inference Arithmetic", KIPPLY),  # no address: its cited copy's URL
        ("LLM Inference Benchmarking", None),  # cut short: no link
        ("Taming Throughput-Latency Tradeoff", BARE),  # an address only: the copy's title
        ("Post A", SITE),
        ("Post B", None),  # the same site-wide URL is linked once
        ("Loose notes", None),
    ]
    links = [normalize_url(v.url) for v in views if v.url]
    assert len(links) == len(set(links))
    titles = [v.title.casefold() for v in views]
    assert len(titles) == len(set(titles))
    # Saved file names are production notes: never in the list.
    shown = " ".join(f"{v.title} {v.note}" for v in views)
    assert not any(s.path in shown for s in corpus.sources)
    assert "inside-vllm" not in shown and "2403.02310v1" not in shown
    assert views[0].note == "主线"
    assert views[2].note == "选读。" and len(views[2].note) <= NOTE_MAX_CHARS


def test_an_uncited_copy_gives_no_link() -> None:
    """Only cited sources' own URLs go through the link check; a reading-list entry's always."""
    views = source_views(_plan_citing(), _corpus())
    by_title = {v.title: v.url for v in views}
    assert by_title["Transformer Inference Arithmetic"] is None
    assert by_title["Inside vLLM"] == VLLM
    assert by_title["Post A"] is None and by_title["Post B"] is None


def test_the_page_footer_lists_a_saved_copy_and_its_entry_once() -> None:
    corpus = fixture_corpus()
    notes = corpus.sources[0]
    corpus.reading_list.append(
        ReadingListEntry(
            title="分块预填充笔记", url=notes.url, note="本地保存的一份", matched_source=notes.id
        )
    )
    plan = load_fixture_plan()
    html = render_page(plan, corpus, PageConfig(), fixture_sim(), fixture_links())
    soup = BeautifulSoup(html, "html.parser")
    items = [li.get_text(" ", strip=True) for li in soup.select("ul.sources li")]
    assert items == [
        "Inside vLLM",
        "Sarathi-Serve",
        "分块预填充笔记 本地保存的一份",
    ]
    assert notes.title not in " ".join(items)  # merged under the entry's title
    assert notes.path not in soup.get_text()


@given(st.lists(st.text(alphabet=st.characters(codec="utf-8", categories=("L", "Nd")),
                        min_size=1, max_size=14), min_size=12, max_size=30),
       st.sampled_from([" ", "，"]))
def test_a_long_note_is_cut_between_words_never_inside_one(words: list[str], sep: str) -> None:
    """A note too long for the list (and with no short first sentence) ends at a word or
    clause boundary: what is shown is whole words of the note, then "…"."""
    from pipeline.render.source_list import _short_note

    note = sep.join(words)
    shown = _short_note(note)
    assert len(shown) <= NOTE_MAX_CHARS
    if len(note) > NOTE_MAX_CHARS:
        assert shown.endswith("…")
        kept = shown[:-1].split(sep)
        assert kept == words[: len(kept)], (shown, note)
