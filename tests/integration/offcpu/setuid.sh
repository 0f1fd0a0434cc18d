#!/usr/bin/env bash
# A holder that changes its real uid without exec: a neighbour pinned (taskset) beside
# the tenant's CPU hog starts as one user (real uid C, root kept as its saved uid) and
# after a while calls setuid(B), no exec, and spins on.  Root's recording must charge
# the tenant's wait behind it to C up to the call and to B after it, as the records'
# times say: the share of the wait charged to C is, within 3 points, the share of the
# wait's time (each offcpu-runq sample's interval) before the call.  Without the
# set*uid() tracepoints followed, the uid read at its first wait would stay C.
. "$(dirname "$0")/lib.sh"
command -v taskset >/dev/null || skip "needs taskset (util-linux)"
command -v python3 >/dev/null || skip "needs python3"
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs (the hogs take one)"
[ -r /sys/kernel/tracing/events/syscalls/sys_enter_setuid/format ] ||
	[ -r /sys/kernel/debug/tracing/events/syscalls/sys_enter_setuid/format ] ||
	skip "no syscalls:sys_enter_setuid tracepoint readable (tracefs, CONFIG_FTRACE_SYSCALLS)"
CPU=$(($(nproc) - 1))

A=prof-it-osa
B=prof-it-osb
C=prof-it-osc
make_user "$A"
make_user "$B"
make_user "$C"
uid_b=$(id -u "$B")
uid_c=$(id -u "$C")
mine=$(public_copy "$PROF_OFFCPU")

# The neighbour: real uid C (saved uid root) for 1.2 s, then setuid(B) without exec,
# 4 s more; it writes the call's CLOCK_MONOTONIC time (prof's samples' clock).
cat >"$TMP/nbr.py" <<'PY'
import os, sys, time
c, g, b, out = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
os.setresgid(g, g, 0)
os.setresuid(c, c, 0)
end = time.monotonic() + 1.2
while time.monotonic() < end:
    pass
os.seteuid(0)
t = time.monotonic()
os.setuid(b)
assert os.getuid() == b and os.geteuid() == b
with open(out, "w") as f:
    f.write("%d\n" % (t * 1e9))
end = time.monotonic() + 4
while time.monotonic() < end:
    pass
PY
chmod 644 "$TMP/nbr.py"
: >"$TMP/switch" && chmod 666 "$TMP/switch" || fail "switch file"
taskset -c "$CPU" python3 "$TMP/nbr.py" "$uid_c" "$(id -g "$C")" "$uid_b" "$TMP/switch" &
nbr=$!
sleep 0.3
"$PROF" record --off-cpu -e cpu-clock -F 999 --uid "$A" -o "$TMP/root.data" -- \
	taskset -c "$CPU" "$mine" hog 3 >/dev/null 2>"$TMP/err" || fail "record: $(cat "$TMP/err")"
note "record: $(tr '\n' ' ' <"$TMP/err")"
wait "$nbr" || fail "the neighbour failed (setuid without exec)"
read -r switch <"$TMP/switch" || fail "the neighbour wrote no time"

# the wait's time before the call, from each offcpu-runq sample's interval (time - period, time]
perf_clean "$TMP/script" script -i "$TMP/root.data" -F time,period,event --ns
read -r before total < <(awk -v s="$switch" '$3 == "offcpu-runq:" {
	t = $1; sub(":", "", t); split(t, p, "."); e = p[1] * 1e9 + p[2]; b = e - $2
	total += $2; if (e <= s) before += $2; else if (b < s) before += s - b
} END { printf "%.0f %.0f\n", before, total }' "$TMP/script")
[ "${total:-0}" -gt 0 ] || fail "no offcpu-runq: $(head -5 "$TMP/script")"
expect=$(pct "$before" "$total")
"$PROF" report -i "$TMP/root.data" --event offcpu-runq --sort holder -F json >"$TMP/root.json" 2>"$TMP/err" ||
	fail "report: $(cat "$TMP/err")"
read -r sc sb < <(python3 -c '
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
tot = sum(r["period"] for r in rows)
s = lambda n: 100.0 * sum(r["period"] for r in rows if r["holder"] == n) / tot
print("%.1f %.1f" % (s(sys.argv[2]), s(sys.argv[3])))
' "$TMP/root.json" "$C" "$B") || fail "report JSON: $(cat "$TMP/root.json")"
note "wait before the setuid(): $expect % of it; charged to $C $sc %, to $B $sb %"
awk -v e="$expect" 'BEGIN { exit !(e >= 10 && e <= 60) }' ||
	fail "the call fell at $expect % of the wait: the test's timing did not hold"
near "$sc" "$expect" 3 || fail "$C (before the call) charged $sc % of the wait, $expect % of it came before: $(cat "$TMP/root.json")"
awk -v c="$sc" -v b="$sb" 'BEGIN { exit !(c + b >= 95) }' || fail "$C $sc % + $B $sb % under 95 %: $(cat "$TMP/root.json")"
pass "the holder is $C for $sc % of the wait (before its setuid(): $expect %), $B for $sb %"
