#!/usr/bin/env bash
# prof top names a live task's vDSO functions from its own image (the same kernel,
# the same build id): a clock_gettime loop shows __vdso_clock_gettime in [vdso],
# not [unknown] ([vdso]), and with --call-graph dwarf spin_clock calls it.
. "$(dirname "$0")/../lib.sh"
require_root
command -v gcc >/dev/null || skip "needs gcc"
grep -q '\[vdso\]' /proc/self/maps || skip "no vDSO here (vdso=0?)"
src=$(cd "$(dirname "$0")/../../programs" && pwd)/vdso_loop.c
gcc -O2 -g -o "$TMP/vdso-loop" "$src" || fail "gcc vdso_loop.c"
# no cache of this kernel's image: top must name it from its own
export HOME=$TMP/home
mkdir -p "$HOME"

"$TMP/vdso-loop" 30 &
L=$!
cleanup_hooks+=("kill $L 2>/dev/null")
sleep 0.3
"$PROF" top -p "$L" --stdio -d 1 -n 2 --rows 20 >"$TMP/fp" 2>"$TMP/err" || fail "prof top: $(cat "$TMP/err")"
grep -qE '\[vdso\] +\[\.\] __vdso_clock_gettime$' "$TMP/fp" || fail "no __vdso_clock_gettime row: $(cat "$TMP/fp")"
grep -qF '[unknown] ([vdso])' "$TMP/fp" && fail "[vdso] left unknown: $(cat "$TMP/fp")"
"$PROF" top -p "$L" --stdio -d 1 -n 2 --rows 20 --call-graph dwarf >"$TMP/dw" 2>"$TMP/err" ||
	fail "prof top --call-graph dwarf: $(cat "$TMP/err")"
grep -qE '\[vdso\] +__vdso_clock_gettime <- clock_gettime[^ ]* <- spin_clock <- main' "$TMP/dw" ||
	fail "no stack with spin_clock calling __vdso_clock_gettime: $(head -30 "$TMP/dw")"
[ -d "$HOME/.debug" ] && fail "prof top wrote into the build-id cache: $(find "$HOME/.debug" | head)"
pass "prof top names the live vDSO from its own image, and unwinds through it"
