"""The lab's version: every file of a lab folder (www/, or `make dist`'s copy) with its SHA-256,
written as the folder's version.js, which the service worker imports (www/sw.js). Any change of
any file gives version.js other bytes, so the browser's byte-for-byte check of the service
worker finds a new version, which is installed whole, beside the one in use, and each file is
checked against its hash. Left out: dot files, the hosts' `_headers`, and Fashion-MNIST (31 MB,
never stored offline). scripts/build-wasm and scripts/dist write it; `make serve`
(scripts/serve.py) and the end-to-end tests' server make it afresh on every request.

Usage: version.py DIR      writes DIR/version.js
       version.py --print DIR   prints it instead"""

import hashlib
import json
import os
import sys

OUT = "version.js"


def left_out(path):
    """Whether the file at `path` (relative, with /) is not part of the lab's version."""
    name = path.rsplit("/", 1)[-1]
    return path == OUT or name.startswith(".") or path == "_headers" or path.startswith("data/fashion-mnist-")


def files_of(root):
    """{relative path: SHA-256 in hex} of every file of the lab under `root`, sorted by path."""
    found = {}
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in names:
            full = os.path.join(folder, name)
            path = os.path.relpath(full, root).replace(os.sep, "/")
            if left_out(path):
                continue
            with open(full, "rb") as f:
                found[path] = hashlib.sha256(f.read()).hexdigest()
    return dict(sorted(found.items()))


def version_js(root):
    """The text of version.js for the folder `root`: the version's id (a hash of every path
    and hash) and its files."""
    files = files_of(root)
    listing = "".join(f"{path}\t{digest}\n" for path, digest in files.items())
    version = {"id": hashlib.sha256(listing.encode()).hexdigest()[:16], "files": files}
    return (
        "// Written by scripts/version.py from the files beside it: this version of the lab, every\n"
        "// file with its SHA-256 (the service worker, sw.js, installs and checks them). Do not edit.\n"
        f"self.labVersion = {json.dumps(version, indent=1)};\n"
    )


def main():
    args = sys.argv[1:]
    show = args[:1] == ["--print"]
    if show:
        args = args[1:]
    if len(args) != 1 or not os.path.isdir(args[0]):
        sys.exit("usage: version.py [--print] DIR (a folder of the lab, such as www)")
    text = version_js(args[0])
    if show:
        sys.stdout.write(text)
    else:
        with open(os.path.join(args[0], OUT), "w", encoding="utf-8") as f:
            f.write(text)


if __name__ == "__main__":
    main()
