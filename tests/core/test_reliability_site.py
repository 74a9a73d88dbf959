"""Issue 17, ``build-site``: a killed build leaves nothing later builds keep, and ``--force``
never deletes or replaces files it did not write."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import groundkit
from conftest import WriteCorpus
from groundkit.errors import ConfigurationError
from groundkit.site import SiteOptions, build_site

CORPUS = {
    "guide/intro.md": "# Intro\n\nThe quokka lives on Rottnest Island.\n",
    "notes.txt": "Wombats dig burrows.\n\nNumbats eat termites.\n",
}
PACKAGE_PARENT = str(Path(groundkit.__file__).resolve().parent.parent)


def _leftovers(out: Path) -> list[str]:
    return sorted(p.name for p in out.parent.iterdir() if p.name.startswith(f".{out.name}."))


@pytest.mark.skipif(sys.platform == "emscripten", reason="Pyodide has no other processes")
def test_work_folders_of_dead_builds_are_removed_and_live_ones_kept(
    tmp_path: Path, write_corpus: WriteCorpus
) -> None:
    corpus = write_corpus(CORPUS)
    out = tmp_path / "site"
    dead = 2**22 + 12345  # above the default pid_max of 4,194,304: never a running process
    for name in (f".site.building-{dead}-abc", f".site.old-{dead}-def", ".site.building-xyz"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "collection").mkdir()
    live = tmp_path / f".site.building-{os.getppid()}-ghi"  # our parent runs: another build
    live.mkdir()
    (tmp_path / ".siteX.building-1-a").mkdir()  # another site's: not ours to judge
    build_site(corpus, out)
    assert _leftovers(out) == [live.name]
    assert (tmp_path / ".siteX.building-1-a").is_dir()
    assert (out / "site.json").is_file()


@pytest.mark.subprocess
def test_a_build_killed_midway_leaves_a_folder_the_next_build_removes(
    tmp_path: Path, write_corpus: WriteCorpus
) -> None:
    corpus = write_corpus(CORPUS)
    out = tmp_path / "site"
    code = f"""
        import os, signal
        from groundkit.site import build_site
        def die(event):
            os.kill(os.getpid(), signal.SIGKILL)
        build_site({str(corpus)!r}, {str(out)!r}, progress=die)
    """
    process = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env={**os.environ, "PYTHONPATH": PACKAGE_PARENT},
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert process.returncode == -signal.SIGKILL
    assert len(_leftovers(out)) == 1 and not out.exists()
    build_site(corpus, out)
    assert _leftovers(out) == []
    assert (out / "site.json").is_file()


def test_force_refuses_to_replace_an_unrelated_sources_folder(
    tmp_path: Path, write_corpus: WriteCorpus
) -> None:
    corpus = write_corpus(CORPUS)
    out = tmp_path / "mine"
    (out / "sources").mkdir(parents=True)
    (out / "sources" / "thesis.tex").write_text("years of work")
    with pytest.raises(ConfigurationError, match="sources would be replaced"):
        build_site(corpus, out, SiteOptions(force=True))
    assert (out / "sources" / "thesis.tex").read_text() == "years of work"
    assert sorted(p.name for p in out.iterdir()) == ["sources"]
    assert _leftovers(out) == []


def test_a_rebuild_of_a_forced_site_keeps_the_folders_other_files(
    tmp_path: Path, write_corpus: WriteCorpus
) -> None:
    corpus = write_corpus(CORPUS)
    out = tmp_path / "mine"
    out.mkdir()
    (out / "keep.txt").write_text("not a site")
    build_site(corpus, out, SiteOptions(force=True))
    (out / "sources" / "stale.md").write_text("left from before")
    build_site(corpus, out)  # now a site: rebuilt in place, beside keep.txt
    assert (out / "keep.txt").read_text() == "not a site"
    assert not (out / "sources" / "stale.md").exists()
    assert (out / "sources" / "notes.txt").is_file()
    assert _leftovers(out) == []
