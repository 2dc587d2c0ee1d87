"""The 11 golden scenarios of SIM.md, step by step (verified against vLLM 0.32 by the spec)."""

from __future__ import annotations

from typing import Any

import pytest

from sim.presets.scenarios import run_preset


def steps(name: str) -> list[dict[str, Any]]:
    return run_preset(name, detail=False)["steps"]


def sched(step: dict[str, Any]) -> list[tuple[str, int]]:
    """Scheduled tokens in scheduling order."""
    return list(step["scheduled"].items())


def test_golden_1_chunked_prefill_joins_decodes() -> None:
    s = steps("golden-1")
    assert sched(s[1]) == [("A", 1), ("B", 1), ("C", 1), ("D", 5)]
    assert "D" not in s[1]["emitted"]
    assert sched(s[2]) == [("A", 1), ("B", 1), ("C", 1), ("D", 5)]
    assert "D" in s[2]["emitted"]
    assert sched(s[3]) == [("A", 1), ("B", 1), ("C", 1), ("D", 1)]


def test_golden_2_long_prefill_threshold() -> None:
    s = steps("golden-2")
    assert sched(s[0]) == [("X", 400), ("Y", 400), ("Z", 224)]
    assert s[0]["emitted"] == []
    assert sched(s[1]) == [("X", 400), ("Y", 400), ("Z", 224)]
    assert s[1]["emitted"] == ["X", "Y"]
    assert sched(s[2]) == [("X", 1), ("Y", 1), ("Z", 352)]
    assert s[2]["emitted"] == ["X", "Y", "Z"]
    assert sched(s[3]) == [("X", 1), ("Y", 1), ("Z", 1)]


def test_golden_3_lone_request_ignores_threshold() -> None:
    s = steps("golden-3")
    assert sched(s[0]) == [("X", 800)]
    assert s[0]["emitted"] == ["X"]


def test_golden_4_decode_preempts_partial_prefill() -> None:
    s = steps("golden-4")
    assert sched(s[0]) == [("R0", 80), ("R1", 20)]
    assert s[0]["free_blocks"] == 3
    assert sched(s[1]) == [("R0", 1)]
    assert s[1]["preempted"] == ["R1"]
    assert s[1]["free_blocks"] == 4
    r0_finish = next(i for i, st in enumerate(s) if "R0" in st["finished"])
    for st in s[2 : r0_finish + 1]:
        assert "R1" not in st["scheduled"] and st["waiting"] == ["R1"]
    assert sched(s[r0_finish + 1]) == [("R1", 80)]


def test_golden_5_two_victims_front_of_waiting() -> None:
    s = steps("golden-5")
    assert sched(s[0]) == [("A", 16), ("B", 16), ("C", 16)]
    assert s[0]["emitted"] == ["A", "B", "C"]
    assert s[0]["free_blocks"] == 0
    assert sched(s[1]) == [("A", 1)]
    assert s[1]["preempted"] == ["C", "B"]
    assert s[1]["waiting"] == ["B", "C"]


def test_golden_6_max_num_seqs() -> None:
    s = steps("golden-6")
    assert [sched(x) for x in s] == [
        [("A", 4), ("B", 4)],
        [("A", 1), ("B", 1)],
        [("C", 4)],
        [("C", 1)],
    ]
    assert s[1]["finished"] == ["A", "B"]


def test_golden_7_prefix_hits_capped() -> None:
    trace = run_preset("golden-7", detail=False)
    s = trace["steps"]
    assert sched(s[0]) == [("X", 40), ("U", 32)]
    assert s[0]["finished"] == ["X", "U"]
    assert sched(s[1]) == [("Y", 8), ("V", 16)]
    assert trace["requests"]["Y"]["prefix_hit_tokens"] == 32
    assert trace["requests"]["V"]["prefix_hit_tokens"] == 16


def test_golden_8_admission_gate_no_thrash() -> None:
    trace = run_preset("golden-8", detail=False)
    s = trace["steps"]
    a_finish = next(i for i, st in enumerate(s) if "A" in st["finished"])
    for st in s[: a_finish + 1]:
        assert "B" not in st["running"]
        assert st["preempted"] == []
    assert trace["requests"]["B"]["preemptions"] == 0
    assert trace["requests"]["B"]["output_tokens"] == 5


def test_golden_9_head_of_line_blocking() -> None:
    s = steps("golden-9")
    assert sched(s[0]) == [("A", 50)]
    assert s[0]["waiting"] == ["B", "C"]
    assert sched(s[1]) == [("A", 1), ("B", 20), ("C", 10)]


@pytest.mark.parametrize(("name", "resumed"), [("golden-10", 33), ("golden-11", 17)])
def test_golden_10_11_preemption_recompute(name: str, resumed: int) -> None:
    trace = run_preset(name, detail=False)
    s = trace["steps"]
    assert sched(s[0]) == [("A", 30), ("B", 30)]
    assert sched(s[1]) == sched(s[2]) == [("A", 1), ("B", 1)]
    assert s[3]["preempted"] == ["B"]
    for st in s[3:8]:
        assert sched(st) == [("A", 1)]
    assert s[7]["finished"] == ["A"]
    assert sched(s[8]) == [("B", resumed)]
    assert s[8]["emitted"] == ["B"]
    b = trace["requests"]["B"]
    assert b["preemptions"] == 1
    assert b["output_tokens"] == 20
    assert b["prefix_hit_tokens"] == (0 if name == "golden-10" else 16)
    # B had 3 outputs (33 tokens) when preempted; its 4th token comes at the end of step 9.
    assert b["token_times"][3] == s[8]["end"]
