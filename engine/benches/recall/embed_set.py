#!/usr/bin/env python3
"""Embeds every lesson and question of the recall sets with a real embedding model, for the recall
bench's rows "words and meaning, WordLlama".

The model is WordLlama's l2_supercat at 256 numbers (MIT licence), whose weights come inside its
package on PyPI, so it installs where Hugging Face cannot be reached:

    python3 -m venv /tmp/wordllama && /tmp/wordllama/bin/pip install wordllama==0.4.0.post1
    /tmp/wordllama/bin/python engine/benches/recall/embed_set.py target/recall-vectors.json
    ENGRAM_BENCH_RECALL_VECTORS=target/recall-vectors.json cargo bench -p engine --bench recall

It writes {"model", "dims", "vectors": {text: [unit-length numbers]}} for each distinct text. The
file is about 7 MB and made again in a second, so it is not committed. The bench compares the
vectors as the product compares those an embeddings endpoint returns: each of unit length, by cosine.
"""
import json
import os
import sys
from pathlib import Path

import numpy as np
import wordllama
from safetensors import safe_open
from tokenizers import Tokenizer
from wordllama.inference import WordLlamaInference

MODEL = "wordllama 0.4.0.post1, l2_supercat, 256 numbers"


def load():
    # The weights and the tokenizer ship in the package; WordLlama.load() looks for the tokenizer
    # in a folder the wheel does not have and then asks Hugging Face, so they are opened directly.
    root = Path(wordllama.__file__).parent
    with safe_open(str(root / "weights" / "l2_supercat_256.safetensors"), framework="np", device="cpu") as f:
        embedding = f.get_tensor("embedding.weight")
    tokenizer = Tokenizer.from_file(str(root / "tokenizers" / "l2_supercat_tokenizer_config.json"))
    return WordLlamaInference(embedding, tokenizer)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: embed_set.py OUT.json")
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "recall_set.json"), encoding="utf-8") as f:
        people = json.load(f)["people"]
    with open(os.path.join(here, "other_words.json"), encoding="utf-8") as f:
        other = json.load(f)["questions"]
    texts = set()
    for p in people:
        texts.update(p["lessons"])
        texts.update(q["question"] for q in p["questions"])
    texts.update(q["question"] for q in other)
    texts = sorted(texts)
    vectors = load().embed(texts, norm=True)
    out = {
        "model": MODEL,
        "dims": int(vectors.shape[1]),
        "vectors": {t: [round(float(x), 6) for x in v] for t, v in zip(texts, np.asarray(vectors))},
    }
    with open(sys.argv[1], "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False)
    print(f"{len(texts)} texts, {out['dims']} numbers each ({MODEL}) -> {sys.argv[1]}")


if __name__ == "__main__":
    main()
