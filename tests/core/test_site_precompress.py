"""build-site's byte savings: pre-compressed siblings, the trimmed standard library (ADR 0033)."""

from __future__ import annotations

import gzip
import struct
import sys
import zipfile
from pathlib import Path

import pytest

from groundkit.errors import ConfigurationError
from groundkit.site.layout import site_entry
from groundkit.site.memory_snapshot import gzip_file, strip_zero_runs, trim_stdlib
from groundkit.site.precompress import check_precompress, precompress


def test_gzip_siblings_are_deterministic_and_only_where_they_pay(tmp_path: Path) -> None:
    text = tmp_path / "app.js"
    text.write_bytes(b"const answer = 42;\n" * 200)
    noise = tmp_path / "noise.bin"
    noise.write_bytes(gzip.compress(b"x" * 10_000, 9, mtime=0))
    written = precompress([text, noise], "gzip")
    packed = (tmp_path / "app.js.gz").read_bytes()
    assert gzip.decompress(packed) == text.read_bytes() and written == len(packed)
    assert packed == gzip.compress(text.read_bytes(), 9, mtime=0)  # no timestamp inside
    assert not (tmp_path / "noise.bin.gz").exists()  # compressed already: no sibling
    assert not (tmp_path / "app.js.br").exists()


def test_brotli_without_its_extra_names_the_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "brotli", None)  # import brotli now raises ImportError
    with pytest.raises(ConfigurationError, match=r'pip install "\.\[brotli\]"'):
        check_precompress("brotli")
    with pytest.raises(ConfigurationError, match="choose one of gzip, brotli"):
        check_precompress("zstd")
    check_precompress(None)
    check_precompress("gzip")


def test_a_rebuild_replaces_the_siblings_of_a_sites_own_files() -> None:
    assert site_entry("index.html.gz") and site_entry("app.js.br") and site_entry("site.json")
    assert not site_entry("notes.txt.gz") and not site_entry("notes.txt")


def test_trim_stdlib_keeps_the_named_modules_and_packages_in_order(tmp_path: Path) -> None:
    full = tmp_path / "full.zip"
    names = ["html/", "abc.py", "html/__init__.py", "html/parser.py", "json/__init__.py", "x.py"]
    with zipfile.ZipFile(full, "w") as z:
        for name in names:
            z.writestr(name, "" if name.endswith("/") else f"# {name}\n")
    out = tmp_path / "trim.zip"
    trim_stdlib(full, out, ["html", "html.parser", "x"])
    with zipfile.ZipFile(out) as z:
        assert z.namelist() == ["html/", "html/__init__.py", "html/parser.py", "x.py"]
        assert z.read("html/parser.py") == b"# html/parser.py\n"


def test_gzip_file_replaces_the_file(tmp_path: Path) -> None:
    snap = tmp_path / "snapshot.bin"
    snap.write_bytes(b"\0snp" + bytes(4096))
    packed = gzip_file(snap)
    assert packed.name == "snapshot.bin.gz" and not snap.exists()
    assert gzip.decompress(packed.read_bytes()) == b"\0snp" + bytes(4096)


def test_strip_zero_runs_keeps_every_other_byte_and_says_where_the_runs_were(
    tmp_path: Path,
) -> None:
    """The layout worker.js's unpackZeroRuns reads; runs under 4096 bytes stay in place."""
    original = b"snap" + bytes(5000) + b"ab" + bytes(4095) + b"c" + bytes(4096)
    snap = tmp_path / "snapshot.bin"
    snap.write_bytes(original)
    size = strip_zero_runs(snap)
    packed = snap.read_bytes()
    assert size == len(packed) == 12 + 16 + 4 + 2 + 4095 + 1
    magic, length, runs = struct.unpack_from("<4sII", packed)
    pairs = struct.unpack_from(f"<{2 * runs}I", packed, 12)
    assert (magic, length, runs, pairs) == (b"GKZR", len(original), 2, (4, 5000, 9102, 4096))
    rebuilt, at, rest = bytearray(length), 0, memoryview(packed)[12 + 8 * runs :]
    for start, run in zip(pairs[::2], pairs[1::2], strict=True):
        rebuilt[at:start] = rest[: start - at]
        rest, at = rest[start - at :], start + run
    rebuilt[at:] = rest
    assert bytes(rebuilt) == original
