"""A step table for humans: the cast as rows, steps as columns.

Cells: ``P5`` = 5 prompt tokens computed (a prefill chunk, or a recompute after
preemption), ``d`` = one decode token (``d7`` = a decode that recomputed 7 tokens, no KV
cache), a trailing ``✓`` = the request emitted its last token in that step, ``x`` =
preempted, ``·`` = waiting, ``-`` = running but not scheduled, blank = not arrived / done.
"""

from __future__ import annotations

from typing import Any

LEGEND = (
    "legend: P5 = 5 prompt tokens (prefill chunk or recompute), d = 1 decode token, "
    "d7 = decode recomputing 7 tokens, ✓ = last token, x = preempted, · = waiting, "
    "- = running but not scheduled"
)


def _cells(trace: dict[str, Any]) -> dict[str, list[str]]:
    ids = list(trace["requests"])
    rows: dict[str, list[str]] = {rid: [] for rid in ids}
    has_output = dict.fromkeys(ids, False)
    for step in trace["steps"]:
        waiting, running = set(step["waiting"]), set(step["running"])
        for rid in ids:
            n = step["scheduled"].get(rid)
            if rid in step["preempted"]:
                cell = "x"
            elif n is not None:
                cell = ("d" if n == 1 else f"d{n}") if has_output[rid] else f"P{n}"
                if rid in step["finished"]:
                    cell += "✓"
            elif rid in waiting:
                cell = "·"
            elif rid in running:
                cell = "-"
            else:
                cell = ""
            rows[rid].append(cell)
            if rid in step["preempted"]:
                has_output[rid] = False
            elif rid in step["emitted"]:
                has_output[rid] = True
    return rows


def render_table(trace: dict[str, Any], title: str | None = None) -> str:
    """The table as text (deterministic; one line per request plus header, totals, legend)."""
    steps = trace["steps"]
    rows = _cells(trace)
    extra = {
        "Σ tokens": [str(sum(s["scheduled"].values())) for s in steps],
        "free blk": [str(s["free_blocks"]) for s in steps],
    }
    header = [str(s["index"]) for s in steps]
    all_rows = {"step": header, **rows, **extra}
    label_w = max(len(k) for k in all_rows)
    widths = [max(len(r[i]) for r in all_rows.values()) for i in range(len(steps))]
    lines = [title] if title else []
    for label, cells in all_rows.items():
        body = " ".join(c.rjust(w) for c, w in zip(cells, widths, strict=True))
        lines.append(f"{label.ljust(label_w)} | {body}".rstrip())
        if label == "step":
            lines.append("-" * len(lines[-1]))
    if trace.get("stalled"):
        lines.append("STALLED: no request can progress")
    lines.append(LEGEND)
    return "\n".join(lines) + "\n"
