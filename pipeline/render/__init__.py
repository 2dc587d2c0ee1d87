"""The render stage: plan + sim results + link report → one self-contained index.html.

    page         render_page: the sections in reading order, the two-pass assembly
    cards        a concept card (panels, texts, notes, stamp)
    walkthrough  the zero-background walkthrough's sentences and comparison table
    route        the learning route: reading minutes and link verdicts
    source_list  the footer's sources
    glossary     first-use definitions (P1) and the prose they annotate
    fonts_used   which characters each handwriting font sets; @font-face subsets; licences
    csp          the Content-Security-Policy and the minified stylesheet
    diagrams     the bridge to `pipeline.draw`, which draws every SVG
    strings      the page's fixed words, per language
"""
