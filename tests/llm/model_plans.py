"""Plans written the way a careful model answers tujie's prompt, from the registry the prompt is
generated from: every scene kind over the cards, captions written up to the limit with the
placeholder whose filled value is the longest, every ruler metric id over the set, tree-shaped
dependencies, Chinese and English. `model_answer` builds one deterministically; `model_answers`
is the hypothesis strategy over the same registry (its draws also break rules on purpose now and
then: a caption one character over, a knob out of range, a scene that cannot draw the scenario).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from pipeline.artifacts.sim import SweepView
from pipeline.artifacts.sources import Corpus
from pipeline.draw.ruler_rows import verdict
from pipeline.plan.catalogue import Catalogue, ScenarioEntry
from pipeline.plan.model import MAX_CAPTION
from pipeline.plan.placeholders import fill_placeholders
from pipeline.simulate.results import sweep_json

# The card a technique stands for draws this scenario (the sweep's technique ids).
TECHNIQUE_SCENARIO = {
    "continuous_batching": "batching",
    "paged_kv": "kv_alloc",
    "chunked_prefill": "chunked_prefill",
    "prefix_caching": "prefix_cache",
    "token_budget": "admission",
    "spec_decode": "spec_decode",
    "fp8_kv": "fp8_kv",
    "tensor_parallel": "tensor_parallel",
    "disaggregation": "disaggregation",
}
METRIC_NAMES = {
    "zh": {"throughput": "吞吐", "ttft": "首字延迟", "itl": "出字间隔", "tpot": "每字用时",
           "e2el": "总等待"},
    "en": {"throughput": "throughput", "ttft": "TTFT", "itl": "ITL", "tpot": "TPOT",
           "e2el": "E2E latency"},
}
BETTER = {"throughput": "higher"}
FILLER = {"zh": "等了好久才轮到它上场真急人", "en": "the newcomer waits in line for its turn "}
WORDS = {
    "zh": {"name": "概念", "problem": "还留下一个新麻烦", "body": "它让主循环更顺。它也有代价。",
           "solves": "少等一会儿", "costs": "多占一点显存", "role_old": "已在写回答的老请求",
           "role_new": "刚到的新请求", "sentence": "调度器每一步挑请求、拼批、算一步。",
           "takeaway": "推理服务是一个不停转动的调度循环。", "why": "把主线讲清楚",
           "ruler": "每个办法都在几个指标之间取舍。", "intro": "一步一步看它怎么走。",
           "stages": ["排队", "挑人", "算一步", "离场"], "title": "推理服务图解",
           "term": "调度器", "definition": "决定每一步谁上场的程序。",
           "llm": "大语言模型：一次写出一个 token 的模型。"},
    "en": {"name": "Concept", "problem": "and a new problem shows", "body": "It keeps the "
           "loop moving. It has a price.", "solves": "less waiting", "costs": "more memory",
           "role_old": "an old request", "role_new": "a new request",
           "sentence": "Every step the scheduler picks requests and runs one step.",
           "takeaway": "Serving is one scheduling loop that never stops.", "why": "the loop",
           "ruler": "Each technique trades one metric against another.",
           "intro": "Step by step, what happens.", "stages": ["queue", "pick", "step", "leave"],
           "title": "LLM serving in pictures", "term": "scheduler",
           "definition": "The program that decides who runs in each step.",
           "llm": "A large language model, which writes one token at a time."},
}


@dataclass(frozen=True)
class Card:
    """One card as the model chooses it: a scenario, the scene of each panel, a technique."""

    scenario: str
    scenes: tuple[str, str]
    technique: str | None = None
    over: int = 0  # characters a caption goes past the limit (a rule the loop must send back)


def helps(technique: str | None, metrics: list[str]) -> bool:
    """Whether the sweep measures `technique` improving one of `metrics` (the statistic its row
    shows): the prompt gives each technique's measured changes, so a careful model does not make
    a ruler row of a technique that would only lose there (a bigger token budget on a TPOT and
    E2E ruler)."""
    tech = SweepView.from_json(sweep_json()).technique(technique) if technique else None
    return tech is not None and any(
        (pct := tech.shown_pct(m)) is not None and verdict(pct, BETTER.get(m, "lower")) == "better"
        for m in metrics)


def _longest(entry: ScenarioEntry, variant: str) -> tuple[str, str] | None:
    """The placeholder whose value in `variant` is the longest (and its value)."""
    column = "with_" if variant == "with" else "without"
    offered = [(p.name, v) for p in entry.placeholders if (v := getattr(p, column)) is not None]
    return max(offered, key=lambda nv: (len(nv[1]), nv[0]), default=None)


def caption_at_limit(entry: ScenarioEntry, variant: str, lang: str, over: int = 0) -> str:
    """Words, then the longest placeholder, filled to exactly the H1 limit (+ `over`)."""
    limit = MAX_CAPTION[lang] + over
    pick = _longest(entry, variant)
    tail = f" {{{pick[0]}}}" if pick else ""
    value = len(fill_placeholders(tail, {pick[0]: pick[1]})) if pick else 0
    if lang == "zh":
        value -= tail.count(" ")
    room = max(1, limit - value)
    filler = (FILLER[lang] * 4)[:room].rstrip()
    while lang == "en" and len(filler) < room:
        filler += "."
    return filler + tail


def tree_parent(i: int) -> int | None:
    """Card i fixes the problem of card (i-1)//2: two later cards per earlier one, a tree."""
    return None if i == 0 else (i - 1) // 2


def model_answer(
    corpus: Corpus,
    catalogue: Catalogue,
    lang: str,
    cards: list[Card],
    metrics: list[str],
    stuck: str | None = None,
) -> dict[str, Any]:
    """The plan a careful model writes for `corpus` with these cards (tool input: no meta).
    `stuck` is the concept id the task names (page.toml's): the card drawing the scenario of
    that name gets that id and is the walkthrough's."""
    words = WORDS[lang]
    ids = [stuck if stuck == c.scenario else f"c{i}_{c.scenario}" for i, c in enumerate(cards)]
    quotes = [
        (s.id, p.text[:120]) for s in corpus.sources for p in s.paragraphs if len(p.text) > 40
    ]
    concepts = []
    for i, card in enumerate(cards):
        entry = catalogue.scenarios[card.scenario]
        panels = {}
        for side, variant, scene in (("trouble", "without", card.scenes[0]),
                                     ("fix", "with", card.scenes[1])):
            panels[side] = {
                "scene": scene,
                "scenario": card.scenario,
                "variant": variant,
                "caption": caption_at_limit(entry, variant, lang, card.over if side == "fix"
                                            else 0),
                "focus": ["D"],
            }
        source, quote = quotes[i % len(quotes)]
        parent = tree_parent(i)
        concepts.append(
            {
                "id": ids[i],
                "name": f"{words['name']}{chr(65 + i)}",
                "name_en": f"Concept {chr(65 + i)}",
                "solves_problem_of": None if parent is None else ids[parent],
                "problem_left": words["problem"],
                "body": words["body"],
                "trouble": panels["trouble"],
                "fix": panels["fix"],
                "solves": words["solves"],
                "costs": words["costs"],
                "terms": [words["term"]] if i == 0 else [],
                "citations": [{"source": source, "quote": quote}],
                "technique": card.technique if helps(card.technique, metrics) else None,
            }
        )
    urls = [e.url for e in corpus.reading_list][:3] or [s.url for s in corpus.sources if s.url][:3]
    return {
        "lang": lang,
        "title": words["title"],
        "takeaway": words["takeaway"],
        "main_thread": {"sentence": words["sentence"], "kind": "loop",
                        "stages": [{"label": label} for label in words["stages"]]},
        "cast": [{"id": rid, "role": words["role_old"]} for rid in "ABC"]
        + [{"id": "D", "role": words["role_new"], "state": "new"}],
        "glossary": [{"term": words["term"], "definition": words["definition"]},
                     {"term": "LLM", "definition": words["llm"]}],
        "concepts": concepts,
        "ruler": {
            "sentence": words["ruler"],
            "metrics": [
                {"id": m, "name": METRIC_NAMES[lang][m], "better": BETTER.get(m, "lower"),
                 "definition": METRIC_NAMES[lang][m]}
                for m in metrics
            ],
        },
        "walkthrough": {"concept": stuck if stuck in ids else ids[-1], "intro": words["intro"]},
        "route": [{"title": f"{words['name']} {k}", "url": u, "why": words["why"]}
                  for k, u in enumerate(urls, 1)],
    }


def every_scene_plans(catalogue: Catalogue) -> list[list[Card]]:
    """Card lists (8-13 cards each) that together draw every scene kind but `generic`, each
    panel from a scenario it draws; the techniques' cards first (each standing for its
    technique), so every list has ruler rows."""
    cards: list[Card] = []
    unseen = {s for e in catalogue.scenarios.values() for s in e.scenes}
    for tid, sid in TECHNIQUE_SCENARIO.items():
        scenes = catalogue.scenarios[sid].scenes
        pick = sorted(scenes, key=lambda s: (s not in unseen, s))
        cards.append(Card(sid, (pick[0], pick[1] if len(pick) > 1 else pick[0]), tid))
        unseen -= set(cards[-1].scenes)
    techniques = len(cards)
    for sid, entry in catalogue.scenarios.items():
        for scene in sorted(set(entry.scenes) & unseen):
            cards.append(Card(sid, (scene, scene)))
            unseen.discard(scene)
    plans = [cards[:MAX_CARDS]]
    rest = cards[MAX_CARDS:]
    if rest:
        plans.append(rest + cards[: max(0, MIN_CARDS - len(rest))][:techniques])
    return plans


MIN_CARDS, MAX_CARDS = 8, 13


BREAKS = ("caption one over", "scene that cannot draw", "too few ruler rows")


@st.composite
def model_answers(
    draw: st.DrawFn, corpus: Corpus, catalogue: Catalogue, lang: str
) -> dict[str, Any]:
    """A model's answer over the registry: 8-13 cards on drawable scenario/scene pairs, at
    least three of them standing for a sweep technique, captions at the limit; one draw in four
    breaks one rule (`BREAKS`) the way a model slips, for the repair loop to send back."""
    n = draw(st.integers(8, 13))
    slip = draw(st.sampled_from(BREAKS)) if draw(st.integers(0, 3)) == 0 else None
    techniques = draw(st.lists(st.sampled_from(sorted(TECHNIQUE_SCENARIO)), min_size=3,
                               max_size=min(n, len(TECHNIQUE_SCENARIO)), unique=True))
    if slip == "too few ruler rows":
        techniques = techniques[:2]
    cards = []
    for i in range(n):
        tid = techniques[i] if i < len(techniques) else None
        sid = TECHNIQUE_SCENARIO[tid] if tid else draw(st.sampled_from(sorted(catalogue.scenarios)))
        scenes = catalogue.scenarios[sid].scenes
        pair = (draw(st.sampled_from(scenes)), draw(st.sampled_from(scenes)))
        cards.append(Card(sid, pair, tid))
    order = draw(st.permutations(range(n)))
    cards = [cards[k] for k in order]
    if slip is not None and slip != "too few ruler rows":
        k = draw(st.integers(0, n - 1))
        card = cards[k]
        if slip == "caption one over":
            cards[k] = Card(card.scenario, card.scenes, card.technique, over=1)
        else:
            wrong = sorted({s for e in catalogue.scenarios.values() for s in e.scenes}
                           - set(catalogue.scenarios[card.scenario].scenes))
            cards[k] = Card(card.scenario, (card.scenes[0], draw(st.sampled_from(wrong))),
                            card.technique)
    metrics = draw(st.lists(st.sampled_from(list(METRIC_NAMES[lang])), min_size=2, max_size=3,
                            unique=True))
    return model_answer(corpus, catalogue, lang, cards, metrics)
