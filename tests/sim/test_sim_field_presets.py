"""SIM-FIELD.md's preset pairs on the page's cast differ the way their descriptions say."""

from __future__ import annotations

from typing import Any

from sim.presets.scenarios import run_preset


def pair(sid: str) -> tuple[dict[str, Any], dict[str, Any]]:
    return run_preset(f"{sid}/without"), run_preset(f"{sid}/with")


def outputs(trace: dict[str, Any]) -> dict[str, int]:
    return {rid: r["output_tokens"] for rid, r in trace["requests"].items()}


def test_spec_decode_finishes_the_cast_in_fewer_steps() -> None:
    without, with_ = pair("spec_decode")
    assert (len(without["steps"]), len(with_["steps"])) == (8, 6)
    assert outputs(without) == outputs(with_) == {"A": 8, "B": 5, "C": 7, "D": 6}
    assert "acceptance_rate" not in without["summary"]
    assert 0 < with_["summary"]["acceptance_rate"] < 1
    # Every verify step of A follows its pattern 2, 0, 3 (clipped to the drafts scheduled).
    a_accepted = [dict(s["accepted"])["A"] for s in with_["steps"] if "A" in dict(s["accepted"])]
    assert a_accepted == [2, 0, 3][: len(a_accepted)]


def test_fp8_kv_holds_twice_the_blocks_and_ends_the_preemptions() -> None:
    without, with_ = pair("fp8_kv")
    assert without["summary"]["capacity"]["num_blocks"] == 8
    assert with_["summary"]["capacity"]["num_blocks"] == 16
    assert (
        without["summary"]["capacity"]["kv_bytes_per_token"]
        == 2 * with_["summary"]["capacity"]["kv_bytes_per_token"]
    )
    assert sum(r["preemptions"] for r in without["requests"].values()) > 0
    assert sum(r["preemptions"] for r in with_["requests"].values()) == 0
    assert outputs(without) == outputs(with_)


def test_tensor_parallel_four_gpus_step_faster_with_more_kv() -> None:
    without, with_ = pair("tensor_parallel")
    tp2, tp4 = without["summary"]["capacity"], with_["summary"]["capacity"]
    assert (tp2["tp"], tp4["tp"]) == (2, 4)
    assert tp4["num_blocks"] > 40 * tp2["num_blocks"]
    assert [s["scheduled"] for s in without["steps"]] == [s["scheduled"] for s in with_["steps"]]
    durations = [
        (a["end"] - a["start"], b["end"] - b["start"])
        for a, b in zip(without["steps"], with_["steps"], strict=True)
    ]
    assert all(four < two for two, four in durations)
    assert with_["cost"]["tp"] == 4 and with_["cost"]["model"] == "llama-3-70b"


def test_disaggregation_keeps_the_decode_pace_even() -> None:
    without, with_ = pair("disaggregation")
    assert {s["instance"] for s in without["steps"]} == {"0", "1"}
    assert {s["instance"] for s in with_["steps"]} == {"prefill-0", "decode-0"}
    assert with_["summary"]["itl"]["p99"] < without["summary"]["itl"]["p99"]
    # Colocated, B shares instance 1 with D: D's whole prompt step delays B's next token.
    b_times = without["requests"]["B"]["token_times"]
    b_gaps = [y - x for x, y in zip(b_times, b_times[1:], strict=False)]
    assert max(b_gaps) >= 1.0 + 0.25 * 13  # D's 12-token prefill step with B's decode
    assert all("transfer" in r for r in with_["requests"].values())
    assert outputs(without) == outputs(with_)


def test_streaming_changes_the_wait_not_the_schedule() -> None:
    without, with_ = pair("streaming")
    assert without["steps"] == with_["steps"]
    assert without["summary"]["perceived_wait"]["mean"] == without["summary"]["e2el"]["mean"]
    assert with_["summary"]["perceived_wait"]["mean"] == with_["summary"]["ttft"]["mean"]
    assert with_["summary"]["perceived_wait"]["mean"] < without["summary"]["perceived_wait"]["mean"]


def test_table_shows_drafts_instances_and_transfers() -> None:
    from simcli import sim_cli

    proc = sim_cli("table", "--preset", "spec_decode/with", "--detail")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    a_row = next(line for line in lines if line.startswith("A "))
    # Step 2 of A: 4 tokens, 3 drafts, 2 accepted (its pattern starts 2), 3 tokens emitted.
    assert a_row.split("|")[1].split()[:2] == ["P3", "4(d3a2)+3"]
    assert any(line.startswith("drafts ") for line in lines)
    assert any(line.startswith("accepted ") for line in lines)
    assert any(line.startswith("drafts: 27 verified, 15 accepted") for line in lines)

    proc = sim_cli("table", "--preset", "disaggregation/with", "--detail")
    lines = proc.stdout.splitlines()
    instance = next(line for line in lines if line.startswith("instance"))
    assert instance.split("|")[1].split()[:3] == ["prefill-0", "prefill-0", "decode-0"]
    assert next(line for line in lines if line.startswith("A ")).split("|")[1].split()[0] == "P3→"
    assert any(line.startswith("transfer: D ") for line in lines)
    plain = sim_cli("table", "--preset", "disaggregation/with").stdout
    assert "transfer:" not in plain and "instance" in plain
