#!/usr/bin/env bash
# Samples in the vDSO are named as perf names them (__vdso_clock_gettime), from the
# image prof record keeps in the build-id cache (~/.debug/[vdso]/<id>/vdso, perf's
# layout) and names "[vdso]" in the build-id table: prof report's counts are perf
# report's on the same file, and perf finds the image by that entry too.  With
# --call-graph dwarf the vDSO's CFI unwinds its frame: the loop's function is above
# __vdso_clock_gettime in >= 90 % of those samples.  A file whose [vdso] build id
# is in no cache and is not this kernel's shows [unknown] ([vdso]), never this
# kernel's image.  A 32-bit task's vDSO (another image, also mapped as [vdso],
# below 4 GiB) recorded beside a 64-bit one is never named with the 64-bit image's
# symbols: [unknown] ([vdso]) (perf names it [vdso32] from its own 32-bit helper);
# that part is skipped where gcc cannot build a 32-bit program.
. "$(dirname "$0")/../lib.sh"
require_root
require_perf
command -v gcc >/dev/null || skip "needs gcc"
grep -q '\[vdso\]' /proc/self/maps || skip "no vDSO here (vdso=0?)"

src=$(cd "$(dirname "$0")/../../programs" && pwd)/vdso_loop.c
gcc -O2 -g -o "$TMP/vdso-loop" "$src" || fail "gcc vdso_loop.c"
# a cache of the test's own: the entry is made by this recording, and found by it
export HOME=$TMP/home
mkdir -p "$HOME"

"$PROF" record -q -g -o "$TMP/fp.data" -- "$TMP/vdso-loop" 1 2>"$TMP/err" || fail "prof record -g: $(cat "$TMP/err")"
perf_clean "$TMP/ids" buildid-list -i "$TMP/fp.data"
id=$(awk '$2 == "[vdso]" { print $1 }' "$TMP/ids")
[ -n "$id" ] || fail "no [vdso] entry in the build-id table: $(cat "$TMP/ids")"
[ -f "$HOME/.debug/[vdso]/$id/vdso" ] || fail "no image at ~/.debug/[vdso]/$id/vdso: $(find "$HOME/.debug" | head)"
[ "$(readlink "$HOME/.debug/.build-id/${id:0:2}/${id:2}")" = "../../[vdso]/$id" ] ||
	fail "the .build-id link of $id is not perf's: $(ls -l "$HOME/.debug/.build-id/${id:0:2}")"
readelf -n "$HOME/.debug/[vdso]/$id/vdso" | grep -q "Build ID: $id" || fail "the kept image has another build id"

"$PROF" report -i "$TMP/fp.data" --sort sym -F json >"$TMP/fp.json" 2>"$TMP/err" || fail "prof report: $(cat "$TMP/err")"
perf_clean "$TMP/fp.perf" report -i "$TMP/fp.data" --stdio --no-children --sort sym -g none -F sample,sym -t '|'

"$PROF" record -q --call-graph dwarf -o "$TMP/dw.data" -- "$TMP/vdso-loop" 1 2>"$TMP/err" ||
	fail "prof record --call-graph dwarf: $(cat "$TMP/err")"
"$PROF" report -i "$TMP/dw.data" -F folded -g --no-inline >"$TMP/dw.folded" 2>"$TMP/err" || fail "prof report -g: $(cat "$TMP/err")"
# perf's own dwarf recording, unwound by prof report (the image by perf's [vdso] entry)
"$PERF" record -q --call-graph dwarf -o "$TMP/perf-dw.data" -- "$TMP/vdso-loop" 1 >/dev/null 2>&1 ||
	fail "perf record --call-graph dwarf"
"$PROF" report -i "$TMP/perf-dw.data" -F folded -g --no-inline >"$TMP/perf-dw.folded" 2>"$TMP/err" ||
	fail "prof report -g of perf's file: $(cat "$TMP/err")"

# the same file, its [vdso] build id changed to one no cache has
python3 - "$TMP/fp.data" "$TMP/other.data" "$id" <<'PY' || fail "rewriting the build id"
import sys
d = open(sys.argv[1], "rb").read()
bid = bytes.fromhex(sys.argv[3])
assert d.count(bid) == 1, d.count(bid)
open(sys.argv[2], "wb").write(d.replace(bid, bytes(b ^ 0x5a for b in bid)))
PY
"$PROF" report -i "$TMP/other.data" --sort sym -F json >"$TMP/other.json" 2>"$TMP/other.err" ||
	fail "prof report (other build id): $(cat "$TMP/other.err")"

python3 - "$TMP" <<'PY' || fail "the vDSO's samples named unlike perf, or unwound short"
import json, sys
tmp = sys.argv[1]
def prof(f):
    return {r["sym"]: r["samples"] for r in json.load(open(f"{tmp}/{f}"))["rows"]}
def perf(f):
    rows = {}
    for line in open(f"{tmp}/{f}"):
        f = line.rstrip("\n").split("|")
        if len(f) >= 2 and f[0].strip().isdigit():
            s = f[1].strip()
            s = s[4:] if s[:4] in ("[.] ", "[k] ") else s
            rows[s] = rows.get(s, 0) + int(f[0])
    return rows
p, q = prof("fp.json"), perf("fp.perf")
n = p.get("__vdso_clock_gettime", 0)
total = sum(p.values())
assert n >= total // 4, f"__vdso_clock_gettime has {n} of {total} samples: {p}"
assert "[unknown] ([vdso])" not in p, f"[vdso] samples left unknown: {p}"
assert n == q.get("__vdso_clock_gettime"), f"prof {n}, perf {q.get('__vdso_clock_gettime')}: {q}"
# dwarf: the loop's function above the vDSO's, prof's recording and perf's
def under(f):
    leaf = above = 0
    for line in open(f"{tmp}/{f}"):
        stack, c = line.rsplit(" ", 1)
        fr = stack.split(";")
        if fr[-1] == "__vdso_clock_gettime":
            leaf += int(c)
            if "spin_clock" in fr[:-1]:
                above += int(c)
    assert leaf >= 100, f"{f}: only {leaf} dwarf samples end in __vdso_clock_gettime"
    assert above >= 0.9 * leaf, f"{f}: spin_clock above __vdso_clock_gettime in {above} of {leaf}"
    return leaf, above
leaf, above = under("dw.folded")
pleaf, pabove = under("perf-dw.folded")
o = prof("other.json")
assert "__vdso_clock_gettime" not in o, f"another build id's [vdso] named from this kernel's image: {o}"
assert o.get("[unknown] ([vdso])", 0) == n, f"[unknown] ([vdso]) {o.get('[unknown] ([vdso])')} of {n}"
print(f"-g: __vdso_clock_gettime {n} of {total} = perf's; dwarf: spin_clock above it in {above} of {leaf} "
      f"(perf's file: {pabove} of {pleaf}); "
      f"another build id: {o['[unknown] ([vdso])']} [unknown] ([vdso])")
PY
grep -q '\[vdso\]: no image of build id' "$TMP/other.err" || fail "the report did not say why [vdso] is unknown: $(cat "$TMP/other.err")"

src32=$(dirname "$src")/vdso32_loop.c
if gcc -m32 -O2 -static -nostdlib -ffreestanding -fno-pic -fno-stack-protector -o "$TMP/vdso32-loop" "$src32" 2>"$TMP/gcc.err" &&
	"$TMP/vdso32-loop" 0; then
	"$PROF" record -q -o "$TMP/mix.data" -- sh -c "'$TMP/vdso-loop' 1 & '$TMP/vdso32-loop' 2; wait" 2>"$TMP/err" ||
		fail "prof record (32 and 64-bit): $(cat "$TMP/err")"
	"$PROF" report -i "$TMP/mix.data" --sort comm,sym -F json >"$TMP/mix.json" 2>"$TMP/err" || fail "prof report: $(cat "$TMP/err")"
	python3 - "$TMP/mix.json" <<'PY' || fail "a 32-bit task's vDSO named with the 64-bit image's symbols"
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
v32 = {r["sym"]: r["samples"] for r in rows if r["comm"] == "vdso32-loop" and r["dso"] == "[vdso]"}
v64 = {r["sym"]: r["samples"] for r in rows if r["comm"] == "vdso-loop" and r["dso"] == "[vdso]"}
assert list(v32) == ["[unknown] ([vdso])"] and v32["[unknown] ([vdso])"] >= 100, f"32-bit: {v32}"
assert v64.get("__vdso_clock_gettime", 0) >= 100, f"64-bit, the same recording: {v64}"
print(f"32-bit task: {v32['[unknown] ([vdso])']} [unknown] ([vdso]); 64-bit beside it: {v64['__vdso_clock_gettime']} __vdso_clock_gettime")
PY
else
	note "no 32-bit build here ($(head -c 200 "$TMP/gcc.err")): the 32-bit part skipped"
fi
pass "[vdso] named as perf names it, by build id only; its frames unwound with its CFI"
