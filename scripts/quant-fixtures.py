"""Writes tests/fixtures/llm/quants.json: blocks of the GGML formats the in-browser model reads,
with the values llama.cpp's own Python package (gguf-py, in llama-cpp-python's source archive:
vendor/llama.cpp/gguf-py) dequantizes them to. The blocks are random bytes with their f16 scales
set to ordinary numbers: values and sub-block scales of every size and sign.

Usage: python scripts/quant-fixtures.py PATH/TO/gguf-py > tests/fixtures/llm/quants.json
"""
import json
import sys

import numpy as np

sys.path.insert(0, sys.argv[1])
from gguf.constants import GGMLQuantizationType as T, GGML_QUANT_SIZES  # noqa: E402
from gguf.quants import dequantize  # noqa: E402

rng = np.random.default_rng(20261206)

# Where each format keeps its f16 scales (byte offsets in a block).
SCALES = {
    "Q5_0": [0], "Q4_K": [0, 2], "Q6_K": [208], "Q4_1": [0, 2], "Q8_0": [0],
    "Q4_0": [0], "Q5_1": [0, 2], "Q5_K": [0, 2],
}

out = {}
for name, offsets in SCALES.items():
    qtype = T[name]
    values, size = GGML_QUANT_SIZES[qtype]
    blocks = 6
    raw = rng.integers(0, 256, size=(blocks, size), dtype=np.uint8)
    for b in range(blocks):
        for at in offsets:
            scale = np.float16(rng.uniform(-0.05, 0.05) if not name.endswith("_K") or at else rng.uniform(0.0005, 0.01))
            raw[b, at:at + 2] = np.frombuffer(scale.tobytes(), dtype=np.uint8)
    floats = dequantize(raw.reshape(-1), qtype).reshape(-1)
    out[name] = {
        "values_per_block": values,
        "bytes": raw.reshape(-1).tobytes().hex(),
        "values": [float(v) for v in floats.astype(np.float32)],
    }
json.dump(out, sys.stdout)
sys.stdout.write("\n")
