"""groundkit's native extras: ONNX embedder and cross-encoder, usearch vector store.

Installed with the ``groundkit`` distribution; its third-party dependencies come with the pip
extras ``onnx``, ``usearch`` (``native`` for both, ``gpu`` for onnxruntime-gpu). The core
finds them through this package's plugin (``groundkit_native.native_plugin``, the entry point
``native`` of ``groundkit.plugins``), which imports a module only when what it provides is
asked for (adr/0012, adr/0053). Importing this package imports nothing else: the onnxruntime/usearch
import-order guard lives in ``usearch_store``, before anything there can import usearch.
"""

from __future__ import annotations

__all__: list[str] = []
