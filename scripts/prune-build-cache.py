#!/usr/bin/env python3
"""Keep the shared build cache from filling the disk.

The target dirs live outside the clone (scripts/env.sh) so that CI and every checkout reuse one another's builds. Cargo
never deletes an artifact: every change of a crate's metadata (its checkout path, features, toolchain) leaves the old
copy in `deps/` beside the new one, and CI's clone sits at a different path from the developer's, so each workspace
crate accumulates copies. On a 2-core box with a ~90 GB quota that filled the disk mid-build (stop 33's CI: "No space
left on device" while linking a test binary).

When the free space under a target dir is below the threshold, this removes, per profile, every artifact in `deps/`
whose build of a crate is the newest of none of its file kinds, and the incremental caches. What it removes is at
worst rebuilt: a crate built twice on purpose (once for build scripts, once for the target) may compile again once,
nothing more. Above the threshold it does nothing, so a warm cache is never disturbed for no reason.

Usage: prune-build-cache.py [--min-free-gb N] [--force] [--dry-run] TARGET_DIR...
"""
import argparse
import os
import re
import shutil
import sys
from collections import defaultdict

ARTIFACT = re.compile(r"^(?P<stem>.+?)-(?P<hash>[0-9a-f]{16})(?P<ext>\..+)?$")


def free_gb(path):
    return shutil.disk_usage(path).free / 1e9


def stale_artifacts(deps_dir):
    """Every file of deps_dir that belongs to a build of a crate that is the newest of none of its file kinds.

    One build of a crate is one hash: `libfoo-HASH.rlib`, `libfoo-HASH.rmeta` and `foo-HASH.d` together. A crate can
    be live in two builds at once: a `cargo check` or clippy build leaves an `.rmeta` newer than the full build's, and
    deleting the full build's `.rmeta` would recompile it (and candle behind it). So a build is kept when any of its
    kinds is the newest of that kind for the crate, and only builds newest in nothing go.
    """
    builds = defaultdict(lambda: defaultdict(list))
    for name in os.listdir(deps_dir):
        match = ARTIFACT.match(name)
        if not match:
            continue
        path = os.path.join(deps_dir, name)
        try:
            mtime = os.stat(path).st_mtime
        except FileNotFoundError:
            continue
        crate = match["stem"].removeprefix("lib")
        builds[crate][match["hash"]].append((match["ext"] or "", mtime, path))
    for by_hash in builds.values():
        if len(by_hash) < 2:
            continue
        newest_of_kind = {}
        for artifact_hash, files in by_hash.items():
            for ext, mtime, _ in files:
                if ext not in newest_of_kind or mtime > newest_of_kind[ext][0]:
                    newest_of_kind[ext] = (mtime, artifact_hash)
        live = {artifact_hash for _, artifact_hash in newest_of_kind.values()}
        for artifact_hash, files in by_hash.items():
            if artifact_hash not in live:
                yield from (path for _, _, path in files)


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


def prune(target_dir, dry_run):
    freed = 0
    for profile_dir in profile_dirs(target_dir):
        deps_dir = os.path.join(profile_dir, "deps")
        if not os.path.isdir(deps_dir):
            continue
        for path in list(stale_artifacts(deps_dir)):
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
    for target_dir in args.target_dirs:
        if not os.path.isdir(target_dir):
            continue
        before = free_gb(target_dir)
        if before >= args.min_free_gb and not args.force:
            continue
        freed = prune(target_dir, args.dry_run)
        print(f"prune-build-cache: {target_dir}: {before:.1f} GB free, removed {freed / 1e9:.1f} GB of stale artifacts, "
              f"{free_gb(target_dir):.1f} GB free now")


if __name__ == "__main__":
    main()
