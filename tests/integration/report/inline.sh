#!/usr/bin/env bash
# Inlined frames: prof report expands an address in an object with DWARF debug
# information into its inline chain, as perf shows it ("f (inlined)", the innermost
# first, then the function they are inlined into), with --call-graph dwarf and with
# -g; the chain matches the one perf script --inline prints from perf's own dwarf
# recording of the same program; rows stay the containing function; --no-inline,
# an object without debug information and one with corrupt DWARF show none, and
# are no error.
. "$(dirname "$0")/../lib.sh"
require_root
require_perf
command -v gcc >/dev/null || skip "needs gcc"
command -v python3 >/dev/null || skip "needs python3"
src=$(cd "$(dirname "$0")/../../programs" && pwd)
# perf's build-id cache (~/.debug) stays in the test's directory: the program's build id
# is the same in every run (same source, same build directory), and a cache entry
# of another run's would be read instead of it
export HOME=$TMP

gcc -O2 -g -o "$TMP/prof-inline" "$src/inline_hot.c" || fail "build the program"
P=$TMP/prof-inline
CHAIN='hot_caller;inl_outer_(inlined);inl_inner_(inlined)'
CHAIN_RE='hot_caller;inl_outer_\(inlined\);inl_inner_\(inlined\)'

# Share of the prof-inline samples of a folded file whose stack matches a regex.
share() {
	python3 - "$1" "$2" <<'PY'
import re, sys
tot = hit = 0
for line in open(sys.argv[1]):
    k, _, n = line.rstrip("\n").rpartition(" ")
    if not k.startswith("prof-inline;"):
        continue
    tot += int(n)
    if re.search(sys.argv[2], k):
        hit += int(n)
print("%.3f" % (hit / tot if tot else 0))
PY
}
at_least() { python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) >= float(sys.argv[2]) else 1)" "$1" "$2"; }
report() {
	"$PROF" report "$@" 2>"$TMP/err" || fail "prof report $* exited $?: $(cat "$TMP/err")"
	[ -s "$TMP/err" ] && fail "prof report $* wrote to stderr: $(cat "$TMP/err")"
	return 0
}

# 1. --call-graph dwarf: the whole stack, the inlined functions under their caller.
"$PROF" record -q --call-graph dwarf -F 1000 -o "$TMP/d.data" -- "$P" 1 || fail "prof record --call-graph dwarf"
report -i "$TMP/d.data" -F folded -g >"$TMP/d.folded"
s=$(share "$TMP/d.folded" "^prof-inline;_start;.*;main;$CHAIN_RE\$")
note "dwarf: $s of the samples end in main;$CHAIN"
at_least "$s" 0.9 || fail "dwarf: only $s of the stacks show the inline chain: $(sort -t' ' -k2 -nr "$TMP/d.folded" | head -5)"
pass "--call-graph dwarf: main;$CHAIN"

# 2. The same chain as perf's own dwarf recording, read by perf script --inline.
perf record -q --call-graph dwarf -F 1000 -o "$TMP/p.data" -- "$P" 1 >/dev/null 2>&1 || fail "perf record"
perf_chain() {
	perf_lost_ok=1 perf_clean "$TMP/p.script" script -i "$TMP/p.data" -F comm,ip,sym --inline
	python3 - "$TMP/p.script" >"$TMP/p.chain" <<'PY'
import collections, sys
c = collections.Counter()
comm, frames = None, []
def flush():
    if comm == "prof-inline" and "main" in frames:
        under = frames[:frames.index("main")][::-1]
        if any(f.endswith(" (inlined)") for f in under):
            c[";".join(f.replace(" ", "_") for f in under)] += 1
for line in open(sys.argv[1]):
    if not line.strip():
        flush(); comm, frames = None, []
    elif line[0] not in " \t":
        flush(); comm, frames = line.split()[0], []
    else:
        parts = line.split(None, 1)
        frames.append(parts[1].strip() if len(parts) > 1 else "[unknown]")
flush()
print(c.most_common(1)[0][0] if c else "")
PY
}
perf_chain
note "perf script --inline: main;$(cat "$TMP/p.chain")"
[ "$(cat "$TMP/p.chain")" = "$CHAIN" ] || fail "perf's chain under main is '$(cat "$TMP/p.chain")', prof's '$CHAIN'"
pass "perf script --inline shows the same chain on perf's own dwarf recording"

# 3. Frame pointers (-g): the sampled address is expanded too.
"$PROF" record -q -g -F 1000 -o "$TMP/g.data" -- "$P" 1 || fail "prof record -g"
report -i "$TMP/g.data" -F folded -g >"$TMP/g.folded"
s=$(share "$TMP/g.folded" ";$CHAIN_RE\$")
at_least "$s" 0.9 || fail "-g: only $s of the stacks end in $CHAIN: $(sort -t' ' -k2 -nr "$TMP/g.folded" | head -5)"
pass "-g: stacks end in $CHAIN"

# 4. Rows are the function the time is in, as perf report's; text -g, SVG and pprof work.
report -i "$TMP/d.data" -g --comm prof-inline >"$TMP/d.txt"
grep -E '^ +[0-9.]+%' "$TMP/d.txt" | head -n 1 | grep -q '\[\.\] hot_caller$' ||
	fail "the top row is not hot_caller: $(cat "$TMP/d.txt")"
report -i "$TMP/d.data" -g -F svg >"$TMP/d.svg"
grep -qF 'inl_inner_(inlined)' "$TMP/d.svg" || fail "no inlined frame in the SVG"
report -i "$TMP/d.data" -g -F pprof -o "$TMP/d.pb.gz"
pass "rows name hot_caller; the SVG and pprof carry the inlined frames"

# 5. --no-inline, and objects without usable DWARF: no inlined frames, no error.
report -i "$TMP/d.data" -F folded -g --no-inline >"$TMP/n.folded"
grep -q 'inlined' "$TMP/n.folded" && fail "--no-inline shows inlined frames"
s=$(share "$TMP/n.folded" ";main;hot_caller\$")
at_least "$s" 0.9 || fail "--no-inline: stacks do not end in hot_caller ($s)"
# The DWARF overwritten with garbage (the build id, in its note, stays the recorded one),
# in a copy put in its place: perf's build-id cache may hold a hard link to the file.
cp "$P" "$P.new" || fail "copy the program"
python3 - "$P.new" <<'PY' || fail "corrupt the DWARF"
import random, subprocess, sys
out = subprocess.run(["readelf", "-SW", sys.argv[1]], capture_output=True, text=True, check=True).stdout
random.seed(11)
with open(sys.argv[1], "r+b") as f:
    for line in out.splitlines():
        cols = line.replace("[ ", "[").split()
        if len(cols) > 5 and cols[1] in (".debug_info", ".debug_abbrev", ".debug_line", ".debug_rnglists", ".debug_aranges"):
            off, size = int(cols[4], 16), int(cols[5], 16)
            f.seek(off)
            f.write(bytes(random.getrandbits(8) for _ in range(size)))
PY
mv "$P.new" "$P" || fail "replace the program"
# prof report looks in the build-id cache first, and perf's recording above left the
# intact file there: these reports have a cache of their own, empty, so they read
# the damaged file
mkdir -p "$TMP/nocache"
export HOME=$TMP/nocache
report -i "$TMP/d.data" -F folded -g >"$TMP/c.folded"
s=$(share "$TMP/c.folded" ";main;hot_caller\$")
at_least "$s" 0.9 || fail "corrupt DWARF: the stacks lost hot_caller ($s)"
strip --strip-debug "$P" || fail "strip"
report -i "$TMP/d.data" -F folded -g >"$TMP/s.folded"
grep -q 'inl_[a-z]*_(inlined)' "$TMP/s.folded" && fail "inlined frames without debug information"
s=$(share "$TMP/s.folded" ";main;hot_caller\$")
at_least "$s" 0.9 || fail "no debug information: stacks do not end in hot_caller ($s)"
pass "--no-inline, corrupt and stripped DWARF: the containing function, no error"
