# SPDX-License-Identifier: GPL-2.0-or-later
# For the daemon tests, sourced after ../lib.sh: profd started by the test itself, in
# the foreground (no systemd here), with a private configuration, state directory and
# socket under $TMP, stopped (SIGKILL at worst) when the test ends.
: "${PROFD:?PROFD must name the profd binary}"

PD=$TMP/profd
SOCK=$PD/run/profd.sock

# profd_config "key = value"...: the [daemon] section (state and socket here) plus lines.
profd_config() {
	mkdir -p "$PD/run" && chmod 755 "$TMP" "$PD" "$PD/run" || fail "mkdir $PD"
	{
		echo "[daemon]"
		echo "state_dir = $PD/state"
		echo "socket = $SOCK"
		for l in "$@"; do echo "$l"; done
	} >"$PD/prof.conf.new" && chmod 644 "$PD/prof.conf.new" && mv "$PD/prof.conf.new" "$PD/prof.conf" ||
		fail "write $PD/prof.conf"
}

# start_profd [runner...]: profd on $PD/prof.conf, its log in $PD/log; waits until it
# answers.  PROFD_PID is its pid.
start_profd() {
	"$@" "$PROFD" --foreground --config "$PD/prof.conf" 2>>"$PD/log" &
	PROFD_PID=$!
	cleanup_hooks+=("kill -KILL $PROFD_PID 2>/dev/null")
	for _ in $(seq 100); do
		kill -0 "$PROFD_PID" 2>/dev/null || fail "profd exited at start: $(tail -5 "$PD/log")"
		"$PROF" daemon status --raw --socket "$SOCK" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	fail "profd does not answer on $SOCK after 10 s: $(tail -5 "$PD/log")"
}

# stop_profd: SIGTERM, and its exit code.
stop_profd() {
	kill -TERM "$PROFD_PID" || fail "profd is not running"
	wait "$PROFD_PID"
}

# pstatus KEY: the value profd's status gives KEY (as root, who gets every key).
pstatus() {
	"$PROF" daemon status --raw --socket "$SOCK" | awk -v k="$1" '$1 == k { sub(/^[^ ]+ /, ""); print; exit }'
}

# as_user USER CMD...: CMD as USER with no capability at all (runuser keeps none).
as_user() {
	local u=$1
	shift
	runuser -u "$u" -- "$@"
}

# run_in CGROUP_DIR USER PROGRAM ARGS...: the program as USER inside the cgroup from
# its first instruction.
run_in() {
	local cg=$1 user=$2
	shift 2
	sh -c 'echo $$ > "$0/cgroup.procs" && u=$1 && shift && exec runuser -u "$u" -- "$@"' "$cg" "$user" "$@"
}

# A public copy of prof (and of test programs, by name): what an ordinary user runs.
PUB_PROF=
public_prof() {
	PUB_PROF=$(public_copy "$PROF")
}

# public_named SRC NAME: a public copy of SRC called NAME (its comm).
public_named() {
	local dst=$TMP/pub/$2
	mkdir -p "$TMP/pub" && chmod 755 "$TMP" "$TMP/pub"
	cp "$1" "$dst" && chmod 755 "$dst" || fail "copy $1"
	echo "$dst"
}
