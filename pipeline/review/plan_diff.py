"""What changed in the plan, field by field: every field of both plans flattened to a path
(`concepts[kv_cache].body`, `route[https://…].why`, `main_thread.stages[2].label`), list items
keyed by their id where they have one (so a reordered list is one `order` change, not a change
of every item after the move), and the changed words of a text marked.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pipeline.artifacts.review import FieldChange

# The field that identifies an item of a list of objects, by the list's name.
ITEM_KEYS: Mapping[str, str] = {
    "concepts": "id",
    "cast": "id",
    "glossary": "term",
    "metrics": "id",
    "route": "url",
}
ORDER = "(order)"
# Words of Latin script, numbers with their decimals, else one character (a CJK character is a
# word), so a changed word is marked whole and a changed 汉字 alone.
TOKEN = re.compile(r"[A-Za-z0-9_]+(?:[.,'’-][A-Za-z0-9_]+)*|\s+|.", re.DOTALL)


def flatten(value: Any, path: str = "") -> dict[str, str]:
    """Every scalar of a JSON value by its path; a list of scalars is one field."""
    out: dict[str, str] = {}
    if isinstance(value, Mapping):
        for key, item in value.items():
            out.update(flatten(item, f"{path}.{key}" if path else str(key)))
    elif isinstance(value, list):
        if all(not isinstance(v, Mapping | list) for v in value):
            out[path] = ", ".join(_scalar(v) for v in value)
            return out
        key = ITEM_KEYS.get(path.rsplit(".", 1)[-1].split("[")[-1])
        keys = [_item_key(item, key, i) for i, item in enumerate(value)]
        if key is not None:
            out[f"{path} {ORDER}"] = ", ".join(keys)
        for name, item in zip(keys, value, strict=True):
            out.update(flatten(item, f"{path}[{name}]"))
    else:
        out[path] = _scalar(value)
    return out


def _item_key(item: Any, key: str | None, index: int) -> str:
    if key is not None and isinstance(item, Mapping) and isinstance(item.get(key), str):
        return str(item[key])
    return str(index)


def _scalar(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def plan_changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[FieldChange]:
    """Every field that differs, in the new plan's order (then the removed ones)."""
    before, after = flatten(old), flatten(new)
    changes = [
        FieldChange(field=path, before=before.get(path), after=value)
        for path, value in after.items()
        if before.get(path) != value
    ]
    changes += [
        FieldChange(field=path, before=value, after=None)
        for path, value in before.items()
        if path not in after
    ]
    return changes


Mark = Literal["same", "gone", "new"]


@dataclass(frozen=True)
class Piece:
    text: str
    mark: Mark


def marked_words(before: str, after: str) -> tuple[list[Piece], list[Piece]]:
    """The two texts cut into pieces, the words only in `before` marked `gone` and those only
    in `after` marked `new`."""
    a, b = TOKEN.findall(before), TOKEN.findall(after)
    old: list[Piece] = []
    new: list[Piece] = []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            old.append(Piece("".join(a[i1:i2]), "same"))
            new.append(Piece("".join(b[j1:j2]), "same"))
            continue
        if i2 > i1:
            old.append(Piece("".join(a[i1:i2]), "gone"))
        if j2 > j1:
            new.append(Piece("".join(b[j1:j2]), "new"))
    return old, new
