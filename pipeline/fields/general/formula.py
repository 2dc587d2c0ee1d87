"""The worked example's arithmetic (FIELDS.md): a small language tujie parses and evaluates
itself — never `eval` — so a derived number on the page is computed, not typed.

    formula := sum          sum := product (('+' | '-') product)*
    product := power (('*' | '/' | '×' | '÷') power)*
    power   := unary ('^' power)?          (also '**'; right-associative)
    unary   := ('-' | '+') unary | atom
    atom    := NUMBER | NAME | ('min' | 'max') '(' formula (',' formula)* ')' | '(' formula ')'

`parse` gives a tree (`Num`, `Name`, `Op`, `Call`); `evaluate` computes it over named values;
`names` lists the names a formula reads; `render` writes it back with the values put in (the
walkthrough's "left = 3000 − 1000 − 800 = 1200"). Every failure is a `FormulaError` with a
message a model (or a person) can act on.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

MAX_LENGTH = 200  # characters of one formula
MAX_DEPTH = 24  # nesting of parentheses and operators
MAX_MAGNITUDE = 1e15  # a result beyond this is refused (no number on a page needs more)
MAX_DECIMALS = 12  # the most decimals a number below 1 is written with
FUNCTIONS: dict[str, Callable[..., float]] = {"min": min, "max": max}
OPERATORS = {"×": "*", "÷": "/", "−": "-", "**": "^"}
TOKEN = re.compile(
    r"\s*(?:(?P<num>\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)|(?P<name>[a-z][a-z0-9_]*)"
    r"|(?P<op>\*\*|[-+*/^×÷−(),]))"
)


class FormulaError(ValueError):
    """A formula that cannot be read or computed; the message says where and why."""


@dataclass(frozen=True)
class Num:
    value: float


@dataclass(frozen=True)
class Name:
    name: str


@dataclass(frozen=True)
class Op:
    op: str  # one of + - * / ^, or "neg"
    args: tuple[Node, ...]


@dataclass(frozen=True)
class Call:
    func: str
    args: tuple[Node, ...]


Node = Num | Name | Op | Call


def tokens(text: str) -> list[str]:
    if len(text) > MAX_LENGTH:
        raise FormulaError(f"longer than {MAX_LENGTH} characters")
    out: list[str] = []
    pos = 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        found = TOKEN.match(text, pos)
        if found is None:
            raise FormulaError(f"cannot read '{text[pos:].strip()[:12]}' (position {pos + 1})")
        out.append(OPERATORS.get(found.group().strip(), found.group().strip()))
        pos = found.end()
    if not out:
        raise FormulaError("empty formula")
    return out


class _Parser:
    def __init__(self, items: list[str]):
        self.items = items
        self.i = 0

    def peek(self) -> str | None:
        return self.items[self.i] if self.i < len(self.items) else None

    def take(self, wanted: str | None = None) -> str:
        item = self.peek()
        if item is None or (wanted is not None and item != wanted):
            raise FormulaError(f"expected '{wanted}'" if wanted else "the formula ends too soon")
        self.i += 1
        return item

    def formula(self, depth: int) -> Node:
        if depth > MAX_DEPTH:
            raise FormulaError(f"nested deeper than {MAX_DEPTH}")
        node = self.product(depth)
        while self.peek() in ("+", "-"):
            op = self.take()
            node = Op(op, (node, self.product(depth)))
        return node

    def product(self, depth: int) -> Node:
        node = self.power(depth)
        while self.peek() in ("*", "/"):
            op = self.take()
            node = Op(op, (node, self.power(depth)))
        return node

    def power(self, depth: int) -> Node:
        base = self.unary(depth)
        if self.peek() == "^":
            self.take()
            return Op("^", (base, self.power(depth + 1)))
        return base

    def unary(self, depth: int) -> Node:
        if self.peek() in ("-", "+"):
            sign = self.take()
            inner = self.unary(depth + 1)
            return Op("neg", (inner,)) if sign == "-" else inner
        return self.atom(depth)

    def atom(self, depth: int) -> Node:
        item = self.take()
        if item == "(":
            node = self.formula(depth + 1)
            self.take(")")
            return node
        if item[0].isdigit():
            return Num(float(item))
        if item[0].isalpha():
            if item in FUNCTIONS and self.peek() == "(":
                self.take("(")
                args = [self.formula(depth + 1)]
                while self.peek() == ",":
                    self.take(",")
                    args.append(self.formula(depth + 1))
                self.take(")")
                return Call(item, tuple(args))
            return Name(item)
        raise FormulaError(f"unexpected '{item}'")


def parse(text: str) -> Node:
    """The formula's tree; FormulaError if it is not one."""
    parser = _Parser(tokens(text))
    node = parser.formula(0)
    if parser.peek() is not None:
        raise FormulaError(f"unexpected '{parser.peek()}' after the formula")
    return node


def names(node: Node) -> list[str]:
    """The quantity names a formula reads, in order of first use."""
    if isinstance(node, Name):
        return [node.name]
    if isinstance(node, Op | Call):
        return list(dict.fromkeys(n for a in node.args for n in names(a)))
    return []


def evaluate(node: Node, values: Mapping[str, float]) -> float:
    """The formula's value over `values`; FormulaError for an unknown name, a division by zero,
    a power that is not a real number, or a result beyond `MAX_MAGNITUDE`."""
    result = _eval(node, values)
    if not math.isfinite(result) or abs(result) > MAX_MAGNITUDE:
        raise FormulaError(f"the result {result:g} is out of range")
    return result


def _eval(node: Node, values: Mapping[str, float]) -> float:
    if isinstance(node, Num):
        return node.value
    if isinstance(node, Name):
        if node.name not in values:
            raise FormulaError(f"unknown quantity '{node.name}'")
        return values[node.name]
    args = [_eval(a, values) for a in node.args]
    if isinstance(node, Call):
        return float(FUNCTIONS[node.func](*args))
    if node.op == "neg":
        return -args[0]
    a, b = args
    if node.op == "+":
        return a + b
    if node.op == "-":
        return a - b
    if node.op == "*":
        return a * b
    if node.op == "/":
        if b == 0:
            raise FormulaError("division by zero")
        return a / b
    if a < 0 and b != int(b):
        raise FormulaError("a negative number to a fractional power")
    if abs(b) > 64 or (a == 0 and b < 0):
        raise FormulaError(f"the power {b:g} is out of range")
    return float(a**b)


PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2, "neg": 3, "^": 4}
SHOWN = {"+": " + ", "-": " − ", "*": " × ", "/": " ÷ ", "^": "^"}


def render(node: Node, shown: Callable[[str], str], parent: int = 0) -> str:
    """The formula written with `shown(name)` for each name (its value, or its label), in the
    usual signs (× ÷ −) and with the parentheses its structure needs."""
    return "".join(shown(p.name) if isinstance(p, Name) else p for p in pieces(node, parent))


def pieces(node: Node, parent: int = 0) -> list[str | Name]:
    """The formula as `render` writes it, cut into its names and the text between them (signs,
    parentheses, constants), so a drawing can box each name's number and write the rest."""
    if isinstance(node, Num):
        return [number_text(node.value)]
    if isinstance(node, Name):
        return [node]
    if isinstance(node, Call):
        out: list[str | Name] = [f"{node.func}("]
        for k, arg in enumerate(node.args):
            out += ([", "] if k else []) + pieces(arg)
        return [*out, ")"]
    mine = PRECEDENCE[node.op]
    if node.op == "neg":
        inner = ["−", *pieces(node.args[0], mine)]
    else:
        # the right side of - and / (and the left of ^) binds tighter than it looks
        left = pieces(node.args[0], mine + (1 if node.op == "^" else 0))
        right = pieces(node.args[1], mine + (0 if node.op == "^" else 1)
                       if node.op in ("-", "/") else mine)
        inner = [*left, SHOWN[node.op], *right]
    return ["(", *inner, ")"] if mine < parent else inner


def number_text(value: float) -> str:
    """A number as a page writes it: whole numbers without decimals, others to at most two
    decimals (trailing zeros dropped), never in exponent form. A number below 1 keeps three
    significant digits instead, so a factor such as 0.999 is not written as 1 (a worked step
    "1 − 0.1 ÷ 100 = 1" would be false) and a rate such as 0.00583 not as 0.01."""
    decimals = 2
    if 0 < abs(value) < 1:
        decimals = min(MAX_DECIMALS, max(2, 2 - math.floor(math.log10(abs(value)))))
    rounded = round(value, decimals)
    if rounded == int(rounded):
        return str(int(rounded))
    return f"{rounded:.{decimals}f}".rstrip("0").rstrip(".")
