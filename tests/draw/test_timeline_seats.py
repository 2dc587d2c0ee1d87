"""Static batching's waste is drawn (issue 21: "finished slots sit idle" was a caption the
picture did not show): a request of a static batch that has finished keeps its seat idle until
the batch's last request finishes; continuous batching frees it at once."""

from __future__ import annotations

from pipeline.artifacts.trace import TraceView
from pipeline.fields.serving.scenes.timeline import seat_idle
from sim.presets.scenarios import run_preset


def _trace(name: str) -> TraceView:
    return TraceView.from_json(run_preset(name, detail=True))


def test_a_finished_request_of_a_static_batch_sits_idle_until_the_batch_ends() -> None:
    trace = _trace("batching/without")
    first = {r: next(s.index for s in trace.steps if r in s.scheduled) for r in trace.requests}
    batch = [r for r in trace.requests if first[r] == 1]
    last = max(trace.requests[r].finish or 0 for r in batch)
    idle = 0
    for rid in trace.requests:
        req = trace.requests[rid]
        for step in trace.steps:
            expected = (rid in batch and req.finish is not None and req.finish <= step.start
                        and step.end <= last + 1e-9)
            assert seat_idle(trace, rid, step) == expected, (rid, step.index)
            idle += expected
    assert idle > 0, "the preset's batch has requests of different lengths"


def test_continuous_batching_keeps_no_idle_seat() -> None:
    trace = _trace("batching/with")
    assert not any(seat_idle(trace, r, s) for r in trace.requests for s in trace.steps)
