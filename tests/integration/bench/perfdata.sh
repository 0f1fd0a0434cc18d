#!/usr/bin/env bash
# The benchmark's perf.data reader (bench/benchlib/perfdata.py) counts what perf's
# own reader counts: samples, and samples per task name, in files of prof and perf.
. "$(dirname "$0")/../lib.sh"
require_root
require_perf
[ -x /usr/bin/python3 ] || skip "needs /usr/bin/python3"
BENCH=$(cd "$(dirname "$0")/../../.." && pwd)/bench

"$PROF" record -q -e cpu-clock -F 1000 -o "$TMP/prof.data" -- "$PROF_HOT" 2 fork >/dev/null ||
	fail "prof record"
"$PERF" record -q -e cpu-clock -F 1000 -o "$TMP/perf.data" -- "$PROF_HOT" 2 fork >/dev/null 2>&1 ||
	fail "perf record"

for f in prof perf; do
	perf_clean "$TMP/$f.comms" script -i "$TMP/$f.data" -F comm
	/usr/bin/python3 - "$BENCH" "$TMP/$f.data" "$TMP/$f.comms" <<'EOF' || fail "$f's file: see above"
import collections, sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
from benchlib.perfdata import Recording
r = Recording(sys.argv[2], want_comms=True)
perf = collections.Counter(l.strip() for l in open(sys.argv[3]) if l.strip())
print(f"# parser: {r.samples} samples, lost {r.lost}, {dict(r.sample_comms)}")
print(f"# perf script: {sum(perf.values())} samples, {dict(perf)}")
bad = []
if r.samples != sum(perf.values()):
    bad.append(f"{r.samples} samples, perf script counts {sum(perf.values())}")
# perf's reader names samples after a task's EXIT record ':PID'; the parser keeps
# the name, so per name it may count more than perf, by at most those samples
after_exit = sum(v for k, v in perf.items() if k.startswith(":"))
for comm in ("prof-hot", "prof-child"):
    if not perf[comm] <= r.sample_comms.get(comm, 0) <= perf[comm] + after_exit:
        bad.append(f"{comm}: parser {r.sample_comms.get(comm, 0)}, perf script {perf[comm]} (+{after_exit} after exit)")
    # enough to compare (~2000 and ~1300 on an idle machine; a loaded one gives
    # the workload a fraction of a CPU)
    if r.sample_comms.get(comm, 0) < 100:
        bad.append(f"{comm}: only {r.sample_comms.get(comm, 0)} samples")
if r.unknown_comm:
    bad.append(f"{r.unknown_comm} samples of an unnamed task")
if r.task_bytes <= 0 or r.task_bytes >= r.file_size:
    bad.append(f"task record bytes {r.task_bytes} of {r.file_size}")
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
EOF
	pass "$f's file: samples and names agree with perf script"
done

# a cut file is an error, not a wrong count
head -c 200 "$TMP/perf.data" >"$TMP/cut.data"
/usr/bin/python3 - "$BENCH" "$TMP/cut.data" <<'EOF' || fail "a truncated file was not refused"
import sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
from benchlib.perfdata import BadFile, Recording
try:
    Recording(sys.argv[2])
except BadFile as e:
    print("#", e)
    sys.exit(0)
sys.exit(1)
EOF
pass "a truncated file is refused"
