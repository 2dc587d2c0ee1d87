"""Markdown's inline markup turned into plain text: code spans, images (their alt text kept as a
note), links (their web addresses collected), emphasis, escapes, MyST roles, inline HTML tags and
inline math (as readable text). Block structure is `pipeline.ingest.markdown`'s."""

from __future__ import annotations

import html
import re

from pipeline.ingest.formats import clean_inline
from pipeline.ingest.htmlpage import image_note
from pipeline.ingest.mathtext import replace_math

HTML_NAMES = (
    "a|abbr|address|article|aside|audio|b|bdi|bdo|blockquote|br|button|caption|center|cite|"
    "code|col|colgroup|dd|del|details|dfn|div|dl|dt|em|figcaption|figure|font|footer|form|"
    "h[1-6]|header|hr|i|iframe|img|input|ins|kbd|label|li|main|mark|nav|ol|p|picture|pre|q|s|"
    "samp|section|small|source|span|strike|strong|sub|summary|sup|table|tbody|td|tfoot|th|thead|"
    "tr|tt|u|ul|var|video|wbr|svg|math|script|style|noscript|iframe|object|embed"
)
INLINE_TAG = re.compile(rf"</?(?:{HTML_NAMES})\b(?:[^<>\"']|\"[^\"]*\"|'[^']*')*/?>", re.I)
CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)((?:(?!\n[ \t]*\n).)+?)(?<!`)\1(?!`)", re.S)
# Linear time: no bracketed part may run past the next `[` (nor a URL past the next `[` or an
# angle-bracketed one past the next `<`), so each `[` is scanned only up to the next one. The
# old `[^\]]*` ran from every `[` to the end of the text: 200 KB of `[` took minutes.
LINK_TEXT = r"[^\[\]]"
LINK_TARGET = r"(?P<url><[^<>]*>|[^)\s\[]*)(?:\s+(?:\"[^\"]*\"|'[^']*'))?\)"
IMAGE = re.compile(rf"!\[(?P<alt>{LINK_TEXT}*)\]\({LINK_TARGET}")
LINK = re.compile(rf"\[(?P<text>{LINK_TEXT}*)\]\({LINK_TARGET}")
REFERENCE_LINK = re.compile(rf"\[(?P<text>{LINK_TEXT}+)\]\[{LINK_TEXT}*\]")
FOOTNOTE_REFERENCE = re.compile(rf"\[\^{LINK_TEXT}+\]")
AUTOLINK = re.compile(r"<(?P<url>https?://[^\s<>]+)>")
# A single `*` pair holds no `*` (each `*` is scanned up to the next one, not to the line's end).
EMPHASIS = re.compile(r"(\*\*|__)(.+?)\1|(?<![\w*])\*(?!\s)([^*\n]+?)(?<!\s)\*(?![\w*])|~~(.+?)~~")
MYST_ROLE = re.compile(r"\{[\w:-]+\}`([^`]*)`")
ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")
ESCAPE_BASE = 0xE000  # escaped ASCII punctuation is parked in the Private Use Area
UNESCAPE = {ESCAPE_BASE + c: chr(c) for c in range(0x21, 0x7F)}

def inline_text(text: str, links: list[str]) -> str:
    """Inline markup removed line by line; code spans are kept as written, without backticks."""
    parts: list[str] = []
    pos = 0
    for m in CODE_SPAN.finditer(text):
        parts.append(_inline_prose(text[pos : m.start()], links))
        parts.append(m.group(2).strip() if m.group(2).strip() else m.group(2))
        pos = m.end()
    parts.append(_inline_prose(text[pos:], links))
    joined = "".join(parts)
    return "\n".join(clean_inline(line) for line in joined.split("\n")).strip()

def _inline_prose(text: str, links: list[str]) -> str:
    text = MYST_ROLE.sub(lambda m: m.group(1), text)
    text = replace_math(text)
    # Escaped punctuation ("\*", "\[") is literal: hidden from the markup rules below.
    text = ESCAPED.sub(lambda m: chr(ESCAPE_BASE + ord(m.group(1))), text)
    text = INLINE_TAG.sub(_inline_tag, text)
    text = IMAGE.sub(lambda m: image_note(m.group("alt")), text)

    def link(m: re.Match[str]) -> str:
        url = m.group("url").strip("<>")
        if url.startswith(("http://", "https://")):
            links.append(url)
        return m.group("text")

    text = LINK.sub(link, text)
    text = REFERENCE_LINK.sub(lambda m: m.group("text"), text)
    text = FOOTNOTE_REFERENCE.sub("", text)
    text = AUTOLINK.sub(lambda m: m.group("url"), text)
    text = EMPHASIS.sub(lambda m: m.group(2) or m.group(3) or m.group(4), text)
    text = text.translate(UNESCAPE)
    return html.unescape(text) if "&" in text else text

def _inline_tag(m: re.Match[str]) -> str:
    tag = m.group(0)
    name = re.match(r"</?\s*([\w-]+)", tag)
    lowered = name.group(1).lower() if name else ""
    if lowered == "br":
        return "\n"
    if lowered == "img" and not tag.startswith("</"):
        alt = re.search(r"""\balt\s*=\s*(?:"([^"]*)"|'([^']*)')""", tag, re.I)
        note = image_note(html.unescape(alt.group(1) or alt.group(2))) if alt else ""
        return f" {note} " if note else ""
    return ""
