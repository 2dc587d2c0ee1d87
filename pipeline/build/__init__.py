"""The build: where a folder's artifacts go, the content hashes that decide which stage
re-runs, and the stages run in order (ingest → plan → links → sim → render → check → review).
"""
