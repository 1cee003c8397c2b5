#!/usr/bin/env python3
"""Keep the shared build cache from filling the disk.

The target dirs live outside the clone (scripts/env.sh) so that CI and every checkout reuse one another's builds. Cargo
never deletes an artifact: every change of a crate's metadata (its checkout path, features, toolchain) leaves the old
copy in `deps/` beside the new one, and CI's clone sits at a different path from the developer's, so each workspace
crate accumulates copies. On a 2-core box with a ~90 GB quota that filled the disk mid-build (stop 33's CI: "No space
left on device" while linking a test binary).

When the free space under a target dir is below the threshold, this removes, per profile, every artifact in `deps/`
whose build of a crate is the newest of none of its file kinds (for a crates.io dependency, only when nothing read it
for three days), and the incremental caches. What it removes is at worst rebuilt: one of the workspace's own crates
compiles again, nothing more. Above the threshold it does nothing, so a warm cache is never disturbed for no reason.

Usage: prune-build-cache.py [--min-free-gb N] [--force] [--dry-run] TARGET_DIR...
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections import defaultdict

THIRD_PARTY_IDLE_DAYS = 3
ARTIFACT = re.compile(r"^(?P<stem>.+?)-(?P<hash>[0-9a-f]{16})(?P<ext>\..+)?$")


def free_gb(path):
    return shutil.disk_usage(path).free / 1e9


def workspace_crates(repo):
    """Crate names (as in artifact file names) of this workspace's own targets: libraries, binaries, tests, examples.

    Their stale builds are what fills the disk (every test binary is ~190 MB, and every dependency change gives each
    a new hash) and what costs least to build again: they are rebuilt whenever their sources change anyway.
    """
    try:
        out = subprocess.run(["cargo", "metadata", "--no-deps", "--format-version", "1", "--offline"], cwd=repo,
                             capture_output=True, text=True, timeout=120, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return set()
    return {t["name"].replace("-", "_") for pkg in json.loads(out)["packages"] for t in pkg["targets"]}


def stale_artifacts(deps_dir, ours, now):
    """Every file of deps_dir that belongs to a build of a crate that is the newest of none of its file kinds, and,
    for a dependency from crates.io, that nothing has read for `THIRD_PARTY_IDLE_DAYS`.

    One build of a crate is one hash: `libfoo-HASH.rlib`, `libfoo-HASH.rmeta` and `foo-HASH.d` together. A crate can
    be live in several builds at once: a `cargo check` or clippy build leaves an `.rmeta` newer than the full
    build's, and `cargo test -p registro-engine` unifies other features than `cargo test --workspace`, so candle is
    built twice and both builds are in use. Deleting either recompiled candle for minutes. So a build is kept when
    any of its kinds is the newest of that kind for the crate, and a dependency's older build is kept while it is
    read (relatime updates the access time at least once a day when a link reads it).
    """
    builds = defaultdict(lambda: defaultdict(list))
    for name in os.listdir(deps_dir):
        match = ARTIFACT.match(name)
        if not match:
            continue
        path = os.path.join(deps_dir, name)
        try:
            st = os.stat(path)
        except FileNotFoundError:
            continue
        crate = match["stem"].removeprefix("lib")
        builds[crate][match["hash"]].append((match["ext"] or "", st.st_mtime, st.st_atime, path))
    for crate, by_hash in builds.items():
        if len(by_hash) < 2:
            continue
        newest_of_kind = {}
        for artifact_hash, files in by_hash.items():
            for ext, mtime, _, _ in files:
                if ext not in newest_of_kind or mtime > newest_of_kind[ext][0]:
                    newest_of_kind[ext] = (mtime, artifact_hash)
        live = {artifact_hash for _, artifact_hash in newest_of_kind.values()}
        for artifact_hash, files in by_hash.items():
            if artifact_hash in live:
                continue
            last_read = max(atime for _, _, atime, _ in files)
            if crate in ours or now - last_read > THIRD_PARTY_IDLE_DAYS * 86400:
                yield from (path for _, _, _, path in files)


def remove(path, dry_run):
    if dry_run:
        print(f"would remove {path}")
        return 0
    try:
        if os.path.isdir(path) and not os.path.islink(path):
            size = sum(os.path.getsize(os.path.join(root, f)) for root, _, fs in os.walk(path) for f in fs)
            shutil.rmtree(path, ignore_errors=True)
        else:
            size = os.path.getsize(path)
            os.remove(path)
        return size
    except OSError as error:
        print(f"prune-build-cache: could not remove {path}: {error}", file=sys.stderr)
        return 0


def profile_dirs(target_dir):
    """`<target>/<profile>` and, for cross or fuzz builds, `<target>/<triple>/<profile>`."""
    for name in sorted(os.listdir(target_dir)):
        path = os.path.join(target_dir, name)
        if os.path.isdir(os.path.join(path, "deps")):
            yield path
        elif os.path.isdir(path):
            yield from (os.path.join(path, sub) for sub in sorted(os.listdir(path))
                        if os.path.isdir(os.path.join(path, sub, "deps")))


def prune(target_dir, dry_run, ours):
    freed = 0
    for profile_dir in profile_dirs(target_dir):
        deps_dir = os.path.join(profile_dir, "deps")
        if not os.path.isdir(deps_dir):
            continue
        for path in list(stale_artifacts(deps_dir, ours, time.time())):
            freed += remove(path, dry_run)
        incremental = os.path.join(profile_dir, "incremental")
        if os.path.isdir(incremental):
            freed += remove(incremental, dry_run)
    return freed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--min-free-gb", type=float, default=30.0)
    parser.add_argument("--force", action="store_true", help="prune whatever the free space")
    parser.add_argument("--dry-run", action="store_true", help="print what would go, remove nothing")
    parser.add_argument("target_dirs", nargs="+")
    args = parser.parse_args()
    ours = workspace_crates(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for target_dir in args.target_dirs:
        if not os.path.isdir(target_dir):
            continue
        before = free_gb(target_dir)
        if before >= args.min_free_gb and not args.force:
            continue
        freed = prune(target_dir, args.dry_run, ours)
        print(f"prune-build-cache: {target_dir}: {before:.1f} GB free, removed {freed / 1e9:.1f} GB of stale artifacts, "
              f"{free_gb(target_dir):.1f} GB free now")


if __name__ == "__main__":
    main()
