"""Reading list ↔ saved copies (issue 13, item 2): entries are matched by URL, then by title,
Markdown copies included; a note about a page is not its copy; the route's minutes come from
the matched copy; unmatched entries are listed with the reason. And on the example folder
`examples/serving-frontier`, every article reads with its real title and URL, no markup."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest
from pdfs import pdf_bytes

from pipeline.artifacts.sources import Corpus
from pipeline.cli import main
from pipeline.ingest.folder import ingest_folder
from pipeline.ingest.matching import TITLE_MATCH_THRESHOLD
from pipeline.ingest.titles import title_similarity
from pipeline.plan.model import Plan, RouteStop
from pipeline.render.route import route_views

FRONTIER = Path(__file__).resolve().parents[2] / "examples" / "serving-frontier"
FRONTIER_ARTICLES = {
    "Finding the knee - load testing an LLM server.md": (
        "Finding the knee: load testing an LLM server",
        "https://frontier-notes.example/load-testing/",
    ),
    "Prefill and decode on separate GPUs.md": (
        "Prefill and decode on separate GPUs",
        "https://frontier-notes.example/pd-disaggregation/",
    ),
    "Speculative decoding, explained.md": (
        "Speculative decoding, explained",
        "https://frontier-notes.example/spec-decode/",
    ),
    "goodput-and-slos.html": (
        "Goodput: counting only the requests that met their SLO",
        "https://frontier-notes.example/goodput-slo/",
    ),
    "kv-cache-capacity-fp8.md": (
        "How many tokens fit? KV-cache capacity and FP8",
        "https://frontier-notes.example/kv-capacity/",
    ),
    "parallel-sampling.md": (
        "One prompt, several answers: parallel sampling",
        "https://frontier-notes.example/parallel-sampling/",
    ),
    "streaming-ttft-vs-e2el.md": (
        "Streaming: the first token matters more than the last",
        "https://frontier-notes.example/streaming/",
    ),
    "tensor-parallelism.md": (
        "Tensor parallelism: one layer, many GPUs",
        "https://frontier-notes.example/tensor-parallel/",
    ),
}
# Markup that must not be left in a paragraph; code blocks may hold `$rate` and JSON braces.
LEFTOVER = re.compile(
    r"<[A-Za-z/!]|\{\{|\{%|:::|\[!NOTE\]|^\+\+\+|\$\$|\$[^\s$\"][^$\n]*[^\s$\\]\$(?!\d)"
    r"|skip to content",
    re.I | re.M,
)


def _plan_with_route(urls: list[str]) -> Plan:
    """A plan holding only a route: route_views reads nothing else of it."""
    stops = [RouteStop(title=f"Stop {i}", url=u, why="read it") for i, u in enumerate(urls)]
    return Plan.model_construct(route=stops)


def _minutes(corpus: Corpus, url: str) -> int | None:
    [view] = route_views(_plan_with_route([url]), corpus, None)
    return view.minutes


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "saved"
    root.mkdir()
    # A Chinese article saved under its title, no front matter, no URL.
    (root / "大模型推理框架概述.md").write_text(
        "## 背景\n\n" + "推理框架负责调度、显存和批处理。" * 60, encoding="utf-8"
    )
    # An English Markdown copy with its URL in TOML front matter.
    (root / "kv.md").write_text(
        '+++\ntitle = "How many tokens fit? KV-cache capacity and FP8"\n'
        'url = "https://notes.example/kv/"\n+++\n\n' + "Bytes per token decide. " * 300,
        encoding="utf-8",
    )
    # A note that cites a page in its front matter but is not that page.
    (root / "my-notes.md").write_text(
        "---\ntitle: 我读 PagedAttention 的笔记\nurl: https://arxiv.org/abs/2309.06180\n---\n\n"
        "笔记很短。",
        encoding="utf-8",
    )
    # A Markdown copy with no URL whose title differs only in case and punctuation.
    (root / "spec.md").write_text(
        "---\ntitle: Speculative Decoding, Explained!\n---\n\n" + "Draft then verify. " * 100,
        encoding="utf-8",
    )
    # A saved PDF with no URL: found by its metadata title.
    (root / "paper.pdf").write_bytes(
        pdf_bytes("Orca schedules at the iteration level.", title="Orca: A Distributed Serving System")
    )
    (root / "reading-list.md").write_text(
        "- [大模型推理框架概述 - 知乎](https://zhuanlan.example.com/p/123) — 概述\n"
        "- [How Many Tokens Fit: KV Cache Capacity and FP8](https://notes.example/kv) — copy\n"
        "- [Efficient Memory Management with PagedAttention](https://arxiv.org/abs/2309.06180)\n"
        "- [Speculative decoding, explained](https://blog.example/spec) — by title\n"
        "- [Speculative Decoding](https://docs.vllm.ai/spec/) — vLLM's docs, not saved\n"
        "- [Orca: A Distributed Serving System](https://www.usenix.org/orca) — the paper\n"
        "- [Splitwise](https://arxiv.org/abs/2311.18677) — not saved\n",
        encoding="utf-8",
    )
    return root


def test_entries_match_saved_copies_by_url_then_title(folder: Path) -> None:
    corpus = ingest_folder(folder)
    got = {e.title: (e.matched_source, e.matched_by) for e in corpus.reading_list}
    assert got == {
        "大模型推理框架概述 - 知乎": ("大模型推理框架概述", "title"),  # site suffix ignored
        "How Many Tokens Fit: KV Cache Capacity and FP8": ("kv", "url"),  # Markdown copy
        "Efficient Memory Management with PagedAttention": (None, None),  # a note, not a copy
        "Speculative decoding, explained": ("spec", "title"),
        "Speculative Decoding": (None, None),  # a shorter title is another page
        "Orca: A Distributed Serving System": ("paper", "title"),  # a PDF by its metadata
        "Splitwise": (None, None),
    }
    matched = {e.matched_source: e for e in corpus.reading_list if e.matched_source}
    for source in corpus.sources:
        if source.id in matched:
            assert matched[source.id].words == source.words
    reasons = {u.title: u.reason for u in corpus.unmatched}
    assert set(reasons) == {
        "Efficient Memory Management with PagedAttention",
        "Speculative Decoding",
        "Splitwise",
    }
    assert "my-notes give this URL but another title" in reasons[
        "Efficient Memory Management with PagedAttention"
    ]
    assert reasons["Speculative Decoding"].startswith("no saved copy: closest title is spec")
    assert reasons["Splitwise"] == "no saved copy in the folder"
    assert title_similarity("Speculative Decoding", "Speculative Decoding, Explained!") < (
        TITLE_MATCH_THRESHOLD
    )


def test_route_minutes_come_from_the_matched_copy(folder: Path) -> None:
    corpus = ingest_folder(folder)
    by_id = {s.id: s for s in corpus.sources}
    zh = by_id["大模型推理框架概述"]
    # Chinese is read by the character (300 a minute), English by the word (200 a minute).
    assert _minutes(corpus, "https://zhuanlan.example.com/p/123") == math.ceil(zh.chars / 300)
    assert _minutes(corpus, "https://notes.example/kv") == math.ceil(by_id["kv"].words / 200)
    assert _minutes(corpus, "https://blog.example/spec") == math.ceil(by_id["spec"].words / 200)
    assert _minutes(corpus, "https://arxiv.org/abs/2309.06180") is None  # only a note
    assert _minutes(corpus, "https://arxiv.org/abs/2311.18677") is None  # not saved


def test_unmatched_entries_are_written_to_sources_json(folder: Path, tmp_path: Path) -> None:
    assert main(["ingest", str(folder), "--out", str(tmp_path / "out")]) == 0
    written = json.loads((tmp_path / "out" / "saved" / "sources.json").read_text("utf-8"))
    assert [u["title"] for u in written["unmatched"]] == [
        "Efficient Memory Management with PagedAttention",
        "Speculative Decoding",
        "Splitwise",
    ]
    entry = written["reading_list"][1]
    assert (entry["matched_source"], entry["matched_by"], entry["match_score"]) == ("kv", "url", 1.0)


# ---------------------------------------------------------------------------------------------
# The example folder


def test_serving_frontier_route_takes_minutes_from_every_saved_copy() -> None:
    corpus = ingest_folder(FRONTIER)
    saved = {e.title: e for e in corpus.reading_list if e.matched_source}
    assert set(saved) == {
        "Speculative decoding, explained",
        "Tensor parallelism: one layer, many GPUs",
        "Goodput: counting only the requests that met their SLO",
        "Finding the knee: load testing an LLM server",
        "How Many Tokens Fit: KV Cache Capacity and FP8",
        "One prompt, several answers: parallel sampling",
    }
    views = route_views(_plan_with_route([e.url for e in corpus.reading_list]), corpus, None)
    for entry, view in zip(corpus.reading_list, views, strict=True):
        source = corpus.source(entry.matched_source or "")
        if source is None:
            assert view.minutes is None, entry.title  # no saved copy, no link check: unknown
        else:
            assert source.title_from in ("front-matter", "og:title")
            assert view.minutes == source.reading_minutes >= 3, entry.title  # whole articles
    assert len(corpus.unmatched) == len(corpus.reading_list) - len(saved)


def test_tujie_ingest_reports_real_titles_urls_and_no_markup(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["ingest", str(FRONTIER), "--out", str(tmp_path)]) == 0
    shown = " ".join(capsys.readouterr().out.split())
    written = json.loads((tmp_path / "serving-frontier" / "sources.json").read_text("utf-8"))
    corpus = Corpus.model_validate(written)
    assert {s.path: (s.title, s.url) for s in corpus.sources} == FRONTIER_ARTICLES
    for title, url in FRONTIER_ARTICLES.values():
        assert title in shown and url in shown
    assert "reading list: 6 of 20 entries have a saved copy here" in shown
    for source in corpus.sources:
        assert source.url_from in ("front-matter", "canonical")
        for p in source.paragraphs:
            assert not LEFTOVER.search(p.text), (source.path, p.text)
            assert "+++" not in p.text and "Frontier Notes" not in p.text
    kv = next(s for s in corpus.sources if s.path == "kv-cache-capacity-fp8.md")
    caption = "Where the 80 GB of an H100 go when serving Llama-3-8B in bf16"
    assert any(p.text.startswith(caption) for p in kv.paragraphs)  # the figure's caption
    tp = next(s for s in corpus.sources if s.path == "tensor-parallelism.md")
    assert any(p.text.startswith("Image: Diagram: one transformer layer") for p in tp.paragraphs)
    pd = next(s for s in corpus.sources if s.path.startswith("Prefill"))
    assert "S_KV = 2 · L · H_kv · d_head · b · n" in [p.text for p in pd.paragraphs]


# ---------------------------------------------------------------------------------------------
# A site-wide og:url, a title inside the entry's title (issue 20, item 5)

KIPPLY_BLOG = "https://kipply.github.io/blog"


def _blog_post(title: str, body: str) -> str:
    """A saved blog post whose only URL is the blog's base, as some themes tag every post."""
    return (
        f'<html><head><title>{title} | kipply\'s blog</title>'
        f'<meta property="og:url" content="{KIPPLY_BLOG}"></head>'
        f"<body><article><h1>{title}</h1><p>{body}</p></article></body></html>"
    )


def test_a_site_wide_og_url_neither_blocks_nor_wins_over_the_title(tmp_path: Path) -> None:
    root = tmp_path / "blog"
    root.mkdir()
    (root / "arithmetic.html").write_text(
        _blog_post("Transformer Inference Arithmetic", "Bytes per token. " * 80), encoding="utf-8"
    )
    (root / "taxonomy.html").write_text(
        _blog_post("Transformer Taxonomy", "Families of models. " * 40), encoding="utf-8"
    )
    arithmetic = f"{KIPPLY_BLOG}/transformer-inference-arithmetic/"
    (root / "reading-list.md").write_text(
        f"- [Transformer Inference Arithmetic]({arithmetic}) — kipply\n", encoding="utf-8"
    )
    corpus = ingest_folder(root)
    [entry] = corpus.reading_list
    assert (entry.matched_source, entry.matched_by, entry.match_score) == (
        "arithmetic",
        "title",
        1.0,
    )
    assert "is an ancestor of the entry's URL" in (entry.match_why or "")
    by_id = {s.id: s for s in corpus.sources}
    # The matched page now has its entry's URL; the other post, unmatched, loses the blog's
    # (two pages with different titles gave it: it is the site's, not theirs).
    assert (by_id["arithmetic"].url, by_id["arithmetic"].url_from) == (arithmetic, "reading-list")
    assert (by_id["taxonomy"].url, by_id["taxonomy"].url_from) == (None, None)
    [warning] = corpus.warnings
    assert warning.path == "taxonomy.html" and "(a site-wide tag)" in warning.warning
    assert not corpus.has_url(KIPPLY_BLOG)
    assert _minutes(corpus, arithmetic) == by_id["arithmetic"].reading_minutes
    assert corpus.unmatched == []


def test_a_site_wide_url_completes_no_address_and_is_no_page_s(tmp_path: Path) -> None:
    root = tmp_path / "blog"
    root.mkdir()
    for name, title in (("a.html", "Transformer Inference Arithmetic"), ("b.html", "Taxonomy")):
        (root / name).write_text(_blog_post(title, "Words. " * 40), encoding="utf-8")
    (root / "reading-list.md").write_text("kipply's blog kipply.github.io/bl…\n", encoding="utf-8")
    corpus = ingest_folder(root)
    [entry] = corpus.reading_list
    assert entry.address_cut_short and entry.url is None and entry.matched_source is None
    assert all(s.url is None for s in corpus.sources)
    assert sorted(w.path for w in corpus.warnings) == ["a.html", "b.html", "reading-list.md:1"]
    assert corpus.urls() == set()


@pytest.fixture
def spec_docs(tmp_path: Path) -> Path:
    """Two saved doc pages with the same h1 ("Speculative Decoding"), one LMDeploy's, one vLLM's,
    told apart only by the names they were saved under."""
    root = tmp_path / "docs"
    root.mkdir()
    (root / "05-lmdeploy-投机解码.md").write_text(
        "# Speculative Decoding\n\n" + "LMDeploy 用草稿模型先猜几个 token，再由大模型一次验证。" * 30,
        encoding="utf-8",
    )
    (root / "vllm-speculative-decoding.md").write_text(
        "# Speculative Decoding\n\n" + "vLLM proposes tokens with a draft and verifies them. " * 30,
        encoding="utf-8",
    )
    (root / "reading-list.md").write_text(
        "- [LMDeploy 投机解码（Speculative Decoding）]"
        "(https://lmdeploy.readthedocs.io/zh-cn/latest/advance/spec_decoding.html) — 中文文档\n",
        encoding="utf-8",
    )
    return root


def test_a_title_that_contains_the_page_title_matches_with_the_file_name_as_tie_breaker(
    spec_docs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = ingest_folder(spec_docs)
    [entry] = corpus.reading_list
    assert (entry.matched_source, entry.matched_by) == ("05-lmdeploy-投机解码", "filename")
    assert entry.match_score is not None and 0.5 < entry.match_score < 1
    assert "05-lmdeploy-投机解码.md chose it over vllm-speculative-decoding" in (
        entry.match_why or ""
    )
    assert entry.title == "LMDeploy 投机解码（Speculative Decoding）"  # the list's own words
    assert main(["ingest", str(spec_docs), "--out", str(tmp_path / "out")]) == 0
    shown = " ".join(capsys.readouterr().out.split())
    assert "← 05-lmdeploy-投机解码 (by filename, score" in shown


def test_one_page_inside_the_title_is_a_contains_match(spec_docs: Path) -> None:
    (spec_docs / "vllm-speculative-decoding.md").unlink()
    [entry] = ingest_folder(spec_docs).reading_list
    assert (entry.matched_source, entry.matched_by) == ("05-lmdeploy-投机解码", "contains")
    assert entry.match_why == "the entry's title contains the copy's whole title"


def test_a_page_title_inside_a_longer_one_is_not_the_entry_the_other_way_round() -> None:
    """The page's whole title must be inside the entry's, between word boundaries: the entry
    "Speculative Decoding" is not the page "Speculative Decoding, explained", nor is "Orca" (one
    word) the entry "Orca: A Distributed Serving System"."""
    from pipeline.ingest.matching import title_coverage

    assert title_coverage("Speculative Decoding", "Speculative Decoding, explained") is None
    assert title_coverage("Orca: A Distributed Serving System", "Orca") is None
    assert title_coverage("Unspeculative Decodings", "Speculative Decoding") is None
    assert title_coverage("LMDeploy 投机解码（Speculative Decoding）", "Speculative Decoding") == round(20 / 34, 3)
    assert title_coverage("读 LMDeploy 的投机解码文档", "投机解码文档") is not None
