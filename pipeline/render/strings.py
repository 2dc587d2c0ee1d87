"""The page's own words (section titles, panel labels, stamps, notes) in each page language.

Plan text comes from the plan; everything the renderer itself writes comes from here, so an
English page never shows a Chinese label and a missing label is a KeyError at build time.
"""

from __future__ import annotations

from collections.abc import Mapping

# The footer's note on the tags, with the page's simulator named by its field (`simulator_note`).
NOTE_ON_TAGS = {
    "zh": "标着“示意值”的图和表，数字都来自随页附带的{simulator}的小算例，便于手算核对，不是真实测量；"
          "标着“模拟值”的尺子，数字来自模拟器在表下列出的负载上的运行，也不是真实测量。",
    "en": "Diagrams and tables tagged “illustrative” take their numbers from small runs of the "
          "bundled {simulator}, small enough to check by hand; they are not measurements. The "
          "ruler tagged “simulated” takes its numbers from simulator runs on the workloads "
          "listed under it; they are not measurements either.",
}
UI_STRINGS: Mapping[str, Mapping[str, str]] = {
    "zh": {
        "takeaway": "一句话结论",
        "main_thread": "主线",
        "main_thread_sub": "一切都绕着这个循环转",
        "main_thread_sub_pipeline": "每件事都沿着这条线一站一站往下走",
        "main_thread_sub_tension": "每一招都在这两头之间权衡",
        "cast": "出场角色",
        "cards": "概念卡片",
        "ruler": "尺子",
        "ruler_sub": "每招改善什么、牺牲什么",
        "ruler_legend": "每一行是一招对比它自己的基线、在它起作用的负载上（见表下）：看它让哪项指标变好、哪项变差（数值来自模拟器）；行与行的基线不同，百分比不能互相比。",
        "walkthrough": "零基础版",
        "walk_step": "第 {n} 步",
        "walk_table": "不用 vs 用了 {name}",
        "walk_metric": "指标",
        "walk_without": "不用",
        "walk_with": "用了",
        "route": "学习路线",
        "route_rule": "用时按原文篇幅估算：中文每分钟 {zh_rate} 字，英文每分钟 {en_rate} 词。",
        "route_rule_zh": "用时按原文篇幅估算：每分钟 {zh_rate} 字。",
        "route_rule_en": "用时按原文篇幅估算：英文每分钟 {en_rate} 词。",
        "route_minutes": "约 {m} 分钟",
        "route_unknown": "时长未知：读不到原文字数",
        "route_unchecked_all": "做这一页时没能核对这些链接，可能有打不开的。",
        "route_unchecked_some": "其中 {n} 个链接做这一页时没能核对，可能打不开。",
        "route_verified": "已核实 {date}",
        "route_bad": "链接有问题",
        "footer": "出处与说明",
        "sources": "参考资料",
        "glossary": "词汇表",
        "glossary_index": "每个词的定义写在它第一次出现的地方；点词跳过去，悬停或聚焦可直接看。",
        "fonts": "字体与许可",
        "fonts_note": "手写字体按页面用到的字形裁剪后嵌入，遵循 SIL Open Font License 1.1：",
        "illustrative": "示意值",
        "illustrative_note": NOTE_ON_TAGS["zh"].format(simulator="模拟器"),
        "build": "构建信息",
        "about": "关于本页（字体许可与构建信息）",
        "trouble": "烦恼",
        "fix": "办法",
        "solves": "解决了：",
        "costs": "代价：",
        "prev_problem": "← 上一张留下的麻烦：",
        "prev_problem_n": "← 第 {n} 张留下的麻烦：",
        "first_card": "从这里开始",
        "new_terms": "新词",
        "stamp_unmarked": "未标记",
        "stamp_learned": "已学",
        "stamp_review": "补一下",
        "stamp_next": "下一站",
        "stamp_label": "学习进度：{state}（点一下切换）",
        "theme_toggle": "切换白天/黑板主题",
        "glossary_hint": "点一下带下划线的词，看它的一句话定义。",
        "stamp_hint": "卡片右上角的印章记你的学习进度：点一下可以标成已学、补一下或下一站，标记只留在这个浏览器里。",
        "skip": "跳到卡片",
        "no_sources": "（没有带网址的资料）",
        "separator": "、",
        "colon": "：",
    },
    "en": {
        "takeaway": "The one-sentence takeaway",
        "main_thread": "The big picture",
        "main_thread_sub": "everything turns around this loop",
        "main_thread_sub_pipeline": "everything passes these stages, one after another",
        "main_thread_sub_tension": "every idea weighs these two sides against each other",
        "cast": "The cast",
        "cards": "Concept cards",
        "ruler": "The ruler",
        "ruler_sub": "what each trick improves, what it sacrifices",
        "ruler_legend": "Each row is one trick against its own baseline, on a load where it "
        "matters (listed below the chart): which metric gets better, which gets worse (values "
        "from the simulator); rows have different baselines, so their percentages do not compare "
        "with each other.",
        "walkthrough": "From zero",
        "walk_step": "Step {n}",
        "walk_table": "Without vs with {name}",
        "walk_metric": "Metric",
        "walk_without": "Without",
        "walk_with": "With",
        "route": "Learning route",
        "route_rule": "Reading times come from each source's length: {en_rate} words a minute "
        "(English), {zh_rate} characters a minute (Chinese).",
        "route_rule_en": "Reading times come from each source's length, at {en_rate} words a "
        "minute.",
        "route_rule_zh": "Reading times come from each source's length, at {zh_rate} Chinese "
        "characters a minute.",
        "route_minutes": "about {m} min",
        "route_unknown": "length unknown: the text could not be counted",
        "route_unchecked_all": "These links could not be checked when this page was made; some may not open.",
        "route_unchecked_some": "{n} of these links could not be checked when this page was made; they may not open.",
        "route_verified": "verified {date}",
        "route_bad": "link problem",
        "footer": "Sources and notes",
        "sources": "Sources",
        "glossary": "Glossary",
        "glossary_index": "Each word is defined where it first appears: follow a word to its "
        "definition, or hover or focus it to read it here.",
        "fonts": "Fonts and licences",
        "fonts_note": "The handwriting fonts are embedded as subsets of the glyphs this page uses, "
        "under the SIL Open Font License 1.1:",
        "illustrative": "illustrative",
        "illustrative_note": NOTE_ON_TAGS["en"].format(simulator="simulator"),
        "build": "Build",
        "about": "About this page (font licences, build)",
        "trouble": "trouble",
        "fix": "fix",
        "solves": "Solves: ",
        "costs": "Costs: ",
        "prev_problem": "← left over from the last card: ",
        "prev_problem_n": "← left over from card {n}: ",
        "first_card": "start here",
        "new_terms": "New words",
        "stamp_unmarked": "not marked",
        "stamp_learned": "learned",
        "stamp_review": "review",
        "stamp_next": "next",
        "stamp_label": "Progress: {state} (click to change)",
        "theme_toggle": "Switch between paper and chalkboard theme",
        "glossary_hint": "Tap an underlined word to see its one-sentence definition.",
        "stamp_hint": "The stamp on each card marks your progress: tap it to mark a card learned, "
        "to review or next; the mark stays in this browser.",
        "skip": "Skip to the cards",
        "no_sources": "(no sources with an address)",
        "separator": ", ",
        "colon": ": ",
    },
}

# The order a click cycles them; a card the config marks nothing for starts unmarked.
PROGRESS_STATES = ("unmarked", "learned", "review", "next")


def ui(lang: str) -> Mapping[str, str]:
    """The label table of a page language (zh is the reference and the fallback)."""
    return UI_STRINGS.get(lang, UI_STRINGS["zh"])


def simulator_note(lang: str, kind: str) -> str:
    """The footer's note on the tags with the field's own simulator named (`kind`: "batching
    simulator", "训练模拟器")."""
    return NOTE_ON_TAGS["zh" if lang == "zh" else "en"].format(simulator=kind)
