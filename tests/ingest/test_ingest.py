"""Ingest: every format and encoding, skipped files with reasons, the reading list, the example."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pdfs import pdf_bytes

from pipeline.artifacts.sources import Corpus
from pipeline.errors import SourceError
from pipeline.ingest.folder import (
    MAX_FILE_BYTES,
    ingest_folder,
    reading_minutes,
    write_corpus,
)
from pipeline.ingest.reading_list import parse_reading_list

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "llm-inference"
ZH = "分页注意力把显存切成小格子按需分配，调度器每一步都会检查空闲块的数量。"
ZH_TRADITIONAL = "分頁注意力把顯存切成小格子按需分配，調度器每一步都會檢查空閒塊的數量。"

GBK_HTML = f"""<!DOCTYPE html>
<html lang="zh-CN"><head><meta charset="gbk"><title>分页注意力 | 某博客</title>
<link rel="canonical" href="https://blog.example.cn/paged-attention">
<style>body {{ color: red }}</style><script>var secret = "脚本内容";</script></head>
<body><nav><a href="https://blog.example.cn/">首页导航</a></nav>
<article><h1>分页注意力</h1><p>{ZH}</p>
<ul><li>第一条：块大小默认 16</li><li>第二条：按需分配</li></ul>
<pre><code>blocks = pool.allocate(n)</code></pre>
<table><tr><th>方案</th><th>浪费</th></tr><tr><td>连续预留</td><td>很多</td></tr></table>
<p>原文见 <a href="https://arxiv.org/abs/2309.06180">论文</a>。</p></article>
<aside>侧边栏广告</aside><footer>版权所有 页脚</footer></body></html>"""


@pytest.fixture
def mixed(tmp_path: Path) -> Corpus:
    root = tmp_path / "mixed"
    (root / "deep" / "er").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("[core]", encoding="utf-8")
    (root / "a.md").write_text(
        '---\ntitle: "KV 缓存"\nurl: https://example.org/kv\nlang: zh\n---\n\n# 标题不覆盖\n\n'
        "KV cache 很重要，见 [原文](https://example.org/source) 和 **加粗** 的 `code`。\n\n"
        "```\nline one\n\nline two\n```\n",
        encoding="utf-8",
    )
    (root / "bom.txt").write_bytes("\ufeff带 BOM 的标题\n\n第二段。".encode())
    (root / "utf16.txt").write_bytes("UTF-16 title\n\nSecond paragraph here.".encode("utf-16"))
    (root / "gbk.txt").write_bytes(f"国标编码\n\n{ZH}".encode("gbk"))
    (root / "big5.txt").write_bytes(f"繁體標題\n\n{ZH_TRADITIONAL}".encode("big5"))
    (root / "deep" / "er" / "page.html").write_bytes(GBK_HTML.encode("gbk"))
    (root / "deep" / "doc.pdf").write_bytes(
        pdf_bytes("Paged attention splits memory into blocks.", title="Paged Attention Notes")
    )
    (root / "binary.md").write_bytes(bytes(range(256)) * 40)
    (root / "empty.md").write_bytes(b"")
    (root / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (root / "page.toml").write_text('title = "x"\n', encoding="utf-8")
    (root / "plan.json").write_text("{}", encoding="utf-8")
    (root / "reading-list.md").write_text(
        "# 清单\n\n- [KV Cache Explained](https://example.org/kv) — 主线\n"
        "- [Paged](https://blog.example.cn/paged-attention) — 存下的网页\n",
        encoding="utf-8",
    )
    return ingest_folder(root)


def _by_path(corpus: Corpus) -> dict[str, object]:
    return {s.path: s for s in corpus.sources}


def test_formats_and_encodings(mixed: Corpus) -> None:
    got = {s.path: s.encoding for s in mixed.sources}
    assert got == {
        "a.md": "utf-8",
        "big5.txt": "big5",
        "bom.txt": "utf-8-bom",
        "deep/doc.pdf": "pdf",
        "deep/er/page.html": "gb18030",
        "gbk.txt": "gb18030",
        "utf16.txt": "utf-16",
    }
    kinds = {s.path: s.kind for s in mixed.sources}
    assert kinds["deep/doc.pdf"] == "pdf" and kinds["deep/er/page.html"] == "html"
    text = {s.path: s.text for s in mixed.sources}
    assert ZH in text["gbk.txt"] and ZH_TRADITIONAL in text["big5.txt"]
    assert text["bom.txt"].startswith("带 BOM 的标题")
    assert "Second paragraph here." in text["utf16.txt"]


def test_markdown_front_matter_links_and_markup(mixed: Corpus) -> None:
    a = next(s for s in mixed.sources if s.path == "a.md")
    assert (a.id, a.title, a.url, a.lang) == ("a", "KV 缓存", "https://example.org/kv", "zh")
    assert [p.anchor for p in a.paragraphs] == ["a-p1", "a-p2", "a-p3"]
    assert a.paragraphs[1].text == "KV cache 很重要，见 原文 和 加粗 的 code。"
    assert a.paragraphs[2].text == "line one\n\nline two"  # a fenced block stays one paragraph
    assert a.links == ["https://example.org/source"]
    assert len(a.sha256) == 64


def test_gbk_html_page(mixed: Corpus) -> None:
    page = next(s for s in mixed.sources if s.path == "deep/er/page.html")
    assert page.id == "deep-er-page"
    # The article's h1, not the <title> with the site's name ("分页注意力 | 某博客").
    assert (page.title, page.title_from) == ("分页注意力", "h1")
    assert (page.url, page.url_from) == ("https://blog.example.cn/paged-attention", "canonical")
    assert page.lang == "zh"
    texts = [p.text for p in page.paragraphs]
    assert texts[0] == "分页注意力" and ZH in texts
    assert "第一条：块大小默认 16" in texts and "blocks = pool.allocate(n)" in texts
    assert "方案 | 浪费\n连续预留 | 很多" in texts
    body = page.text
    for dropped in ("首页导航", "脚本内容", "color: red", "侧边栏广告", "版权所有"):
        assert dropped not in body
    assert page.links == ["https://arxiv.org/abs/2309.06180"]


def test_pdf(mixed: Corpus) -> None:
    pdf = next(s for s in mixed.sources if s.path == "deep/doc.pdf")
    assert pdf.title == "Paged Attention Notes"
    assert "Paged attention splits memory into blocks." in pdf.text
    assert pdf.lang == "en" and pdf.words == 6


def test_skipped_files_have_reasons(mixed: Corpus) -> None:
    reasons = {s.path: s.reason for s in mixed.skipped}
    assert set(reasons) == {"binary.md", "empty.md", "image.png"}
    assert reasons["binary.md"].startswith("binary file")
    assert reasons["empty.md"] == "empty file"
    assert "not an article format" in reasons["image.png"]
    paths = [s.path for s in mixed.sources]
    assert "page.toml" not in paths and "plan.json" not in paths and "reading-list.md" not in paths
    assert not any(p.startswith(".git") for p in paths + list(reasons))


def test_reading_list_length_comes_only_from_a_saved_copy(mixed: Corpus) -> None:
    note_entry, page_entry = mixed.reading_list
    # a.md ("KV 缓存") is a note ABOUT https://example.org/kv ("KV Cache Explained"): its length
    # says nothing of the page's, so the entry has no saved copy, and sources.json says why.
    assert (note_entry.title, note_entry.url, note_entry.note, note_entry.words) == (
        "KV Cache Explained",
        "https://example.org/kv",
        "主线",
        None,
    )
    assert (note_entry.matched_source, note_entry.matched_by) == (None, None)
    [unmatched] = mixed.unmatched
    assert unmatched.url == "https://example.org/kv" and "a give this URL" in unmatched.reason
    saved = next(s for s in mixed.sources if s.url == "https://blog.example.cn/paged-attention")
    assert saved.kind == "html"
    assert page_entry.words == saved.words
    assert (page_entry.matched_source, page_entry.matched_by) == (saved.id, "url")


def test_twenty_megabyte_file_is_skipped_not_read(tmp_path: Path) -> None:
    root = tmp_path / "big"
    root.mkdir()
    with open(root / "huge.txt", "wb") as fh:
        fh.truncate(20 * 1024 * 1024)  # sparse: the test stays fast, the size is real
    (root / "ok.md").write_text("# Fine\n\nA small article.", encoding="utf-8")
    corpus = ingest_folder(root)
    [skipped] = corpus.skipped
    assert skipped.path == "huge.txt" and skipped.reason.startswith("too large")
    assert str(MAX_FILE_BYTES // (1024 * 1024)) in skipped.reason


def test_folder_errors(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="folder not found"):
        ingest_folder(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(SourceError, match="folder is empty"):
        ingest_folder(tmp_path / "empty")
    junk = tmp_path / "junk"
    junk.mkdir()
    (junk / "a.md").write_bytes(b"\x00\x01\x02" * 100)
    with pytest.raises(SourceError) as err:
        ingest_folder(junk)
    assert "no readable article" in str(err.value) and "a.md: binary" in str(err.value)
    assert err.value.exit_code == 2


def test_counts_and_reading_minutes(tmp_path: Path) -> None:
    root = tmp_path / "c"
    root.mkdir()
    (root / "x.txt").write_text("KV cache 很重要", encoding="utf-8")
    [s] = ingest_folder(root).sources
    assert (s.words, s.chars, s.reading_minutes, s.lang) == (
        5,
        10,
        1,
        "zh",
    )  # chars: non-whitespace
    assert (
        reading_minutes(600, 0) == 2 and reading_minutes(0, 401) == 3 and reading_minutes(0, 0) == 1
    )


def test_ids_are_stable_and_unique(tmp_path: Path) -> None:
    root = tmp_path / "ids"
    (root / "中文").mkdir(parents=True)
    (root / "中文" / "文章.md").write_text("# 甲\n\n内容", encoding="utf-8")
    (root / "A b.md").write_text("# a\n\ntext", encoding="utf-8")
    (root / "a-b.txt").write_text("a\n\ntext", encoding="utf-8")
    (root / "——.md").write_text("# 无字\n\n内容", encoding="utf-8")
    (root / "08-大模型推理框架概述.md").write_text("## 背景\n\n内容", encoding="utf-8")
    sources = ingest_folder(root).sources
    ids = [s.id for s in sources]
    assert ids[0] == "08-大模型推理框架概述" and ids[4] == "中文-文章"  # not "08", not a hash
    assert ids[1] == "a-b" and ids[2].startswith("a-b-")
    assert ids[3].startswith("src-")  # no letter or digit in the name
    # Saved under its title: the file name, not the first section heading ("背景").
    assert (sources[0].title, sources[0].title_from) == ("大模型推理框架概述", "file-name")
    assert ids == [s.id for s in ingest_folder(root).sources]


def test_parse_reading_list_variants() -> None:
    text = (
        "# List\n\nSome prose with [a link](https://prose.example) inline.\n"
        "- [One](https://a.example/1) — note one\n"
        "* [Two](https://a.example/2) – note two\n"
        "1. [Three](https://a.example/3): note three\n"
        "- [Four](https://a.example/4)\n"
        "- https://a.example/5 — bare\n"
        "- [Dup](https://A.example/1/) — again\n"
        "- [Local](file:///etc/passwd) — not http\n"
    )
    entries = parse_reading_list(text)
    assert [(e.title, e.url, e.note) for e in entries] == [
        ("a link", "https://prose.example", "inline"),  # prose lines are read too
        ("One", "https://a.example/1", "note one"),
        ("Two", "https://a.example/2", "note two"),
        ("Three", "https://a.example/3", "note three"),
        ("Four", "https://a.example/4", ""),
        ("https://a.example/5", "https://a.example/5", "bare"),
    ]


def test_write_corpus_is_atomic_and_round_trips(mixed: Corpus, tmp_path: Path) -> None:
    target = tmp_path / "out" / "sources.json"
    write_corpus(mixed, target)
    assert Corpus.model_validate_json(target.read_text(encoding="utf-8")) == mixed
    assert "分页注意力" in target.read_text(encoding="utf-8")  # UTF-8, not \\u escapes
    assert [p.name for p in target.parent.iterdir()] == ["sources.json"]


def test_ingest_is_deterministic(tmp_path: Path) -> None:
    root = tmp_path / "d"
    root.mkdir()
    (root / "b.md").write_text("# B\n\nbee", encoding="utf-8")
    (root / "a.md").write_text("# A\n\nay", encoding="utf-8")
    first, second = ingest_folder(root), ingest_folder(root)
    assert first.model_dump_json() == second.model_dump_json()
    assert [s.path for s in first.sources] == ["a.md", "b.md"]


def test_example_folder() -> None:
    corpus = ingest_folder(EXAMPLE)
    assert corpus.skipped == []
    ids = [s.id for s in corpus.sources]
    assert ids[:6] == [
        "01-serving-loop",
        "02-continuous-batching",
        "03-kv-cache-paged-attention",
        "04-chunked-prefill",
        "05-prefix-caching",
        "06-inference-arithmetic",
    ]
    first = corpus.sources[0]
    assert first.title == "推理引擎的主循环：一个请求从排队到吐完最后一个字"
    assert first.url == "https://www.aleksagordic.com/blog/vllm"
    second = corpus.sources[1]
    assert second.title == '连续批处理：把调度单位从"一个请求"换成"一步"'
    assert all(s.lang == "zh" and s.kind == "md" and s.encoding == "utf-8" for s in corpus.sources)
    assert all(1000 < s.words < 3000 and s.reading_minutes >= 4 for s in corpus.sources)
    assert all(s.url and s.url.startswith("https://") for s in corpus.sources)
    assert len(corpus.reading_list) == 12
    assert corpus.reading_list[0].words is None  # the notes are shorter than the posts
    assert all(corpus.has_url(s.url or "") for s in corpus.sources)
    json.loads(corpus.model_dump_json())


def test_html_without_declared_charset_and_title_fallbacks(tmp_path: Path) -> None:
    root = tmp_path / "h"
    root.mkdir()
    (root / "gbk-undeclared.htm").write_bytes(
        f"<html><body><h1>调度器</h1><p>{ZH}</p></body></html>".encode("gbk")
    )
    (root / "og.html").write_text(
        '<html lang="en"><head><meta property="og:title" content="OG Title">'
        '<meta property="og:url" content="https://og.example/post"></head>'
        "<body><header>Site menu</header><main><p>First line<br>second line</p></main></body></html>",
        encoding="utf-8",
    )
    by_path = {s.path: s for s in ingest_folder(root).sources}
    gbk = by_path["gbk-undeclared.htm"]
    assert (gbk.encoding, gbk.title, gbk.lang) == ("gb18030", "调度器", "zh")
    assert ZH in gbk.text
    og = by_path["og.html"]
    assert (og.title, og.url, og.lang) == ("OG Title", "https://og.example/post", "en")
    assert [p.text for p in og.paragraphs] == ["First line\nsecond line"]  # site header dropped
