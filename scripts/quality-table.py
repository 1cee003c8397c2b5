#!/usr/bin/env python3
"""Writes the `[[quality]]` tables of a model manifest from `registro --json bench translate` output.

Usage: quality-table.py MANIFEST BENCH_JSON MEASURED

One table per language and register of the report's first system (scripts/measure-quality.sh asks for the
default system only). Tables of the same language and register already in the manifest are replaced; the others
stay. The tables are kept at the end of the file, after `[[files]]`, so the TOML keeps its meaning. Prints what it
wrote.
"""
import json
import re
import sys


def blocks(text):
    """The file up to the first [[quality]] table, and the tables (each a string)."""
    parts = re.split(r"(?m)^(?=\[\[quality\]\]\s*$)", text)
    return parts[0], parts[1:]


def key(block):
    lang = re.search(r'(?m)^lang\s*=\s*"([^"]*)"', block)
    register = re.search(r'(?m)^register\s*=\s*"([^"]*)"', block)
    return (lang and lang.group(1), register and register.group(1))


def table(lang, register, scores, segments, seconds, measured):
    counts = scores.get("counts", {})
    # M-Acc counts only outputs that show a register; with none either way it is undefined (the metric reports 0),
    # so the table leaves it out rather than call the register wrong.
    shown = counts.get("formal", 0) + counts.get("informal", 0)
    macc = f"macc = {scores['macc']:.2f}\n" if shown > 0 and scores["macc"] is not None else ""
    return (
        "[[quality]]\n"
        f'lang = "{lang}"\n'
        f'register = "{register}"\n'
        f"bleu = {scores['bleu']:.1f}\n"
        f"{macc}"
        f"flagged = {scores['flagged']}\n"
        f"segments = {segments}\n"
        'split = "development"\n'
        f"seconds_per_segment = {seconds:.1f}\n"
        f"measured = {json.dumps(measured, ensure_ascii=False)}\n"
    )


def main():
    manifest, bench, measured = sys.argv[1:4]
    reports = json.load(open(bench, encoding="utf-8"))
    new = []
    for r in reports:
        system = r["systems"][0]
        for register in ("formal", "informal"):
            new.append(table(r["lang"], register, system[register], system["segments"], system["seconds_per_segment"], measured))
    text = open(manifest, encoding="utf-8").read()
    head, old = blocks(text)
    replaced = {key(b) for b in new}
    kept = [b.rstrip("\n") + "\n" for b in old if key(b) not in replaced]
    order = lambda b: key(b)
    out = head.rstrip("\n") + "\n\n" + "\n".join(sorted(kept + new, key=order))
    open(manifest, "w", encoding="utf-8").write(out)
    sys.stdout.write("\n".join(new))


if __name__ == "__main__":
    main()
