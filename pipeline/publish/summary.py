"""The 5-8 bullets `tujie publish` prints about a page's structure (H6), generated from the plan
alone, top to bottom in page order, in the page's language, so they always describe what was
really published."""

from __future__ import annotations

from pipeline.plan.model import Plan

ARROW = " → "

# One template per bullet, per page language; fields are filled from the plan.
BULLETS: dict[str, list[str]] = {
    "zh": [
        "开头一句话结论：{takeaway}",
        "主线（{kind}）：{thread}",
        "出场角色，每张图都用同一组：{cast}",
        "{n_cards} 张两格漫画卡片（烦恼 → 办法），按依赖顺序：{cards}",
        "尺子：{n_metrics} 个指标画在一张图上（{metrics}），每招改善什么、牺牲什么",
        "零基础版：一步一步讲「{stuck}」，附不用 vs 用了的对比表",
        "学习路线：{n_route} 站（{route}），每站写为什么去、读多久、链接核实状态",
    ],
    "en": [
        "Opens with the takeaway: {takeaway}",
        "Main thread ({kind}): {thread}",
        "Cast legend used in every diagram: {cast}",
        "{n_cards} two-panel concept cards (trouble → fix) in dependency order: {cards}",
        "Ruler: {n_metrics} metrics on one chart ({metrics}), what each technique improves and "
        "sacrifices",
        "Zero-background walkthrough of {stuck}, step by step with a without/with table",
        "Learning route: {n_route} stops ({route}), each with why, how long, and its link status",
    ],
}
KINDS = {
    "zh": {"loop": "循环", "pipeline": "流水线", "tension": "核心矛盾"},
    "en": {"loop": "loop", "pipeline": "pipeline", "tension": "tension"},
}
SEPARATOR = {"zh": "、", "en": ", "}


def _cast(plan: Plan) -> str:
    """Group characters that share a role: "A、B、C = old requests; D = the newcomer"."""
    sep = SEPARATOR[plan.lang]
    roles: dict[str, list[str]] = {}
    for m in plan.cast:
        roles.setdefault(m.role, []).append(m.id)
    return "; ".join(f"{sep.join(ids)} = {role}" for role, ids in roles.items())


def page_bullets(plan: Plan) -> list[str]:
    """Seven bullets: takeaway, main thread, cast, cards, ruler, walkthrough, route."""
    sep = SEPARATOR[plan.lang]
    stuck = plan.concept(plan.walkthrough.concept)
    fields = {
        "takeaway": plan.takeaway,
        "kind": KINDS[plan.lang][plan.main_thread.kind],
        "thread": ARROW.join(s.label for s in plan.main_thread.stages),
        "cast": _cast(plan),
        "n_cards": len(plan.concepts),
        "cards": ARROW.join(c.name for c in plan.concepts),
        "n_metrics": len(plan.ruler.metrics),
        "metrics": sep.join(m.name for m in plan.ruler.metrics),
        "stuck": stuck.name if stuck else plan.walkthrough.concept,
        "n_route": len(plan.route),
        "route": "; ".join(stop.title for stop in plan.route),
    }
    return [template.format(**fields) for template in BULLETS[plan.lang]]
