#!/usr/bin/env bash
# The line of exec'd code whose address is reused: each round execs a new f() with
# 0, 3 or 6 blank lines before its body (so its loop is on line 3, 6 or 9 and the
# line before it on 2, 5 or 8), runs it for 150 ms and frees it; the next f is made
# at the same addresses (code object, qualname and file strings alike: the same
# name, file and def line), only its line table differs.  A line table kept by its
# address would name the previous f's lines.  prof uses a line only when the same
# table bytes were read at that instruction before the sample, so no sample may show
# f() at a line of another round's body, over >= 300 samples with a line, each
# round kind seen.  For each pyenv build prof pins lines in (3.11, 3.12, 3.13) installed
# here; none installed: SKIP.
. "$(dirname "$0")/pyenv.sh"
require_perf
cat >"$TMP/pub/exec_lines.py" <<'PY'
import gc, sys, time
log = open(sys.argv[2], "w")
end = time.monotonic() + float(sys.argv[1])
r = 0
while time.monotonic() < end:
    k = 3 * (r % 3)
    ns = {}
    exec("def f(until):\n" + "\n" * k + "    x = 0\n    while time.monotonic() < until: x += 1\n",
         {"time": time}, ns)
    t0 = time.monotonic()
    ns["f"](t0 + 0.15)
    t1 = time.monotonic()
    log.write(f"{k} {t0:.9f} {t1:.9f}\n")
    del ns
    gc.collect(0)
    r += 1
PY

ran=0
for v in 3.11.7 3.12.1 3.13.0; do
	pyenv_mount "$v" || { note "$v: not installed"; continue; }
	log=$TMP/pub/rounds-$v.log
	: >"$log" && chown "$PYUSER" "$log"
	F=$TMP/exec-lines-$v.data
	pyv_record "$F" "$TMP/pub/exec_lines.py" 5 "$log"
	"$PERF" script --ns -i "$F" -F time,ip,sym >"$TMP/script-$v.txt" 2>"$TMP/perf.err" ||
		fail "perf script exited $?: $(head -c 2000 "$TMP/perf.err")"
	PYTHONPATH=$(dirname "$0") python3 - "$TMP/script-$v.txt" "$log" <<'PY' || fail "$v: f() shown at a line of another round's body"
import bisect, re, sys
from script_samples import samples
rounds = sorted((float(t0), float(t1), int(k)) for k, t0, t1 in (l.split() for l in open(sys.argv[2])))
starts = [r[0] for r in rounds]
good = wrong = outside = unlined = 0
seen = set()
def judge(t, frames):
    global good, wrong, outside, unlined
    f = [x for x in frames if x.startswith("f (<string>")]
    if not f:
        return
    m = re.search(r"<string>:(\d+)\)", f[0])
    if not m:
        unlined += 1
        return
    line = int(m.group(1))
    i = bisect.bisect_right(starts, t) - 1
    if i < 0 or t > rounds[i][1]:
        outside += 1
        return
    k = rounds[i][2]
    if line in (2 + k, 3 + k):
        good += 1
        seen.add(k)
    else:
        wrong += 1
        print(f"# at {t:.9f}, round k={k} [{rounds[i][0]:.9f}, {rounds[i][1]:.9f}]: line {line}: " + "; ".join(frames[:3]))
for t, frames in samples(sys.argv[1]):
    judge(t, frames)
print(f"# {len(rounds)} rounds; samples of f() at their round's lines: {good}, at another's: {wrong}; "
      f"with no line (def N): {unlined}; outside any round: {outside}")
sys.exit(1 if wrong or good < 300 or seen != {0, 3, 6} else 0)
PY
	ran=$((ran + 1))
done
[ "$ran" -gt 0 ] || skip "no pyenv 3.11, 3.12 or 3.13 installed under $PYENV_VERSIONS"
pass "$ran build(s): no sample of exec'd f() at a line of another round's body"
