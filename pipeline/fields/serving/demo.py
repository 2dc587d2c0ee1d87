"""`python -m pipeline.fields.serving.demo OUT_DIR`: every scene for both variants of every scenario, plus
the main thread, cast legend, ruler, step strips and stamps, in one HTML file for eyeballing.

Light (grid paper) and dark (chalkboard) themes side by side; fonts embedded like the real page.
"""

from __future__ import annotations

import sys
from pathlib import Path

from pipeline import fonts
from pipeline.draw.defs import draw_symbol_defs
from pipeline.fields.serving import FIELD
from pipeline.fields.serving.showcase import SCENE_FOR, demo_sections

LIGHT = (
    "--paper:#fbf8ef;--ink:#2b2b2b;--run:#2f9e44;--new:#e8590c;--stored:#1971c2;"
    "--freed:#e03131;--idle:#868e96;--accent:#c92a2a;--faint:#a5c8e4;"
    "--run-tint:#b6d3b7;--new-tint:#f2cdaa;--stored-tint:#b6cbe0;--freed-tint:#ebb9b1;"
    "--idle-tint:#d8d6cf;--bean-ink:#2b2b2b;"
)
DARK = (
    "--paper:#1f2a24;--ink:#eeeee4;--run:#8ce99a;--new:#ffa94d;--stored:#74c0fc;"
    "--freed:#ff8787;--idle:#adb5bd;--accent:#ff6b6b;--faint:#4d6b5c;"
    "--run-tint:#9bdca4;--new-tint:#ffbd7a;--stored-tint:#9cc6f5;--freed-tint:#f6d4d0;"
    "--idle-tint:#b4bab3;--bean-ink:#1c2520;"
)
CSS = (
    "body{margin:0;font-family:sans-serif}"
    ".theme{padding:16px;display:grid;grid-template-columns:repeat(2,400px);gap:14px}"
    f".light{{{LIGHT}background-color:var(--paper);color:var(--ink);"
    "background-image:linear-gradient(#dfe9f3 1px,transparent 1px),"
    "linear-gradient(90deg,#dfe9f3 1px,transparent 1px);background-size:24px 24px}"
    f".dark{{{DARK}background:var(--paper);color:var(--ink)}}"
    "svg{width:400px;height:auto;display:block}.wide svg{width:820px}"
    ".wide{grid-column:1/3}h3{grid-column:1/3;margin:4px 0;font:14px sans-serif}"
    ".small svg{width:120px}"
)


def page() -> str:
    sections = demo_sections()
    text = "".join(sections)
    faces = "".join(
        f.css() for fam in (fonts.HAND_ZH, fonts.HAND_EN) for f in fonts.subset_faces(fam, text)
    )
    body = "".join(f'<div class="theme {theme}">{text}</div>' for theme in ("light", "dark"))
    return (
        f'<!doctype html><html lang="zh"><head><meta charset="utf-8"><title>tujie draw demo'
        f"</title><style>{faces}{CSS}.sprites{{position:absolute}}</style></head><body>"
        f"{draw_symbol_defs('zh', FIELD.symbols())}{body}</body></html>"
    )


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m pipeline.fields.serving.demo OUT_DIR", file=sys.stderr)
        return 2
    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    (out / "draw-demo.html").write_text(page(), encoding="utf-8")
    print(out / "draw-demo.html", f"({len(SCENE_FOR)} scenarios)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
