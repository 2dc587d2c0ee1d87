"""`draw_cast_legend`: the fixed characters (P5) and the colour key (P14) in one strip.

Top row: each cast member as it appears in every panel, with its role; bottom row: one bean per
state so the colours are learned once (green running, orange new and prefilling, blue stored, red dashed freed,
grey idle).
"""

from __future__ import annotations

from pipeline.draw import cast
from pipeline.draw.canvas import new_canvas
from pipeline.plan.model import Plan

WIDTH, HEIGHT = 800.0, 190.0
INSET = 8.0
ROLE_SIZE = 14.0
STATE_WORDS = {
    "zh": {
        "running": "绿：正在跑",
        "new": "橙：刚到，预填",
        "stored": "蓝：缓存的块",
        "freed": "红虚线：被释放或收回",
        "idle": "灰：空闲或干等",
    },
    "en": {
        "running": "green: running",
        "new": "orange: new, prefilling",
        "stored": "blue: cached, shared",
        "freed": "red dashed: freed or taken back",
        "idle": "grey: idle or stuck",
    },
}
STATES = ("running", "new", "stored", "freed", "idle")


def draw_cast_legend(plan: Plan, *, lang: str) -> str:
    cv = new_canvas("cast-legend", WIDTH, HEIGHT, INSET, lang, "cast legend")
    n = max(len(plan.cast), 1)
    col = (WIDTH - 2 * INSET) / n
    for i, member in enumerate(plan.cast):
        x0 = INSET + i * col
        cast.bean(cv, member.id, x0 + 26, 50, member.state, eid=f"cast-{member.id}")
        cv.layout.place(
            member.role,
            x=x0 + 48,
            cy=50,
            role="label",
            size=ROLE_SIZE,
            anchor="start",
            max_width=col - 56,
            max_lines=3,
        )
    col2 = (WIDTH - 2 * INSET) / len(STATES)
    for k, state in enumerate(STATES):
        x0 = INSET + k * col2
        cast.bean(cv, "A", x0 + 22, 140, state, eid=f"state-{state}")
        cv.layout.place(
            STATE_WORDS[lang][state],
            x=x0 + 42,
            cy=140,
            role="label",
            size=ROLE_SIZE,
            anchor="start",
            max_width=col2 - 46,
            max_lines=2,
        )
    who = (
        "；".join(f"{m.id}：{m.role}" for m in plan.cast)
        if lang == "zh"
        else "; ".join(f"{m.id}: {m.role}" for m in plan.cast)
    )
    title = "角色表" if lang == "zh" else "The cast"
    key = (
        "颜色：绿=运行，橙=新到，蓝=缓存，红虚线=释放，灰=空闲。"
        if lang == "zh"
        else "Colours: green running, orange new, blue stored, red dashed freed, grey idle."
    )
    return cv.svg(
        css_class="legend",
        element_id="cast-legend",
        title=title,
        desc=f"{who}。{key}" if lang == "zh" else f"{who}. {key}",
    )
