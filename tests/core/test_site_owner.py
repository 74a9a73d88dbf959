"""What a site owner meets (issue 38.5): an empty folder builds no site, the snapshot's long
step says it is still working, and embed.html's code sample fits its box."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from groundkit.cli import ExitCode, main
from groundkit.site.layout import APP_DIR
from groundkit.site.memory_snapshot import run_reporting


def test_build_site_of_an_empty_folder_writes_nothing_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "empty").mkdir()
    code = main(["build-site", str(tmp_path / "empty"), "-o", str(tmp_path / "site")])
    out, err = capsys.readouterr()
    assert code == ExitCode.NO_COLLECTION and "nothing to ingest" in err
    assert "wrote a static search site" not in out
    assert not (tmp_path / "site").exists() or not any((tmp_path / "site").iterdir())


@pytest.mark.parametrize(
    ("name", "data", "said"),
    [
        ("logo.png", b"\x89PNG", "nothing matched"),  # no file of a type it reads
        ("blob.txt", b"text\x00\xff", "nothing was stored"),  # every file refused: nul_byte
    ],
)
def test_build_site_of_a_folder_with_nothing_to_read_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, data: bytes, said: str
) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / name).write_bytes(data)
    code = main(["build-site", str(tmp_path / "docs"), "-o", str(tmp_path / "site")])
    out, err = capsys.readouterr()
    assert code == ExitCode.REFUSED_INPUT and said in err and "no site" in err
    assert "wrote a static search site" not in out
    assert not (tmp_path / "site" / "site.json").exists()


@pytest.mark.subprocess
def test_a_long_step_says_it_is_still_working() -> None:
    heard: list[str] = []
    done = run_reporting(
        [sys.executable, "-c", "import time; time.sleep(1.5); print('made')"],
        timeout_s=60,
        every_s=0.2,
        notice=heard.append,
        what="the memory snapshot",
    )
    assert done.returncode == 0 and done.stdout.strip() == "made"
    assert heard and all(re.fullmatch(r"still making the memory snapshot: \d+ s so far", h)
                         for h in heard)  # fmt: skip


def test_embed_html_code_sample_is_not_cut_off() -> None:
    page = (APP_DIR / "embed.html").read_text("utf-8")
    sample = re.search(r'<pre id="snippet">(.*?)</pre>', page, re.S)
    assert sample is not None
    assert all(len(line) <= 72 for line in sample.group(1).splitlines()), "a line too long"
    pre = re.search(r"\bpre \{([^}]*)\}", page)
    assert pre is not None and "white-space: pre-wrap" in pre.group(1)  # wraps, never hides
