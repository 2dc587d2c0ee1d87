"""The gradient-accumulation scenario (the training page's card 9, split from "grow the batch"
after a reader found its scaling charts credited to accumulation): the same 8 sequences per GPU
a step as ONE micro-batch or as 8 accumulated ones. Accumulation's trade, as the ruler row
measures it: the fullest GPU holds far less, the step is longer because the gradient all-reduce
can hide behind only the last micro-batch's backward."""

from __future__ import annotations

import pytest

from pipeline.fields.training.showcase import run_view


def test_accumulation_trades_memory_for_an_exposed_all_reduce() -> None:
    whole, whole_values = run_view("accumulation", "without")
    split, split_values = run_view("accumulation", "with")
    assert (whole.microbatches, whole.micro_batch) == (1, 8)
    assert (split.microbatches, split.micro_batch) == (8, 1)
    assert float(split_values["peak_gb"]) < float(whole_values["peak_gb"]) / 3
    assert float(whole_values["exposed_comm"]) == 0.0 < float(split_values["exposed_comm"])
    assert float(split_values["step_time"]) > float(whole_values["step_time"])
    assert float(split_values["mfu_pct"]) < float(whole_values["mfu_pct"])


@pytest.mark.parametrize("sequences", [2, 16])
def test_the_sequences_knob_sets_the_share_of_both_variants(sequences: int) -> None:
    knobs = (("sequences", float(sequences)),)
    whole, _ = run_view("accumulation", "without", knobs)
    split, _ = run_view("accumulation", "with", knobs)
    assert whole.micro_batch * whole.microbatches == split.micro_batch * split.microbatches \
        == sequences
