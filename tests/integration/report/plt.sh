#!/usr/bin/env bash
# Samples in PLT stubs are named as perf names them, X@plt, from the object's
# .rela.plt and the GOT slot each stub jumps through: a lazy-binding .plt (perf
# names it, prof's counts must be perf's) and an IBT .plt.sec (perf 6.1 shows raw
# addresses there: prof's labs@plt count must be the samples perf shows in that
# stub).  Never _init, the size-0 symbol before them that used to run over them.
. "$(dirname "$0")/../lib.sh"
require_root
require_perf
command -v gcc >/dev/null || skip "needs gcc"

src=$(cd "$(dirname "$0")/../../programs" && pwd)/plt_hot.c
gcc -O1 -fno-builtin -o "$TMP/plt-lazy" "$src" || fail "gcc (lazy .plt)"
gcc -O1 -fno-builtin -fcf-protection=full -Wl,-z,ibtplt,-z,now -o "$TMP/plt-sec" "$src" || fail "gcc (.plt.sec)"
readelf -SW "$TMP/plt-sec" | grep -q '\.plt\.sec' || skip "this linker made no .plt.sec (-z ibtplt)"

for v in lazy sec; do
	"$PERF" record -q -o "$TMP/$v.data" -- "$TMP/plt-$v" 1 >/dev/null 2>&1 || fail "perf record plt-$v"
	"$PROF" report -i "$TMP/$v.data" --sort sym -F json >"$TMP/$v.json" 2>"$TMP/err" || fail "prof report $v: $(cat "$TMP/err")"
	perf_clean "$TMP/$v.perf" report -i "$TMP/$v.data" --stdio --no-children --sort sym -g none -F sample,sym -t '|'
done
# the labs stub of the .plt.sec binary, by its jmp's GOT slot (objdump names it)
range=$(objdump -d -j .plt.sec "$TMP/plt-sec" | awk '/^[0-9a-f]+ <labs@plt>:/ { print $1 }')
[ -n "$range" ] || fail "objdump names no labs@plt in .plt.sec: $(objdump -d -j .plt.sec "$TMP/plt-sec" | head)"

python3 - "$TMP" "$range" <<'PY' || fail "PLT stubs named unlike perf"
import json, sys
tmp, stub = sys.argv[1], int(sys.argv[2], 16)
def prof(v):
    return {r["sym"]: r["samples"] for r in json.load(open(f"{tmp}/{v}.json"))["rows"]}
def perf(v):
    rows = {}
    for line in open(f"{tmp}/{v}.perf"):
        f = line.rstrip("\n").split("|")
        if len(f) >= 2 and f[0].strip().isdigit():
            s = f[1].strip()
            s = s[4:] if s[:4] in ("[.] ", "[k] ") else s
            rows[s] = rows.get(s, 0) + int(f[0])
    return rows
for v in ("lazy", "sec"):
    p = prof(v)
    assert "_init" not in p, f"{v}: prof names {p['_init']} samples _init"
    assert p.get("labs@plt", 0) >= 100, f"{v}: prof's labs@plt has {p.get('labs@plt', 0)} samples: {p}"
lazy_p, lazy_q = prof("lazy"), perf("lazy")
for sym in ("labs@plt", "labs", "main"):
    assert lazy_p.get(sym) == lazy_q.get(sym), f"lazy: {sym}: prof {lazy_p.get(sym)}, perf {lazy_q.get(sym)}"
sec_p, sec_q = prof("sec"), perf("sec")
raw = sum(n for s, n in sec_q.items() if s.startswith("0x") and stub <= int(s, 16) < stub + 16)
assert sec_p["labs@plt"] == raw, f".plt.sec: prof's labs@plt {sec_p['labs@plt']}, perf's samples in the stub {raw}"
print(f"lazy: labs@plt {lazy_p['labs@plt']} = perf's; .plt.sec: labs@plt {sec_p['labs@plt']} = perf's {raw} at {stub:#x}")
PY
pass "PLT stubs: X@plt as perf names them (.plt), the stub's own samples (.plt.sec), never _init"
