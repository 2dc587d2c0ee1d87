"""A concept card: the name, the note back to the card whose problem it solves, the trouble and
fix panels (drawn by `pipeline.draw` from the simulator's traces), solves/costs/body, the first-use
notes, and the progress stamp.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup

from pipeline import fields
from pipeline.artifacts.sim import SimResults
from pipeline.config import PageConfig
from pipeline.plan.model import Concept, Plan
from pipeline.render import diagrams as page_draw
from pipeline.render.glossary import Annotator, Note, Prose
from pipeline.render.strings import PROGRESS_STATES, ui

DEFAULT_PROGRESS = "unmarked"  # the config marks nothing: the page claims nothing


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
    panel_note: str  # how the panels keep time, what of the cast they change ("": nothing)
    solves: Prose
    costs: Prose
    body: Prose
    notes: list[Note]
    stamp: StampView


def stamp_faces(lang: str) -> dict[str, page_draw.StampFace]:
    """Each progress state's stamp, drawn once for the page (cards <use> them)."""
    words = ui(lang)
    return {
        s: page_draw.stamp_face(s, lang=lang, label=words[f"stamp_{s}"]) for s in PROGRESS_STATES
    }


def _stamp(
    concept: Concept, config: PageConfig, lang: str, faces: Mapping[str, page_draw.StampFace]
) -> StampView:
    words = ui(lang)
    state = config.progress.get(concept.id) or DEFAULT_PROGRESS  # page.toml's record only
    # Each state is drawn once as a <symbol>; a card's stamp is a <use> of it (the page script
    # re-points the <use> and rebuilds the label from <html data-stamp-label> on click).
    return StampView(
        state, faces[state], words["stamp_label"].format(state=words[f"stamp_{state}"])
    )


def card_view(
    i: int,
    concept: Concept,
    plan: Plan,
    config: PageConfig,
    sim: SimResults,
    notes: Annotator,
    overrides: Mapping[str, Mapping[str, Any]] | None,
    faces: Mapping[str, page_draw.StampFace],
) -> CardView:
    """Concept `i` as a card: its name, the two comic panels, the three texts and its notes."""
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
            plan,
            concept,
            side,
            panel,
            sim,
            lang=lang,
            overrides=overrides,
            path=f"concepts[{i}].{side}",
        )
        for side, panel in (("trouble", concept.trouble), ("fix", concept.fix))
    }
    solves, costs, body = (notes.prose(t) for t in (concept.solves, concept.costs, concept.body))
    # A term the card introduces but never spells out is still defined here, at its first use.
    forced = notes.force(concept.terms)
    # ... and so is a word only its pictures write ("p99" on a clock, "block" in a pool).
    pictured = [*notes.picture(svgs["trouble"]), *notes.picture(svgs["fix"])]
    all_notes = [
        *name.notes,
        *name_en.notes,
        *(prev_problem.notes if prev_problem else []),
        *solves.notes,
        *costs.notes,
        *body.notes,
        *forced,
        *pictured,
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
        panel_note=fields.panel_note_of(plan, concept, sim, lang),
        solves=solves,
        costs=costs,
        body=body,
        notes=all_notes,
        stamp=_stamp(concept, config, lang, faces),
    )
