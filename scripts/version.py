"""The lab's version: every file of a lab folder (www/, or `make dist`'s copy) with its SHA-256,
written as the folder's version.js, which the service worker imports (www/sw.js). Any change of
any file gives version.js other bytes, so the browser's byte-for-byte check of the service
worker finds a new version, which is installed whole, beside the one in use, and each file is
checked against its hash. Left out: dot files, the hosts' `_headers`, Fashion-MNIST (31 MB,
never stored offline) and the snapshots below. scripts/build-wasm and scripts/dist write it;
`make serve` (scripts/serve.py) and the end-to-end tests' server make it afresh on every
request.

Writing it also writes the version's snapshot, `v/ID/`: a copy of every script of core/,
workers/ and the glue (pkg/), the files a worker loads (workers get the wasm compiled by the page, never its file). The page starts its workers from
its own version's snapshot (module-worker.js), so a page keeps one build for its whole life
even when the folder is rebuilt or redeployed under it — a first visit, which no service
worker holds yet, included: a worker started after a redeploy loads the page's glue for the
page's compiled module, never the new one. The newest KEEP snapshots are kept (a page open
across that many redeploys is told to reload: update.js); older ones, and only folders this
script made (each holds SNAPSHOT_MARK), are removed.

Usage: version.py DIR      writes DIR/version.js and DIR/v/ID/
       version.py --print DIR   prints version.js instead
       version.py --id DIR      prints the version's ID"""

import hashlib
import json
import os
import shutil
import sys

OUT = "version.js"
SNAPSHOTS = "v"
SNAPSHOT_MARK = ".dpsgd-snapshot"
KEEP = 3


def left_out(path):
    """Whether the file at `path` (relative, with /) is not part of the lab's version."""
    name = path.rsplit("/", 1)[-1]
    return (
        path == OUT
        or name.startswith(".")
        or path == "_headers"
        or path.startswith("data/fashion-mnist-")
        or path.startswith(SNAPSHOTS + "/")
    )


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


def version_id(files):
    """The version's id: a hash of every path and hash."""
    listing = "".join(f"{path}\t{digest}\n" for path, digest in files.items())
    return hashlib.sha256(listing.encode()).hexdigest()[:16]


# The rooms of www/ whose scripts a worker loads: the shared core, the workers and the glue.
WORKER_ROOMS = ("core", "workers", "pkg")


def in_snapshot(path):
    """Whether the file at `path` is one a worker may load: a script of core/ or workers/, or the glue."""
    room, _, name = path.partition("/")
    return room in WORKER_ROOMS and name.endswith(".js") and "/" not in name


def write_snapshot(root, files, vid):
    """`root`/v/`vid`/: the version's worker-side files, copied once; then the snapshots past
    the newest KEEP are removed (only folders with this script's mark)."""
    folder = os.path.join(root, SNAPSHOTS, vid)
    if not os.path.isfile(os.path.join(folder, SNAPSHOT_MARK)):
        if os.path.lexists(folder):  # not made here (no mark): never replaced
            sys.exit(f"version.py: {folder} exists but was not written by this script; move it away")
        partial = folder + ".part"  # an interrupted write of this script's own, if any
        if os.path.islink(partial) or os.path.isfile(partial):
            sys.exit(f"version.py: {partial} is not this script's: move it away")
        if os.path.isdir(partial):
            shutil.rmtree(partial)
        for path in files:
            if in_snapshot(path):
                target = os.path.join(partial, path)
                os.makedirs(os.path.dirname(target), exist_ok=True)
                shutil.copyfile(os.path.join(root, path), target)
        with open(os.path.join(partial, SNAPSHOT_MARK), "w", encoding="utf-8") as f:
            f.write("written by scripts/version.py: removed when older than the newest %d\n" % KEEP)
        os.rename(partial, folder)
    os.utime(folder)
    base = os.path.join(root, SNAPSHOTS)
    ours = [
        os.path.join(base, d)
        for d in os.listdir(base)
        if not os.path.islink(os.path.join(base, d)) and os.path.isfile(os.path.join(base, d, SNAPSHOT_MARK))
    ]
    ours.sort(key=os.path.getmtime, reverse=True)
    for old in ours[KEEP:]:
        shutil.rmtree(old)


def version_js(root, files=None):
    """The text of version.js for the folder `root`: the version's id and its files."""
    files = files_of(root) if files is None else files
    version = {"id": version_id(files), "files": files}
    return (
        "// Written by scripts/version.py from the files beside it: this version of the lab, every\n"
        "// file with its SHA-256 (the service worker, sw.js, installs and checks them). Do not edit.\n"
        f"self.labVersion = {json.dumps(version, indent=1)};\n"
    )


def main():
    args = sys.argv[1:]
    mode = args[0] if args[:1] in (["--print"], ["--id"]) else None
    if mode:
        args = args[1:]
    if len(args) != 1 or not os.path.isdir(args[0]):
        sys.exit("usage: version.py [--print | --id] DIR (a folder of the lab, such as www)")
    files = files_of(args[0])
    if mode == "--id":
        print(version_id(files))
    elif mode == "--print":
        sys.stdout.write(version_js(args[0], files))
    else:
        write_snapshot(args[0], files, version_id(files))
        with open(os.path.join(args[0], OUT), "w", encoding="utf-8") as f:
            f.write(version_js(args[0], files))


if __name__ == "__main__":
    main()
