"""Invariants of the calibrated step time: the fit's array form is the cost model's own number,
and more work never takes less time."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.config import CostConfig
from sim.cost import StepWork
from sim.cost.calibrated import CalibratedCost, step_ms, step_terms

MACHINES = st.tuples(
    st.sampled_from(["llama-3-8b", "llama-3-70b", "mistral-7b"]),
    st.sampled_from(["a100-80gb", "h100-sxm", "h200"]),
    st.sampled_from([1, 2, 4, 8]),
    st.sampled_from(["bf16", "fp8"]),
)
WORK = st.tuples(
    st.integers(1, 16384), st.integers(0, 400_000), st.integers(1, 256)
).map(lambda t: (t[0], t[0] + t[1], min(t[2], t[0])))


def _cost(machine: tuple[str, str, int, str]) -> CalibratedCost:
    model, gpu, tp, dtype = machine
    return CalibratedCost(CostConfig(kind="calibrated", model=model, gpu=gpu, tp=tp, kv_dtype=dtype))


@settings(max_examples=60, deadline=None)
@given(MACHINES, st.lists(WORK, min_size=1, max_size=8))
def test_the_array_form_is_the_cost_models_number(machine: tuple, works: list) -> None:
    cost = _cost(machine)
    tokens, context, seqs = (np.array([w[i] for w in works], dtype=float) for i in range(3))
    arrays = step_ms(cost.machine, step_terms(cost.machine, tokens, context, context, seqs), cost.params)
    one_by_one = [cost.step_time(StepWork(t, c, sequences=s)) for t, c, s in works]
    assert np.allclose(arrays, one_by_one, rtol=1e-12)


@settings(max_examples=60, deadline=None)
@given(MACHINES, WORK, st.integers(1, 4096), st.integers(1, 100_000))
def test_more_tokens_or_context_never_take_less_time(
    machine: tuple, work: tuple, more_tokens: int, more_context: int
) -> None:
    cost = _cost(machine)
    tokens, context, seqs = work
    base = cost.step_time(StepWork(tokens, context, sequences=seqs))
    assert cost.step_time(StepWork(tokens + more_tokens, context + more_tokens, sequences=seqs)) >= base
    assert cost.step_time(StepWork(tokens, context + more_context, sequences=seqs)) >= base
    assert base > 0
