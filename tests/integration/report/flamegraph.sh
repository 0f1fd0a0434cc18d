#!/usr/bin/env bash
# The SVG flame graph in a real browser (headless Chromium, driven over the DevTools
# protocol by flamegraph_browser.py): labels without scripts, zoom in, Reset Zoom,
# zooming out from a caller, searches with regex characters.
. "$(dirname "$0")/../lib.sh"
require_root
command -v chromium >/dev/null || skip "needs chromium (Debian package chromium; scripts/dev installs it)"

"$PROF" record -q -g -o "$TMP/hot.data" -- "$PROF_HOT" 1 >/dev/null || fail "record"
"$PROF" report -i "$TMP/hot.data" -F svg >"$TMP/flame.svg" || fail "svg"
timeout 300 python3 "$(dirname "$0")/../flamegraph_browser.py" check "$TMP/flame.svg"
rc=$?
[ "$rc" -eq 77 ] && skip "chromium does not run here"
[ "$rc" -eq 0 ] || fail "the flame graph does not work in the browser (exit $rc)"
note "$(python3 "$(dirname "$0")/../flamegraph_browser.py" load "$TMP/flame.svg")"
pass "the flame graph zooms, resets and searches in Chromium"
