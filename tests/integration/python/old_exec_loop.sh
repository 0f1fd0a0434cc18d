#!/usr/bin/env bash
# python/exec_loop for CPython 3.8-3.10 (pyenv's, full DWARF): functions made by
# exec in a loop, each run for 400 ms and freed before the next, so code objects,
# their names and their frames are reused at the same addresses.  (400 ms, not
# exec_loop's 100: builds pinned by their DWARF are read when unwound, ~65 ms
# after the sample, and a name is proven only by a reading before the sample: a
# function's samples until ~65 ms after its first reading, and those read after
# the next function took its place, are [python: unverified].)  Every sample
# naming one must name the one running then (perf script of prof's file, one
# thread, in time order: the I named never goes down, and is in the program's
# log).  3.10's frames are mostly named without a pinned instruction, by the code
# object their pinned frame holds, proven by time at the frame's address
# (frame_old.h): the case this checks hardest.  Versions not installed are
# skipped; none: SKIP.
. "$(dirname "$0")/pyenv.sh"
require_perf
cat >"$TMP/pub/exec_loop.py" <<'PY'
import gc, sys, time
log = open(sys.argv[2], "w")
end = time.process_time() + float(sys.argv[1])
i = 0
while time.process_time() < end:
    ns = {}
    exec(f"def exec_fn_{i}(t):\n    e = t() + 0.4\n    while t() < e: pass\n", ns)
    ns[f"exec_fn_{i}"](time.process_time)
    log.write(f"{i}\n")
    del ns
    gc.collect(0)
    i += 1
PY
ran_versions=0
for v in 3.10.13 3.8.18; do
	pyenv_mount "$v" || { note "$v: not installed"; continue; }
	log=$TMP/pub/exec-$v.log
	: >"$log" && chown "$PYUSER" "$log" || fail "log"
	F=$TMP/exec-$v.data
	pyv_record "$F" "$TMP/pub/exec_loop.py" 6 "$log"
	# records lost on a loaded host (-F 4000 with stack copies) are counted, never
	# named: perf script's warning about them is the only word it may say
	"$PERF" script -i "$F" -F tid,time,ip,sym >"$TMP/script-$v.txt" 2>"$TMP/perf.err" ||
		fail "$v: perf script exited $?: $(head -c 2000 "$TMP/perf.err")"
	! grep -vE '^(Warning:|Processed [0-9]+ events and lost [0-9]+ chunks!|Check IO/CPU overload!|=+|)$' "$TMP/perf.err" ||
		fail "$v: perf script wrote to stderr: $(head -c 2000 "$TMP/perf.err")"
	python3 - "$TMP/script-$v.txt" "$log" <<'PY' || fail "$v: a function named that was not running"
import re, sys
ran = [int(l) for l in open(sys.argv[2])]
samples = back = unknown = 0
last = -1
for block in open(sys.argv[1]).read().split("\n\n"):
    names = re.findall(r"exec_fn_(\d+) \(<string>:(?:def )?\d+\)", block)
    if not names:
        continue
    samples += 1
    i = int(names[0])
    if len(set(names)) > 1 or i not in ran:
        unknown += 1
        print("# not in the log or two at once:", names)
    if i < last:
        back += 1
        if back < 5:
            print(f"# exec_fn_{i} named after exec_fn_{last}")
    last = max(last, i)
print(f"# {len(ran)} functions made and run, {samples} samples name one; "
      f"{back} name one that ended before an earlier sample's, {unknown} one never run")
if back or unknown or samples < 4000 or len(ran) < 12:
    sys.exit(1)
PY
	ran_versions=$((ran_versions + 1))
done
[ "$ran_versions" -gt 0 ] || skip "neither 3.10 nor 3.8 installed under $PYENV_VERSIONS"
pass "$ran_versions version(s): every sample of an exec'd function names the one running then"
