"""A step table for humans: the cast as rows, steps as columns.

Cells: ``P5`` = 5 prompt tokens computed (a prefill chunk, or a recompute after
preemption), ``d`` = one decode token (``d7`` = a decode that recomputed 7 tokens, no KV
cache), ``4(d3a1)+2`` = a speculative verify step (4 tokens scheduled, 3 of them drafts, 1
accepted, 2 tokens emitted; ``pad`` = padding drafts), a trailing ``✓`` = the request emitted
its last token in that step, ``→`` = its KV left for the decode pool, ``x`` = preempted,
``·`` = waiting, ``-`` = running but not scheduled, blank = not arrived / done. Multi-instance
runs add an ``instance`` row; `detail` adds draft totals and each request's transfer.
"""

from __future__ import annotations

from typing import Any

LEGEND = (
    "legend: P5 = 5 prompt tokens (prefill chunk or recompute), d = 1 decode token, "
    "d7 = decode recomputing 7 tokens, 4(d3a1)+2 = 4 tokens with 3 drafts, 1 accepted, "
    "2 emitted, ✓ = last token, → = KV sent to the decode pool, x = preempted, "
    "· = waiting, - = running but not scheduled"
)


def _scheduled_cell(step: dict[str, Any], rid: str, n: int, decoding: bool) -> str:
    drafts = dict(step.get("drafts", []))
    if rid in drafts:
        accepted = dict(step["accepted"])[rid]
        emitted = dict(step["emitted_tokens"]).get(rid, 0)
        inner = (
            f"d{drafts[rid]}pad" if rid in step.get("padded", []) else f"d{drafts[rid]}a{accepted}"
        )
        cell = f"{n}({inner})+{emitted}"
    elif decoding:
        cell = "d" if n == 1 else f"d{n}"
    else:
        cell = f"P{n}"
    if rid in step["finished"]:
        cell += "✓"
    if rid in step.get("handoff", []):
        cell += "→"
    return cell


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
                cell = _scheduled_cell(step, rid, n, has_output[rid])
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


def _extra_rows(steps: list[dict[str, Any]], detail: bool) -> dict[str, list[str]]:
    extra = {
        "Σ tokens": [str(sum(s["scheduled"].values())) for s in steps],
        "free blk": [str(s["free_blocks"]) for s in steps],
    }
    if any("instance" in s for s in steps):
        extra["instance"] = [str(s.get("instance", "")) for s in steps]
    if detail and any("drafts" in s for s in steps):
        extra["drafts"] = [str(sum(n for _, n in s.get("drafts", []))) for s in steps]
        extra["accepted"] = [str(sum(n for _, n in s.get("accepted", []))) for s in steps]
    return extra


def _detail_lines(trace: dict[str, Any]) -> list[str]:
    lines = []
    summary = trace["summary"]
    if "acceptance_rate" in summary:
        lines.append(
            f"drafts: {summary['drafts_verified']} verified, {summary['drafts_accepted']} accepted "
            f"(acceptance rate {summary['acceptance_rate']:.3f}, "
            f"mean accepted length {summary['mean_accepted_length']:.3f})"
        )
    for rid, req in trace["requests"].items():
        if "transfer" in req:
            start, end = req["transfer"]
            lines.append(f"transfer: {rid} {start:g} → {end:g}")
    return lines


def render_table(trace: dict[str, Any], title: str | None = None, *, detail: bool = False) -> str:
    """The table as text (deterministic; one line per request plus header, totals, legend)."""
    steps = trace["steps"]
    rows = _cells(trace)
    header = [str(s["index"]) for s in steps]
    all_rows = {"step": header, **rows, **_extra_rows(steps, detail)}
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
    if detail:
        lines += _detail_lines(trace)
    lines.append(LEGEND)
    return "\n".join(lines) + "\n"
