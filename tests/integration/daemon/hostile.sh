#!/usr/bin/env bash
# Clients are untrusted: one that connects and sends nothing, garbage, a header of
# 1 GiB, another protocol version, an unknown key; one that stops reading a large
# answer; 500 at once; one that asks for another uid.  Meanwhile the daemon keeps
# sampling (the kernel loses nothing), answers another user's queries in a loop, stays
# within its memory caps, and says each refusal clearly.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib.sh"
require_root
command -v python3 >/dev/null || skip "needs python3 for the hostile clients"
CLIENTS=$(dirname "$0")/clients.py
make_user profdgood
make_user profdevil
public_prof
HOT=$(public_named "$PROF_HOT" good-job)
STACKS=$(public_named "$PROF_STACKS" evil-stacks)
cp "$CLIENTS" "$TMP/pub/clients.py" && chmod 755 "$TMP/pub/clients.py"
evil() { as_user profdevil python3 "$TMP/pub/clients.py" "$SOCK" "$@"; }

profd_config "bucket = 2" "fine_span = 10" "frequency = 499" "memory_max = 16M" "answers_memory_max = 8M" \
	"client_timeout = 2" "max_clients = 64" "max_clients_per_uid = 16"
start_profd
# evil's own history has thousands of distinct stacks: its own answer is large.  How
# soon depends on the CPU it gets (a third of one on a loaded host): it runs until its
# answer is large enough for the stall case, then stops.
as_user profdevil "$STACKS" 90 14 &
E=$!
as_user profdgood "$HOT" 150 &
G=$!
cleanup_hooks+=("kill $E $G 2>/dev/null")
sleep 8
out=$(evil large 75) || fail "$out"
pass "evil-stacks: ${out#ok: }"
pkill -u profdevil -x evil-stacks  # runuser forks: $E is not the program

# a well-behaved user asks in a loop all along
( n=0; fails=0
  while [ ! -e "$TMP/stop" ]; do
	as_user profdgood "$PUB_PROF" report --daemon --socket "$SOCK" --since 1m --sort comm,sym >"$TMP/good.out" 2>"$TMP/good.err" || fails=$((fails + 1))
	n=$((n + 1))
  done
  echo "$n $fails" >"$TMP/good" ) &
L=$!
# first at the end, before the users go: the loop stops even when a check fails
cleanup_hooks=("touch $TMP/stop; kill $L 2>/dev/null; wait $L 2>/dev/null" "${cleanup_hooks[@]}")

rss_max=0
rss() { local r; r=$(awk '/^VmRSS/ { print $2 * 1024 }' /proc/$PROFD_PID/status); [ "$r" -gt "$rss_max" ] && rss_max=$r; }
for c in "silent 12 2" garbage huge version bad_key "other_uid 0" "stall 2" "many 500"; do
	out=$(evil $c) || fail "$c: $out"
	pass "$c: ${out#ok: }"
	rss
done
# the same again while the first 500 are still being refused: nothing piles up
for _ in 1 2 3; do evil many 500 >/dev/null || fail "many 500 (again)"; rss; done
touch "$TMP/stop"
wait $L
read -r n fails <"$TMP/good"
[ "$fails" -eq 0 ] || fail "$fails of $n queries of the well-behaved user failed: $(cat "$TMP/good.err")"
grep -q 'good-job' "$TMP/good.out" || fail "the well-behaved user's answer lacks good-job: $(head "$TMP/good.out")"
pass "profdgood: $n queries during the attacks, all answered"

kill -0 "$PROFD_PID" || fail "profd died"
lost=$(pstatus lost)
lost_samples=$(pstatus lost_samples)
[ "$lost" = 0 ] && [ "$lost_samples" = 0 ] || fail "the kernel lost records during the attacks: $lost records, $lost_samples samples"
[ "$(pstatus clients_timeout)" -ge 12 ] || fail "silent clients not counted: $(pstatus clients_timeout)"
[ "$(pstatus clients_stalled)" -ge 1 ] || fail "the stalled reader is not counted"
[ "$(pstatus clients_busy_uid)" -gt 0 ] || fail "per-uid refusals not counted"
[ "$(pstatus clients_bad_request)" -ge 3 ] || fail "bad requests not counted: $(pstatus clients_bad_request)"
# what the caps allow: history, answers being written, and the rest of the process
limit=$(( (16 + 8 + 64) << 20 ))
[ "$rss_max" -le "$limit" ] || fail "profd's RSS reached $rss_max bytes, over $limit"
[ "$(pstatus answer_bytes_max)" -le $((8 << 20)) ] || fail "answers held over answers_memory_max: $(pstatus answer_bytes_max)"
pass "no record lost, every case counted, RSS at most $((rss_max >> 20)) MiB (caps: 16M history + 8M answers + 64M)"
stop_profd || fail "profd exited $? on SIGTERM"
