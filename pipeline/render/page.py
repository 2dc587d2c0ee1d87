"""The render stage: plan + corpus + simulator traces + link report → one self-contained index.html.

Prose is escaped and glossary-annotated in reading order (P1), every diagram comes from
`pipeline.draw` (through `pipeline.render.diagrams`), the fonts are subset to the characters the page
sets in them, and the one inline style and script are allowed by hash in the CSP meta tag.
Identical inputs give identical bytes: nothing here reads the clock or the environment.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from jinja2 import Environment
from markupsafe import Markup, escape

from pipeline.artifacts.sim import SimResults
from pipeline.artifacts.sources import Corpus
from pipeline.artifacts.trace import TraceView
from pipeline.config import PageConfig
from pipeline.fonts import HAND_EN, HAND_ZH, license_text, subset_faces
from pipeline.paths import templates_dir
from pipeline.plan.model import Concept, Plan
from pipeline.render import diagrams as page_draw
from pipeline.render.glossary import Glossary, note_id, term_id
from pipeline.render.parts import (
    CHINESE_CHARS_PER_MINUTE,
    ENGLISH_WORDS_PER_MINUTE,
    RouteView,
    SourceView,
    csp_policy,
    font_text,
    hand_runs,
    minify_css,
    route_views,
    source_views,
)
from pipeline.render.strings import PROGRESS_STATES, ui
from pipeline.render.walkthrough import CompareRow, comparison_rows, step_sentences
from pipeline.templating import html_environment

PAGE_TEMPLATE = "page.html.j2"
STYLE_FILE = "page.css"
SCRIPT_FILE = "page.js"
DEFAULT_PROGRESS = "next"
DEFAULT_NEWCOMER = "D"
PAGE_ID_DIGITS = 10
FAMILIES = (HAND_ZH, HAND_EN)
# Where an OFL LICENSE file's shared text starts, after the family's own copyright line.
LICENCE_BODY_START = "This Font Software is licensed"


@dataclass(frozen=True)
class Note:
    """A first-use definition shown right after the block that introduced the term."""

    id: str
    note_id: str
    term: str
    definition: str
    marked: bool  # False when the term never appears in prose (the card's notes define it)


@dataclass
class Prose:
    """A piece of plan text, escaped and glossary-annotated, with the notes it introduced."""

    html: Markup
    notes: list[Note] = field(default_factory=list)


@dataclass
class StampView:
    state: str
    face: page_draw.StampFace
    label: str  # the button's accessible name; it contains the stamp's visible words


@dataclass
class CardView:
    id: str
    number: int
    total: int
    name: Markup
    name_en: Markup
    prev_id: str | None
    prev_number: int | None
    prev_problem: Prose | None
    trouble_svg: Markup
    fix_svg: Markup
    solves: Prose
    costs: Prose
    body: Prose
    notes: list[Note]
    stamp: StampView


@dataclass
class WalkView:
    concept_id: str
    name: str
    intro: Prose
    rows: list[tuple[int, str, Markup]]
    table: list[CompareRow]


class _Annotator:
    """Feeds plan text through the page's one glossary, in reading order."""

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.glossary = Glossary(plan.glossary)

    def prose(self, text: str) -> Prose:
        html, new = self.glossary.annotate(text)
        return Prose(html, self._notes(new, marked=True))

    def force(self, terms: Sequence[str]) -> list[Note]:
        return self._notes(self.glossary.force(terms), marked=False)

    def index(self) -> list[tuple[str, str, str | None]]:
        """The footer's term list: (term, the note defining it, or None with the definition
        when the page never used the term)."""
        defined = set(self.glossary.defined)
        return [
            (g.term, note_id(i), None) if i in defined else (g.term, "", g.definition)
            for i, g in enumerate(self.plan.glossary)
        ]

    def _notes(self, indexes: Sequence[int], *, marked: bool) -> list[Note]:
        entries = self.plan.glossary
        return [
            Note(term_id(i), note_id(i), entries[i].term, entries[i].definition, marked)
            for i in indexes
        ]


def _stamp_faces(lang: str) -> dict[str, page_draw.StampFace]:
    words = ui(lang)
    return {s: page_draw.stamp_face(s, lang=lang, label=words[f"stamp_{s}"]) for s in PROGRESS_STATES}


def _stamp(
    concept: Concept, config: PageConfig, lang: str, faces: Mapping[str, page_draw.StampFace]
) -> StampView:
    words = ui(lang)
    state = config.progress.get(concept.id) or concept.progress or DEFAULT_PROGRESS
    # Each state is drawn once as a <symbol>; a card's stamp is a <use> of it (the page script
    # re-points the <use> and rebuilds the label from <html data-stamp-label> on click).
    return StampView(state, faces[state], words["stamp_label"].format(state=words[f"stamp_{state}"]))


def _card(
    i: int,
    concept: Concept,
    plan: Plan,
    config: PageConfig,
    sim: SimResults,
    notes: _Annotator,
    overrides: Mapping[str, Mapping[str, Any]] | None,
    faces: Mapping[str, page_draw.StampFace],
) -> CardView:
    lang = plan.lang
    # Reading order inside a card: title, the note back to the previous card, the two lines,
    # the body (panel captions are SVG text and cannot carry a <dfn>).
    name = notes.prose(concept.name)
    # An English page would print the same name twice: the small English name is left out
    # (and so never claims a term's first use).
    same = concept.name_en.strip().casefold() == concept.name.strip().casefold()
    name_en = Prose(Markup("")) if same else notes.prose(concept.name_en)
    prev = plan.concept(concept.solves_problem_of) if concept.solves_problem_of else None
    prev_number = plan.concepts.index(prev) + 1 if prev is not None else None
    prev_problem = notes.prose(prev.problem_left) if prev is not None else None
    svgs = {
        side: page_draw.panel_svg(
            concept,
            side,
            panel,
            sim.panel_trace(panel),
            sim.values(panel),
            lang=lang,
            overrides=overrides,
        )
        for side, panel in (("trouble", concept.trouble), ("fix", concept.fix))
    }
    solves, costs, body = (notes.prose(t) for t in (concept.solves, concept.costs, concept.body))
    # A term the card introduces but never spells out is still defined here, at its first use.
    forced = notes.force(concept.terms)
    all_notes = [
        *name.notes,
        *name_en.notes,
        *(prev_problem.notes if prev_problem else []),
        *solves.notes,
        *costs.notes,
        *body.notes,
        *forced,
    ]
    return CardView(
        id=concept.id,
        number=i + 1,
        total=len(plan.concepts),
        name=name.html,
        name_en=name_en.html,
        prev_id=prev.id if prev is not None else None,
        prev_number=prev_number,
        prev_problem=prev_problem,
        trouble_svg=svgs["trouble"],
        fix_svg=svgs["fix"],
        solves=solves,
        costs=costs,
        body=body,
        notes=all_notes,
        stamp=_stamp(concept, config, lang, faces),
    )


def _walk_concept(plan: Plan, config: PageConfig, sim: SimResults) -> Concept:
    """The stuck concept from page.toml when it is on the page and simulated, else the plan's."""
    for wanted in config.stuck[:1]:
        concept = plan.concept(wanted)
        if concept is not None and _walk_scenario(concept, sim) is not None:
            return concept
    concept = plan.concept(plan.walkthrough.concept)
    return concept if concept is not None else plan.concepts[-1]


def _walk_scenario(concept: Concept, sim: SimResults) -> str | None:
    for panel in (concept.fix, concept.trouble):
        if panel.scenario and sim.trace(panel.scenario, "with") is not None:
            return panel.scenario
    return None


def _newcomer(plan: Plan) -> str:
    return next((m.id for m in plan.cast if m.state == "new"), DEFAULT_NEWCOMER)


def _walkthrough(plan: Plan, config: PageConfig, sim: SimResults, notes: _Annotator) -> WalkView:
    lang = plan.lang
    concept = _walk_concept(plan, config, sim)
    intro = notes.prose(plan.walkthrough.intro)
    scenario = _walk_scenario(concept, sim)
    rows: list[tuple[int, str, Markup]] = []
    table: list[CompareRow] = []
    if scenario is not None:
        with_trace = sim.trace(scenario, "with") or TraceView()
        focus = [_newcomer(plan)]
        for row in step_sentences(with_trace, lang):
            strip = page_draw.step_strip_svg(with_trace, row.index, lang=lang, focus=focus)
            rows.append((row.index, row.sentence, strip))
        without_trace = sim.trace(scenario, "without")
        if without_trace is not None:
            table = comparison_rows(without_trace, with_trace, _newcomer(plan), lang)
    return WalkView(concept.id, concept.name, intro, rows, table)


def _page_id(plan: Plan, config: PageConfig) -> str:
    """The localStorage namespace of this page's progress stamps."""
    if config.publish.name:
        return config.publish.name
    return "page-" + hashlib.sha256(plan.title.encode()).hexdigest()[:PAGE_ID_DIGITS]


def _environment() -> Environment:
    return html_environment()


def _font_css(chars_by_family: Mapping[str, str]) -> str:
    faces: list[str] = []
    for family, chars in sorted(chars_by_family.items()):
        if chars:
            faces.extend(face.css() for face in subset_faces(family, chars))
    return "\n".join(faces)


@dataclass(frozen=True)
class Licences:
    """The embedded families' copyright lines and their licence text, shared when identical
    (both fonts are OFL-1.1: the 4 KB licence body is printed once)."""

    notices: list[tuple[str, str]]
    texts: list[str]


def _licences(families: Sequence[str]) -> Licences:
    notices: list[tuple[str, str]] = []
    bodies: list[str] = []
    for family in families:
        text = license_text(family)
        head, sep, body = text.partition(LICENCE_BODY_START)
        if not sep:
            head, body = "", text
        notices.append((family, head.strip()))
        if (sep + body).strip() not in bodies:
            bodies.append((sep + body).strip())
    return Licences(notices, bodies)


def render_page(
    plan: Plan,
    corpus: Corpus,
    config: PageConfig,
    sim: SimResults,
    links: object | None,
    *,
    overrides: Mapping[str, Mapping[str, Any]] | None = None,
    build_info: Mapping[str, str] | None = None,
) -> str:
    """The whole self-contained index.html; byte-identical for identical inputs."""
    lang = plan.lang
    notes = _Annotator(plan)
    heading = notes.prose(config.title or plan.title)
    takeaway = notes.prose(plan.takeaway)
    takeaway.notes[:0] = heading.notes
    thread = notes.prose(plan.main_thread.sentence)
    thread_svg = page_draw.main_thread_svg(plan, lang=lang)
    cast_members, cast_key = page_draw.cast_legend(plan, lang=lang)
    faces = _stamp_faces(lang)
    cards = [
        _card(i, c, plan, config, sim, notes, overrides, faces) for i, c in enumerate(plan.concepts)
    ]
    ruler_sentence = notes.prose(plan.ruler.sentence)
    metrics = [(m.name, notes.prose(m.definition)) for m in plan.ruler.metrics]
    ruler_svg = page_draw.ruler_svg(plan, sim.sweep, lang=lang)
    walk = _walkthrough(plan, config, sim, notes)
    route: list[RouteView] = route_views(plan, corpus, links)
    route_why = [notes.prose(stop.why) for stop in route]
    ticks = {stop.number: page_draw.tick_svg(seed_id=f"tick-{stop.number}") for stop in route}
    sources: list[SourceView] = source_views(plan, corpus)
    words = ui(lang)
    context: dict[str, Any] = {
        "lang": lang,
        "t": words,
        "title": config.title or plan.title,
        "heading": heading.html,
        "title_font": HAND_ZH if lang == "zh" else HAND_EN,
        "latin_font": HAND_EN,
        "page_id": _page_id(plan, config),
        "takeaway": takeaway,
        "thread": thread,
        "thread_svg": thread_svg,
        "cast_members": cast_members,
        "cast_key": cast_key,
        "cards": cards,
        "ruler_sentence": ruler_sentence,
        "metrics": metrics,
        "ruler_svg": ruler_svg,
        "walk": walk,
        "route": list(zip(route, route_why, strict=True)),
        # Said once above the stops, not repeated on each: why some lengths are not known yet.
        "route_pending": any(s.minutes is None and s.verdict != "verified" for s in route),
        "ticks": ticks,
        "route_rule": words["route_rule"].format(
            zh_rate=CHINESE_CHARS_PER_MINUTE, en_rate=ENGLISH_WORDS_PER_MINUTE
        ),
        "sources": sources,
        "glossary": notes.index(),
        "build_info": sorted((build_info or {}).items()),
        "progress_states": PROGRESS_STATES,
        "stamp_label": words["stamp_label"],
        "stamp_faces": [faces[s] for s in PROGRESS_STATES],
        "symbol_defs": page_draw.symbol_defs(lang=lang),
    }
    env = _environment()
    # P16: Latin words and numbers inside a Chinese hand-lettered title go to the English hand.
    # Each run carries its own data-font (the font check reads a marked element's direct text).
    if lang == "zh":
        env.filters["hand"] = lambda v: hand_runs(escape(v), HAND_ZH, HAND_EN)
    else:
        env.filters["hand"] = lambda v: Markup(f'<span data-font="{HAND_EN}">{escape(v)}</span>')
    template = env.get_template(PAGE_TEMPLATE)
    script = (templates_dir() / SCRIPT_FILE).read_text(encoding="utf-8")
    page_css = (templates_dir() / STYLE_FILE).read_text(encoding="utf-8")
    # First pass: the markup alone, to learn which characters each handwriting font must cover.
    # The draft names both families' licences (a superset of the characters of the final one).
    draft = template.render(
        **context, style=Markup(""), script=Markup(""), csp="", licences=_licences(FAMILIES)
    )
    chars = font_text(draft)
    style = _font_css(chars) + "\n" + minify_css(page_css)
    licences = _licences([family for family in FAMILIES if chars.get(family)])
    return template.render(
        **context,
        style=Markup(style),
        script=Markup(script),
        csp=csp_policy(style, [script]),
        licences=licences,
    )
