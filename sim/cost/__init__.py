"""Step-time (cost) models: `unit`, `linear`, `roofline`, `calibrated`, chosen from a registry."""

from sim.cost.models import COST_MODELS, CostModel, StepWork, build_cost_model

__all__ = ["COST_MODELS", "CostModel", "StepWork", "build_cost_model"]
