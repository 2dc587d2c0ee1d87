"""What the ruler says, before it is drawn: per row (a concept standing for a measured technique,
or one whose effects a source states) and per metric, the verdict (improves / sacrifices /
about the same), the number, and what the cell shows in the metric's place ("P99", "TPOT");
and, for a row none of whose cells worsens, the card's `costs` words (never an implied free
lunch). The drawing (`ruler.py`), the page's baseline list, the review's numbers and the checks
read these same rows.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from pipeline.artifacts.sim import SweepView, TechniqueView
from pipeline.numfmt import one_decimal
from pipeline.plan.model import Concept, Effect, Plan, RulerMetric

FLAT_PCT = 1.0  # |change| below this is "about the same"
Verdict = Literal["better", "worse", "same", "unstated"]  # unstated: no source says
CHANGE_SIGN = {"up": 1.0, "down": -1.0, "none": 0.0}
# A cited direction with no amount in its quote is written as the direction itself: a reader
# takes a bare "cited" for a production note.
CITED = {"zh": {"up": "变多", "down": "变少", "none": "不变"},
         "en": {"up": "more", "down": "less", "none": "unchanged"}}
UNSTATED = {"zh": "原文未提", "en": "not stated"}
DEFAULT_P99 = "P99"
P99_SPELLING = re.compile(r"\b[pP]99\b")


def verdict(pct: float, better: str) -> Verdict:
    if abs(pct) < FLAT_PCT:
        return "same"
    return "better" if (pct > 0) == (better == "higher") else "worse"


def measured_direction(pct: float) -> Literal["up", "down", "none"]:
    """Which way a measured number moved (the ruler's FLAT_PCT says what 'about the same' is)."""
    if abs(pct) < FLAT_PCT:
        return "none"
    return "up" if pct > 0 else "down"


@dataclass(frozen=True)
class Cell:
    """One technique x metric cell: the verdict, the arrow's direction (+1 up, -1 down, 0 flat),
    the number or quoted amount, and what is shown in the metric's place ('' = its mean)."""

    metric: RulerMetric
    kind: Verdict
    sign: float
    text: str
    note: str = ""
    cited: bool = False


@dataclass(frozen=True)
class Row:
    """One ruler row: its concept (index in the plan), its cells, and the card's costs words
    when no cell shows a sacrifice ('' otherwise)."""

    index: int
    concept: Concept
    technique: TechniqueView | None
    cells: tuple[Cell, ...]
    costs: str = ""

    def name(self, lang: str) -> str:
        return self.concept.name if lang == "zh" else self.concept.name_en

    @property
    def improves(self) -> bool:
        return any(c.kind == "better" for c in self.cells)

    @property
    def sacrifices(self) -> bool:
        return any(c.kind == "worse" for c in self.cells)


def p99_word(plan: Plan) -> str:
    """The page's own spelling of the 99th percentile ("P99" or "p99"), so one term reads one
    way on the page (P23); "P99" when the plan writes neither."""
    text = " ".join([plan.ruler.sentence, *(g.definition for g in plan.glossary),
                     *(c.body for c in plan.concepts)])
    found = P99_SPELLING.findall(text)
    return max(set(found), key=found.count) if found else DEFAULT_P99


def cell_note(tech: TechniqueView, metric: str, p99: str) -> str:
    """What a measured cell shows instead of the metric's mean: "P99", "TPOT", "TPOT P99"."""
    shown, is_p99 = tech.shown_as(metric)
    words = [shown.upper()] if shown != metric else []
    return " ".join([*words, p99] if is_p99 else words)


POINTS = {"zh": "{n} 个点", "en": "{n} pts"}


def _measured(tech: TechniqueView, metric: RulerMetric, p99: str, *, share: bool = False,
              lang: str = "en") -> Cell | None:
    """A measured cell: the change in percent, or for a metric that is itself a share (MFU,
    "% of the GPUs' peak") in percentage points, so 28.5 -> 31.5 reads "+3 pts", not "+10%"."""
    pct = cell_change(tech, metric.id, share)
    if pct is None:
        return None
    before, after = tech.absolute(metric.id)
    if share and before is not None and after is not None:
        diff = after - before
        sign = "-" if diff < 0 and one_decimal(-diff) != "0" else "+"
        text = POINTS["zh" if lang == "zh" else "en"].format(n=sign + one_decimal(abs(diff)))
    else:
        # round() first: a small negative change reads "+0%", never "-0%"
        text = f"{round(pct):+d}%"
    return Cell(metric, verdict(pct, metric.better), pct, text, cell_note(tech, metric.id, p99))


def cell_change(tech: TechniqueView, metric_id: str, share: bool) -> float | None:
    """The change a cell's verdict reads: the percentage, or for a share whose baseline is
    zero (a pipeline's idle share where the baseline has no pipeline) the change in points,
    which a share always has."""
    pct = tech.shown_pct(metric_id)
    before, after = tech.absolute(metric_id)
    if pct is None and share and before is not None and after is not None:
        return after - before
    return pct


def is_share(sweep: SweepView, key: str) -> bool:
    """A metric whose values are already percentages (the sweep's unit starts with "%")."""
    return sweep.units.get(key, "").lstrip().startswith("%")


def _cited(effect: Effect, metric: RulerMetric, lang: str) -> Cell:
    sign = CHANGE_SIGN[effect.change]
    kind: Verdict = "same" if sign == 0 else verdict(sign * 100.0, metric.better)
    words = CITED["zh" if lang == "zh" else "en"]
    return Cell(metric, kind, sign, effect.amount or words[effect.change], cited=True)


def _unstated(metric: RulerMetric, lang: str) -> Cell:
    """A cited row's metric no source speaks of: said in words, never guessed."""
    return Cell(metric, "unstated", 0.0, UNSTATED["zh" if lang == "zh" else "en"], cited=True)


def effect_of(concept: Concept, metric_id: str) -> Effect | None:
    return next((e for e in concept.effects if e.metric == metric_id), None)


def is_ruler_row(concept: Concept, sweep: SweepView) -> bool:
    """A concept standing for a measured technique of the sweep, or one whose effects a source
    states (a field without an engine)."""
    measured = {t.id for t in sweep.techniques}
    return bool((concept.technique and concept.technique in measured)
                or (concept.effects and not concept.technique))


def ruler_table(plan: Plan, sweep: SweepView) -> list[Row]:
    """The ruler's rows in page order. A cell the sweep cannot give (a zero baseline) is left
    out here; `pipeline.simulate.checks` refuses such a plan, so a drawn row is never short."""
    p99 = p99_word(plan)
    rows = []
    for i, concept in enumerate(plan.concepts):
        if not is_ruler_row(concept, sweep):
            continue
        tech = sweep.technique(concept.technique) if concept.technique else None
        cells: list[Cell] = []
        for metric in plan.ruler.metrics:
            effect = effect_of(concept, metric.id) if tech is None else None
            cell = (_measured(tech, metric, p99, share=is_share(sweep, tech.key(metric.id)),
                              lang=plan.lang) if tech is not None
                    else _cited(effect, metric, plan.lang) if effect is not None
                    else _unstated(metric, plan.lang))
            if cell is not None:
                cells.append(cell)
        row = Row(i, concept, tech, tuple(cells))
        rows.append(row if row.sacrifices else Row(i, concept, tech, tuple(cells), concept.costs))
    return rows
