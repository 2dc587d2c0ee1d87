"""The page's fixed cast: A, B, C there from the start with short prompts, D later and longer.

Small numbers a reader can check by hand. A, B and C arrive at t=0 with 3, 2 and 3 prompt
tokens (prefilled in step 1, decoding from step 2); D arrives at t=2 (before step 3 with the
unit cost) with a 12-token prompt; a scenario timed in ms moves D's arrival to just after its
first step, so D joins step 3 in every comic (`sim.presets.scenarios._timed_d_arrival`).
Comics use block_size 4 so a block is a few tokens.
"""

from __future__ import annotations

from typing import Any

COMIC_BLOCK_SIZE = 4
D_ARRIVAL = 2.0
# (id, prompt tokens, max_tokens, arrival)
CAST: tuple[tuple[str, int, int, float], ...] = (
    ("A", 3, 8, 0.0),
    ("B", 2, 5, 0.0),
    ("C", 3, 7, 0.0),
    ("D", 12, 6, D_ARRIVAL),
)
# The shared system prompt of the prefix-caching scenario (two full comic blocks).
SYSTEM_PROMPT = tuple(range(1, 9))


def cast_requests(
    shared_prefix: bool = False, d_arrival: float = D_ARRIVAL
) -> list[dict[str, Any]]:
    """The cast as request dicts; with `shared_prefix`, each prompt starts with SYSTEM_PROMPT."""
    out: list[dict[str, Any]] = []
    for rid, prompt, max_tokens, arrival in CAST:
        item: dict[str, Any] = {
            "id": rid,
            "arrival": d_arrival if rid == "D" else arrival,
            "max_tokens": max_tokens,
        }
        if shared_prefix:
            own = [100 * (ord(rid) - ord("A") + 1) + i for i in range(prompt)]
            item["prompt_ids"] = list(SYSTEM_PROMPT) + own
        else:
            item["prompt_tokens"] = prompt
        out.append(item)
    return out


def cast_words() -> str:
    """The cast in one line for the prompt, from `CAST` (a preset edit changes it)."""
    said = []
    for rid, prompt, max_tokens, arrival in CAST:
        when = "from the start" if arrival == 0 else f"a little later (t={arrival:g})"
        said.append(f"{rid} arrives {when} with a {prompt}-token prompt and writes up to "
                    f"{max_tokens} tokens")
    return "; ".join(said)


def comic_engine(**overrides: Any) -> dict[str, Any]:
    """Engine settings for the comics: budget 8, 4 sequences, block_size 4, 64 blocks."""
    engine: dict[str, Any] = {
        "policy": "vllm",
        "max_num_batched_tokens": 8,
        "max_num_seqs": 4,
        "block_size": COMIC_BLOCK_SIZE,
        "num_blocks": 64,
        "max_model_len": 64,
    }
    engine.update(overrides)
    return engine
