"""Writes the llama.cpp side of the in-browser model's check on a model file of another format
(tests/llm.rs): for each chat of tests/fixtures/llm/cases.json, the prompt's token ids and
llama.cpp's greedy answer (up to 16 tokens) with the log-probability of each token, computed by
llama.cpp (llama-cpp-python) on that file; and the file's size (the test compares it) and
SHA-256 (to tell files apart by hand).

Usage: python scripts/llm-quant-fixtures.py MODEL.gguf [CHATS] > tests/fixtures/llm/FORMAT.json
(CHATS: only the first so many chats.)
"""
import hashlib
import json
import sys

import numpy as np
from llama_cpp import Llama

path = sys.argv[1]
cases = json.load(open("tests/fixtures/llm/cases.json"))
cases["greedy"] = cases["greedy"][: int(sys.argv[2]) if len(sys.argv) > 2 else None]
llm = Llama(model_path=path, n_ctx=512, n_threads=2, logits_all=True, verbose=False)
eos = llm.token_eos()


def chat_prompt(messages):
    """SmolLM2's chat template, as Satori writes it (tokenizer.rs `chat_prompt`)."""
    out = ""
    if messages[0]["role"] != "system":
        out += "<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n"
    for m in messages:
        out += f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n"
    return out + "<|im_start|>assistant\n"


chats = []
for case in cases["greedy"]:
    prompt = chat_prompt(case["messages"])
    ids = llm.tokenize(prompt.encode(), add_bos=False, special=True)
    llm.reset()
    # One token at a time, as Satori reads a prompt one token after another (llama.cpp's batched
    # products add in other orders).
    for t in ids:
        llm.eval([t])
    steps = []
    for _ in range(16):
        logits = np.asarray(llm.scores[llm.n_tokens - 1], dtype=np.float64)
        top = logits.max()
        logp = logits - (top + np.log(np.exp(logits - top).sum()))
        t = int(logits.argmax())
        if t == eos or t == llm.tokenize(b"<|im_end|>", add_bos=False, special=True)[0]:
            steps.append([t, float(logp[t])])
            break
        steps.append([t, float(logp[t])])
        llm.eval([t])
    chats.append({"messages": case["messages"], "prompt": prompt, "prompt_ids": ids, "steps": steps})

data = open(path, "rb").read()
json.dump({"model_sha256": hashlib.sha256(data).hexdigest(), "model_bytes": len(data), "chats": chats}, sys.stdout, indent=1)
sys.stdout.write("\n")
