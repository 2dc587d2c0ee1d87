"""Property tests of the text layout: random captions, bubbles and labels (CJK, Latin, mixed, up
to the limits) either fit, every box inside the panel inset and no two boxes touching, or raise
FitError. Boxes are recomputed from the SVG itself with the same font metrics."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline import fonts
from pipeline.artifacts.sim import trace_values
from pipeline.artifacts.trace import TraceView
from pipeline.draw import FitError
from pipeline.draw.layout import Box, vertical_metrics
from pipeline.fields.serving import draw_panel
from pipeline.plan.model import Concept, Panel
from sim.presets.scenarios import run_preset

NS = "{http://www.w3.org/2000/svg}"
CJK = st.sampled_from(list("的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可也你"))
LATIN = st.sampled_from(list("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 "))
# Each cast scene drawn from a scenario the registry lets it draw (kv_blocks: the paged pool).
SCENE_SCENARIO = {"timeline": "batching", "budget": "batching", "kv_blocks": "kv_alloc",
                  "queue": "batching", "clock": "batching"}
TRACES = {sid: TraceView.from_json(run_preset(f"{sid}/with")) for sid in {"batching", "kv_alloc"}}


def _text(lang: str, limit: int) -> st.SearchStrategy[str]:
    chars = CJK if lang == "zh" else st.one_of(LATIN, LATIN, CJK)
    return st.lists(chars, min_size=1, max_size=limit).map("".join).filter(lambda s: s.strip())


def inherited(el: ET.Element, attr: str, parents: dict[ET.Element, ET.Element], default: str) -> str:
    """An attribute as the browser resolves it: the element's own, else the nearest ancestor's."""
    cur: ET.Element | None = el
    while cur is not None:
        if attr in cur.attrib:
            return cur.attrib[attr]
        cur = parents.get(cur)
    return default


def boxes_from_svg(svg: str) -> tuple[list[Box], Box]:
    root = ET.fromstring(svg)
    parents = {child: parent for parent in root.iter() for child in parent}
    inset = float(root.get("data-inset", "0"))
    _x, _y, w, h = (float(v) for v in (root.get("viewBox") or "").split())
    words = root.find(f"{NS}g[@class='words']")
    assert words is not None
    out = []
    for t in words.iter(f"{NS}text"):
        family = inherited(t, "font-family", parents, "")
        assert family in (fonts.HAND_ZH, fonts.HAND_EN)  # stated by the text's group
        size = float(inherited(t, "font-size", parents, "0"))
        anchor = inherited(t, "text-anchor", parents, "start")
        ascent, descent = vertical_metrics(family)
        spans = t.findall(f"{NS}tspan")
        if spans and all(s.get("y") is None for s in spans):  # a row: one label per tspan
            y = float(t.get("y", "0"))
            row = []
            for s in spans:
                width = fonts.measure(s.text or "", family, size)
                x = float(s.get("x", "0"))
                x0 = x if anchor == "start" else x - width / 2 if anchor == "middle" else x - width
                row.append(Box(x0, y - ascent * size, x0 + width, y + descent * size))
            out.append(Box(min(b.x0 for b in row), row[0].y0, max(b.x1 for b in row), row[0].y1))
            continue
        lines = [s.text or "" for s in spans] if spans else [t.text or ""]
        ys = [float(s.get("y", "0")) for s in spans] if spans else [float(t.get("y", "0"))]
        x = float(t.get("x", "0"))
        width = max(fonts.measure(ln, family, size) for ln in lines)
        x0 = x if anchor == "start" else x - width / 2 if anchor == "middle" else x - width
        out.append(Box(x0, ys[0] - ascent * size, x0 + width, ys[-1] + descent * size))
    return out, Box(inset, inset, w - inset, h - inset)


def assert_fix_panel_clean(panel: Panel, trace: TraceView, lang: str) -> None:
    """Draw `panel` as a card's fix panel over `trace`: either it refuses, naming the panel
    (FitError), or nothing in it collides or leaves the panel (`assert_clean`)."""
    try:
        svg = draw_panel(_concept(panel), "fix", panel, trace, trace_values(trace), lang=lang)
    except FitError as err:
        assert str(err).startswith("card prop, panel fix: ")
        return
    assert_clean(svg)


def assert_clean(svg: str) -> None:
    boxes, region = boxes_from_svg(svg)
    tol = 0.15  # coordinates are rounded to one decimal in the markup
    grown = Box(region.x0 - tol, region.y0 - tol, region.x1 + tol, region.y1 + tol)
    for b in boxes:
        assert b.inside(grown), f"text box {b} leaves the inset {region}"
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            shrunk = Box(a.x0 + tol, a.y0 + tol, a.x1 - tol, a.y1 - tol)
            assert not shrunk.intersects(b), f"text boxes {a} and {b} overlap"


def _concept(panel: Panel) -> Concept:
    return Concept(id="prop", name="P", name_en="P", problem_left="-", body="-", trouble=panel,
                   fix=panel, solves="-", costs="-")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lang=st.sampled_from(["zh", "en"]), data=st.data())
def test_generic_panel_texts_never_collide(lang: str, data: st.DataObject) -> None:
    limit = 15 if lang == "zh" else 40
    caption = data.draw(_text(lang, limit))
    bubble = data.draw(st.one_of(st.none(), _text(lang, limit)))
    labels = data.draw(st.lists(_text(lang, limit), max_size=4))
    panel = Panel(caption=caption, scene="generic", bubble=bubble, labels=labels,
                  focus=data.draw(st.lists(st.sampled_from("ABCD"), max_size=3, unique=True)))
    try:
        svg = draw_panel(_concept(panel), "trouble", panel, None, {}, lang=lang)
    except FitError as err:
        assert str(err).startswith("card prop, panel trouble: ")
        return
    assert_clean(svg)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lang=st.sampled_from(["zh", "en"]), data=st.data())
def test_scene_captions_never_collide(lang: str, data: st.DataObject) -> None:
    limit = 15 if lang == "zh" else 40
    caption = data.draw(_text(lang, limit))
    scene = data.draw(st.sampled_from(sorted(SCENE_SCENARIO)))
    trace = TRACES[SCENE_SCENARIO[scene]]
    panel = Panel(caption=caption, scene=scene, scenario=SCENE_SCENARIO[scene], variant="with")
    assert_fix_panel_clean(panel, trace, lang)
