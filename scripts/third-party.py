#!/usr/bin/env python3
"""Writes THIRD_PARTY.md from the lock files, or checks that it is current (Python 3.11 stdlib only).

  python3 scripts/third-party.py           # regenerate THIRD_PARTY.md
  python3 scripts/third-party.py --check   # exit 1 if THIRD_PARTY.md is stale or a shipped licence is not allowed

Sources, nothing written by hand except docs/third-party-header.md (included verbatim at the top):
- Rust: `cargo metadata --format-version 1 --locked --filter-platform T [--features F]` for every build that ships
  (BUILDS below). The crates listed as shipped are those reached from the two binaries, `registro`
  (crates/registro-cli) and `registro-app` (src-tauri), through normal dependency edges without passing through a
  proc-macro. Proc-macros, build scripts' dependencies and everything only they use are listed separately as
  build-time crates (compiled on the build machine, not linked; no licence texts). Dev-dependencies are excluded.
  Our own workspace crates (`MIT OR Apache-2.0`) are not listed.
- npm: the packages that ui/package-lock.json resolves for ui/package.json's `dependencies` (and their own
  dependencies, transitively) — the only ones Vite bundles into ui/dist; devDependencies are never read. Licence,
  repository and licence files come from ui/node_modules/<pkg>/ (installed by scripts/setup-system.sh).
- Models: models/*.toml (the catalogue the app downloads from; no model is in the package).
- Licence texts: from each crate's / package's own files (~/.cargo/registry/src/..., ui/node_modules/...), one
  copy of each distinct text with the packages that carry it.

Licences are judged against deny.toml's `[licenses] allow` list, the one list cargo-deny uses too; an expression
passes when some choice of its OR alternatives is all allowed. A shipped crate or npm package whose licence does not
pass makes both modes exit 1, naming it.
"""
from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import subprocess
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "THIRD_PARTY.md"
HEADER = ROOT / "docs" / "third-party-header.md"
DENY = ROOT / "deny.toml"
UI = ROOT / "ui"

# The binaries that ship, by package name.
ROOTS = ("registro-cli", "registro-app")
# Every build that ships: (label, target triple, cargo features). A crate in all of them has no "Builds" note.
BUILDS = [
    ("linux", "x86_64-unknown-linux-gnu", []),
    ("linux-cuda", "x86_64-unknown-linux-gnu", ["registro-cli/cuda", "registro-app/cuda"]),
    ("windows", "x86_64-pc-windows-gnu", []),
    ("windows-msvc", "x86_64-pc-windows-msvc", []),
    ("macos", "aarch64-apple-darwin", []),
]

# For an OR expression, the alternative whose text is reproduced: the first of these the crate ships a file for.
PREFERENCE = [
    "MIT", "Apache-2.0", "Apache-2.0 WITH LLVM-exception", "BSD-2-Clause", "BSD-3-Clause", "ISC", "Zlib", "0BSD",
    "MIT-0", "Unlicense", "CC0-1.0", "BSL-1.0", "Unicode-3.0", "MPL-2.0", "CDLA-Permissive-2.0", "OFL-1.1",
]

# C/C++ libraries compiled into a crate whose own licence file does not cover them: their notices, relative to the
# crate's root, are reproduced with the crate's. (SQLite, bundled by libsqlite3-sys, is in the public domain.)
BUNDLED_NOTICES = {
    "onig_sys": ["oniguruma/COPYING"],
}

# Where a licence's terms start, for licences whose copies differ only in the copyright lines above them.
BODY_START = {
    "MIT": r"^\s*Permission is hereby granted",
    "ISC": r"^\s*Permission to use, copy, modify",
    "0BSD": r"^\s*Permission to use, copy, modify",
    "BSD-2-Clause": r"^\s*Redistribution and use in source and binary forms",
    "BSD-3-Clause": r"^\s*Redistribution and use in source and binary forms",
    "Zlib": r"^\s*This software is provided ['‘]as[- ]is",
}
LICENCE_TITLE = re.compile(r"(?i)^(the )?(mit|isc|zlib|bsd[- \w]*) licen[sc]e( \(\w+\))?:?$|^=+$|^-+$")

# The MIT body, for a crate that declares MIT but ships no licence file (the copyright line is then its authors).
MIT_BODY = """Permission is hereby granted, free of charge, to any person obtaining a copy of this software and associated
documentation files (the "Software"), to deal in the Software without restriction, including without limitation the
rights to use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies of the Software, and to permit
persons to whom the Software is furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all copies or substantial portions of the
Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT NOT LIMITED TO THE
WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR
COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR
OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE."""


class Fail(Exception):
    pass


# ---------------------------------------------------------------------------------------------------------------------
# SPDX expressions: leaves are licence ids (with an optional `WITH exception`), nodes are ("OR"|"AND", [children]).


def parse_spdx(text: str):
    expr = text.strip()
    if not expr:
        return "UNKNOWN"
    # Old crates write "MIT/Apache-2.0": a slash between ids means OR.
    expr = re.sub(r"\s*/\s*", " OR ", expr)
    tokens = re.findall(r"\(|\)|[^\s()]+", expr)
    pos = 0

    def peek():
        return tokens[pos] if pos < len(tokens) else None

    def take():
        nonlocal pos
        pos += 1
        return tokens[pos - 1]

    def primary():
        tok = take() if peek() is not None else None
        if tok is None:
            raise Fail(f"licence expression ends early: {text!r}")
        if tok == "(":
            node = disjunction()
            if take() != ")":
                raise Fail(f"unbalanced parentheses in licence expression {text!r}")
            return node
        if tok.upper() in ("AND", "OR", "WITH", ")"):
            raise Fail(f"unexpected {tok!r} in licence expression {text!r}")
        if peek() is not None and peek().upper() == "WITH":
            take()
            return f"{tok} WITH {take()}"
        return tok

    def conjunction():
        items = [primary()]
        while peek() is not None and peek().upper() == "AND":
            take()
            items.append(primary())
        return items[0] if len(items) == 1 else ("AND", items)

    def disjunction():
        items = [conjunction()]
        while peek() is not None and peek().upper() == "OR":
            take()
            items.append(conjunction())
        return items[0] if len(items) == 1 else ("OR", items)

    node = disjunction()
    if pos != len(tokens):
        raise Fail(f"cannot parse licence expression {text!r}")
    return node


def spdx_str(node, top=True) -> str:
    """Canonical form: operands sorted, so `Apache-2.0 OR MIT` and `MIT/Apache-2.0` group together."""
    if isinstance(node, str):
        return node
    op, items = node
    parts = sorted(spdx_str(i, False) for i in items)
    s = f" {op} ".join(parts)
    return s if top else f"({s})"


def leaf_allowed(leaf: str, allow: set[str]) -> bool:
    # An exception only adds permissions, so `X WITH e` passes where X does (or where it is listed as it is).
    return leaf in allow or (" WITH " in leaf and leaf.split(" WITH ")[0] in allow)


def allowed(node, allow: set[str]) -> bool:
    if isinstance(node, str):
        return leaf_allowed(node, allow)
    op, items = node
    results = [allowed(i, allow) for i in items]
    return any(results) if op == "OR" else all(results)


def choose(node, allow: set[str], has_text) -> list[str]:
    """The licences whose terms the distribution follows: all of an AND, the best allowed alternative of an OR
    (one the package ships a text for, then by PREFERENCE)."""
    if isinstance(node, str):
        return [node]
    op, items = node
    if op == "AND":
        return [leaf for i in items for leaf in choose(i, allow, has_text)]

    def rank(option):
        leaves = choose(option, allow, has_text)
        return (
            not allowed(option, allow),
            sum(not has_text(leaf) for leaf in leaves),
            sum(PREFERENCE.index(leaf) if leaf in PREFERENCE else len(PREFERENCE) for leaf in leaves),
        )

    return choose(min(items, key=rank), allow, has_text)


# ---------------------------------------------------------------------------------------------------------------------
# Licence files: which licence a file holds, by its name or, for a plain LICENSE/COPYING, by its words.

LICENCE_FILE = re.compile(r"(?i)^(licen[cs]e|copying|unlicense|notice|copyright)")


def sniff(text: str) -> set[str]:
    # Words only: some files are source comments (`// Permission to use, ...`).
    t = " ".join(re.sub(r"(?m)^\s*(//+|#+|\*+|/\*+|\*/)", " ", text).split())
    found = set()
    if "Permission is hereby granted, free of charge" in t and "Boost Software License" not in t:
        found.add("MIT")
    if "Apache License" in t and "Version 2.0" in t:
        found.add("Apache-2.0 WITH LLVM-exception" if "LLVM Exceptions" in t else "Apache-2.0")
    if "Redistribution and use in source and binary forms" in t:
        found.add("BSD-3-Clause" if re.search(r"Neither the names? of", t) else "BSD-2-Clause")
    if "Permission to use, copy, modify, and/or distribute this software for any purpose" in t:
        found.add("ISC" if "above copyright notice and this permission notice appear" in t else "0BSD")
    if "This software is provided 'as-is'" in t or "altered source versions must be plainly marked" in t:
        found.add("Zlib")
    if re.search(r"Mozilla Public License,? [Vv]ersion 2\.0", t):
        found.add("MPL-2.0")
    if "This is free and unencumbered software released into the public domain" in t:
        found.add("Unlicense")
    if re.search(r"UNICODE LICENSE V3|UNICODE, INC\. LICENSE AGREEMENT", t, re.I):
        found.add("Unicode-3.0")
    if "Boost Software License" in t:
        found.add("BSL-1.0")
    if "Community Data License Agreement" in t and "Permissive" in t:
        found.add("CDLA-Permissive-2.0")
    if "SIL OPEN FONT LICENSE" in t.upper():
        found.add("OFL-1.1")
    if "CC0 1.0 Universal" in t:
        found.add("CC0-1.0")
    return found


BY_NAME = [
    (r"llvm", "Apache-2.0 WITH LLVM-exception"),
    (r"apache", "Apache-2.0"),
    (r"0bsd", "0BSD"),
    (r"mit", "MIT"),
    (r"zlib", "Zlib"),
    (r"bsd", None),  # 2- or 3-clause: read it
    (r"isc", "ISC"),
    (r"unlicense", "Unlicense"),
    (r"boost", "BSL-1.0"),
    (r"unicode", "Unicode-3.0"),
    (r"ofl", "OFL-1.1"),
]
# Extra notices that travel with a crate's licence whatever the licence (Apache NOTICE files, bundled code).
NOTICE_NAME = re.compile(r"(?i)notice|third.?party")


def read_text(path: Path) -> str:
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    return text.replace("\r\n", "\n").replace("\r", "\n").strip("\n")


@dataclass
class LicenceFiles:
    by_id: dict[str, Path] = field(default_factory=dict)
    notices: list[Path] = field(default_factory=list)


def licence_files(directory: Path, declared_file: str | None = None) -> LicenceFiles:
    found = LicenceFiles()
    if not directory.is_dir():
        return found
    names = sorted(n for n in os.listdir(directory) if LICENCE_FILE.match(n) and (directory / n).is_file())
    if declared_file and declared_file not in names and (directory / declared_file).is_file():
        names.append(declared_file)
    for name in names:
        path = directory / name
        if name.lower().endswith(".spdx"):
            continue  # SPDX metadata, no licence text
        if NOTICE_NAME.search(name):
            found.notices.append(path)
            continue
        ids = None
        low = name.lower()
        for pattern, ident in BY_NAME:
            if re.search(pattern, low.split("licen", 1)[-1] if "licen" in low else low):
                ids = {ident} if ident else None
                break
        if ids is None:
            ids = sniff(read_text(path))
            if not ids:
                # No licence's words: a pointer or a copyright statement (ring's LICENSE, Rust-style COPYRIGHT).
                found.notices.append(path)
        for ident in ids:
            # A file named for the licence wins over a plain LICENSE that also holds it.
            if ident not in found.by_id or LICENCE_FILE.sub("", found.by_id[ident].name).strip("-_.") in ("", "md", "txt"):
                found.by_id[ident] = path
    return found


# ---------------------------------------------------------------------------------------------------------------------


@dataclass
class Pkg:
    ecosystem: str  # "crate" | "npm"
    name: str
    version: str
    licence: str  # canonical expression
    url: str
    directory: Path
    authors: list[str]
    licence_file: str | None = None
    builds: set[str] = field(default_factory=set)


def cargo_metadata(target: str, features: list[str]) -> dict:
    cmd = ["cargo", "metadata", "--format-version", "1", "--locked", "--filter-platform", target]
    if features:
        cmd += ["--features", ",".join(features)]
    res = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if res.returncode != 0:
        raise Fail(f"`{' '.join(cmd)}` failed:\n{res.stderr.strip()}")
    return json.loads(res.stdout)


def rust_packages() -> tuple[dict[tuple, Pkg], dict[tuple, Pkg], list[str]]:
    """The shipped and build-time crates, and the workspace's crates.io dependencies with a `*` requirement."""
    wildcards: set[str] = set()
    shipped: dict[tuple, Pkg] = {}
    build_time: dict[tuple, Pkg] = {}
    for label, target, features in BUILDS:
        meta = cargo_metadata(target, features)
        pkgs = {p["id"]: p for p in meta["packages"]}
        nodes = {n["id"]: n for n in meta["resolve"]["nodes"]}
        members = set(meta["workspace_members"])
        for pid in members:
            for dep in pkgs[pid]["dependencies"]:
                if dep.get("source") and dep["req"].strip() in ("*", ""):
                    wildcards.add(f"{pkgs[pid]['name']} depends on {dep['name']} = \"*\" (name a version)")
        roots = [i for i in members if pkgs[i]["name"] in ROOTS]
        if len(roots) != len(ROOTS):
            raise Fail(f"cargo metadata has no package named {ROOTS}")

        def is_proc_macro(pid):
            return any("proc-macro" in t["kind"] for t in pkgs[pid]["targets"])

        # Linked: normal edges from the binaries, never into a proc-macro.
        linked, stack = set(), list(roots)
        while stack:
            pid = stack.pop()
            if pid in linked:
                continue
            linked.add(pid)
            for dep in nodes[pid]["deps"]:
                if any(k["kind"] is None for k in dep["dep_kinds"]) and not is_proc_macro(dep["pkg"]):
                    stack.append(dep["pkg"])
        # Build-time: proc-macros and build-dependencies reached from anything above, and all they use.
        tools, stack = set(), []
        for pid in linked:
            for dep in nodes[pid]["deps"]:
                normal = any(k["kind"] is None for k in dep["dep_kinds"])
                build = any(k["kind"] == "build" for k in dep["dep_kinds"])
                if build or (normal and is_proc_macro(dep["pkg"])):
                    stack.append(dep["pkg"])
        while stack:
            pid = stack.pop()
            if pid in tools or pid in linked:
                continue
            tools.add(pid)
            for dep in nodes[pid]["deps"]:
                if any(k["kind"] in (None, "build") for k in dep["dep_kinds"]):
                    stack.append(dep["pkg"])
        for bucket, ids in ((shipped, linked), (build_time, tools)):
            for pid in ids:
                if pid in members:
                    continue
                p = pkgs[pid]
                key = (p["name"], p["version"])
                if key not in bucket:
                    bucket[key] = Pkg(
                        "crate", p["name"], p["version"],
                        spdx_str(parse_spdx(p["license"] or "")) if p["license"] else "UNKNOWN",
                        (p.get("repository") or p.get("homepage") or f"https://crates.io/crates/{p['name']}").rstrip("/"),
                        Path(p["manifest_path"]).parent, p.get("authors") or [], p.get("license_file"),
                    )
                    if p["source"] is None:
                        bucket[key].url = "(path dependency outside the workspace)"
                bucket[key].builds.add(label)
    for key in list(build_time):
        if key in shipped:
            del build_time[key]
    return shipped, build_time, sorted(wildcards)


def npm_packages() -> dict[tuple, Pkg]:
    lock_path = UI / "package-lock.json"
    lock = json.loads(lock_path.read_text())
    entries = lock.get("packages")
    if entries is None:
        raise Fail("ui/package-lock.json has no `packages` map (lockfileVersion 2 or later is needed)")
    manifest = json.loads((UI / "package.json").read_text())
    if not (UI / "node_modules").is_dir():
        raise Fail("ui/node_modules is missing: run `bash scripts/setup-system.sh` (npm ci in ui/) first")

    def resolve(from_path: str, name: str) -> str:
        # Node's lookup: <from>/node_modules/<name>, then each parent's node_modules.
        base = from_path
        while True:
            candidate = f"{base}/node_modules/{name}" if base else f"node_modules/{name}"
            if candidate in entries:
                return candidate
            if not base:
                raise Fail(f"ui/package-lock.json does not resolve {name!r} (needed by {from_path or 'ui'})")
            base = base.rsplit("/node_modules/", 1)[0] if "/node_modules/" in base else ""

    out: dict[tuple, Pkg] = {}
    seen = set()
    stack = [resolve("", n) for n in sorted(manifest.get("dependencies", {}))]
    while stack:
        path = stack.pop()
        if path in seen:
            continue
        seen.add(path)
        entry = entries[path]
        name = path.rsplit("node_modules/", 1)[-1]
        pkg_dir = UI / path
        pj_path = pkg_dir / "package.json"
        if not pj_path.is_file():
            raise Fail(f"ui/{path} is not installed: run `bash scripts/setup-system.sh` (npm ci in ui/)")
        pj = json.loads(pj_path.read_text())
        if pj.get("version") != entry.get("version"):
            raise Fail(f"ui/{path} is {pj.get('version')}, the lock file says {entry.get('version')}: run npm ci in ui/")
        lic = pj.get("license")
        if isinstance(lic, dict):
            lic = lic.get("type")
        if lic is None and isinstance(pj.get("licenses"), list):
            lic = " OR ".join(l.get("type", "UNKNOWN") if isinstance(l, dict) else str(l) for l in pj["licenses"])
        lic = spdx_str(parse_spdx(lic)) if isinstance(lic, str) and lic.strip() else "UNKNOWN"
        repo = pj.get("repository")
        url = repo.get("url") if isinstance(repo, dict) else repo
        if url:
            url = re.sub(r"^git\+", "", url)
            url = re.sub(r"\.git$", "", url)
            url = re.sub(r"^git://", "https://", url)
            if re.fullmatch(r"[\w.-]+/[\w.-]+", url):
                url = f"https://github.com/{url}"
            if isinstance(repo, dict) and repo.get("directory"):
                url = f"{url}/tree/HEAD/{repo['directory']}"
        url = url or pj.get("homepage") or f"https://www.npmjs.com/package/{name}"
        authors = [pj["author"]["name"] if isinstance(pj.get("author"), dict) else pj["author"]] if pj.get("author") else []
        out[(name, entry["version"])] = Pkg("npm", name, entry["version"], lic, url, pkg_dir, authors)
        deps = {**entry.get("dependencies", {}), **entry.get("optionalDependencies", {})}
        for dep in sorted(deps):
            try:
                stack.append(resolve(path, dep))
            except Fail:
                if dep not in entry.get("optionalDependencies", {}):
                    raise
    return out


def models() -> list[dict]:
    rows = []
    for path in sorted((ROOT / "models").glob("*.toml")):
        data = tomllib.loads(path.read_text())
        rows.append({"id": data.get("id", path.stem), "name": data.get("name", ""), "licence": data.get("licence", "?")})
    return rows


# ---------------------------------------------------------------------------------------------------------------------


def normalise(text: str | None) -> str:
    return " ".join(text.split()) if text is not None else ""


def fence(text: str) -> str:
    longest = max((len(m) for m in re.findall(r"`+|~+", text)), default=0)
    mark = "`" * max(3, longest + 1)
    return f"{mark}text\n{text}\n{mark}"


def cell(text: str) -> str:
    return text.replace("|", "\\|")


def render(shipped, build_time, npm, allow) -> tuple[str, list[str]]:
    problems = []
    for pkg in [*shipped.values(), *npm.values()]:
        if not allowed(parse_spdx(pkg.licence), allow):
            where = "ui/dist (a `dependencies` package of ui/package.json)" if pkg.ecosystem == "npm" else "registro / registro-app"
            problems.append(f"{pkg.ecosystem} {pkg.name} {pkg.version}: licence `{pkg.licence}` is not allowed "
                            f"(shipped in {where}; allowed: deny.toml [licenses] allow)")

    # The texts: (licence id, normalised text) -> the text, who carries it.
    texts: dict[tuple[str, str], dict] = {}
    notices: dict[str, dict] = {}

    def add_text(ident, text, owner, note=""):
        notice = ""
        if text is not None and ident in BODY_START:
            # The copyright lines differ from package to package, the terms below them do not: one copy of the
            # terms, each package's own copyright lines listed above it.
            m = re.search(BODY_START[ident], text, re.M)
            if m:
                head = [l for l in text[: m.start()].strip("\n").splitlines() if not LICENCE_TITLE.match(l.strip())]
                notice, text = "\n".join(head).strip("\n"), text[m.start():].strip("\n")
        key = (ident, normalise(text))
        entry = texts.setdefault(key, {"text": text, "users": set(), "notes": {}, "notices": {}})
        entry["users"].add(owner)
        if notice:
            entry["notices"][owner] = notice
        if note:
            entry["notes"].setdefault(note, set()).add(owner)

    for pkg in sorted([*shipped.values(), *npm.values()], key=lambda p: (p.ecosystem, p.name.lower(), p.version)):
        owner = f"{pkg.name} {pkg.version}"
        files = licence_files(pkg.directory, pkg.licence_file)
        chosen = choose(parse_spdx(pkg.licence), allow, lambda leaf: leaf in files.by_id)
        for ident in chosen:
            if ident in files.by_id:
                add_text(ident, read_text(files.by_id[ident]), owner)
            elif ident == "MIT":
                who = ", ".join(re.sub(r"\s*<[^>]*>", "", a) for a in pkg.authors) or f"the {pkg.name} authors"
                add_text(ident, f"Copyright (c) {who}\n\n{MIT_BODY}", owner,
                         "ship no licence file; their authors are named as the copyright holders")
            else:
                add_text(ident, None, owner, "ship no licence file; the text as other packages ship it")
        for path in files.notices + [pkg.directory / rel for rel in BUNDLED_NOTICES.get(pkg.name, [])]:
            if path.is_file():
                text = read_text(path)
                n = notices.setdefault(normalise(text), {"text": text, "users": set(), "files": set()})
                n["users"].add(owner)
                n["files"].add(path.name if path.parent == pkg.directory else str(path.relative_to(pkg.directory)))

    # Packages that ship no text of their licence: the text most packages ship for it.
    for key in [k for k, v in texts.items() if v["text"] is None]:
        ident = key[0]
        donors = sorted(((len(v["users"]), k) for k, v in texts.items() if k[0] == ident and v["text"] is not None),
                        reverse=True)
        entry = texts.pop(key)
        if not donors:
            problems.append(f"no text of {ident} found for {', '.join(sorted(entry['users']))}")
            continue
        donor = texts[donors[0][1]]
        donor["users"] |= entry["users"]
        for note, owners in entry["notes"].items():
            donor["notes"].setdefault(note, set()).update(owners)

    lines = [
        "<!-- Generated by scripts/third-party.py from Cargo.lock, ui/package-lock.json and models/*.toml; do not edit.",
        "     Edit docs/third-party-header.md or the lock files, then run `python3 scripts/third-party.py`;",
        "     `python3 scripts/third-party.py --check` (in scripts/check-licences.sh) fails while this file is stale. -->",
        "",
        HEADER.read_text().strip("\n"),
        "",
    ]

    labels = [b[0] for b in BUILDS]

    def builds_note(pkg):
        return "" if pkg.builds == set(labels) else ", ".join(l for l in labels if l in pkg.builds)

    def grouped(pkgs, with_builds):
        groups: dict[str, list[Pkg]] = {}
        for p in pkgs:
            groups.setdefault(p.licence, []).append(p)
        for lic in sorted(groups, key=lambda l: (-len(groups[l]), l)):
            members = sorted(groups[lic], key=lambda p: (p.name.lower(), p.version))
            lines.append(f"### {lic} ({len(members)})")
            lines.append("")
            if with_builds:
                lines.append("| Package | Version | Repository | Only in |")
                lines.append("| --- | --- | --- | --- |")
                for p in members:
                    lines.append(f"| {cell(p.name)} | {p.version} | {cell(p.url)} | {builds_note(p)} |")
            else:
                lines.append("| Package | Version | Repository |")
                lines.append("| --- | --- | --- |")
                for p in members:
                    lines.append(f"| {cell(p.name)} | {p.version} | {cell(p.url)} |")
            lines.append("")

    lines += [
        "## JavaScript packages bundled into the web UI",
        "",
        f"{len(npm)} packages: ui/package.json's `dependencies` as ui/package-lock.json resolves them, with their own "
        "dependencies. Vite bundles only these into `ui/dist`, which the app embeds; devDependencies (the compiler, "
        "Vite, the Tauri CLI) are build tools and are not listed.",
        "",
    ]
    grouped(npm.values(), False)

    lines += [
        "## Rust crates linked into `registro` and `registro-app`",
        "",
        f"{len(shipped)} crates from crates.io (`cargo metadata --locked`), reached from the two binaries through normal "
        "dependencies. Builds: " + ", ".join(f"`{l}` ({t}{', features ' + ','.join(f) if f else ''})"
                                            for l, t, f in BUILDS)
        + '. "Only in" names the builds that link a crate when not all of them do. Registro\'s own workspace crates '
        "(`MIT OR Apache-2.0`) are not listed; dev-dependencies are excluded.",
        "",
    ]
    grouped(shipped.values(), True)

    lines += [
        "## Build-time Rust crates (not in the binaries)",
        "",
        f"{len(build_time)} crates that only run on the build machine: proc-macros, build scripts' dependencies and what "
        "only they use. Their licences are checked (cargo deny) but their code is not distributed, so no texts are "
        "reproduced for them.",
        "",
        "| Crate | Version | Licence |",
        "| --- | --- | --- |",
    ]
    for p in sorted(build_time.values(), key=lambda p: (p.name.lower(), p.version)):
        lines.append(f"| {cell(p.name)} | {p.version} | {cell(p.licence)} |")
    lines.append("")

    lines += [
        "## Models",
        "",
        "No model is in the package: the app and `registro models fetch` download them on demand from the catalogue in "
        "`models/`, and each model's licence applies to the user's copy.",
        "",
        "| Model | Name | Licence |",
        "| --- | --- | --- |",
    ]
    for m in models():
        lines.append(f"| {cell(m['id'])} | {cell(m['name'])} | {cell(m['licence'])} |")
    lines.append("")

    lines += [
        "## Licence texts",
        "",
        "For a package under a choice of licences (`A OR B`), the text reproduced is the alternative it ships a file "
        "for, MIT first. Each distinct text appears once, with the packages that carry it.",
        "",
    ]
    by_id: dict[str, list[dict]] = {}
    for (ident, _), entry in texts.items():
        by_id.setdefault(ident, []).append(entry)
    order = sorted(by_id, key=lambda i: (PREFERENCE.index(i) if i in PREFERENCE else len(PREFERENCE), i))
    for ident in order:
        entries = sorted(by_id[ident], key=lambda e: (-len(e["users"]), sorted(e["users"])[0]))
        lines.append(f"### {ident}")
        lines.append("")
        for n, entry in enumerate(entries, 1):
            users = sorted(entry["users"], key=str.lower)
            lines.append(f"#### {ident}, text {n} of {len(entries)}")
            lines.append("")
            lines.append("Used by: " + ", ".join(users) + ".")
            for note in sorted(entry["notes"]):
                lines.append(f"({', '.join(sorted(entry['notes'][note], key=str.lower))}: {note}.)")
            lines.append("")
            if entry["notices"]:
                lines.append("Each package's copyright notice, which precedes this text in its own copy:")
                lines.append("")
                block = []
                for owner in sorted(entry["notices"], key=str.lower):
                    first, *rest = entry["notices"][owner].splitlines()
                    block.append(f"{owner}: {first.strip()}")
                    block += [f"    {l.strip()}" for l in rest if l.strip()]
                lines.append(fence("\n".join(block)))
                lines.append("")
            lines.append(fence(entry["text"]))
            lines.append("")
    if notices:
        lines += ["### Notices", "", "Notice files and the licences of code bundled inside a crate, reproduced as they ship.", ""]
        for n, entry in enumerate(sorted(notices.values(), key=lambda e: sorted(e["users"])[0]), 1):
            lines.append(f"#### Notice {n}: {', '.join(sorted(entry['files']))}")
            lines.append("")
            lines.append("Used by: " + ", ".join(sorted(entry["users"], key=str.lower)) + ".")
            lines.append("")
            lines.append(fence(entry["text"]))
            lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n", problems


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if THIRD_PARTY.md is stale; write nothing")
    ap.add_argument("--output", type=Path, default=OUT, help="file to write or check (default THIRD_PARTY.md)")
    args = ap.parse_args()
    try:
        allow = set(tomllib.loads(DENY.read_text())["licenses"]["allow"])
        shipped, build_time, wildcards = rust_packages()
        npm = npm_packages()
        text, problems = render(shipped, build_time, npm, allow)
        problems += wildcards
    except Fail as e:
        print(f"third-party: {e}", file=sys.stderr)
        return 1
    if problems:
        print("third-party: LICENCE CHECK FAILED — incompatible or unknown licence in what ships, or a wildcard dependency:",
              file=sys.stderr)
        for p in problems:
            print(f"  {p}", file=sys.stderr)
        print("Replace the dependency, or (only for a licence that is compatible with distributing the app) add it "
              "to deny.toml [licenses] allow with a comment saying why.", file=sys.stderr)
        return 1
    npm_ids = sorted({leaf for p in npm.values() for leaf in re.findall(r"[\w.+-]+", p.licence) if leaf not in ("OR", "AND", "WITH")})
    summary = (f"{len(shipped)} shipped crates, {len(build_time)} build-time crates, {len(npm)} npm packages "
               f"(licences: {', '.join(npm_ids)}): all licences allowed")
    if args.check:
        current = args.output.read_text() if args.output.is_file() else ""
        if current != text:
            diff = list(difflib.unified_diff(current.splitlines(), text.splitlines(), str(args.output.name) + " (committed)",
                                             str(args.output.name) + " (from the lock files)", lineterm="", n=0))
            print(f"third-party: {args.output.name} is STALE against Cargo.lock / ui/package-lock.json / models / "
                  f"docs/third-party-header.md ({sum(1 for l in diff if l[:1] in '+-') - 2} lines differ); first differences:",
                  file=sys.stderr)
            for line in diff[:40]:
                print(f"  {line}", file=sys.stderr)
            print("Run `python3 scripts/third-party.py` and commit THIRD_PARTY.md.", file=sys.stderr)
            return 1
        print(f"third-party: {args.output.name} is current; {summary}")
        return 0
    args.output.write_text(text)
    print(f"third-party: wrote {args.output.name} ({len(text) // 1024} KiB); {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
