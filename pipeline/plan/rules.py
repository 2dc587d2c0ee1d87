"""The page rules a plan must keep beyond its types: counts, H1 caption lengths after the
simulator's numbers are filled in, the backwards-only "solves the problem of" chain, sentence
limits, glossary coverage, and the source checks (quotes found, URLs from the sources, every
literal number inside a cited quote). Every violation carries its JSON path.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from pathlib import Path

from pipeline.artifacts.sources import Corpus, normalize_text
from pipeline.errors import PlanError, Violation
from pipeline.plan.catalogue import (
    DEFAULT_FIELD,
    GENERIC,
    GENERIC_ONE_IN,
    Catalogue,
    Catalogues,
    fmt,
    max_generic,
)
from pipeline.plan.model import MAX_BODY_SENTENCES, MAX_CAPTION, Panel, Plan
from pipeline.plan.placeholders import PLACEHOLDER, fill_placeholders, placeholders

MIN_CITED_ROWS = 2  # a ruler of cited rows (no sweep on the page) compares at least two
NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
SENTENCE_END = re.compile(r"[。！？!?]+|\.(?=\s|$)")


# ---------------------------------------------------------------------------------------------
# Text rules


def caption_length(text: str, lang: str) -> int:
    """H1's measure: Chinese counts every non-space character; English counts characters."""
    if lang == "zh":
        return len(re.sub(r"\s+", "", text))
    return len(text)


def count_sentences(text: str) -> int:
    parts = [p for p in SENTENCE_END.split(text.strip()) if p.strip()]
    return len(parts)


# Digits inside a name are part of the name (FP8, BF16, H100, Llama-3-8B, GPT-4, P99, V1; 1F1B;
# 3D parallelism): a word that starts with a Latin letter, that mixes digits and letters at
# least twice, or a dimension ("2D", "3D": a played model kept "3D parallelism" out of captions).
NAME_WITH_DIGITS = re.compile(
    r"(?<![A-Za-z0-9])(?:[A-Za-z][A-Za-z0-9]*(?:[-.][A-Za-z0-9]+)*"
    r"|\d+[A-Za-z]+\d+[A-Za-z0-9]*|\dD)(?![A-Za-z0-9])"
)


def numbers_in(text: str) -> list[str]:
    """Literal numbers of a text, ignoring placeholders (those are bound to the simulator) and
    the digits of names (`NAME_WITH_DIGITS`)."""
    return NUMBER.findall(NAME_WITH_DIGITS.sub(" ", PLACEHOLDER.sub(" ", text)))


# ---------------------------------------------------------------------------------------------
# Page rules

ValuesFor = Callable[[Panel], Mapping[str, str]]


def plan_violations(
    plan: Plan,
    corpus: Corpus | None = None,
    *,
    values_for: ValuesFor | None = None,
    scenario_ids: set[str] | None = None,
    catalogue: Catalogue | Catalogues | None = None,
) -> list[Violation]:
    """Every page rule the plan breaks. `corpus` enables the source checks (quotes, URLs,
    numbers); `values_for(panel)` fills caption placeholders so H1 is checked after filling;
    `scenario_ids` are the simulator scenarios a panel may name (default: the catalogue's);
    `catalogue` (`pipeline.plan.catalogue`) enables what it knows: which scene draws which
    scenario, the placeholders and knobs each scenario offers, the generic-panel limit, the
    sweep's techniques and the ruler's minimum rows."""
    out: list[Violation] = []
    out += _id_rules(plan)
    out += _chain_rules(plan)
    out += _panel_rules(plan, values_for, scenario_ids)
    out += _prose_rules(plan)
    out += _placeholder_rules(plan)
    out += _glossary_rules(plan)
    out += _abbreviation_rules(plan)
    if catalogue is not None:
        out += _catalogue_rules(plan, Catalogues.of(catalogue))
    if corpus is not None:
        out += _source_rules(plan, corpus)
    return out


def check_plan(
    plan: Plan,
    corpus: Corpus | None = None,
    *,
    file: str | Path | None = None,
    values_for: ValuesFor | None = None,
    scenario_ids: set[str] | None = None,
    catalogue: Catalogue | Catalogues | None = None,
) -> Plan:
    """Raise `PlanError` with every violation, or return the plan unchanged."""
    found = plan_violations(
        plan, corpus, values_for=values_for, scenario_ids=scenario_ids, catalogue=catalogue
    )
    if found:
        raise PlanError(file, found)
    return plan


def _duplicates(items: list[str]) -> set[str]:
    seen: set[str] = set()
    return {x for x in items if x in seen or seen.add(x)}  # type: ignore[func-returns-value]


def _id_rules(plan: Plan) -> list[Violation]:
    out = []
    for dup in sorted(_duplicates([c.id for c in plan.concepts])):
        i = [c.id for c in plan.concepts].index(dup)
        out.append(Violation(f"concepts[{i}].id", f"duplicate concept id '{dup}'"))
    for dup in sorted(_duplicates([m.id for m in plan.cast])):
        out.append(Violation("cast", f"duplicate cast id '{dup}'"))
    terms = [g.term for g in plan.glossary]
    for dup in sorted(_duplicates(terms)):
        out.append(Violation(f"glossary[{terms.index(dup)}].term", f"duplicate term '{dup}'"))
    if plan.walkthrough.concept not in {c.id for c in plan.concepts}:
        out.append(
            Violation("walkthrough.concept", f"unknown concept '{plan.walkthrough.concept}'")
        )
    techniques = [c.technique for c in plan.concepts if c.technique]
    for dup in sorted(_duplicates(techniques)):
        out.append(Violation("concepts", f"technique '{dup}' is claimed by two concepts"))
    return out


def _chain_rules(plan: Plan) -> list[Violation]:
    """P6: each concept fixes the problem of an EARLIER concept (the first fixes none)."""
    out = []
    index = {c.id: i for i, c in enumerate(plan.concepts)}
    for i, c in enumerate(plan.concepts):
        ref = c.solves_problem_of
        path = f"concepts[{i}].solves_problem_of"
        if i == 0:
            if ref is not None:
                out.append(Violation(path, "the first concept cannot fix an earlier one's problem"))
            continue
        if ref is None:
            out.append(Violation(path, "must name the earlier concept whose problem this fixes"))
        elif ref not in index:
            out.append(Violation(path, f"unknown concept '{ref}'"))
        elif index[ref] >= i:
            out.append(Violation(path, f"'{ref}' is not earlier: the chain must point backwards"))
    return out


def _panel_rules(
    plan: Plan, values_for: ValuesFor | None, scenario_ids: set[str] | None
) -> list[Violation]:
    out = []
    limit = MAX_CAPTION[plan.lang]
    cast_ids = {m.id for m in plan.cast}
    for path, _concept, panel in plan.panels():
        values = values_for(panel) if values_for and (panel.scenario or panel.example) else {}
        for field, text in [("caption", panel.caption), ("bubble", panel.bubble or "")]:
            if not text:
                continue
            for name in placeholders(text):
                if panel.scenario is None and not panel.example:
                    out.append(
                        Violation(f"{path}.{field}", f"placeholder {{{name}}} needs a scenario "
                                  "(or a worked example)")
                    )
                elif values_for is not None and name not in values:
                    out.append(Violation(f"{path}.{field}", f"unknown placeholder {{{name}}}"))
            filled = fill_placeholders(text, values)
            n = caption_length(filled, plan.lang)
            if n > limit:
                out.append(
                    Violation(
                        f"{path}.{field}", f"{n} characters after filling, limit {limit} (H1)"
                    )
                )
            if numbers_in(text):
                out.append(
                    Violation(
                        f"{path}.{field}",
                        "literal number in a caption: bind it to the simulator with a placeholder",
                    )
                )
        for j, label in enumerate(panel.labels):
            if caption_length(label, plan.lang) > limit:
                out.append(Violation(f"{path}.labels[{j}]", f"longer than {limit} characters"))
        if panel.scene != "generic" and panel.scenario is None and not panel.example:
            out.append(Violation(f"{path}.scenario", f"a '{panel.scene}' scene needs a scenario "
                                 "(a worked example for a general scene)"))
        if panel.scenario is not None:
            if scenario_ids is not None and panel.scenario not in scenario_ids:
                out.append(Violation(f"{path}.scenario", f"unknown scenario '{panel.scenario}'"))
            if panel.variant is None:
                out.append(Violation(f"{path}.variant", "name the variant: 'without' or 'with'"))
        for who in panel.focus:
            if who not in cast_ids:
                out.append(Violation(f"{path}.focus", f"'{who}' is not in the cast"))
    return out


def _catalogue_rules(plan: Plan, catalogues: Catalogues) -> list[Violation]:
    """What the registry says: each concept's field, scene x scenario pairs of that field,
    offered placeholders and knobs, the generic-panel limit, technique ids and the ruler's rows."""
    out: list[Violation] = []
    generic: list[str] = []
    panels = list(plan.panels())
    for i, concept in enumerate(plan.concepts):
        if catalogues.get(concept.field) is None:
            known = ", ".join(catalogues.by_field)
            out.append(Violation(f"concepts[{i}].field", f"unknown field '{concept.field}' "
                                 f"(known: {known})"))
    for path, concept, panel in panels:
        if panel.scene == GENERIC:
            generic.append(path)
        own = catalogues.get(concept.field)
        if own is not None:
            out += _field_fit(path, concept.field or DEFAULT_FIELD, panel, own, catalogues)
    allowed = max_generic(len(panels))
    for path in generic[allowed:]:
        out.append(
            Violation(
                f"{path}.scene",
                f"{len(generic)} of {len(panels)} panels are generic; at most {allowed} (one "
                f"in {GENERIC_ONE_IN}) may be: draw this one from a scenario",
            )
        )
    out += _card_knobs(plan, catalogues)
    out += _ruler_rules(plan, catalogues)
    return out


def _field_fit(
    path: str, field_id: str, panel: Panel, own: Catalogue, catalogues: Catalogues
) -> list[Violation]:
    """A panel of a concept of `field_id`: its scene is that field's (or generic) and its
    scenario is that field's; then the scenario's own rules (`_scenario_fit`)."""
    out: list[Violation] = []
    if panel.scene != GENERIC and panel.scene not in own.scene_shows:
        owner = catalogues.scene_owner(panel.scene)
        why = (
            f"the '{panel.scene}' scene is the {owner} field's, and this concept is a "
            f"{field_id} concept (its `field`)"
            if owner is not None
            else f"unknown scene kind '{panel.scene}'"
        )
        out.append(Violation(f"{path}.scene", f"{why}: the {field_id} field draws with "
                             f"{', '.join([*own.scene_shows, GENERIC])}"))
    if panel.scenario is not None and own.scenario(panel.scenario) is None:
        others = [f for f in catalogues.scenario_owners(panel.scenario) if f != field_id]
        if others:
            out.append(Violation(f"{path}.scenario", (
                f"scenario '{panel.scenario}' is the {others[0]} field's, and this concept is a "
                f"{field_id} concept: a scenario of one field is never drawn for another's "
                "(name the concept's `field`, or use a scenario of its own field)")))
        else:
            out.append(Violation(f"{path}.scenario", f"unknown scenario '{panel.scenario}' "
                                 f"(the {field_id} field's: {', '.join(own.scenarios)})"))
        return out
    return out + _scenario_fit(path, panel, own)


def _ruler_rules(plan: Plan, catalogues: Catalogues) -> list[Violation]:
    """Ruler rows: each technique is its concept's field's, each metric is measured by the
    sweep of every row's field, and there are enough rows."""
    out: list[Violation] = []
    rows = 0
    row_fields: set[str] = set()
    for i, c in enumerate(plan.concepts):
        if c.technique is None:
            continue
        own = catalogues.get(c.field)
        known = own.technique_ids() if own is not None else []
        if c.technique in known:
            rows += 1
            row_fields.add(c.field or DEFAULT_FIELD)
            continue
        others = [f for f, cat in catalogues.by_field.items() if c.technique in
                  cat.technique_ids()]
        if not known and not others:
            # A field without a sweep (general): its ruler rows are the cards' cited effects.
            out.append(Violation(
                f"concepts[{i}].technique",
                f"the {c.field or DEFAULT_FIELD} field measures no techniques: leave `technique` "
                "empty; the card's ruler row comes from its `effects`",
            ))
            continue
        why = (f"technique '{c.technique}' is the {others[0]} field's sweep's, and this is a "
               f"{c.field or DEFAULT_FIELD} concept" if others
               else f"unknown technique '{c.technique}'")
        out.append(Violation(f"concepts[{i}].technique", f"{why} (known: {', '.join(known)})"))
    for fid in sorted(row_fields):
        measured = catalogues.by_field[fid].ruler_metrics
        for j, metric in enumerate(plan.ruler.metrics):
            if measured and metric.id not in measured:
                out.append(
                    Violation(
                        f"ruler.metrics[{j}].id",
                        f"the {fid} sweep does not measure '{metric.id}' (it measures "
                        f"{', '.join(measured)})",
                    )
                )
    rows += sum(1 for c in plan.concepts if c.effects and not c.technique)
    # The techniques the page's own fields measure; a page of fields without an engine states
    # its rows' effects with citations instead (`effects`), and needs two of them.
    used = {c.field or DEFAULT_FIELD for c in plan.concepts}
    page = Catalogues({f: c for f, c in catalogues.by_field.items() if f in used})
    need = page.ruler_minimum() or MIN_CITED_ROWS
    if rows < need:
        offered = ", ".join(page.technique_ids())
        how = (f"set `technique` on {need} concepts that stand for a sweep technique ({offered})"
               if offered else
               f"give `effects` (each with its citation) on {need} cards that stand for a "
               "technique, their `technique` left empty")
        out.append(Violation("ruler", f"{rows} technique row(s), at least {need} needed: {how}"))
    return out


def _card_knobs(plan: Plan, catalogues: Catalogues) -> list[Violation]:
    """The two panels of a card that draw one scenario compare like with like: a knob that
    changes both variants has the same value on both panels (unset = the preset's)."""
    out = []
    for i, c in enumerate(plan.concepts):
        own = catalogues.get(c.field)
        entry = own.scenario(c.fix.scenario) if own is not None else None
        if entry is None or c.trouble.scenario != c.fix.scenario:
            continue
        trouble, fix = c.trouble.knob_values(), c.fix.knob_values()
        for name in sorted(set(trouble) | set(fix)):
            knob = entry.knob(name)
            if knob is None or len(knob.variants) < 2 or trouble.get(name) == fix.get(name):
                continue
            out.append(
                Violation(
                    f"concepts[{i}].trouble.knobs",
                    f"the trouble and fix panels draw '{entry.id}' with different '{name}' "
                    f"({fmt(trouble.get(name))} vs {fmt(fix.get(name))}, - = the preset's): "
                    "set the same knobs on both",
                )
            )
    return out


def _scenario_fit(path: str, panel: Panel, catalogue: Catalogue) -> list[Violation]:
    """One panel against its scenario's entry: the scene can draw it, its placeholders and its
    knobs are the scenario's own."""
    entry = catalogue.scenario(panel.scenario)
    out: list[Violation] = []
    if panel.knobs and panel.scenario is None:
        out.append(Violation(f"{path}.knobs", "knobs need a scenario"))
    if entry is None:
        return out
    if panel.scene != GENERIC and panel.scene not in entry.scenes:
        can = ", ".join(entry.scenes) or "none yet: use another scenario or a generic panel"
        out.append(
            Violation(
                f"{path}.scene",
                f"a '{panel.scene}' scene cannot draw scenario '{entry.id}' (drawn by: {can})",
            )
        )
    for field, text in [("caption", panel.caption), ("bubble", panel.bubble or "")]:
        for name in placeholders(text):
            if not entry.offers(name):
                some = ", ".join(f"{{{p.name}}}" for p in entry.placeholders[:6])
                out.append(
                    Violation(
                        f"{path}.{field}",
                        f"scenario '{entry.id}' offers no placeholder {{{name}}} (it offers "
                        f"{some}, …)",
                    )
                )
    seen: set[str] = set()
    for j, setting in enumerate(panel.knobs):
        knob = entry.knob(setting.name)
        where = f"{path}.knobs[{j}]"
        if knob is None:
            names = ", ".join(k.id for k in entry.knobs) or "none"
            out.append(
                Violation(
                    f"{where}.name",
                    f"scenario '{entry.id}' has no knob '{setting.name}' (its knobs: {names})",
                )
            )
            continue
        if setting.name in seen:
            out.append(Violation(f"{where}.name", f"knob '{setting.name}' is set twice"))
        seen.add(setting.name)
        problem = knob.problem(setting.value)
        if problem is not None:
            out.append(Violation(f"{where}.value", problem))
        if panel.variant is not None and panel.variant not in knob.variants:
            only = " and ".join(f"'{v}'" for v in knob.variants)
            out.append(
                Violation(
                    f"{where}.name",
                    f"knob '{knob.id}' changes only the {only} variant; this panel draws "
                    f"'{panel.variant}'",
                )
            )
    return out


# Only a panel's caption (and a bubble) is filled from its run; everything else is printed as
# written, so a placeholder there would reach the reader raw. Quotes are the sources' own text.
FILLED_FIELDS = frozenset({"caption", "bubble"})
AS_WRITTEN_SKIP = frozenset({"citations", "meta"})


def _placeholder_rules(plan: Plan) -> list[Violation]:
    """A `{name}` in any field the page prints that no scenario fills (takeaway, body, costs,
    glossary, route, ruler, labels, ...) is refused with its path."""
    out: list[Violation] = []
    stack: list[tuple[str, str, object]] = [("", "", plan.model_dump(mode="json"))]
    while stack:
        where, key, value = stack.pop()
        if isinstance(value, dict):
            in_panel = where.endswith((".trouble", ".fix"))
            for k, v in value.items():
                if k in AS_WRITTEN_SKIP or (in_panel and k in FILLED_FIELDS):
                    continue  # quotes are the sources' text; panel captions are checked above
                stack.append((f"{where}.{k}" if where else k, k, v))
        elif isinstance(value, list):
            stack += [(f"{where}[{i}]", key, v) for i, v in enumerate(value)]
        elif isinstance(value, str):
            for name in placeholders(value):
                out.append(
                    Violation(
                        where,
                        f"placeholder {{{name}}} in a field no scenario fills (only panel "
                        "captions get the simulator's numbers): say it in words here",
                    )
                )
    return sorted(out, key=lambda v: v.path)


# The reader told they are stuck (page.toml's `stuck` read back to them: readers took it for a
# production note, in route notes and walkthrough intros of four example plans).
STUCK_TALK = re.compile(r"\byou(?:'re| are)(?: still)? stuck\b|where you(?:'re| are) stuck|你卡住",
                        re.IGNORECASE)


def _prose_rules(plan: Plan) -> list[Violation]:
    out = []
    if count_sentences(plan.takeaway) != 1:
        out.append(Violation("takeaway", "must be exactly one sentence (P2)"))
    if count_sentences(plan.main_thread.sentence) != 1:
        out.append(Violation("main_thread.sentence", "must be exactly one sentence (P4)"))
    for i, c in enumerate(plan.concepts):
        n = count_sentences(c.body)
        if n > MAX_BODY_SENTENCES:
            out.append(
                Violation(
                    f"concepts[{i}].body", f"{n} sentences, at most {MAX_BODY_SENTENCES} (P3)"
                )
            )
        for field in ("solves", "costs"):
            if "\n" in getattr(c, field):
                out.append(Violation(f"concepts[{i}].{field}", "must be a single line (P7)"))
    for path, text in reader_prose(plan):
        if STUCK_TALK.search(text):
            out.append(Violation(path, (
                "tells the reader they are stuck: page.toml's `stuck` picks the walkthrough, "
                "it is not news for the reader; say what the stop or section offers")))
    return out


def _glossary_rules(plan: Plan) -> list[Violation]:
    out = []
    terms = {g.term for g in plan.glossary}
    for i, g in enumerate(plan.glossary):
        if count_sentences(g.definition) != 1:
            out.append(Violation(f"glossary[{i}].definition", "must be one sentence (P1)"))
    for i, c in enumerate(plan.concepts):
        for t in c.terms:
            if t not in terms:
                out.append(Violation(f"concepts[{i}].terms", f"'{t}' has no glossary entry"))
    return out


# An abbreviation a reader with no background cannot expand (TP, PP, MSE): letters only, so
# model and chip names with digits (H100, L1, V1) are not asked for; units, company names and
# the few a reader knows from using a computer need no entry either.
ABBREVIATION = re.compile(r"(?<![\w-])([A-Z]{2,6})s?(?![\w-]|'\d)")  # not SC'21, a venue
MODEL_NAME_BEFORE = re.compile(r"[A-Za-z][\w.]*-?\d[\w.]*\s$")  # "GPT-2 " before "XL"
KNOWN_ABBREVIATIONS = frozenset({"GPU", "CPU", "RAM", "AI", "PC", "OK", "ID", "URL", "USB", "KB",
                                 "MB", "GB", "TB", "PB", "NVIDIA", "AMD", "IBM"})


def reader_prose(plan: Plan) -> list[tuple[str, str]]:
    """(JSON path, text) of every sentence and label a reader meets on the page."""
    out = [("title", plan.title), ("takeaway", plan.takeaway),
           ("main_thread.sentence", plan.main_thread.sentence)]
    for k, st in enumerate(plan.main_thread.stages):
        out += [(f"main_thread.stages[{k}].label", st.label),
                (f"main_thread.stages[{k}].detail", st.detail)]
    for i, c in enumerate(plan.concepts):
        p = f"concepts[{i}]"
        out += [(f"{p}.{f}", getattr(c, f)) for f in ("name", "body", "solves", "costs",
                                                      "problem_left")]
        for side in ("trouble", "fix"):
            panel = getattr(c, side)
            out += [(f"{p}.{side}.caption", panel.caption), (f"{p}.{side}.bubble",
                                                             panel.bubble or "")]
            out += [(f"{p}.{side}.labels[{k}]", t) for k, t in enumerate(panel.labels)]
    out += [(f"glossary[{i}].definition", g.definition) for i, g in enumerate(plan.glossary)]
    out += [(f"route[{k}].why", s.why) for k, s in enumerate(plan.route)]
    out += [("walkthrough.intro", plan.walkthrough.intro), ("ruler.sentence", plan.ruler.sentence)]
    return out


def _abbreviation_rules(plan: Plan) -> list[Violation]:
    """Every abbreviation the page uses is in the glossary (as a term or an alias, or inside a
    term such as "TP (tensor parallelism)") or spelled out once in place, "tensor parallelism
    (TP)": a reader met TP, PP and MSE with no way to expand them."""
    known = " ".join([g.term for g in plan.glossary]
                     + [a for g in plan.glossary for a in g.aliases])
    prose = reader_prose(plan)
    told = " ".join(text for _, text in prose)
    out, seen = [], set()
    for path, text in prose:
        for match in ABBREVIATION.finditer(text):
            abbr = match.group(1)
            if abbr in seen or abbr in KNOWN_ABBREVIATIONS:
                continue
            if MODEL_NAME_BEFORE.search(text[: match.start()]):
                continue  # a size in a model's name, "GPT-2 XL", "T5 XXL": part of the name
            seen.add(abbr)
            if re.search(rf"(?<![\w-]){abbr}s?(?![\w-])", known) or f"({abbr})" in told:
                continue
            out.append(Violation(path, f"'{abbr}' is an abbreviation the page never explains: "
                                       f"give it a glossary entry (or an alias of one), or write "
                                       f"it out once as 'words ({abbr})'"))
    return out


def _source_rules(plan: Plan, corpus: Corpus) -> list[Violation]:
    out = []
    all_quotes: list[str] = []
    for i, c in enumerate(plan.concepts):
        for j, cit in enumerate(c.citations):
            path = f"concepts[{i}].citations[{j}]"
            if corpus.source(cit.source) is None:
                out.append(Violation(f"{path}.source", f"unknown source '{cit.source}'"))
            elif corpus.find_quote(cit.source, cit.quote) is None:
                out.append(Violation(f"{path}.quote", f"not found in source '{cit.source}'"))
            else:
                all_quotes.append(cit.quote)
    for k, stop in enumerate(plan.route):
        if not corpus.has_url(stop.url):
            out.append(Violation(f"route[{k}].url", f"not from the sources: {stop.url}"))
    everything = normalize_text(" ".join(all_quotes))
    for i, c in enumerate(plan.concepts):
        mine = normalize_text(" ".join(q.quote for q in c.citations if q.quote in all_quotes))
        for field in ("body", "solves", "costs", "problem_left"):
            for num in numbers_in(getattr(c, field)):
                if num not in mine:
                    out.append(
                        Violation(
                            f"concepts[{i}].{field}", f"number {num} is in no cited quote (H5)"
                        )
                    )
    # the page-level prose (the cards' fields are checked against their own quotes above)
    page_level = ("takeaway", "main_thread.sentence", "glossary[", "route[", "walkthrough.intro",
                  "ruler.sentence")
    page_fields = [(path, text) for path, text in reader_prose(plan)
                   if path.startswith(page_level)]
    for path, text in page_fields:
        for num in numbers_in(text):
            if num not in everything:
                out.append(Violation(path, f"number {num} is in no cited quote (H5)"))
    return out
