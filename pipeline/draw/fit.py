"""Every text the page's drawings place, fitted before anything is rendered: the validator's
layout check.

`layout_violations` draws what the page draws from the plan's own words — the main thread and
the ruler at both widths (desktop and phone layouts), every comic panel with its trace and
filled caption — with the same fonts, rooms and floors the page uses, and turns each text that
does not fit into a `Violation` at the JSON path of the plan field it came from (a text that is
not the plan's own, e.g. a scene's label pushed out by a knobbed run, is reported at the
panel). After a failure the field is blanked and the drawing tried again, so one round reports
every field of a drawing that does not fit.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping
from typing import Any, Literal

from pipeline import fonts
from pipeline.artifacts.sim import SweepView
from pipeline.draw import main_thread, ruler
from pipeline.draw.layout import FLOOR, FitError, family_for
from pipeline.draw.main_thread import draw_main_thread
from pipeline.draw.ruler import draw_ruler
from pipeline.draw.ruler_rows import ruler_table
from pipeline.errors import PlanError, Violation
from pipeline.plan.model import Concept, Panel, Plan, parse_plan
from pipeline.plan.placeholders import fill_placeholders

MAX_RETRIES = 6  # fields blanked per drawing before giving up on finding more
BLANK = "x"
PATH_PART = re.compile(r"([A-Za-z_]\w*)|\[(\d+)\]")

Fields = list[tuple[str, str]]  # (JSON path, the text the drawing places for it)
Drawing = Callable[[Plan], object]


def layout_violations(
    plan: Plan,
    *,
    draw_panel: Callable[[Concept, str, Panel], str],
    values_for: Callable[[Panel], Mapping[str, str]],
    sweep: SweepView | None,
    skip: Collection[str] = (),
) -> list[Violation]:
    """Each plan text the page's drawings cannot place, with its JSON path. `draw_panel` draws
    one panel as the page does (its field's scene, from its run); panels whose path is in `skip`
    (already broken in another way) are not drawn."""
    lang = plan.lang
    measured = sweep if sweep is not None else SweepView()
    out: list[Violation] = []
    for narrow in (False, True):

        def thread(p: Plan, n: bool = narrow) -> str:
            return draw_main_thread(p, lang=lang, narrow=n)

        def rule(p: Plan, n: bool = narrow) -> str:
            return draw_ruler(p, measured, lang=lang, narrow=n)

        out += _fits(plan, thread, _main_thread_fields, "main_thread")
        out += _fits(plan, rule, lambda p: _ruler_fields(p, measured), "ruler")
    for index, concept in enumerate(plan.concepts):
        for side in ("trouble", "fix"):
            path = f"concepts[{index}].{side}"
            if path in skip:
                continue

            def draw(p: Plan, i: int = index, s: Any = side) -> str:
                c = p.concepts[i]
                panel = c.trouble if s == "trouble" else c.fix
                return draw_panel(c, s, panel)

            def fields(p: Plan, i: int = index, s: Literal["trouble", "fix"] = side) -> Fields:
                c = p.concepts[i]
                panel = c.trouble if s == "trouble" else c.fix
                return _panel_fields(f"concepts[{i}].{s}", panel, values_for(panel))

            own = concept.trouble if side == "trouble" else concept.fix
            out += _fits(plan, draw, fields, f"{path}.knobs" if own.knobs else path)
    unique: dict[str, Violation] = {}
    for v in out:
        unique.setdefault(v.path, v)
    return list(unique.values())


def _fits(plan: Plan, draw: Drawing, fields: Callable[[Plan], Fields], root: str) -> list[Violation]:
    """Draw; on a FitError name the field, blank it, and draw again (up to MAX_RETRIES)."""
    out: list[Violation] = []
    current = plan
    for _ in range(MAX_RETRIES):
        try:
            draw(current)
            return out
        except FitError as err:
            path = _path_of(err.text, fields(current))
            out.append(Violation(path or root, f"does not fit its drawing: {err.one_line()}"))
            if path is None:
                return out
            try:
                current = _blanked(current, path)
            except PlanError:  # a plan the model refuses anyway: the first miss is enough
                return out
    return out


def _path_of(text: str, fields: Fields) -> str | None:
    """The field whose text is the one that did not fit: the same text, else the longest field
    text inside it (a drawing may prefix a number, e.g. "2. GPU step")."""
    if not text:
        return None
    exact = [path for path, value in fields if value and value == text]
    if exact:
        return exact[0]
    inside = [(len(value), path) for path, value in fields if value and value in text]
    return max(inside)[1] if inside else None


def _blanked(plan: Plan, path: str) -> Plan:
    data = plan.model_dump(mode="json")
    node: Any = data
    parts = [m.group(1) or int(m.group(2)) for m in PATH_PART.finditer(path)]
    for part in parts[:-1]:
        node = node[part]
    node[parts[-1]] = BLANK
    return parse_plan(data)


def _main_thread_fields(plan: Plan) -> Fields:
    return [(f"main_thread.stages[{i}].label", s.label) for i, s in enumerate(plan.main_thread.stages)]


def _ruler_fields(plan: Plan, sweep: SweepView) -> Fields:
    """The ruler's plan texts: metric names, row names, quoted amounts, and the costs words of
    a row none of whose cells worsens (drawn under its cells)."""
    out = [(f"ruler.metrics[{j}].name", m.name) for j, m in enumerate(plan.ruler.metrics)]
    rows = {row.index: row for row in ruler_table(plan, sweep)}
    for i, c in enumerate(plan.concepts):
        if i in rows:
            out.append((f"concepts[{i}].{'name' if plan.lang == 'zh' else 'name_en'}",
                        c.name if plan.lang == "zh" else c.name_en))
            if rows[i].costs:
                out.append((f"concepts[{i}].costs", c.costs))
        for j, effect in enumerate(c.effects):
            if effect.amount:
                out.append((f"concepts[{i}].effects[{j}].amount", effect.amount))
    return out


def _panel_fields(path: str, panel: Panel, values: Mapping[str, str]) -> Fields:
    out = [(f"{path}.caption", fill_placeholders(panel.caption, values))]
    if panel.bubble:
        out.append((f"{path}.bubble", fill_placeholders(panel.bubble, values)))
    out += [(f"{path}.labels[{j}]", label) for j, label in enumerate(panel.labels)]
    return out


# A typical character of each language, to turn a room in px into a character budget.
SAMPLE = {"zh": "字", "en": "n"}


def _chars(room: float, size: float, lang: str, lines: int = 1, prefix: int = 0) -> int:
    """How many typical characters fit `room` px at `size` shrunk to the floor, over `lines`."""
    sample = SAMPLE.get(lang, SAMPLE["en"])
    per = fonts.measure(sample, family_for(sample, lang), size * FLOOR)
    return max(1, int(room // per) * lines - prefix)


# Signs a model reaches for in a caption; the prompt names the ones the page's hand lacks
SIGNS = "→←↑↓×÷±≥≤≈≠·•…–—°²✓✗"


def undrawable(lang: str) -> str:
    """The signs of `SIGNS` a picture's handwriting cannot draw on a `lang` page (a Chinese
    page writes mixed text in its Chinese hand), space-separated: the prompt asks for words
    instead (a played model's caption "批5→14" was sent back three times)."""
    family = fonts.HAND_ZH if lang == "zh" else fonts.HAND_EN
    return " ".join(ch for ch in SIGNS if fonts.missing(ch, family))


def text_budgets(lang: str) -> dict[str, int]:
    """Rough character budgets of the texts the drawings place, from the same rooms and fonts
    (the exact check is `layout_violations`): what the prompt tells the model."""
    narrow_col = (ruler.NARROW_W - 2 * ruler.INSET) / 3 - 12
    wide_col = (ruler.WIDTH - ruler.INSET - 10 - ruler.NAME_W) / 3 - 12
    return {
        "stage_label": min(
            _chars(main_thread.BOX_W - 12, main_thread.LABEL_SIZE, lang, 2, 3),
            _chars(main_thread.N_BOX_W - 12, main_thread.LABEL_SIZE, lang, 2, 3),
        ),
        "metric_name": min(_chars(narrow_col, 15, lang), _chars(wide_col, 17, lang)),
        "ruler_row": min(
            _chars(ruler.NAME_W - 24, 16, lang),
            _chars(ruler.NARROW_W - 2 * ruler.INSET - 12, 15, lang),
        ),
    }
