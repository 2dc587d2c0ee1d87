"""Untrusted text (plan, articles, file names, link evidence) made safe to print on a terminal.

A raw ESC or BEL in a plan title could retitle the window, clear the screen or fake output; C1
controls (U+0080-U+009F) do the same on terminals that honour them, and bidi overrides reorder
what is shown. Every such character is printed as a visible escape (`\\x1b`, `\\u202e`) instead.
The credentials of any URL in the text are masked (`https://***@host/`, `pipeline.urls`).
"""

from __future__ import annotations

import json
import re

from pipeline.urls import mask_credentials

# C0 controls except tab and newline, DEL, C1 controls, and the bidi embedding/override/isolate
# marks (the "Trojan Source" characters).
UNSAFE_CHARACTERS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
# In JSON text every C0 control is already escaped; the rest can only occur inside strings.
UNSAFE_IN_JSON = re.compile("[\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def terminal_safe(text: object) -> str:
    """`str(text)` with every terminal control character shown as an escape (e.g. `\\x1b`) and
    the credentials of every URL masked."""
    return UNSAFE_CHARACTERS.sub(_escaped, mask_credentials(str(text)))


def json_for_terminal(data: object) -> str:
    """`data` as indented JSON (non-ASCII kept readable) whose text carries no control character:
    the JSON still parses to the same value."""
    text = mask_credentials(json.dumps(data, ensure_ascii=False, indent=2, default=str))
    return UNSAFE_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
