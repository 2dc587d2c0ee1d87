"""The render stage: plan + corpus + simulator traces + link report → one self-contained index.html.

`render_page` assembles the page's sections in reading order (the glossary defines each term at
its first use, P1): the opening, the cards (`cards`), the ruler, the walkthrough (`walkthrough`),
the learning route (`route`) and the footer (`source_list`). Every diagram comes from
`pipeline.draw` (through `diagrams`); the fonts are subset to the characters the page sets in them
(`fonts_used`), and the one inline style and script are allowed by hash in the CSP (`csp`).
Identical inputs give identical bytes: nothing here reads the clock or the environment.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from jinja2 import Environment
from markupsafe import Markup, escape

from pipeline import fields
from pipeline.artifacts.links import LinkReport
from pipeline.artifacts.sim import SimResults
from pipeline.artifacts.sources import Corpus
from pipeline.config import PageConfig
from pipeline.draw.defs import drop_unused_symbols
from pipeline.draw.layout import CJK
from pipeline.fields import CompareRow
from pipeline.fonts import HAND_EN, HAND_ZH
from pipeline.paths import templates_dir
from pipeline.plan.model import Concept, Plan
from pipeline.plan.placeholders import fill_placeholders
from pipeline.render import diagrams as page_draw
from pipeline.render.cards import CardView, card_view, stamp_faces
from pipeline.render.csp import csp_policy, minify_css, minify_js
from pipeline.render.fonts_used import FONT_FAMILIES, font_css, font_text, hand_runs, licences
from pipeline.render.glossary import Annotator, Prose
from pipeline.render.route import (
    CHINESE_CHARS_PER_MINUTE,
    ENGLISH_WORDS_PER_MINUTE,
    RouteView,
    route_views,
)
from pipeline.render.ruler_runs import ruler_runs
from pipeline.render.source_list import source_views
from pipeline.render.strings import PROGRESS_STATES, ui
from pipeline.templating import html_environment

PAGE_TEMPLATE = "page.html.j2"
STYLE_FILE = "page.css"
SCRIPT_FILE = "page.js"
PAGE_ID_DIGITS = 10


@dataclass
class WalkView:
    concept_id: str
    name: str
    intro: Prose
    rows: list[tuple[int, str, Markup]]
    table: list[CompareRow]
    # the table's two column heads and its caption when its panels are two worked examples
    # (their titles: "a 1% fee" vs "a 0.1% fee"); None: the run without and with the technique
    columns: tuple[str, str] | None = None


def _walk_columns(plan: Plan, concept: Concept, sim: SimResults) -> tuple[str, str] | None:
    """The two column heads when "without / with" would be wrong: the titles of the two worked
    examples a concept's panels compare; or, for a concept that is no technique against its
    baseline (a pipeline with one batch beside one with micro-batches is not "without
    pipeline parallelism"), the two panels' own captions, filled as the reader saw them."""
    trouble = plan.example(concept.trouble.example) if concept.trouble.example else None
    fix = plan.example(concept.fix.example) if concept.fix.example else None
    if trouble is not None and fix is not None and trouble.id != fix.id:
        return trouble.title, fix.title
    if concept.technique is not None or not (concept.trouble.scenario and concept.fix.scenario):
        return None
    trouble_head, fix_head = (
        fill_placeholders(panel.caption, fields.run_values(plan, concept, panel, sim))
        if fields.run_view(plan, concept, panel, sim) is not None else panel.caption
        for panel in (concept.trouble, concept.fix)
    )
    return (trouble_head, fix_head) if trouble_head != fix_head else None


def _walk_concept(plan: Plan, config: PageConfig, sim: SimResults) -> Concept:
    """The stuck concept from page.toml when it is on the page and its field can tell it step
    by step, else the plan's."""
    for wanted in config.stuck[:1]:
        concept = plan.concept(wanted)
        if concept is not None and fields.walkthrough(plan, concept, sim, plan.lang) is not None:
            return concept
    concept = plan.concept(plan.walkthrough.concept)
    return concept if concept is not None else plan.concepts[-1]


def _walkthrough(plan: Plan, config: PageConfig, sim: SimResults, notes: Annotator) -> WalkView:
    concept = _walk_concept(plan, config, sim)
    intro = notes.prose(plan.walkthrough.intro)
    told = fields.walkthrough(plan, concept, sim, plan.lang)
    steps, table = told if told is not None else ([], [])
    rows = [(step.index, step.sentence, Markup(step.strip)) for step in steps]
    for step in steps:  # the strips' words ("budget", "blocks") are defined above the steps
        intro.notes += notes.picture(step.strip)
    return WalkView(concept.id, concept.name, intro, rows, table,
                    _walk_columns(plan, concept, sim))


def walkthrough_table(plan: Plan, config: PageConfig, sim: SimResults) -> list[CompareRow]:
    """The walkthrough's without/with table (empty when its concept has no pair of runs), from
    the same knobbed runs the walkthrough draws; the review diffs its numbers too."""
    told = fields.walkthrough(plan, _walk_concept(plan, config, sim), sim, plan.lang)
    return told[1] if told is not None else []


def _thread_words(plan: Plan) -> dict[str, str]:
    """The main thread's subtitle says what kind of thread it is: only a loop turns around."""
    kind = plan.main_thread.kind
    if kind == "loop":
        return {}
    return {"main_thread_sub": ui(plan.lang)[f"main_thread_sub_{kind}"]}


def _page_id(plan: Plan, config: PageConfig) -> str:
    """The localStorage namespace of this page's progress stamps."""
    if config.publish.name:
        return config.publish.name
    return "page-" + hashlib.sha256(plan.title.encode()).hexdigest()[:PAGE_ID_DIGITS]


def render_page(
    plan: Plan,
    corpus: Corpus,
    config: PageConfig,
    sim: SimResults,
    links: LinkReport | None,
    *,
    overrides: Mapping[str, Mapping[str, Any]] | None = None,
    build_info: Mapping[str, str] | None = None,
) -> str:
    """The whole self-contained index.html; byte-identical for identical inputs."""
    notes = Annotator(plan, fields.page_glossary(plan))
    # Section by section in reading order: the glossary defines each term at its first use.
    context = _opening(plan, config, notes)
    context |= _cards(plan, config, sim, notes, overrides)
    context |= _ruler(plan, sim, notes)
    context["walk"] = _walkthrough(plan, config, sim, notes)
    context |= _route(plan, corpus, links, notes)
    context |= _footer(plan, corpus, notes, build_info)
    return _assemble(_environment(plan.lang), context)


def _opening(plan: Plan, config: PageConfig, notes: Annotator) -> dict[str, Any]:
    """The title, the takeaway, the main thread and the cast."""
    lang = plan.lang
    heading = notes.prose(config.title or plan.title)
    takeaway = notes.prose(plan.takeaway)
    takeaway.notes[:0] = heading.notes
    thread = notes.prose(plan.main_thread.sentence)
    thread_svg = page_draw.main_thread_svg(plan, lang=lang)
    thread.notes += notes.picture(thread_svg)
    cast_members, cast_key = page_draw.cast_legend(plan, lang=lang)
    # the roles are set in the hand font and carry no <dfn>: a term they use ("thread") is
    # defined under the cast (reader cc-r4 met it eight cards before its definition)
    cast_notes = notes.words("\n".join(item.words for item in [*cast_members, *cast_key]))
    return {
        "lang": lang,
        "t": {**ui(lang), **fields.page_words(plan, lang), **_thread_words(plan)},
        "title": config.title or plan.title,
        "heading": heading.html,
        "title_font": HAND_ZH if lang == "zh" else HAND_EN,
        "latin_font": HAND_EN,
        "page_id": _page_id(plan, config),
        "takeaway": takeaway,
        "thread": thread,
        "thread_svg": thread_svg,
        "cast_members": cast_members,
        "cast_notes": cast_notes,
        "cast_key": cast_key,
        "symbol_defs": page_draw.symbol_defs(plan, lang=lang),
    }


def _cards(
    plan: Plan,
    config: PageConfig,
    sim: SimResults,
    notes: Annotator,
    overrides: Mapping[str, Mapping[str, Any]] | None,
) -> dict[str, Any]:
    """The concept cards and the progress stamps they share."""
    words = ui(plan.lang)
    faces = stamp_faces(plan.lang)
    cards = _said_once([
        card_view(i, c, plan, config, sim, notes, overrides, faces)
        for i, c in enumerate(plan.concepts)
    ], plan)
    return {
        "cards": cards,
        "progress_states": PROGRESS_STATES,
        "stamp_label": words["stamp_label"],
        "stamp_faces": [faces[s] for s in PROGRESS_STATES],
    }


def _ruler(plan: Plan, sim: SimResults, notes: Annotator) -> dict[str, Any]:
    """The ruler: its sentence, the sweep's drawing, what each row is compared with on which
    workload (P22, `ruler_runs`), and the metrics it defines."""
    ruler_sentence = notes.prose(plan.ruler.sentence)
    runs = ruler_runs(plan, sim.sweep) if sim.sweep is not None else None
    runs_view = None
    if runs is not None:
        runs_view = {
            "how": notes.prose(runs.how),
            "rows": [(r.name, notes.prose(r.text)) for r in runs.rows],
            "workloads": [(w.title, notes.prose(w.description)) for w in runs.workloads],
        }
    metrics = [(m.name, notes.prose(m.definition)) for m in plan.ruler.metrics]
    return {
        "ruler_sentence": ruler_sentence,
        "metrics": metrics,
        "ruler_svg": page_draw.ruler_svg(plan, sim.sweep, lang=plan.lang),
        "ruler_runs": runs_view,
    }


def _route(plan: Plan, corpus: Corpus, links: LinkReport | None, notes: Annotator) -> dict[str, Any]:
    """The learning route: each stop with its minutes and link verdict, and the rule behind the
    minutes."""
    route: list[RouteView] = route_views(plan, corpus, links)
    route_why = [notes.prose(stop.why) for stop in route]
    return {
        "route": list(zip(route, route_why, strict=True)),
        "route_unchecked": _unchecked_sentence(route, plan.lang),
        "ticks": {stop.number: page_draw.tick_svg(seed_id=f"tick-{stop.number}") for stop in route},
        "route_rule": _route_rule(route, plan.lang),
    }


def _route_rule(route: list[RouteView], lang: str) -> str:
    """How the minutes were estimated; nothing when no stop has any (no saved copy, no count
    from the link check): a route without times needs no rule, and readers took a sentence
    saying so for a production note (readers cc2, cc4)."""
    if not any(stop.minutes for stop in route):
        return ""
    rates = {stop.counted for stop in route if stop.minutes}
    key = "route_rule" if rates == {"zh", "en"} else f"route_rule_{rates.pop()}"
    return str(ui(lang)[key]).format(
        zh_rate=CHINESE_CHARS_PER_MINUTE, en_rate=ENGLISH_WORDS_PER_MINUTE
    )


def _unchecked_sentence(route: list[RouteView], lang: str) -> str:
    """Links the check could not reach, said once and plainly above the stops (PAGE.md P24: no
    badge on each stop); empty when every link was checked."""
    unchecked = sum(stop.verdict == "unverified" for stop in route)
    if not unchecked:
        return ""
    if unchecked == len(route):
        return ui(lang)["route_unchecked_all"]
    return ui(lang)["route_unchecked_some"].format(n=unchecked)


def _footer(
    plan: Plan, corpus: Corpus, notes: Annotator, build_info: Mapping[str, str] | None
) -> dict[str, Any]:
    """The sources, the term index (last: it knows which terms the page defined) and the build."""
    return {
        "sources": source_views(plan, corpus),
        "glossary": notes.index(),
        "build_info": sorted((build_info or {}).items()),
    }


def _environment(lang: str) -> Environment:
    """The page's jinja2 environment with its `hand` filter: the text in the handwriting font, as
    runs each marked with the font it renders in (the font check reads a marked element's text).
    P16: Latin words and numbers inside a Chinese hand-lettered title go to the English hand."""
    env = html_environment()
    if lang == "zh":
        env.filters["hand"] = lambda v: hand_runs(escape(v), HAND_ZH, HAND_EN)
    else:
        env.filters["hand"] = _english_hand
    env.filters["cell"] = _cell
    return env


def _english_hand(value: str) -> Markup:
    return Markup(f'<span data-font="{HAND_EN}">{escape(value)}</span>')


def _cell(value: str) -> Markup:
    """A table cell's value in the English hand, or, when a field writes it in words of another
    script ("装得下"), as runs each in the hand that has its glyphs."""
    return hand_runs(escape(value), HAND_ZH, HAND_EN) if CJK.search(value) else _english_hand(value)


def _assemble(env: Environment, context: Mapping[str, Any]) -> str:
    """Render twice: first the markup alone, to learn which characters each handwriting font must
    cover, then with the subset fonts, the stylesheet and the script inline and the CSP allowing
    exactly those. The draft names both families' licences (a superset of the final page's
    characters)."""
    template = env.get_template(PAGE_TEMPLATE)
    script = minify_js((templates_dir() / SCRIPT_FILE).read_text(encoding="utf-8"))
    page_css = (templates_dir() / STYLE_FILE).read_text(encoding="utf-8")
    draft = template.render(
        **context, style=Markup(""), script=Markup(""), csp="", licences=licences(FONT_FAMILIES)
    )
    chars = font_text(draft)
    style = font_css(chars) + "\n" + minify_css(page_css)
    page = template.render(
        **context,
        style=Markup(style),
        script=Markup(script),
        csp=csp_policy(style, [script]),
        licences=licences([family for family in FONT_FAMILIES if chars.get(family)]),
    )
    return drop_unused_symbols(page)


def _said_once(cards: list[CardView], plan: Plan) -> list[CardView]:
    """Each field's once-notes (`Field.once_notes`) in full on the first card whose panel note
    has them; later cards get the field's pointer back to that card."""
    first: dict[str, int] = {}
    out = []
    for card, concept in zip(cards, plan.concepts, strict=True):
        note = card.panel_note
        for phrase, again in fields.field(fields.concept_field(concept)).once_notes(plan.lang).items():
            if phrase not in note:
                continue
            if phrase in first:
                note = note.replace(phrase, again.format(n=first[phrase]))
            else:
                first[phrase] = card.number
        out.append(replace(card, panel_note=note) if note != card.panel_note else card)
    return out
