"""sim.presets.field_more's pairs differ the way their descriptions say."""

from __future__ import annotations

from typing import Any

from sim.presets.field_more import GOODPUT_SLO, LOAD_RATES, SAMPLES
from sim.presets.scenarios import run_preset


def pair(sid: str) -> tuple[dict[str, Any], dict[str, Any]]:
    return run_preset(f"{sid}/without"), run_preset(f"{sid}/with")


def test_goodput_chunking_keeps_more_requests_within_the_slo() -> None:
    without, with_ = pair("goodput")
    assert (without["summary"]["good_requests"], with_["summary"]["good_requests"]) == (2, 3)
    rates = [t["summary"]["request_throughput"] for t in (without, with_)]
    assert abs(rates[0] - rates[1]) < 0.1 * rates[0]  # about the same throughput
    assert without["summary"]["goodput"] < with_["summary"]["goodput"]
    for trace in (without, with_):
        assert trace["figures"] == {f"slo_{k}": v for k, v in GOODPUT_SLO.items()}
        for r in trace["requests"].values():
            meets = r["ttft"] <= GOODPUT_SLO["ttft"] and r["tpot"] <= GOODPUT_SLO["tpot"]
            assert r["meets_slo"] == meets


def test_parallel_sampling_children_share_the_prompt_blocks_only_with_caching() -> None:
    without, with_ = pair("parallel_sampling")
    children = [f"{i}_D" for i in range(SAMPLES)]
    for trace in (without, with_):
        assert trace["parents"]["D"]["children"] == children
        assert [trace["requests"][c]["output_tokens"] for c in children] == [6] * SAMPLES
    assert all(without["requests"][c]["prefix_hit_tokens"] == 0 for c in children)
    assert [with_["requests"][c]["prefix_hit_tokens"] for c in children] == [0, 8, 8]
    assert min(s["free_blocks"] for s in with_["steps"]) > min(
        s["free_blocks"] for s in without["steps"])


def test_load_curve_more_slots_move_the_knee_right() -> None:
    without, with_ = pair("load_curve")
    assert without["figures"] == with_["figures"]  # both panels draw both curves
    fig = with_["figures"]
    assert [fig[f"rate_{k}"] for k in range(len(LOAD_RATES))] == list(LOAD_RATES)
    assert fig["without_knee"] < fig["with_knee"]
    for v in ("without", "with"):
        p50 = [fig[f"{v}_p50_{k}"] for k in range(len(LOAD_RATES))]
        p99 = [fig[f"{v}_p99_{k}"] for k in range(len(LOAD_RATES))]
        assert all(a <= b for a, b in zip(p50, p99, strict=True))
        assert p50[-1] > 3 * p50[0]
    assert without["engine"]["max_num_seqs"] == 2 and with_["engine"]["max_num_seqs"] == 4


def test_the_knee_is_read_on_the_tail() -> None:
    """The knee is the first rate whose p99 TTFT passes KNEE_FACTOR times its light-load p99:
    a load test watches the tail, since the median can look fine while p99 has left (reader
    sf1, against the knee article)."""
    from sim.presets.field_more import KNEE_FACTOR

    fig = pair("load_curve")[1]["figures"]
    for v in ("without", "with"):
        p99 = [fig[f"{v}_p99_{k}"] for k in range(len(LOAD_RATES))]
        first = next(k for k, x in enumerate(p99) if x > KNEE_FACTOR * p99[0])
        assert fig[f"{v}_knee"] == LOAD_RATES[first]
        assert all(x <= KNEE_FACTOR * p99[0] for x in p99[:first])
