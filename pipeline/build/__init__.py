"""The build: where a folder's artifacts go, the content hashes that decide which stage
re-runs, and the stages run in order (ingest → plan → links → sim → render → check → review).

    runner  run_build, and the one function each other CLI command calls
    stages  one function per stage: its inputs' key, its artifact, skipped when unchanged
    state   the Build (folders, config, build.json state), content hashes, the folder's lock
"""

# The stages in the order they run (`tujie build --until STAGE` stops after one of them).
STAGES = ("ingest", "plan", "links", "sim", "render", "check", "review")
