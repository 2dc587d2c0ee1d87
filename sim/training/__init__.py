"""The training simulator: one step of data-, tensor- and pipeline-parallel training
(SIM-TRAINING.md), behind `python -m sim train`.

parse       workload JSON -> `TrainWorkload` (bounds first, unknown fields refused)
schedules   per-rank action orders of GPipe, 1F1B and interleaved 1F1B, as torch runs them
costs       action durations and communication under the unit or roofline cost model
timeline    the orders run under those durations: start/end of every action, the bubble
memory      model states under ZeRO 0-3 and activations under tp, pp and recomputation
topology    which link (NVLink or the network) each parallel group crosses
run         all of it -> the output JSON object
presets     named workloads for the page and the command line (not imported by the engine)

Communication times come from `sim.collectives` (shared with the serving cost model); GPU and
model figures from `sim/data/*.json`.
"""
