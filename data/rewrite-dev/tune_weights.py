#!/usr/bin/env python3
"""Grid search of the rewrite chooser's weights on a tuning folder (en-tune only: never a reporting folder).

Input: the JSON of `registro --json rewrite --method llm --input <folder>/informal …` (every candidate of every
sentence with its scores) and the folder. It re-ranks the kept candidates exactly as
`crates/registro-rewrite/src/rerank.rs` does (weighted geometric mean of formality, meaning = chrF ⊕ embedding
similarity, fluency, agreement = mean chrF to the other candidates of the pool; flagged candidates after unflagged
ones) for every weight combination and candidate pool, and prints multi-reference BLEU (sacrebleu 2.6.0, the
same numbers `registro rewrite eval` prints) and the chosen formality, best first.

    registro --json rewrite --method llm --n 2 --roundtrip --no-store --input data/rewrite-dev/en-tune/informal > tune.json
    python3 data/rewrite-dev/tune_weights.py tune.json data/rewrite-dev/en-tune
"""
import itertools
import json
import math
import sys

import sacrebleu
from sacrebleu.metrics import CHRF

FLOOR = 0.01
POOLS = {
    "rules+minimal": {"rules", "llm-minimal"},
    "rules+minimal+paraphrase": {"rules", "llm-minimal", "llm-paraphrase#1"},
    "rules+minimal+2 paraphrases": {"rules", "llm-minimal", "llm-paraphrase#1", "llm-paraphrase#2"},
    "rules+minimal+roundtrip": {"rules", "llm-minimal", "roundtrip"},
    "all": {"rules", "llm-minimal", "llm-paraphrase#1", "llm-paraphrase#2", "roundtrip"},
}
GRID = ([0, 0.5, 1, 2], [0, 0.5, 1], [0, 0.5, 1], [0, 1, 2, 4, 6, 10])


def unit(x):
    return min(max(x, FLOOR), 1.0)


def main(path, folder):
    chrf = CHRF()
    run = json.load(open(path))
    refs = [open(f"{folder}/formal.ref{k}").read().splitlines() for k in range(2)]
    inputs = open(f"{folder}/informal").read().splitlines()
    sentences = run["sentences"]
    origins = lambda c: [c["origin"]] + c.get("also", [])
    memo = {}

    def agreement(texts):
        if len(texts) < 3:
            return [None] * len(texts)
        out = []
        for i, t in enumerate(texts):
            v = []
            for j, u in enumerate(texts):
                if i != j:
                    if (t, u) not in memo:
                        memo[(t, u)] = chrf.sentence_score(t, [u]).score
                    v.append(memo[(t, u)])
            out.append(sum(v) / len(v))
        return out

    def choose(pool, w):
        wf, wm, wl, wc = w
        hyps, forms = [], []
        for s in sentences:
            cands = [c for c in s["candidates"] if any(o in pool for o in origins(c))]
            best = None
            for c, a in zip(cands, agreement([c["text"] for c in cands])):
                sc = c["scores"]
                meaning = unit(sc["meaning"] / 100)
                if sc.get("similarity") is not None:
                    meaning = math.sqrt(meaning * unit(sc["similarity"]))
                num = wf * math.log(unit((sc["formality"] + 3) / 6)) + wm * math.log(meaning)
                den = wf + wm
                if sc.get("perplexity") is not None and wl > 0:
                    num += wl * math.log(unit(1 - math.log(max(sc["perplexity"], 1)) / math.log(1000)))
                    den += wl
                if a is not None and wc > 0:
                    num += wc * math.log(unit(a / 100))
                    den += wc
                key = (not sc["flags"], math.exp(num / den) if den else 0)
                if best is None or key > best[0]:
                    best = (key, c)
            hyps.append(best[1]["text"])
            forms.append(best[1]["scores"]["formality"])
        return hyps, sum(forms) / len(forms)

    bleu = lambda h: sacrebleu.corpus_bleu(h, refs).score
    print(f"copying the input: multi-BLEU {bleu(inputs):.2f}")
    for o in ["rules", "llm-minimal", "llm-paraphrase#1", "llm-paraphrase#2", "roundtrip"]:
        hyps = [next((c for c in s["candidates"] if o in origins(c)), s["candidates"][0])["text"] for s in sentences]
        print(f"{o} alone: multi-BLEU {bleu(hyps):.2f}")
    results = []
    for name, pool in POOLS.items():
        for w in itertools.product(*GRID):
            hyps, form = choose(pool, w)
            results.append((bleu(hyps), form, name, w))
    results.sort(key=lambda r: -r[0])
    print("multi-BLEU  formality  pool  weights (formality, meaning, fluency, agreement)")
    for r in results[:20]:
        print(f"{r[0]:10.2f} {r[1]:+10.2f}  {r[2]}  {r[3]}")
    for name in POOLS:
        for w in [(1, 1, 1, 1), (1, 0.5, 0.5, 6)]:
            r = next(r for r in results if r[2] == name and r[3] == w)
            print(f"{name} {w}: multi-BLEU {r[0]:.2f}, formality {r[1]:+.2f}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
