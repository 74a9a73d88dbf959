"""``build-site --base-url/--url-rule/--url-map``: each result's rendered page (ADR 0048).

The rules and anchors are ``groundkit.site.source_links``; the page only looks links up in
``links.json`` (the browser test, ``tox -e web``, follows one).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import WriteCorpus
from groundkit.cli import main
from groundkit.errors import ConfigurationError
from groundkit.site import SiteOptions, build_site
from groundkit.site.source_links import (
    LinkSpec,
    check_base_url,
    make_id,
    markdown_slug,
    page_url,
    read_url_map,
    section_anchors,
)

J = "\x1f"


@pytest.mark.parametrize(
    ("source", "rule", "want"),
    [
        ("topics/db/transactions.txt", "sphinx-dirhtml", "/topics/db/transactions/"),
        ("topics/index.txt", "sphinx-dirhtml", "/topics/"),
        ("index.txt", "sphinx-dirhtml", "/"),
        ("ref/models/index.rst", "sphinx-html", "/ref/models/index.html"),
        ("topics/db/transactions.txt", "sphinx-html", "/topics/db/transactions.html"),
        ("guide/setup.md", "mkdocs", "/guide/setup/"),
        ("guide/README.md", "mkdocs", "/guide/"),
        ("index.md", "mkdocs", "/"),
        ("a/b.html", "same", "/a/b.html"),
        ("with space/and more.txt", "sphinx-dirhtml", "/with%20space/and%20more/"),
        ("intl/Überblick.txt", "sphinx-dirhtml", "/intl/%C3%9Cberblick/"),
        ("what?now#x.md", "same", "/what%3Fnow%23x.md"),
        ("v1.2/notes.txt", "sphinx-html", "/v1.2/notes.html"),
        ("Makefile", "sphinx-dirhtml", "/Makefile/"),
        ("sub/index.txt.bak", "sphinx-dirhtml", "/sub/index.txt/"),
    ],
)
def test_page_url_rules(source: str, rule: str, want: str) -> None:
    assert page_url(source, rule, "/") == want
    assert page_url(source, rule, "https://docs.example.org/en/5.2/") == (
        "https://docs.example.org/en/5.2" + want
    )


@pytest.mark.parametrize(
    ("title", "want"),
    [
        ("Django's default transaction behavior", "django-s-default-transaction-behavior"),
        ("``atomic()`` and savepoints", "atomic-and-savepoints"),
        ("2.0 release — Überblick", "release-uberblick"),  # leading digits dropped
        ("Straße  und  Øre", "strasze-und-ore"),
        ("   ", ""),
        ("日本語", ""),
    ],
)
def test_make_id_is_docutils(title: str, want: str) -> None:
    assert make_id(title) == want


def test_markdown_slug() -> None:
    assert markdown_slug("Hello, World! (v2)") == "hello-world-v2"
    assert markdown_slug("Café au lait") == "cafe-au-lait"


def test_anchors_innermost_heading_the_title_links_to_the_top() -> None:
    paths = [(), ("Title",), ("Title", "Setup"), ("Title", "Setup", "On Linux"), ("Title", "Use")]
    assert section_anchors(paths, "sphinx-dirhtml") == {
        f"Title{J}Setup": "setup",
        f"Title{J}Setup{J}On Linux": "on-linux",
        f"Title{J}Use": "use",
    }
    assert section_anchors(paths, "same") == {}


def test_sphinx_anchors_read_rest_escapes() -> None:
    paths = [("T",), ("T", "Methods that return new QuerySet\\s"), ("T", "A\\ B")]
    assert section_anchors(paths, "sphinx-dirhtml") == {
        f"T{J}Methods that return new QuerySet\\s": "methods-that-return-new-querysets",
        f"T{J}A\\ B": "ab",
    }


def test_a_repeated_title_falls_back_to_its_section_under_sphinx_and_counts_under_mkdocs() -> None:
    paths = [("T",), ("T", "Examples"), ("T", "Models"), ("T", "Models", "Examples")]
    assert section_anchors(paths, "sphinx-html")[f"T{J}Models{J}Examples"] == "models"
    assert section_anchors(paths, "mkdocs")[f"T{J}Models{J}Examples"] == "examples_1"


def test_a_path_that_names_two_sections_takes_its_parents_anchor() -> None:
    # two sibling "Notes" under "A": the second is docutils' idN, so neither is named
    paths = [("T",), ("T", "A"), ("T", "A", "Notes"), ("T", "A", "B"), ("T", "A", "Notes")]
    anchors = section_anchors(paths, "sphinx-dirhtml")
    assert anchors[f"T{J}A{J}Notes"] == "a" and anchors[f"T{J}A{J}B"] == "b"


@pytest.mark.parametrize(
    "base", ["docs/", "ftp://x/", "javascript:alert(1)", "//cdn.example/", "https://", "/a b/"]
)
def test_a_base_url_that_is_not_http_or_a_root_path_is_refused(base: str) -> None:
    with pytest.raises(ConfigurationError, match="--base-url"):
        check_base_url(base)


def test_a_base_url_gets_its_trailing_slash_and_refuses_query_and_fragment() -> None:
    assert check_base_url("https://docs.example.org/en/5.2") == "https://docs.example.org/en/5.2/"
    assert check_base_url("/") == "/"
    for bad in ("/docs/?v=1", "/docs/#top"):
        with pytest.raises(ConfigurationError):
            check_base_url(bad)


def test_url_map_file_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="no such file"):
        read_url_map(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text("{not json", "utf-8")
    with pytest.raises(ConfigurationError, match="not a readable JSON"):
        read_url_map(tmp_path / "bad.json")
    (tmp_path / "list.json").write_text('["a"]', "utf-8")
    with pytest.raises(ConfigurationError, match="JSON object of source -> URL"):
        read_url_map(tmp_path / "list.json")
    (tmp_path / "js.json").write_text('{"a.md": "javascript:alert(1)"}', "utf-8")
    with pytest.raises(ConfigurationError, match="http"):
        read_url_map(tmp_path / "js.json")


def test_option_combinations() -> None:
    assert LinkSpec.from_options() is None
    assert LinkSpec.from_options(base_url="/d") == LinkSpec(base="/d/", rule="same")
    with pytest.raises(ConfigurationError, match="needs --base-url"):
        LinkSpec.from_options(url_rule="mkdocs")
    with pytest.raises(ConfigurationError, match="choose one of"):
        LinkSpec.from_options(base_url="/", url_rule="hugo")


CORPUS = {
    "index.txt": "=====\nHome\n=====\n\nWelcome to the quokka docs.\n",
    "topics/db/transactions.txt": (
        "=============================\nManaging database transactions\n"
        "=============================\n\nIntro about quokka transactions.\n\n"
        "Django's default transaction behavior\n"
        "=====================================\n\nAutocommit wombat mode is the default.\n"
    ),
    "guide/setup.md": "# Setup\n\n## On Linux\n\nInstall numbat first.\n",
}


SPHINX_CONF = (
    'source_suffix = {".txt": "restructuredtext", ".md": "markdown"}\n'
    'exclude_patterns = ["_build", "requirements.txt", "drafts/**"]\nroot_doc = "index"\n'
)


def test_build_site_writes_links_json(tmp_path: Path, write_corpus: WriteCorpus) -> None:
    out = tmp_path / "site"
    spec = LinkSpec.from_options(
        base_url="https://docs.example.org/en/5.2", url_rule="sphinx-dirhtml"
    )
    # Sphinx renders neither README.rst (not a source_suffix) nor what exclude_patterns names
    unrendered = {
        "README.rst": "Read me\n",
        "requirements.txt": "sphinx quokka\n",
        "drafts/deep/idea.txt": "A quokka idea.\n",
    }
    corpus = write_corpus({**CORPUS, **unrendered, "conf.py": SPHINX_CONF})
    report = build_site(corpus, out, SiteOptions(links=spec))
    assert report.links == 3 and report.sources == 6
    site = json.loads((out / "site.json").read_text("utf-8"))
    assert site["links"] == {"url": "links.json", "rule": "sphinx-dirhtml", "pages": 3}
    links = json.loads((out / "links.json").read_text("utf-8"))
    page = links["pages"]["topics/db/transactions.txt"]
    assert page["url"] == "https://docs.example.org/en/5.2/topics/db/transactions/"
    assert page["anchors"] == {
        f"Managing database transactions{J}Django's default transaction behavior": (
            "django-s-default-transaction-behavior"
        )
    }
    assert links["pages"]["index.txt"] == {"url": "https://docs.example.org/en/5.2/"}
    assert (out / "embed.html").is_file()


def test_sphinx_rules_refuse_without_a_readable_conf_py(
    tmp_path: Path, write_corpus: WriteCorpus
) -> None:
    spec = LinkSpec.from_options(base_url="/d/", url_rule="sphinx-html")
    with pytest.raises(ConfigurationError, match=r"holds no conf\.py"):
        build_site(write_corpus(CORPUS), tmp_path / "site", SiteOptions(links=spec))
    computed = write_corpus({**CORPUS, "conf.py": "source_suffix = ['.t' + 'xt']\n"})
    with pytest.raises(ConfigurationError, match="computes source_suffix"):
        build_site(computed, tmp_path / "site2", SiteOptions(links=spec))
    assert not (tmp_path / "site").exists() and not (tmp_path / "site2").exists()


def test_sphinx_exclude_patterns_follow_sphinx() -> None:
    from groundkit.site.sphinx_conf import SphinxSources

    conf = SphinxSources((".txt",), ("_build", "a/*.txt", "b/**", "c?.txt"), "contents")
    assert conf.renders("index.txt") and conf.renders("a/x/y.txt")
    assert not conf.renders("_build/html/x.txt") and not conf.renders("a/one.txt")
    assert not conf.renders("b/c/d.txt") and not conf.renders("c1.txt")
    assert not conf.renders("README.rst") and conf.renders("c12.txt")


def test_a_site_without_links_has_no_links_json(tmp_path: Path, write_corpus: WriteCorpus) -> None:
    out = tmp_path / "site"
    build_site(write_corpus(CORPUS), out)
    assert json.loads((out / "site.json").read_text("utf-8"))["links"] is None
    assert not (out / "links.json").exists()


def test_cli_url_map(
    tmp_path: Path, write_corpus: WriteCorpus, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = write_corpus(CORPUS)
    good = tmp_path / "map.json"
    good.write_text(json.dumps({"guide/setup.md": "/guide/setup.html#top"}), "utf-8")
    out = tmp_path / "site"
    assert main(["build-site", str(corpus), "-o", str(out), "--url-map", str(good)]) == 0
    assert "1 of 3 sources link to their rendered page" in capsys.readouterr().out
    pages = json.loads((out / "links.json").read_text("utf-8"))["pages"]
    assert pages == {"guide/setup.md": {"url": "/guide/setup.html#top"}}
    bad = tmp_path / "typo.json"
    bad.write_text(json.dumps({"docs/guide/setup.md": "/guide/setup/"}), "utf-8")
    assert main(["build-site", str(corpus), "-o", str(tmp_path / "s2"), "--url-map", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "does not hold: docs/guide/setup.md" in err
    assert not (tmp_path / "s2").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--base-url", "docs/"], "--base-url 'docs/'"),
        (["--url-rule", "mkdocs"], "needs --base-url"),
        (["--url-map", "nope.json"], "no such file"),
        (["--url-map", "m.json", "--base-url", "/"], "without --base-url"),
    ],
)
def test_cli_link_option_errors(
    tmp_path: Path,
    write_corpus: WriteCorpus,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    message: str,
) -> None:
    corpus = write_corpus(CORPUS)
    (tmp_path / "m.json").write_text("{}", "utf-8")
    args = [str(tmp_path / a) if a.endswith(".json") else a for a in args]
    assert main(["build-site", str(corpus), "-o", str(tmp_path / "site"), *args]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "site").exists()
