#!/usr/bin/env bash
# History survives the daemon: SIGTERM writes it and exits 0, the next start reads it
# back (a program of before the stop is in the answer); after a kill -9 and a torn
# last record, every complete bucket is read back and the torn one is counted.
# SIGHUP reloads the configuration; a bad one is refused, naming file:line, and the
# daemon keeps running with the old one.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib.sh"
require_root
public_prof
BEFORE=$(public_named "$PROF_HOT" before-stop)
CRASH=$(public_named "$PROF_HOT" before-crash)

profd_config "bucket = 2" "fine_span = 10" "memory_max = 16M"
start_profd
"$BEFORE" 3 || fail "before-stop"
sleep 2.5
stop_profd || fail "SIGTERM: profd exited $?: $(tail -5 "$PD/log")"
grep -q 'stopped (SIGTERM)' "$PD/log" || fail "no stop in the log: $(tail -3 "$PD/log")"
ls "$PD/state/history/"*.seg >/dev/null 2>&1 || fail "no history written under $PD/state/history"
pass "SIGTERM: exit 0, history written ($(cat "$PD/state/history/"*.seg | wc -c) bytes)"

start_profd
grep -qE 'history: [1-9][0-9]* buckets read back' "$PD/log" || fail "nothing read back: $(tail -3 "$PD/log")"
"$PROF" report --daemon --socket "$SOCK" --sort comm,sym >"$TMP/out" 2>"$TMP/err" || fail "report: $(cat "$TMP/err")"
grep -qE 'before-stop +\[\.\] hot_function' "$TMP/out" || fail "before-stop is gone after the restart: $(head -20 "$TMP/out")"
[ "$(pstatus disk_loaded)" -gt 0 ] || fail "status says nothing was loaded"
pass "restart: before-stop still in the answer ($(pstatus disk_loaded) buckets read back)"

# a crash: complete buckets survive, a torn last record costs only itself
"$CRASH" 4 || fail "before-crash"
sleep 3
kill -KILL "$PROFD_PID"
wait "$PROFD_PID" 2>/dev/null
last=$(ls "$PD/state/history/"*.seg | tail -n 1)
size=$(stat -c %s "$last")
truncate -s $((size - 7)) "$last" || fail "truncate"
start_profd
grep -qE '[1-9][0-9]* corrupt segment tails' "$PD/log" || fail "the torn tail is not counted: $(grep history: "$PD/log" | tail -1)"
"$PROF" report --daemon --socket "$SOCK" --sort comm,sym >"$TMP/out" 2>"$TMP/err" || fail "report: $(cat "$TMP/err")"
grep -qE 'before-crash +\[\.\] hot_function' "$TMP/out" || fail "before-crash lost with the torn tail: $(head -20 "$TMP/out")"
grep -qE 'before-stop +\[\.\] hot_function' "$TMP/out" || fail "before-stop lost after the crash"
pass "kill -9 and a torn tail: both programs still there, $(pstatus disk_corrupt) torn tail counted"

# SIGHUP: a bad configuration is refused and says where; the old one stays
cp "$PD/prof.conf" "$PD/good.conf"
printf 'bogus_key = 1\n' >>"$PD/prof.conf"
line=$(wc -l <"$PD/prof.conf")
kill -HUP "$PROFD_PID"
sleep 1
kill -0 "$PROFD_PID" || fail "profd died of a bad configuration"
grep -q "reload failed: $PD/prof.conf:$line: unknown key 'bogus_key' in \[daemon\] (keeping the previous configuration)" "$PD/log" ||
	fail "the log does not say why: $(tail -3 "$PD/log")"
pstatus reload | grep -q "reload failed: $PD/prof.conf:$line" || fail "status does not say: $(pstatus reload)"
[ "$(pstatus memory_max)" = $((16 << 20)) ] || fail "memory_max changed by a refused reload"
"$PROF" report --daemon --socket "$SOCK" >/dev/null 2>&1 || fail "no answer after a refused reload"
pass "SIGHUP with a bad key: refused, $(grep -o 'reload failed: [^(]*' "$PD/log" | tail -1)"
profd_config "bucket = 2" "fine_span = 3" "memory_max = 16M"
kill -HUP "$PROFD_PID"
sleep 1
grep -q "reload failed: .*fine_span must be at least two buckets" "$PD/log" || fail "cross-key error not said: $(tail -2 "$PD/log")"
profd_config "bucket = 2" "fine_span = 10" "memory_max = 24M"
kill -HUP "$PROFD_PID"
sleep 1
grep -q "configuration reloaded from $PD/prof.conf" "$PD/log" || fail "a good reload is not said: $(tail -2 "$PD/log")"
[ "$(pstatus memory_max)" = $((24 << 20)) ] || fail "memory_max not applied: $(pstatus memory_max)"
pass "SIGHUP: a cross-key error is refused too; a good configuration applies at once (memory_max 24M)"
stop_profd || fail "profd exited $? on SIGTERM"
