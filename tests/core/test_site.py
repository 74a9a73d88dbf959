"""``groundkit build-site``: the static site's layout, wheel, collection and refusals (no browser).

The browser itself is exercised by ``tox -e web`` (web/e2e, ADR 0011).
"""

from __future__ import annotations

import gzip
import json
import re
import zipfile
import zlib
from pathlib import Path

import pytest

import groundkit
from conftest import WriteCorpus
from groundkit.cli import main
from groundkit.errors import ConfigurationError
from groundkit.retrieval import verify_citation
from groundkit.retrieval.lexical_bar import read_lexical_bar
from groundkit.site import PYODIDE_FILES, SiteOptions, build_site, build_wheel, open_site
from groundkit.site.layout import APP_DIR, APP_FILES
from groundkit.site.page_files import page_html
from groundkit.store.static import StaticReader

CORPUS = {
    "guide/intro.md": "# 💧 Intro\n\nThe quokka 🦘 lives on Rottnest Island.\n",
    "notes.txt": "Wombats dig burrows.\n\nNumbats eat termites.\n",
}


def _site(tmp_path: Path, write_corpus: WriteCorpus, **kwargs: object) -> Path:
    out = tmp_path / "site"
    build_site(write_corpus(CORPUS), out, SiteOptions(**kwargs))  # type: ignore[arg-type]
    return out


def test_layout_and_manifest(tmp_path: Path, write_corpus: WriteCorpus) -> None:
    out = _site(tmp_path, write_corpus, collection="docs", title="Docs")
    for name in (*APP_FILES, "site.json", "index/collection.bin", "index/postings/0000.bin"):
        assert (out / name).is_file(), name
    assert not (out / "collection").exists() and not (out / ".collection").exists()
    assert not list(out.rglob("*.sqlite*")), "the SQLite collection is not shipped"
    assert (out / "sources/guide/intro.md").read_bytes() == CORPUS["guide/intro.md"].encode()
    site = json.loads((out / "site.json").read_text("utf-8"))
    assert site["generator"].startswith("groundkit build-site")
    assert site["title"] == "Docs"
    assert site["collection"]["url"] == "index/"
    assert site["collection"]["format"] == "static-1"
    assert site["collection"]["name"] == "docs"
    assert site["collection"]["documents"] == 2
    assert site["sources"]["files"] == ["guide/intro.md", "notes.txt"]
    assert site["sources"]["root"] == "sources/"  # no path of the builder's machine
    assert str(tmp_path) not in (out / "site.json").read_text("utf-8")
    index = StaticReader(lambda path: (out / path).read_bytes(), index="index/", location="site")
    assert {document.root for document in index.iter_documents()} == {"sources/"}
    assert site["pyodide"]["url"].startswith("https://")  # no --pyodide-dir: a URL
    assert not (out / "pyodide").exists()
    assert (out / site["wheel"]).is_file()
    assert (out / site["collection"]["url"]).is_dir()
    assert not list(out.parent.glob(".site.*")), "no temporary folder left behind"
    assert (out.stat().st_mode & 0o755) == 0o755


def _csp(out: Path) -> str:
    html = (out / "index.html").read_text("utf-8")
    match = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', html)
    assert match is not None
    return match.group(1)


def test_page_policy_names_only_the_built_runtime_origin(
    tmp_path: Path, write_corpus: WriteCorpus
) -> None:
    cdn = _csp(_site(tmp_path, write_corpus))
    assert "script-src 'self' https://cdn.jsdelivr.net;" in cdn
    assert "connect-src 'self' https://cdn.jsdelivr.net;" in cdn
    assert "default-src 'self';" in cdn and "worker-src 'self';" in cdn
    local = _csp(_site(tmp_path, write_corpus, pyodide_url="runtime/"))
    assert "https:" not in local and "script-src 'self';" in local
    assert json.loads((tmp_path / "site" / "site.json").read_text("utf-8"))["pyodide"]["url"] == (
        "runtime/"
    )


def test_a_snapshot_page_preloads_the_runtime_files_app_js_hands_the_worker(
    tmp_path: Path, write_corpus: WriteCorpus
) -> None:
    """Only a --snapshot page names them (data-runtime: the names app.js and worker.js use);
    a plain site's page preloads no runtime file."""
    template = (APP_DIR / "index.html").read_text("utf-8")
    early = {"snapshot": "pyodide/snapshot.bin", "wasm": "pyodide/pyodide.asm.wasm"}
    html = page_html(template, "pyodide/", early)
    found = re.findall(r'href="([^"]+)" as="fetch" crossorigin data-runtime="([^"]+)"', html)
    assert found == [(path, name) for name, path in early.items()]
    assert html.rindex("data-runtime") < html.index("</head>")
    plain = (_site(tmp_path, write_corpus) / "index.html").read_text("utf-8")
    assert "data-runtime" not in plain


@pytest.mark.parametrize(
    "url", ["javascript:alert(1)/", "https://x.example'; script-src *", "//cdn.example/p/"]
)
def test_refuses_a_runtime_url_that_is_not_http(
    tmp_path: Path, write_corpus: WriteCorpus, url: str
) -> None:
    with pytest.raises(ConfigurationError, match="--pyodide-url"):
        _site(tmp_path, write_corpus, pyodide_url=url)
    assert not (tmp_path / "site").exists()


def test_wheel_is_a_pure_python_wheel_of_the_package(tmp_path: Path) -> None:
    wheel = build_wheel(tmp_path)
    assert wheel.name == f"groundkit-{groundkit.__version__}-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        assert "groundkit/__init__.py" in names
        assert "groundkit/retrieval/searcher.py" in names
        dist = f"groundkit-{groundkit.__version__}.dist-info"
        assert {f"{dist}/METADATA", f"{dist}/WHEEL", f"{dist}/RECORD"} <= set(names)
        assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]
        left_out = ("groundkit/sample/", "groundkit/site/web_app/")
        assert not [n for n in names if n.startswith(left_out)]
        assert "groundkit/site/wheel.py" in names
        assert "Root-Is-Purelib: true" in archive.read(f"{dist}/WHEEL").decode()
        record = archive.read(f"{dist}/RECORD").decode().splitlines()
        assert len(record) == len(names)
    (tmp_path / "again").mkdir()
    again = build_wheel(tmp_path / "again")
    assert again.read_bytes() == wheel.read_bytes(), "the wheel is deterministic"


@pytest.mark.subprocess
def test_wheel_imports(tmp_path: Path) -> None:
    import subprocess
    import sys

    wheel = build_wheel(tmp_path)
    code = "import groundkit, sys; print(groundkit.__file__); sys.exit(0)"
    done = subprocess.run(
        [sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(wheel)!r}); {code}"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip().startswith(str(wheel))


def test_collection_opens_and_verifies_against_the_shipped_sources(
    tmp_path: Path, write_corpus: WriteCorpus
) -> None:
    out = _site(tmp_path, write_corpus)
    with open_site(out) as retriever:
        response = retriever.search("quokka island")
        top = response.results[0]
        assert top.citation.source == "guide/intro.md"
        # the app verifies against the site's copy, not the build machine's folder
        assert verify_citation(top.citation, out / "sources").verdict == "verified"


def test_an_html_source_ships_its_chunks_and_verifies_by_re_extraction(
    tmp_path: Path, write_corpus: WriteCorpus
) -> None:
    page = "<html><body><nav>Menu</nav><main><h1>Echidnas</h1><p>Echidnas lay eggs.</p></main>"
    out = tmp_path / "site"
    build_site(write_corpus({**CORPUS, "animals.html": page}), out)
    with open_site(out) as retriever:
        top = retriever.search("echidnas eggs").results[0]
        assert top.citation.source == "animals.html" and top.citation.extractor is not None
        assert top.content == "# Echidnas\n\nEchidnas lay eggs." and "Menu" not in top.content
        assert verify_citation(top.citation, out / "sources").verdict == "verified"


def test_refuses_a_foreign_non_empty_folder_unless_forced(
    tmp_path: Path, write_corpus: WriteCorpus
) -> None:
    corpus = write_corpus(CORPUS)
    out = tmp_path / "mine"
    out.mkdir()
    (out / "keep.txt").write_text("not a site")
    with pytest.raises(ConfigurationError, match="not a groundkit site"):
        build_site(corpus, out)
    assert sorted(p.name for p in out.iterdir()) == ["keep.txt"]
    build_site(corpus, out, SiteOptions(force=True))
    assert (out / "keep.txt").read_text() == "not a site"
    assert (out / "site.json").is_file()


def test_rebuild_replaces_an_earlier_site(tmp_path: Path, write_corpus: WriteCorpus) -> None:
    out = _site(tmp_path, write_corpus)
    (out / "sources" / "stale.md").write_text("left from before")
    build_site(tmp_path / "corpus", out)
    assert not (out / "sources" / "stale.md").exists()


def test_refuses_overlapping_paths(tmp_path: Path, write_corpus: WriteCorpus) -> None:
    corpus = write_corpus(CORPUS)
    with pytest.raises(ConfigurationError, match="must not contain or lie inside"):
        build_site(corpus, corpus / "site")
    with pytest.raises(ConfigurationError, match="must not contain or lie inside"):
        build_site(corpus, tmp_path)
    (tmp_path / "file").write_text("x")
    with pytest.raises(ConfigurationError, match="not a folder"):
        build_site(corpus, tmp_path / "file")


def test_pyodide_dir_is_copied_and_checked(tmp_path: Path, write_corpus: WriteCorpus) -> None:
    fake = tmp_path / "pyodide"
    fake.mkdir()
    with pytest.raises(ConfigurationError, match="lacks"):
        _site(tmp_path, write_corpus, pyodide_dir=fake)
    for name in PYODIDE_FILES:
        (fake / name).write_text("{}")
    (fake / "package.json").write_text('{"version": "0.29.3"}')
    with pytest.raises(ConfigurationError, match="sqlite3"):
        _site(tmp_path, write_corpus, pyodide_dir=fake)
    (fake / "package.json").write_text('{"version": "314.0.8"}')
    out = _site(tmp_path, write_corpus, pyodide_dir=fake)
    assert sorted(p.name for p in (out / "pyodide").iterdir()) == sorted(PYODIDE_FILES)
    assert json.loads((out / "site.json").read_text())["pyodide"]["url"] == "pyodide/"


def test_cli_build_site_sample(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "site"
    code = main(["build-site", "sample", "-o", str(out), "--pyodide-url", "/pyodide/", "--json"])
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert report["citations_failed"] == []
    assert report["citations_verified"] > 100
    assert report["sources"] == len(list((out / "sources").rglob("*.*")))
    site = json.loads((out / "site.json").read_text("utf-8"))
    assert site["pyodide"]["url"] == "/pyodide/"
    assert site["title"] == "groundkit sample"
    # Without the runtime, the wheel and the app's own files (a fixed size whatever the
    # corpus), the site stays within 2.5x its sources (ADR 0018).
    total = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    sources = sum(p.stat().st_size for p in (out / "sources").rglob("*") if p.is_file())
    app = sum((out / name).stat().st_size for name in APP_FILES)
    assert (total - report["wheel_bytes"] - app) / sources <= 2.5
    assert site["first_answer"] is True and report["python_first"] is None


def test_cli_refusal_is_a_usage_error(
    tmp_path: Path, write_corpus: WriteCorpus, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = write_corpus(CORPUS)
    out = tmp_path / "busy"
    out.mkdir()
    (out / "x").write_text("x")
    assert main(["build-site", str(corpus), "-o", str(out)]) == 2
    assert "--force" in capsys.readouterr().err


def test_cli_build_site_with_vectors(tmp_path: Path) -> None:
    out = tmp_path / "site"
    corpus = tmp_path / "c"
    corpus.mkdir()
    (corpus / "a.md").write_text("# Burst main\n\nCrews fix a burst main within hours.\n")
    assert main(["build-site", str(corpus), "-o", str(out), "--embedder", "hash", "--json"]) == 0
    site = json.loads((out / "site.json").read_text("utf-8"))
    assert site["collection"]["embedder"]["provider"]
    with open_site(out) as retriever:
        assert retriever.search("burst main", mode="hybrid").results


def test_snapshot_needs_the_runtime_copied_in_and_node(
    tmp_path: Path, write_corpus: WriteCorpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(ConfigurationError, match="--snapshot needs --pyodide-dir"):
        _site(tmp_path, write_corpus, snapshot=True)
    runtime = tmp_path / "pyodide"
    runtime.mkdir()
    for name in PYODIDE_FILES:
        (runtime / name).write_text('{"version": "314.0.8"}' if name == "package.json" else "")
    monkeypatch.setattr("groundkit.site.memory_snapshot.shutil.which", lambda name: None)
    with pytest.raises(ConfigurationError, match=r"Node\.js"):
        _site(tmp_path, write_corpus, snapshot=True, pyodide_dir=runtime)
    assert not (tmp_path / "site").exists()


def test_a_language_sites_wheel_carries_the_stemmers_it_was_built_with(tmp_path: Path) -> None:
    """A German collection's page needs snowballstemmer in Pyodide: the site's one wheel carries
    the installed copy (sources, METADATA with the release the identity names, licence); an
    English site's wheel does not (adr/0045)."""
    pytest.importorskip("snowballstemmer", reason='pip install ".[languages]"')
    from importlib.metadata import version

    from groundkit.analysis.analyzer import Analyzer
    from groundkit.site import SiteOptions, build_site

    release = version("snowballstemmer")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# Zähne\n\nDie Zähne putzen.\n", encoding="utf-8")
    german = SiteOptions(analyzer=Analyzer.for_language("de"))
    report = build_site(tmp_path / "docs", tmp_path / "site", german)
    assert report.wheel == f"groundkit-{groundkit.__version__}-py3-none-any.whl"
    with zipfile.ZipFile(tmp_path / "site" / report.wheel) as archive:
        names = set(archive.namelist())
        metadata = archive.read(f"snowballstemmer-{release}.dist-info/METADATA").decode()
    assert {"snowballstemmer/__init__.py", "snowballstemmer/german_stemmer.py"} <= names
    assert f"snowballstemmer-{release}.dist-info/licenses/COPYING" in names
    assert f"Version: {release}" in metadata
    with open_site(tmp_path / "site") as retriever:
        assert retriever.search("Zahn").results[0].source == "a.md"
    plain = build_wheel(tmp_path)
    with zipfile.ZipFile(plain) as archive:
        assert not [n for n in archive.namelist() if n.startswith("snowballstemmer")]


@pytest.mark.subprocess
def test_a_bundled_stemmer_imports_and_names_its_release_from_the_wheel(tmp_path: Path) -> None:
    """Without site-packages (``-S``), only the wheel on ``sys.path``: the German analyzer
    loads snowballstemmer and reads its release from the wheel, as Pyodide does."""
    import subprocess
    import sys
    from importlib.metadata import version

    pytest.importorskip("snowballstemmer", reason='pip install ".[languages]"')
    wheel = build_wheel(tmp_path, bundle=["snowballstemmer"])
    code = (
        "from groundkit.analysis.analyzer import Analyzer; import snowballstemmer; "
        "a = Analyzer.for_language('de'); "
        "print(snowballstemmer.__file__, a.identity['release'], a.terms('Die Zähne'))"
    )
    done = subprocess.run(
        [sys.executable, "-S", "-c", f"import sys; sys.path.insert(0, {str(wheel)!r}); {code}"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.split() == [
        f"{wheel}/snowballstemmer/__init__.py",
        "snowballstemmer",
        version("snowballstemmer"),
        "['zahn']",
    ]


def test_a_theme_ships_as_theme_css_loaded_after_the_pages_own(tmp_path: Path) -> None:
    theme = tmp_path / "brand.css"
    rules = "".join(f".r{n} {{ color: var(--accent); }}\n" for n in range(40))  # gzip pays
    theme.write_text(":root { --accent: #8b1e3f; }\n" + rules, encoding="utf-8")
    out = tmp_path / "site"
    build_site(groundkit.sample_corpus(), out, SiteOptions(theme=theme, precompress_with="gzip"))
    assert (out / "theme.css").read_text(encoding="utf-8") == theme.read_text(encoding="utf-8")
    assert gzip.decompress((out / "theme.css.gz").read_bytes()) == theme.read_bytes()
    page = (out / "index.html").read_text(encoding="utf-8")
    assert page.index('href="style.css"') < page.index('href="theme.css"')
    plain = tmp_path / "plain"
    build_site(groundkit.sample_corpus(), plain)
    assert "--accent" not in (plain / "theme.css").read_text(encoding="utf-8").split("*/")[-1]
    with pytest.raises(ConfigurationError, match="no such CSS file"):
        missing = SiteOptions(theme=tmp_path / "missing.css")
        build_site(groundkit.sample_corpus(), tmp_path / "x", missing)


def test_the_site_ships_the_collections_own_bar_and_the_page_abstains_by_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """build-site fits bm25's bar as `ingest` records it (the same pseudo queries,
    deterministic), ships it in the head, and a search over the site abstains by it; with
    --no-calibrate the site ships none and answers (adr/0069)."""
    out, bare = tmp_path / "site", tmp_path / "bare"
    assert main(["build-site", "sample", "-o", str(out), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert main(["ingest", "sample", "--index-dir", str(tmp_path / "idx")]) == 0  # calibrates
    assert 'calibrated "nothing here"' in capsys.readouterr().out
    with groundkit.Searcher.open(tmp_path / "idx") as stored:
        recorded = read_lexical_bar(stored.reader.location)
    assert recorded is not None and recorded.separates
    head = json.loads(zlib.decompress((out / "index" / "collection.bin").read_bytes()))
    assert head["lexical_bar"] == report["lexical_bar"] == recorded.to_dict()
    assert main(["build-site", "sample", "-o", str(bare), "--no-calibrate"]) == 0
    assert "nothing here" not in capsys.readouterr().out
    bare_head = json.loads(zlib.decompress((bare / "index" / "collection.bin").read_bytes()))
    assert bare_head["lexical_bar"] is None
    question = "what is the best way to clean a tap"  # "clean" and "tap" are in the sample
    with open_site(out) as site, open_site(bare) as plain:
        said = site.search(question, mode="bm25").metadata
        assert said["abstained"] is True
        assert said["lexical_bar"]["source"] == "self-calibrated"
        assert plain.search(question, mode="bm25").results
