"""`python -m pipeline.fields.general.demo OUT_DIR`: every general scene kind in its telling cases
(fits / breaks), both languages, plus walkthrough strips, as the page draws them: the page's own
stylesheet and fonts, one file per theme (`general-demo-light.html`, `general-demo-dark.html`).

`SAMPLES` are small illustrative worked examples, the goldens' inputs too (tests/draw).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import Literal

from pipeline.draw.defs import draw_symbol_defs
from pipeline.draw.panel import draw_panel
from pipeline.fields.general import FIELD
from pipeline.fields.general.example import ExampleView, evaluate_example
from pipeline.fields.general.scenes import draw_worked_step
from pipeline.paths import templates_dir
from pipeline.plan.model import Concept, Panel, Quantity, ShowRole, WorkedExample
from pipeline.render.fonts_used import font_css, font_text

LANGS = ("zh", "en")
Side = Literal["trouble", "fix"]
# (name, zh label, en label, zh unit, en unit, value or formula)
Spec = tuple[str, str, str, str, str, float | str]
YUAN, MIN, RATE, SEATS = ("元", "yuan"), ("分钟", "min"), ("位/时", "/h"), ("座", "seats")
DISH, HOURS = ("份/时", "/h"), ("小时", "h")


def q(name: str, zh: str, en: str, unit: tuple[str, str], value: float | str) -> Spec:
    return (name, zh, en, unit[0], unit[1], value)


@dataclass(frozen=True)
class Sample:
    """One panel of the showcase: a scene kind drawing a worked example in one case."""

    name: str
    scene: str
    caption: tuple[str, str]  # zh, en
    quantities: tuple[Spec, ...]
    show: tuple[tuple[str, tuple[str, ...]], ...]
    focus: tuple[str, ...] = field(default=())

    def example(self, lang: str) -> WorkedExample:
        zh = lang == "zh"
        return WorkedExample(
            id=self.name.replace("-", "_"),
            title=self.name,
            quantities=[
                Quantity(
                    name=n,
                    label=lz if zh else le,
                    unit=uz if zh else ue,
                    kind="derived" if isinstance(v, str) else "illustrative",
                    value=0 if isinstance(v, str) else v,
                    formula=v if isinstance(v, str) else "",
                )
                for n, lz, le, uz, ue, v in self.quantities
            ],
        )

    def view(self, lang: str) -> ExampleView:
        return ExampleView.from_json(evaluate_example(self.example(lang)))

    def panel(self, lang: str) -> Panel:
        return Panel(
            caption=self.caption[0 if lang == "zh" else 1],
            scene=self.scene,
            example=self.example(lang).id,
            focus=list(self.focus),
            show=[ShowRole(role=r, quantities=list(ns)) for r, ns in self.show],
        )


# fmt: off
SAMPLES: tuple[Sample, ...] = (
    Sample("compare-three", "compare", ("骑车只要 {bike} 分钟", "by bike it takes {bike} min"),
           (q("walk", "步行", "walk", MIN, 40), q("bus", "公交", "bus", MIN, 25),
            q("bike", "骑车", "bike", MIN, 15)), (("bars", ("walk", "bus", "bike")),)),
    Sample("compare-two", "compare", ("苹果贵 {gap} 元", "apples cost {gap} yuan more"),
           (q("apples", "苹果一公斤", "apples, 1 kg", YUAN, 12),
            q("pears", "梨一公斤", "pears, 1 kg", YUAN, 8),
            q("gap", "差价", "difference", YUAN, "apples - pears")),
           (("bars", ("apples", "pears")),)),
    Sample("flow-keeps-up", "flow", ("每小时来 {arrive} 位，跟得上", "{arrive} an hour: it keeps up"),
           (q("arrive", "来客", "customers", RATE, 20), q("order", "点单", "order", RATE, 60),
            q("brew", "冲咖啡", "brew", RATE, 30), q("pay", "付款", "pay", RATE, 90)),
           (("arrival", ("arrive",)), ("stages", ("order", "brew", "pay")))),
    Sample("flow-queue", "flow", ("来得比冲得快，要排队", "faster than brewing: a queue"),
           (q("arrive", "来客", "customers", RATE, 40), q("order", "点单", "order", RATE, 60),
            q("brew", "冲咖啡", "brew", RATE, 30), q("pay", "付款", "pay", RATE, 90)),
           (("arrival", ("arrive",)), ("stages", ("order", "brew", "pay")))),
    Sample("container-fits", "container", ("月底还剩 {left} 元", "{left} yuan left at month's end"),
           (q("income", "月收入", "income", YUAN, 3000), q("rent", "房租", "rent", YUAN, 1200),
            q("food", "吃饭", "food", YUAN, 800), q("bus", "交通", "transport", YUAN, 300),
            q("left", "剩下", "left", YUAN, "income - rent - food - bus")),
           (("capacity", ("income",)), ("parts", ("rent", "food", "bus")))),
    Sample("container-over", "container", ("超支 {over} 元", "{over} yuan over budget"),
           (q("income", "月收入", "income", YUAN, 3000), q("rent", "房租", "rent", YUAN, 1500),
            q("food", "吃饭", "food", YUAN, 900), q("bus", "交通", "transport", YUAN, 400),
            q("fun", "玩", "fun", YUAN, 500),
            q("over", "超支", "over", YUAN, "rent + food + bus + fun - income")),
           (("capacity", ("income",)), ("parts", ("rent", "food", "bus", "fun")))),
    Sample("grid-some-free", "grid", ("还有 {free} 个空座", "{free} seats still free"),
           (q("seats", "座位", "seats", SEATS, 24), q("booked", "已订", "booked", SEATS, 15),
            q("back", "刚退", "just returned", SEATS, 3),
            q("free", "空座", "free", SEATS, "seats - booked - back")),
           (("slots", ("seats",)), ("held", ("booked",)), ("freed", ("back",)))),
    Sample("grid-full", "grid", ("{seats} 个座全订满了", "all {seats} seats booked"),
           (q("seats", "座位", "seats", SEATS, 24), q("booked", "已订", "booked", SEATS, 24)),
           (("slots", ("seats",)), ("held", ("booked",)))),
    Sample("lanes-one-till", "lanes", ("C 等了 {c_wait} 分钟", "C waits {c_wait} min"),
           (q("a_wait", "等", "wait", MIN, 0), q("a_pay", "结账", "pay", MIN, 4),
            q("b_wait", "等", "wait", MIN, 4), q("b_pay", "结账", "pay", MIN, 3),
            q("c_wait", "等", "wait", MIN, 7), q("c_pay", "结账", "pay", MIN, 2)),
           (("lane", ("a_wait", "a_pay")), ("lane", ("b_wait", "b_pay")),
            ("lane", ("c_wait", "c_pay"))), ("A", "B", "C")),
    Sample("lanes-two-tills", "lanes",
           ("两个收银台，C 只等 {c_wait} 分钟", "two tills: C waits {c_wait} min"),
           (q("a_wait", "等", "wait", MIN, 0), q("a_pay", "结账", "pay", MIN, 4),
            q("b_wait", "等", "wait", MIN, 0), q("b_pay", "结账", "pay", MIN, 3),
            q("c_wait", "等", "wait", MIN, 3), q("c_pay", "结账", "pay", MIN, 2)),
           (("lane", ("a_wait", "a_pay")), ("lane", ("b_wait", "b_pay")),
            ("lane", ("c_wait", "c_pay"))), ("A", "B", "C")),
    Sample("before-after-up", "before_after", ("房租涨了 {rise} 元", "rent went up {rise} yuan"),
           (q("old", "房租", "rent", YUAN, 1000), q("new", "房租", "rent", YUAN, 1200),
            q("rise", "涨了", "rise", YUAN, "new - old")),
           (("before", ("old",)), ("after", ("new",)))),
    Sample("before-after-down", "before_after",
           ("通勤少了 {saved} 分钟", "{saved} min less commuting"),
           (q("old", "通勤", "commute", MIN, 50), q("new", "通勤", "commute", MIN, 30),
            q("saved", "省下", "saved", MIN, "old - new")),
           (("before", ("old",)), ("after", ("new",)))),
    Sample("line-one", "line", ("每月多存，一年攒到 {m12} 元", "a year of saving: {m12} yuan"),
           (q("m0", "开始", "start", YUAN, 0), q("m3", "三个月", "3 months", YUAN, 1500),
            q("m6", "半年", "6 months", YUAN, 3000), q("m9", "九个月", "9 months", YUAN, 4500),
            q("m12", "一年后", "after a year", YUAN, "m9 + 1500")),
           (("series", ("m0", "m3", "m6", "m9", "m12")),)),
    Sample("line-two", "line", ("复利越往后越陡：{c30} 元", "compounding steepens: {c30} yuan"),
           (q("s0", "本金", "principal", YUAN, 10000), q("s10", "单利", "simple", YUAN, 17000),
            q("s20", "单利", "simple", YUAN, 24000), q("s30", "单利的终值", "simple interest", YUAN, 31000),
            q("c0", "本金", "principal", YUAN, 10000),
            q("c10", "复利", "compound", YUAN, "c0 * 1.07 ^ 10"),
            q("c20", "复利", "compound", YUAN, "c0 * 1.07 ^ 20"),
            q("c30", "复利的终值", "compound interest", YUAN, "c0 * 1.07 ^ 30")),
           (("series", ("s0", "s10", "s20", "s30")), ("series", ("c0", "c10", "c20", "c30")))),
    # at the kinds' limits: five stages, six parts, four lanes, 48 slots
    Sample("flow-five-stages", "flow", ("炒菜最慢，一小时 {fry} 份", "frying is slowest: {fry}/h"),
           (q("orders", "点菜", "orders", DISH, 10), q("wash", "洗菜", "wash", DISH, 30),
            q("cut", "切菜", "chop", DISH, 20), q("fry", "炒菜", "fry", DISH, 8),
            q("plate", "装盘", "plate", DISH, 40), q("serve", "上菜", "serve", DISH, 60)),
           (("arrival", ("orders",)), ("stages", ("wash", "cut", "fry", "plate", "serve")))),
    Sample("container-six-parts", "container", ("一天 {day} 小时不够用", "{day} hours are not enough"),
           (q("day", "一天", "a day", HOURS, 24), q("sleep", "睡觉", "sleep", HOURS, 8),
            q("work", "上班", "work", HOURS, 9), q("commute", "通勤", "commute", HOURS, 2),
            q("meals", "吃饭", "meals", HOURS, 2), q("chores", "家务", "chores", HOURS, 2),
            q("phone", "刷手机", "phone", HOURS, 3)),
           (("capacity", ("day",)),
            ("parts", ("sleep", "work", "commute", "meals", "chores", "phone")))),
    Sample("lanes-four", "lanes", ("一个灶，D 等了 {d_wait} 分钟", "one stove: D waits {d_wait} min"),
           (q("a_wait", "等", "wait", MIN, 0), q("a_cook", "炒", "cook", MIN, 3),
            q("b_wait", "等", "wait", MIN, 3), q("b_cook", "炒", "cook", MIN, 3),
            q("c_wait", "等", "wait", MIN, 6), q("c_cook", "炒", "cook", MIN, 2),
            q("d_wait", "等", "wait", MIN, 8), q("d_cook", "炒", "cook", MIN, 2)),
           (("lane", ("a_wait", "a_cook")), ("lane", ("b_wait", "b_cook")),
            ("lane", ("c_wait", "c_cook")), ("lane", ("d_wait", "d_cook"))), ("A", "B", "C", "D")),
    Sample("grid-many-slots", "grid", ("{spaces} 个车位", "{spaces} parking spaces"),
           (q("spaces", "车位", "spaces", ("个", ""), 48), q("parked", "停着", "parked", ("个", ""), 30),
            q("left", "刚开走", "just left", ("个", ""), 6)),
           (("slots", ("spaces",)), ("held", ("parked",)), ("freed", ("left",)))),
)
# fmt: on
BY_NAME = {s.name: s for s in SAMPLES}
# Which two samples share a card in the showcase (the trouble panel and the fix panel)
CARDS = (
    ("compare-three", "compare-two"),
    ("flow-keeps-up", "flow-queue"),
    ("container-fits", "container-over"),
    ("grid-some-free", "grid-full"),
    ("lanes-one-till", "lanes-two-tills"),
    ("before-after-down", "before-after-up"),
    ("flow-five-stages", "container-six-parts"),
    ("lanes-four", "grid-many-slots"),
    ("line-one", "line-two"),
)


def concept(sample: Sample, lang: str) -> Concept:
    panel = sample.panel(lang)
    return Concept(
        id=sample.name.replace("-", "_"),
        field="general",
        name=sample.name[:20],
        name_en=sample.name,
        problem_left="-",
        body="-",
        trouble=panel,
        fix=panel,
        solves="-",
        costs="-",
    )


def draw_sample(sample: Sample, lang: str, side: Side = "trouble") -> str:
    """The sample's panel as the page draws it (its scene from the general field)."""
    view = sample.view(lang)
    card = concept(sample, lang)
    return draw_panel(
        card,
        side,
        card.trouble,
        view,
        view.values(),
        lang=lang,
        scene=FIELD.scenes()[sample.scene],
    )


def strips(lang: str) -> list[tuple[str, str]]:
    """(sentence, strip) for every derived quantity of the samples, as the walkthrough shows."""
    out = []
    for sample in SAMPLES:
        view = sample.view(lang)
        out += [
            (
                view.quantities[name].worked,
                draw_worked_step(view, name, lang=lang, seed_id=f"{sample.name}-{k}"),
            )
            for k, name in enumerate(view.order)
        ]
    return out


def body(lang: str) -> str:
    cards = []
    for k, (a, b) in enumerate(CARDS):
        pair: tuple[tuple[Side, str], ...] = (("trouble", a), ("fix", b))
        panels = "".join(
            f'<figure class="panel-box {side}"><figcaption class="panel-label">{name}'
            f"</figcaption>{draw_sample(BY_NAME[name], lang, side)}</figure>"
            for side, name in pair
        )
        cards.append(
            f'<article class="card" id="card-{lang}-{k}"><h3>{BY_NAME[a].scene} '
            f'[{lang}]</h3><div class="panels">{panels}</div></article>'
        )
    steps = "".join(
        f'<li class="step"><span class="step-no">{k + 1}</span><div '
        f'class="step-strip">{svg}</div><p class="step-text">{escape(sentence)}</p>'
        "</li>"
        for k, (sentence, svg) in enumerate(strips(lang))
    )
    cards.append(
        f'<article class="card"><h3>walkthrough [{lang}]</h3>'
        f'<ol class="steps">{steps}</ol></article>'
    )
    return "".join(cards)


def page(theme: str) -> str:
    text = "".join(body(lang) for lang in LANGS)
    # each family subset to the characters it sets, as the page does (digits in a Chinese
    # label are set in Ma Shan Zheng: a subset cut from the text alone would lack them)
    faces = font_css(font_text(text))
    css = (templates_dir() / "page.css").read_text(encoding="utf-8")
    return (
        f'<!doctype html><html lang="zh" data-theme="{theme}"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width,initial-scale=1">'
        f"<title>tujie general scenes</title><style>{faces}{css}</style></head><body>"
        f'{draw_symbol_defs("zh", FIELD.symbols())}<main class="column">{text}</main>'
        "</body></html>"
    )


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m pipeline.fields.general.demo OUT_DIR", file=sys.stderr)
        return 2
    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    for theme in ("light", "dark"):
        path = out / f"general-demo-{theme}.html"
        path.write_text(page(theme), encoding="utf-8")
        print(path, f"({len(SAMPLES)} samples x {len(LANGS)} languages)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
