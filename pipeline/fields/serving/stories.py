"""Each scenario variant's story, told from its simulated run (issue 21, P21): what the engine
was set to, and who waits when, who is preempted, whether anything stalls, when each request
gets its first token and finishes — the prompt shows these lines, never a hand-written
description, so a caption written from them matches its picture.

Everything here is read off the trace (`TraceView`): a preset edit changes its story.
"""

from __future__ import annotations

from collections.abc import Sequence

from pipeline.artifacts.sim import format_number
from pipeline.artifacts.trace import TraceView

# A story speaks of every request of a small run (a run of the cast, or of its parallel
# samples), and of the first five of a larger one, as the pictures draw them
TOLD_REQUESTS = 5
TELL_ALL_UP_TO = 8


def _unit(trace: TraceView) -> str:
    return "ms" if trace.cost.time_unit == "ms" else "steps"


def _when(trace: TraceView, t: float | None) -> str:
    """A time as the story says it: the step it falls in, and the clock when timed."""
    if t is None:
        return "never"
    step = next((s for s in trace.steps if s.start - 1e-9 <= t <= s.end + 1e-9), None)
    at = f"step {step.index}" if step is not None else f"t={format_number(t)}"
    return at if _unit(trace) == "steps" else f"{at} at {format_number(t)} ms"


def setting(trace: TraceView) -> str:
    """The engine the run used, in the words a caption may use."""
    e = trace.engine
    if e is None:
        return ""
    policy = {
        "vllm": "vLLM continuous batching",
        "static": "static batching (the whole batch runs to its last request)",
        "prefill_first": "prefill-first (a waiting prompt runs in a step of its own)",
        "no_kv_cache": "no KV cache (every step recomputes each whole context)",
        "disagg": "a prefill GPU and a decode GPU",
    }.get(e.policy, e.policy)
    parts = [policy, f"token budget {e.max_num_batched_tokens}/step"]
    if e.policy == "vllm" and not e.enable_chunked_prefill:
        parts.append("chunked prefill off (a whole prompt shares one step with the decodes)")
    cost = trace.cost
    if cost.model and cost.gpu:
        gpus = f"{cost.tp} x {cost.gpu} in tensor parallel" if cost.tp > 1 else f"one {cost.gpu}"
        parts.append(f"{cost.model} on {gpus}")
    if e.max_num_seqs < 64:
        parts.append(f"{e.max_num_seqs} sequence slots")
    if e.num_blocks < 1000:
        parts.append(f"KV pool {e.num_blocks} blocks x {e.block_size} tokens")
    if e.kv_alloc != "paged":
        parts.append("KV reserved up front for the longest answer")
    if e.preemption == "none":
        parts.append("no preemption")
    if e.enable_prefix_caching:
        parts.append("prefix caching on")
    if e.num_speculative_tokens:
        parts.append(f"{e.num_speculative_tokens} draft tokens per step")
    if e.instances > 1:
        parts.append(f"{e.instances} instances")
    return ", ".join(parts)


def _stalls(trace: TraceView) -> list[tuple[int, list[str]]]:
    """Steps in which requests that had started decoding got no token (a generation stall)."""
    out = []
    started: set[str] = set()
    finished: set[str] = set()
    for step in trace.steps:
        idle = [r for r in sorted(started - finished) if r not in step.scheduled
                and r in step.running]
        if idle:
            out.append((step.index, idle))
        for rid in step.emitted:
            started.add(rid)
        finished |= set(step.finished)
    return out


def _stall_spans(stalls: Sequence[tuple[int, list[str]]]) -> str:
    """Stall steps as spans of consecutive steps with the same idle requests:
    "step 4 (B, D)", "steps 4-5 (B, D) and step 6 (A, B, C, D)"."""
    spans: list[tuple[int, int, list[str]]] = []
    for index, who in stalls:
        if spans and spans[-1][1] == index - 1 and spans[-1][2] == who:
            spans[-1] = (spans[-1][0], index, who)
        else:
            spans.append((index, index, who))
    said = [
        (f"step {a}" if a == b else f"steps {a}-{b}") + f" ({', '.join(who)})"
        for a, b, who in spans
    ]
    return said[0] if len(said) == 1 else ", ".join(said[:-1]) + " and " + said[-1]


def request_lines(trace: TraceView, limit: int | None = None) -> list[str]:
    """One clause per request: arrival, wait, first token (TTFT), preemptions, finish."""
    if limit is None:
        limit = len(trace.requests) if len(trace.requests) <= TELL_ALL_UP_TO else TOLD_REQUESTS
    out = []
    unit = "" if _unit(trace) == "steps" else " ms"
    for rid in list(trace.requests)[:limit]:
        r = trace.requests[rid]
        first = trace.first_scheduled(rid)
        arrival_step = next((s.index for s in trace.steps if s.start >= r.arrival - 1e-9), None)
        bits = []
        if first is None:
            bits.append("never scheduled")
        elif arrival_step is not None and first.index > arrival_step:
            waited = first.index - arrival_step
            bits.append(f"waits {waited} step{'s' if waited != 1 else ''}, starts step "
                        f"{first.index}")
        else:
            bits.append(f"starts at once (step {first.index})")
        if r.prefix_hit_tokens:
            bits.append(f"reuses {r.prefix_hit_tokens} cached prompt tokens")
        if r.first_token is not None:
            bits.append(f"first token {_when(trace, r.first_token)} (TTFT "
                        f"{format_number(r.ttft or 0)}{unit})")
        if r.preemptions:
            at = [str(s.index) for s in trace.steps if rid in s.preempted]
            bits.append(f"preempted in step {', '.join(at)}")
        bits.append(f"done {_when(trace, r.finish)}" if r.finish is not None
                    else "never finishes")
        arrives = f"arrives for step {arrival_step}" if arrival_step else "arrives"
        out.append(f"{rid} ({arrives}): {', '.join(bits)}")
    return out


def _slo_verdicts(trace: TraceView) -> list[str]:
    """Who meets the run's SLOs and who misses which (the slo scene's ticks and crosses)."""
    if "slo_ttft" not in trace.figures or "slo_tpot" not in trace.figures:
        return []
    from pipeline.fields.serving.scenes.slo import missed, read_slo

    slo_ttft, slo_tpot = read_slo(trace)
    unit = "" if _unit(trace) == "steps" else " ms"
    met, misses = [], []
    for rid, req in trace.requests.items():
        ttft, tpot = missed(req, slo_ttft, slo_tpot)
        if not (ttft or tpot):
            met.append(rid)
        else:
            misses.append(f"{rid} ({' and '.join(w for w, m in (('TTFT', ttft), ('TPOT', tpot)) if m)})")
    verdict = (f"against the SLOs (TTFT <= {format_number(slo_ttft)}{unit}, mean TPOT <= "
               f"{format_number(slo_tpot)}{unit}) {len(met)} of {len(trace.requests)} requests meet "
               f"them ({', '.join(met) or 'none'})")
    if misses:
        verdict += f", missed by {', '.join(misses)}"
    return [verdict]


def _who(ids: list[str]) -> str:
    """What a run's request ids are when they are not the cast's letters."""
    cast = [r for r in ids if len(r) == 1 and r.isupper()]
    if not cast:
        return (". Its requests are anonymous copies, not the cast: the picture draws them as the "
                "cast's beans, so `focus` still names cast letters")
    samples = sorted({r.split("_", 1)[1] for r in ids if "_" in r})
    if samples:
        return "; " + ", ".join(f"k_{x} is answer k of {x}'s n answers" for x in samples)
    return ""


def story(trace: TraceView) -> str:
    """The variant's one-paragraph account: its setting, then what happens, from the run."""
    head = setting(trace)
    lines = request_lines(trace)
    stalls = _stalls(trace)
    tail = []
    if stalls:
        tail.append(f"decoding requests get no token in {_stall_spans(stalls)}")
    preempted = sum(len(s.preempted) for s in trace.steps)
    tail.append(f"{preempted} preemption{'s' if preempted != 1 else ''}" if preempted
                else "no preemption")
    if trace.stalled:
        tail.append(f"the run STALLS after step {len(trace.steps)}: from then on no request can "
                    "progress")
    tail.append(f"{len(trace.steps)} steps in all")
    tail += _slo_verdicts(trace)
    after = "; ".join(tail)
    text = "; ".join(lines) + ". " + after[:1].upper() + after[1:]
    text += _who(list(trace.requests))
    return f"{head}. {text}." if head else f"{text}."


def stories(traces: Sequence[tuple[str, TraceView]]) -> dict[str, str]:
    return {variant: story(trace) for variant, trace in traces}
