"""What happens after the model runs a speculative step (SIM-specdecode.md step 4).

Every scheduled request's computed count grows by its tokens; a request that reached its
token count samples: its real drafts are verified (`accept` cycles over verify steps, clipped
to the drafts scheduled; padding accepts 0), rejected draft positions are rolled back (their
blocks stay), `accepted + 1` tokens are appended until max_tokens or max_model_len, and the
drafter gives every unfinished sampler `min(k, max_model_len - tokens)` drafts.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sim.entities import Request
from sim.schedulers import StepPlan


@dataclass
class SpecStepOutcome:
    """What one speculative step did, for the trace: ids with counts, in the contract's order."""

    emitted: list[Request] = field(default_factory=list)
    finished: list[Request] = field(default_factory=list)
    accepted: dict[Request, int] = field(default_factory=dict)
    emitted_tokens: dict[Request, int] = field(default_factory=dict)


def _accepted(req: Request, plan: StepPlan, k: int) -> int:
    scheduled = plan.drafts.get(req, 0)
    if scheduled == 0 or req in plan.padded:
        return 0
    pattern = req.spec.accept or (k,)
    accepted = min(pattern[req.verify_steps % len(pattern)], scheduled)
    req.verify_steps += 1
    req.drafts_verified += scheduled
    req.drafts_accepted += accepted
    return accepted


def complete_spec_step(plan: StepPlan, k: int, max_model_len: int, stamp: float) -> SpecStepOutcome:
    """Apply a speculative step's results to its requests (token times get `stamp`)."""
    out = SpecStepOutcome()
    for req, n in plan.scheduled.items():
        req.computed += n
        req.mid_prefill = req.computed < req.tokens
        if req.computed < req.tokens:
            continue  # a partial prefill chunk samples nothing
        accepted = _accepted(req, plan, k)
        if req in plan.drafts:
            out.accepted[req] = accepted
        req.computed -= plan.drafts.get(req, 0) - accepted  # rollback; blocks are kept
        count = min(accepted + 1, req.spec.max_tokens - req.outputs, max_model_len - req.tokens)
        req.outputs += count
        req.token_times.extend([stamp] * count)
        out.emitted.append(req)
        out.emitted_tokens[req] = count
        if req.outputs >= req.spec.max_tokens or req.tokens >= max_model_len:
            req.finish_time = stamp
            out.finished.append(req)
        else:
            req.drafts = min(k, max_model_len - req.tokens)
    return out


def spec_step_fields(plan: StepPlan, outcome: SpecStepOutcome) -> dict[str, object]:
    """The four step fields SIM-specdecode.md adds to the trace."""
    return {
        "drafts": [[req.id, s] for req, s in plan.drafts.items()],
        "accepted": [[req.id, outcome.accepted.get(req, 0)] for req in plan.drafts],
        "padded": sorted(req.id for req in plan.padded),
        "emitted_tokens": sorted([req.id, c] for req, c in outcome.emitted_tokens.items()),
    }
