"""The sim stage: runs the simulator presets the plan's panels name and writes sim/*.json
(traces and the ruler's sweep); fills caption placeholders from them.
"""
