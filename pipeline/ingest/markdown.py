"""Markdown as people save it, read into the paragraphs a reader sees.

Saved posts come from static-site generators and docs tools, each with its own markup around
the text: YAML or TOML front matter; raw HTML blocks (`<p align="center"><img …></p>`,
`<div class="note">`, `<details>`); Hugo shortcodes and Jekyll/Liquid tags (`{{< figure … >}}`,
`{% include … %}`); GitHub alerts (`> [!NOTE]`); MkDocs (`!!! note`), Docusaurus and MyST
(`:::tip`, ```` ```{note} ````) admonitions; `$…$` math. Each is kept as its text without the
markers (an image's alt text as a note, a figure's caption as a paragraph, a formula as
readable Unicode) or dropped when it is layout. Code (fenced blocks, code spans) is kept as
written.

The front matter's title is the article's title (a static site renders it as the page's h1);
else a single level-1 heading that opens the text; else the caller falls back to the file name
before any section heading (`title_from: "heading"` marks that weak guess).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from pipeline.ingest.formats import Extracted, decode_text, find_urls, first_line
from pipeline.ingest.frontmatter import split_front_matter
from pipeline.ingest.htmlpage import fragment_paragraphs, image_note
from pipeline.ingest.markdown_inline import CODE_SPAN, HTML_NAMES, inline_text
from pipeline.ingest.templatetags import TemplateTag, drop_comments, replace_template_tags

FENCE = re.compile(r"^(?P<fence>`{3,}|~{3,})\s*(?P<info>.*)$")
HEADING = re.compile(r"^(?P<level>#{1,6})\s+(?P<text>.*?)\s*#*\s*$")
HEADING_ATTRIBUTES = re.compile(r"\s*\{[#.:][^{}]*\}\s*$")  # "## Title {#custom-id}"
SETEXT_UNDERLINE = re.compile(r"^(=+|-+)\s*$")
THEMATIC_BREAK = re.compile(r"^\s{0,3}([-*_])(?:\s*\1){2,}\s*$")
BLOCKQUOTE = re.compile(r"^\s{0,3}>\s?")
# GitHub / Obsidian alerts: "> [!NOTE]", "> [!tip]- Title".
ALERT = re.compile(r"^\[!(?P<kind>[A-Za-z-]+)\][+-]?\s*(?P<title>.*)$")
# MkDocs-Material / Python-Markdown admonitions: '!!! note "Title"', '???+ tip'.
MKDOCS_ADMONITION = re.compile(r'^\s*(?:!!!|\?\?\?\+?)\s+[\w-]+(?:\s+[\w-]+)*\s*(?:"(?P<title>[^"]*)")?\s*$')
# Docusaurus / VitePress / MyST colon fences: ":::tip Title", ":::note[Title]", ":::{note}", ":::".
COLON_FENCE = re.compile(r"^\s*(?P<colons>:{3,})\s*(?P<rest>.*?)\s*$")
COLON_OPENER = re.compile(r"^\{?(?P<name>[\w-]+)\}?(?:\[(?P<bracket>[^\]]*)\])?\s*(?P<title>.*)$")
MYST_DIRECTIVE = re.compile(r"^\{(?P<name>[\w:-]+)\}\s*(?P<args>.*)$")
MYST_OPTION = re.compile(r"^\s*:[\w-]+:(?:\s.*)?$")
# MyST directives whose body is code, math, or nothing a reader reads.
CODE_DIRECTIVES = {"code", "code-block", "code-cell", "sourcecode"}
MATH_DIRECTIVES = {"math"}
DROPPED_DIRECTIVES = {"toctree", "raw", "include", "literalinclude", "contents", "tableofcontents"}
UNTITLED_DIRECTIVES = {"figure", "image", "glossary", "only", "eval-rst", "list-table", "csv-table"}
KRAMDOWN_ATTRIBUTES = re.compile(r"^\s*\{:[^{}]*\}\s*$")
REFERENCE_DEFINITION = re.compile(r"^\s{0,3}\[(?!\^)[^\]]+\]:\s*<?(?P<url>\S+?)>?(?:\s+.*)?$")
FOOTNOTE_DEFINITION = re.compile(r"^\s{0,3}\[\^[^\]]+\]:\s*")
# Jekyll/Liquid and Hugo tags that wrap code: turned into a fenced block.
# One line each (`[ \t]`, not `\s`, which would run across blank lines from every line start).
CODE_TAG_OPEN = re.compile(
    r"^[ \t]*(?:\{%-?[ \t]*highlight[ \t]+(?P<l1>[\w+#.-]+)[^%\n]*-?%\}|\{\{<[ \t]*highlight[ \t]+(?P<l2>[\w+#.-]+)[^>\n]*>\}\})[ \t]*$",
    re.M,
)
CODE_TAG_CLOSE = re.compile(r"^[ \t]*(?:\{%-?[ \t]*endhighlight[ \t]*-?%\}|\{\{<[ \t]*/highlight[ \t]*>\}\})[ \t]*$", re.M)
TAG_ATTRIBUTE = re.compile(r"""([\w-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"']+))""")
HTML_BLOCK_START = re.compile(rf"^\s{{0,3}}(?:<(?:{HTML_NAMES})(?:[\s/>]|$)|</(?:{HTML_NAMES})\s*>)", re.I)
TABLE_DELIMITER = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")


@dataclass
class _Body:
    """Lines of the body after containers are unwrapped, and what was found on the way."""

    lines: list[str] = field(default_factory=list)
    links: list[str] = field(default_factory=list)


def parse_markdown(data: bytes) -> Extracted:
    """Markdown: front matter, then the blocks as paragraphs with all markup removed, so a
    quoted passage matches what a reader sees."""
    text, encoding = decode_text(data)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    front = split_front_matter(text)
    body = _prepare(front.body)
    paragraphs: list[str] = []
    links = list(body.links)
    headings: list[tuple[int, str, int]] = []  # (level, text, paragraphs before it)
    for kind, block in _blocks(body.lines):
        if kind == "code":
            if block.strip():
                paragraphs.append(block)
            continue
        if kind == "heading":
            level, heading = block.split(" ", 1)
            heading = inline_text(heading, links)
            if heading:
                headings.append((len(level), heading, len(paragraphs)))
                paragraphs.append(heading)
            continue
        for paragraph in _paragraphs(block, links):
            paragraphs.append(paragraph)
    title, title_from = _title(front.title, headings, paragraphs)
    return Extracted(
        paragraphs,
        encoding,
        title=title,
        title_from=title_from,
        url=front.url,
        url_from="front-matter" if front.url else None,
        date=front.date,
        lang=front.lang,
        links=links + find_urls("\n".join(paragraphs)),
    )


def _title(
    front_title: str | None, headings: list[tuple[int, str, int]], paragraphs: list[str]
) -> tuple[str | None, str | None]:
    if front_title:
        return front_title, "front-matter"
    level_one = [h for h in headings if h[0] == 1]
    if len(level_one) == 1 and level_one[0][2] == 0:
        return level_one[0][1], "h1"
    if headings:
        return headings[0][1], "heading"
    return first_line(paragraphs), "first-line"


# ---------------------------------------------------------------------------------------------
# Whole-text passes: template tags, comments, containers


def _prepare(text: str) -> _Body:
    """Code tags to fences; the containers (blockquotes, alerts, admonitions, directives)
    unwrapped line by line; then, outside code, comments and template tags dropped."""
    text = CODE_TAG_OPEN.sub(lambda m: "```" + (m.group("l1") or m.group("l2") or ""), text)
    text = CODE_TAG_CLOSE.sub("```", text)
    body = _Body()
    _unwrap(text.split("\n"), body)
    body.lines = _outside_code("\n".join(body.lines), _drop_templates).split("\n")
    return body


def _outside_code(text: str, fn: Callable[[str], str]) -> str:
    """Apply `fn` to the stretches of `text` outside fenced code blocks."""
    out: list[str] = []
    prose: list[str] = []
    fence: str | None = None
    for line in text.split("\n"):
        m = FENCE.match(line.strip())
        if fence is None and m:
            out.append(fn("\n".join(prose)))
            prose = []
            fence = m.group("fence")
            out.append(line)
        elif fence is not None:
            out.append(line)
            if _closes(m, fence):
                fence = None
        else:
            prose.append(line)
    out.append(fn("\n".join(prose)))
    return "\n".join(out)


def _drop_templates(text: str) -> str:
    """Comments and template tags out of prose; code spans keep theirs (`{{ .Title }}`)."""
    text = drop_comments(text)
    out, pos = [], 0
    for m in CODE_SPAN.finditer(text):
        out += [replace_template_tags(text[pos : m.start()], _template_replacement), m.group(0)]
        pos = m.end()
    out.append(replace_template_tags(text[pos:], _template_replacement))
    return "".join(out)


def _template_replacement(string: str, tag: TemplateTag) -> str:
    """A figure-like tag keeps its caption (or its image's alt text as a note); a tag standing
    on its own lines becomes a paragraph of its own; anything else (Liquid output `{{ … }}`
    included) is dropped."""
    inner = "" if tag.opener == "{{" else tag.inner
    if not inner or inner.startswith("/"):
        return ""
    attrs = {k.lower(): a or b or c for k, a, b, c in TAG_ATTRIBUTE.findall(inner)}
    text = attrs.get("caption") or attrs.get("title") or attrs.get("summary") or ""
    if not text and attrs.get("alt"):
        text = image_note(attrs["alt"])
    if not text:
        return ""
    start, end = string.rfind("\n", 0, tag.start) + 1, string.find("\n", tag.end)
    own_line = not string[start : tag.start].strip() and not string[tag.end : end if end != -1 else None].strip()
    return f"\n\n{text}\n\n" if own_line else text


def _unwrap(lines: list[str], body: _Body) -> None:
    """Remove container markers, keeping their text: blockquote `>`, alert `[!NOTE]` lines,
    MkDocs `!!!` lines, `:::` fences and MyST ```` ```{note} ```` directives (their titles stay as
    a line). Code fences pass through untouched; a MyST code directive becomes a code fence."""
    fence: tuple[str, int] | None = None  # an open code fence: its marker, its quote depth
    directives: list[str] = []  # open MyST backtick directives: their fence markers
    skipping: str | None = None  # the closing fence of a dropped directive's body
    math: str | None = None  # the closing fence of a {math} directive
    options = False  # right after a directive opener: ":key: value" lines are dropped
    for raw in lines:
        depth, line = 0, raw
        while BLOCKQUOTE.match(line) and (fence is None or depth < fence[1]):
            line, depth = BLOCKQUOTE.sub("", line, count=1), depth + 1
        m = FENCE.match(line.strip())
        if skipping is not None:
            if _closes(m, skipping):
                skipping = None
                body.lines.append("")
            continue
        if math is not None:
            if _closes(m, math):
                math = None
                body.lines += ["$$", ""]
            else:
                body.lines.append(line)
            continue
        if fence is not None:
            body.lines.append(line)
            if _closes(m, fence[0]):
                fence = None
            continue
        if options and MYST_OPTION.match(line):
            continue
        options = False
        if m is None:
            text, options = _unwrap_line(line, body, depth)
            body.lines.append(text)
            continue
        marker, info = m.group("fence"), m.group("info").strip()
        if directives and _closes(m, directives[-1]):
            directives.pop()
            body.lines.append("")
            continue
        directive = MYST_DIRECTIVE.match(info)
        if directive and directive.group("name") not in CODE_DIRECTIVES:
            name, args = directive.group("name"), directive.group("args").strip()
            options = True
            if name in DROPPED_DIRECTIVES:
                skipping = marker
            elif name in MATH_DIRECTIVES:
                math = marker
                body.lines += ["", "$$"]
            else:
                directives.append(marker)
                body.lines += ["", args if args and name not in UNTITLED_DIRECTIVES else "", ""]
            continue
        if directive:  # ```{code-block} python: a code fence
            line = marker + directive.group("args")
        fence = (marker, depth)
        body.lines.append(line)


def _closes(m: re.Match[str] | None, marker: str) -> bool:
    """Whether a fence line `m` closes a block opened with `marker` (same character, at least
    as long, no info string)."""
    if m is None:
        return False
    found = m.group("fence")
    return found[0] == marker[0] and len(found) >= len(marker) and not m.group("info").strip()


def _unwrap_line(line: str, body: _Body, depth: int) -> tuple[str, bool]:
    """One line outside code: container markers out, their titles kept. The flag says a
    directive was opened (MyST option lines may follow)."""
    alert = ALERT.match(line.strip()) if depth else None
    if alert:
        return alert.group("title"), False
    admonition = MKDOCS_ADMONITION.match(line)
    if admonition:
        return "\n" + (admonition.group("title") or "") + "\n", False
    colon = COLON_FENCE.match(line)
    if colon:
        opener = COLON_OPENER.match(colon.group("rest"))
        if not colon.group("rest") or opener is None:
            return "", False
        title = opener.group("bracket") or opener.group("title") or ""
        return "\n" + title.strip() + "\n", True
    if KRAMDOWN_ATTRIBUTES.match(line):
        return "", False
    reference = REFERENCE_DEFINITION.match(line)
    if reference:
        url = reference.group("url")
        if url.startswith(("http://", "https://")):
            body.links.append(url)
        return "", False
    return FOOTNOTE_DEFINITION.sub("", line), False


# ---------------------------------------------------------------------------------------------
# Blocks


def _blocks(lines: list[str]) -> list[tuple[str, str]]:
    """("code" | "heading" | "text", content): blocks separated by blank lines; a fenced code
    block is one block (its fences off); an ATX or setext heading is a block of its own
    ("heading" content is "## text")."""
    text = "\n".join(lines)
    lines = text.split("\n")  # titles kept by _unwrap may have added line breaks
    blocks: list[tuple[str, str]] = []
    current: list[str] = []
    code: list[str] = []
    fence: str | None = None

    def flush() -> None:
        if current:
            blocks.extend(_text_block(current))
            current.clear()

    for line in lines:
        m = FENCE.match(line.strip())
        if fence is not None:
            if _closes(m, fence):
                blocks.append(("code", "\n".join(code).strip("\n")))
                code.clear()
                fence = None
            else:
                code.append(line)
            continue
        if m:
            flush()
            fence = m.group("fence")
        elif not line.strip():
            flush()
        elif HEADING.match(line.strip()) and not line.startswith("    "):
            flush()
            h = HEADING.match(line.strip())
            assert h is not None
            blocks.append(("heading", h.group("level") + " " + HEADING_ATTRIBUTES.sub("", h.group("text"))))
        else:
            current.append(line)
    if fence is not None and code:
        blocks.append(("code", "\n".join(code).strip("\n")))
    flush()
    return blocks


def _text_block(lines: list[str]) -> list[tuple[str, str]]:
    """A block of text lines: a setext heading, a thematic break (dropped) or text."""
    if len(lines) == 1 and THEMATIC_BREAK.match(lines[0]):
        return []
    if len(lines) >= 2 and SETEXT_UNDERLINE.match(lines[-1].strip()) and "|" not in lines[-2]:
        level = "#" if lines[-1].strip().startswith("=") else "##"
        return [("heading", level + " " + " ".join(x.strip() for x in lines[:-1]))]
    return [("text", "\n".join(lines))]


def _paragraphs(block: str, links: list[str]) -> list[str]:
    """The paragraphs of one text block: an HTML block's text, a table's rows, or the block
    with its inline markup removed."""
    if HTML_BLOCK_START.match(block):
        found, hrefs = fragment_paragraphs(block)
        links.extend(hrefs)
        return [p for p in (inline_text(p, links) for p in found) if p]
    lines = block.split("\n")
    if len(lines) >= 2 and "|" in lines[0] and TABLE_DELIMITER.match(lines[1]):
        rows = [_table_row(line, links) for i, line in enumerate(lines) if i != 1]
        return ["\n".join(r for r in rows if r)]
    text = inline_text(block, links)
    return [text] if text else []


def _table_row(line: str, links: list[str]) -> str:
    cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
    return " | ".join(inline_text(c, links) for c in cells)


# ---------------------------------------------------------------------------------------------
# Inline markup


