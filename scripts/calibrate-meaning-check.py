# Calibrates the translation meaning check (crates/registro-generate/src/qe.rs, DRIFT_BELOW) on the held-out
# development split: cosine(source, reference) of correct translations (the last 50 sources of each CoCoA-MT /
# IWSLT 2023 training domain file, both registers; Russian: data/ru-dev) against another sentence's translation.
# Runs sentence-transformers' EmbeddingGemma-300M, the reference implementation the engine's encoder is tested against.
#   python3 -m venv venv && venv/bin/pip install sentence-transformers
#   venv/bin/python scripts/calibrate-meaning-check.py [SHARED_DATA] [MODEL_DIR]
import glob, os, sys
import numpy as np
from sentence_transformers import SentenceTransformer

S = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("REGISTRO_SHARED_DATA", "../shared/data")
M = sys.argv[2] if len(sys.argv) > 2 else os.path.expanduser("~/.cache/registro/models/embeddinggemma-300m")
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
model = SentenceTransformer(M, device="cpu")
PROMPT = "task: sentence similarity | query: "  # Task::Similarity, as qe.rs embeds

def cocoa(lang, code, suffix=True):
    src = sorted(glob.glob(f"{S}/cocoa-mt/train/en-{lang}/*.en-{code}" + (".en" if suffix else "")))
    return [(s, (s[:-3] if suffix else s) + ".{reg}" + (f".{lang}" if suffix else ""), 50) for s in src]

SETS = {lang: cocoa(lang, lang) for lang in ["de", "es", "fr", "hi", "it", "nl"]}
SETS["pt"] = cocoa("pt", "ptpt")
SETS["ja"] = cocoa("ja", "ja", suffix=False)
for lang in ["ko", "vi"]:
    SETS[lang] = [(s, s[:-3] + ".{reg}." + lang, 50) for s in sorted(glob.glob(f"{S}/iwslt2023/train/en-{lang}/*.en-{lang}.en"))]
ru = f"{REPO}/data/ru-dev/formality-control.dev.written.en-ru"
SETS["ru"] = [(ru + ".en", ru + ".{reg}.ru", 30)]

for lang, files in SETS.items():
    src, ref = [], []
    for s_path, r_pat, n in files:
        s = open(s_path).read().splitlines()[-n:]
        for reg in ["formal", "informal"]:
            src += s
            ref += open(r_pat.format(reg=reg)).read().splitlines()[-n:]
    if not src:
        print(lang, "skipped: no data under", S)
        continue
    es = model.encode(src, prompt=PROMPT, normalize_embeddings=True, batch_size=16)
    er = model.encode(ref, prompt=PROMPT, normalize_embeddings=True, batch_size=16)
    good = (es * er).sum(1)
    shuffled = (es * er[np.roll(np.arange(len(ref)), 7)]).sum(1)
    q = lambda a, p: float(np.percentile(a, p))
    print(f"{lang}: {len(good)} pairs | correct p1 {q(good, 1):.3f} median {q(good, 50):.3f}, below 0.70 {float((good < 0.70).mean()):.3f}"
          f" | another sentence's translation p99 {q(shuffled, 99):.3f}, max {shuffled.max():.3f}", flush=True)
