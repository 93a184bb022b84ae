"""`make serve`: serves www/ on 127.0.0.1 like `python3 -m http.server`, plus the two headers
that make the page cross-origin isolated (COOP/COEP), so the data-parallel helpers get each
lot's parts through shared memory (www/shared-channel.js). Any static server without them
serves the same lab; the helpers then use messages. Its version.js (scripts/version.py) is made
afresh on each request, so a file edited while it serves is a new version of the lab."""

import functools
import http.server
import sys

import version


class IsolatedHandler(http.server.SimpleHTTPRequestHandler):
    def end_headers(self):
        self.send_header("Cross-Origin-Opener-Policy", "same-origin")
        self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
        super().end_headers()

    def do_GET(self):
        if self.path.split("?")[0] != "/" + version.OUT:
            super().do_GET()
            return
        body = version.version_js(self.directory).encode()
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
