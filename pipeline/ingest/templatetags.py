"""Hugo shortcodes, Liquid tags and comments in saved Markdown, found in one forward pass.

A regex such as `\\{\\{<.*?>\\}\\}` tries every `{{<` and, when no `>}}` follows, scans to the end of
the text from each: 200 KB of `{{<` took minutes. Here each closer is searched for once and
remembered: when none follows an opener, none follows a later one either, so the whole text is
read a bounded number of times whatever it holds. What is found is what the regexes found:
the leftmost tag, the kinds tried in the same order, each closed by the first closer after it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

# (opener, closer) in the order the kinds are tried at one `{`: Hugo `{{< … >}}` and
# `{{% … %}}`, Liquid tags `{% … %}` and Liquid output `{{ … }}`.
TAG_KINDS = (("{{<", ">}}"), ("{{%", "%}}"), ("{%", "%}"), ("{{", "}}"))
LIQUID_TRIM = "-"  # `{%- … -%}`, `{{- … -}}`: whitespace control, not part of the tag
HTML_COMMENT_OPEN, HTML_COMMENT_CLOSE = re.compile(r"<!--"), re.compile(r"-->")
LIQUID_COMMENT_OPEN = re.compile(r"\{%-?\s*comment\s*-?%\}")
LIQUID_COMMENT_CLOSE = re.compile(r"\{%-?\s*endcomment\s*-?%\}")


@dataclass(frozen=True)
class TemplateTag:
    """One tag in `text[start:end]`, opened by `opener` (one of TAG_KINDS); `inner` is what it
    says, without delimiters, trim marks or surrounding spaces (`figure src="a.png"`, `/details`,
    `.Title`)."""

    start: int
    end: int
    opener: str
    inner: str


def template_tags(text: str) -> list[TemplateTag]:
    """Every template tag of `text`, left to right, not overlapping."""
    next_closer: dict[str, int] = {}  # closer → its first index at or after the last search
    found: list[TemplateTag] = []
    pos = 0
    while (start := text.find("{", pos)) != -1:
        pos = start + 1
        for opener, closer in TAG_KINDS:
            if not text.startswith(opener, start):
                continue
            body = start + len(opener)
            at = next_closer.get(closer, -2)
            if at != -1 and at < body:
                at = next_closer[closer] = text.find(closer, body)
            if at == -1:
                continue  # no closer of this kind after here, nor after any later opener
            found.append(TemplateTag(start, at + len(closer), opener, _inner(text[body:at], opener)))
            pos = at + len(closer)
            break
    return found


def replace_template_tags(text: str, replacement: Callable[[str, TemplateTag], str]) -> str:
    """`text` with each tag replaced by `replacement(text, tag)`."""
    out: list[str] = []
    pos = 0
    for tag in template_tags(text):
        out += [text[pos : tag.start], replacement(text, tag)]
        pos = tag.end
    out.append(text[pos:])
    return "".join(out)


def drop_comments(text: str) -> str:
    """Liquid `{% comment %}…{% endcomment %}` blocks, then HTML `<!-- … -->` comments, out."""
    text = _drop_between(text, LIQUID_COMMENT_OPEN, LIQUID_COMMENT_CLOSE)
    return _drop_between(text, HTML_COMMENT_OPEN, HTML_COMMENT_CLOSE)


def _drop_between(text: str, opener: re.Pattern[str], closer: re.Pattern[str]) -> str:
    """Each stretch from an opener to the first closer after it removed; an opener with no
    closer after it is kept as text, and so is everything after it (no closer follows)."""
    out: list[str] = []
    pos = 0
    while (opened := opener.search(text, pos)) and (closed := closer.search(text, opened.end())):
        out.append(text[pos : opened.start()])
        pos = closed.end()
    out.append(text[pos:])
    return "".join(out)


def _inner(body: str, opener: str) -> str:
    if opener in ("{%", "{{"):
        body = body.removeprefix(LIQUID_TRIM).removesuffix(LIQUID_TRIM)
    return body.strip()
