"""Web addresses as people write them in running text: what `reading-list.md` links to.

One scanner finds, left to right, Markdown links (`[Title](https://…)`, reference-style
`[Title][ref]`), HTML anchors, autolinks (`<https://…>`), bare URLs (also glued to Chinese text:
`见https://…。`) and bare domains with a path (`aleksagordic.com/blog/vllm`, read as https), as
social sites show them. An address followed by an ellipsis (`anyscale.com/blog/continuous…`,
`...`) is cut short: it is kept as written and never becomes a URL here.

A bare domain needs a path (`docs.vllm.ai` alone is too often a product's name), unless it stands
where a list puts an address, last on its line after a colon (`live view: mempool.space`); and a
top-level label that is not a file extension (`Node.js/express`, `config.yaml/x`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit

# Characters that end an address in running text: whitespace, brackets and quotes, and the
# full-width punctuation of Chinese prose.
_STOP = r"\s<>\"'\[\]{}|\\^`，。；！？、（）「」『』【】《》"
# An address cut short the way social sites shorten them.
ELLIPSIS = re.compile(r"(?:…|⋯|\.{3,})$")
# Labels after the last dot that are file extensions, not top-level domains.
NOT_TLDS = frozenset(
    "js ts jsx tsx mjs json html htm txt yaml yml toml pdf png jpg jpeg gif svg webp css cpp hpp "
    "java ipynb csv lock cfg ini conf log tar gz zip".split()
)
# More file suffixes that are also country domains: a domain alone (no path) ending so is taken
# for a file name ("config: setup.py").
SCRIPT_SUFFIXES = frozenset("py md rs sh rb pl sql xml exe dll so bin sys".split())
# Every repetition is bounded, so that no line (a reading list is the user's file, of any size)
# makes the scanner backtrack for long: a host has at most 8 labels, a link's text 500
# characters, an address 2048.
_HOST = r"(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.){1,8}[a-z]{2,24}"
SCANNER = re.compile(
    # ![alt](…) and [text](target "title"): one level of brackets in the text, of parentheses
    # in the target.
    r"(?P<md>!?\[(?P<text>(?:[^\[\]\n]|\[[^\[\]\n]{0,200}\]){0,500})\]\(\s*<?"
    r"(?P<target>(?:[^()\s<>]|\([^()\s]{0,200}\)){0,2048})>?"
    r"(?:\s+(?:\"[^\"\n]{0,300}\"|'[^'\n]{0,300}'|\([^)\n]{0,300}\)))?\s*\))"
    r"|(?P<ref>\[(?P<rtext>[^\[\]\n]{1,500})\]\s?\[(?P<label>[^\[\]\n]{0,100})\](?!\())"
    r"|(?P<anchor><a\s[^<>]{0,200}?href\s*=\s*[\"'](?P<href>[^\"'<>\n]{0,2048})[\"'][^<>]{0,200}>"
    r"(?P<atext>[^\n]{0,500}?)</a\s*>)"
    r"|(?P<auto><(?P<autotarget>[a-z][a-z0-9+.-]{1,31}:[^\s<>]{0,2048})>)"
    rf"|(?P<url>https?://[^{_STOP}]{{1,2048}})"
    rf"|(?<![A-Za-z0-9_@./-])(?P<bare>{_HOST}/[^{_STOP}]{{0,2048}})"
    # a bare domain alone, where a list puts an address: last on its line, after a colon
    # ("live view of the fee market: mempool.space")
    rf"|(?:(?<=: )|(?<=:)|(?<=：))(?P<host>{_HOST})(?=[ \t]*(?:\n|$))",
    re.IGNORECASE,
)
# Where an address ends and sentence punctuation begins: "…/vllm." "…/x)," "…/y:".
_TRAILING = ".,;:!?'\")]}>"
INLINE_MARKUP = re.compile(r"(\*\*|__|~~|`)")


@dataclass(frozen=True)
class Found:
    """One address in a piece of text: where it is and what it says."""

    start: int
    end: int
    kind: str  # "link" (a Markdown/HTML link), "ref" (reference-style), "auto", "url", "bare"
    written: str  # the address as written (a cut-short one with its ellipsis)
    text: str = ""  # a link's text, "" for the other kinds
    label: str = ""  # a reference-style link's label

    @property
    def cut_short(self) -> bool:
        return bool(ELLIPSIS.search(self.written))


def find_addresses(text: str) -> list[Found]:
    """Every address in `text`, in order (images skipped: `![…](…)` is no reading)."""
    found: list[Found] = []
    for m in SCANNER.finditer(text):
        if m.group("md"):
            if not m.group("md").startswith("!"):
                found.append(Found(m.start(), m.end(), "link", m.group("target"), m.group("text")))
        elif m.group("ref"):
            label = m.group("label").strip() or m.group("rtext")
            found.append(Found(m.start(), m.end(), "ref", "", m.group("rtext"), label))
        elif m.group("anchor"):
            text_of = re.sub(r"<[^>]*>", "", m.group("atext"))
            found.append(Found(m.start(), m.end(), "link", m.group("href"), text_of))
        elif m.group("auto"):
            found.append(Found(m.start(), m.end(), "auto", m.group("autotarget")))
        elif m.group("host"):
            if _plausible_domain(m.group("host"), alone=True):
                found.append(Found(m.start(), m.end(), "bare", m.group("host") + "/"))
        else:
            kind = "url" if m.group("url") else "bare"
            written = _trim(m.group(kind))
            if kind == "bare" and not _plausible_domain(written):
                continue
            found.append(Found(m.start(), m.start() + len(written), kind, written))
    return found


def _trim(address: str) -> str:
    """An address without the sentence punctuation after it; an ellipsis is kept (it says the
    address was cut short), and a closing parenthesis only when it closes one in the address."""
    cut = re.search(r"…|⋯|\.{3,}", address)
    if cut:
        return address[: cut.end()]  # "…/continuous…llm用户": the address ends at the ellipsis
    while address:
        last = address[-1]
        if last == ")" and address.count("(") >= address.count(")"):
            return address
        if last not in _TRAILING:
            return address
        address = address[:-1]
    return address


def _plausible_domain(written: str, alone: bool = False) -> bool:
    """Its top-level label is not a file extension (`alone`, a domain without a path: nor a
    script's or a binary's)."""
    label = written.split("/", 1)[0].rsplit(".", 1)[-1].lower()
    return label not in NOT_TLDS and not (alone and label in SCRIPT_SUFFIXES)


def web_url(written: str) -> str | None:
    """The http(s) URL an address names, or None: a bare domain gets https://, a cut-short
    address, another scheme, a relative path or an address without a host give None."""
    address = written.strip()
    if not address or ELLIPSIS.search(address):
        return None
    if not re.match(r"^https?://", address, flags=re.I):
        if re.match(r"^[a-z][a-z0-9+.-]*:", address, flags=re.I) and not re.match(
            r"^https?:/", address, flags=re.I
        ):
            return None  # javascript:, data:, mailto:, …
        if not re.match(rf"^{_HOST}/", address, flags=re.I) or not _plausible_domain(address):
            return None
        address = "https://" + address
    try:
        parts = urlsplit(address)
    except ValueError:
        return None
    if not parts.hostname or "." not in parts.hostname or re.search(r"\s", address):
        return None
    return address


def loose_address(address: str) -> str:
    """An address for comparing with one a social site shortened: no scheme, no `www.`, the host
    lower-cased, no ellipsis, no trailing slash ("https://www.AnyScale.com/blog/x/" →
    "anyscale.com/blog/x")."""
    text = ELLIPSIS.sub("", address.strip())
    text = re.sub(r"^https?:/*", "", text, flags=re.I)
    host, _, path = text.partition("/")
    host = host.lower().removeprefix("www.")
    return f"{host}/{path}".rstrip("/") if path else host


def plain_text(text: str) -> str:
    """Inline Markdown emphasis and code marks off, whitespace collapsed."""
    return re.sub(r"\s+", " ", INLINE_MARKUP.sub("", text)).strip()
