"""Ingest policy for real documentation folders (issue 30, item 4): theme and template folders
are not documents by default, ``--exclude`` adds patterns, and the exit code says whether
everything readable was indexed (0) or a readable type was refused or nothing matched (4)."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path

import pytest

import groundkit
from groundkit.cli import main
from groundkit.config import IngestSettings
from groundkit.errors import IngestionError


def _tree(root: Path) -> Path:
    files = {
        "index.md": "# Home\n\nHydrants are flushed twice a year.\n",
        "topics/valves.rst": "Valves\n======\n\nEach valve is exercised once a year.\n",
        "_theme/djangodocs/layout.html": "<p>{% block body %}{% endblock %}</p>",
        "_templates/page.html": "<p>{{ title }}</p>",
        "topics/_static/extra.html": "<p>static helper</p>",
        "node_modules/pkg/README.md": "# pkg\n\nA dependency.\n",
        "drafts/plan.md": "# Plan\n\nNot published.\n",
    }
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def test_theme_template_static_and_dependency_folders_are_excluded_by_default(
    tmp_path: Path,
) -> None:
    report = groundkit.ingest(_tree(tmp_path / "docs"), index_dir=tmp_path / "index")
    assert sorted(report.indexed) == ["drafts/plan.md", "index.md", "topics/valves.rst"]
    assert report.excluded == ["_templates/", "_theme/", "node_modules/", "topics/_static/"]
    assert "4 excluded" in report.summary()


def test_exclude_patterns_match_names_and_paths_and_defaults_can_be_dropped(
    tmp_path: Path,
) -> None:
    docs = _tree(tmp_path / "docs")
    by_path = groundkit.ingest(
        docs, index_dir=tmp_path / "a", settings=IngestSettings(exclude=("drafts/*", "*.rst"))
    )
    assert sorted(by_path.indexed) == [
        "_templates/page.html",
        "_theme/djangodocs/layout.html",
        "index.md",
        "node_modules/pkg/README.md",
        "topics/_static/extra.html",
    ]
    code = main(["ingest", str(docs), "--index-dir", str(tmp_path / "b"), "--exclude", "drafts",
                 "--json"])  # fmt: skip
    assert code == 0


def test_the_cli_reads_default_folders_only_when_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = _tree(tmp_path / "docs")
    main(["ingest", str(docs), "--index-dir", str(tmp_path / "a"), "--json"])
    default = json.loads(capsys.readouterr().out)
    main(["ingest", str(docs), "--index-dir", str(tmp_path / "b"), "--json",
          "--no-default-exclude", "--exclude", "drafts"])  # fmt: skip
    everything = json.loads(capsys.readouterr().out)
    assert len(default["indexed"]) == 3 and len(default["excluded"]) == 4
    assert len(everything["indexed"]) == 6 and everything["excluded"] == ["drafts/"]


@pytest.fixture
def no_pypdf(monkeypatch: pytest.MonkeyPatch) -> None:
    """PDFs as a machine without the pdf extra sees them, whether or not pypdf is here."""
    pdf = importlib.import_module("groundkit.extract.pdf")

    def missing() -> None:
        raise IngestionError("PDF files need the pdf extra", subject="pypdf",
                             reason="extractor_missing")  # fmt: skip

    monkeypatch.setattr(pdf, "_pypdf", missing)
    monkeypatch.setitem(sys.modules, "pypdf", None)


@pytest.mark.usefixtures("no_pypdf")
def test_only_unsupported_types_refused_exits_0_and_says_so_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = _tree(tmp_path / "docs")
    (docs / "manual.pdf").write_bytes(b"%PDF-1.4 not really")
    for again in range(2):  # also on a re-run where nothing changed
        code = main(["ingest", str(docs), "--index-dir", str(tmp_path / "i"), "--json"])
        captured = capsys.readouterr()
        report = json.loads(captured.out)
        assert code == 0, captured.err
        assert report["unsupported"] == 1 and report["complete"] is True
        assert "1 file(s) of a type this installation cannot read (.pdf" in captured.err
        assert len(report["unchanged" if again else "indexed"]) == 3


def test_a_refused_file_of_a_readable_type_exits_4(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = _tree(tmp_path / "docs")
    (docs / "broken.md").write_bytes(b"# Broken\n\n\xff\xfe not UTF-8\n")
    code = main(["ingest", str(docs), "--index-dir", str(tmp_path / "i")])
    assert code == 4
    err = capsys.readouterr().err
    assert "refused 1 file(s)" in err and "\n    broken.md\n" in err + "\n"


def test_nothing_matched_exits_4(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "image.png").write_bytes(b"\x89PNG")
    assert main(["ingest", str(tmp_path / "empty"), "--index-dir", str(tmp_path / "i"),
                 "--quiet"]) == 4  # fmt: skip
