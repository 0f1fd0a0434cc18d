#!/usr/bin/env bash
# pyenv's CPython 3.13.0 is pinned by a table of its eval function's machine code
# (src/python/code_pins_313.inc, docs/DESIGN.md "Python frames"): the table is what
# scripts/python-eval-pins makes of that build today, and where it says rbp is the
# frame and r15 - k the running instruction, the process agrees: at each pc of the
# eval function a recording of the pure-Python loop sampled, gdb compares them with
# the thread state's current frame and its instr_ptr (eval_pins_check.py), over >= 50
# pcs, none wrong.  The same library with another build id has no table: its stack
# copy pins nothing, and its frames are its chains read at the sample instant alone
# (the summary says so, and why).  SKIP without that build, gdb or objdump.
. "$(dirname "$0")/nodebug.sh"
. "$(dirname "$0")/../lib.sh"
require_root
SRC=$(cd "$(dirname "$0")/../../.." && pwd)
INC=$SRC/src/python/code_pins_313.inc
LIB=${PYENV_ROOT:-/root/.pyenv}/versions/3.13.0/lib/libpython3.13.so.1.0
PY=${PYENV_ROOT:-/root/.pyenv}/versions/3.13.0/bin/python3.13
command -v gdb >/dev/null && command -v objdump >/dev/null || skip "no gdb or objdump"
[ -x "$PY" ] && [ -e "$LIB" ] || skip "no pyenv 3.13.0"
id=$(sed -nE 's/^#define EVAL_PINS_BUILD_ID "([0-9a-f]+)"/\1/p' "$INC")
readelf -n "$LIB" | grep -q "Build ID: $id" || skip "pyenv 3.13.0 of another build than the table's ($id)"

"$SRC/scripts/python-eval-pins" "$LIB" >"$TMP/table.inc" 2>"$TMP/gen.err" || fail "python-eval-pins: $(cat "$TMP/gen.err")"
note "$(sed "s/^# //" "$TMP/gen.err")"
cmp -s "$TMP/table.inc" "$INC" || fail "the table kept is not what python-eval-pins makes of the build: $(diff "$TMP/table.inc" "$INC" | head -5)"

cat >"$TMP/spin.py" <<'PY'
import sys, time
def sixty(n):
    x = 0
    for i in range(n): x += i
def ten(n):
    x = 0
    for i in range(n): x += i
end = time.time() + float(sys.argv[1])
while time.time() < end:
    sixty(6000); ten(1000)
PY
export LD_LIBRARY_PATH=${LIB%/*}
"$PROF" record --call-graph dwarf -F 2000 -o "$TMP/spin.data" -- "$PY" "$TMP/spin.py" 2 >/dev/null 2>"$TMP/rec.err" ||
	fail "prof record: $(tail -3 "$TMP/rec.err")"
# the eval function's pcs in the samples (leaves and callers' return addresses): perf
# script gives them as offsets in libpython
"$PERF" script -i "$TMP/spin.data" -F ip,sym,dso 2>/dev/null |
	awk '/libpython3\.13/ && /_PyEval_EvalFrameDefault/ {print $1}' | sort -u >"$TMP/pcs"
[ "$(wc -l <"$TMP/pcs")" -ge 50 ] || fail "only $(wc -l <"$TMP/pcs") pcs of the eval function sampled"

"$PY" "$TMP/spin.py" 30 &
pid=$!
cleanup_hooks+=("kill $pid 2>/dev/null")
sleep 0.5
PINS_INC=$INC PCS=$TMP/pcs timeout 240 gdb -batch -nx -p "$pid" -ex "set pagination off" \
	-ex "source $(dirname "$0")/eval_pins_check.py" >"$TMP/gdb.out" 2>&1 || true
grep '^# ' "$TMP/gdb.out" | head -20
read -r checked fbad ibad unpinned < <(sed -nE 's/^checked ([0-9]+) frame-bad ([0-9]+) instr-bad ([0-9]+) unpinned ([0-9]+)$/\1 \2 \3 \4/p' "$TMP/gdb.out")
[ -n "${checked:-}" ] || fail "gdb: $(grep -iE 'error|warning: [^A]' "$TMP/gdb.out" | head -5)"
note "$checked pcs of the table checked in the process, $unpinned sampled pcs it does not pin"
[ "$fbad" = 0 ] && [ "$ibad" = 0 ] || fail "$fbad pcs with another frame, $ibad with another instruction than the table's"
[ "$checked" -ge 50 ] || fail "only $checked pcs reached"

# the same library with another build id (one byte of it changed): no table, refused
mkdir -p "$TMP/other"
python3 - "$LIB" "$TMP/other/${LIB##*/}" "$id" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
i = b.find(bytes.fromhex(sys.argv[3]))
assert i > 0 and b.find(bytes.fromhex(sys.argv[3]), i + 1) < 0
b[i + 19] ^= 1
open(sys.argv[2], "wb").write(b)
PY
LD_LIBRARY_PATH=$TMP/other "$PROF" record --call-graph dwarf -F 1000 -o "$TMP/other.data" -- "$PY" "$TMP/spin.py" 1 \
	>/dev/null 2>"$TMP/other.err" || fail "prof record: $(tail -3 "$TMP/other.err")"
why="its DWARF gives the instruction no location by pc; no pins from its code"
grep -q "^prof: Python: .*; read: 1 by their chain read at the sample instant alone, no pins ($why)$" "$TMP/other.err" ||
	fail "another build of 3.13.0 not read by its chain alone: $(grep Python "$TMP/other.err")"
"$PROF" report -i "$TMP/other.data" -F folded -g 2>/dev/null | grep -q 'sixty_(.*spin\.py' ||
	fail "no Python frames for another build read by its chain"
note "another build id: $(sed -nE 's/^prof: Python: (.*samples of.*); read: .*/\1/p' "$TMP/other.err")"
pass "the table is the build's, the process agrees with it at $checked pcs, and another build is read by its chain"
