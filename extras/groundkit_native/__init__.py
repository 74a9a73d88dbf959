"""groundkit's native extras: ONNX embedder and cross-encoder, usearch vector store.

Installed with the ``groundkit`` distribution; its third-party dependencies come with the pip
extras ``onnx``, ``usearch`` (``native`` for both, ``gpu`` for onnxruntime-gpu). The core finds
these modules by name and imports them only on request (adr/0012).

onnxruntime is imported here, before anything can import usearch: usearch 2.26.2-2.26.6
imported first makes onnxruntime's initialisation crash the process (SIGSEGV in libstdc++'s
codecvt). Every module of this package imports the package first, so the order holds whenever
groundkit loads both.
"""

from __future__ import annotations

import sys

try:  # the import-order guard: see the module docstring
    if "onnxruntime" not in sys.modules and "usearch" not in sys.modules:
        import onnxruntime  # noqa: F401
except ImportError:  # the usearch-only extra: nothing to guard
    pass

__all__: list[str] = []
