"""Math in saved articles as readable text: `$…$`, `$$…$$`, `\\(…\\)`, `\\[…\\]` and the TeX of
KaTeX/MathJax become plain Unicode (`2 · L · H_kv`, `(1 - α^(k+1))/(1 - α)`), never delimiters.

The TeX is turned into text by `pylatexenc` (a maintained LaTeX-to-Unicode converter) with a few
rules of our own so the text cannot be misread: fractions and multi-character sub- and
superscripts keep their grouping in parentheses, and binary operators keep their spaces. When
the TeX cannot be read, its source is kept (without the delimiters).
"""

from __future__ import annotations

import logging
import re
from functools import lru_cache
from typing import Any

from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db

# pylatexenc reports malformed TeX through logging; a saved article's TeX is not our error.
logging.getLogger("pylatexenc").setLevel(logging.CRITICAL)

# Binary operators and relations, spelled with spaces around them (the TeX lexer eats the space
# after a control word, so `2 \cdot L` would otherwise read "2 ·L").
SPACED_OPERATORS = {
    "cdot": "·",
    "times": "×",
    "div": "÷",
    "pm": "±",
    "approx": "≈",
    "sim": "∼",
    "simeq": "≃",
    "equiv": "≡",
    "propto": "∝",
    "le": "≤",
    "leq": "≤",
    "ge": "≥",
    "geq": "≥",
    "ne": "≠",
    "neq": "≠",
    "ll": "≪",
    "gg": "≫",
    "in": "∈",
    "to": "→",
    "rightarrow": "→",
    "leftarrow": "←",
    "Rightarrow": "⇒",
    "mapsto": "↦",
}
FRACTIONS = ("frac", "dfrac", "tfrac", "cfrac")
# `x^{k+1}` → `x^(k+1)`; a single character or a word needs no parentheses.
GROUPED_SCRIPT = re.compile(r"([_^])\{([^{}]*)\}")


def _grouped(text: str) -> str:
    text = text.strip()
    return text if len(text) <= 1 or text.isalnum() else f"({text})"


def _fraction(n: Any, l2tobj: LatexNodes2Text) -> str:
    args = [a for a in (n.nodeargd.argnlist if n.nodeargd else []) if a is not None]
    if len(args) < 2:
        return str(n.latex_verbatim())
    num, den = (l2tobj.nodelist_to_text([a]) for a in args[-2:])
    return f"{_grouped(num)}/{_grouped(den)}"


@lru_cache(maxsize=1)
def _converter() -> LatexNodes2Text:
    db = get_default_latex_context_db()
    macros = [MacroTextSpec(name, simplify_repl=_fraction) for name in FRACTIONS]
    macros += [MacroTextSpec(name, f" {sym} ") for name, sym in SPACED_OPERATORS.items()]
    db.add_context_category("tujie-readable", prepend=True, macros=macros)
    return LatexNodes2Text(math_mode="text", latex_context=db)


def _script_groups(tex: str) -> str:
    previous = None
    while previous != tex:
        previous = tex
        tex = GROUPED_SCRIPT.sub(lambda m: m.group(1) + _grouped(m.group(2)), tex)
    return tex


@lru_cache(maxsize=4096)
def tex_to_text(tex: str) -> str:
    """Readable Unicode for a TeX formula; its stripped source when it cannot be converted."""
    source = tex.strip()
    if not source:
        return ""
    try:
        text = _converter().latex_to_text(_script_groups(source))
    except Exception:  # noqa: BLE001 - any TeX the converter cannot read is kept as written
        text = source
    lines = [re.sub(r"[ \t]+", " ", line).strip() for line in text.splitlines()]
    return "\n".join(line for line in lines if line) or source


def replace_math(text: str, *, backslash_delimiters: bool = False) -> str:
    """`text` with every math span replaced by `tex_to_text` of its TeX.

    `$$…$$` is display math; `$…$` is inline math by Pandoc's rule (no space just inside either
    dollar, no digit right after the closing one, so "$5 and $10" stays money); `\\$` is a
    dollar sign. `\\(…\\)` and `\\[…\\]` count only with `backslash_delimiters` (HTML pages:
    in Markdown they are escaped brackets)."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "\\" and i + 1 < n:
            nxt = text[i + 1]
            if backslash_delimiters and nxt in "([":
                close = "\\)" if nxt == "(" else "\\]"
                end = text.find(close, i + 2)
                if end != -1:
                    out.append(tex_to_text(text[i + 2 : end]))
                    i = end + 2
                    continue
            out.append("$" if nxt == "$" else text[i : i + 2])
            i += 2
            continue
        if c == "$":
            end, width = _closing_dollar(text, i)
            if end != -1:
                out.append(tex_to_text(text[i + width : end]))
                i = end + width
                continue
            out.append("$$" if text.startswith("$$", i) else "$")
            i += 2 if text.startswith("$$", i) else 1
            continue
        out.append(c)
        i += 1
    return "".join(out)


def _closing_dollar(text: str, start: int) -> tuple[int, int]:
    """(index of the closing delimiter, delimiter width) of math opened at `start`, or (-1, 0)."""
    if text.startswith("$$", start):
        end = text.find("$$", start + 2)
        return (end, 2) if end != -1 and text[start + 2 : end].strip() else (-1, 0)
    if start + 1 >= len(text) or text[start + 1].isspace():
        return -1, 0
    k = start + 1
    while k < len(text):
        ch = text[k]
        if ch == "\\":
            k += 2
            continue
        if text.startswith("\n\n", k):
            return -1, 0
        if ch == "$":
            after = text[k + 1] if k + 1 < len(text) else ""
            if not text[k - 1].isspace() and not after.isdigit() and k > start + 1:
                return k, 1
            if after == "$":
                return -1, 0
        k += 1
    return -1, 0
