#!/usr/bin/env python3
"""Reads `registro --json bench translate` reports and prints what issue 43's held-out check asks about, per
language, register and system:

- M-Acc (CoCoA-MT's matched accuracy) with the scorer's counts;
- outputs the scorer labels with the *other* register that carry no flag (must be 0: never silently wrong);
- outputs that still hold English, or are the source, and whether each is flagged. The English screen here is
  deliberately not Registro's own check (that would grade itself): Latin-script words in a JA/HI/KO/RU output, and
  for Latin-script targets English function words that the target language does not use. It is a screen for a
  person to read, not a verdict: every hit is printed with its flag so it can be looked at.
- how many good outputs (scorer label = requested register or neutral, no English, not the source) were flagged
  anyway (the false-flag rate).

Usage: scripts/heldout-check.py REPORT.json [REPORT.json ...] [--system NAME] [--show-all] [--recheck]

--recheck: the meaning-check part of each flag is computed again by the current code (cargo run --example
meaning_check), so a change to the check can be measured on stored outputs; the register flags and the embedding
check's "meaning drift" stay as stored. (The reranker also reads the check, so a new run may pick other outputs.)
"""
import json
import os
import re
import subprocess
import sys

# The labels meaning::check words its flags with (MeaningIssue::as_str).
MEANING_LABELS = ("refusal", "untranslated", "number changed", "date changed", "name dropped", "cut off",
                  "honorific for the wrong person", "negation lost", "wrong language", "opposite meaning")


def recheck(reports):
    """Replaces the meaning-check part of every stored flag with what the current check says."""
    rows = []
    for rep in reports:
        for s in rep["systems"]:
            for k, outs in enumerate(s["outputs"]):
                for side in (0, 1):
                    src = rep["source_texts"][k].replace("\t", " ").replace("\n", " ")
                    out = outs[side].replace("\t", " ").replace("\n", " ")
                    rows.append(f"{rep['lang']}\t{src}\t{out}")
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    res = subprocess.run(["cargo", "run", "-q", "--example", "meaning_check"], cwd=root, input="\n".join(rows) + "\n",
                         capture_output=True, text=True, check=True)
    new = iter(res.stdout.split("\n"))
    for rep in reports:
        for s in rep["systems"]:
            for det in s["details"]:
                for d in det:
                    kept = [p for p in (d["flag"] or "").split("; ") if p and not p.startswith(MEANING_LABELS)]
                    fresh = next(new)
                    parts = kept + ([fresh] if fresh else [])
                    d["flag"] = "; ".join(parts) or None

# English words that are not words of the Latin-script targets (de, es, fr, it, nl, pt, vi): articles, pronouns,
# auxiliaries, prepositions and a few everyday words the development sources use. Short, so a hit is worth reading.
ENGLISH = set(
    """the and you your yours are was were have has had will would could should can't don't won't isn't i'm it's
    that's what which who whom this these those there their they them with for from about into of by at on to
    yesterday tomorrow today please thanks thank sorry hey hi hello yes yeah okay ok just really very much many
    some any every my me we us our is be been being do does did not but if or so than then when where why how""".split()
)
# Words shared with a target language (Italian "come"/"per", French "on"/"but", Dutch "be"/"had"...) are only
# counted where they are not words of that language.
NOT_ENGLISH_IN = {
    "it": {"come", "per", "a", "i", "so", "do"},
    "fr": {"on", "but", "me", "as", "an"},
    "es": {"me", "come", "son"},
    "pt": {"me", "do", "come", "as"},
    "de": {"was", "will", "so", "man", "also", "hat", "bin", "fast", "rock", "war"},
    "nl": {"had", "was", "is", "be", "have", "me", "we", "die", "so", "dan", "door"},
    "vi": set(),
}
NON_LATIN = {"ja", "hi", "ko", "ru"}
WORD = re.compile(r"[A-Za-z][A-Za-z']+")


def english_words(lang, text):
    words = WORD.findall(text)
    if lang in NON_LATIN:
        # Latin-script words in a non-Latin target; brand-like single capitals (TV, OK, PC) are left to the reader.
        return [w for w in words if len(w) >= 3 and not w.isupper()]
    skip = NOT_ENGLISH_IN.get(lang, set())
    return [w for w in words if w.lower() in ENGLISH and w.lower() not in skip]


def norm(s):
    return re.sub(r"\W+", " ", s.lower()).strip()


def check(rep, system, show_all, totals):
    lang = rep["lang"]
    sources = None
    for s in rep["systems"]:
        if system and s["name"] != system:
            continue
        if "details" not in s:
            print(f"{path}: {s['name']}: no per-output details (an older registro); M-Acc only")
        for side, reg in ((0, "formal"), (1, "informal")):
            sc = s[reg]
            c = sc["counts"]
            print(
                f"\n== {lang} {reg} · {s['name']} · {rep['model']} · {s['segments']} sources: M-Acc {sc['macc']:.3f} "
                f"(FORMAL {c['formal']}, INFORMAL {c['informal']}, NEUTRAL {c['neutral']}, OTHER {c['other']}) · "
                f"flagged {sc['flagged']} · BLEU {sc['bleu']:.1f}"
            )
            if "details" not in s:
                continue
            wrong_label = "INFORMAL" if reg == "formal" else "FORMAL"
            for k, (outs, det) in enumerate(zip(s["outputs"], s["details"])):
                out, d = outs[side], det[side]
                flag = d["flag"]
                eng = english_words(lang, out)
                src = rep.get("source_texts", [None] * len(s["outputs"]))[k] if "source_texts" in rep else None
                is_source = src is not None and norm(src) == norm(out)
                wrong = d["label"] == wrong_label
                totals["outputs"] += 1
                bad = wrong or eng or is_source
                if wrong and not flag:
                    totals["wrong_unflagged"] += 1
                if (eng or is_source) and not flag:
                    totals["english_unflagged"] += 1
                if not bad:
                    totals["good"] += 1
                    totals["good_flagged"] += bool(flag)
                if bad or flag or show_all:
                    marks = []
                    if wrong:
                        marks.append(f"scorer: {d['label']}")
                    if eng:
                        marks.append("English? " + ", ".join(eng[:6]))
                    if is_source:
                        marks.append("the source")
                    print(f"  {k + 1:>3}. {out}")
                    print(f"       {' · '.join(marks) or 'looks fine to the screen'} | flag: {flag or 'none'}")


def main(argv):
    system = None
    show_all = False
    rechecking = False
    files = []
    i = 0
    while i < len(argv):
        if argv[i] == "--system":
            system = argv[i + 1]
            i += 2
            continue
        if argv[i] == "--recheck":
            rechecking = True
        elif argv[i] == "--show-all":
            show_all = True
        else:
            files.append(argv[i])
        i += 1
    totals = {"outputs": 0, "wrong_unflagged": 0, "english_unflagged": 0, "good": 0, "good_flagged": 0}
    for path in files:
        with open(path) as f:
            reports = json.load(f)
        # One report per language (`--lang it,fr` prints a list).
        reports = reports if isinstance(reports, list) else [reports]
        if rechecking:
            recheck(reports)
        for rep in reports:
            check(rep, system, show_all, totals)
    g = totals["good"]
    g = totals["good"]
    print(
        f"\nTOTAL {totals['outputs']} outputs: wrong register unflagged {totals['wrong_unflagged']}; "
        f"English/source unflagged {totals['english_unflagged']} (screen hits, read them above); "
        f"good outputs flagged {totals['good_flagged']} of {g}"
        + (f" ({100 * totals['good_flagged'] / g:.1f}%)" if g else "")
    )


if __name__ == "__main__":
    main(sys.argv[1:])
