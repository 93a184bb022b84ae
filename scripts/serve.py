"""`make serve`: serves www/ on 127.0.0.1 like `python3 -m http.server`, plus the two headers
that make the page cross-origin isolated (COOP/COEP), so the data-parallel helpers get each
lot's parts through shared memory (www/workers/shared-channel.js). Any static server without them
serves the same lab; the helpers then use messages. Its version.js (scripts/version.py) is made
afresh on each request, so a file edited while it serves is a new version of the lab; the
snapshot v/ID/ (www/core/build.js) of the version.js served last is its files as they are now, and
an older version's is the one scripts/version.py wrote, while it is kept."""

import functools
import http.server
import re
import sys

import version


SNAPSHOT = re.compile(r"^/" + version.SNAPSHOTS + r"/([0-9a-f]{16})/(.+)$")
SERVED = {"id": None}  # the version of the version.js served last (a page and its workers')


class IsolatedHandler(http.server.SimpleHTTPRequestHandler):
    def end_headers(self):
        self.send_header("Cross-Origin-Opener-Policy", "same-origin")
        self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
        super().end_headers()

    def do_GET(self):
        path = self.path.split("?")[0]
        snapshot = SNAPSHOT.match(path)
        if snapshot and snapshot[1] == SERVED["id"]:
            self.path = "/" + snapshot[2]  # the version served last: its files as they are
        if path != "/" + version.OUT:
            super().do_GET()
            return
        files = version.files_of(self.directory)
        SERVED["id"] = version.version_id(files)
        body = version.version_js(self.directory, files).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/javascript")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        self.wfile.write(body)


def main():
    arg = sys.argv[1] if len(sys.argv) > 1 else "8000"
    if not arg.isdigit() or not 0 < int(arg) < 65536:
        sys.exit(f"serve.py: the port must be a number from 1 to 65535, not {arg!r}")
    port = int(arg)
    handler = functools.partial(IsolatedHandler, directory="www")
    with http.server.ThreadingHTTPServer(("127.0.0.1", port), handler) as server:
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
