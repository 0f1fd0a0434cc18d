#!/usr/bin/env bash
# --call-graph dwarf: stacks of code without frame pointers (a C program and its
# shared library built with -O2 -fomit-frame-pointer here, and Debian's python3)
# are complete down to _start (through __libc_start_call_main, which only libc's
# debug symbols name: without libc6-dbg it is [unknown]); perf script reads the same
# stacks from prof's file as prof report; nothing is lost at -F 1000; tasks that exit
# or exec before their samples are unwound (prof unwinds >= 50 ms after a sample)
# unwind all the same, and are no error; prof top --call-graph dwarf shows the same
# complete chains in its rows.
. "$(dirname "$0")/../lib.sh"
require_root
require_perf
command -v gcc >/dev/null || skip "needs gcc"
command -v python3 >/dev/null || skip "needs python3"
src=$(cd "$(dirname "$0")/../../programs" && pwd)

gcc -O2 -fomit-frame-pointer -fPIC -shared -o "$TMP/libprof-nofp.so" "$src/nofp_lib.c" || fail "build the library"
gcc -O2 -fomit-frame-pointer -o "$TMP/prof-nofp" "$src/nofp_main.c" -L"$TMP" -lprof-nofp -Wl,-rpath,"$TMP" ||
	fail "build the program"
NOFP=$TMP/prof-nofp
cat >"$TMP/work.py" <<'PY'
import os, sys, time
def leaf(n):
    s = 0
    for i in range(n):
        s += i * i
    return s
def middle(n):
    return leaf(n)
end = time.time() + float(sys.argv[1])
while time.time() < end:
    middle(5000)
if len(sys.argv) > 2:
    os.execv(sys.argv[2], sys.argv[2:])
PY

# perf_folded and prof_folded (lib.sh): perf script's and prof report's stacks, folded;
# perf script shows no inlined frames in a file's call chains (report_inline.sh checks prof's).

# At least MIN of COMM's samples have a stack matching the regex, and perf script
# reads the same stacks for them as prof report.
check_stacks() {
	local what=$1 comm=$2 re=$3 min=$4
	PYTHONPATH=$LIB_DIR python3 - "$TMP/perf.folded" "$TMP/prof.folded" "$comm" "$re" "$min" <<'PY' || fail "$what: stacks incomplete or perf and prof disagree"
import collections, re, sys
from perf_folded import load
# perf 6.1 names a PLT stub after the symbol before it (_init in Debian's python3,
# whose .plt.sec it does not synthesize names for), or X@plt (a .plt it does);
# prof names every stub X@plt, as perf's .plt ones: the same frame, named alike
# here on both sides so the callchains are compared, not the namings.  Python
# frames (where prof pins them: python/*.sh check them) are left out on both sides,
# and a native frame they stood between is one: a leaf activation's Python frame
# is the chain's first entry, which prof report shows below the sampled ip and
# perf script instead of it.
def plt_as_unknown(c):
    out = collections.Counter()
    for k, v in c.items():
        frames = []
        for f in k.split(";"):
            if f.startswith("[python:") or re.search(r"[ _]\(.*:(def[ _])?[0-9]+\)$", f):
                continue
            f = "[unknown]" if f == "_init" or f.endswith("@plt") else f
            if not frames or frames[-1] != f or f == "[unknown]":
                frames.append(f)
        out[";".join(frames)] += v
    return out
perf, prof = plt_as_unknown(load(sys.argv[1])), plt_as_unknown(load(sys.argv[2]))
comm, rx, need = sys.argv[3], re.compile(sys.argv[4]), float(sys.argv[5])
# A process's start (the dynamic loader, execve) and end (exit_group) never reach
# main: short-lived processes on a loaded host get a larger share of them, so they
# are left out of the count on both sides (they are the same in perf and prof).
life = re.compile(r";(_dl_start|__x64_sys_execve|__x64_sys_exit_group|__run_exit_handlers)(;|$)")
def share(c):
    mine = {k: v for k, v in c.items() if k.split(";")[0] == comm and not life.search(k)}
    total = sum(mine.values())
    good = sum(v for k, v in mine.items() if rx.search(k))
    return total, good, {k: v for k, v in mine.items() if rx.search(k)}
pt, pg, pstacks = share(perf)
qt, qg, qstacks = share(prof)
print(f"# {comm}: prof {qg}/{qt} complete, perf {pg}/{pt}")
for k, v in sorted(qstacks.items(), key=lambda kv: -kv[1])[:3]:
    print(f"#   {v:5d} {k}")
if qt == 0 or qg < need * qt:
    print("prof's stacks:"); [print(" ", v, k) for k, v in prof.most_common(8)]
    print(f"prof's incomplete stacks of {comm}:")
    [print(" ", v, k) for k, v in collections.Counter({k: v for k, v in prof.items()
     if k.split(";")[0] == comm and not rx.search(k) and not life.search(k)}).most_common(8)]
    sys.exit(1)
# The callchains are the same; the symbolizers may still name a frame differently,
# so up to 1% of the samples may differ.
keys = set(pstacks) | set(qstacks)
off = sum(abs(pstacks.get(k, 0) - qstacks.get(k, 0)) for k in keys) / 2
if off > 0.01 * max(pg, qg):
    diff = set(pstacks.items()) ^ set(qstacks.items())
    print(f"{off} samples differ:"); [print(" ", d) for d in sorted(diff)[:10]]
    sys.exit(1)
PY
}

# 1. The C program and its library, without frame pointers.
F=$TMP/c.data
"$PROF" record --call-graph dwarf -F 1000 -o "$F" -- "$NOFP" 2 >"$TMP/out" 2>"$TMP/err" ||
	fail "prof record exited $?: $(cat "$TMP/err")"
note "$(cat "$TMP/err")"
grep -q ' 0 lost, ' "$TMP/err" || fail "samples lost: $(cat "$TMP/err")"
grep -q 'user stacks unwound' "$TMP/err" || fail "no unwinding summary: $(cat "$TMP/err")"
perf_folded "$F" "$TMP/perf.folded"
prof_folded "$F" "$TMP/prof.folded"
check_stacks "C program" prof-nofp \
	'^prof-nofp;_start;__libc_start_main[^;]*;(__libc_start_call_main|\[unknown\]);main;app_outer[^;]*;lib_work;(lib_leaf|app_callback)(;|$)' 0.95
pass "C program without frame pointers: complete stacks through its library, same in perf script"

# The file holds callchains, not stack copies: perf reads it as any -g file.
perf_clean "$TMP/hdr" report -i "$F" --header-only
grep -q 'sample_type = .*CALLCHAIN' "$TMP/hdr" || fail "attr lacks CALLCHAIN: $(grep sample_type "$TMP/hdr")"
if grep -q 'sample_type = .*\(REGS_USER\|STACK_USER\)' "$TMP/hdr"; then
	fail "the file's attr still announces registers or stack: $(grep sample_type "$TMP/hdr")"
fi
perf_clean "$TMP/rep" report -i "$F" --stdio --no-children -G --comm prof-nofp -S lib_leaf
grep -qw '_start' "$TMP/rep" || fail "perf report shows no complete stack: $(head -40 "$TMP/rep")"
pass "perf report shows the stacks from the callchains"

# 2. python3 (Debian's: libpython, libc without frame pointers).
F=$TMP/py.data
"$PROF" record --call-graph dwarf -F 1000 -o "$F" -- python3 "$TMP/work.py" 4 >"$TMP/out" 2>"$TMP/err" ||
	fail "prof record exited $?: $(cat "$TMP/err")"
note "$(cat "$TMP/err")"
grep -q ' 0 lost, ' "$TMP/err" || fail "samples lost: $(cat "$TMP/err")"
perf_folded "$F" "$TMP/perf.folded"
prof_folded "$F" "$TMP/prof.folded"
check_stacks "python3" python3 \
	'^python3;_start;__libc_start_main[^;]*;(__libc_start_call_main|\[unknown\]);Py_BytesMain;.*_PyEval_EvalFrameDefault' 0.9
pass "python3: complete stacks to _start, same in perf script"

# 3. Short-lived processes (each gone before its samples are unwound) and one that
# execs from python3 into the C program: each sample unwinds with the maps of its
# time; nothing is an error.
F=$TMP/churn.data
# (python3 runs 3 s: its start-up and teardown, whose stacks do not reach its eval loop,
# stay a small share of its samples even on a loaded host)
cat >"$TMP/churn.sh" <<CHURN
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do "$NOFP" 0.03; done
exec python3 "$TMP/work.py" 3 "$NOFP" 0.5
CHURN
"$PROF" record --call-graph dwarf -F 1000 -o "$F" -- bash "$TMP/churn.sh" >"$TMP/out" 2>"$TMP/err" ||
	fail "prof record exited $?: $(cat "$TMP/err")"
note "$(cat "$TMP/err")"
# (a task of the host that was already running when the recording started and
# exited before prof could read its /proc is counted unattributed: the host's, never
# the workload's, whose every task is forked after the start and checked below)
[ "$(grep -vc -e '^\[ prof record: ' -e '^prof: .* user stacks unwound' -e '^prof: Python: ' \
	-e '^prof: [0-9]* samples unattributed: their task exited before its uid or parent could be read' "$TMP/err")" -eq 0 ] ||
	fail "more than the summary on stderr: $(cat "$TMP/err")"
perf_folded "$F" "$TMP/perf.folded"
prof_folded "$F" "$TMP/prof.folded"
check_stacks "exited and exec'd" prof-nofp \
	'^prof-nofp;_start;__libc_start_main[^;]*;(__libc_start_call_main|\[unknown\]);main;app_outer[^;]*;lib_work;(lib_leaf|app_callback)(;|$)' 0.9
check_stacks "before the exec" python3 \
	'^python3;_start;__libc_start_main[^;]*;(__libc_start_call_main|\[unknown\]);Py_BytesMain;.*_PyEval_EvalFrameDefault' 0.9
pass "tasks that exit or exec before their samples are unwound: complete stacks, no error"

# 4. prof top shares the session, and with it the unwinding: its rows' chains of
# the C program are as complete as the recording's (>= 90 % of its samples).
# Without libc6-dbg (a fresh Debian 12) top names libc's local frame
# "[unknown] (libc.so.6)", the object it is in.
"$NOFP" 20 &
nofp=$!
cleanup_hooks+=("kill $nofp 2>/dev/null")
sleep 0.3
"$PROF" top --pid "$nofp" --call-graph dwarf -F 1000 --stdio -d 2 -n 1 --rows 100000 >"$TMP/top" 2>"$TMP/err" ||
	fail "prof top --call-graph dwarf exited $?: $(cat "$TMP/err")"
kill "$nofp" 2>/dev/null
python3 - "$TMP/top" <<'PY' || fail "prof top's chains are not complete: $(head -c 3000 "$TMP/top")"
import re, sys
rx = re.compile(r"(lib_leaf|app_callback) <- lib_work <- app_outer\S* <- main <- (__libc_start_call_main|\[unknown\] \(libc\.so\.6\)) <- "
                r"__libc_start_main\S* <- _start$")
total = good = 0
for line in open(sys.argv[1]):
    m = re.match(r"^ +[0-9.]+% +(\d+)  .*  (\S.*)$", line.rstrip())
    if m:
        total += int(m.group(1))
        good += int(m.group(1)) if rx.search(line.rstrip()) else 0
print(f"# prof top: {good} of {total} samples with the complete chain")
sys.exit(0 if total >= 200 and good >= 0.9 * total else 1)
PY
pass "prof top --call-graph dwarf: complete chains, as prof record's"
