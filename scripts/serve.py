"""`make serve`: serves www/ on 127.0.0.1 like `python3 -m http.server`, plus the two headers
that make the page cross-origin isolated (COOP/COEP), so the data-parallel helpers get each
lot's parts through shared memory (www/shared-channel.js). Any static server without them
serves the same lab; the helpers then use messages."""

import functools
import http.server
import sys


class IsolatedHandler(http.server.SimpleHTTPRequestHandler):
    def end_headers(self):
        self.send_header("Cross-Origin-Opener-Policy", "same-origin")
        self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
        super().end_headers()


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
