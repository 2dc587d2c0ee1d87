"""The sim stage: runs the simulator presets the plan's panels name and the ruler's sweep, and
hands back a `SimResults` (`pipeline.artifacts.sim`, stored as sim/*.json).
"""
