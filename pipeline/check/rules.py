"""The page rules of the browser check, as pure functions over one `Measurement`.

Each rule turns what `pipeline.check.browser` collected (boxes in page CSS px, fonts, axe, requests,
console) into `Problem`s; `pipeline.check.run` runs them for every theme and width and reports.
"""

from __future__ import annotations

from collections.abc import Iterator

from pipeline.artifacts.check import Box, Problem
from pipeline.check.measurement import Measurement
from pipeline.fonts import HAND_EN, HAND_ZH
from pipeline.plan.model import MAX_BODY_SENTENCES
from pipeline.plan.rules import caption_length, count_sentences

OVERLAP_TOLERANCE_PX = 1.0  # two text boxes must overlap by more than this in both axes
INSET_TOLERANCE_PX = 0.5  # sub-pixel rounding of getBBox/getScreenCTM
CARD_MARGIN_PX = 4.0  # "crosses or touches": text must keep this far inside its card's box
SCROLL_TOLERANCE_PX = 1

# Layout rules the fix loop may repair by re-rendering (move to data-alt, shrink to data-floor).
LAYOUT_RULES = ("text-overlap", "text-crosses-border")
# Rules whose outcome does not depend on theme or width: reported once.
CONTENT_RULES = ("caption-too-long", "too-many-sentences", "diagram-missing-title")


def _intersection(a: Box, b: Box) -> tuple[float, float]:
    w = min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0])
    h = min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1])
    return w, h


def _inside(box: Box, frame: Box, margin: float) -> bool:
    return (
        box[0] >= frame[0] + margin
        and box[1] >= frame[1] + margin
        and box[0] + box[2] <= frame[0] + frame[2] - margin
        and box[1] + box[3] <= frame[1] + frame[3] - margin
    )


def _frame_boxes(a: dict, b: dict, box_a: Box, box_b: Box) -> tuple[Box, Box]:
    """The boxes to compare: two texts of one SVG in that SVG's own unrotated frame (a card's
    slight rotation makes a long text's page box taller than the text), else the page boxes."""
    if a.get("svg") and a.get("svg") == b.get("svg") and a.get("local") and b.get("local"):
        return a["local"], b["local"]
    return box_a, box_b


def text_overlaps(m: Measurement) -> Iterator[Problem]:
    """H2: no text box overlaps another element's text box (sweep over boxes sorted by top)."""
    items = sorted(
        ((box, t) for t in m.probe.get("texts", []) for box in t["boxes"]),
        key=lambda item: (item[0][1], item[0][0], item[1]["id"]),
    )
    reported: set[tuple[str, str]] = set()
    for i, (box, text) in enumerate(items):
        bottom = box[1] + box[3]
        for other_box, other in items[i + 1 :]:
            if other_box[1] >= bottom - OVERLAP_TOLERANCE_PX:
                break
            if other["owner"] == text["owner"]:
                continue
            w, h = _intersection(*_frame_boxes(text, other, box, other_box))
            if w <= OVERLAP_TOLERANCE_PX or h <= OVERLAP_TOLERANCE_PX:
                continue
            first, second = sorted([text["id"], other["id"]])
            if (first, second) in reported:
                continue
            reported.add((first, second))
            a, b = (text, other) if text["id"] == first else (other, text)
            yield Problem(
                "text-overlap", a["id"],
                f"text '{a['text']}' overlaps '{b['text']}' ({b['id']}) by {w:.0f}x{h:.0f} px",
                m.theme, m.width, a.get("card"), a.get("panel"),
                [box, other_box] if a is text else [other_box, box], b["id"],
            )  # fmt: skip


def text_crossings(m: Measurement) -> Iterator[Problem]:
    """H2: SVG text stays inside its panel's inset; any text in a card keeps off the card edge."""
    insets = {p["panel"]: p for p in m.probe.get("panels", [])}
    cards = {c["card"]: c["box"] for c in m.probe.get("cards", [])}
    for text in m.probe.get("texts", []):
        frame, what, margin = None, "", 0.0
        boxes = text["boxes"]
        if text["kind"] == "svg" and text.get("panel") in insets:
            panel = insets[text["panel"]]
            frame, what, margin = panel["inset"], f"panel {text['panel']} inset", -INSET_TOLERANCE_PX
            if text.get("local") and panel.get("local_inset"):
                # both in the panel's own frame: the card's rotation tilts them together
                frame, boxes = panel["local_inset"], [text["local"]]
        elif text.get("card") in cards:
            frame, what, margin = cards[text["card"]], f"card {text['card']} border", CARD_MARGIN_PX
        if frame is None:
            continue
        if any(not _inside(box, frame, margin) for box in boxes):
            # reported in page px, where the outlines are drawn
            page_frame = insets[text["panel"]]["inset"] if what.startswith("panel") else frame
            bad = [box for box in text["boxes"] if not _inside(box, page_frame, margin)]
            yield Problem(
                "text-crosses-border", text["id"],
                f"text '{text['text']}' crosses or touches the {what}",
                m.theme, m.width, text.get("card"), text.get("panel"),
                [*(bad or text["boxes"]), page_frame],
            )  # fmt: skip


def long_captions(m: Measurement, lang: str) -> Iterator[Problem]:
    """H1: a caption has at most `data-limit` characters (15 zh, 40 en)."""
    for cap in m.probe.get("captions", []):
        n = caption_length(cap["text"], lang)
        if n > cap["limit"]:
            yield Problem(
                "caption-too-long", cap["id"],
                f"caption '{cap['text']}' has {n} characters, limit {cap['limit']}",
                m.theme, m.width, cap.get("card"), cap.get("panel"), [cap["box"]],
            )  # fmt: skip


def long_bodies(m: Measurement) -> Iterator[Problem]:
    """P3: each p.body has at most 4 sentences."""
    for body in m.probe.get("bodies", []):
        n = count_sentences(body["text"])
        if n > MAX_BODY_SENTENCES:
            yield Problem(
                "too-many-sentences", body["id"],
                f"body text has {n} sentences, at most {MAX_BODY_SENTENCES}",
                m.theme, m.width, body.get("card"), None, [body["box"]],
            )  # fmt: skip


def overflow(m: Measurement) -> Iterator[Problem]:
    """The page never scrolls sideways, and no element sticks out of the viewport."""
    viewport = m.probe.get("viewport", {}).get("width", m.width)
    scroll = m.probe.get("scrollWidth", viewport)
    if scroll > viewport + SCROLL_TOLERANCE_PX:
        yield Problem(
            "horizontal-scroll", "document",
            f"the page is {scroll} px wide in a {viewport} px viewport",
            m.theme, m.width, boxes=[[viewport, 0, scroll - viewport, 1]],
        )  # fmt: skip
    for item in m.probe.get("outside", []):
        yield Problem(
            "outside-viewport", item["id"],
            f"element extends beyond the {viewport} px viewport",
            m.theme, m.width, item.get("card"), item.get("panel"), [item["box"]],
        )  # fmt: skip


def _family(name: str) -> str:
    return "".join(name.lower().split())


def font_fallbacks(m: Measurement) -> Iterator[Problem]:
    """P16: text with `data-font` (or an SVG text under a `font-family` group) renders all its
    glyphs in that font (no fallback); the Chinese hand's Latin face is the English hand's
    glyphs (`fonts.draws_with`)."""
    for target in m.probe.get("fontTargets", []):
        used = m.fonts.get(target["id"])
        if used is None:
            continue
        wanted = {_family(target["font"])}
        if target["font"] == HAND_ZH:
            wanted.add(_family(HAND_EN))
        others = [f for f in used if _family(f["family"]) not in wanted and f["glyphs"] > 0]
        if others:
            names = ", ".join(f"{f['family']} ({f['glyphs']} glyphs)" for f in others)
            yield Problem(
                "font-fallback", target["id"],
                f"meant to render in {target['font']} but used {names}",
                m.theme, m.width, target.get("card"), target.get("panel"), [target["box"]],
            )  # fmt: skip


def diagram_titles(m: Measurement) -> Iterator[Problem]:
    for svg in m.probe.get("diagrams", []):
        yield Problem(
            "diagram-missing-title", svg["id"],
            "diagram is not accessible: " + ", ".join(svg["problems"]),
            m.theme, m.width, svg.get("card"), svg.get("panel"), [svg["box"]],
        )  # fmt: skip


def page_behaviour(m: Measurement) -> Iterator[Problem]:
    """The page makes no network request, logs no console error, and passes axe."""
    for url in m.requests:
        yield Problem(
            "network-request", url,
            f"the page requested {url}; inline it (the page must be self-contained)",
            m.theme, m.width,
        )  # fmt: skip
    for text in m.console_errors:
        yield Problem("console-error", "console", text, m.theme, m.width)
    for violation in m.axe:
        for node in violation["nodes"]:
            target = " ".join(node["target"]) or "document"
            yield Problem(
                "axe", target,
                f"{violation['id']} ({violation['impact']}): {violation['help']}",
                m.theme, m.width, boxes=[node["box"]] if node.get("box") else [],
            )  # fmt: skip


def all_problems(m: Measurement, lang: str) -> list[Problem]:
    """Every rule over one measurement, in a stable order."""
    found = [
        *text_overlaps(m), *text_crossings(m), *long_captions(m, lang), *long_bodies(m),
        *overflow(m), *font_fallbacks(m), *diagram_titles(m), *page_behaviour(m),
    ]  # fmt: skip
    return sorted(found, key=Problem.sort_key)
