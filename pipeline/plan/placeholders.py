"""Numbers are bound, not typed: a caption says `{D.ttft}` and the page shows the simulator's
value. These helpers find and fill such placeholders; the plan rules, the LLM prompt and the
drawings share them (a drawing imports this, never the rules)."""

from __future__ import annotations

import re
from collections.abc import Mapping

PLACEHOLDER = re.compile(r"\{([A-Za-z_][\w]*(?:\.[\w]+)*)\}")


def fill_placeholders(text: str, values: Mapping[str, str]) -> str:
    """Replace `{A.ttft}`-style placeholders; unknown names stay as they are (and are reported)."""
    return PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), text)


def placeholders(text: str) -> list[str]:
    return PLACEHOLDER.findall(text)
