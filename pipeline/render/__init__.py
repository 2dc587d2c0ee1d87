"""The render stage: plan + sim results + link report → one self-contained index.html
(cards, walkthrough, route, glossary, fonts, CSP). The drawings themselves are in `pipeline.draw`.
"""
