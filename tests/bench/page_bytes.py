"""Where a built page's bytes go: each embedded font (as base64 and as woff2), the stylesheet,
the script, the SVG and its heaviest attributes, and everything else.

Run: `.venv/bin/python tests/bench/page_bytes.py [PAGE.html ...]` (default: every
`output/*/index.html`; `make bench` runs it after a build). Issue 16 cut the example page from
394 to 289 KB with these numbers; nothing here is asserted (tests/render/test_examples.py holds
the budgets).
"""

from __future__ import annotations

import base64
import re
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve()
FACE = re.compile(r"@font-face\{[^}]*\}")
SVG = re.compile(r"<svg.*?</svg>", re.S)
ATTRIBUTE = re.compile(r'\s([a-zA-Z_:-]+)="[^"]*"')
TOP_ATTRIBUTES = 10


def parts(html: str) -> dict[str, int]:
    """Bytes by part; indented names are inside the part above them."""
    out: dict[str, int] = {}
    faces = FACE.findall(html)
    for face in faces:
        family = re.search(r"font-family:'([^']+)'", face)
        data = re.search(r"base64,([^)]+)\)", face)
        name = f"font {family.group(1) if family else '?'}"
        out[name] = out.get(name, 0) + len(face)
        if data:  # a family may have several faces (the Chinese hand's Latin face)
            key = f"  {name} as woff2"
            out[key] = out.get(key, 0) + len(base64.b64decode(data.group(1)))
    styles = re.findall(r"<style[^>]*>(.*?)</style>", html, re.S)
    out["css (without the fonts)"] = sum(len(s.encode()) for s in styles) - sum(map(len, faces))
    scripts = re.findall(r"<script[^>]*>(.*?)</script>", html, re.S)
    out["js"] = sum(len(s.encode()) for s in scripts)
    svgs = SVG.findall(html)
    out["svg"] = sum(len(s.encode()) for s in svgs)
    weights: Counter[str] = Counter()
    for svg in svgs:
        for m in ATTRIBUTE.finditer(svg):
            weights[m.group(1)] += len(m.group(0).encode())
    for name, size in weights.most_common(TOP_ATTRIBUTES):
        out[f"  svg @{name}"] = size
    total = len(html.encode())
    out["rest (html, text)"] = total - sum(v for k, v in out.items() if not k.startswith(" "))
    out["total"] = total
    return out


def summary(html: str) -> str:
    """One line: the total and the top-level parts, in KB (1000 bytes, as the budget test)."""
    found = parts(html)
    shown = ", ".join(
        f"{name} {size / 1000:.1f}"
        for name, size in found.items()
        if not name.startswith(" ") and name != "total"
    )
    return f"{found['total'] / 1000:.1f} KB ({shown} KB)"


def main(argv: list[str]) -> int:
    pages = [Path(p) for p in argv] or sorted(HERE.parents[2].glob("output/*/index.html"))
    for page in pages:
        print(page)
        for name, size in parts(page.read_text(encoding="utf-8")).items():
            print(f"  {name:<32}{size / 1000:>8.1f} KB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
