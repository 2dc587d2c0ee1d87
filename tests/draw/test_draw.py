"""Drawing library tests: golden SVGs on real simulator presets, determinism, the markup contract
(title/desc first, no text in a filtered group, unique text ids), colours only via CSS variables,
and FitError naming card and panel."""

from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from pipeline import fonts
from pipeline.artifacts.sim import SweepView, trace_values
from pipeline.artifacts.trace import TraceView
from pipeline.draw import (
    FitError,
    draw_cast_legend,
    draw_main_thread,
    draw_ruler,
    draw_stamp,
    draw_symbol_defs,
    draw_tick,
)
from pipeline.draw.filters import shared_filter
from pipeline.errors import InputError
from pipeline.fields.serving import FIELD as SERVING
from pipeline.fields.serving import draw_panel
from pipeline.fields.serving.showcase import (
    EXAMPLE_PLAN,
    FIXTURE_SWEEP,
    SCENE_FOR,
    generic_concept,
    sample_concept,
)
from pipeline.fields.serving.steps import draw_step_strip
from pipeline.plan.model import Concept, Panel, load_plan
from sim.presets.scenarios import run_preset

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("TUJIE_UPDATE_GOLDEN") == "1"
NS = "{http://www.w3.org/2000/svg}"
ALLOWED_COLOURS = re.compile(
    r'(?:fill|stroke)="(?!none"|var\(--(?:ink|paper|run|new|stored|freed|idle|accent|faint|(?:run|new|stored|freed|idle)-tint|bean-ink)\)")'
)
# scene kind -> the real preset its golden file is drawn from
GOLDEN_CASES = [
    ("timeline", "batching"), ("budget", "chunked_prefill"), ("kv_blocks", "kv_alloc"),
    ("kv_blocks", "preemption"), ("kv_blocks", "prefix_cache"), ("queue", "admission"), ("clock", "metrics"),
    ("bars", "arithmetic"), ("roofline", "arithmetic"), ("itl_pool", "goodput"),
    ("throughput", "goodput"),
]
SWEEP = SweepView.from_json(FIXTURE_SWEEP)


def _trace(name: str) -> TraceView:
    return TraceView.from_json(run_preset(name, detail=True))


def _panel_svg(scene: str, scenario: str, variant: str, lang: str = "zh") -> str:
    concept = sample_concept(scenario, scene, lang)
    panel = concept.trouble if variant == "without" else concept.fix
    side = "trouble" if variant == "without" else "fix"
    trace = _trace(f"{scenario}/{variant}")
    partner = _trace(f"{scenario}/{'with' if variant == 'without' else 'without'}")
    return draw_panel(concept, side, panel, trace, trace_values(trace), lang=lang, partner=partner)


def _check_golden(name: str, svg: str) -> None:
    path = GOLDEN / f"{name}.svg"
    if UPDATE or not path.exists():
        if not UPDATE:
            pytest.fail(f"golden {path.name} missing: run with TUJIE_UPDATE_GOLDEN=1")
        path.write_text(svg + "\n", encoding="utf-8")
    assert svg + "\n" == path.read_text(encoding="utf-8"), f"{name} differs from its golden file"


@pytest.mark.parametrize("scene,scenario", GOLDEN_CASES)
@pytest.mark.parametrize("variant", ["without", "with"])
def test_scene_matches_golden(scene: str, scenario: str, variant: str) -> None:
    _check_golden(f"{scene}--{scenario}--{variant}", _panel_svg(scene, scenario, variant))


def test_generic_matches_golden() -> None:
    concept = generic_concept("zh")
    _check_golden("generic--trouble",
                  draw_panel(concept, "trouble", concept.trouble, None, {}, lang="zh"))


def test_generic_panel_draws_only_the_characters_it_names() -> None:
    """With no focus a generic panel draws nobody (it drew serving's newcomer D on a training
    page), and its bubble is a note with no tail pointing at an empty spot."""
    concept = generic_concept("en")
    named = draw_panel(concept, "trouble", concept.trouble, None, {}, lang="en")
    alone = concept.trouble.model_copy(update={"focus": []})
    nobody = draw_panel(concept, "trouble", alone, None, {}, lang="en")
    assert "Sketch: D says" in named and ">D<" in named
    assert ">D<" not in nobody and "is it my turn yet?" in nobody
    assert "a note: &quot;is it my turn yet?&quot;" in nobody


def test_same_input_gives_identical_svg() -> None:
    assert _panel_svg("timeline", "batching", "with") == _panel_svg("timeline", "batching", "with")
    a = _panel_svg("kv_blocks", "preemption", "with", "en")
    assert a == _panel_svg("kv_blocks", "preemption", "with", "en")


def _all_svgs() -> list[str]:
    out = []
    for scenario, (scene, *_rest) in SCENE_FOR.items():
        for variant in ("without", "with"):
            for lang in ("zh", "en"):
                out.append(_panel_svg(scene, scenario, variant, lang))
    plan = load_plan(EXAMPLE_PLAN)
    ruled = plan.model_copy(deep=True)
    ruled.concepts[4].technique = "continuous_batching"
    out += [draw_main_thread(plan, lang="zh"), draw_cast_legend(plan, lang="zh"),
            draw_ruler(ruled, SWEEP, lang="zh"),
            draw_main_thread(plan, lang="zh", narrow=True),
            draw_ruler(ruled, SWEEP, lang="zh", narrow=True),
            draw_step_strip(_trace("chunked_prefill/with"), 2, lang="zh", focus=["D"]),
            draw_tick(seed_id="x")]
    out += [draw_stamp(s, lang=lang, seed_id="kv_cache") for s in ("unmarked", "learned", "review", "next")  # type: ignore[arg-type]
            for lang in ("zh", "en")]
    g = generic_concept("en")
    out.append(draw_panel(g, "fix", g.fix, None, {}, lang="en"))
    return out


@pytest.fixture(scope="module")
def all_svgs() -> list[str]:
    return _all_svgs()


def test_markup_contract(all_svgs: list[str]) -> None:
    from tests.draw.test_layout_props import inherited

    for svg in all_svgs:
        root = ET.fromstring(svg)
        assert root.get("role") == "img"
        kids = list(root)
        assert kids[0].tag == f"{NS}title" and (kids[0].text or "").strip()
        assert kids[1].tag == f"{NS}desc" and (kids[1].text or "").strip()
        ids = [t.get("id") for t in root.iter(f"{NS}text") if t.get("id")]
        assert len(ids) == len(set(ids)), "text ids must be unique"
        for t in root.iter(f"{NS}text"):  # what the fix loop can move or shrink, it can name
            if t.get("data-alt") or t.get("data-floor"):
                assert t.get("id"), "a movable text needs an id"
        parents = {c: p for p in root.iter() for c in p}
        for t in root.iter(f"{NS}text"):
            assert t.get("data-role", "label") in {"caption", "label", "tag", "name", "axis",
                                                   "bubble", "title"}
            # the family it must render in is stated by its group (what the check verifies)
            assert inherited(t, "font-family", parents, "") in {fonts.HAND_ZH, fonts.HAND_EN}
        # no <text> anywhere under an element carrying a filter
        for el in root.iter():
            if el.get("filter"):
                assert not list(el.iter(f"{NS}text")), "text inside a filtered group"


def test_panel_attributes_and_filter() -> None:
    svg = _panel_svg("timeline", "batching", "without")
    root = ET.fromstring(svg)
    assert root.get("id") == "panel-batching_timeline-trouble"
    assert root.get("data-panel") == "batching_timeline/trouble"
    assert root.get("viewBox") == "0 0 400 260" and root.get("data-inset") == "12"
    # panels share the page's wobble filters (defined once in draw_symbol_defs)
    ink = root.find(f"{NS}g[@class='ink']")
    assert ink is not None
    fid = (ink.get("filter") or "")[len("url(#"):-1]
    assert fid == shared_filter("p", "batching_timeline-trouble")
    defs = ET.fromstring(draw_symbol_defs("zh", SERVING.symbols()))
    filt = next(f for f in defs.iter(f"{NS}filter") if f.get("id") == fid)
    assert filt.get("filterUnits") == "userSpaceOnUse"
    caption = [t for t in root.iter(f"{NS}text") if t.get("data-role") == "caption"]
    assert len(caption) == 1 and caption[0].get("data-limit") == "15"
    assert caption[0].text == "D 排队等了 6 步"  # D.wait from the static-batching trace
    assert any(t.text == "示意值" for t in root.iter(f"{NS}text"))


def test_shared_defs_resolve_every_reference(all_svgs: list[str]) -> None:
    """Every `<use>` and wobble filter a drawing references is defined locally or in the page's
    one shared defs SVG, which is hidden (aria-hidden, zero size) and carries no text."""
    defs_svg = draw_symbol_defs("zh", SERVING.symbols())
    defs = ET.fromstring(defs_svg)
    assert defs.get("aria-hidden") == "true" and defs.get("width") == defs.get("height") == "0"
    assert not list(defs.iter(f"{NS}text"))
    shared = {el.get("id") for el in defs.iter() if el.get("id")}
    for state in ("running", "new", "stored", "freed", "idle"):
        assert f"tj-bean-{state}" in shared
    for svg in all_svgs:
        local = {el.get("id") for el in ET.fromstring(svg).iter() if el.get("id")}
        refs = re.findall(r'href="#([^"]+)"|url\(#([^)]+)\)', svg)
        for ref in (a or b for a, b in refs):
            assert ref in local | shared, f"#{ref} is defined nowhere"
    assert not ALLOWED_COLOURS.findall(defs_svg)


def test_colours_only_via_css_variables(all_svgs: list[str]) -> None:
    for svg in all_svgs:
        bad = ALLOWED_COLOURS.findall(svg)
        assert not bad, f"literal colour in {svg[:80]}"
        assert not re.search(r'="#[0-9a-fA-F]{3,8}"|rgb\(', svg)


def test_freed_is_always_dashed(all_svgs: list[str]) -> None:
    for svg in all_svgs:
        for el in re.findall(r"<path [^>]*stroke=\"var\(--freed\)\"[^>]*>", svg):
            assert "stroke-dasharray" in el


def test_fit_error_names_card_and_panel() -> None:
    long = "很" * 60
    panel = Panel(caption=long, scene="generic")
    concept = Concept(id="kv_cache", name="KV", name_en="KV", problem_left="-", body="-",
                      trouble=panel, fix=panel, solves="-", costs="-")
    with pytest.raises(FitError) as err:
        draw_panel(concept, "trouble", panel, None, {}, lang="zh")
    msg = str(err.value)
    assert msg.startswith("card kv_cache, panel trouble: caption")
    assert "at the 80% floor, room is" in msg


def test_overrides_move_to_alt_and_scale() -> None:
    base = _panel_svg("budget", "chunked_prefill", "with")
    root = ET.fromstring(base)
    movable = next(t for t in root.iter(f"{NS}text") if t.get("data-alt"))
    concept = sample_concept("chunked_prefill", "budget", "zh")
    trace, partner = _trace("chunked_prefill/with"), _trace("chunked_prefill/without")
    moved = draw_panel(concept, "fix", concept.fix, trace, trace_values(trace), lang="zh",
                       overrides={movable.get("id", ""): {"anchor": "alt"}}, partner=partner)
    el = next(t for t in ET.fromstring(moved).iter(f"{NS}text") if t.get("id") == movable.get("id"))
    assert (el.get("x"), el.get("y")) != (movable.get("x"), movable.get("y"))
    cap_id = next(t.get("id") for t in root.iter(f"{NS}text") if t.get("data-role") == "caption")
    scaled = draw_panel(concept, "fix", concept.fix, trace, trace_values(trace), lang="zh",
                        overrides={cap_id or "": {"scale": 0.9}}, partner=partner)
    from tests.draw.test_layout_props import inherited

    parents = {c: p for p in ET.fromstring(scaled).iter() for c in p}
    cap = next(t for t in parents if t.get("id") == cap_id)
    assert float(inherited(cap, "font-size", parents, "0")) == pytest.approx(17.1)


def test_panel_size_budget(all_svgs: list[str]) -> None:
    """Prints sizes (no timing); the page must stay under 400 KB with ~24 panels."""
    sizes = sorted(len(s) for s in all_svgs)
    print(f"svg sizes: min {sizes[0]}, median {sizes[len(sizes) // 2]}, max {sizes[-1]}")
    assert sizes[-1] < 40_000


def test_every_drawn_text_is_clear(all_svgs: list[str]) -> None:
    from tests.draw.test_layout_props import assert_clean

    for svg in all_svgs:
        if 'class="stamp' not in svg:  # stamp words are rotated with the stamp on purpose
            assert_clean(svg)


def test_ruler_is_ink_only_and_marks_each_verdict() -> None:
    """P14: the state colours are reserved, so the ruler says improve/sacrifice with ink shapes
    (filled vs hollow arrows) and words, never green/red."""
    plan = load_plan(EXAMPLE_PLAN)
    ruled = plan.model_copy(deep=True)
    ruled.concepts[4].technique = "continuous_batching"
    svg = draw_ruler(ruled, SWEEP, lang="zh")
    for state in ("--run", "--new", "--stored", "--freed", "--idle"):
        assert f"var({state})" not in svg
    assert 'fill="var(--ink)"' in svg and 'fill="var(--paper)"' in svg  # filled and hollow
    words = [t.text for t in ET.fromstring(svg).iter(f"{NS}text")]
    assert "改善" in words and "牺牲" in words
    assert "模拟值" in words and "示意值" not in words  # simulated rows, not a small example


def test_queue_shows_a_small_sequence_slot_limit() -> None:
    trace = _trace("admission/with")
    assert trace.engine is not None and trace.engine.max_num_seqs == 3
    concept = sample_concept("admission", "queue", "zh")
    svg = draw_panel(concept, "fix", concept.fix, trace, trace_values(trace), lang="zh")
    words = "".join(ET.fromstring(svg).itertext())
    assert "4. 有空位吗" in words and "3/3" in words and "最多 3 个" in words


PHONE_COLUMN_PX = 362  # the page column at a 390 px viewport (templates/page.css)
MIN_PHONE_TEXT_PX = 11.0


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_narrow_diagrams_keep_words_readable_on_a_phone(lang: str) -> None:
    """The phone layouts are drawn at about 1:1: every word renders at >= 11 px in the page's
    362 px column, and their ids never clash with the wide drawings shown on desktops."""
    from tests.draw.test_layout_props import inherited

    plan = load_plan(EXAMPLE_PLAN)
    ruled = plan.model_copy(deep=True)
    ruled.concepts[4].technique = "continuous_batching"
    pairs = [(draw_main_thread(plan, lang=lang), draw_main_thread(plan, lang=lang, narrow=True)),
             (draw_ruler(ruled, SWEEP, lang=lang),
              draw_ruler(ruled, SWEEP, lang=lang, narrow=True))]
    for wide, narrow in pairs:
        root = ET.fromstring(narrow)
        width = float((root.get("viewBox") or "").split()[2])
        scale = min(1.0, PHONE_COLUMN_PX / width)
        parents = {c: p for p in root.iter() for c in p}
        texts = list(root.iter(f"{NS}text"))
        assert texts
        for t in texts:
            size = float(inherited(t, "font-size", parents, "0")) * scale
            assert size >= MIN_PHONE_TEXT_PX, f"{t.get('id')} renders at {size:.1f} px"
        ids = {el.get("id") for el in root.iter() if el.get("id")}
        assert not ids & {el.get("id") for el in ET.fromstring(wide).iter() if el.get("id")}
        # same content (a text may wrap over lines in one layout and not the other)
        def said(svg_texts: list[ET.Element]) -> set[str]:
            return {"".join("".join(t.itertext()).split()) for t in svg_texts}

        assert said(texts) == said(list(ET.fromstring(wide).iter(f"{NS}text")))


def _all_panels() -> list[tuple[str, str]]:
    """(name, svg) of every panel of both example plans (zh, en) with their real traces, plus
    every showcase scene in both languages and the generic panels."""
    from pipeline.simulate.results import run_sim

    out = []
    for plan_path in (EXAMPLE_PLAN, EXAMPLE_PLAN.parent.parent / "llm-inference-en" / "plan.json"):
        plan = load_plan(plan_path)
        sim = run_sim(plan)
        for c in plan.concepts:
            for side, panel in (("trouble", c.trouble), ("fix", c.fix)):
                svg = draw_panel(c, side, panel, sim.panel_trace(panel), sim.values(panel),
                                 lang=plan.lang)
                out.append((f"{plan.lang} {c.id}/{side}", svg))
    for lang in ("zh", "en"):
        for scene, scenario in GOLDEN_CASES:
            for variant in ("without", "with"):
                out.append((f"{lang} {scene}/{scenario}/{variant}",
                            _panel_svg(scene, scenario, variant, lang)))
        concept = generic_concept(lang)
        for side, panel in (("trouble", concept.trouble), ("fix", concept.fix)):
            out.append((f"{lang} generic/{side}",
                        draw_panel(concept, side, panel, None, {}, lang=lang)))
    return out


def test_panel_words_stay_readable_on_a_phone() -> None:
    """On a 390 px phone a panel renders PHONE_PANEL_PX wide (the 362 px column minus the card's
    padding and border): every word of every panel, including what the fix loop may shrink it
    to (data-floor), must still come out at >= 11 px there."""
    from pipeline.fields.serving.scenes.common import MIN_PHONE_PX, PHONE_PANEL_PX
    from tests.draw.test_layout_props import inherited

    scale = PHONE_PANEL_PX / 400
    seen = 0
    for name, svg in _all_panels():
        root = ET.fromstring(svg)
        parents = {c: p for p in root.iter() for c in p}
        for t in root.iter(f"{NS}text"):
            size = float(inherited(t, "font-size", parents, "0"))
            floor = float(t.get("data-floor") or 1.0)
            px = size * floor * scale
            assert px >= MIN_PHONE_PX, f"{name}: {t.get('id')} {''.join(t.itertext())!r} {px:.1f} px"
            seen += 1
    assert seen > 500


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_step_strips_stay_readable_across_the_phone_column(lang: str) -> None:
    """On a phone the walkthrough strip spans the whole 362 px column (page.css puts it below
    the step's number and sentence): all its words, letters included, come out at >= 11 px."""
    from tests.draw.test_layout_props import inherited

    trace = _trace("chunked_prefill/with")
    for step in trace.steps:
        root = ET.fromstring(draw_step_strip(trace, step.index, lang=lang, focus=["D"]))
        scale = PHONE_COLUMN_PX / float((root.get("viewBox") or "").split()[2])
        parents = {c: p for p in root.iter() for c in p}
        for t in root.iter(f"{NS}text"):
            px = float(inherited(t, "font-size", parents, "0")) * scale
            assert px >= MIN_PHONE_TEXT_PX, f"{t.get('id')} renders at {px:.1f} px"


def test_roofline_numbers_come_from_the_trace() -> None:
    """The memory-bound pair: the step time, the weights read at peak bandwidth (the figure an
    article quotes), the arithmetic sliver and tokens/s of each variant are the trace's figures;
    both panels share one time axis (the longer step's); batch 32's step is barely longer."""
    seen = {}
    axis_ends = set()
    for variant in ("without", "with"):
        fig = _trace(f"arithmetic/{variant}").figures
        root = ET.fromstring(_panel_svg("roofline", "arithmetic", variant))
        words = " ".join(root.itertext())
        assert f"解码一步 {fig['decode_step_ms']:.1f} 毫秒" in words
        assert f"满速读权重 {fig['decode_weights_peak_ms']:.1f}" in words
        rest = fig["decode_step_ms"] - fig["decode_weights_peak_ms"]
        assert f"多出 {rest:.1f}" in words
        assert f"每秒 {fig['decode_tokens_per_s']:.0f} 个" in words
        assert f"批里 {fig['batch']} 个请求" in words
        calc = fig["decode_compute_ms"]
        assert f"算 {calc:.2f} 毫秒" in words if calc < 0.095 else f"算 {calc:.1f} 毫秒" in words
        axis = [t for t in root.iter(f"{NS}text") if t.get("data-role") == "axis"]
        axis_ends |= {"".join(t.itertext()).split()[-2] for t in axis}
        seen[variant] = fig
    assert len(axis_ends) == 1, f"the two panels end their time axes at {axis_ends}"
    assert seen["with"]["decode_step_ms"] < 1.4 * seen["without"]["decode_step_ms"]
    # the textbook figure: 16 GB of bf16 weights over 3.35 TB/s
    assert seen["without"]["decode_weights_peak_ms"] == pytest.approx(4.8, abs=0.05)


def test_bars_pair_shares_one_scale_and_says_tokens_per_second() -> None:
    """Batch 1 beside batch 32: each step bar is as long as its step on ONE scale (the card's
    longer step), so the wider bar is the longer step; a millisecond run's rate is per second."""
    widths = {}
    for variant in ("without", "with"):
        trace = _trace(f"arithmetic/{variant}")
        svg = _panel_svg("bars", "arithmetic", variant)
        # the step bar: the rough rectangle starting at the bar's x (its first path after the GPU)
        bar = re.search(r'<path d="M112 122H([\d.]+)', svg)
        assert bar, "no step bar found"
        widths[variant] = float(bar.group(1)) - 112.0
        step = next(s for s in trace.steps if s.scheduled and all(n == 1 for n in s.scheduled.values()))
        rate = len(step.scheduled) / step.duration * 1000.0
        assert f"每秒 {rate:.0f} 个 token" in svg
        widths[variant + "-ms"] = step.duration
    assert widths["with"] / widths["without"] == pytest.approx(
        widths["with-ms"] / widths["without-ms"], rel=0.02)


def test_roofline_refuses_a_trace_without_the_arithmetic_figures() -> None:
    """The arithmetic sliver is the simulator's figure, never an estimate: a trace without
    `figures` (any other scenario) is refused with a message naming the scenario to use."""
    concept = sample_concept("arithmetic", "roofline", "zh")
    trace = _trace("batching/with")
    with pytest.raises(InputError, match="arithmetic scenario"):
        draw_panel(concept, "fix", concept.fix, trace, trace_values(trace), lang="zh")


def test_bean_bodies_are_solid_theme_tints_with_faces_in_bean_ink() -> None:
    """The beans are `<use>` clones a page rule cannot re-tint, so each body is filled with its
    state's per-theme tint variable at full strength (no fill-opacity muddying it on the dark
    board), the face is drawn in `--bean-ink`, and so is every bean's letter."""
    defs = ET.fromstring(draw_symbol_defs("zh", SERVING.symbols()))
    groups = {g.get("id"): g for g in defs.iter(f"{NS}g")}
    short = {"running": "run", "new": "new", "stored": "stored", "freed": "freed", "idle": "idle"}
    for state, name in short.items():
        group = groups[f"tj-bean-{state}"]
        fills = [el for el in group.iter() if el.get("fill") not in (None, "none")]
        body = [el for el in fills if el.get("fill") == f"var(--{name}-tint)"]
        assert len(body) == 1 and body[0].get("fill-opacity") is None
        eyes = [el for el in fills if el.tag == f"{NS}circle"]
        assert all(el.get("fill") == "var(--bean-ink)" for el in eyes)
        face = [el for el in group.iter(f"{NS}path") if el.get("stroke") == "var(--bean-ink)"]
        assert face, f"{state}: the mouth is drawn in the bean ink"
        if state == "freed":
            assert body[0].get("stroke") == "var(--freed)" and body[0].get("stroke-dasharray")
    root = ET.fromstring(_panel_svg("timeline", "batching", "with"))
    parents = {c: p for p in root.iter() for c in p}
    letters = [t for t in root.iter(f"{NS}text") if t.get("data-role") == "name"]
    assert letters and all(parents[t].get("fill") == "var(--bean-ink)" for t in letters)
