#!/usr/bin/env bash
# The README's tour runs: every command it shows, as root or as alice, in the scene
# scripts/readme-examples sets up (the example workload, a neighbour, a cgroup, a
# profd), each exiting 0 with the output its block expects.  A command the README shows
# that no longer runs, or no longer shows what the text around it says, fails here.
. "$(dirname "$0")/../lib.sh"
require_root
require_perf
top=$(cd "$(dirname "$0")/../../.." && pwd)
build=$(cd "$(dirname "$PROF")/.." && pwd)
"$top/scripts/readme-examples" --check "$build" 2>"$TMP/log"
rc=$?
sed 's/^/# /' "$TMP/log"
[ $rc -eq 77 ] && skip "$(tail -1 "$TMP/log")"
[ $rc -eq 0 ] || fail "the README's commands: $(grep -v '^ok:' "$TMP/log" | head -12)"
pass "every command the README shows runs: $(tail -1 "$TMP/log")"
