# Sourced by scripts/build-wasm and scripts/build-wasm-tests: `at_once WHAT` runs the commands
# `simd` and `relaxed` (functions the caller defines) at the same time, each into a log of its
# own, prints each log once its command has ended, and fails if either failed. Their builds each
# end in a single-threaded whole-program LTO link (one codegen unit): one after the other, a
# core stood idle for most of a minute.
at_once() {
  local logs
  logs=$(mktemp -d)
  simd >"$logs/simd.log" 2>&1 &
  local first=$!
  relaxed >"$logs/relaxed.log" 2>&1 &
  local second=$!
  local failed=0
  wait "$first" || failed=1
  cat "$logs/simd.log"
  wait "$second" || failed=1
  cat "$logs/relaxed.log"
  rm -rf "$logs"
  [ "$failed" = 0 ] || { echo "$1 failed (above)" >&2; return 1; }
}
