"""`draw_ruler` (P8): one chart, 2-3 metrics, every technique's measured effect from the sweep.

Rows are the concepts that name a sweep technique; each cell is an arrow: solid green when the
metric gets better, red dashed when it is sacrificed, a grey dash when it barely moves; the
measured percentage sits next to it. Column heads say which direction is better.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pipeline.draw import rough
from pipeline.draw.canvas import Canvas, new_canvas
from pipeline.draw.palette import FAINT, colour
from pipeline.draw.scenes.key import draw_tag
from pipeline.plan import Plan

WIDTH = 800.0
INSET = 8.0
HEAD_H = 70.0
ROW_H = 40.0
NAME_W = 230.0
FLAT_PCT = 1.0  # |change| below this is "about the same"
ARROW_LEN = 24.0
WORDS = {
    "zh": {"higher": "越高越好", "lower": "越低越好", "title": "标尺", "better": "变好",
           "worse": "变差", "same": "差不多"},
    "en": {"higher": "higher is better", "lower": "lower is better", "title": "Ruler",
           "better": "better", "worse": "worse", "same": "about the same"},
}


def verdict(pct: float, better: str) -> str:
    if abs(pct) < FLAT_PCT:
        return "same"
    return "better" if (pct > 0) == (better == "higher") else "worse"


def _cell_arrow(cv: Canvas, eid: str, x: float, cy: float, pct: float, kind: str) -> None:
    rng = cv.rng(eid)
    if kind == "same":
        cv.stroke(rough.line(rng, (x - 8, cy), (x + 8, cy), 0.4, 2), colour("idle"), width=2.2)
        return
    up = pct > 0
    tail, tip = (x, cy + ARROW_LEN / 2), (x, cy - ARROW_LEN / 2)
    if not up:
        tail, tip = tip, tail
    cv.stroke(rough.arrow(rng, tail, tip, 0.5, 0, 8),
              colour("running") if kind == "better" else colour("freed"), width=2.4,
              dashed=kind == "worse")


def draw_ruler(plan: Plan, sweep: Mapping[str, Any], *, lang: str) -> str:
    words = WORDS[lang]
    techniques = {t["id"]: t for t in sweep.get("techniques", [])}
    rows = [c for c in plan.concepts if c.technique and c.technique in techniques]
    metrics = list(plan.ruler.metrics)
    height = HEAD_H + ROW_H * max(len(rows), 1) + 16
    cv = new_canvas("ruler", WIDTH, height, INSET, lang, "ruler")
    draw_tag(cv, lang, right=NAME_W - 40, cy=30)
    col = (WIDTH - INSET - 10 - NAME_W) / max(len(metrics), 1)
    rng = cv.rng("grid")
    for j, m in enumerate(metrics):
        x = NAME_W + col * (j + 0.5)
        cv.layout.place(m.name, x=x, cy=30, role="label", size=17, max_width=col - 20)
        cv.layout.place(words[m.better], x=x, cy=52, role="axis", size=12, max_width=col - 20)
        if j:
            cv.stroke(rough.line(rng, (NAME_W + col * j, 20), (NAME_W + col * j, height - 12), 0.5, 1),
                      FAINT, width=1.0)
    summary = []
    for i, concept in enumerate(rows):
        cy = HEAD_H + ROW_H * (i + 0.5)
        cv.stroke(rough.line(rng, (INSET + 6, cy - ROW_H / 2), (WIDTH - INSET - 6, cy - ROW_H / 2),
                             0.5, 1), FAINT, width=1.0)
        name = concept.name if lang == "zh" else concept.name_en
        cv.layout.place(name, x=INSET + 10, cy=cy, role="label", size=16, anchor="start",
                        max_width=NAME_W - 24)
        tech = techniques[concept.technique or ""]
        for j, m in enumerate(metrics):
            x = NAME_W + col * (j + 0.5)
            pct = tech.get("change_pct", {}).get(m.id)
            if pct is None:
                cv.layout.place("–", x=x, cy=cy, role="label", size=14, floor=None)
                continue
            kind = verdict(float(pct), m.better)
            _cell_arrow(cv, f"cell-{i}-{j}", x - 26, cy, float(pct), kind)
            cv.layout.place(f"{pct:+.0f}%", x=x - 8, cy=cy, role="label", size=15, anchor="start",
                            floor=None)
            summary.append(f"{name} {m.name} {pct:+.0f}% ({words[kind]})")
    title = words["title"]
    sep = "；" if lang == "zh" else "; "
    return cv.svg(css_class="ruler", element_id="ruler-svg", title=title,
                  desc=plan.ruler.sentence + " " + sep.join(summary))
