"""REST over a real server process: cited results, errors, limits, Host/Origin, token."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import httpx
import pytest
from serving import Server, serve_command, start_server, wait_for, write_corpus, write_marked

import groundkit
from groundkit import SearchFilter

pytestmark = pytest.mark.subprocess
TIMEOUT = httpx.Timeout(30.0)


def get(server: Server, path: str, **kwargs: object) -> httpx.Response:
    return httpx.get(server.url + path, timeout=TIMEOUT, **kwargs)  # type: ignore[arg-type]


def test_search_returns_the_librarys_cited_results(server: Server, index_dir: Path) -> None:
    reply = get(server, "/v1/search", params={"q": "how do I report a leak", "top_k": 5})
    assert reply.status_code == 200, reply.text
    body = reply.json()
    with groundkit.Searcher.open(index_dir, "default") as retriever:
        expected = retriever.search("how do I report a leak", top_k=5).to_dict()
    assert body["generation"] == expected["metadata"]["generation"]
    assert body["collection"] == "default"
    assert [r["chunk_id"] for r in body["results"]] == [r["chunk_id"] for r in expected["results"]]
    for got, want in zip(body["results"], expected["results"], strict=True):
        assert {k: got[k] for k in want} == want  # the field names and values of search --json
    posted = httpx.post(
        server.url + "/v1/search",
        json={"query": "how do I report a leak", "top_k": 5, "verify": True},
        timeout=TIMEOUT,
    ).json()
    assert [r["chunk_id"] for r in posted["results"]] == [r["chunk_id"] for r in body["results"]]
    assert {r["verification"]["verdict"] for r in posted["results"]} == {"verified"}


def test_prefix_and_fuzzy_are_the_librarys(server: Server, index_dir: Path) -> None:
    begun = get(server, "/v1/search", params={"q": "chlorine resid", "prefix": "true"}).json()
    typo = httpx.post(
        server.url + "/v1/search",
        json={"query": "hydrent flushing", "fuzzy": True},
        timeout=TIMEOUT,
    ).json()
    with groundkit.Searcher.open(index_dir, "default") as retriever:
        want_begun = retriever.search("chlorine resid", prefix=True)
        want_typo = retriever.search("hydrent flushing", fuzzy=True)
    for got, want in ((begun, want_begun), (typo, want_typo)):
        assert got["results"] and got["metadata"]["expansions"] == want.metadata["expansions"]
        assert [r["chunk_id"] for r in got["results"]] == [r.chunk_id for r in want.results]
    refused = httpx.post(
        server.url + "/v1/search",
        json={"query": "hydrent", "fuzzy": True, "mode": "dense"},
        timeout=TIMEOUT,
    )
    assert refused.status_code == 422 and "no BM25 leg" in refused.text


def test_grouping_by_page_is_the_librarys(server: Server, index_dir: Path) -> None:
    query = "water pressure leak"
    body = httpx.post(
        server.url + "/v1/search",
        json={"query": query, "top_k": 3, "group": {"passages": 2}, "verify": True},
        timeout=TIMEOUT,
    ).json()
    with groundkit.Searcher.open(index_dir, "default") as retriever:
        want = retriever.search(query, top_k=3, group=groundkit.GroupOptions(passages=2))
    assert body["groups"] == want.to_dict()["groups"] and len(body["groups"]) == 3
    assert [r["chunk_id"] for r in body["results"]] == [r.chunk_id for r in want.results]
    assert {r["verification"]["verdict"] for r in body["results"]} == {"verified"}
    plain = get(server, "/v1/search", params={"q": query, "top_k": 3}).json()
    assert plain["groups"] is None and len(plain["results"]) == 3


def test_the_filter_is_the_librarys(server: Server, index_dir: Path) -> None:
    query = "how do I pay my bill"
    prefixed = get(
        server, "/v1/search", params={"q": query, "where.source_prefix": "billing/"}
    ).json()
    where = {"heading_path": "Payment methods"}
    posted = httpx.post(
        server.url + "/v1/search",
        json={"query": query, "top_k": 3, "where": {"metadata": where}},
        timeout=TIMEOUT,
    ).json()
    with groundkit.Searcher.open(index_dir, "default") as retriever:
        by_prefix = retriever.search(query, where=SearchFilter(source_prefix="billing/"))
        by_metadata = retriever.search(query, top_k=3, where=SearchFilter(metadata=where))
    assert prefixed["results"] and all(
        r["source"].startswith("billing/") for r in prefixed["results"]
    )
    assert [r["chunk_id"] for r in prefixed["results"]] == [r.chunk_id for r in by_prefix.results]
    assert posted["results"]
    assert [r["chunk_id"] for r in posted["results"]] == [r.chunk_id for r in by_metadata.results]
    assert all("Payment methods" in r["metadata"]["heading_path"] for r in posted["results"])


def test_hybrid_search_on_a_dense_collection(server: Server, index_dir: Path) -> None:
    params = {"query": "report a leak", "collection": "dense", "mode": "hybrid", "top_k": 4,
              "hybrid": {"rrf_k": 30, "weights": [1.0, 0.5]}}  # fmt: skip
    body = httpx.post(server.url + "/v1/search", json=params, timeout=TIMEOUT).json()
    with groundkit.Searcher.open(index_dir, "dense") as retriever:
        expected = retriever.search(
            "report a leak",
            top_k=4,
            mode="hybrid",
            hybrid=groundkit.HybridOptions(rrf_k=30, weights=(1.0, 0.5)),
        )
    assert body["metadata"]["mode"] == "hybrid"
    assert [r["chunk_id"] for r in body["results"]] == [r.chunk_id for r in expected.results]
    assert [r["score"] for r in body["results"]] == [r.score for r in expected.results]


def test_fetch_chunk_verify_collections_status(server: Server) -> None:
    hit = get(server, "/v1/search", params={"q": "leak", "top_k": 1}).json()["results"][0]
    chunk = get(server, f"/v1/chunks/{hit['chunk_id']}").json()
    assert chunk["content"] == hit["content"]
    assert (chunk["start_offset"], chunk["end_offset"]) == (hit["start_offset"], hit["end_offset"])
    assert chunk["verification"]["verdict"] == "verified"
    missing = get(server, "/v1/chunks/chk_" + "0" * 32)
    assert missing.status_code == 404
    assert "no chunk with id" in missing.json()["message"]
    assert get(server, "/v1/chunks/not-an-id").status_code == 422

    citation = {k: hit[k] for k in ("source", "start_offset", "end_offset")}
    good = httpx.post(
        server.url + "/v1/verify",
        json={"citation": {**citation, "text": hit["content"]}},
        timeout=TIMEOUT,
    ).json()
    assert (good["checked"], good["verified"]) == (1, 1)
    bad = httpx.post(
        server.url + "/v1/verify",
        json={"citation": {**citation, "end_offset": hit["start_offset"] + 3, "text": "xyz"}},
        timeout=TIMEOUT,
    ).json()
    assert (bad["checked"], bad["drifted"]) == (1, 1)
    outside = httpx.post(
        server.url + "/v1/verify",
        json={"citation": {"source": "../../etc/passwd", "start_offset": 0, "end_offset": 4,
                           "text": "root"}},
        timeout=TIMEOUT,
    )  # fmt: skip
    assert outside.status_code == 404  # only the collection's own sources can be verified
    whole = httpx.post(server.url + "/v1/verify", json={}, timeout=TIMEOUT).json()
    assert whole["checked"] > 100 and whole["checked"] == whole["verified"]

    listed = {c["name"]: c for c in get(server, "/v1/collections").json()["collections"]}
    assert listed["default"]["ok"] and listed["billing"]["ok"]
    assert listed["dense"]["embedding"] is not None
    assert not listed["broken"]["ok"] and "damaged" in listed["broken"]["error"]
    status = get(server, "/v1/status").json()
    assert status["max_top_k"] == 20 and status["requests"] > 0
    spec = get(server, "/openapi.json").json()
    assert {"/v1/search", "/v1/chunks/{chunk_id}", "/v1/collections"} <= set(spec["paths"])
    assert "SearchHit" in spec["components"]["schemas"]


def test_an_extracted_source_is_served_and_verified_by_re_extraction(server: Server) -> None:
    params = {"q": "flush hydrant", "collection": "pages", "top_k": 1, "verify": "true"}
    hit = get(server, "/v1/search", params=params).json()["results"][0]
    assert hit["source_class"] == "extracted" and hit["extractor"]["name"] == "html"
    assert hit["content"].startswith("# Hydrants") and "Home" not in hit["content"]
    assert hit["verification"]["verdict"] == "verified"
    chunk = get(server, f"/v1/chunks/{hit['chunk_id']}", params={"collection": "pages"}).json()
    assert chunk["extractor"] == hit["extractor"] and chunk["verification"]["verdict"] == "verified"
    citation = {k: hit[k] for k in ("source", "start_offset", "end_offset")}
    checked = httpx.post(
        server.url + "/v1/verify",
        json={"collection": "pages", "citation": {**citation, "text": hit["content"]}},
        timeout=TIMEOUT,
    ).json()
    assert (checked["checked"], checked["verified"]) == (1, 1)


def test_errors_carry_the_librarys_messages(server: Server) -> None:
    missing = get(server, "/v1/search", params={"q": "leak", "collection": "nope"})
    assert missing.status_code == 404
    assert "groundkit ingest" in missing.json()["message"]
    broken = get(server, "/v1/search", params={"q": "leak", "collection": "broken"})
    assert broken.status_code == 503
    assert "broken" in broken.json()["message"]
    # the others keep serving
    assert (
        get(server, "/v1/search", params={"q": "bill", "collection": "billing"}).status_code == 200
    )
    dense = get(server, "/v1/search", params={"q": "leak", "mode": "dense"})
    assert dense.status_code == 400 and "dense" in dense.json()["message"]
    wrong_mode = get(server, "/v1/search", params={"q": "leak", "hybrid.rrf_k": 10})
    assert wrong_mode.status_code == 422 and "mode 'hybrid' only" in wrong_mode.json()["message"]
    assert get(server, "/v1/search", params={"q": "leak", "top_k": 21}).status_code == 422
    assert get(server, "/v1/search", params={"q": "leak", "top_k": 101}).status_code == 422
    assert get(server, "/v1/search", params={"q": "leak", "mode": "magic"}).status_code == 422
    big = httpx.post(server.url + "/v1/search", json={"query": "x" * 70_000}, timeout=TIMEOUT)
    assert big.status_code == 413
    unknown = httpx.post(server.url + "/v1/search", json={"query": "x", "drop": 1}, timeout=TIMEOUT)
    assert unknown.status_code == 422 and "drop" in unknown.json()["message"]


@pytest.mark.parametrize("path", ["/v1/status", "/v1/search?q=leak", "/openapi.json", "/mcp"])
def test_foreign_host_and_origin_are_refused_everywhere(server: Server, path: str) -> None:
    port = server.url.rsplit(":", 1)[1]
    foreign_host = get(server, path, headers={"Host": f"attacker.example:{port}"})
    assert foreign_host.status_code == 421
    foreign_origin = get(server, path, headers={"Origin": "http://attacker.example"})
    assert foreign_origin.status_code == 403
    if path != "/mcp":
        same_site = get(server, path, headers={"Origin": f"http://localhost:{port}"})
        assert same_site.status_code == 200


def test_a_token_is_required_off_loopback_and_checked_when_set(
    index_dir: Path, tmp_path: Path
) -> None:
    refused = subprocess.run(
        serve_command("--http", "--host", "0.0.0.0", "--port", "0", "--index-dir", str(index_dir)),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert refused.returncode == 2
    assert "without a bearer token" in refused.stderr
    token = "s3cret-" + "x" * 20
    token_file = tmp_path / "token"
    token_file.write_text(token + "\n", encoding="utf-8")
    server = start_server(
        "--index-dir", str(index_dir), "--token-file", str(token_file), "--max-open", "1"
    )
    auth = {"Authorization": f"Bearer {token}"}
    try:
        assert get(server, "/v1/status").status_code == 401
        wrong = get(server, "/v1/status", headers={"Authorization": "Bearer nope"})
        assert wrong.status_code == 401
        assert get(server, "/v1/status", headers=auth).status_code == 200
        for collection in ("default", "billing"):
            found = get(server, "/v1/search", params={"q": "bill", "collection": collection},
                        headers=auth)  # fmt: skip
            assert found.status_code == 200
        opened = get(server, "/v1/status", headers=auth).json()["open_collections"]
        assert list(opened) == ["billing"]  # the LRU cap closed the other
    finally:
        server.stop()


def test_a_request_past_the_timeout_is_answered_504(index_dir: Path) -> None:
    server = start_server("--index-dir", str(index_dir), "--timeout", "0.000001")
    try:
        late = get(server, "/v1/search", params={"q": "leak"})
        assert late.status_code == 504
        assert "did not finish within" in late.json()["message"]
    finally:
        server.stop()


def test_json_logs_never_hold_query_or_document_text(index_dir: Path) -> None:
    server = start_server("--index-dir", str(index_dir), "--log-json")
    try:
        reply = get(server, "/v1/search", params={"q": "zebraquokka marker", "top_k": 3})
        assert reply.status_code == 200 and reply.json()["results"]
        get(server, "/v1/search", params={"q": "zebraquokka", "collection": "broken"})
    finally:
        output = server.stop()
    records = [json.loads(line) for line in output.splitlines() if line.startswith("{")]
    assert any(r.get("tool") == "search" and r.get("status") == 200 for r in records)
    assert any(r.get("status") == 503 for r in records)
    from groundkit_serve.logs import ALLOWED_FIELDS

    for record in records:
        assert set(record) <= ALLOWED_FIELDS | {"time", "level", "logger", "event", "pid"}
    assert "zebraquokka" not in output


def test_a_reingested_collection_is_served_at_its_new_generation_never_mixed(
    tmp_path: Path,
) -> None:
    corpus = write_corpus(tmp_path / "corpus")
    index = tmp_path / "index"
    groundkit.ingest(corpus, index_dir=index)
    server = start_server("--index-dir", str(index))
    seen: list[tuple[int, set[str]]] = []
    failures: list[str] = []
    stop = threading.Event()

    def hammer() -> None:
        with httpx.Client(timeout=TIMEOUT) as client:
            while not stop.is_set():
                reply = client.get(
                    server.url + "/v1/search", params={"q": "zebraquokka", "top_k": 6}
                )
                if reply.status_code != 200:
                    failures.append(reply.text)
                    continue
                body = reply.json()
                versions = {r["content"].split("version ")[1][:3] for r in body["results"]}
                seen.append((body["generation"], versions))

    threads = [threading.Thread(target=hammer) for _ in range(3)]
    try:
        for thread in threads:
            thread.start()
        wait_for(lambda: len(seen) > 5)
        first = seen[-1][0]
        for version in range(2, 6):
            write_marked(corpus, version)
            groundkit.ingest(corpus, index_dir=index)
        wait_for(lambda: any("v5." in v for _, vs in seen[-3:] for v in vs), timeout=60)
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=60)
        server.stop()
    assert failures == []
    assert all(len(versions) == 1 for _, versions in seen)  # one read view per response
    by_generation: dict[int, set[str]] = {}
    for generation, versions in seen:
        by_generation.setdefault(generation, set()).update(versions)
    assert all(len(v) == 1 for v in by_generation.values())  # a generation is one version
    assert max(by_generation) > first
    ordered = [next(iter(by_generation[g])) for g in sorted(by_generation)]
    assert ordered == sorted(ordered)  # later generations, later versions


def test_serve_without_the_extra_names_the_install(tmp_path: Path) -> None:
    blocker = tmp_path / "blocker"
    blocker.mkdir()
    (blocker / "groundkit_serve.py").write_text("raise ImportError('simulated')\n")
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); from groundkit.cli import main; "
        "sys.exit(main(['serve', '--stdio']))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(blocker)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert 'pip install ".[serve]"' in done.stderr


def test_a_served_collection_applies_a_bar_recorded_while_it_serves(tmp_path: Path) -> None:
    """The "nothing here" bar an ingest or ``calibrate --write`` records while the server runs
    is applied at once, without a new generation or a restart (adr/0072)."""
    index = tmp_path / "index"
    groundkit.ingest(groundkit.sample_corpus(), index_dir=index, calibrate=False)
    server = start_server("--index-dir", str(index))
    question = {"q": "what is the best way to clean a tap", "top_k": 3}
    try:
        with httpx.Client(timeout=TIMEOUT) as client:
            before = client.get(server.url + "/v1/search", params=question).json()
            assert before["results"] and "abstained" not in before["metadata"]
            calibrate = [sys.executable, "-m", "groundkit", "calibrate", "--self", "--write"]
            done = subprocess.run(
                [*calibrate, "--index-dir", str(index)],
                check=False,
                capture_output=True,
                timeout=120,
            )
            assert done.returncode == 0, done.stderr
            after = client.get(server.url + "/v1/search", params=question).json()
    finally:
        server.stop()
    assert after["generation"] == before["generation"]
    assert after["results"] == [] and after["metadata"]["abstained"] is True
    assert after["metadata"]["lexical_bar"]["source"] == "self-calibrated"
