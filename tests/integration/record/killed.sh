#!/usr/bin/env bash
# A recording killed hard (SIGKILL: the OOM killer, a crash) loses only its last
# moments.  prof record -a -g, and prof record of a workload, killed 3 s in: prof
# report and perf report read the file, the same samples, at least 90 % of what a
# clean 3 s recording of the same busy host writes, and the -a file's kernel samples
# are named in prof report as in perf report.  The same file with the header
# prof record wrote before it kept it valid (magic and sizes only), and a file perf
# record left when killed (data size 0): prof report reads each up to its last whole
# record and says so, the same samples perf finds once the header is repaired.
. "$(dirname "$0")/../lib.sh"
require_root
require_perf

for i in $(seq "$(nproc)"); do
	"$PROF_HOT" 120 >/dev/null &
	cleanup_hooks+=("kill $! 2>/dev/null")
done

# The header's attrs offset and size, data offset and size.
header() {
	python3 -c 'import struct, sys; h = open(sys.argv[1], "rb").read(104); print(*struct.unpack_from("<QQQQ", h, 24))' "$1"
}
prof_samples() {
	"$PROF" report -i "$1" -F json 2>"$TMP/report.err" | python3 -c 'import json, sys; print(json.load(sys.stdin)["samples"])'
}
perf_samples() {
	"$PERF" script -i "$1" -F period 2>/dev/null | grep -c . || true
}
# perf script's samples of $1: their number, the first's and the last's time (ns).
perf_times() {
	"$PERF" script -i "$1" -F time 2>/dev/null | python3 -c '
import sys
t = [round(float(l.strip().rstrip(":")) * 1e9) for l in sys.stdin if l.strip()]
print(len(t), min(t), max(t))'
}
# prof report's "read up to its last whole record at offset N" for file $1, or nothing.
unfinished_end() {
	sed -n "s|.*$1 was not finished (the recording was killed?): read up to its last whole record at offset \([0-9]*\)\$|\1|p" \
		"$TMP/report.err"
}
# $TMP/repaired.data: file $1 with its header naming attrs ($2, $3), data ($4, $5)
# and no features, the reference perf reads.
repaired() {
	python3 - "$@" "$TMP/repaired.data" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
struct.pack_into('<QQQQ', b, 24, *(int(a) for a in sys.argv[2:6]))
b[72:104] = bytes(32)
open(sys.argv[6], 'wb').write(b)
PY
}

# The samples of file $1 in [kernel.kallsyms], and how many of them have a name:
# "prof TOTAL NAMED" from prof report, "perf TOTAL NAMED" from perf report.
kernel_named() {
	"$PROF" report -i "$1" -s dso,sym -F json 2>/dev/null | python3 -c '
import json, sys
r = [x for x in json.load(sys.stdin)["rows"] if x["kernel"] and x["dso"] == "[kernel.kallsyms]"]
print("prof", sum(x["samples"] for x in r), sum(x["samples"] for x in r if not x["sym"].startswith("[unknown]")))'
	"$PERF" report -i "$1" --stdio --no-children -g none --sort dso,sym -F sample,dso,sym 2>/dev/null | awk '
	$2 == "[kernel.kallsyms]" { t += $1; if ($3 == "[k]" && $4 !~ /^0x/ && $4 != "[unknown]") n += $1 }
	END { print "perf", t + 0, n + 0 }'
}

# A killed recording has no features (no build ids, no host): its kernel samples are
# named because prof record wrote the kernel's build id into the data, right after
# the kernel's map, and prof report trusts this host's kallsyms for it, as perf does.
check_kernel_named() {
	local what=$1 pt pn ft fn
	read -r _ pt pn < <(kernel_named "$TMP/killed.data" | grep '^prof')
	read -r _ ft fn < <(kernel_named "$TMP/killed.data" | grep '^perf')
	note "$what: kernel samples: prof report $pn of $pt named, perf report $fn of $ft"
	[ "$ft" -gt 0 ] && [ "$fn" -gt 0 ] || fail "$what: perf report names no kernel samples ($fn of $ft): nothing to compare"
	[ "$pt" -eq "$ft" ] || fail "$what: prof report has $pt kernel samples, perf report $ft"
	[ "$pn" -ge "$fn" ] || fail "$what: prof report names $pn of $pt kernel samples, perf report $fn"
	pass "$what: killed, its kernel samples named: prof report $pn of $pt, perf report $fn"
}

# prof record with these arguments, SIGKILLed 3 s after its first round reached the
# header; the workload (if any) killed after it.
record_killed() {
	local out=$1 deadline=$((SECONDS + 5)) size=0
	shift
	"$PROF" record -q -o "$out" "$@" &
	local p=$!
	while [ "$size" -eq 0 ] && [ $SECONDS -lt $deadline ]; do
		sleep 0.05
		[ -s "$out" ] && read -r _ _ _ size < <(header "$out")
	done
	[ "$size" -gt 0 ] || fail "prof record $*: no round in the header after 5 s"
	sleep 3
	local child
	kill -0 "$p" 2>/dev/null || fail "prof record $*: ended before it was killed"
	child=$(pgrep -P "$p")
	# the moment of the kill on the samples' clock (prof records CLOCK_MONOTONIC), and
	# the workload's CPU time (ns) then
	read -r killed_at child_ns < <(python3 -c '
import os, sys, time
ns = int(open("/proc/%s/schedstat" % sys.argv[2]).read().split()[0]) if sys.argv[2] else 0
t = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
os.kill(int(sys.argv[1]), 9)
print(t, ns)' "$p" "$child")
	wait "$p" 2>/dev/null
	[ -n "$child" ] && kill -KILL $child 2>/dev/null
	true
}

# The killed file as prof record before 0916f20 left it: only the magic and the
# header and attr sizes (ids, attrs and data lie as they still do).  $k: the samples
# prof report read with the header.
check_older() {
	local what=$1 k=$2 aoff asize off o end p
	read -r aoff asize off _ < <(header "$TMP/killed.data")
	cp "$TMP/killed.data" "$TMP/older.data"
	python3 -c 'import sys; f = open(sys.argv[1], "r+b"); f.seek(24); f.write(bytes(80))' "$TMP/older.data"
	o=$(prof_samples "$TMP/older.data") || fail "$what, older header: prof report: $(cat "$TMP/report.err")"
	end=$(unfinished_end older.data)
	[ -n "$end" ] || fail "$what, older header: prof report does not say the file was not finished: $(cat "$TMP/report.err")"
	repaired "$TMP/older.data" "$aoff" "$asize" "$off" "$((end - off))"
	p=$(perf_samples "$TMP/repaired.data")
	note "$what, older header: $(stat -c %s "$TMP/older.data") bytes, whole records up to $end; prof report $o samples, perf script (header repaired) $p"
	[ "$o" -ge "$k" ] && [ "$o" -eq "$p" ] || fail "$what, older header: prof report $o samples (with the header $k), perf $p"
	pass "$what, older header never written: prof report reads $o samples up to offset $end and says so; perf agrees once repaired"
}

# A clean 3 s recording gives the rate (samples a second, between its first and
# last sample); a clean stop at the kill would have written that rate from the
# killed file's first sample to the kill.  The killed file must hold 90 % of it.
check_killed() {
	local what=$1 clean_args=$2 killed_args=$3 attrs off size clean k p n first last cn cfirst clast want
	# (with a workload, stopped at the deadline, prof exits with its status)
	"$PROF" record -q -o "$TMP/clean.data" $clean_args
	clean=$(prof_samples "$TMP/clean.data")
	# (enough to judge by: a workload on a loaded host may get a third of a CPU)
	[ "$clean" -ge 500 ] || fail "$what: a clean 3 s recording has $clean samples, want 500 or more"
	read -r cn cfirst clast < <(perf_times "$TMP/clean.data")
	record_killed "$TMP/killed.data" $killed_args
	read -r _ attrs off size < <(header "$TMP/killed.data")
	[ "$attrs" -gt 0 ] && [ "$size" -gt 0 ] || fail "$what: the killed file's header: attrs size $attrs, data size $size"
	k=$(prof_samples "$TMP/killed.data") || fail "$what: prof report of the killed file: $(cat "$TMP/report.err")"
	grep -q "killed.data was not finished (the recording was killed, or its disk filled?): read up to its last round at offset $((off + size))" \
		"$TMP/report.err" || fail "$what: prof report does not say the file was not finished: $(cat "$TMP/report.err")"
	perf_clean "$TMP/perf.txt" report -i "$TMP/killed.data" --stdio --no-children --sort comm
	p=$(perf_samples "$TMP/killed.data")
	read -r n first last < <(perf_times "$TMP/killed.data")
	if [ "$child_ns" -gt 0 ]; then
		# a workload's samples: its CPU time at 997 a second
		want=$(( child_ns / 1000000 * 997 / 1000 ))
	else
		want=$(( cn * ((killed_at - first) / 1000) / ((clast - cfirst) / 1000) ))
	fi
	note "$what: clean 3 s: $clean samples over $(( (clast - cfirst) / 1000000 )) ms; killed $(( (killed_at - first) / 1000000 )) ms after its first sample (its last: $(( (killed_at - last) / 1000000 )) ms before the kill; the workload's CPU time $((child_ns / 1000000)) ms): $(stat -c %s "$TMP/killed.data") bytes, prof report $k, perf script $p; a clean stop at the kill: $want"
	[ "$k" -eq "$p" ] && [ "$n" -eq "$p" ] || fail "$what: prof report reads $k samples, perf $p"
	[ "$clean" -eq "$cn" ] || fail "$what: the clean file: prof report $clean samples, perf $cn"
	[ $((k * 10)) -ge $((want * 9)) ] || fail "$what: $k samples, fewer than 90 % of a clean stop's $want"
	pass "$what: killed after 3 s: $k samples in prof report and perf report ($((k * 100 / want)) % of a clean stop at that moment)"
	[ "$child_ns" -gt 0 ] || check_kernel_named "$what"
	check_older "$what" "$k"
}

check_killed "prof record -a -g" "-a -g -F 997 -d 3" "-a -g -F 997 -d 20"
check_killed "prof record -g -- workload" "-g -F 997 -d 3 -- $PROF_HOT 60" "-g -F 997 -d 20 -- $PROF_HOT 60"

# perf record killed: its header's data size is 0, its feature bits set, no features.
"$PERF" record -q -a -g -F 997 -o "$TMP/perf-killed.data" -- sleep 30 >/dev/null 2>&1 &
p=$!
sleep 5         # (its start takes seconds on a loaded host: synthesizing every task)
child=$(pgrep -P "$p")
kill -KILL "$p"
wait "$p" 2>/dev/null
[ -n "$child" ] && kill -KILL $child
read -r aoff asize off size < <(header "$TMP/perf-killed.data")
[ "$size" -eq 0 ] || fail "perf record killed: data size $size, expected perf to leave 0"
k=$(prof_samples "$TMP/perf-killed.data") || fail "prof report of perf's killed file: $(cat "$TMP/report.err")"
end=$(unfinished_end perf-killed.data)
[ -n "$end" ] || fail "prof report does not say perf's file was not finished: $(cat "$TMP/report.err")"
# The reference: the same file with the data size that prof found, and no feature bits.
repaired "$TMP/perf-killed.data" "$aoff" "$asize" "$off" "$((end - off))"
p=$(perf_samples "$TMP/repaired.data")
note "perf record killed after 5 s: $(stat -c %s "$TMP/perf-killed.data") bytes, whole records up to $end; prof report $k samples, perf script (header repaired) $p"
[ "$k" -gt 0 ] && [ "$k" -eq "$p" ] || fail "perf's killed file: prof report $k samples, perf on the repaired file $p"
pass "perf record killed: prof report reads $k samples up to offset $end and says so; perf agrees once repaired"
