"""`python -m pipeline.fields.training.demo OUT_DIR`: every training scene for both variants
of every scenario it can draw, in both languages, and the walkthrough's strips, as two HTML
files (`training-demo-light.html`, `training-demo-dark.html`) styled by the page's own CSS, for
eyeballing in a browser at 1280 and 390 px.
"""

from __future__ import annotations

import sys
from pathlib import Path

from pipeline import fonts
from pipeline.draw.defs import draw_symbol_defs
from pipeline.fields.training import FIELD
from pipeline.fields.training.showcase import scenario_panels, walkthrough_strips
from pipeline.paths import templates_dir

THEMES = ("light", "dark")
CSS = (
    ".demo{padding:16px;display:grid;grid-template-columns:repeat(auto-fill,minmax(300px,400px));"
    "gap:14px}.demo svg{width:100%;height:auto;display:block}"
    ".demo h3{margin:4px 0;font:13px sans-serif}.strip{grid-column:1/-1;max-width:840px}"
    ".strip svg{max-width:420px}"
)


def page(theme: str) -> str:
    panels = [f"<div><h3>{label} [{lang}]</h3>{svg}</div>"
              for lang in ("zh", "en") for label, svg in scenario_panels(lang)]
    strips = [f'<div class="strip"><h3>{sentence}</h3>{svg}</div>'
              for lang in ("zh", "en") for sentence, svg in walkthrough_strips(lang)]
    text = "".join(panels + strips)
    faces = "".join(
        f.css() for fam in (fonts.HAND_ZH, fonts.HAND_EN) for f in fonts.subset_faces(fam, text)
    )
    page_css = (templates_dir() / "page.css").read_text(encoding="utf-8")
    return (
        f'<!doctype html><html lang="zh" data-theme="{theme}"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        f"<title>tujie training scenes ({theme})</title><style>{faces}{page_css}{CSS}</style>"
        f"</head><body>{draw_symbol_defs('zh', FIELD.symbols())}"
        f'<div class="demo">{text}</div></body></html>'
    )


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m pipeline.fields.training.demo OUT_DIR", file=sys.stderr)
        return 2
    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    for theme in THEMES:
        path = out / f"training-demo-{theme}.html"
        path.write_text(page(theme), encoding="utf-8")
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
