"""Fetched pages (``source_class`` ``snapshot``): a URL fetched once into the page archive, through
the SSRF guard, then verified offline.

A real HTTP server on 127.0.0.1 (a thread, bounded in time), reached with the explicit allow.
"""

from __future__ import annotations

import http.server
import ipaddress
import json
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import pytest

import groundkit
from groundkit import Searcher
from groundkit.ingestion.fetch import address_refusal, fetch

pytestmark = pytest.mark.skipif(sys.platform == "emscripten", reason="Pyodide has no sockets")

PAGE = (
    b"<html><head><title>t</title><script>track()</script></head><body><nav>Home</nav>"
    b"<main><h1>Hydrants</h1><p>Flush every hydrant twice a year.</p>"
    b"<h2>Winter</h2><p>Drain dry-barrel hydrants before the first frost.</p></main></body></html>"
)


class _Handler(http.server.BaseHTTPRequestHandler):
    page = PAGE
    pdf = b""

    def log_message(self, *args: object) -> None:
        pass

    def _send(self, body: bytes, content_type: str = "text/html; charset=utf-8") -> None:
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        port = self.server.server_address[1]
        if self.path == "/page.html":
            self._send(type(self).page)
        elif self.path == "/manual.pdf":
            self._send(type(self).pdf, "application/pdf")
        elif self.path == "/notes.txt":
            self._send(
                b"Valve exercise notes.\n\nTurn each valve fully once a year.\n", "text/plain"
            )
        elif self.path == "/moved":
            self.send_response(302)
            self.send_header("Location", "/page.html")
            self.end_headers()
        elif self.path == "/to-private":
            self.send_response(302)
            self.send_header("Location", f"http://127.0.0.2:{port}/page.html")
            self.end_headers()
        elif self.path == "/image":
            self._send(b"\x89PNG....", "image/png")
        elif self.path == "/big":
            self._send(b"<p>" + b"x" * 5000 + b"</p>")
        elif self.path in ("/drip-body", "/drip-headers"):
            head = (b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n"
                    b"Content-Length: 100000\r\n\r\n")  # fmt: skip
            if self.path == "/drip-body":
                self.wfile.write(head)
                head = b"<p>" + b"x" * 99_996
            for byte in head[:120]:  # one byte every 0.25 s: 30 s, far past any deadline
                try:
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
                except OSError:
                    return
                time.sleep(0.25)
        elif self.path == "/meta-charset":
            self._send(b'<meta charset="zlib"><p>Valves are checked.</p>', "text/html")
        elif self.path == "/drip":
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            for _ in range(40):  # 4 s in all, far past the test's 1 s deadline
                try:
                    self.wfile.write(b"<p>x</p>")
                    self.wfile.flush()
                except OSError:
                    return
                time.sleep(0.1)
        else:
            self.send_error(404)


@pytest.fixture
def server() -> Iterator[str]:
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=10)


ALLOW = ("127.0.0.1",)


def test_a_url_is_snapshotted_cited_and_verified_offline(server: str, tmp_path: Path) -> None:
    index = tmp_path / "index"
    report = groundkit.ingest(f"{server}/page.html", index_dir=index, allow_addresses=ALLOW)
    assert report.ok and len(report.indexed) == 1 and report.root == f"{server}/page.html"
    [name] = report.indexed
    snapshot = index / "default" / "snapshots" / name
    assert snapshot.read_bytes() == PAGE and name.startswith("sha256-") and name.endswith(".html")
    assert report.classes == {name: "snapshot"}
    with Searcher.open(index) as retriever:
        top = retriever.search("dry-barrel hydrants frost").results[0]
        assert top.citation.source_class == "snapshot" and top.citation.extractor is not None
        assert top.metadata["heading_path"] == ["Hydrants", "Winter"]
        assert top.metadata["root"] == f"{server}/page.html"
        assert "track()" not in top.content
        assert retriever.verify(top).ok
    assert [(r.root, r.classes) for r in groundkit.list_sources(index)] == [
        (f"{server}/page.html", {"snapshot": 1})
    ]


def test_verification_never_fetches_again(server: str, tmp_path: Path) -> None:
    index = tmp_path / "index"
    groundkit.ingest(f"{server}/notes.txt", index_dir=index, allow_addresses=ALLOW)
    _Handler.page = b"changed"  # the server changing (or going away) does not matter
    try:
        assert groundkit.verify_collection(index).ok
    finally:
        _Handler.page = PAGE
    [snapshot] = (index / "default" / "snapshots").iterdir()
    snapshot.write_bytes(snapshot.read_bytes().replace(b"fully", b"FULLY"))
    checked = groundkit.verify_collection(index)
    assert checked.drifted == 1
    snapshot.unlink()
    assert groundkit.verify_collection(index).unresolvable == 1


def test_a_private_address_is_refused_without_the_allow(
    server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = groundkit.ingest(f"{server}/page.html", index_dir=tmp_path / "index")
    [refusal] = report.refused
    assert (
        refusal.reason == "private_address" and "127.0.0.1 is a loopback address" in refusal.message
    )
    assert "--allow-address" in refusal.message
    assert not (tmp_path / "index" / "default" / "snapshots").exists()
    from groundkit.cli import main

    assert main(["ingest", f"{server}/page.html", "--index-dir", str(tmp_path / "i2")]) == 4
    assert "private networks" in capsys.readouterr().err
    code = main(
        ["ingest", f"{server}/page.html", "--index-dir", str(tmp_path / "i2"), "--allow-address",
         "127.0.0.1", "--json"]
    )  # fmt: skip
    assert code == 0 and json.loads(capsys.readouterr().out)["indexed"]


def test_redirects_are_followed_and_checked_at_every_hop(server: str) -> None:
    moved = fetch(f"{server}/moved", max_bytes=10_000, allow=ALLOW)
    assert moved.final_url == f"{server}/page.html" and moved.body == PAGE
    with pytest.raises(groundkit.IngestionError, match=r"127\.0\.0\.2 is a loopback") as info:
        fetch(f"{server}/to-private", max_bytes=10_000, allow=ALLOW)
    assert info.value.reason == "private_address"


def test_credentials_big_bodies_slow_servers_and_other_types_are_refused(server: str) -> None:
    host = server.removeprefix("http://")
    cases = {
        f"http://user:secret@{host}/page.html": "bad_url",
        f"ftp://{host}/page.html": "bad_url",
        f"{server}/big": "too_large",
        f"{server}/image": "unsupported_type",
        f"{server}/missing": "fetch_failed",
    }
    for url, reason in cases.items():
        with pytest.raises(groundkit.IngestionError) as info:
            fetch(url, max_bytes=1000, allow=ALLOW)
        assert info.value.reason == reason, url
        assert "secret" not in info.value.message  # credentials are never echoed
    with pytest.raises(groundkit.IngestionError, match="within 1 s") as info:
        fetch(f"{server}/drip", max_bytes=1_000_000, timeout_s=1.0, allow=ALLOW)
    assert info.value.reason == "timeout"


@pytest.mark.parametrize("path", ["/drip-body", "/drip-headers"])
def test_a_server_dripping_bytes_is_cut_at_the_deadline(server: str, path: str) -> None:
    """Each byte comes well within a socket timeout; the whole fetch still ends at its
    deadline (the bound below only catches a hang: the drip lasts 30 s)."""
    started = time.monotonic()
    with pytest.raises(groundkit.IngestionError, match="within 1 s") as info:
        fetch(server + path, max_bytes=1_000_000, timeout_s=1.0, allow=ALLOW)
    assert info.value.reason == "timeout"
    assert time.monotonic() - started < 15


@pytest.mark.parametrize("timeout", [float("nan"), float("inf"), 0.0, -1.0])
def test_a_fetch_timeout_must_be_finite_and_positive(server: str, timeout: float) -> None:
    with pytest.raises(groundkit.ConfigurationError, match="finite number of seconds"):
        fetch(f"{server}/page.html", max_bytes=1000, timeout_s=timeout, allow=ALLOW)


@pytest.mark.parametrize("value", ["nan", "inf", "0", "-1"])
def test_the_cli_refuses_a_fetch_timeout_that_is_not_a_finite_positive_number(
    value: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from groundkit.cli import main

    code = main(["ingest", "http://127.0.0.1:9/x.html", "--fetch-timeout", value,
                 "--index-dir", str(tmp_path)])  # fmt: skip
    assert code == 2
    assert "finite number of seconds" in capsys.readouterr().err


def test_a_page_declaring_a_codec_that_is_no_charset_is_refused_by_name(
    server: str, tmp_path: Path
) -> None:
    report = groundkit.ingest(
        f"{server}/meta-charset", index_dir=tmp_path / "index", allow_addresses=ALLOW
    )
    assert not report.indexed
    [refusal] = report.refused
    assert "zlib" in refusal.message and "no character set" in refusal.message


@pytest.mark.parametrize(
    ("address", "kind"),
    [
        ("127.0.0.1", "loopback"),
        ("10.1.2.3", "private"),
        ("192.168.0.1", "private"),
        ("169.254.169.254", "link-local"),
        ("::1", "loopback"),
        ("fe80::1", "link-local"),
        ("fc00::1", "private"),
        ("::ffff:127.0.0.1", "loopback"),
        ("::ffff:10.0.0.1", "private"),
        ("2002:7f00:1::", "loopback"),  # 6to4 wrapping 127.0.0.1
        ("0.0.0.0", "unspecified"),
        ("100.64.0.1", "not a public"),  # carrier-grade NAT
    ],
)
def test_non_public_addresses_are_named(address: str, kind: str) -> None:
    reason = address_refusal(ipaddress.ip_address(address))
    assert reason is not None and kind in reason


def test_public_addresses_pass() -> None:
    for address in ("93.184.215.14", "2606:4700::1111", "8.8.8.8"):
        assert address_refusal(ipaddress.ip_address(address)) is None


def test_credentials_never_reach_the_report(tmp_path: Path, server: str) -> None:
    host = server.removeprefix("http://")
    report = groundkit.ingest(f"http://me:secret@{host}/page.html", index_dir=tmp_path / "i")
    assert "secret" not in json.dumps(report.to_dict())
    assert [r.reason for r in report.refused] == ["bad_url"]


def test_a_url_is_removed_by_its_url(server: str, tmp_path: Path) -> None:
    index = tmp_path / "index"
    groundkit.ingest(f"{server}/page.html", index_dir=index, allow_addresses=ALLOW)
    groundkit.ingest(f"{server}/notes.txt", index_dir=index, allow_addresses=ALLOW)
    again = groundkit.ingest(f"{server}/page.html", index_dir=index, allow_addresses=ALLOW)
    assert len(again.unchanged) == 1
    report = groundkit.remove_sources(f"{server}/page.html", index_dir=index)
    assert len(report.removed) == 1
    assert [r.root for r in groundkit.list_sources(index)] == [f"{server}/notes.txt"]


def test_the_report_names_a_snapshots_extractor(server: str, tmp_path: Path) -> None:
    report = groundkit.ingest(
        f"{server}/page.html", index_dir=tmp_path / "i", allow_addresses=ALLOW
    )
    assert "written by class: snapshot 1 via html 2 (main-text) x1" in report.summary()


def test_a_pdf_url_is_cited_with_pages_and_verified_offline(
    server: str, tmp_path: Path, make_pdf: Callable[[list[list[str]]], bytes], pypdf: ModuleType
) -> None:
    _Handler.pdf = make_pdf([["Cover page"], ["Hydrant flushing schedule", "Flush in April."]])
    index = tmp_path / "index"
    report = groundkit.ingest(f"{server}/manual.pdf", index_dir=index, allow_addresses=ALLOW)
    assert report.ok and report.indexed[0].endswith(".pdf")
    with Searcher.open(index) as retriever:
        top = retriever.search("flushing schedule").results[0]
        assert top.citation.source_class == "snapshot"
        assert (top.citation.start_page, top.citation.end_page) == (2, 2)
        assert retriever.verify(top).ok


def test_a_refused_snapshot_leaves_no_file(server: str, tmp_path: Path) -> None:
    index = tmp_path / "index"
    groundkit.ingest(f"{server}/page.html", index_dir=index, allow_addresses=ALLOW)
    [kept] = (index / "default" / "snapshots").iterdir()
    _Handler.page = b"<p>not decodable \xfa\xfb</p>"
    try:
        report = groundkit.ingest(f"{server}/page.html", index_dir=index, allow_addresses=ALLOW)
    finally:
        _Handler.page = PAGE
    assert [r.reason for r in report.refused] == ["not_decodable"]
    assert list((index / "default" / "snapshots").iterdir()) == [kept]  # the cited one stays
    assert groundkit.verify_collection(index).ok
