#!/usr/bin/env bash
# A ring replay (src/record/events_replay.c, for bench/record-instr --replay and
# bench/ring-replay): what a recording drained, saved with PROF_RING_SAVE, replayed
# with PROF_RING_REPLAY through the same drain, pipeline and writer with no kernel
# event: its samples, frames and names are the recording's, record for record, while
# what it reads at replay time (/proc of a task met before the recording) is as it was.
# Then: two replays of a file whose task is gone since write the same samples; a file
# that is not one, and a command given with it, are refused with a clear message.
. "$(dirname "$0")/../lib.sh"
require_root
require_perf

mnt=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
[ -n "$mnt" ] || skip "needs a cgroup2 mount"
name=prof-it-replay-$$
make_cgroup_tree "$mnt/$name"
"$PROF_HOT" 30 &
hot=$!
cleanup_hooks+=("kill $hot 2>/dev/null")
echo "$hot" >"$mnt/$name/cgroup.procs" || fail "cannot move prof-hot into $mnt/$name"

PROF_RING_SAVE="$TMP/r.ring" "$PROF" record -q -G "$name" -g -F 2000 -d 1 -o "$TMP/live.data" ||
	fail "prof record with PROF_RING_SAVE exited $?"
[ "$(stat -c %a "$TMP/r.ring")" = 600 ] || fail "the saved file is mode $(stat -c %a "$TMP/r.ring"), want 600"
PROF_RING_REPLAY="$TMP/r.ring" "$PROF" record -q -G "$name" -g -F 2000 -o "$TMP/rep.data" ||
	fail "prof record with PROF_RING_REPLAY exited $?"
perf_clean "$TMP/live.txt" script -i "$TMP/live.data" -F comm,tid,time,ip,sym,dso
perf_clean "$TMP/rep.txt" script -i "$TMP/rep.data" -F comm,tid,time,ip,sym,dso
n=$(grep -c "^prof-hot *$hot " "$TMP/live.txt")
[ "$n" -gt 100 ] || fail "only $n samples of prof-hot in the recording"
grep -q 'hot_function' "$TMP/live.txt" || fail "no hot_function in the recording"
cmp -s "$TMP/live.txt" "$TMP/rep.txt" ||
	fail "the replay differs from the recording: $(diff "$TMP/live.txt" "$TMP/rep.txt" | head -n 6)"
pass "replay = recording: $n samples of prof-hot, perf script line for line ($(wc -l <"$TMP/rep.txt") lines)"

# the task gone: /proc cannot name it, but two replays agree, sample for sample
kill "$hot"
wait "$hot" 2>/dev/null
for i in 1 2; do
	PROF_RING_REPLAY="$TMP/r.ring" "$PROF" record -q -G "$name" -g -F 2000 -o "$TMP/gone$i.data" ||
		fail "replay $i exited $?"
	perf_clean "$TMP/gone$i.txt" script -i "$TMP/gone$i.data" -F comm,tid,time,ip,sym,dso
done
cmp -s "$TMP/gone1.txt" "$TMP/gone2.txt" || fail "two replays differ: $(diff "$TMP/gone1.txt" "$TMP/gone2.txt" | head -n 6)"
[ "$(grep -c " $hot " "$TMP/gone1.txt")" -eq "$n" ] || fail "the replays wrote $(grep -c " $hot " "$TMP/gone1.txt") samples of $hot, the recording $n"
pass "the task gone: two replays the same, $n samples of it each"

# not a saved file; a command with it
out=$(PROF_RING_REPLAY=/etc/hostname "$PROF" record -q -a -o "$TMP/x.data" 2>&1) && fail "a replay of /etc/hostname exited 0"
echo "$out" | grep -q "cannot replay '/etc/hostname' (PROF_RING_REPLAY): not a file PROF_RING_SAVE wrote" ||
	fail "a replay of /etc/hostname said: $out"
out=$(PROF_RING_REPLAY="$TMP/r.ring" "$PROF" record -q -a -o "$TMP/x.data" -- true 2>&1) && fail "a replay with a command exited 0"
echo "$out" | grep -q "give no command" || fail "a replay with a command said: $out"
pass "refused: a file PROF_RING_SAVE did not write, a command with a replay"

# not root: a tenant's prof never saves the rings (every task's records) nor replays
U=proftring
make_user "$U"
mkdir -p "$TMP/u" && chown "$U" "$TMP/u" && chmod 755 "$TMP"
out=$(runuser -u "$U" -- env PROF_RING_SAVE="$TMP/u/r.ring" "$PROF" record -q -o "$TMP/u/u.data" -- true 2>&1)
echo "$out" | grep -q "are for root only" || fail "a user's PROF_RING_SAVE said: $out"
[ ! -e "$TMP/u/r.ring" ] || fail "a user's prof saved the rings"
pass "not root: PROF_RING_SAVE ignored, said"
