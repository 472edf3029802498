"""Quantizes a GGUF model with llama.cpp's own quantizer (llama-cpp-python's
`llama_model_quantize`; the same input gives the same bytes): the files of other formats the
in-browser model is checked against llama.cpp on.

Usage: python scripts/quantize-model.py IN.gguf OUT.gguf FORMAT   (FORMAT: Q4_K_M, …)
"""
import ctypes
import sys

import llama_cpp

src, dst, name = sys.argv[1:4]
params = llama_cpp.llama_model_quantize_default_params()
params.ftype = getattr(llama_cpp, f"LLAMA_FTYPE_MOSTLY_{name}")
params.allow_requantize = True
params.nthread = 2
sys.exit(llama_cpp.llama_model_quantize(src.encode(), dst.encode(), ctypes.byref(params)))
