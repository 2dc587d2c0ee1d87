"""The general field's scenes (issue 23): goldens of every kind in its fits / breaks cases in both
languages, determinism, words readable on a phone, every number a scene writes one of its
worked example's (or a difference it computes from two shown ones), what each kind must show,
the refusals, the walkthrough strip, and random examples that draw clean or raise FitError."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.draw.canvas import new_canvas
from pipeline.draw.layout import FitError
from pipeline.draw.panel import draw_panel
from pipeline.draw.scene import MIN_PHONE_PX, MIN_TEXT, PHONE_PANEL_PX
from pipeline.fields.general import FIELD
from pipeline.fields.general.demo import BY_NAME, LANGS, SAMPLES, Sample, concept, draw_sample
from pipeline.fields.general.example import ExampleView, QuantityView, evaluate_example
from pipeline.fields.general.formula import number_text
from pipeline.fields.general.roles import GENERAL_SCENES
from pipeline.fields.general.scenes import SCENE_DRAWINGS, WORDS, draw_worked_step
from pipeline.fields.general.scenes.common import SceneRefusal, amount
from pipeline.fields.general.scenes.rows import (
    NUMBER_GAP,
    ZERO_X,
    Row,
    Scale,
    draw_rows,
    scale_for,
)
from pipeline.plan.model import Concept, Panel, Quantity, ShowRole, WorkedExample
from tests.draw.test_draw import GOLDEN, UPDATE, _check_golden
from tests.draw.test_layout_props import CJK, LATIN, assert_clean, inherited

NS = "{http://www.w3.org/2000/svg}"
NUMBER = re.compile(r"\d+(?:\.\d+)?")
STATE_VARS = ("--run)", "--new)", "--stored)", "--freed)", "--idle)")


def svg_of(name: str, lang: str) -> str:
    return draw_sample(BY_NAME[name], lang)


def texts(svg: str) -> Iterator[tuple[ET.Element, str]]:
    for t in ET.fromstring(svg).iter(f"{NS}text"):
        yield t, "".join(t.itertext())


def scene_words(svg: str) -> list[str]:
    """What the scene wrote: every text but the caption and the 示意值 tag (the panel's)."""
    return [w for t, w in texts(svg) if t.get("data-role") not in ("caption", "tag")]


# ---- goldens, determinism, the markup ---------------------------------------------------------


@pytest.mark.parametrize("name", [s.name for s in SAMPLES])
@pytest.mark.parametrize("lang", LANGS)
def test_general_scene_matches_golden(name: str, lang: str) -> None:
    if UPDATE:
        (GOLDEN / "general").mkdir(exist_ok=True)
    _check_golden(f"general/{name}--{lang}", svg_of(name, lang))


def test_every_kind_has_goldens_in_its_telling_cases() -> None:
    kinds = {s.scene for s in SAMPLES}
    assert kinds == set(GENERAL_SCENES) == set(SCENE_DRAWINGS)
    assert set(FIELD.scenes()) == set(GENERAL_SCENES)
    for kind in ("flow", "container", "before_after", "compare", "grid", "lanes", "line"):
        assert sum(1 for s in SAMPLES if s.scene == kind) >= 2, kind


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda s: s.name)
def test_general_scenes_are_deterministic_and_clean(sample: Sample) -> None:
    for lang in LANGS:
        svg = draw_sample(sample, lang)
        assert svg == draw_sample(sample, lang)
        assert_clean(svg)
        root = ET.fromstring(svg)
        assert (root.find(f"{NS}desc").text or "").strip()  # type: ignore[union-attr]
        assert "示意值" in svg or "illustrative" in svg
        for el in root.iter():  # words never wobble
            if el.get("filter"):
                assert not list(el.iter(f"{NS}text"))
        for path in re.findall(r'<path [^>]*stroke="var\(--freed\)"[^>]*>', svg):
            assert "stroke-dasharray" in path  # freed / over the limit is always dashed
        assert not re.search(r'="#[0-9a-fA-F]{3,8}"|rgb\(', svg)


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda s: s.name)
def test_general_scene_words_read_on_a_phone(sample: Sample) -> None:
    """At the phone's 327 px panel every word, even shrunk to its floor, is >= 11 px."""
    scale = PHONE_PANEL_PX / 400
    for lang in LANGS:
        root = ET.fromstring(draw_sample(sample, lang))
        parents = {c: p for p in root.iter() for c in p}
        seen = 0
        for t in root.iter(f"{NS}text"):
            size = float(inherited(t, "font-size", parents, "0"))
            px = size * float(t.get("data-floor") or 1.0) * scale
            assert px >= MIN_PHONE_PX, f"{sample.name}/{lang}: {''.join(t.itertext())!r} {px:.1f}"
            seen += 1
        assert seen >= 4


def test_words_are_given_in_both_languages() -> None:
    assert set(WORDS) == {"zh", "en"} and WORDS["zh"].keys() == WORDS["en"].keys()
    assert all(w.strip() for lang in WORDS.values() for w in lang.values())


# ---- every number comes from the worked example -----------------------------------------------


def shown(sample: Sample, lang: str) -> list[QuantityView]:
    view = sample.view(lang)
    return [view.quantities[n] for _role, names in sample.show for n in names]


def computed(sample: Sample, lang: str) -> set[str]:
    """The numbers a scene may compute from two shown quantities (and nothing else)."""
    by_role = {role: [sample.view(lang).quantities[n] for n in ns] for role, ns in sample.show}
    out: set[str] = set()
    if sample.scene == "before_after":
        b, a = by_role["before"][0].value, by_role["after"][0].value
        out.add(number_text(abs(a - b)))
        if b:
            pct = abs(a - b) / b * 100
            out.add(number_text(round(pct)) if pct >= 10 else number_text(round(pct, 1)))
    if sample.scene == "container":
        out.add(number_text(abs(by_role["capacity"][0].value
                                - sum(q.value for q in by_role["parts"]))))
    if sample.scene == "grid":
        freed = by_role.get("freed", [])
        out.add(number_text(by_role["slots"][0].value - by_role["held"][0].value
                            - sum(q.value for q in freed)))
    return out


def numbers_written(words: list[str], quantities: list[QuantityView]) -> list[str]:
    """The numbers in the scene's words once the quantities' own labels and units (which may
    hold digits: "apples, 1 kg") are taken out."""
    found = []
    for w in words:
        for q in sorted(quantities, key=lambda q: -len(q.label)):
            w = w.replace(q.label, " ")
        for q in quantities:
            if q.unit:
                w = w.replace(q.unit, " ")
        found += NUMBER.findall(w)
    return found


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda s: s.name)
def test_every_number_in_a_general_scene_is_its_examples(sample: Sample) -> None:
    for lang in LANGS:
        quantities = shown(sample, lang)
        allowed = {q.text for q in quantities} | computed(sample, lang)
        written = numbers_written(scene_words(draw_sample(sample, lang)), quantities)
        assert written, sample.name
        for number in written:
            assert number in allowed, f"{sample.name} [{lang}]: {number} is not the example's"
        # and each shown quantity's number is written where the reader sees it (a line's
        # points between its ends where there is room; each of them is in the <desc>)
        svg = draw_sample(sample, lang)
        for q in quantities:
            if sample.scene == "line" and q.text not in written:
                assert q.text in svg.split("<desc>", 1)[1].split("</desc>", 1)[0], q.name
                continue
            if q.value or sample.scene != "lanes":  # a lane's first wait of 0 takes no room
                assert q.text in written, f"{sample.name} [{lang}]: {q.name} not written"


# ---- what each kind shows ---------------------------------------------------------------------


def shapes(svg: str, style: str) -> int:
    """How many closed outlines the paths with `style` draw (merged paths hold several)."""
    return sum(d.count("Z") + d.count("z") for d, attrs in
               re.findall(r'<path d="([^"]*)"([^>]*)>', svg) if style in attrs)


def test_bars_share_one_scale_from_zero() -> None:
    """A bar's length over its value is one factor for all rows, and the widest number fits."""
    cv = new_canvas("rows", 400, 260, 12, "en", "rows", min_text=MIN_TEXT)
    rows = [Row("a", 40, "40 min"), Row("b", 25, "25 min"), Row("c", 15, "15 min")]
    drawn = draw_rows(cv, "en", rows, 46, 198, Scale(scale_for(rows, "en")))
    factors = [(d.end - ZERO_X) / r.value for d, r in zip(drawn, rows, strict=True)]
    assert max(factors) - min(factors) < 1e-9
    assert_clean(cv.svg(css_class="t", title="t", desc="t", extra={"data-inset": 12}))


def test_container_marks_overflow_red_dashed_and_leaves_room_left_blank() -> None:
    over = svg_of("container-over", "en")
    assert "over 300 yuan" in scene_words(over)
    assert 'stroke="var(--freed)"' in over and "capacity: income 3000 yuan" in scene_words(over)
    fits = svg_of("container-fits", "zh")
    assert "剩余 700 元" in scene_words(fits)
    # room left is blank: a reader took grey hatching for something stored there
    assert "var(--freed)" not in fits and "var(--idle)" not in fits


def test_unused_room_is_drawn_empty_and_dashed_apart_from_the_used_parts() -> None:
    """One 64-byte line of which a loop reads 4: the 60 unread bytes take room, drawn empty."""
    svg = _custom("container", {"line": 64, "read": 4, "unread": 60},
                  [("capacity", ["line"]), ("parts", ["read"]), ("unused", ["unread"])])
    assert 'stroke="var(--idle)"' in svg and 'stroke-dasharray' in svg
    assert svg.count('stroke="var(--idle)"') == 1  # the unread bytes, not the read one
    words = scene_words(svg)
    assert "unread 60" in words and "read 4" in words and not any(
        w.startswith(("left", "over")) for w in words)


def test_flow_marks_the_bottleneck_and_a_queue_only_when_arrivals_outrun_it() -> None:
    queue = svg_of("flow-queue", "en")
    words = scene_words(queue)
    assert "bottleneck" in words and "queue grows" in words
    assert 'fill="var(--new-tint)"' in queue  # the waiting arrivals
    calm = svg_of("flow-keeps-up", "zh")
    assert "瓶颈" in scene_words(calm) and "排队变长" not in scene_words(calm)
    assert "var(--new-tint)" not in calm  # nobody waits: it keeps up


def test_grid_draws_slots_held_and_freed() -> None:
    svg = svg_of("grid-some-free", "en")
    assert shapes(svg, 'fill="var(--stored)"') == 15 + 1  # 15 cells and the key's swatch
    assert shapes(svg, 'stroke="var(--freed)"') == 3 + 1
    assert "free 6 seats" in scene_words(svg)
    full = scene_words(svg_of("grid-full", "en"))
    assert "booked 24 seats" in full and not any(w.startswith("free") for w in full)  # no "free 0"


def test_grid_draws_new_slots_apart_from_the_kept_ones() -> None:
    """A cache that keeps 8 earlier entries and makes 1 now: 8 blue, 1 orange, nothing empty."""
    svg = _custom("grid", {"s": 9, "kept": 8, "made": 1},
                  [("slots", ["s"]), ("held", ["kept"]), ("new", ["made"])])
    assert shapes(svg, 'fill="var(--stored)"') == 8 + 1  # 8 cells and the key's swatch
    assert shapes(svg, 'fill="var(--new)"') == 1 + 1
    words = scene_words(svg)
    assert "kept 8" in words and "made 1" in words and not any(w.startswith("free") for w in words)
    with pytest.raises(FitError, match="fewer than the 8 \\+ 3"):
        _custom("grid", {"s": 10, "kept": 8, "made": 3},
                [("slots", ["s"]), ("held", ["kept"]), ("new", ["made"])])


def test_lanes_alternate_waiting_and_working_on_one_axis() -> None:
    svg = svg_of("lanes-one-till", "en")
    words = scene_words(svg)
    assert {"waiting", "working", "time (min)"} <= set(words)
    assert "wait 7 min" in words and "pay 4 min" in words
    assert "wait 0 min" not in " ".join(words)  # a zero wait takes no room and no words
    assert shapes(svg, 'fill="var(--run)"') == 3  # one pay segment a lane (the key is a <use>)


def test_before_after_writes_the_change_with_sign_and_percent() -> None:
    assert "change +200 yuan (+20%)" in scene_words(svg_of("before-after-up", "en"))
    assert "变化 −20 分钟（−40%）" in scene_words(svg_of("before-after-down", "zh"))


def test_scenes_use_no_state_colour_for_plain_quantities() -> None:
    """P14: a bar of a compare or before/after is ink; the state colours mean states."""
    for name in ("compare-three", "compare-two", "before-after-up", "before-after-down"):
        svg = svg_of(name, "en")
        assert not any(var in svg for var in STATE_VARS), name


# ---- refusals -----------------------------------------------------------------------------


def _custom(scene: str, values: dict[str, float], show: list[tuple[str, list[str]]],
            lang: str = "en") -> str:
    example = WorkedExample(id="x", title="x", quantities=[
        Quantity(name=n, label=n, kind="illustrative", value=v) for n, v in values.items()])
    view = ExampleView.from_json(evaluate_example(example))
    panel = Panel(caption="x", scene=scene, example="x",
                  show=[ShowRole(role=r, quantities=ns) for r, ns in show])
    card = Concept(id="prop", name="P", name_en="P", problem_left="-", body="-", trouble=panel,
                   fix=panel, solves="-", costs="-")
    return draw_panel(card, "fix", panel, view, view.values(), lang=lang,
                      scene=FIELD.scenes()[scene])


def test_a_negative_bar_is_refused_naming_the_panel() -> None:
    with pytest.raises(SceneRefusal, match=r"^card prop, panel fix: the compare scene .*'b'"):
        _custom("compare", {"a": 3, "b": -2}, [("bars", ["a", "b"])])


def test_a_grid_holding_more_than_its_slots_is_refused() -> None:
    with pytest.raises(FitError, match="fewer than the 8 \\+ 3"):
        _custom("grid", {"s": 10, "h": 8, "f": 3},
                [("slots", ["s"]), ("held", ["h"]), ("freed", ["f"])])
    with pytest.raises(FitError, match="whole slots"):
        _custom("grid", {"s": 60, "h": 8}, [("slots", ["s"]), ("held", ["h"])])


def test_before_zero_gives_the_change_without_a_percent() -> None:
    svg = _custom("before_after", {"b": 0, "a": 5}, [("before", ["b"]), ("after", ["a"])])
    assert "change +5" in scene_words(svg) and "%" not in "".join(scene_words(svg))


def test_a_change_short_of_the_whole_is_never_written_as_100_percent() -> None:
    """100 -> 0.5 is -99.5%: rounded to a whole percent it would read as 'gone entirely'."""
    svg = _custom("before_after", {"b": 100, "a": 0.5}, [("before", ["b"]), ("after", ["a"])])
    assert "change −99.5 (−99.5%)" in scene_words(svg)
    svg = _custom("before_after", {"b": 100, "a": 0}, [("before", ["b"]), ("after", ["a"])])
    assert "change −100 (−100%)" in scene_words(svg)


# ---- the walkthrough strip ------------------------------------------------------------------


def test_worked_step_strip_shows_inputs_and_result() -> None:
    view = BY_NAME["container-fits"].view("zh")
    svg = draw_worked_step(view, "left", lang="zh", seed_id="t")
    assert svg == draw_worked_step(view, "left", lang="zh", seed_id="t")
    words = [w for _t, w in texts(svg)]
    for name in ("income", "rent", "food", "bus", "left"):
        q = view.quantities[name]
        assert q.label in words and amount(q) in words
    root = ET.fromstring(svg)
    assert root.get("viewBox") == "0 0 420 64"
    assert (root.find(f"{NS}title").text or "") == "剩下 = 700 元"  # type: ignore[union-attr]
    assert "3000 − 1200 − 800 − 300 = 700" in (root.find(f"{NS}desc").text or "")  # type: ignore[union-attr]
    assert_clean(svg)
    scale = 362 / 420  # the strip spans the phone's 362 px column
    parents = {c: p for p in root.iter() for c in p}
    for t in root.iter(f"{NS}text"):
        assert float(inherited(t, "font-size", parents, "0")) * scale >= MIN_PHONE_PX


def test_worked_step_strip_drops_labels_then_units_to_fit() -> None:
    names = [f"q{k}" for k in range(7)]
    example = WorkedExample(id="x", title="x", quantities=[
        *[Quantity(name=n, label=f"a long label {n}", unit="yuan", kind="illustrative",
                   value=1000 * (k + 1)) for k, n in enumerate(names)],
        Quantity(name="total", label="total", unit="yuan", kind="derived",
                 formula=" + ".join(names))])
    view = ExampleView.from_json(evaluate_example(example))
    words = [w for _t, w in texts(draw_worked_step(view, "total", lang="en", seed_id="t"))]
    assert "a long label q0" not in words and "1000" in words and "28000" in words
    # the formula's signs stand between the bare numbers (a reader met "6 1 1 23 2 22 4")
    assert words.count("+") == 6


def test_worked_step_strip_writes_the_formulas_signs_and_parentheses() -> None:
    example = WorkedExample(id="x", title="x", quantities=[
        Quantity(name="a", label="paid", unit="", kind="illustrative", value=6),
        Quantity(name="w", label="weight", unit="", kind="illustrative", value=2),
        Quantity(name="x", label="size", unit="", kind="illustrative", value=1),
        Quantity(name="err", label="error", unit="", kind="derived", formula="(a - w * x)^2 / 2")])
    view = ExampleView.from_json(evaluate_example(example))
    words = [w for _t, w in texts(draw_worked_step(view, "err", lang="en", seed_id="t"))]
    assert {"(", "−", "×", ")^2 ÷ 2"} <= set(words)
    assert {"paid", "6", "weight", "2", "size", "1", "error", "8"} <= set(words)


# ---- random examples ----------------------------------------------------------------------

UNITS = st.sampled_from(["", "元", "min", "%", "/h", "GB", "yuan", "个"])


def _label(lang: str) -> st.SearchStrategy[str]:
    chars = CJK if lang == "zh" else st.one_of(LATIN, LATIN, CJK)
    return st.lists(chars, min_size=1, max_size=24).map("".join).filter(lambda s: s.strip())


VALUES = st.one_of(st.integers(0, 10**6).map(float),
                   st.floats(0, 1e6, allow_nan=False).map(lambda v: round(v, 2)))


@st.composite
def random_panel(draw: st.DrawFn) -> tuple[str, ExampleView, Panel]:
    lang = draw(st.sampled_from(LANGS))
    kind = draw(st.sampled_from(sorted(GENERAL_SCENES)))
    unit = draw(UNITS)
    values: list[float] = []
    if kind == "grid":
        slots = draw(st.integers(0, 48))
        held = draw(st.integers(0, slots))
        new = draw(st.integers(0, slots - held))
        values = [float(slots), float(held), float(new),
                  float(draw(st.integers(0, slots - held - new)))]
        groups = [("slots", 1), ("held", 1), ("new", 1)] if draw(st.booleans()) else [
            ("slots", 1), ("held", 1), ("freed", 1)]
        if groups[2][0] == "freed":
            values[2] = values[3]
    elif kind == "compare":
        groups = [("bars", draw(st.integers(2, 3)))]
    elif kind == "flow":
        groups = [("stages", draw(st.integers(2, 5)))]
        groups += [("arrival", 1)] if draw(st.booleans()) else []
    elif kind == "container":
        groups = [("capacity", 1), ("parts", draw(st.integers(1, 6)))]
        groups += [("unused", draw(st.integers(1, 3)))] if draw(st.booleans()) else []
    elif kind == "lanes":
        groups = [("lane", draw(st.integers(1, 6))) for _ in range(draw(st.integers(1, 4)))]
    elif kind == "line":
        groups = [("series", draw(st.integers(2, 8))) for _ in range(draw(st.integers(1, 2)))]
    else:
        groups = [("before", 1), ("after", 1)]
    quantities, show = [], []
    for g, (role, count) in enumerate(groups):
        names = [f"q{g}_{k}" for k in range(count)]
        for n in names:
            value = values[g] if kind == "grid" else draw(VALUES)
            quantities.append(Quantity(name=n, label=draw(_label(lang)), unit=unit,
                                       kind="illustrative", value=value))
        show.append(ShowRole(role=role, quantities=names))
    example = WorkedExample(id="x", title="x", quantities=quantities)
    focus = draw(st.lists(st.sampled_from("ABCD"), max_size=4, unique=True))
    panel = Panel(caption="x", scene=kind, example="x", show=show, focus=focus)
    return lang, ExampleView.from_json(evaluate_example(example)), panel


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=random_panel())
def test_random_examples_draw_clean_or_refuse(case: tuple[str, ExampleView, Panel]) -> None:
    """Any example (values 0..10^6, labels of 1-24 characters, 1-6 parts, 1-4 lanes) either
    draws with no text overlapping or leaving the panel, or raises FitError naming the panel."""
    lang, view, panel = case
    card = Concept(id="prop", name="P", name_en="P", problem_left="-", body="-", trouble=panel,
                   fix=panel, solves="-", costs="-")
    try:
        svg = draw_panel(card, "fix", panel, view, view.values(), lang=lang,
                         scene=FIELD.scenes()[panel.scene])
    except FitError as err:
        assert str(err).startswith("card prop, panel fix: ")
        return
    assert_clean(svg)
    root = ET.fromstring(svg)
    parents = {c: p for p in root.iter() for c in p}
    for t in root.iter(f"{NS}text"):
        size = float(inherited(t, "font-size", parents, "0")) * float(t.get("data-floor") or 1)
        assert size >= MIN_TEXT - 1e-6


def test_concept_of_a_sample_is_a_general_concept() -> None:
    assert concept(SAMPLES[0], "zh").field == "general"


def test_a_label_shrunk_to_fit_keeps_a_readable_floor() -> None:
    """Found by the property above: a 20-character legend label shrunk to fit its width kept the
    floor of its first size, so a browser could set it at 0.9 x 14.2 = 12.78 px (< 13.5)."""
    quantities = [Quantity(name="slots", label="的" * 20, unit="", kind="illustrative", value=1),
                  Quantity(name="held", label="的", unit="", kind="illustrative", value=1)]
    example = WorkedExample(id="x", title="x", quantities=quantities)
    panel = Panel(caption="x", scene="grid", example="x",
                  show=[ShowRole(role="slots", quantities=["slots"]),
                        ShowRole(role="held", quantities=["held"])])
    view = ExampleView.from_json(evaluate_example(example))
    card = Concept(id="prop", name="P", name_en="P", problem_left="-", body="-", trouble=panel,
                   fix=panel, solves="-", costs="-")
    svg = draw_panel(card, "fix", panel, view, view.values(), lang="zh",
                     scene=FIELD.scenes()["grid"])
    root = ET.fromstring(svg)
    parents = {c: p for p in root.iter() for c in p}
    sizes = [float(inherited(t, "font-size", parents, "0")) * float(t.get("data-floor") or 1)
             for t in root.iter(f"{NS}text")]
    assert sizes and min(sizes) >= MIN_TEXT - 1e-6


# ---- one scale across a card --------------------------------------------------------------


def _bar_ends(svg: str) -> list[float]:
    """Where each row's number starts (its bar's end plus the gap), top to bottom."""
    return [float(t.get("x") or 0) for t, w in texts(svg)
            if re.fullmatch(r"\d+ (?:yuan|min)", w)]


def _card_panels(before_after_unit: str, fix_values: tuple[float, float] = (69000, 46000)
                 ) -> tuple[str, str]:
    """A rebalancing-like card: trouble compares 60000/75000/40000 yuan, fix draws 69000 →
    46000 before/after in `before_after_unit`: the two panels' svgs (each with its partner)."""
    from pipeline.draw.scene import PanelPartner

    trouble_ex = WorkedExample(id="t", title="t", quantities=[
        Quantity(name=n, label=n, unit="yuan", kind="illustrative", value=v)
        for n, v in (("start", 60000), ("later", 75000), ("bonds", 40000))])
    fix_ex = WorkedExample(id="f", title="f", quantities=[
        Quantity(name=n, label=n, unit=before_after_unit, kind="illustrative", value=v)
        for n, v in zip(("stocks", "bonds"), fix_values, strict=True)])
    trouble = Panel(caption="x", scene="compare", example="t",
                    show=[ShowRole(role="bars", quantities=["start", "later", "bonds"])])
    fix = Panel(caption="x", scene="before_after", example="f",
                show=[ShowRole(role="before", quantities=["stocks"]),
                      ShowRole(role="after", quantities=["bonds"])])
    views = {p.example: ExampleView.from_json(evaluate_example(ex))
             for p, ex in ((trouble, trouble_ex), (fix, fix_ex))}
    card = Concept(id="rebal", name="R", name_en="R", problem_left="-", body="-", trouble=trouble,
                   fix=fix, solves="-", costs="-")
    out = []
    for side, mine, other in (("trouble", trouble, fix), ("fix", fix, trouble)):
        view = views[mine.example]
        out.append(draw_panel(card, side, mine, view, view.values(), lang="en",  # type: ignore[arg-type]
                              scene=FIELD.scenes()[mine.scene],
                              partner=PanelPartner(other, views[other.example])))
    return out[0], out[1]


def test_the_two_panels_of_a_card_draw_one_unit_on_one_scale() -> None:
    """69000 after the sale is drawn shorter than the 75000 before it on the other panel, every
    bar the same px per yuan on both sides (issue 21.2: same scale; a reader saw 69000 and
    75000 drawn equally long)."""
    trouble, fix = _card_panels("yuan")
    lengths = [x - NUMBER_GAP - ZERO_X for x in _bar_ends(trouble) + _bar_ends(fix)]
    values = [60000, 75000, 40000, 69000, 46000]
    assert len(lengths) == len(values)
    per = [length / v for length, v in zip(lengths, values, strict=True)]
    assert max(per) - min(per) < 0.01 * max(per)  # one px per yuan (coordinates round to 0.1)
    assert lengths[3] < lengths[1]


def test_bars_the_shared_scale_would_hide_keep_their_own_and_say_so() -> None:
    """An error of 263 falling to 44 beside the other panel's 60000-75000: on one scale both
    would be slivers a reader cannot tell apart, so the fix keeps its own scale and says how
    many times larger it is drawn (a reader saw 263.33 and 44.34 as two equal hairlines)."""
    trouble, fix = _card_panels("yuan", (263, 44))
    longest = max(_bar_ends(fix)) - NUMBER_GAP - ZERO_X
    assert longest > 200  # its own scale: the before bar fills the panel
    per = (max(_bar_ends(trouble)) - NUMBER_GAP - ZERO_X) / 75000
    factor = (longest / 263) / per
    [note] = [w for w in scene_words(fix) if w.startswith("drawn ")]
    assert note == f"drawn {float(f'{factor:.2g}'):g}× larger, to be seen"
    assert not any(w.startswith("drawn ") for w in scene_words(trouble))
    _, ordinary = _card_panels("yuan")
    assert not any(w.startswith("drawn ") for w in scene_words(ordinary))


def test_panels_of_different_units_keep_their_own_scales() -> None:
    trouble, fix = _card_panels("min")
    own_trouble, own_fix = (_bar_ends(s) for s in _card_panels("yuan"))
    assert _bar_ends(trouble) != own_trouble or _bar_ends(fix) != own_fix
    # in minutes the fix panel is not tied to the yuan panel: its longest bar fills its panel
    assert max(_bar_ends(fix)) > max(own_fix)


def test_two_containers_of_a_card_share_one_scale() -> None:
    """Rebalancing: stocks 75000 over their 69000 target, then bonds 40000 + 6000 filling their
    46000: beside the taller trouble, the fix's box is drawn shorter than alone."""
    from pipeline.draw.scene import PanelPartner

    ex = WorkedExample(id="r", title="r", quantities=[
        Quantity(name=n, label=n, unit="yuan", kind="illustrative", value=v)
        for n, v in (("stock_target", 69000), ("stock", 75000), ("bond_target", 46000),
                     ("bond", 40000), ("sell", 6000))])
    view = ExampleView.from_json(evaluate_example(ex))
    trouble = Panel(caption="x", scene="container", example="r",
                    show=[ShowRole(role="capacity", quantities=["stock_target"]),
                          ShowRole(role="parts", quantities=["stock"])])
    fix = Panel(caption="x", scene="container", example="r",
                show=[ShowRole(role="capacity", quantities=["bond_target"]),
                      ShowRole(role="parts", quantities=["bond", "sell"])])
    card = Concept(id="reb", name="R", name_en="R", problem_left="-", body="-", trouble=trouble,
                   fix=fix, solves="-", costs="-")

    def rim_label_y(partner: PanelPartner | None) -> float:
        svg = draw_panel(card, "fix", fix, view, view.values(), lang="en",
                         scene=FIELD.scenes()["container"], partner=partner)
        assert_clean(svg)
        (y,) = [float(t.get("y") or 0) for t, w in texts(svg) if w.startswith("capacity")]
        return y

    alone, paired = rim_label_y(None), rim_label_y(PanelPartner(trouble, view))
    assert paired > alone + 10, "the fix's capacity line sits lower beside the taller trouble"


def test_two_lane_panels_of_a_card_share_one_time_axis() -> None:
    """A fix that takes 116 ns beside a trouble of 316 ns is drawn shorter than alone (reader
    cc1: 303 ns and 116 ns were drawn the same length); in another unit it keeps its own."""
    from pipeline.draw.scene import PanelPartner

    def drawn(partner_unit: str | None) -> float:
        ex = WorkedExample(id="l", title="l", quantities=[
            Quantity(name=n, label=n, unit="ns", kind="illustrative", value=v)
            for n, v in (("wait", 100), ("work", 16))] + [
            Quantity(name="long_wait", label="long wait", unit=partner_unit or "ns",
                     kind="illustrative", value=300)])
        view = ExampleView.from_json(evaluate_example(ex))
        trouble = Panel(caption="x", scene="lanes", example="l",
                        show=[ShowRole(role="lane", quantities=["long_wait", "work"])])
        fix = Panel(caption="x", scene="lanes", example="l",
                    show=[ShowRole(role="lane", quantities=["wait", "work"])])
        card = Concept(id="ln", name="L", name_en="L", problem_left="-", body="-",
                       trouble=trouble, fix=fix, solves="-", costs="-")
        partner = PanelPartner(trouble, view) if partner_unit else None
        svg = draw_panel(card, "fix", fix, view, view.values(), lang="en",
                         scene=FIELD.scenes()["lanes"], partner=partner)
        assert_clean(svg)
        (x,) = [float(t.get("x") or 0) for t, w in texts(svg) if w == "wait 100 ns"]
        return x  # the wait's words sit at its segment's middle

    alone, paired, other_unit = drawn(None), drawn("ns"), drawn("s")
    assert paired < alone - 40, "beside the 316 ns trouble the 100 ns wait is drawn shorter"
    assert other_unit == alone, "a partner in another unit does not set this panel's scale"


def test_one_of_a_plural_unit_is_written_in_the_singular() -> None:
    from pipeline.fields.general.scenes.common import singular, with_unit

    assert with_unit("1", "steps") == "1 step" and with_unit("2", "steps") == "2 steps"
    assert with_unit("1", "GPUs") == "1 GPU" and with_unit("1", "ms") == "1 ms"
    assert with_unit("1", "元") == "1 元" and with_unit("1", "%") == "1%"
    assert singular("class") == "class" and singular("ns") == "ns"


def test_two_line_panels_of_a_card_share_one_height_axis() -> None:
    """Simple interest 10000 -> 31000 beside compound interest up to 76123: the simple line is
    drawn as low in the trouble as in the fix (reader hh6: steep alone, flat beside the
    compound one); a partner in another unit, or one that would flatten it past seeing, does
    not set its scale."""
    from pipeline.draw.scene import PanelPartner

    def end_label_y(partner_top: float | None, unit: str = "yuan") -> float:
        quantities = [Quantity(name=f"s{i}", label=f"simple {i}", unit="yuan",
                               kind="illustrative", value=v)
                      for i, v in enumerate((10000, 17000, 24000, 31000))]
        if partner_top is not None:
            quantities += [Quantity(name=f"c{i}", label=f"compound {i}", unit=unit,
                                    kind="illustrative", value=v)
                           for i, v in enumerate((10000, 19672, 38697, partner_top))]
        view = ExampleView.from_json(evaluate_example(
            WorkedExample(id="i", title="i", quantities=quantities)))
        simple = Panel(caption="x", scene="line", example="i",
                       show=[ShowRole(role="series", quantities=["s0", "s1", "s2", "s3"])])
        compound = Panel(caption="x", scene="line", example="i",
                         show=[ShowRole(role="series", quantities=["c0", "c1", "c2", "c3"])])
        card = Concept(id="ci", name="C", name_en="C", problem_left="-", body="-",
                       trouble=simple, fix=compound, solves="-", costs="-")
        partner = PanelPartner(compound, view) if partner_top is not None else None
        svg = draw_panel(card, "trouble", simple, view, view.values(), lang="en",
                         scene=FIELD.scenes()["line"], partner=partner)
        assert_clean(svg)
        (y,) = [float(t.get("y") or 0) for t, w in texts(svg) if w.startswith("simple 3")]
        return y

    alone, paired = end_label_y(None), end_label_y(76123)
    assert paired > alone + 20, "beside the compound line the simple one ends lower"
    assert end_label_y(76123, unit="years") == alone
    assert end_label_y(31000 * 9) == alone  # flattened 9x: keeps its own scale
