"""The typed artifacts that cross stage borders, each with load/save: the corpus
(`sources.json`), the simulator's results with their trace views (`sim/*.json`), and the others
as they move here.
"""
