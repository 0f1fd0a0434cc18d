#!/usr/bin/env bash
# prof ui in a real browser (Debian's chromium, headless, driven over the DevTools
# protocol by ui_browser.py): the timeline draws, a drag selects a window whose
# flame graph changes, a search highlights prof-hot's hot function and gives its
# share, a click zooms.  A screenshot in the test's directory; the page's own
# timings and weight as notes.
. "$(dirname "$0")/ui_lib.sh"
require_root
command -v chromium >/dev/null || skip "needs chromium (Debian package chromium; scripts/dev installs it)"
command -v python3 >/dev/null || skip "needs python3"
record_hot 3
ui_start - -i "$TMP/hot.data"
timeout 300 python3 "$(dirname "$0")/ui_browser.py" "$UI_URL" "$TMP/ui.png" hot_function
rc=$?
[ "$rc" -eq 77 ] && skip "chromium does not run here"
[ "$rc" -eq 0 ] || fail "the page does not work in the browser (exit $rc)"
[ -s "$TMP/ui.png" ] || fail "no screenshot"
note "screenshot: $TMP/ui.png ($(stat -c %s "$TMP/ui.png") bytes; kept with PROF_UI_SHOT=FILE)"
[ -n "${PROF_UI_SHOT:-}" ] && cp "$TMP/ui.png" "$PROF_UI_SHOT"
grep -q "refused" "$TMP/ui.err" && fail "the page's own requests were refused: $(cat "$TMP/ui.err")"
ui_stop
pass "prof ui's page works in Chromium"
