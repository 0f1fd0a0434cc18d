#!/usr/bin/env bash
# prof top on a real terminal (tmux): the workload's hot_function is the top row with
# its command; 'q' quits with status 0 and Ctrl-C ends it cleanly too; either way the
# terminal is given back (line discipline as before, normal screen, cursor shown).
# With --off-cpu, 'h' shows the holders by cgroup, container, then user again.
. "$(dirname "$0")/../lib.sh"
require_root
command -v tmux >/dev/null || skip "needs tmux (Debian package tmux)"

SOCK=prof-top-$$
T="tmux -L $SOCK"
cleanup_hooks+=("$T kill-server 2>/dev/null")

"$PROF_HOT" 60 &
HOT=$!
cleanup_hooks+=("kill $HOT 2>/dev/null")

# Each run: a pane whose shell notes the terminal settings, runs prof top, notes
# its status and the settings again, then waits so the pane can be inspected.
run_top() {
	local name=$1
	cat >"$TMP/$name.sh" <<SH
stty -g >"$TMP/$name.before"
"$PROF" top -p $HOT -d 0.5 ${2:-}
echo \$? >"$TMP/$name.rc"
stty -g >"$TMP/$name.after"
exec sleep 600
SH
	$T new-session -d -s "$name" -x 160 -y 40 "bash $TMP/$name.sh" || fail "tmux new-session"
}

wait_for() {        # file, tenths of a second
	local i
	for ((i = 0; i < $2; i++)); do
		[ -s "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

check_restored() {
	local name=$1
	wait_for "$TMP/$name.after" 50 || fail "$name: prof top did not end"
	[ "$(cat "$TMP/$name.rc")" = 0 ] || fail "$name: exit status $(cat "$TMP/$name.rc")"
	cmp -s "$TMP/$name.before" "$TMP/$name.after" || fail "$name: terminal settings not restored"
	[ "$($T display -p -t "$name" '#{alternate_on}')" = 0 ] || fail "$name: still on the alternate screen"
	[ "$($T display -p -t "$name" '#{cursor_flag}')" = 1 ] || fail "$name: cursor left hidden"
}

run_top q
for i in $(seq 1 50); do
	$T capture-pane -p -t q >"$TMP/pane" 2>/dev/null
	grep -q "hot_function" "$TMP/pane" && break
	sleep 0.2
done
cat "$TMP/pane"
[ "$($T display -p -t q '#{alternate_on}')" = 1 ] || fail "prof top does not use the alternate screen"
top=$(grep -A1 -E '^ +Overhead +Samples' "$TMP/pane" | tail -n 1)
echo "$top" | grep -q 'prof-hot .*hot_function' || fail "top row is not prof-hot's hot_function: '$top'"
grep -q 'samples [0-9]' "$TMP/pane" && grep -q 'lost 0' "$TMP/pane" && grep -q 'cut 0' "$TMP/pane" ||
	fail "header without samples, lost and cut counts"
pass "hot_function of prof-hot on top: $top"
$T send-keys -t q q
check_restored q
pass "q quits with status 0, terminal restored"

run_top c
sleep 2
$T send-keys -t c C-c
check_restored c
pass "Ctrl-C ends it with status 0, terminal restored"

# --off-cpu: 'h' switches who the holders are told apart by, at the next refresh.
pane_has() {        # session, extended regex: within 10 s
	local i
	for i in $(seq 1 50); do
		$T capture-pane -p -t "$1" >"$TMP/pane" 2>/dev/null
		grep -qE "$2" "$TMP/pane" && return 0
		sleep 0.2
	done
	return 1
}
run_top h --off-cpu
pane_has h 'Runq held by *$' || fail "--off-cpu: no holders' column: $(cat "$TMP/pane")"
for by in cgroup container; do
	$T send-keys -t h h
	pane_has h "Runq held by \($by\)" || fail "h: no holders by $by: $(cat "$TMP/pane")"
done
$T send-keys -t h h
pane_has h 'Runq held by *$' || fail "h: not back to holders by user: $(cat "$TMP/pane")"
$T send-keys -t h q
check_restored h
pass "--off-cpu: h shows the holders by cgroup, container, user in turn"

# Not a terminal: one snapshot per interval, -n of them.
"$PROF" top -p $HOT -d 0.3 -n 2 >"$TMP/snap" 2>"$TMP/err" || fail "prof top -n 2: $(cat "$TMP/err")"
[ "$(grep -c '^prof top:' "$TMP/snap")" = 2 ] || fail "not 2 snapshots: $(cat "$TMP/snap")"
grep -q $'\033' "$TMP/snap" && fail "escape sequences in a non-terminal snapshot"
pass "two snapshots on a pipe, no escape sequences"

# A task's name is its own to choose: one with terminal escapes in it is shown
# escaped, never sent to the terminal raw.
python3 -c '
import ctypes, time
ctypes.CDLL(None).prctl(15, b"\x1b[2Jevil\x07", 0, 0, 0)
end = time.time() + 20
while time.time() < end:
    pass
' &
EVIL=$!
cleanup_hooks+=("kill $EVIL 2>/dev/null")
sleep 0.3
"$PROF" top -p $EVIL -d 0.5 -n 2 >"$TMP/evil" 2>"$TMP/err" || fail "prof top -p (hostile name): $(cat "$TMP/err")"
grep -qF '\x1b[2Jevil\x07' "$TMP/evil" || fail "the hostile name is not shown escaped: $(grep -a evil "$TMP/evil" | head -3 | od -c | head)"
grep -q $'\033' "$TMP/evil" && fail "raw escape bytes reached the output"
pass "a name with terminal escapes is shown escaped: $(grep -m1 -F 'evil' "$TMP/evil")"
