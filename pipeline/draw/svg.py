"""Tiny SVG element builders: escaping, 1-decimal numbers, attribute lists.

Every drawing module writes markup through these so output is escaped and byte-stable.
"""

from __future__ import annotations

from html import escape

DECIMALS = 1


def num(value: float) -> str:
    """A coordinate rounded to one decimal, without a trailing `.0` and never `-0`."""
    rounded = round(float(value), DECIMALS)
    if rounded == 0:
        return "0"
    text = f"{rounded:.{DECIMALS}f}"
    return text[:-2] if text.endswith(".0") else text


def esc(text: str) -> str:
    """Escape untrusted text for element content and attribute values."""
    return escape(text, quote=True)


def attrs(pairs: dict[str, object]) -> str:
    """` key="value"` pairs in the given order; `None` values are skipped, floats rounded."""
    out = []
    for key, value in pairs.items():
        if value is None:
            continue
        if isinstance(value, float):
            value = num(value)
        out.append(f' {key}="{esc(str(value))}"')
    return "".join(out)


def element(tag: str, pairs: dict[str, object], content: str | None = None) -> str:
    """`<tag …/>` or `<tag …>content</tag>`; `content` must already be escaped markup."""
    if content is None:
        return f"<{tag}{attrs(pairs)}/>"
    return f"<{tag}{attrs(pairs)}>{content}</{tag}>"
