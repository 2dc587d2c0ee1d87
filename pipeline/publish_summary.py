"""The 5-8 bullets `tujie publish` prints about a page's structure (H6), generated from the plan
alone, top to bottom in page order, so they always describe what was really published."""

from __future__ import annotations

from pipeline.plan import Plan

MAX_LISTED_CONCEPTS = 13  # every card fits on one bullet line (the plan allows at most 13)
ARROW = " → "


def page_bullets(plan: Plan) -> list[str]:
    """Seven bullets: takeaway, main thread, cast, cards, ruler, walkthrough, route."""
    thread = ARROW.join(s.label for s in plan.main_thread.stages)
    cast = ", ".join(f"{m.id} = {m.role}" for m in plan.cast)
    cards = ARROW.join(c.name for c in plan.concepts[:MAX_LISTED_CONCEPTS])
    metrics = ", ".join(m.name for m in plan.ruler.metrics)
    stuck = plan.concept(plan.walkthrough.concept)
    stuck_name = stuck.name if stuck else plan.walkthrough.concept
    route = "; ".join(stop.title for stop in plan.route)
    return [
        f"Opens with the takeaway: {plan.takeaway}",
        f"Main thread ({plan.main_thread.kind}): {thread}",
        f"Cast legend used in every diagram: {cast}",
        f"{len(plan.concepts)} two-panel concept cards (trouble → fix) in dependency order: {cards}",
        f"Ruler: {len(plan.ruler.metrics)} metrics on one chart ({metrics}), what each technique "
        "improves and sacrifices",
        f"Zero-background walkthrough of {stuck_name}, step by step with a comparison table",
        f"Learning route: {len(plan.route)} stops ({route})",
    ]
