"""Tiny SVG element builders: escaping, 1-decimal numbers, attribute lists.

Every drawing module writes markup through these so output is escaped and byte-stable.
"""

from __future__ import annotations

import re
from html import escape

DECIMALS = 1


def num(value: float) -> str:
    """A coordinate rounded to one decimal, without a trailing `.0` and never `-0`."""
    rounded = round(float(value), DECIMALS)
    if rounded == 0:
        return "0"
    text = f"{rounded:.{DECIMALS}f}"
    return text[:-2] if text.endswith(".0") else text


def esc(text: str) -> str:
    """Escape untrusted text for element content and attribute values."""
    return escape(text, quote=True)


def attrs(pairs: dict[str, object]) -> str:
    """` key="value"` pairs in the given order; `None` values are skipped, floats rounded."""
    out = []
    for key, value in pairs.items():
        if value is None:
            continue
        if isinstance(value, float):
            value = num(value)
        out.append(f' {key}="{esc(str(value))}"')
    return "".join(out)


def element(tag: str, pairs: dict[str, object], content: str | None = None) -> str:
    """`<tag …/>` or `<tag …>content</tag>`; `content` must already be escaped markup."""
    if content is None:
        return f"<{tag}{attrs(pairs)}/>"
    return f"<{tag}{attrs(pairs)}>{content}</{tag}>"


PATH_TOKEN = re.compile(r"[MLCZHVmlczhv]|-?(?:\d+\.?\d*|\.\d+)(?:e-?\d+)?")
ARITY = {"M": 2, "L": 2, "C": 6, "Z": 0, "H": 1, "V": 1}


def short(value: float) -> str:
    """`num` without the leading zero: `.5`, `-.5` (path data only: shorter pages)."""
    text = num(value)
    if text.startswith("0."):
        return text[1:]
    if text.startswith("-0."):
        return "-" + text[2:]
    return text


def _join(numbers: list[str]) -> str:
    """Numbers with only the separators the path grammar needs: none before `-`, none before a
    `.` that follows a number which already has its decimal point."""
    out = ""
    for text in numbers:
        if out and not (text[0] == "-" or (text[0] == "." and "." in _last_number(out))):
            out += " "
        out += text
    return out


def _last_number(text: str) -> str:
    m = re.search(r"-?[\d.]+$", text)
    return m.group(0) if m else ""


def _absolute(d: str) -> list[tuple[str, list[float]]]:
    """Path data as absolute M/L/C/Z segments rounded to the page's precision."""
    toks = PATH_TOKEN.findall(d)
    segs: list[tuple[str, list[float]]] = []
    cx = cy = sx = sy = 0.0
    i, cmd = 0, ""
    while i < len(toks):
        if toks[i].isalpha():
            cmd = toks[i]
            i += 1
        upper = cmd.upper()
        n = ARITY[upper]
        args = [float(t) for t in toks[i : i + n]]
        i += n
        rel = cmd.islower()
        if upper == "Z":
            segs.append(("Z", []))
            cx, cy = sx, sy
            continue
        if upper == "H":
            args = [args[0] + (cx if rel else 0), cy]
            upper = "L"
        elif upper == "V":
            args = [cx, args[0] + (cy if rel else 0)]
            upper = "L"
        elif rel:
            args = [a + (cx if k % 2 == 0 else cy) for k, a in enumerate(args)]
        args = [round(a, DECIMALS) for a in args]
        segs.append((upper, args))
        cx, cy = args[-2], args[-1]
        if upper == "M":
            sx, sy = cx, cy
            cmd = "l" if rel else "L"  # extra pairs after a moveto are linetos
    return segs


def compact_path(d: str) -> str:
    """Rewrite path data in its shortest equivalent form: each segment absolute or relative
    (whichever is shorter), H/V for straight runs, no leading zeros, no redundant separators or
    repeated command letters. The drawn shape is unchanged (same points at 1-decimal precision)."""
    out: list[str] = []
    last = ""
    cx = cy = sx = sy = 0.0
    for cmd, args in _absolute(d):
        if cmd == "Z":
            out.append("Z")
            last = "Z"
            cx, cy = sx, sy
            continue
        options: list[tuple[str, list[float]]] = []
        x, y = args[-2], args[-1]
        if cmd == "L" and y == cy:
            options += [("H", [x]), ("h", [x - cx])]
        elif cmd == "L" and x == cx:
            options += [("V", [y]), ("v", [y - cy])]
        else:
            rel = [a - (cx if k % 2 == 0 else cy) for k, a in enumerate(args)]
            options += [(cmd, args), (cmd.lower(), rel)]
        best = ""
        for letter, values in options:
            body = _join([short(v) for v in values])
            repeat = letter == last and letter not in "Mm"
            text = (" " if repeat and body[0] not in "-." else "") + body if repeat else letter + body
            if repeat and body[0] == "." and "." not in _last_number(out[-1] if out else ""):
                text = " " + body
            if not best or len(text) < len(best):
                best, best_letter = text, letter
        out.append(best)
        last = best_letter
        cx, cy = x, y
        if cmd == "M":
            sx, sy = x, y
    return "".join(out)
