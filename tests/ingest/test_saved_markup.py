"""Saved articles as people save them, in English and Chinese: every markup kind (front matter,
raw HTML, shortcodes and Liquid tags, admonitions, math, a saved page with its site around it)
comes out as the paragraphs a reader sees, with the article's real title and URL, and where
each came from (issue 13, item 1)."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.artifacts.sources import Source
from pipeline.ingest.folder import ingest_folder, source_id_for
from pipeline.ingest.mathtext import replace_math
from pipeline.ingest.titles import strip_site_suffix, title_from_file_name, title_similarity

# Markup that must never reach a paragraph (outside code).
LEFTOVER_MARKUP = re.compile(
    r"<[A-Za-z/!]|\{\{|\{%|%\}|\}\}|:::|\[![A-Za-z]+\]|^\+\+\+|^---$|^!!!|```"
    r"|\$\$|\$[^\s$][^$\n]*[^\s$]\$(?!\d)|\\\(|\\\[|skip to content|跳到正文",
    re.I | re.M,
)


@dataclass(frozen=True)
class Case:
    name: str
    content: bytes
    title: str
    title_from: str
    url: str | None
    url_from: str | None
    paragraphs: list[str]
    code: tuple[str, ...] = ()  # paragraphs that are code, kept as written


def md(text: str) -> bytes:
    return text.encode("utf-8")


EN_YAML_HTML_BLOCKS = Case(
    "tensor-split.md",
    md(
        '---\ntitle: "Tensor parallelism, briefly"\npermalink: https://notes.example/tp/\n'
        "date: 2025-03-18\ntags: [gpu]\n---\n\n"
        "Intro with **bold** and a [link](https://arxiv.org/abs/1909.08053).\n\n"
        '<p align="center">\n  <img src="tp.png" alt="Two GPUs share one layer" width="480">\n'
        "</p>\n\n"
        '<div class="note">\n  <strong>Note.</strong> Each GPU keeps the KV heads it owns.\n'
        "</div>\n\n"
        "<details>\n<summary>Why two all-reduces?</summary>\n"
        "<p>One after attention, one after the MLP.</p>\n</details>\n"
    ),
    "Tensor parallelism, briefly",
    "front-matter",
    "https://notes.example/tp/",
    "front-matter",
    [
        "Intro with bold and a link.",
        "Image: Two GPUs share one layer",
        "Note. Each GPU keeps the KV heads it owns.",
        "Why two all-reduces?",
        "One after attention, one after the MLP.",
    ],
)
EN_TOML_SHORTCODES = Case(
    "kv-capacity.md",
    md(
        '+++\ntitle = "How many tokens fit?"\nurl = "https://notes.example/kv/"\n'
        'date = 2025-03-04\ntags = ["kv"]\n+++\n\n'
        '{{< socialBadges twitter="someone" >}}\n\n'
        "## The formula\n\n"
        'Bytes per token follow from the shape.{{< ref "other.md" >}}\n\n'
        '{{< figure src="/img/kv.svg" caption="Where the 80 GB of an H100 go." >}}\n\n'
        "{{% notice tip %}}\nHalve it with FP8.\n{{% /notice %}}\n\n"
        "{{< highlight python >}}\nkv = 2 * layers\n{{< /highlight >}}\n"
    ),
    "How many tokens fit?",
    "front-matter",
    "https://notes.example/kv/",
    "front-matter",
    [
        "The formula",
        "Bytes per token follow from the shape.",
        "Where the 80 GB of an H100 go.",
        "Halve it with FP8.",
        "kv = 2 * layers",
    ],
    code=("kv = 2 * layers",),
)
EN_JEKYLL_LIQUID = Case(
    "2023-06-20-vllm.md",
    md(
        '---\nlayout: post\ntitle: "vLLM: Easy, Fast, and Cheap LLM Serving"\n'
        "canonical_url: https://blog.example.org/2023/06/20/vllm.html\n---\n\n"
        "{% include toc.html %}\n\n"
        "Served with {{ site.title }} in mind.\n\n"
        '{% include figure.html image="/assets/paged.png" alt="Blocks of the KV cache" %}\n\n'
        "{% highlight bash %}\npip install vllm\n{% endhighlight %}\n\n"
        "{% comment %}Draft: remove later{% endcomment %}\n"
        "See the [docs]({% link docs.md %}) and `{{ page.title }}` in templates.\n"
    ),
    "vLLM: Easy, Fast, and Cheap LLM Serving",
    "front-matter",
    "https://blog.example.org/2023/06/20/vllm.html",
    "front-matter",
    [
        "Served with in mind.",
        "Image: Blocks of the KV cache",
        "pip install vllm",
        "See the docs and {{ page.title }} in templates.",
    ],
    code=("pip install vllm", "See the docs and {{ page.title }} in templates."),
)
EN_ADMONITIONS = Case(
    "admonitions.md",
    md(
        "# Speculative decoding\n\n"
        "> [!NOTE]\n> It is **lossless**: a bad draft makes it slow, never wrong.\n\n"
        "> A plain quote stays as its text.\n\n"
        '!!! warning "Acceptance matters"\n    With α = 0.5 the gain is small.\n\n'
        ":::tip Measure first\nCompare ITL at your real rate.\n:::\n\n"
        ":::note[Docusaurus title]\nBracketed titles too.\n:::\n\n"
        "```{note}\nMyST notes are text, not code.\n```\n"
    ),
    "Speculative decoding",
    "h1",
    None,
    None,
    [
        "Speculative decoding",
        "It is lossless: a bad draft makes it slow, never wrong.",
        "A plain quote stays as its text.",
        "Acceptance matters",
        "With α = 0.5 the gain is small.",
        "Measure first",
        "Compare ITL at your real rate.",
        "Docusaurus title",
        "Bracketed titles too.",
        "MyST notes are text, not code.",
    ],
)
EN_MATH = Case(
    "moving-the-cache.md",
    md(
        "---\ntitle: Moving the KV cache\nurl: https://notes.example/pd/\n---\n\n"
        "For a prompt of $n$ tokens the cache is\n\n"
        "$$S_{KV} = 2 \\cdot L \\cdot H_{kv} \\cdot d_{head} \\cdot b \\cdot n$$\n\n"
        "so $t = S_{KV} / B$ with $B \\approx 50$ GB/s. Renting costs $5 and $10 a day.\n\n"
        "Tokens per round: $\\frac{1-\\alpha^{k+1}}{1-\\alpha}$.\n\n"
        "`echo $HOME` in code stays.\n"
    ),
    "Moving the KV cache",
    "front-matter",
    "https://notes.example/pd/",
    "front-matter",
    [
        "For a prompt of n tokens the cache is",
        "S_KV = 2 · L · H_kv · d_head · b · n",
        "so t = S_KV / B with B ≈ 50 GB/s. Renting costs $5 and $10 a day.",
        "Tokens per round: (1-α^(k+1))/(1-α).",
        "echo $HOME in code stays.",
    ],
)
SITE_CHROME = """<a class="skip-link" href="#main">Skip to content</a>
<header class="site-header"><a href="/">{site}</a><nav><a href="/">Home</a></nav></header>
<aside class="sidebar"><h2>{toc}</h2><ol><li><a href="#a">A</a></li></ol></aside>
<div class="toc-wrap"><p>{toc}</p><ul><li><a href="#x">x</a></li><li><a href="#y">y</a></li></ul></div>
"""
FOOTER = """<footer class="site-footer"><p>© 2025 {site}</p>
<form action="/subscribe"><button>Subscribe</button></form></footer>
<script>document.title = "tracking";</script>"""
EN_HTML_PAGE = Case(
    "goodput.html",
    f"""<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<title>Goodput in one page | Frontier Notes</title>
<link rel="canonical" href="https://frontier-notes.example/goodput/">
<meta property="og:site_name" content="Frontier Notes">
<meta property="og:title" content="Goodput in one page | Frontier Notes">
<meta property="og:url" content="https://frontier-notes.example/">
<meta property="article:published_time" content="2025-04-15">
</head><body>{SITE_CHROME.format(site="Frontier Notes", toc="On this page")}
<main id="main"><article><header><h1>Goodput in one page</h1>
<p class="post-meta"><time datetime="2025-04-15">15 April</time> · 6 min read</p></header>
<p>Goodput counts the requests that met their SLO.</p>
<p>The KV cache costs <span class="katex"><span class="katex-mathml"><math><semantics><mrow><mn>2</mn></mrow>
<annotation encoding="application/x-tex">2 \\cdot n_{{layers}}</annotation></semantics></math></span>
<span class="katex-html" aria-hidden="true">2⋅nlayers</span></span> values per token.</p>
<p>MathJax: <script type="math/tex">x^{{2}}</script> and inline \\(a \\le b\\).</p>
<figure><img src="/g.png" alt="Chart: goodput peaks, then falls"><figcaption>Goodput falls past the knee.</figcaption></figure>
<footer class="post-footer"><a href="/prev/">← Previous post</a></footer>
</article></main>{FOOTER.format(site="Frontier Notes")}</body></html>""".encode(),
    "Goodput in one page",
    "og:title",
    "https://frontier-notes.example/goodput/",
    "canonical",
    [
        "Goodput in one page",
        "Goodput counts the requests that met their SLO.",
        "The KV cache costs 2 · n_layers values per token.",
        "MathJax: x^2 and inline a ≤ b.",
        "Image: Chart: goodput peaks, then falls",
        "Goodput falls past the knee.",
    ],
)
EN_HTML_SAVED_FROM = Case(
    "arithmetic.html",
    b"""<!DOCTYPE html>
<!-- saved from url=(0050)https://kipp.ly/transformer-inference-arithmetic/ -->
<html><head><title>Transformer Inference Arithmetic | kipply's blog</title>
<meta property="og:url" content="https://kipp.ly/"></head>
<body><nav><a href="/">kipply's blog</a></nav>
<div class="post"><p>Inference is mostly memory bound at small batch sizes.</p></div></body></html>""",
    "Transformer Inference Arithmetic",
    "title-tag",
    "https://kipp.ly/transformer-inference-arithmetic/",
    "saved-from",
    ["Inference is mostly memory bound at small batch sizes."],
)

ZH_TEXT = "分页注意力把显存切成小格子按需分配，调度器每一步都会检查空闲块的数量。"
ZH_GBK_CHAPTER = Case(
    "第3章 分页注意力.md",
    (
        "## 背景\n\n"
        f"{ZH_TEXT}这一章讲清楚块表如何把逻辑块映射到物理块。\n\n"
        '<div align="center"><img src="blocks.png" alt="显存块示意图"></div>\n\n'
        "> [!WARNING]\n> 块太小会让块表变长，块太大会浪费显存。\n"
    ).encode("gbk"),
    "第3章 分页注意力",
    "file-name",
    None,
    None,
    [
        "背景",
        f"{ZH_TEXT}这一章讲清楚块表如何把逻辑块映射到物理块。",
        "图：显存块示意图",
        "块太小会让块表变长，块太大会浪费显存。",
    ],
)
ZH_HUGO_TOML = Case(
    "03-投机解码.md",
    md(
        '+++\ntitle = "投机解码：先猜后验"\nurl = "https://blog.example.cn/posts/spec-decode/"\n'
        'date = 2024-05-01\ndraft = false\n+++\n\n'
        '{{< socialBadges weibo="someone" >}}\n\n'
        "## 背景\n\n大模型每一步只写一个 token，GPU 大部分时间在等显存。\n\n"
        '{{< figure src="/img/spec.png" caption="草稿模型先猜，目标模型一次验证。" >}}\n\n'
        "> [!TIP]\n> 接受率越高，加速越明显。\n"
    ),
    "投机解码：先猜后验",
    "front-matter",
    "https://blog.example.cn/posts/spec-decode/",
    "front-matter",
    [
        "背景",
        "大模型每一步只写一个 token，GPU 大部分时间在等显存。",
        "草稿模型先猜，目标模型一次验证。",
        "接受率越高，加速越明显。",
    ],
)
ZH_MYST = Case(
    "05-lmdeploy-投机解码.md",
    md(
        "## 概述\n\n"
        "```{note}\n目前仅支持 **TurboMind** 后端。\n```\n\n"
        "```{admonition} 提示\n:class: tip\n草稿模型需与目标模型共享词表。\n```\n\n"
        ":::{warning}\n显存不足时请减小 `max_batch_size`。\n:::\n\n"
        "```{code-block} bash\nlmdeploy serve api_server model\n```\n\n"
        "```{toctree}\n:maxdepth: 1\nspec_decoding.md\n```\n\n"
        "```{math}\n\\alpha^{k+1}\n```\n"
    ),
    "lmdeploy-投机解码",
    "file-name",
    None,
    None,
    [
        "概述",
        "目前仅支持 TurboMind 后端。",
        "提示",
        "草稿模型需与目标模型共享词表。",
        "显存不足时请减小 max_batch_size。",
        "lmdeploy serve api_server model",
        "α^(k+1)",
    ],
    code=("lmdeploy serve api_server model",),
)
ZH_LATEX = Case(
    "大模型推理框架概述.md",
    md(
        "## 背景\n\n"
        "KV cache 的显存为 $M = 2 \\times n_{\\text{layers}} \\times d_{\\text{model}} \\times b$，"
        "其中 $b$ 为每个数的字节数。\n\n"
        "$$\n\\begin{aligned}\nT_{\\text{prefill}} &\\approx \\frac{2 N P}{F} \\\\\n"
        "T_{\\text{decode}} &\\approx \\frac{2 N}{W}\n\\end{aligned}\n$$\n\n"
        "期望接受长度为 $\\sum_{i=0}^{k} \\alpha^{i}$，当 $\\alpha \\to 1$ 时趋近 $k+1$。\n\n"
        "注意力：$\\mathrm{softmax}\\left(\\frac{QK^\\top}{\\sqrt{d_k}}\\right)V$，复杂度 $O(n^2)$。\n"
    ),
    "大模型推理框架概述",
    "file-name",
    None,
    None,
    [
        "背景",
        "KV cache 的显存为 M = 2 × n_layers × d_model × b，其中 b 为每个数的字节数。",
        "T_prefill ≈ (2 N P)/F\nT_decode ≈ (2 N)/W",
        "期望接受长度为 ∑_(i=0)^k α^i，当 α → 1 时趋近 k+1。",
        "注意力：softmax((QK^⊤)/(√(d_k)))V，复杂度 O(n^2)。",
    ],
)
ZH_JEKYLL_BLOCKS = Case(
    "2024-01-02-连续批处理.md",
    md(
        "---\ntitle: 连续批处理\npermalink: /2024/01/02/cb.html\n"
        "url: https://zh.example.com/cb/\ndate: 2024-01-02\n---\n"
        '<p align="center"><img src="cb.png" alt="连续批处理示意图"></p>\n\n'
        ":::tip 小结\n写完的位置马上让给新请求。\n:::\n\n"
        '!!! note "注意"\n    调度单位是一步，而不是一个请求。\n\n'
        "<details>\n<summary>为什么叫连续？</summary>\n\n每一步都可以有请求进出。\n\n</details>\n"
    ),
    "连续批处理",
    "front-matter",
    "https://zh.example.com/cb/",
    "front-matter",
    [
        "图：连续批处理示意图",
        "小结",
        "写完的位置马上让给新请求。",
        "注意",
        "调度单位是一步，而不是一个请求。",
        "为什么叫连续？",
        "每一步都可以有请求进出。",
    ],
)
ZH_HTML_PAGE = Case(
    "paged.html",
    f"""<html lang="zh-CN"><head><meta charset="gb18030">
<title>分页注意力详解 - 某某的博客</title>
<meta property="og:site_name" content="某某的博客">
<meta property="og:url" content="https://blog.example.cn/">
<link rel="canonical" href="https://blog.example.cn/paged/"></head>
<body><a class="skip-link" href="#main">跳到正文</a>
{SITE_CHROME.format(site="某某的博客", toc="目录")}
<main id="main"><h1>分页注意力详解</h1><p>{ZH_TEXT}</p>
<p>公式：<script type="math/tex; mode=display">S = 2 \\times L</script></p>
<div class="share-bar">分享到微博</div></main>
{FOOTER.format(site="某某的博客")}</body></html>""".encode("gb18030"),
    "分页注意力详解",
    "h1",
    "https://blog.example.cn/paged/",
    "canonical",
    ["分页注意力详解", ZH_TEXT, "公式： S = 2 × L"],
)

CASES = [
    EN_YAML_HTML_BLOCKS,
    EN_TOML_SHORTCODES,
    EN_JEKYLL_LIQUID,
    EN_ADMONITIONS,
    EN_MATH,
    EN_HTML_PAGE,
    EN_HTML_SAVED_FROM,
    ZH_GBK_CHAPTER,
    ZH_HUGO_TOML,
    ZH_MYST,
    ZH_LATEX,
    ZH_JEKYLL_BLOCKS,
    ZH_HTML_PAGE,
]


def _ingest_one(tmp_path: Path, case: Case) -> Source:
    (tmp_path / case.name).write_bytes(case.content)
    [source] = ingest_folder(tmp_path).sources
    return source


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_saved_article_reads_as_its_text_title_and_url(tmp_path: Path, case: Case) -> None:
    source = _ingest_one(tmp_path, case)
    assert [p.text for p in source.paragraphs] == case.paragraphs
    assert (source.title, source.title_from) == (case.title, case.title_from)
    assert (source.url, source.url_from) == (case.url, case.url_from)
    for p in source.paragraphs:
        if p.text not in case.code:
            assert not LEFTOVER_MARKUP.search(p.text), p.text


def test_dates_encodings_and_ids_of_saved_articles(tmp_path: Path) -> None:
    for case in CASES:
        (tmp_path / case.name).write_bytes(case.content)
    by_path = {s.path: s for s in ingest_folder(tmp_path).sources}
    assert by_path["tensor-split.md"].date == "2025-03-18"
    assert by_path["kv-capacity.md"].date == "2025-03-04"  # a TOML date
    assert by_path["goodput.html"].date == "2025-04-15"
    assert by_path["2024-01-02-连续批处理.md"].date == "2024-01-02"
    chapter = by_path["第3章 分页注意力.md"]
    assert (chapter.encoding, chapter.lang, chapter.id) == ("gb18030", "zh", "第3章-分页注意力")
    assert by_path["paged.html"].encoding == "gb18030"
    assert by_path["大模型推理框架概述.md"].id == "大模型推理框架概述"
    assert by_path["05-lmdeploy-投机解码.md"].id == "05-lmdeploy-投机解码"
    assert by_path["tensor-split.md"].links == ["https://arxiv.org/abs/1909.08053"]


def test_html_chrome_never_reaches_the_text(tmp_path: Path) -> None:
    for case in (EN_HTML_PAGE, ZH_HTML_PAGE):
        folder = tmp_path / case.name.split(".")[0]
        folder.mkdir()
        text = _ingest_one(folder, case).text
        for chrome in ("Skip to content", "跳到正文", "Home", "On this page", "目录", "©",
                       "Subscribe", "tracking", "Previous post", "6 min read", "分享到微博",
                       "2⋅nlayers"):
            assert chrome not in text


def test_title_trust_order_in_html(tmp_path: Path) -> None:
    page = (
        "<html><head><title>{title} | Site</title>{og}</head>"
        "<body><main>{h1}<p>Body text of the article.</p></main></body></html>"
    )
    cases = {
        "og.html": (page.format(title="T", og='<meta property="og:title" content="From OG">',
                                h1="<h1>From H1</h1>"), ("From OG", "og:title")),
        "h1.html": (page.format(title="T", og="", h1="<h1>From H1</h1>"), ("From H1", "h1")),
        "tag.html": (page.format(title="From Title Tag", og="", h1=""),
                     ("From Title Tag", "title-tag")),
        "Saved Under Its Title.html": ("<html><body><p>Only a body.</p></body></html>",
                                       ("Saved Under Its Title", "file-name")),
    }
    for name, (html, _) in cases.items():
        (tmp_path / name).write_text(html, encoding="utf-8")
    got = {s.path: (s.title, s.title_from) for s in ingest_folder(tmp_path).sources}
    assert got == {name: want for name, (_, want) in cases.items()}


def test_markdown_title_order_front_matter_h1_file_name_heading(tmp_path: Path) -> None:
    files = {
        "front.md": ("---\ntitle: Front\n---\n# H1 title\n\ntext", ("Front", "front-matter")),
        "h1.md": ("# Only H1\n\ntext\n\n## Section", ("Only H1", "h1")),
        # Two level-1 headings are sections, not a title: the file name wins.
        "Saved title.md": ("# One\n\ntext\n\n# Two\n\nmore", ("Saved title", "file-name")),
        "01.md": ("## 背景\n\n内容", ("背景", "heading")),  # no usable file name
    }
    for name, (text, _) in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    got = {s.path: (s.title, s.title_from) for s in ingest_folder(tmp_path).sources}
    assert got == {name: want for name, (_, want) in files.items()}


def test_invalid_yaml_front_matter_still_gives_title_and_url(tmp_path: Path) -> None:
    # An unquoted colon makes this invalid YAML; the key: value lines are still read.
    (tmp_path / "a.md").write_text(
        "---\ntitle: Goodput: the requests that count\nurl: https://x.example/goodput\n"
        "tags: [a, b\n---\n\nBody.", encoding="utf-8"
    )
    [s] = ingest_folder(tmp_path).sources
    assert (s.title, s.url, [p.text for p in s.paragraphs]) == (
        "Goodput: the requests that count", "https://x.example/goodput", ["Body."]
    )


def test_site_suffix_and_file_name_rules() -> None:
    assert strip_site_suffix("Paged Attention | vLLM Blog") == "Paged Attention"
    assert strip_site_suffix("分页注意力_CSDN博客") == "分页注意力"
    assert strip_site_suffix("Notes · Goodput", ["Notes"]) == "Goodput"
    # A long second half is part of the title, not a site's name.
    assert strip_site_suffix("Finding the knee - load testing an LLM server") == (
        "Finding the knee - load testing an LLM server"
    )
    assert title_from_file_name("08-大模型推理框架概述.md") == "大模型推理框架概述"
    assert title_from_file_name("notes/kv-cache-capacity-fp8.md") == "kv cache capacity fp8"
    assert title_from_file_name("2309.06180v1.pdf") is None
    assert title_from_file_name("index.html") is None


# ---------------------------------------------------------------------------------------------
# Properties

WORD = st.text(
    alphabet=st.sampled_from("abcdefghijklmnopqrstuvwxyzKVGPU分页注意力显存调度批处理"),
    min_size=1,
    max_size=8,
)
SENTENCE = st.lists(WORD, min_size=1, max_size=8).map(" ".join)
WRAPPERS = [
    "{}",
    "> [!NOTE]\n> {}",
    "> {}",
    ":::tip\n{}\n:::",
    '!!! note ""\n    {}',
    "```{{note}}\n{}\n```",
    '<div class="note">\n<p>{}</p>\n</div>',
    "{{{{% notice info %}}}}\n{}\n{{{{% /notice %}}}}",
    "**{}**",
]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(SENTENCE, st.sampled_from(WRAPPERS)), min_size=1, max_size=5))
def test_any_wrapped_paragraph_reads_as_its_text(
    tmp_path_factory: pytest.TempPathFactory, parts: list[tuple[str, str]]
) -> None:
    root = tmp_path_factory.mktemp("prop")
    body = "\n\n".join(wrapper.format(text) for text, wrapper in parts)
    (root / "a.md").write_text(f"---\ntitle: T\n---\n\n{body}\n", encoding="utf-8")
    [source] = ingest_folder(root).sources
    assert [p.text for p in source.paragraphs] == [text for text, _ in parts]


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_characters="$\\"), max_size=60))
def test_text_without_math_is_unchanged(text: str) -> None:
    assert replace_math(text) == text


@settings(max_examples=100, deadline=None)
@given(st.from_regex(r"[a-zA-Z]{1,6}(_[a-z]{1,4})?", fullmatch=True), SENTENCE)
def test_inline_math_loses_its_dollars(tex: str, words: str) -> None:
    out = replace_math(f"{words} ${tex}$ {words}")
    assert "$" not in out and tex.split("_")[0] in out


PATH_PART = st.text(
    alphabet=st.characters(
        whitelist_categories=("L", "N", "Zs", "Pd", "Po"), blacklist_characters="/\\."
    ),
    min_size=1,
    max_size=12,
)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(PATH_PART, min_size=1, max_size=3).map("/".join), max_size=8))
def test_ids_are_unique_readable_in_any_script(rels: list[str]) -> None:
    used: set[str] = set()
    for stem in dict.fromkeys(rels):
        source_id = source_id_for(stem + ".md", used)
        assert source_id not in used and source_id
        assert not re.search(r"\s|/", source_id)
        folded = unicodedata.normalize("NFKC", stem).lower()
        readable = [ch for ch in folded if unicodedata.category(ch)[0] in "LN"]
        if readable:  # the first letter or digit of the path is in the id, in its own script
            assert readable[0] in source_id
        used.add(source_id)


@settings(max_examples=100, deadline=None)
@given(SENTENCE.filter(lambda t: len(t) >= 2))
def test_titles_match_across_case_punctuation_and_site_name(title: str) -> None:
    assert title_similarity(title, title.upper() + "?") == 1.0
    assert title_similarity(f"{title} | Blog", title) == 1.0
