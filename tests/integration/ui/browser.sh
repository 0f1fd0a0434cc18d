#!/usr/bin/env bash
# prof ui in a real browser (Debian's chromium, headless, driven over the DevTools
# protocol by ui_browser.py): the timeline draws, a drag selects a window whose
# flame graph changes, a search highlights prof-hot's hot function and gives its
# share, a click zooms; a click in the table shows a function's callers and callees, a
# group's row filters, the diff of the two files draws child_function (grown) red.  A screenshot in the test's directory; the page's own
# timings and weight as notes.
. "$(dirname "$0")/ui_lib.sh"
require_root
command -v chromium >/dev/null || skip "needs chromium (Debian package chromium; scripts/dev installs it)"
command -v python3 >/dev/null || skip "needs python3"
record_hot 3
# a second file where a child forked mid-run spends its time in child_function
"$PROF" record -q -g -o "$TMP/fork.data" -- "$PROF_HOT" 3 fork >/dev/null 2>"$TMP/record.err" ||
	fail "prof record: $(cat "$TMP/record.err")"
ui_start - -i "$TMP/hot.data" -i "$TMP/fork.data"
timeout 300 python3 "$(dirname "$0")/ui_browser.py" "$UI_URL" "$TMP/ui.png" hot_function child_function
rc=$?
[ "$rc" -eq 77 ] && skip "chromium does not run here"
[ "$rc" -eq 0 ] || fail "the page does not work in the browser (exit $rc)"
[ -s "$TMP/ui.png" ] || fail "no screenshot"
note "screenshot: $TMP/ui.png ($(stat -c %s "$TMP/ui.png") bytes; kept with PROF_UI_SHOT=FILE)"
[ -n "${PROF_UI_SHOT:-}" ] && cp "$TMP/ui.png" "$PROF_UI_SHOT" && cp "$TMP/ui-diff.png" "${PROF_UI_SHOT%.png}-diff.png"
grep -q "refused" "$TMP/ui.err" && fail "the page's own requests were refused: $(cat "$TMP/ui.err")"
ui_stop
pass "prof ui's page works in Chromium"
