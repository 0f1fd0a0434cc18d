#!/usr/bin/env bash
# The line, exactly: spin() runs one loop on line 5 in even phases and another on
# line 7 in odd ones (after lines 2-4, which every call runs, and before line 8's
# return: 3.8's line table gives an implicit return the last line, 7), switching
# every 20 ms, and the program logs when each phase began and ended
# (CLOCK_MONOTONIC, the samples' clock).  The frame is read ~65 ms
# after its sample, by then in another phase: its own current instruction would
# give the other line about half the time.  prof names the line by the instruction
# the sample's registers and stack copy pin (the build's DWARF or code says where), so no
# sample may show spin() at the other phase's line, over >= 1,000 samples with a
# line, both lines seen.  For each pyenv build prof pins lines in (3.8, 3.9:
# next_instr where their DWARF says; 3.11, 3.12, 3.13) installed here (3.10's
# DWARF pins too few instructions for the 1,000); none installed: SKIP.
. "$(dirname "$0")/pyenv.sh"
require_perf
cat >"$TMP/pub/lines.py" <<'PY'
import sys, time
def spin(phase, until):
    x = 0
    if phase == 0:
        while time.monotonic() < until: x += 1
    else:
        while time.monotonic() < until: x += 2
    return x
log = open(sys.argv[2], "w")
end = time.monotonic() + float(sys.argv[1])
k = 0
while time.monotonic() < end:
    t0 = time.monotonic()
    spin(k % 2, t0 + 0.02)
    t1 = time.monotonic()
    log.write(f"{k % 2} {t0:.9f} {t1:.9f}\n")
    k += 1
PY

ran=0
for v in 3.8.18 3.9.18 3.11.7 3.12.1 3.13.0; do
	pyenv_mount "$v" || { note "$v: not installed"; continue; }
	log=$TMP/pub/phases-$v.log
	: >"$log" && chown "$PYUSER" "$log"
	F=$TMP/lines-$v.data
	pyv_record "$F" "$TMP/pub/lines.py" 4 "$log"
	# samples lost on a loaded host make perf warn ("lost N chunks"): nothing else may
	"$PERF" script --ns -i "$F" -F time,ip,sym >"$TMP/script-$v.txt" 2>"$TMP/perf.err" ||
		fail "perf script exited $?: $(head -c 2000 "$TMP/perf.err")"
	! grep -v -e '^Warning:$' -e '^Processed [0-9]* events and lost [0-9]* chunks!$' -e '^Check IO/CPU overload!$' \
		-e '^$' "$TMP/perf.err" | grep -q . || fail "perf script wrote to stderr: $(head -c 2000 "$TMP/perf.err")"
	PYTHONPATH=$(dirname "$0") python3 - "$TMP/script-$v.txt" "$log" <<'PY' || fail "$v: spin() shown at the other phase's line"
import bisect, re, sys
from script_samples import samples
phases = sorted((float(t0), float(t1), int(p)) for p, t0, t1 in (l.split() for l in open(sys.argv[2])))
starts = [p[0] for p in phases]
want = {0: 5, 1: 7}
good = wrong = outside = unlined = entry = 0
seen = set()
def judge(t, frames):
    global good, wrong, outside, unlined, entry
    spin = [f for f in frames if f.startswith("spin (") and "lines.py:" in f]
    if not spin:
        return
    m = re.search(r"lines\.py:(\d+)\)", spin[0])
    if not m:
        unlined += 1
        return
    line = int(m.group(1))
    i = bisect.bisect_right(starts, t) - 1
    if i < 0 or t > phases[i][1]:
        outside += 1
        return
    seen.add(line)
    if line == want[phases[i][2]]:
        good += 1
    elif line == want[1 - phases[i][2]]:
        wrong += 1
        print(f"# at {t:.9f}, phase {phases[i][2]} [{phases[i][0]:.9f}, {phases[i][1]:.9f}]: " + "; ".join(frames[:6]))
    else:
        entry += 1              # lines 2-4, which every call runs first, and 8
for t, frames in samples(sys.argv[1]):
    judge(t, frames)
print(f"# {len(phases)} phases; samples of spin() at their phase's line: {good}, at the other's: {wrong}; "
      f"at the lines each call runs (2-4, 8): {entry}; with no line (def N): {unlined}; outside any phase: {outside}")
sys.exit(1 if wrong or good < 1000 or not {5, 7} <= seen else 0)
PY
	ran=$((ran + 1))
done
[ "$ran" -gt 0 ] || skip "no pyenv 3.8, 3.9, 3.11, 3.12 or 3.13 installed under $PYENV_VERSIONS"
pass "$ran build(s): no sample of spin() at the other phase's line"
