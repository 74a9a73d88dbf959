"""The man page reader of bench/language_known_item.py: troff to text, the NAME description,
the untranslated-description filter (the benchmark's figures in adr/0045 rest on them)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "language_known_item.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    if not BENCH.exists():
        pytest.skip("bench/ is not in this checkout")
    spec = importlib.util.spec_from_file_location("language_known_item", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses resolve their annotations through it
    spec.loader.exec_module(module)
    return module


PAGE = r""".\" -*- coding: UTF-8 -*-
.TH LS 1 "September 2022" "GNU coreutils 9.1" "Dienstprogramme für Benutzer"
.ie  \n(.g .ds Aq \(aq
.el       .ds Aq '
.de  URL
\fI\\$2\fP <\\$1>\\$3
..
.SH BEZEICHNUNG
ls \- Verzeichnisinhalte
auflisten
.SH ÜBERSICHT
\fBls\fP [\fI\,OPTION\/\fP]… [\fI\,DATEI\/\fP]…
.SH BESCHREIBUNG
.PP
Auflistung von Informationen über die DATEIen\(emsortiert \*(Aqalphabetisch\*(Aq.
.TP
\fB\-a\fP, \fB\-\-all\fP
Einträge nicht ignorieren, die mit »\&.« beginnen \" a comment
.BR dircolors (1)
.IP "\(bu" 2
Zeile mit \
Fortsetzung
.TS
tab(;);
l l.
Größe;Bedeutung
T{
Kilobyte
T};1024
.TE
.SS "Farben und Größen"
\[u00C4]nderung, Gr\(:oße
"""


def test_troff_text_keeps_the_text_and_drops_the_layout(bench: ModuleType) -> None:
    page = bench.troff_text(PAGE)
    assert page.name_section == "ls - Verzeichnisinhalte\nauflisten"
    assert bench.description(page.name_section) == "Verzeichnisinhalte auflisten"
    assert page.body == (
        "ÜBERSICHT\nls [OPTION]… [DATEI]…\n\n"
        "BESCHREIBUNG\n\n"
        "Auflistung von Informationen über die DATEIen\u2014sortiert 'alphabetisch'.\n\n"
        "-a, --all\nEinträge nicht ignorieren, die mit ».« beginnen \n"
        "dircolors(1)\n•\nZeile mit Fortsetzung\n"
        "Größe Bedeutung\nKilobyte\n1024\n\n"
        "Farben und Größen\nÄnderung, Größe"
    )
    assert bench.troff_text(PAGE) == page  # the same text every time


def test_a_page_without_sections_has_an_empty_name(bench: ModuleType) -> None:
    page = bench.troff_text("just text\n")
    assert page.name_section == "" and bench.description(page.name_section) is None


@pytest.mark.parametrize(
    ("text", "english"),
    [
        ("compute and check SHA1 message digest", True),
        ("side-by-side merge of file differences", True),
        ("Verzeichnisinhalte auflisten", False),
        ("Socket-Unit-Konfiguration", False),  # every part of a word must be English
        ("SHA1-Prüfsummen berechnen und überprüfen", False),
    ],
)
def test_untranslated_descriptions_are_recognised(
    bench: ModuleType, text: str, english: bool
) -> None:
    vocabulary = frozenset(
        [
            "compute",
            "and",
            "check",
            "message",
            "digest",
            "side",
            "by",
            "merge",
            "of",
            "file",
            "differences",
            "socket",
            "unit",
        ]
    )
    german = frozenset(["und", "berechnen", "überprüfen", "auflisten", "konfiguration"])
    assert bench.looks_english(text, vocabulary, german) is english
