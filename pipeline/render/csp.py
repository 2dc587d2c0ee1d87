"""The Content-Security-Policy of the page and of the review page (their one inline style and
script allowed by hash, nothing else) and the minified stylesheet and script the policy hashes."""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Iterable

import rjsmin


def csp_hash(text: str) -> str:
    """The CSP source expression for an inline element whose content is exactly `text`."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"


def csp_policy(
    style: str, scripts: Iterable[str], *, fonts: str = "data:", images: str = "data:"
) -> str:
    """The policy: nothing but the inline style and scripts (by hash), fonts and images from
    `fonts` / `images` (the page embeds both as data: URLs; the review shows its image files,
    `'self'`, with no fonts: `fonts=""`)."""
    script_hashes = " ".join(csp_hash(s) for s in scripts)
    font_src = f"font-src {fonts}; " if fonts else ""
    return (
        f"default-src 'none'; style-src {csp_hash(style)}; script-src {script_hashes}; "
        f"{font_src}img-src {images}; base-uri 'none'; form-action 'none'"
    )


CSS_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)
CSS_SPACE = re.compile(r"\s+")
# Spaces next to these never matter in our stylesheet (no strings hold them but `content: ""`).
CSS_TIGHT = re.compile(r"\s*([{};,>])\s*|(:)\s+")


def minify_css(css: str) -> str:
    """The stylesheet without comments and layout whitespace (it is sent on every page view;
    the readable copy is templates/page.css)."""
    css = CSS_SPACE.sub(" ", CSS_COMMENT.sub("", css))
    css = CSS_TIGHT.sub(lambda m: m.group(1) or m.group(2), css)
    return css.replace(";}", "}").strip()


def minify_js(script: str) -> str:
    """The script without comments and layout whitespace (the readable copy is in templates/)."""
    return str(rjsmin.jsmin(script))
