#!/usr/bin/env python3
"""Mirror a source tree to a fixed path, keeping the modification time of every file whose bytes did not change.

CI tests a fresh clone at a new path every time. Cargo keys a workspace crate's build by its path and compares its
sources' modification times with the last build, so from a fresh clone every target directory (CPU, CUDA, fuzz,
Windows) recompiles every workspace crate: about 20 minutes of a 90-minute CI on 2 cores. Built from one fixed
mirror instead, a file that did not change keeps its old time and only the crates that changed are rebuilt.

    scripts/mirror-tree.py SRC DST

Changed or new files are copied with a new modification time (never the source's: an old time on new bytes would
hide the change from cargo); files and folders in DST that SRC lacks are removed, except build outputs listed in
KEEP, which are regenerated anyway. Symlinks are mirrored as links.
"""
import os
import shutil
import stat
import sys

# Ignored, generated paths that are expensive to rebuild and not part of the sources (relative to the tree).
KEEP = {"ui/node_modules", "ui/dist", "src-tauri/gen", "tests/e2e/screenshots"}


def same_bytes(a: str, b: str) -> bool:
    try:
        if os.path.getsize(a) != os.path.getsize(b):
            return False
        with open(a, "rb") as fa, open(b, "rb") as fb:
            while True:
                x, y = fa.read(1 << 20), fb.read(1 << 20)
                if x != y:
                    return False
                if not x:
                    return True
    except OSError:
        return False


def remove(path: str) -> None:
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    else:
        os.remove(path)


def mirror(src: str, dst: str) -> tuple[int, int, int]:
    copied = kept = removed = 0
    for root, dirs, files in os.walk(src):
        rel = os.path.relpath(root, src)
        rel = "" if rel == "." else rel
        dirs[:] = [d for d in dirs if os.path.join(rel, d) not in KEEP]
        out = os.path.join(dst, rel)
        if os.path.lexists(out) and (os.path.islink(out) or not os.path.isdir(out)):
            remove(out)
        os.makedirs(out, exist_ok=True)
        wanted = set(dirs) | set(files)
        for name in os.listdir(out):
            if name not in wanted and os.path.join(rel, name) not in KEEP:
                remove(os.path.join(out, name))
                removed += 1
        for name in files + [d for d in dirs if os.path.islink(os.path.join(root, d))]:
            s, d = os.path.join(root, name), os.path.join(out, name)
            if os.path.islink(s):
                target = os.readlink(s)
                if not (os.path.islink(d) and os.readlink(d) == target):
                    if os.path.lexists(d):
                        remove(d)
                    os.symlink(target, d)
                continue
            if os.path.islink(d) or os.path.isdir(d):
                remove(d)
            if os.path.isfile(d) and same_bytes(s, d):
                kept += 1
            else:
                shutil.copyfile(s, d)  # a new modification time: cargo must see the change
                copied += 1
            mode = stat.S_IMODE(os.stat(s).st_mode)
            if stat.S_IMODE(os.stat(d).st_mode) != mode:
                os.chmod(d, mode)
        # Symlinked folders were mirrored as links above; never descend into them.
        dirs[:] = [x for x in dirs if not os.path.islink(os.path.join(root, x))]
    return copied, kept, removed


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: mirror-tree.py SRC DST")
    src, dst = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    if dst == src or dst.startswith(src + os.sep) or src.startswith(dst + os.sep):
        sys.exit(f"mirror-tree.py: {dst} and {src} must not contain each other")
    c, k, r = mirror(src, dst)
    print(f"mirror-tree.py: {src} -> {dst}: {c} files copied, {k} unchanged (times kept), {r} removed")
