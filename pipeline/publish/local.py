"""`tujie publish`: copy a checked and reviewed build to `site_root/<name>/` so that a publish
killed at any moment leaves the previous page intact and loadable; keep earlier versions under
`history/`, update the site's index page, and summarise the page's structure in 5-8 bullets. A
build is published only as its review saw it (`review.json` names the build's fingerprint), and
publish hands back the review's summary line so the decision and what ships agree.

Layout of one published page (every switch is a single atomic rename or symlink replace):

    <name>/versions/<ts>/     the live version (index.html, plan.json, check.json, links.json,
                              review.json, shots/)
    <name>/current -> versions/<ts>
    <name>/index.html -> current/index.html   (likewise plan.json, check.json, links.json, shots)
    <name>/history/<ts>/      earlier versions, the newest `keep - 1` of them (page.toml)

One publisher per site at a time: the whole local publish holds `<site>/.publish.lock`.
"""

from __future__ import annotations

import os
import secrets
import shutil
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from pipeline.artifacts.build_state import STATE_FILE, BuildState
from pipeline.artifacts.check import load_check_report
from pipeline.artifacts.review import REVIEW_FILE, ReviewReport, page_fingerprint
from pipeline.config import DEFAULT_KEEP_VERSIONS, page_name_problem
from pipeline.errors import InputError, OutputError, PublishRefused, UsageError
from pipeline.locking import held_lock
from pipeline.plan.model import load_plan
from pipeline.publish.site import (
    PUBLISHED_DIRS,
    PUBLISHED_FILES,
    TIMESTAMP_FORMAT,
    copy_build,
    prune_history,
    version_order,
    write_site_index,
)
from pipeline.publish.summary import page_bullets
from pipeline.publish.targets import refuse_folder_target

STAGING_PREFIX = ".staging-"
SITE_LOCK = ".publish.lock"
# Test hook: sleep at a named step so a test can SIGKILL the publish exactly there.
PAUSE_ENV = "TUJIE_PUBLISH_PAUSE_AT"
PAUSE_SECONDS = 60.0
PAUSE_STEPS = ("copied", "staged", "switched", "linked", "moved")
SERVE_HOST = "127.0.0.1"


@dataclass
class PublishResult:
    address: str  # a file path, or base_url + the page's path
    bullets: list[str]  # 5-8 lines describing the page's structure, from the plan
    history_entry: Path | None  # where the previous version went (None on first publication)
    version: str = ""
    review: str = ""  # the summary line of the review this publish follows


def _pause(step: str) -> None:
    if os.environ.get(PAUSE_ENV) == step:
        print(f"publish paused at {step}", file=sys.stderr, flush=True)
        time.sleep(PAUSE_SECONDS)


def refuse_unless_publishable(
    build_dir: Path, *, allow_unverified: bool, current_inputs_hash: str | None
) -> ReviewReport:
    """Raise `PublishRefused` (one line: the reason and the way out) unless the build may go;
    return its review."""
    built_from = BuildState.load(build_dir / STATE_FILE).inputs_hash
    if current_inputs_hash and built_from and built_from != current_inputs_hash:
        raise PublishRefused(
            f"the build in {build_dir} is older than its inputs (they changed since the build "
            "read them): rebuild with make page, and review it, before publishing"
        )
    if not (build_dir / "index.html").is_file():
        raise PublishRefused(f"{build_dir}/index.html is missing: build the page first (make page)")
    try:
        check = load_check_report(build_dir / "check.json")
    except InputError:
        raise PublishRefused(
            f"{build_dir}/check.json is missing or unreadable: run the browser check "
            "(tujie check) before publishing"
        ) from None
    if not check.ok:
        count = len(check.problems)
        raise PublishRefused(
            f"the last browser check failed ({count} problem(s), see {build_dir}/review.html): "
            "fix them and rebuild; a failed check cannot be overridden"
        )
    if not allow_unverified:
        _refuse_unverified_links(build_dir / "links.json")
    return reviewed(build_dir)


def reviewed(build_dir: Path) -> ReviewReport:
    """The review of exactly this build: publishing ships what the person looked at."""
    try:
        report = ReviewReport.load(build_dir / REVIEW_FILE)
    except InputError:
        raise PublishRefused(
            f"{build_dir} has no review: run `tujie review SRC` (make page does) and read "
            f"{build_dir / 'review.html'} before publishing"
        ) from None
    if report.build != page_fingerprint(build_dir):
        raise PublishRefused(
            f"the build in {build_dir} changed since its review was written: run the review "
            f"again (make page) and read {build_dir / 'review.html'} before publishing"
        )
    return report


def _refuse_unverified_links(path: Path) -> None:
    """A missing or unreadable link report means the links are unverified, as offline does."""
    from pipeline.artifacts.links import load_report

    try:
        report = load_report(path)
    except InputError as err:
        raise PublishRefused(
            f"the links are unverified: {err.one_line()}; or pass --allow-unverified"
        ) from None
    blocking = report.blocking()
    if blocking:
        first = blocking[0]
        raise PublishRefused(
            f"{len(blocking)} link(s) not verified (e.g. {first.url}: {first.status}); "
            "re-run the link check online or pass --allow-unverified"
        )


def publish(
    build_dir: Path,
    site_root: Path,
    *,
    name: str,
    allow_unverified: bool = False,
    to: str | None = None,
    push: bool = False,
    base_url: str | None = None,
    current_inputs_hash: str | None = None,
    keep: int = DEFAULT_KEEP_VERSIONS,
    source: Path | None = None,
) -> PublishResult:
    """Publish `build_dir` as page `name` under `site_root` (or `to`: another directory, or
    `git:BRANCH` to commit the site to that branch; pushed only with `push`), keeping the last
    `keep` versions (the live one included). `source`, the folder the build was made from, is
    never published into (nor is the build)."""
    problem = page_name_problem(name)
    if problem:
        raise UsageError(f"page name: {problem}")
    if keep < 1:
        raise UsageError(f"keep={keep}: at least the live version must be kept (keep >= 1)")
    review = refuse_unless_publishable(
        build_dir, allow_unverified=allow_unverified, current_inputs_hash=current_inputs_hash
    )
    bullets = page_bullets(load_plan(build_dir / "plan.json"))
    if to and to.startswith("git:"):
        from pipeline.publish.git import publish_to_branch  # only git publishing needs git

        address, version = publish_to_branch(
            build_dir, name=name, branch=to[len("git:") :], push=push, base_url=base_url, keep=keep
        )
        return PublishResult(address, bullets, None, version, review.summary)
    root = Path(to) if to else site_root
    refuse_folder_target(root, name, build_dir=build_dir, source=source)
    prepare_site_root(root)
    with held_lock(root / SITE_LOCK, purpose=f"publish to {root}"):
        try:
            history_entry, version = publish_local(build_dir, root, name, keep=keep)
        except OSError as err:
            raise OutputError(
                f"{root}: publishing failed ({err.strerror or err}); the last complete page stays live"
            ) from None
    if base_url:
        address = f"{base_url.rstrip('/')}/{name}/"
    else:
        address = str((root / name / "index.html").absolute())
    return PublishResult(address, bullets, history_entry, version, review.summary)


def prepare_site_root(root: Path) -> None:
    """Create the site folder; OutputError (one line, exit 2) when it is a file or unwritable."""
    try:
        root.mkdir(parents=True, exist_ok=True)
        if not os.access(root, os.W_OK | os.X_OK):
            raise PermissionError(13, "Permission denied")
    except FileExistsError:
        raise OutputError(
            f"{root}: exists and is not a folder; give --to a folder to publish into"
        ) from None
    except OSError as err:
        raise OutputError(
            f"{root}: cannot publish here ({err.strerror or err}); give --to a writable folder"
        ) from None


def _new_version_name(page_dir: Path) -> str:
    """The time stamp, or the newest version's stamp with the next counter: names only grow, so
    a pruned name is never reused (the live version is always there to count from)."""
    stamp = datetime.now(UTC).strftime(TIMESTAMP_FORMAT)
    names = [p.name for d in ("versions", "history") for p in (page_dir / d).glob("*")]
    newest = max(names, key=version_order, default=None)
    if newest is None or version_order(newest)[0] < stamp:
        return stamp
    newest_stamp, counter = version_order(newest)
    return f"{newest_stamp}-{max(counter, 1) + 1}"


def _unique_suffix() -> str:
    return f"{os.getpid()}-{secrets.token_hex(4)}"


def _symlink_atomic(link: Path, target: str) -> None:
    if link.is_symlink() and os.readlink(link) == target:
        return
    tmp = link.with_name(f".{link.name}.new-{_unique_suffix()}")
    tmp.symlink_to(target)
    os.replace(tmp, link)


def _remove_leftovers(page_dir: Path) -> None:
    """What a publish killed mid-way left behind: staging copies and half-made symlinks. Safe
    only under the site lock (no other publisher is working here)."""
    for leftover in page_dir.glob(STAGING_PREFIX + "*"):
        shutil.rmtree(leftover, ignore_errors=True)
    for leftover in page_dir.glob(".*.new-*"):
        if leftover.is_symlink():
            leftover.unlink()


def publish_local(
    build_dir: Path, root: Path, name: str, *, keep: int = DEFAULT_KEEP_VERSIONS
) -> tuple[Path | None, str]:
    """The atomic local publish (see the module docstring); returns (history entry, version).
    The caller holds the site lock."""
    page_dir = root / name
    (page_dir / "versions").mkdir(parents=True, exist_ok=True)
    (page_dir / "history").mkdir(exist_ok=True)
    _remove_leftovers(page_dir)
    version = _new_version_name(page_dir)
    staging = page_dir / f"{STAGING_PREFIX}{version}-{_unique_suffix()}"
    copy_build(build_dir, staging)
    _pause("copied")
    os.rename(staging, page_dir / "versions" / version)
    _pause("staged")
    current = page_dir / "current"
    previous = os.readlink(current).split("/")[-1] if current.is_symlink() else None
    _symlink_atomic(current, f"versions/{version}")
    _pause("switched")
    for item in (*PUBLISHED_FILES, *PUBLISHED_DIRS):
        if (page_dir / "versions" / version / item).exists():
            _symlink_atomic(page_dir / item, f"current/{item}")
    _pause("linked")
    # Everything in versions/ except the live one is an earlier version (including leftovers of
    # a publish killed after its switch): move it to history.
    for old in sorted((page_dir / "versions").iterdir()):
        if old.name != version:
            os.rename(old, page_dir / "history" / old.name)
    _pause("moved")
    prune_history(page_dir / "history", keep - 1)
    write_site_index(root)
    history_entry = page_dir / "history" / previous if previous else None
    if history_entry is not None and not history_entry.is_dir():
        history_entry = None  # pruned: keep = 1 keeps the live version only
    return history_entry, version


def make_server(site_root: Path, port: int) -> ThreadingHTTPServer:
    """An HTTP server for `site_root` on 127.0.0.1 only (port 0 picks a free one)."""
    handler = partial(SimpleHTTPRequestHandler, directory=str(site_root))
    return ThreadingHTTPServer((SERVE_HOST, port), handler)


def serve(site_root: Path, port: int) -> None:
    """`make serve`: serve the published site on localhost until interrupted."""
    with make_server(site_root, port) as server:
        print(f"serving {site_root} at http://{SERVE_HOST}:{server.server_address[1]}/", flush=True)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
