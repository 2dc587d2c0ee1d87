"""Reading lists as people write them (issue 20, item 4): the user's own list (the seed's second
post: prose, links without a scheme, three cut short with "…", one entry with no link), as it
pastes from the post and flattened into one line; `Title <url>`, bare-URL, numbered-prose and
reference-style lists; addresses cut short completed from saved copies or flagged; lines that
cannot be read reported with their number; and the invariant that an entry's URL is always a
whole http(s) address."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.artifacts.sources import Corpus, ReadingListEntry
from pipeline.cli import main
from pipeline.ingest.addresses import ELLIPSIS
from pipeline.ingest.folder import ingest_folder
from pipeline.ingest.reading_list import parse_reading_list, read_reading_list

SEED_POST = (Path(__file__).parent / "fixtures" / "seed-post-reading-list.md").read_text("utf-8")
# The seed stores the post with its line breaks turned into spaces: the same list, one line.
SEED_POST_FLAT = SEED_POST.replace("\n", " ").strip() + "\n"

ANYSCALE = "https://www.anyscale.com/blog/continuous-batching-llm-inference"
MASTERING = "https://developer.nvidia.com/blog/mastering-llm-techniques-inference-optimization/"
VLLM = "https://www.aleksagordic.com/blog/vllm"
KIPPLY = "https://kipp.ly/transformer-inference-arithmetic/"
SEED_TITLES = [
    "Inside vLLM: Anatomy of a High-Throughput LLM Inference System",
    "Continuous Batching 博客",
    "Mastering LLM Techniques: Inference Optimization",
    "LLM Inference Benchmarking: Fundamental Concepts",
]


def _saved_page(title: str, canonical: str, body: str) -> str:
    return (
        f'<html lang="en"><head><title>{title}</title>'
        f'<link rel="canonical" href="{canonical}"></head>'
        f"<body><article><h1>{title}</h1><p>{body}</p></article></body></html>"
    )


def _seed_folder(root: Path, reading_list: str, *, with_copies: bool = True) -> Path:
    root.mkdir()
    (root / "reading-list.md").write_text(reading_list, encoding="utf-8")
    (root / "notes.md").write_text("# 我的笔记\n\n调度器每一步重新挑请求。\n", encoding="utf-8")
    if not with_copies:
        return root
    pages = {
        "vllm.html": (SEED_TITLES[0], VLLM, "A request enters the engine and waits in a queue. "),
        "anyscale.html": (
            "How continuous batching enables 23x throughput in LLM inference while reducing "
            "p50 latency",
            ANYSCALE,
            "Static batches wait for their longest answer; continuous batches refill a slot. ",
        ),
        "nvidia.html": (SEED_TITLES[2], MASTERING, "Prefill reads the prompt; decode writes. "),
        "kipply.html": (
            "Transformer Inference Arithmetic",
            KIPPLY,
            "Count the bytes the weights take and the time to read them once per token. ",
        ),
    }
    for name, (title, url, body) in pages.items():
        (root / name).write_text(_saved_page(title, url, body * 40), encoding="utf-8")
    return root


@pytest.mark.parametrize("text", [SEED_POST, SEED_POST_FLAT], ids=["as-pasted", "one-line"])
def test_the_seed_post_gives_its_five_entries(text: str) -> None:
    entries = parse_reading_list(text)
    assert [e.title for e in entries[:4]] == SEED_TITLES
    assert [e.address for e in entries[:4]] == [
        "aleksagordic.com/blog/vllm",
        "anyscale.com/blog/continuous…",
        "developer.nvidia.com/blog/ma…",
        "developer.nvidia.com/blog/ll…",
    ]
    assert entries[0].url == "https://aleksagordic.com/blog/vllm"  # a bare domain: https
    assert [e.address_cut_short for e in entries[:4]] == [False, True, True, True]
    assert all(e.url is None for e in entries[1:])  # cut short or none: never a URL
    assert entries[0].note.startswith("把很多零散的概念串进了一个真实系统")
    assert entries[1].note.startswith("llm用户的回答有长有短")
    assert entries[2].note.startswith("适合先建立基本认识")
    assert entries[3].note.startswith("这一篇我也很推荐")
    kipply = entries[4]  # "4. 想再往下算一层，读 kipply 的 Transformer Inference Arithmetic"
    assert (kipply.title_from, kipply.url, kipply.address) == ("item", None, "")
    assert "Transformer Inference Arithmetic" in kipply.title
    assert len(entries) == 5


@pytest.mark.parametrize("text", [SEED_POST, SEED_POST_FLAT], ids=["as-pasted", "one-line"])
def test_the_seed_post_is_completed_from_the_saved_copies(tmp_path: Path, text: str) -> None:
    corpus = ingest_folder(_seed_folder(tmp_path / "seed", text))
    got = [(e.title, e.url, e.matched_source, e.matched_by) for e in corpus.reading_list]
    assert got == [
        (SEED_TITLES[0], VLLM, "vllm", "url"),  # the copy's spelling of a bare domain
        (SEED_TITLES[1], ANYSCALE, "anyscale", "url"),
        (SEED_TITLES[2], MASTERING, "nvidia", "url"),
        (SEED_TITLES[3], None, None, None),  # no saved copy: still cut short
        ("Transformer Inference Arithmetic", None, "kipply", "contains"),
    ]
    completed = [e.completed_from for e in corpus.reading_list]
    assert completed == ["vllm", "anyscale", "nvidia", None, None]
    benchmarking = corpus.reading_list[3]
    assert benchmarking.address_cut_short
    [warning] = corpus.warnings
    line = 1 if text is SEED_POST_FLAT else SEED_POST.splitlines().index(benchmarking.address) + 1
    assert warning.path == f"reading-list.md:{line}" == f"reading-list.md:{benchmarking.line}"
    assert warning.warning.startswith(
        "address cut short (developer.nvidia.com/blog/ll…): no saved copy's URL starts with it"
    )
    # What the route may use: the completed addresses and the copies' own URLs, never a cut one.
    assert corpus.has_url(ANYSCALE) and corpus.has_url(KIPPLY)
    assert not any(u.startswith("https://developer.nvidia.com/blog/ll") for u in corpus.urls())
    assert not [s for s in corpus.skipped if s.path.startswith("reading-list.md")]


def test_the_seed_post_without_copies_flags_what_it_cannot_complete(tmp_path: Path) -> None:
    corpus = ingest_folder(_seed_folder(tmp_path / "seed", SEED_POST, with_copies=False))
    assert [e.title for e in corpus.reading_list] == SEED_TITLES
    assert [e.url for e in corpus.reading_list] == ["https://aleksagordic.com/blog/vllm"] + [None] * 3
    lines = {e.line for e in corpus.reading_list[1:]}
    assert {w.path for w in corpus.warnings} == {f"reading-list.md:{n}" for n in lines}
    assert all("address cut short" in w.warning for w in corpus.warnings)
    # The kipply item names no saved copy: reported with its line, not kept.
    [item] = [s for s in corpus.skipped if s.path.startswith("reading-list.md:")]
    assert item.path == f"reading-list.md:{SEED_POST.splitlines().index('Transformer Inference Arithmetic')}"
    assert item.reason.startswith("a list item with no address, and no saved copy")


def test_tujie_ingest_prints_the_warnings_and_how_each_entry_matched(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _seed_folder(tmp_path / "seed", SEED_POST)
    assert main(["ingest", str(folder), "--out", str(tmp_path / "out")]) == 0
    shown = " ".join(capsys.readouterr().out.split())
    assert "reading list: 4 of 5 entries have a saved copy here (1 unmatched" in shown
    assert (
        "Continuous Batching 博客 ← anyscale (by url, score 0.36; same URL; the address was "
        "completed from anyscale)"
    ) in shown
    assert (
        "Transformer Inference Arithmetic ← kipply (by contains, score 0.38; the entry's title "
        "contains the copy's whole title)"
    ) in shown
    assert "warning reading-list.md:" in shown and "address cut short" in shown


# ---------------------------------------------------------------------------------------------
# Other ways of writing a list


def test_title_autolink_and_bare_url_lists() -> None:
    text = (
        "Inside vLLM <https://www.aleksagordic.com/blog/vllm>\n"
        "Orca: A Distributed Serving System <https://www.usenix.org/conference/osdi22/presentation/yu> — the paper\n"
        "<https://arxiv.org/abs/2309.06180>\n"
        "\n"
        "https://arxiv.org/abs/2403.02310\n"
        "https://docs.vllm.ai/en/stable/configuration/optimization/ 调优文档\n"
        "见https://kipp.ly/transformer-inference-arithmetic/。\n"
    )
    got = [(e.title, e.title_from, e.url, e.note) for e in parse_reading_list(text)]
    assert got == [
        ("Inside vLLM", "list", "https://www.aleksagordic.com/blog/vllm", ""),
        (
            "Orca: A Distributed Serving System",
            "list",
            "https://www.usenix.org/conference/osdi22/presentation/yu",
            "the paper",
        ),
        ("https://arxiv.org/abs/2309.06180", "address", "https://arxiv.org/abs/2309.06180", ""),
        ("https://arxiv.org/abs/2403.02310", "address", "https://arxiv.org/abs/2403.02310", ""),
        (
            "https://docs.vllm.ai/en/stable/configuration/optimization/",
            "address",
            "https://docs.vllm.ai/en/stable/configuration/optimization/",
            "调优文档",
        ),
        (KIPPLY, "address", KIPPLY, ""),  # a URL glued to the prose around it
    ]


def test_titles_on_the_line_above_and_numbered_prose() -> None:
    text = (
        "推荐三篇：\n\n"
        "1、先读主线 Inside vLLM，作者 Aleksa Gordić aleksagordic.com/blog/vllm 一个请求走完全程。\n"
        "2、Orca: A Distributed Serving System for Transformer-Based Generative Models，OSDI 2022 "
        "https://www.usenix.org/conference/osdi22/presentation/yu\n"
        "3) 分块预填充\n"
        "   Taming Throughput-Latency Tradeoff in LLM Inference with Sarathi-Serve\n"
        "   arxiv.org/abs/2403.02310\n"
        "   长 prompt 不再卡住生成。\n"
        "[4] vLLM 文档，Optimization and Tuning docs.vllm.ai/en/stable/configuration/optimization/\n"
    )
    got = [(e.title, e.url, e.note) for e in parse_reading_list(text)]
    assert got == [
        ("先读主线 Inside vLLM", "https://aleksagordic.com/blog/vllm", "一个请求走完全程"),
        (
            "Orca: A Distributed Serving System for Transformer-Based Generative Models",
            "https://www.usenix.org/conference/osdi22/presentation/yu",
            "",
        ),
        (
            "Taming Throughput-Latency Tradeoff in LLM Inference with Sarathi-Serve",
            "https://arxiv.org/abs/2403.02310",
            "长 prompt 不再卡住生成",
        ),
        (
            "vLLM 文档，Optimization and Tuning",
            "https://docs.vllm.ai/en/stable/configuration/optimization/",
            "",
        ),
    ]
    assert [e.line for e in parse_reading_list(text)] == [3, 4, 7, 9]


def test_reference_links_html_anchors_and_duplicates() -> None:
    text = (
        "- [Inside vLLM][1] — 主线\n"
        "- <a href=\"https://arxiv.org/abs/2309.06180\">PagedAttention</a>\n"
        "- [Inside vLLM again](https://www.aleksagordic.com/blog/vllm/) — listed twice\n"
        "- [ ] [Sarathi-Serve](https://arxiv.org/abs/2403.02310)\n"
        "\n"
        "[1]: https://www.aleksagordic.com/blog/vllm\n"
        "[Orca]: https://www.usenix.org/conference/osdi22/presentation/yu\n"
    )
    got = [(e.title, e.url, e.note, e.line) for e in parse_reading_list(text)]
    assert got == [
        ("Inside vLLM", "https://www.aleksagordic.com/blog/vllm", "主线", 1),
        ("PagedAttention", "https://arxiv.org/abs/2309.06180", "", 2),
        ("Sarathi-Serve", "https://arxiv.org/abs/2403.02310", "", 4),
        ("Orca", "https://www.usenix.org/conference/osdi22/presentation/yu", "", 7),
    ]


def test_a_cut_short_address_is_completed_from_a_full_one_elsewhere_in_the_list(
    tmp_path: Path,
) -> None:
    root = tmp_path / "list"
    root.mkdir()
    (root / "a.md").write_text("# A\n\nText.\n", encoding="utf-8")
    (root / "reading-list.md").write_text(
        "Continuous batching anyscale.com/blog/continuous…\n"
        f"- [How continuous batching enables 23x throughput]({ANYSCALE}) — the long version\n",
        encoding="utf-8",
    )
    corpus = ingest_folder(root)
    [entry] = corpus.reading_list
    assert (entry.title, entry.url, entry.completed_from) == (
        "Continuous batching",
        ANYSCALE,
        "reading-list.md:2",
    )
    assert entry.note == "the long version" and not corpus.warnings


def test_a_copy_whose_title_disagrees_does_not_complete_an_address(tmp_path: Path) -> None:
    root = tmp_path / "list"
    root.mkdir()
    other = "https://developer.nvidia.com/blog/llm-inference-benchmarking-how-much-does-your-llm-inference-cost/"
    (root / "cost.html").write_text(
        _saved_page("LLM Inference Benchmarking: How Much Does Your LLM Inference Cost?", other, "Cost. " * 50),
        encoding="utf-8",
    )
    (root / "reading-list.md").write_text(
        "LLM Inference Benchmarking: Fundamental Concepts developer.nvidia.com/blog/ll…\n",
        encoding="utf-8",
    )
    corpus = ingest_folder(root)
    [entry] = corpus.reading_list
    assert entry.url is None and entry.address_cut_short and entry.matched_source is None
    [warning] = corpus.warnings
    assert "the saved copy whose URL starts with it has another title (cost)" in warning.warning


def test_lines_that_cannot_be_read_are_reported_with_their_number(tmp_path: Path) -> None:
    root = tmp_path / "list"
    root.mkdir()
    (root / "a.md").write_text("# A\n\nText.\n", encoding="utf-8")
    (root / "reading-list.md").write_text(
        "# 清单\n\n"
        "这些是我读过的。\n"  # prose with no address: nothing to read, nothing said
        "- [Broken](https://\n"  # 4
        "- 论文：\n"  # a sub-heading item
        "- see www.vllm\n"  # 6
        "- A talk with no link\n"  # 7: no address, no saved copy
        "- https://localhost/x\n"  # 8: no host a page can have
        "- [Good](https://a.example/good)\n"
        "- [Two](https://a.example/two) and [Three](https://\n",  # 10: one read, one not
        encoding="utf-8",
    )
    corpus = ingest_folder(root)
    assert [e.url for e in corpus.reading_list] == ["https://a.example/good", "https://a.example/two"]
    reasons = {s.path: s.reason for s in corpus.skipped}
    assert sorted(reasons) == [f"reading-list.md:{n}" for n in (10, 4, 6, 7, 8)]
    assert "[Three](https://" in reasons["reading-list.md:10"]
    assert reasons["reading-list.md:4"].startswith("looks like a reading-list entry but its address")
    assert reasons["reading-list.md:6"].startswith("looks like a reading-list entry")
    assert reasons["reading-list.md:7"].startswith("a list item with no address")
    assert reasons["reading-list.md:8"] == "cannot read the address (https://localhost/x)"


def test_hostile_lines_give_nothing() -> None:
    """Lines built to make a backtracking scanner slow (every repetition in it is bounded): they
    hold no address, and parsing them ends (the suite's run time would show a regression)."""
    for line in ["[" * 20000, "<a href='" * 3000, "[a](" * 10000, "x." * 50000, "(" * 20000]:
        assert read_reading_list(line).entries == []
    [item] = read_reading_list("[1] " * 5000).entries  # a list item with no address
    assert (item.url, item.address, item.title_from) == (None, "", "item")


# ---------------------------------------------------------------------------------------------
# Invariant


PIECES = st.sampled_from(
    [
        "- ", "1. ", "2、", "[3] ", "①", "\n", "\n\n", " ", "，", "。", "…", "...", "⋯", ":", "—",
        "Inside vLLM", "推理", "作者 A", "，OSDI 2022", "https://", "http://", "www.", "a.example",
        "docs.vllm.ai", "/blog/", "x", "continuous", "(", ")", "[", "]", "<", ">", "](", "![",
        "javascript:", "data:", "file:///", "#", "> ", "```", "`", "**", "\"", "'",
        "https://a.example/p", "aleksagordic.com/blog/vllm", "anyscale.com/blog/continuous…",
        "[t](https://b.example/q…)", "<https://c.example/r>", "[r][1]", "[1]: https://d.example/",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(PIECES, st.text(max_size=6)), max_size=30))
def test_a_parsed_entry_url_is_a_whole_web_address(pieces: list[str]) -> None:
    for entry in read_reading_list("".join(pieces)).entries:
        _assert_whole(entry)


def _assert_whole(entry: ReadingListEntry) -> None:
    if entry.url is not None:
        assert entry.url.lower().startswith(("http://", "https://")), entry
        assert not ELLIPSIS.search(entry.url) and not entry.url.endswith("…"), entry
        assert not entry.address_cut_short
    else:
        assert entry.address_cut_short or not entry.address, entry  # cut short, or none given
    assert entry.title.strip()


def test_the_invariant_holds_through_ingest(tmp_path: Path) -> None:
    corpus = ingest_folder(_seed_folder(tmp_path / "seed", SEED_POST_FLAT))
    for entry in corpus.reading_list:
        _assert_whole(entry)
    reloaded = Corpus.model_validate_json(corpus.model_dump_json())
    assert reloaded == corpus


def test_a_domain_alone_after_a_colon_and_a_title_ending_in_its_own_quotes() -> None:
    """Played as a user saving a book chapter (Bitcoin fees): the third line's only address was
    a bare domain, so it was read as the note of the line above (nothing said so), and the
    first title lost its closing quote."""
    text = (
        "Reading list — Bitcoin fees\n\n"
        'Mastering Bitcoin, chapter 9 "Transaction Fees" https://example.org/ch09\n'
        "BIP 125, opt-in full replace-by-fee <https://example.org/bip-0125>\n"
        "mempool.space — live view of the fee market: mempool.space\n"
    )
    got = [(e.title, e.url) for e in parse_reading_list(text)]
    assert got == [
        ('Mastering Bitcoin, chapter 9 "Transaction Fees"', "https://example.org/ch09"),
        ("BIP 125, opt-in full replace-by-fee", "https://example.org/bip-0125"),
        ("mempool.space — live view of the fee market", "https://mempool.space/"),
    ]


@pytest.mark.parametrize("line", [
    "we serve it with docs.vllm.ai and friends",  # a product's name inside a sentence
    "the config: setup.py",  # a file name
    "Notes: vllm.ai is fast",  # not last on its line
])
def test_a_domain_alone_elsewhere_is_no_address(line: str) -> None:
    assert [e.url for e in parse_reading_list(f"- [Some title](https://example.org/x)\n{line}\n")
            if e.url != "https://example.org/x"] == []


@pytest.mark.parametrize(("title", "kept"), [
    ('"Whole title"', "Whole title"), ("《书名》", "书名"), ('"A" and "B"', '"A" and "B"'),
    ("“a “b” c”", "a “b” c"), ("Let's go", "Let's go"), ('Fees"', "Fees"),
])
def test_a_title_loses_only_the_quotes_around_it(title: str, kept: str) -> None:
    [entry] = parse_reading_list(f"- [{title}](https://example.org/t)\n")
    assert entry.title == kept
