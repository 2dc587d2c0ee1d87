"""The links stage: verifies every URL the page shows (httpx, private addresses refused,
soft-404 detection) and writes links.json.
"""
