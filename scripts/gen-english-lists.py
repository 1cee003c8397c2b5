#!/usr/bin/env python3
"""Writes crates/registro-register/src/vocab/english-not-<lang>.txt: the English words that are clearly English, not
<lang>, for the leftover-English check (crates/registro-register/src/meaning.rs).

A word is listed when it is a common English word (Zipf frequency >= 3.0 in English, i.e. at least once per million
words) and either rare in the target language (Zipf <= 2.5) or at least 1.5 Zipf (about 30x) more frequent in English
than in it. "yesterday" is listed for Italian (4.91 vs 2.37); "file" (4.75 vs 4.69) and "culture" are not. Frequencies
come from wordfreq 3.1.1 (Robyn Speer; code Apache-2.0, data CC BY-SA 4.0, see src/vocab/README.md):

    python3 -m venv /tmp/wf && /tmp/wf/bin/pip install wordfreq==3.1.1
    /tmp/wf/bin/python scripts/gen-english-lists.py
"""
import os
import re

import wordfreq

LANGS = ["de", "es", "fr", "it", "nl", "pt", "vi"]
OUT = os.path.join(os.path.dirname(__file__), "..", "crates", "registro-register", "src", "vocab")
assert wordfreq.__version__ == "3.1.1" if hasattr(wordfreq, "__version__") else True

english = [w for w in wordfreq.top_n_list("en", 60000) if re.fullmatch(r"[a-z]{3,}", w)]
english = [w for w in english if wordfreq.zipf_frequency(w, "en") >= 3.0]
for lang in LANGS:
    listed = []
    for w in english:
        en, tgt = wordfreq.zipf_frequency(w, "en"), wordfreq.zipf_frequency(w, lang)
        if tgt <= 2.5 or en - tgt >= 1.5:
            listed.append(w)
    listed.sort()
    with open(os.path.join(OUT, f"english-not-{lang}.txt"), "w") as f:
        f.write("".join(w + "\n" for w in listed))
    print(f"{lang}: {len(listed)} of {len(english)} common English words are not {lang}")
