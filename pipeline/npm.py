"""The npm packages tujie uses at run time — the two handwriting fonts and axe-core — found in
the cache (`pipeline.paths.cache_dir() / "npm"`, or `$TUJIE_NPM_DIR`) and fetched from the npm
registry on first use when missing (one progress line on stderr, the tarball checked against the
registry's sha512 integrity). `make setup` fills the same folder with `npm install`.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import shutil
import sys
import tarfile
import tempfile
import urllib.error
import urllib.request
from pathlib import Path

from pipeline.errors import EnvironmentMissing
from pipeline.paths import cache_dir

# package -> pinned version (the Makefile's NPM_PACKAGES name the same pins)
PINNED: dict[str, str] = {
    "@fontsource/ma-shan-zheng": "5.3.1",
    "@fontsource/patrick-hand": "5.3.0",
    "axe-core": "4.14.1",
}
DEFAULT_REGISTRY = "https://registry.npmjs.org/"
REGISTRY_ENVS = ("TUJIE_NPM_REGISTRY", "npm_config_registry")
FETCH_TIMEOUT_S = 60.0
MAX_TARBALL_BYTES = 200 * 1024 * 1024


def npm_dir() -> Path:
    override = os.environ.get("TUJIE_NPM_DIR")
    return Path(override) if override else cache_dir() / "npm"


def package_dir(package: str) -> Path:
    return npm_dir() / "node_modules" / package


def installed_version(package: str) -> str | None:
    try:
        meta = json.loads((package_dir(package) / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    version = meta.get("version") if isinstance(meta, dict) else None
    return version if isinstance(version, str) else None


def install_hint(package: str) -> str:
    return f"npm install --prefix {npm_dir()} {package}@{PINNED[package]}"


def ensure_package(package: str) -> Path:
    """The package's folder, fetched from the registry first if it is not in the cache."""
    if installed_version(package) is None:
        fetch_package(package)
    return package_dir(package)


def _registry() -> str:
    for name in REGISTRY_ENVS:
        value = os.environ.get(name)
        if value:
            return value if value.endswith("/") else value + "/"
    return DEFAULT_REGISTRY


def _get(url: str) -> bytes:
    request = urllib.request.Request(url, headers={"Accept": "application/json, */*"})
    with urllib.request.urlopen(request, timeout=FETCH_TIMEOUT_S) as response:
        data: bytes = response.read(MAX_TARBALL_BYTES + 1)
    if len(data) > MAX_TARBALL_BYTES:
        raise ValueError(f"{url} is larger than {MAX_TARBALL_BYTES} bytes")
    return data


def _check_integrity(data: bytes, integrity: str, package: str) -> None:
    algorithm, _, digest = integrity.partition("-")
    if algorithm != "sha512":
        return
    actual = base64.b64encode(hashlib.sha512(data).digest()).decode()
    if actual != digest:
        raise ValueError(f"{package}: the tarball does not match the registry's sha512 integrity")


def fetch_package(package: str) -> None:
    """Download `package@PINNED` from the registry and unpack it into the cache, atomically."""
    version = PINNED[package]
    print(f"tujie: fetching {package}@{version} from the npm registry (first use)…", file=sys.stderr)
    try:
        meta = json.loads(_get(f"{_registry()}{package}/{version}"))
        data = _get(meta["dist"]["tarball"])
        _check_integrity(data, meta["dist"].get("integrity", ""), package)
        _unpack(data, package_dir(package))
    except (OSError, ValueError, KeyError, tarfile.TarError, urllib.error.URLError) as err:
        raise EnvironmentMissing(
            f"{package}@{version} is not in {npm_dir()} and could not be fetched ({err}); "
            f"check the network or run `{install_hint(package)}`"
        ) from None


def _unpack(data: bytes, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".fetch-", dir=target.parent))
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
            archive.extractall(staging, filter="data")
        unpacked = staging / "package"
        if target.exists():
            shutil.rmtree(target)
        unpacked.rename(target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
