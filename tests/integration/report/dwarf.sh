#!/usr/bin/env bash
# prof report of perf record --call-graph dwarf files: the samples' user stack
# copies are unwound in the report (prof's unwinder, the report's map model, the
# objects found by build id), so stacks are complete and the same as perf script's:
# a C program without frame pointers spending its time in Debian's libz, Debian's
# python3, and a library rebuilt at its path after the recording (its recorded copy
# is in perf's build-id cache, where prof finds it by build id).
. "$(dirname "$0")/../lib.sh"
require_root
require_perf
command -v gcc >/dev/null || skip "needs gcc"
[ -x /usr/bin/python3 ] || skip "needs Debian's python3"
echo '#include <zlib.h>' | gcc -E - >/dev/null 2>&1 || skip "needs zlib.h (zlib1g-dev)"
export HOME=$TMP        # perf's build-id cache (~/.debug) stays in the test's directory
src=$(cd "$(dirname "$0")/../../programs" && pwd)

ZW=$TMP/prof-zlib
gcc -O2 -fomit-frame-pointer -o "$ZW" "$src/zlib_work.c" -lz || fail "build the zlib program"
gcc -O2 -fomit-frame-pointer -fPIC -shared -o "$TMP/libprof-nofp.so" "$src/nofp_lib.c" || fail "build the library"
gcc -O2 -fomit-frame-pointer -o "$TMP/prof-nofp" "$src/nofp_main.c" -L"$TMP" -lprof-nofp -Wl,-rpath,"$TMP" ||
	fail "build the program"
cat >"$TMP/work.py" <<'PY'
import sys, time, zlib
data = bytes(range(256)) * 4096
end = time.time() + float(sys.argv[1])
while time.time() < end:
    sum(i * i for i in range(5000))
    zlib.compress(data, 6)
PY

record() {
	"$PERF" record -q --call-graph dwarf -F 1000 -o "$1" -- "${@:2}" >"$TMP/out" 2>"$TMP/err" ||
		fail "perf record exited $?: $(cat "$TMP/err")"
}
# Inline expansion is off on both sides: perf script (through addr2line) names a
# frame whose DWARF name differs from its symbol "(inlined)" (glibc's
# __libc_start_main_impl for __libc_start_main), where prof names the symbol; the
# call chains are compared.

# COMM's samples: as many in both, >= 95 % of them with the stack perf script
# reads, and >= MIN of prof's complete (matching the regex).
check_stacks() {
	local what=$1 comm=$2 re=$3 min=$4
	PYTHONPATH=$LIB_DIR python3 - "$TMP/perf.folded" "$TMP/prof.folded" "$comm" "$re" "$min" <<'PY' || fail "$what: stacks incomplete or not perf script's"
import collections, re, sys
from perf_folded import load
# perf 6.1 names a PLT stub after the symbol before it (_init) where it synthesizes
# no stub names (.plt.sec), prof names it X@plt: the same frame, named alike here.
def mine(c, comm):
    out = collections.Counter()
    for k, v in c.items():
        f = k.split(";")
        if f[0] == comm:
            out[";".join("[unknown]" if x == "_init" or x.endswith("@plt") else x for x in f)] += v
    return out
comm, rx, need = sys.argv[3], re.compile(sys.argv[4]), float(sys.argv[5])
perf, prof = mine(load(sys.argv[1]), comm), mine(load(sys.argv[2]), comm)
pt, qt = sum(perf.values()), sum(prof.values())
same = sum(min(v, prof[k]) for k, v in perf.items())
complete = sum(v for k, v in prof.items() if rx.search(k))
print(f"# {comm}: {qt} samples (perf script {pt}); {same} ({100 * same / max(pt, 1):.1f} %) of stacks "
      f"equal to perf script's; {complete} ({100 * complete / max(qt, 1):.1f} %) complete")
for k, v in prof.most_common(3):
    print(f"#   {v:5d} {k}")
bad = pt == 0 or qt != pt or same < 0.95 * pt or complete < need * qt
if bad:
    diff = collections.Counter({k: perf[k] - prof[k] for k in set(perf) | set(prof) if perf[k] != prof[k]})
    print("perf script - prof report:")
    for k, d in sorted(diff.items(), key=lambda kv: -abs(kv[1]))[:10]:
        print(f"  {d:+5d} {k}")
sys.exit(1 if bad else 0)
PY
}
START='_start;__libc_start_main[^;]*;(__libc_start_call_main|\[unknown\])'

# 1. A C program without frame pointers, in libz (its static functions unnamed).
F=$TMP/zlib.data
record "$F" "$ZW" 2
perf_folded "$F" "$TMP/perf.folded" --no-inline
prof_folded "$F" "$TMP/prof.folded"
check_stacks "C program in libz" prof-zlib \
	"^prof-zlib;$START;main;round_trip;(squeeze;compress2;deflate|uncompress;uncompress2;inflate)" 0.9
pass "C program in libz: complete stacks, those of perf script"

# 2. Debian's python3 (libpython, libc, libz without frame pointers).
F=$TMP/py.data
record "$F" /usr/bin/python3 "$TMP/work.py" 3
perf_folded "$F" "$TMP/perf.folded" --no-inline
prof_folded "$F" "$TMP/prof.folded"
check_stacks "python3" python3 "^python3;$START;Py_BytesMain;.*_PyEval_EvalFrameDefault" 0.9
pass "python3: complete stacks, those of perf script"

# 3. The library rebuilt at its path after the recording, another layout (its
# functions 16 KiB further): its CFI is read from the recorded copy that perf
# record kept in the build-id cache, found by build id, never from the new file.
F=$TMP/nofp.data
record "$F" "$TMP/prof-nofp" 2
want=$(readelf -n "$TMP/libprof-nofp.so" | awk '/Build ID:/ { print $3 }')
[ -e "$HOME/.debug/.build-id/${want:0:2}/${want:2}/elf" ] ||
	fail "perf record kept no copy of the library ($want): $(find "$HOME/.debug" -maxdepth 3 | head)"
{ echo '__attribute__((noinline)) void pad(void) { __asm__ volatile(".fill 16384, 1, 0x90"); }'
  cat "$src/nofp_lib.c"; } >"$TMP/v2.c"
gcc -O2 -fomit-frame-pointer -fPIC -shared -o "$TMP/v2.so" "$TMP/v2.c" || fail "build the library's v2"
mv "$TMP/v2.so" "$TMP/libprof-nofp.so"
perf_folded "$F" "$TMP/perf.folded" --no-inline
prof_folded "$F" "$TMP/prof.folded"
check_stacks "library rebuilt" prof-nofp \
	"^prof-nofp;$START;main;app_outer[^;]*;lib_work;(lib_leaf|app_callback)$" 0.9
pass "a library rebuilt since: unwound with its recorded copy, found by build id"

# ... and without that copy, the new file is not used: the stacks stop at the
# library, [unknown] there, and prof says why.
rm -rf "$HOME/.debug"
"$PROF" report -i "$F" -F folded -g --no-inline >"$TMP/pf.raw" 2>"$TMP/err" || fail "prof report: $(cat "$TMP/err")"
grep -q 'libprof-nofp.so: not the file that was recorded' "$TMP/err" || fail "no word of the rebuilt library: $(cat "$TMP/err")"
grep -qE ';(lib_work|lib_leaf|pad)( |;)' "$TMP/pf.raw" && fail "frames named from the rebuilt library: $(grep -E 'lib_work|lib_leaf|pad' "$TMP/pf.raw" | head -3)"
in_lib=$(awk '/^prof-nofp;\[unknown\]_\(libprof-nofp.so\)/ { n += $NF } END { print n + 0 }' "$TMP/pf.raw")
all=$(awk '/^prof-nofp;/ { n += $NF } END { print n + 0 }' "$TMP/pf.raw")
[ "$all" -gt 0 ] && [ "$((in_lib * 10))" -ge "$((all * 9))" ] ||
	fail "$in_lib of $all samples stop at the unknown library: $(head -5 "$TMP/pf.raw")"
pass "a library rebuilt since, its copy gone: [unknown] at the library, never its new file's frames"
