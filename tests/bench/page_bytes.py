"""Where a built page's bytes go: embedded fonts, inline SVG, CSS, JS, and the rest (markup and
text). KiB = 1024 bytes, as the tests' page budget counts. `bench_build.py` prints it for the page it builds; run alone on any page:
`.venv/bin/python tests/bench/page_bytes.py output/llm-inference/index.html`.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from bs4 import BeautifulSoup

FONT_DATA = re.compile(r"url\(\s*['\"]?data:font/[^)]*\)")


def page_parts(html: str) -> dict[str, int]:
    """UTF-8 bytes per part; the parts add up to the whole page."""
    soup = BeautifulSoup(html, "html.parser")
    styles = "".join(s.get_text() for s in soup.find_all("style"))
    fonts = sum(len(m.encode()) for m in FONT_DATA.findall(styles))
    css = len(styles.encode()) - fonts
    js = sum(len(s.get_text().encode()) for s in soup.find_all("script"))
    svg = sum(
        len(str(s).encode()) for s in soup.find_all("svg") if s.find_parent("svg") is None
    )
    total = len(html.encode())
    return {
        "fonts": fonts,
        "svg": svg,
        "css": css,
        "js": js,
        "markup+text": total - fonts - svg - css - js,
        "total": total,
    }


def format_parts(parts: dict[str, int]) -> str:
    shown = ", ".join(f"{name} {parts[name] / 1024:.0f}" for name in parts if name != "total")
    return f"{parts['total'] / 1024:.1f} KiB ({shown} KiB)"


if __name__ == "__main__":
    for arg in sys.argv[1:]:
        print(f"{arg}: {format_parts(page_parts(Path(arg).read_text(encoding='utf-8')))}")
