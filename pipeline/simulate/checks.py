"""All the page rules a plan must keep, the ones that need the simulator included: the one
function `tujie validate`, the sim stage and the LLM repair loop share, so a plan that passes it
renders.

`page_violations` checks the plan against the registry (`pipeline.fields`: each field's
catalogue of scene x scenario, placeholders, knobs; generic panels, techniques and the ruler's
rows) and the sources, runs every scenario the panels need with their knobs
(a run the simulator refuses, or in which a request that finishes in the preset never does, is
a violation at the panel's knobs), measures captions with the simulator's numbers filled in
(H1), and fits every text the drawings place at both widths (`pipeline.draw.fit`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from pipeline import fields
from pipeline.artifacts.sim import SimResults, SweepView
from pipeline.artifacts.sources import Corpus
from pipeline.artifacts.trace import Json, TraceView
from pipeline.draw.fit import layout_violations
from pipeline.draw.ruler_rows import cell_change, is_share, measured_direction, verdict
from pipeline.errors import TujieError, Violation
from pipeline.fields import Run
from pipeline.plan.catalogue import Catalogue, Catalogues
from pipeline.plan.model import Panel, Plan
from pipeline.plan.placeholders import placeholders
from pipeline.plan.rules import ValuesFor, plan_violations
from pipeline.simulate.results import needed_runs, run_trace, sweep_json


def page_violations(
    plan: Plan,
    corpus: Corpus | None = None,
    *,
    catalogue: Catalogue | Catalogues | None = None,
    sim: SimResults | None = None,
) -> tuple[list[Violation], SimResults]:
    """Every rule `plan` breaks, each with its JSON path, and the simulator results it was
    checked with (the runs that could be made, and the sweep). Runs already in `sim` (the sim
    stage's saved results) are read from it instead of run again."""
    cat = Catalogues.of(catalogue) if catalogue is not None else fields.catalogues()
    owner = {id(panel): concept for _path, concept, panel in plan.panels()}
    # Panels whose run cannot be made at all (unknown scenario, a scene that cannot draw it, a
    # missing variant, a bad knob) are not simulated; a caption too long or with a literal number
    # still gets its run, so the rules below measure it with its own numbers filled in.
    static = plan_violations(plan, None, catalogue=cat) + fields.plan_rules(plan, None)
    broken = {_run_blocker(v.path) for v in static} - {None}
    traces, run_problems = _runs(plan, broken, sim)
    sweep = sim.sweep_json if sim is not None and sim.sweep_json is not None else sweep_json(
        plan=plan)
    results = SimResults(traces, sweep)
    broken |= {_panel_path(v.path) for v in run_problems} - {None}

    def values_for(panel: Panel) -> Mapping[str, str]:
        concept = owner[id(panel)]
        if fields.run_view(plan, concept, panel, results) is not None:
            return fields.run_values(plan, concept, panel, results)
        # A panel that could not run: its preset's values, so H1 is still measured.
        known = cat.get(fields.concept_field(concept))
        entry = known.scenario(panel.scenario) if known is not None else None
        if entry is None:
            return {}
        column = "without" if panel.variant == "without" else "with_"
        return {p.name: v for p in entry.placeholders if (v := getattr(p, column)) is not None}

    found = plan_violations(plan, corpus, catalogue=cat, values_for=values_for)
    found += fields.plan_rules(plan, corpus)
    found += [v for v in run_problems if v not in found]
    found += _ruler_cells(plan, results)
    found += [v for v in fields.card_rules(plan, results) if _panel_path(v.path) not in broken]
    found += _contradictions(plan, values_for)
    found += _walkable(plan, results, broken)
    broken |= {_panel_path(v.path) for v in found} - {None}
    found += layout_violations(
        plan,
        draw_panel=lambda c, side, panel: fields.draw_panel_of(
            plan, c, side, panel, results, lang=plan.lang
        ),
        values_for=values_for,
        sweep=results.sweep,
        skip={p for p in broken if p is not None},
    )
    return found, results


# A source saying a technique leaves a metric alone agrees with a measured change this small.
NONE_TOLERANCE_PCT = 5.0

# Placeholders that count events: at 0 a caption about them describes nothing the run shows.
EVENT_COUNTS = frozenset({"wait", "preemptions", "preempted", "prefix_hit_tokens"})
# Words by which a caption says a number changed between the panels ("drops to", "降到", "→").
# A number equal in both panels is a contradiction only under such words: "throughput stays
# {throughput}" beside a latency that falls is what a card about a trade-off should say.
CHANGE_WORDS = re.compile(
    r"→|->|\b(?:drops?|dropp(?:ed|ing)|falls?|fell|rises?|rose|climbs?|cuts?|shrinks?|grows?|"
    r"halves|halved|doubles?|doubled|down to|up to|from\b.*\bto)\b"
    r"|降|升|减少|增加|缩短|变成|变为|翻倍|减半|提高|从.+到",
    re.IGNORECASE,
)


def _walkable(plan: Plan, results: SimResults, broken: set[str | None]) -> list[Violation]:
    """The walkthrough's concept must be one its field can tell step by step (a worked example
    that computes something, a pair of runs): else the page's "from zero" section would be an
    intro over nothing (a model's plan did that, and a reader found the section empty)."""
    concept = plan.concept(plan.walkthrough.concept)
    if concept is None:
        return []  # the static rules name the unknown concept
    index = plan.concepts.index(concept)
    if any(p is not None and p.startswith(f"concepts[{index}].") for p in broken):
        return []  # its panels are refused already: their paths say why
    if fields.walkthrough(plan, concept, results, plan.lang) is not None:
        return []
    return [Violation("walkthrough.concept", (
        f"'{concept.id}' cannot be walked through step by step: its panels give no numbers to "
        "compute one from another (a worked example with derived quantities, or a simulated "
        "pair of runs); pick a concept whose pictures compute something, or give this one's "
        "example the quantities a beginner would work out"))]


def _contradictions(plan: Plan, values_for: ValuesFor) -> list[Violation]:
    """What a caption cannot say of its own run (P21): a number both panels of a card show with
    the same value under a caption that says it changed (`CHANGE_WORDS`), or an event count of 0 ("D waits 0
    steps")."""
    out: list[Violation] = []
    for i, concept in enumerate(plan.concepts):
        panels = {"trouble": concept.trouble, "fix": concept.fix}
        shown = {side: set(placeholders(p.caption)) for side, p in panels.items()}
        values = {side: values_for(p) for side, p in panels.items()}
        same_run = (concept.trouble.scenario, concept.trouble.example) == (
            concept.fix.scenario, concept.fix.example)
        says_change = any(CHANGE_WORDS.search(p.caption) for p in panels.values())
        for name in sorted(shown["trouble"] & shown["fix"]):
            a, b = values["trouble"].get(name), values["fix"].get(name)
            if a is not None and a == b and same_run and says_change:
                out.append(Violation(f"concepts[{i}].fix.caption", (
                    f"{{{name}}} is {a} in both panels: the two pictures show no change there; "
                    "bind a number that differs, or say in words what differs")))
        for side in panels:
            for name in shown[side]:
                if name.rpartition(".")[2] in EVENT_COUNTS and values[side].get(name) == "0":
                    out.append(Violation(f"concepts[{i}].{side}.caption", (
                        f"{{{name}}} is 0 in this run: the picture shows no such event, so the "
                        "caption cannot be about it (read the variant's story in the prompt)")))
    return out


def _ruler_cells(plan: Plan, results: SimResults) -> list[Violation]:
    """Every cell of the ruler has a measured change: a technique whose shown statistic has no
    percentage (a zero baseline that moved) is refused, never drawn as an empty cell; and a
    measured row improves at least one of the ruler's metrics on its own workload, or it would
    read as a pure loss."""
    sweep = results.sweep
    out: list[Violation] = []
    if sweep is None:
        return out
    for i, concept in enumerate(plan.concepts):
        tech = sweep.technique(concept.technique) if concept.technique else None
        if tech is None:
            continue
        pcts = {m.id: cell_change(tech, m.id, is_share(sweep, tech.key(m.id)))
                for m in plan.ruler.metrics}
        for metric in plan.ruler.metrics:
            if pcts[metric.id] is None:
                out.append(
                    Violation(
                        f"concepts[{i}].technique",
                        f"the sweep gives '{tech.id}' no percentage change of "
                        f"'{tech.key(metric.id)}' (its baseline is zero): choose another ruler "
                        "metric or technique",
                    )
                )
        better = [m.id for m in plan.ruler.metrics
                  if (p := pcts[m.id]) is not None and verdict(p, m.better) == "better"]
        if not better and all(p is not None for p in pcts.values()):
            out.append(Violation(
                f"concepts[{i}].technique",
                f"'{tech.id}' improves none of the ruler's metrics "
                f"({', '.join(m.id for m in plan.ruler.metrics)}) on its workload "
                f"'{tech.workload or 'the sweep'}': choose ruler metrics where it helps, or "
                "leave `technique` unset on this card"))
    return out + claimed_effects(plan, sweep)


def claimed_effects(plan: Plan, sweep: SweepView) -> list[Violation]:
    """A measured row's cited claims (`effects` beside `technique`) against the sweep: each
    claimed direction must be the one measured on the statistic the ruler shows (up/down: moved
    at least FLAT_PCT that way; none: within NONE_TOLERANCE_PCT), else it is a contradiction
    the page would print side by side."""
    out: list[Violation] = []
    for i, concept in enumerate(plan.concepts):
        tech = sweep.technique(concept.technique) if concept.technique else None
        if tech is None:
            continue
        for j, effect in enumerate(concept.effects):
            pct = tech.shown_pct(effect.metric)
            if pct is None:
                continue
            measured = measured_direction(pct)
            agrees = (abs(pct) < NONE_TOLERANCE_PCT if effect.change == "none"
                      else measured == effect.change)
            if agrees:
                continue
            shown = tech.key(effect.metric).replace("_p99", " p99")
            out.append(Violation(
                f"concepts[{i}].effects[{j}].change",
                f"the source says {effect.metric} goes {effect.change}, the sweep measures "
                f"{shown} {pct:+.1f}% for '{tech.id}' on '{tech.workload or 'its workload'}' "
                f"(vs {tech.baseline_label or 'its baseline'}): check the quote's conditions "
                "against that workload, or drop the effect"))
    return out


# The fields of a panel that decide which run draws it: a violation there means no run.
RUN_FIELDS = ("scenario", "variant", "scene", "knobs", "example", "show")


def _run_blocker(path: str) -> str | None:
    """The panel (`concepts[3].fix`) whose run a violation at `path` makes impossible, else None."""
    panel = _panel_path(path)
    if panel is None:
        return None
    rest = path[len(panel) :].lstrip(".")
    return panel if rest.startswith(RUN_FIELDS) else None


def _panel_path(path: str) -> str | None:
    """`concepts[3].fix` for any path inside that panel, else None."""
    for side in (".trouble", ".fix"):
        head, found, _rest = path.partition(side)
        if found and head.startswith("concepts["):
            return head + side
    return None


def _runs(
    plan: Plan, broken: set[str | None], sim: SimResults | None
) -> tuple[dict[str, Json], list[Violation]]:
    """Run what the page needs, skipping runs only broken panels use; a refused run, or one in which
    a request that finishes in the preset never finishes, is a violation at the panel."""
    from sim.errors import SimError

    engine_errors = (SimError, TujieError)

    users: dict[Run, list[str]] = {}
    stuck = plan.concept(plan.walkthrough.concept)
    for path, concept, panel in plan.panels():
        # the walkthrough reads both variants of its concept's panels: each is that panel's
        for variant in ("without", "with") if concept is stuck else (panel.variant,):
            run = fields.panel_run(plan, concept, panel, variant)
            if run is not None:
                users.setdefault(run, []).append(path)
    traces: dict[str, Json] = {}
    problems: list[Violation] = []
    for run in needed_runs(plan):
        paths = users.get(run, [])
        if paths and all(p in broken for p in paths):
            continue
        where = [f"{p}.knobs" if run.knobs else f"{p}.scenario" for p in paths]
        try:
            saved = sim.trace_json.get(run.key) if sim is not None else None
            trace = dict(saved) if saved is not None else run_trace(run)
        except engine_errors as err:
            problems += [Violation(w, f"the simulator cannot run {run.key}: {err}") for w in where]
            continue
        unfinished = _never_finish(trace, run) if run.knobs and run.field == "serving" else []
        if unfinished:
            problems += [
                Violation(
                    w,
                    f"with these knobs {', '.join(unfinished)} never finish(es) in {run.key} (it "
                    "does without them): choose values the scenario can complete",
                )
                for w in where
            ]
            continue
        traces[run.key] = trace
    return traces, problems


def _never_finish(trace: Json, run: Run) -> list[str]:
    view = TraceView.from_json(trace)
    preset = TraceView.from_json(run_trace(Run(run.scenario, run.variant)))
    done = {rid for rid, r in preset.requests.items() if r.finish is not None}
    return sorted(rid for rid, r in view.requests.items() if rid in done and r.finish is None)
