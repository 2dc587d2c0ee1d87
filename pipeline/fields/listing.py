"""`tujie fields`: what each registered field can draw — its scene kinds, scenarios (with their
knobs and ranges), ruler techniques and metrics — and, for a folder, the detection's scores and
the fields its page would be drawn with. A user sees what a folder of theirs can be drawn with."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pipeline import fields
from pipeline.plan.catalogue import fmt


def field_listing(src: Path | None = None) -> dict[str, Any]:
    """The registry as JSON (and the folder's detection when `src` is given)."""
    out: dict[str, Any] = {"fields": []}
    for fid, known in fields.FIELDS.items():
        cat = known.catalogue()
        out["fields"].append(
            {
                "id": fid,
                "title": known.title,
                "scenes": dict(cat.scene_shows),
                "scenarios": [
                    {
                        "id": e.id,
                        "title": e.title,
                        "scenes": list(e.scenes),
                        "clock": e.time_unit,
                        "knobs": [
                            {"id": k.id, "meaning": k.meaning, "low": k.low, "high": k.high,
                             "unit": k.unit, "variants": list(k.variants)}
                            for k in e.knobs
                        ],
                    }
                    for e in cat.scenarios.values()
                ],
                "techniques": [{"id": t.id, "line": t.line} for t in cat.techniques],
                "ruler_metrics": list(cat.ruler_metrics),
            }
        )
    if src is not None:
        from pipeline.config import load_config
        from pipeline.ingest.folder import ingest_folder

        detection = fields.chosen_fields(ingest_folder(src), load_config(src))
        out["folder"] = {
            "src": str(src),
            "words": detection.words,
            "scores": dict(detection.scores),
            "chosen": list(detection.chosen),
            "from_page_toml": detection.overridden,
        }
    return out


def listing_lines(listing: dict[str, Any]) -> list[str]:
    """The listing as text, a block per field."""
    lines: list[str] = []
    for f in listing["fields"]:
        lines.append(f"{f['id']} — {f['title']}")
        lines.append(f"  scenes: {', '.join(f['scenes'])}")
        for s in f["scenarios"]:
            knobs = "; ".join(
                f"{k['id']} {fmt(k['low'])}-{fmt(k['high'])} {k['unit']}".rstrip()
                for k in s["knobs"]
            )
            lines.append(f"  scenario {s['id']}: {s['title']} (drawn by {', '.join(s['scenes'])}"
                         f"{'; knobs: ' + knobs if knobs else ''})")
        if f["techniques"]:
            lines.append(f"  ruler techniques: {', '.join(t['id'] for t in f['techniques'])}")
            lines.append(f"  ruler metrics: {', '.join(f['ruler_metrics'])}")
        else:
            lines.append("  ruler: rows state each metric's direction with a citation (`effects`)")
    folder = listing.get("folder")
    if folder:
        scores = ", ".join(f"{k} {v:g}" for k, v in folder["scores"].items())
        how = "page.toml's field" if folder["from_page_toml"] else "detected"
        lines.append(f"{folder['src']}: {folder['words']} words; scores per 1,000 words: "
                     f"{scores}; drawn with: {', '.join(folder['chosen'])} ({how})")
    return lines
