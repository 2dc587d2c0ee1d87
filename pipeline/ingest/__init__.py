"""The ingest stage: reads a folder of articles (md, txt, html, pdf; any encoding) and its
reading list into the typed corpus `sources.json`.
"""
