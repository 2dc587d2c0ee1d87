"""The typed artifacts that cross stage borders, each with load/save: the corpus
(`sources.json`), and the others as they move here.
"""
