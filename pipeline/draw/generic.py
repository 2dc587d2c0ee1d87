"""generic: characters, labelled boxes from `panel.labels`, arrows and a speech bubble.

For concepts no simulator scenario covers; it shows no numbers, so it carries no 示意值 tag.
"""

from __future__ import annotations

from pipeline.draw import cast, rough
from pipeline.draw.canvas import Canvas
from pipeline.draw.palette import PAPER
from pipeline.draw.scene import SCENE_X0, SCENE_X1, SceneContext, SceneResult, SceneSpec

SPEAKER_X, SPEAKER_Y = 40.0, 96.0
BUBBLE = (76.0, 22.0, 300.0, 58.0)  # x, y, w, h
BOX_AREA = (86.0, 110.0, SCENE_X1 - 4, 194.0)
BOX_GAP = 22.0
LABEL_SIZE = 14.0
BUBBLE_SIZE = 15.0
CAST_PITCH = 40.0


def draw(cv: Canvas, ctx: SceneContext) -> SceneResult:
    panel = ctx.panel
    # only the characters the panel names: a default speaker would be serving's newcomer D on
    # every field's page (a training page drew a "D" bean no card had mentioned)
    people = [f for f in ctx.focus if len(f) == 1][:3]
    for k, rid in enumerate(people):
        state = "new" if rid == "D" else "running"
        cast.bean(
            cv, rid, SPEAKER_X, SPEAKER_Y + k * CAST_PITCH, state, eid=f"who-{rid}", focus=False
        )
    if panel.bubble:
        bx, by, bw, bh = BUBBLE
        rng = cv.rng("bubble")
        pts = rough.rounded_points(bx, by, bw, bh, 14)
        cv.fill(rough.smooth_closed(pts), PAPER)
        cv.stroke(rough.blob(rng, pts, 0.5), width=1.6)
        if people:  # the bubble's tail points at its speaker; with none it is a plain note
            cv.stroke(
                rough.polyline(
                    rng,
                    [(bx + 18, by + bh - 1), (SPEAKER_X + 10, SPEAKER_Y - 18), (bx + 34, by + bh)],
                    0.3,
                    False,
                    1,
                ),
                width=1.6,
            )
        cv.layout.place(
            panel.bubble,
            x=bx + bw / 2,
            cy=by + bh / 2,
            role="bubble",
            size=BUBBLE_SIZE,
            max_width=bw - 20,
            max_lines=2,
        )
    labels = list(panel.labels)
    if labels:
        x0, y0, x1, y1 = BOX_AREA
        rows = 2 if len(labels) >= 3 else 1
        per_row = (len(labels) + rows - 1) // rows
        bw = (x1 - x0 - BOX_GAP * (per_row - 1)) / per_row
        bh = (y1 - y0 - 10 * (rows - 1)) / rows
        centres = []
        for i, label in enumerate(labels):
            r, c = divmod(i, per_row)
            x, y = x0 + c * (bw + BOX_GAP), y0 + r * (bh + 10)
            cv.stroke(rough.rounded_rect(cv.rng(f"box-{i}"), x, y, bw, bh, 8, 0.8), width=1.6)
            cv.layout.place(
                label,
                x=x + bw / 2,
                cy=y + bh / 2,
                role="label",
                size=LABEL_SIZE,
                max_width=bw - 12,
                max_lines=2 if rows == 2 else 3,
            )
            centres.append((x, y, bw, bh))
        for i in range(len(centres) - 1):
            ax, ay, aw, ah = centres[i]
            bx2, by2, _bw2, bh2 = centres[i + 1]
            if abs(ay - by2) < 1:
                tail, tip = (ax + aw + 3, ay + ah / 2), (bx2 - 3, by2 + bh2 / 2)
            else:
                tail, tip = (ax + aw / 2, ay + ah + 1), (bx2 + aw / 2, by2 - 1)
            cv.stroke(rough.arrow(cv.rng(f"arrow-{i}"), tail, tip, 0.5, 0, 6), width=1.4)
    _ = SCENE_X0
    names = "、".join(people) if ctx.lang == "zh" else ", ".join(people)
    if ctx.lang == "zh":
        desc = (
            f"示意图：{names}"
            + ((f"说“{panel.bubble}”" if people else f"便签写着“{panel.bubble}”")
               if panel.bubble else "")
            + (f"，方框依次是 {'、'.join(labels)}。" if labels else "。")
        )
    else:
        desc = (
            f"Sketch: {names}"
            + ((f' says "{panel.bubble}"' if people else f'a note: "{panel.bubble}"')
               if panel.bubble else "")
            + (f"; boxes: {', '.join(labels)}." if labels else ".")
        )
    return SceneResult(desc, False)


GENERIC = "generic"
# Shared by every field: a panel no run can draw (the prompt's words for it are the registry's).
GENERIC_SCENE = SceneSpec(
    GENERIC,
    "the characters named in `focus` (none if it is empty), up to 4 labelled boxes joined in "
    "order by arrows (so the labels read as steps one after another: not for things that "
    "happen together or nest) and a speech bubble; no simulation, no numbers",
    draw,
)
