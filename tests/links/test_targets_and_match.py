"""Which URLs are checked (collect_targets) and how a page is judged (match, soft404), no network."""

from __future__ import annotations

from linksites import corpus_of

from pipeline.artifacts.sources import Corpus, ReadingListEntry, Source, is_site_root
from pipeline.links.check import LinkSettings, LinkTarget, check_links, collect_targets
from pipeline.links.match import (
    best_title_match,
    count_words,
    html_facts,
    read_page,
    right_page,
    title_similarity,
)
from pipeline.links.soft404 import hidden_not_found, not_found_phrase, same_page
from pipeline.plan.model import Citation, Concept, Plan, RouteStop


def _plan(route: list[tuple[str, str]], cited: list[list[str]]) -> Plan:
    # model_construct: only the fields collect_targets reads; the page rules are plan.py's tests.
    concepts = [
        Concept.model_construct(citations=[Citation(source=s, quote="some quote") for s in ids])
        for ids in cited
    ]
    stops = [RouteStop(title=t, url=u, why="because") for t, u in route]
    return Plan.model_construct(route=stops, concepts=concepts)


def _corpus() -> Corpus:
    return Corpus(
        folder="x",
        sources=[
            Source(
                id="a",
                path="a.md",
                kind="md",
                title="Article A",
                url="https://a.example/post",
                sha256="0",
            ),
            Source(
                id="b",
                path="b.md",
                kind="md",
                title="Article B",
                url="https://b.example/",
                sha256="0",
            ),
            Source(id="c", path="c.md", kind="md", title="Article C", sha256="0"),
        ],
        reading_list=[
            ReadingListEntry(title="Paged Attention paper", url="https://arxiv.org/abs/2309.06180"),
            ReadingListEntry(title="Article A, the canonical", url="https://A.example/post/"),
        ],
    )


def test_collect_targets_dedups_in_stable_order_with_source_titles() -> None:
    plan = _plan(
        route=[
            ("分页注意力论文", "https://arxiv.org/abs/2309.06180#sec3"),
            ("A", "https://a.example/post"),
        ],
        cited=[["a"], ["b", "c"], ["b"]],
    )
    targets = collect_targets(plan, _corpus())
    assert [(t.url, t.where) for t in targets] == [
        ("https://arxiv.org/abs/2309.06180#sec3", "route[0]"),
        ("https://a.example/post", "route[1], reading-list[1], citation:concepts[0]"),
        ("https://arxiv.org/abs/2309.06180", "reading-list[0]"),
        ("https://b.example/", "citation:concepts[1], citation:concepts[2]"),
    ]
    # The reading list's own title is the claim, not the plan's (possibly translated) wording.
    assert targets[0].claimed_title == "Paged Attention paper"
    assert targets[1].claimed_title == "Article A, the canonical"
    assert collect_targets(plan, _corpus()) == targets  # deterministic


def test_collect_targets_without_plan_takes_every_source_url() -> None:
    targets = collect_targets(None, _corpus())
    assert [t.where for t in targets] == [
        "reading-list[0]",
        "reading-list[1], source:a",
        "source:b",
    ]


def test_invented_route_url_is_rejected_before_any_request() -> None:
    plan = _plan(route=[("Made up", "https://invented.example/x")], cited=[])
    targets = collect_targets(plan, _corpus())
    report = check_links(targets[:1], _corpus())
    assert report.results[0].status == "not-from-sources"
    assert report.results[0].http_status is None and report.blocking() == report.results


def test_offline_latch_skips_later_hosts() -> None:
    urls = [f"https://h{i}.example.invalid/p" for i in range(4)]
    corpus = corpus_of(*[("T", u) for u in urls])
    targets = [LinkTarget(url=u, claimed_title="T", where="x") for u in urls]
    report = check_links(targets, corpus, settings=LinkSettings(offline_after_failures=2))
    assert {r.status for r in report.results} == {"unverified-offline"}
    assert sum("skipped" in r.evidence for r in report.results) == 2  # only two lookups were made
    assert report.offline


def test_title_similarity_en_zh_and_site_suffixes() -> None:
    assert title_similarity("Paged Attention", "paged attention!") == 1.0
    assert best_title_match("vllm bench serve", ["vllm bench serve - vLLM"])[0] == 1.0
    score, which = best_title_match(
        "Efficient Memory Management for Large Language Model Serving with PagedAttention",
        [
            "[2309.06180] Efficient Memory Management for Large Language Model Serving with PagedAttention"
        ],
    )
    assert score >= 0.9 and which is not None
    assert (
        best_title_match("连续批处理：让显卡不再空等", ["连续批处理：让显卡不再空等 | 某博客"])[0]
        == 1.0
    )
    assert best_title_match("Continuous batching", ["Cooking pasta at home"])[0] < 0.6
    assert best_title_match("连续批处理", ["红烧肉的做法"])[0] < 0.6


def test_not_found_phrases_without_false_alarms() -> None:
    assert not_found_phrase(["Page Not Found | Example"]) == "page not found"
    assert not_found_phrase(["404"]) and not_found_phrase(["Not Found"])
    assert not_found_phrase(["抱歉，您访问的页面不存在"]) is not None
    assert not_found_phrase(["Handling Not Found errors in Flask"]) is None
    assert not_found_phrase(["The 404 Media Podcast"]) is None


def test_words_count_cjk_chars_and_latin_words() -> None:
    assert count_words("KV cache 很重要, really!") == 3 + 3  # KV cache really + 很重要
    facts = html_facts(
        "<html><head><title>T</title><script>var a = 1;</script></head>"
        "<body><h1 id='top'>标题</h1><p>两个字 two words</p><style>p{}</style></body></html>".encode(),
        None,
    )
    assert facts.words == 2 + 3 + 2 and facts.anchors == {"top"} and facts.titles == ["T", "标题"]


def test_gbk_page_is_read_in_its_own_charset() -> None:
    body = (
        "<html><head><meta charset='gbk'><title>分页注意力</title></head><body>正文</body></html>"
    )
    facts = read_page(body.encode("gbk"), "text/html", None)
    assert facts.title == "分页注意力"


def test_same_page_and_site_root() -> None:
    assert same_page("a" * 500, "a" * 500) and not same_page("a" * 500, "b" * 500)
    assert not same_page("", "")
    assert is_site_root("https://x.example/") and is_site_root("https://x.example")
    assert not is_site_root("https://x.example/?p=12") and not is_site_root("https://x.example/a")


def test_right_page_fragments_and_hidden_not_found() -> None:
    facts = html_facts(b"<title>Prefix Caching</title><h2 id='how'>x</h2>", None)
    assert right_page("Prefix Caching", "https://x.example/p#how", facts, False).fragment_ok is True
    text_fragment = right_page("Prefix Caching", "https://x.example/p#:~:text=cache", facts, False)
    assert (text_fragment.status, text_fragment.fragment_ok) == ("ok", None)
    truncated = right_page("Prefix Caching", "https://x.example/p#later", facts, True)
    assert truncated.status == "broken" and "part read" in truncated.evidence
    assert hidden_not_found("https://x.example/p", "https://x.example/", True, facts) is not None
    assert hidden_not_found("https://x.example/", "https://x.example/", True, facts) is None
