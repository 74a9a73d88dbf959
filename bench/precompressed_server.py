"""A static server for the benchmark that serves pre-compressed siblings, as a host would.

``python bench/precompressed_server.py DIR``: like ``python -m http.server 0 --bind 127.0.0.1
--directory DIR`` (and prints the same first line), but a request for ``NAME`` whose
``NAME.br`` / ``NAME.gz`` exists gets that file with ``Content-Encoding: br`` / ``gzip`` when
the browser's ``Accept-Encoding`` names it (nginx ``brotli_static`` / ``gzip_static``; the
files come from ``groundkit build-site --precompress``, adr/0033).

``--mbit X`` shapes every response body through one shared link of X Mbit/s (all connections
queue on it, as on a visitor's line), so a page's worker fetches are throttled too (CDP network
emulation applies to the page, not to its workers). ``GET /__bytes`` answers the body bytes
sent so far (``{"bytes": N}``): what a repeat visit downloads again is the difference.
"""

from __future__ import annotations

import argparse
import email.utils
import functools
import http.server
import json
import os
import threading
import time
from typing import Any, BinaryIO

ENCODINGS = (("br", ".br"), ("gzip", ".gz"))


CHUNK = 16 * 1024


class Link:
    """One shared line: chunks are sent in turn, each taking ``size / rate`` seconds."""

    def __init__(self, mbit: float | None) -> None:
        self.rate = None if mbit is None else mbit * 1e6 / 8
        self.free_at = 0.0
        self.sent = 0
        self.lock = threading.Lock()

    def pass_chunk(self, size: int) -> None:
        with self.lock:
            self.sent += size
            if self.rate is None:
                return
            start = max(time.monotonic(), self.free_at)
            self.free_at = start + size / self.rate
            done = self.free_at
        time.sleep(max(0.0, done - time.monotonic()))


class Handler(http.server.SimpleHTTPRequestHandler):
    link = Link(None)

    def do_GET(self) -> None:
        if self.path == "/__bytes":
            body = json.dumps({"bytes": self.link.sent}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)
            return
        super().do_GET()

    def copyfile(self, source: BinaryIO, outputfile: BinaryIO) -> None:  # type: ignore[override]
        while chunk := source.read(CHUNK):
            self.link.pass_chunk(len(chunk))
            outputfile.write(chunk)

    def send_head(self) -> Any:
        path = self.translate_path(self.path)
        accepted = {
            part.split(";")[0].strip()
            for part in self.headers.get("Accept-Encoding", "").split(",")
        }
        if os.path.isfile(path):
            for encoding, suffix in ENCODINGS:
                if encoding in accepted and os.path.isfile(path + suffix):
                    modified = int(os.stat(path + suffix).st_mtime)
                    if self._unchanged_since(modified):
                        self.send_response(304)
                        self.end_headers()
                        return None
                    body = open(path + suffix, "rb")  # noqa: SIM115 (closed by copyfile's caller)
                    self.send_response(200)
                    self.send_header("Last-Modified", self.date_time_string(modified))
                    self.send_header("Content-Type", self.guess_type(path))
                    self.send_header("Content-Encoding", encoding)
                    self.send_header("Content-Length", str(os.fstat(body.fileno()).st_size))
                    self.send_header("Vary", "Accept-Encoding")
                    self.end_headers()
                    return body
        return super().send_head()

    def _unchanged_since(self, modified: int) -> bool:
        """A conditional request the file still satisfies (as the base class checks it)."""
        since = self.headers.get("If-Modified-Since")
        if since is None or "If-None-Match" in self.headers:
            return False
        try:
            return modified <= email.utils.parsedate_to_datetime(since).timestamp()
        except (TypeError, ValueError):
            return False

    def log_message(self, format: str, *args: Any) -> None:
        pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory")
    parser.add_argument("--mbit", type=float, default=None, help="shape to this many Mbit/s")
    args = parser.parse_args()
    Handler.link = Link(args.mbit)
    handler = functools.partial(Handler, directory=args.directory)
    with http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler) as server:
        port = server.server_address[1]
        print(f"Serving HTTP on 127.0.0.1 port {port} (http://127.0.0.1:{port}/) ...", flush=True)
        server.serve_forever()


if __name__ == "__main__":
    main()
