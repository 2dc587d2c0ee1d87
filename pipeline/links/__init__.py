"""The links stage: verifies every URL the page shows and writes links.json.

    check    the verdicts (`check_links`): provenance, the right page, soft 404s, redirects
    fetch    the HTTP client: private addresses refused, bodies capped, retries, redirects
    match    what a fetched page says: titles, anchors, words; title matching
    soft404  200s that are really "not found" (front-page redirects, phrases, sibling probe)
    report   links.json: settings, targets, results, the cache
"""
