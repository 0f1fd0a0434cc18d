#!/usr/bin/env bash
# profd started by hand: it makes its socket's directory (the unit's RuntimeDirectory
# does that under systemd, nothing else does by hand), and with no configuration file
# at its default path it runs on the built-in defaults, as prof record does; a file
# named with --config must exist.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib.sh"
require_root

# 0. the help texts a first user reads name the daemon's options
for o in --daemon --since --from --until --socket; do
	"$PROF" report --help | grep -q -- "$o" || fail "prof report --help does not mention $o"
done
"$PROF" top --help | grep -q -- --daemon || fail "prof top --help does not mention --daemon"
"$PROF" top --daemon --help | grep -q -- --socket || fail "prof top --daemon --help does not mention --socket"
pass "report --help and top --help name --daemon and its options"

# 1. the socket's directory is missing: profd makes it and answers there
mkdir -p "$PD" && chmod 755 "$TMP" "$PD" || fail "mkdir $PD"
{
	echo "[daemon]"
	echo "state_dir = $PD/state"
	echo "socket = $PD/norun/profd.sock"
} >"$PD/prof.conf"
"$PROFD" --foreground --config "$PD/prof.conf" 2>>"$PD/log" &
PROFD_PID=$!
cleanup_hooks+=("kill -KILL $PROFD_PID 2>/dev/null")
for _ in $(seq 100); do
	kill -0 "$PROFD_PID" 2>/dev/null || fail "profd exited at start: $(tail -5 "$PD/log")"
	"$PROF" daemon status --raw --socket "$PD/norun/profd.sock" >/dev/null 2>&1 && break
	sleep 0.1
done
"$PROF" daemon status --raw --socket "$PD/norun/profd.sock" >/dev/null || fail "no answer: $(tail -5 "$PD/log")"
[ "$(stat -c %a "$PD/norun")" = 755 ] || fail "socket directory mode $(stat -c %a "$PD/norun")"
pass "profd made its socket's directory $PD/norun (755) and answers there"
stop_profd || fail "profd's exit after SIGTERM"

# 2. a --config file that is not there is an error that names it
"$PROFD" --foreground --config "$PD/none.conf" >"$TMP/out" 2>&1 && fail "profd ran without its --config file"
grep -q "none.conf" "$TMP/out" || fail "the error does not name the file: $(cat "$TMP/out")"
pass "a missing --config file is refused: $(head -1 "$TMP/out")"

# 3. nothing at the default path: the built-in defaults (its socket /run/prof/profd.sock)
DEF=${PROF_SYSCONFDIR:?}/prof.conf
[ -e "$DEF" ] && skip "$DEF exists here: the defaults' case needs it absent"
[ -e /run/prof/profd.sock ] && skip "a profd already answers on /run/prof/profd.sock"
made_run= made_state=
[ -d /run/prof ] || made_run=1
[ -d /var/lib/prof ] || made_state=1
cleanup_hooks+=("[ -n '$made_run' ] && rm -rf /run/prof; [ -n '$made_state' ] && rm -rf /var/lib/prof")
"$PROFD" --foreground 2>>"$PD/log2" &
PROFD_PID=$!
cleanup_hooks+=("kill -KILL $PROFD_PID 2>/dev/null")
for _ in $(seq 100); do
	kill -0 "$PROFD_PID" 2>/dev/null || fail "profd exited on the defaults: $(tail -5 "$PD/log2")"
	"$PROF" daemon status --raw --socket /run/prof/profd.sock >/dev/null 2>&1 && break
	sleep 0.1
done
"$PROF" daemon status --raw --socket /run/prof/profd.sock >/dev/null || fail "no answer: $(tail -5 "$PD/log2")"
grep -q "no configuration file at $DEF: running on the built-in defaults" "$PD/log2" ||
	fail "the log does not say it runs on the defaults: $(cat "$PD/log2")"
pass "no $DEF: profd runs on the built-in defaults and says so"
stop_profd || fail "profd's exit after SIGTERM"
