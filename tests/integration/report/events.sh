#!/usr/bin/env bash
# A file of two sampling events (perf record -e cpu-clock,page-faults, and prof
# record's own) is reported per event, as perf reports it: each event's samples,
# period and per-comm shares are perf's (perf script, perf report) and never added
# to the other's; JSON carries an events array; --event NAME (or its number) picks
# one, in every format; a name the file lacks is refused with the list; pprof carries
# every event as its own pair of sample types (go tool pprof -sample_index=EVENT),
# each with perf's totals; folded and svg show the first event and name the others.
# prof top refuses two events.
. "$(dirname "$0")/../lib.sh"
require_root
require_perf
GO=$(command -v go || true)
[ -n "$GO" ] && HOME=$TMP "$GO" tool pprof -h >/dev/null 2>&1 || { GO=; note "no go tool pprof (golang-go): pprof's events not read"; }

# CPU time and page faults in different processes: prof-hot spins, python3 touches
# 200 MB
work="$PROF_HOT 1 & /usr/bin/python3 -c 'b = bytearray(200 << 20); b[::4096] = b\"x\" * (200 << 8)' & wait"
"$PERF" record -q -g -e cpu-clock,page-faults -o "$TMP/perf.data" -- sh -c "$work" >/dev/null 2>&1 ||
	fail "perf record -e cpu-clock,page-faults"
# -a: events told apart by PERF_SAMPLE_IDENTIFIER; without, by PERF_SAMPLE_ID
"$PERF" record -q -a -g -e cpu-clock,page-faults -o "$TMP/perf-a.data" -- sh -c "$work" >/dev/null 2>&1 ||
	fail "perf record -a -e cpu-clock,page-faults"
"$PROF" record -q -g -e cpu-clock,page-faults -o "$TMP/prof.data" -- sh -c "$work" 2>"$TMP/rec.err" ||
	fail "prof record -e cpu-clock,page-faults: $(cat "$TMP/rec.err")"

# True when file $1 says more than notes on single objects ("prof report: /PATH: ...").
# An -a file names every task of the host; where some run in another root (a
# container, or these tests run from a root of their own beside the host's), a file
# at the same path is another file there, and prof says so of each such object.
besides_objects() {
	grep -vE '^prof report: /[^:]*: ' "$1" | grep -q .
}
compare() {
	local file=$1 what=$2
	perf_clean "$TMP/script.txt" script -i "$file" -F event,comm,period
	perf_clean "$TMP/perf.txt" report -i "$file" --stdio --no-children --sort comm -g none
	"$PROF" report -i "$file" --sort comm -F json >"$TMP/all.json" 2>"$TMP/err" || fail "$what: json: $(cat "$TMP/err")"
	"$PROF" report -i "$file" --sort comm >"$TMP/all.txt" 2>"$TMP/err" || fail "$what: text: $(cat "$TMP/err")"
	for ev in cpu-clock page-faults 2; do
		"$PROF" report -i "$file" --sort comm -F json --event $ev >"$TMP/one-$ev.json" 2>"$TMP/err" ||
			fail "$what: --event $ev: $(cat "$TMP/err")"
	done
	python3 - "$TMP" "$what" <<'PY' || fail "$what: prof's events are not perf's"
import collections, json, re, sys
tmp, what = sys.argv[1], sys.argv[2]
# perf script: samples and period per event, and per (event, comm)
samples, period, by_comm = collections.Counter(), collections.Counter(), collections.Counter()
for line in open(f"{tmp}/script.txt"):
    m = re.match(r"\s*(.*\S)\s+(\d+)\s+(\S+):\s*$", line)
    if m:
        comm, n, ev = m.group(1), int(m.group(2)), m.group(3)
        # a task the file gives no COMM (perf -a under churn): perf says ":PID", prof
        # "[unknown]", one row for all of them
        if re.fullmatch(r":-?\d+", comm):
            comm = "[unknown]"
        samples[ev] += 1
        period[ev] += n
        by_comm[(ev, comm)] += n
# perf report: one table per event, "# Samples: N of event 'E'" heading each
perf, ev = collections.defaultdict(dict), None
for line in open(f"{tmp}/perf.txt"):
    m = re.match(r"# Samples: .* of event '([^']+)'", line)
    if m:
        ev = m.group(1)
    m = re.match(r"\s+([0-9.]+)%\s+(.*\S)\s*$", line)
    if m and ev:
        perf[ev][m.group(2)] = float(m.group(1))
print(f"perf: {dict(samples)} samples, {dict(period)} period, tables {sorted(perf)}")
assert sorted(perf) == ["cpu-clock", "page-faults"], f"perf's tables: {sorted(perf)}"
assert samples["page-faults"] > 20, "too few page faults to compare"
doc = json.load(open(f"{tmp}/all.json"))
assert doc["schema"] == "prof-report/2", doc["schema"]
events = {e["event"]: e for e in doc["events"]}
assert list(events) == ["cpu-clock", "page-faults"], list(events)
for ev, e in events.items():
    assert e["samples"] == samples[ev] and e["period"] == period[ev], \
        f"{ev}: prof {e['samples']} samples {e['period']} period, perf {samples[ev]} {period[ev]}"
    for r in e["rows"]:
        want = 100.0 * by_comm[(ev, r["comm"])] / period[ev]
        # perf report cuts its column of comms to the width of its first rows
        ref = perf[ev].get(r["comm"], want if r["overhead"] < 1 else -1)
        assert abs(r["overhead"] - want) < 0.01 and abs(r["overhead"] - ref) <= 0.01, \
            f"{ev} {r['comm']}: prof {r['overhead']:.2f}%, perf script {want:.2f}%, perf report {perf[ev].get(r['comm'])}"
    print(f"{ev}: {e['samples']} samples, {e['period']} period, {len(e['rows'])} comms as perf's")
for ev, name in (("cpu-clock", "cpu-clock"), ("page-faults", "page-faults"), ("2", "page-faults")):
    one = json.load(open(f"{tmp}/one-{ev}.json"))
    assert one["schema"] == "prof-report/1" and one["event"] == name, (ev, one["schema"], one.get("event"))
    assert one["samples"] == samples[name] and one["period"] == period[name], (ev, one["samples"])
# the text: a table per event, in the file's order
heads = re.findall(r"^# event: (\S+), (\d+) samples", open(f"{tmp}/all.txt").read(), re.M)
assert heads == [("cpu-clock", str(samples["cpu-clock"])), ("page-faults", str(samples["page-faults"]))], heads
PY
	pass "$what: per event (text, JSON, --event NAME and N): samples, period and per-comm shares as perf's"

	# the single-profile formats: the first event, the others named; --event picks
	"$PROF" report -i "$file" -F folded >"$TMP/folded" 2>"$TMP/err" || fail "$what: folded"
	grep -q "samples of 2 events (1: cpu-clock, 2: page-faults); -F folded shows the first only, cpu-clock" "$TMP/err" ||
		fail "$what: folded of two events says: $(cat "$TMP/err")"
	"$PROF" report -i "$file" -F folded --event page-faults >"$TMP/folded-pf" 2>"$TMP/err" || fail "$what: folded --event"
	! besides_objects "$TMP/err" || fail "$what: folded --event page-faults says: $(cat "$TMP/err")"
	for f in folded:cpu-clock folded-pf:page-faults; do
		n=$(awk '{ s += $NF } END { print s }' "$TMP/${f%%:*}")
		want=$(grep -c " ${f#*:}: *$" "$TMP/script.txt")
		[ "$n" = "$want" ] || fail "$what: ${f%%:*} has $n samples, perf script $want of ${f#*:}"
	done
	"$PROF" report -i "$file" -F svg --event page-faults >"$TMP/pf.svg" 2>"$TMP/err" || fail "$what: svg --event"
	grep -q "<title>all ($(printf "%'d" "$want") samples" "$TMP/pf.svg" ||
		grep -q "<title>all ($want samples" "$TMP/pf.svg" || fail "$what: svg of page-faults: $(grep -o '<title>all[^<]*' "$TMP/pf.svg")"
	"$PROF" report -i "$file" -F pprof --event page-faults -o "$TMP/pf.pb.gz" 2>"$TMP/err" || fail "$what: pprof --event"
	zcat "$TMP/pf.pb.gz" | grep -qa "page-faults" || fail "$what: pprof of page-faults does not name it"
	pass "$what: folded/svg: the first event with a note, --event page-faults (and pprof's): its samples only"

	# pprof: both events, each its own sample types, totals as perf script's
	if [ -n "$GO" ]; then
		"$PROF" report -i "$file" -F pprof -o "$TMP/both.pb.gz" 2>"$TMP/err" || fail "$what: pprof: $(cat "$TMP/err")"
		! besides_objects "$TMP/err" || fail "$what: pprof of two events says: $(cat "$TMP/err")"
		HOME=$TMP "$GO" tool pprof -raw "$TMP/both.pb.gz" >"$TMP/both.raw" 2>"$TMP/err" ||
			fail "$what: go tool pprof -raw: $(cat "$TMP/err")"
		python3 - "$TMP" <<'PY' || fail "$what: pprof's events are not perf's"
import collections, re, sys
tmp = sys.argv[1]
samples, period = collections.Counter(), collections.Counter()
for line in open(f"{tmp}/script.txt"):
    m = re.match(r"\s*(.*\S)\s+(\d+)\s+(\S+):\s*$", line)
    if m:
        samples[m.group(3)] += 1
        period[m.group(3)] += int(m.group(2))
lines = open(f"{tmp}/both.raw").read().splitlines()
types = next(l for i, l in enumerate(lines) if i and lines[i - 1] == "Samples:").split()
want = ["cpu-clock_samples/count", "cpu-clock/nanoseconds[dflt]", "page-faults_samples/count", "page-faults/count"]
assert types == want, types
sums = [0] * 4
for l in lines:
    m = re.match(r"\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+):", l)
    if m:
        # (go tool pprof merges samples of equal stacks and labels: one line may
        # carry both events' values; each value is its own event's)
        v = [int(x) for x in m.groups()]
        sums = [a + b for a, b in zip(sums, v)]
got = {"cpu-clock": sums[0:2], "page-faults": sums[2:4]}
for ev in ("cpu-clock", "page-faults"):
    assert got[ev] == [samples[ev], period[ev]], f"{ev}: pprof {got[ev]}, perf script {samples[ev]} {period[ev]}"
print(f"pprof: {got}")
PY
		pass "$what: pprof: both events, each its own sample types, samples and period as perf script's"
	fi

	"$PROF" report -i "$file" --event page-fault >/dev/null 2>"$TMP/err"; rc=$?
	[ $rc -eq 2 ] && grep -q "has no event 'page-fault'; its events: 1: cpu-clock, 2: page-faults" "$TMP/err" ||
		fail "$what: --event page-fault: exit $rc, $(cat "$TMP/err")"
	pass "$what: an event the file lacks is refused with the list"
}
compare "$TMP/perf.data" "perf's file"
compare "$TMP/perf-a.data" "perf's -a file"
compare "$TMP/prof.data" "prof's file"
# prof record's stats are the recording's: said to be of both events under each table
n=$(grep -c '^# recorded: .* (the 2 events together)$' "$TMP/all.txt")
[ "$n" = 2 ] || fail "prof's file: the recorded line of each table: $(grep '^# recorded' "$TMP/all.txt")"
pass "prof's file: each table's recorded line says it counts both events"

"$PROF" top -a -e cpu-clock,page-faults -n 1 >/dev/null 2>"$TMP/err"; rc=$?
[ $rc -eq 2 ] && grep -q "prof top shows one event at a time" "$TMP/err" || fail "prof top, two events: exit $rc, $(cat "$TMP/err")"
pass "prof top refuses two events"
