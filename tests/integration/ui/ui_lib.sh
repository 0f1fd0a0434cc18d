# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by tests/integration/ui/: start prof ui, learn its address and token.
. "$(dirname "$0")/../lib.sh"

# ui_start [RUNAS_USER|-] ARGS...: prof ui (${UI_PROF:-$PROF}) in the background (as
# RUNAS_USER unless -),
# stopped when the test ends.  Sets UI_PID, UI_URL (the printed address), UI_BASE,
# UI_TOKEN; its stderr goes to $TMP/ui.err.
ui_start() {
	local who=$1; shift
	: >"$TMP/ui.out"
	if [ "$who" = - ]; then
		"${UI_PROF:-$PROF}" ui "$@" >"$TMP/ui.out" 2>"$TMP/ui.err" &
	else
		setpriv --reuid="$who" --regid="$(id -g "$who")" --clear-groups "${UI_PROF:-$PROF}" ui "$@" \
			>"$TMP/ui.out" 2>"$TMP/ui.err" &
	fi
	UI_PID=$!
	cleanup_hooks+=("kill $UI_PID 2>/dev/null; wait $UI_PID 2>/dev/null")
	for _ in $(seq 300); do
		[ -s "$TMP/ui.out" ] && break
		kill -0 "$UI_PID" 2>/dev/null || fail "prof ui $* exited: $(cat "$TMP/ui.err")"
		sleep 0.1
	done
	UI_URL=$(head -n 1 "$TMP/ui.out")
	[[ $UI_URL =~ ^prof\ ui:\ (http://127\.[0-9.]+:[0-9]+)/\?token=([0-9a-f]{32})$ ]] ||
		fail "prof ui's first line is not its address with a token: '$UI_URL'"
	UI_BASE=${BASH_REMATCH[1]} UI_TOKEN=${BASH_REMATCH[2]}
	UI_URL="$UI_BASE/?token=$UI_TOKEN"
}

# ui_stop: SIGTERM, and it exits 0 at once.
ui_stop() {
	local rc
	kill -TERM "$UI_PID"
	for _ in $(seq 100); do kill -0 "$UI_PID" 2>/dev/null || break; sleep 0.1; done
	kill -0 "$UI_PID" 2>/dev/null && fail "prof ui still runs 10 s after SIGTERM"
	wait "$UI_PID"; rc=$?
	[ "$rc" -eq 0 ] || fail "prof ui exited $rc on SIGTERM: $(cat "$TMP/ui.err")"
}

# ui_get PATH [CURL ARGS...]: the body of $UI_BASE/PATH with the token (status in
# $TMP/status).
ui_get() {
	local path=$1; shift
	local sep='?'; [[ $path == *\?* ]] && sep='&'
	curl -s -o - -w '%{http_code}' "$@" "$UI_BASE$path${sep}token=$UI_TOKEN" >"$TMP/body" ||
		fail "curl $path failed"
	tail -c 3 "$TMP/body" >"$TMP/status"
	head -c -3 "$TMP/body"
}

# A recording of prof-hot (call chains), at $TMP/hot.data.
record_hot() {
	"$PROF" record -q -g -o "$TMP/hot.data" -- "$PROF_HOT" "${1:-2}" >/dev/null 2>"$TMP/record.err" ||
		fail "prof record: $(cat "$TMP/record.err")"
}
