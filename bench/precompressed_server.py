"""A static server for the benchmark that serves pre-compressed siblings, as a host would.

``python bench/precompressed_server.py DIR``: like ``python -m http.server 0 --bind 127.0.0.1
--directory DIR`` (and prints the same first line), but a request for ``NAME`` whose
``NAME.br`` / ``NAME.gz`` exists gets that file with ``Content-Encoding: br`` / ``gzip`` when
the browser's ``Accept-Encoding`` names it (nginx ``brotli_static`` / ``gzip_static``; the
files come from ``groundkit build-site --precompress``, adr/0033).
"""

from __future__ import annotations

import functools
import http.server
import os
import sys
from typing import Any

ENCODINGS = (("br", ".br"), ("gzip", ".gz"))


class Handler(http.server.SimpleHTTPRequestHandler):
    def send_head(self) -> Any:
        path = self.translate_path(self.path)
        accepted = {
            part.split(";")[0].strip()
            for part in self.headers.get("Accept-Encoding", "").split(",")
        }
        if os.path.isfile(path):
            for encoding, suffix in ENCODINGS:
                if encoding in accepted and os.path.isfile(path + suffix):
                    body = open(path + suffix, "rb")  # noqa: SIM115 (closed by copyfile's caller)
                    self.send_response(200)
                    self.send_header("Content-Type", self.guess_type(path))
                    self.send_header("Content-Encoding", encoding)
                    self.send_header("Content-Length", str(os.fstat(body.fileno()).st_size))
                    self.send_header("Vary", "Accept-Encoding")
                    self.end_headers()
                    return body
        return super().send_head()

    def log_message(self, format: str, *args: Any) -> None:
        pass


def main() -> None:
    handler = functools.partial(Handler, directory=sys.argv[1])
    with http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler) as server:
        port = server.server_address[1]
        print(f"Serving HTTP on 127.0.0.1 port {port} (http://127.0.0.1:{port}/) ...", flush=True)
        server.serve_forever()


if __name__ == "__main__":
    main()
