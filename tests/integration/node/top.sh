#!/usr/bin/env bash
# prof top --call-graph dwarf names a tenant's JavaScript frames live, as prof record
# does (same walk, same proof; names kept in windows as Python's): shares.js (sixty,
# thirty, outer -> inner spinning 6, 3 and 1 ms of CPU in turn) run by a tenant
# without any flag, viewed with --uid: the rows' innermost functions of shares.js in
# shares 60/30/10 within 8 points, every chain of them a call the program makes
# (inner only under outer), the header's Node line counting the frames with the
# rows' own [js: unverified]; another tenant's node beside it, spinning in
# other_tenant_secret(), never shows, nor is it attached (one node process).
. "$(dirname "$0")/../lib.sh"
require_root
require_perf
command -v node >/dev/null || skip "needs node (the machine's, or Debian's nodejs)"
command -v runuser >/dev/null || skip "needs runuser"
HERE=$(cd "$(dirname "$0")" && pwd)
MINE=profntop$$ OTHER=profnoth$$
make_user "$MINE"
make_user "$OTHER"
mkdir -p "$TMP/pub"
chmod 755 "$TMP" "$TMP/pub"
cp "$HERE/shares.js" "$TMP/pub/shares.js" && chmod 644 "$TMP/pub/shares.js" || fail "copy shares.js"
cat >"$TMP/pub/theirs.js" <<'JS'
'use strict';
function other_tenant_secret(ms) { const end = Date.now() + ms; let x = 0; while (Date.now() < end) x++; return x; }
const end = Date.now() + Number(process.argv[2]) * 1000;
(function go() { other_tenant_secret(5); if (Date.now() < end) setImmediate(go); })();
JS
chmod 644 "$TMP/pub/theirs.js"
# both outlive the view (killed at the end)
runuser -u "$MINE" -- node "$TMP/pub/shares.js" 120 0 >/dev/null &
mine=$!
runuser -u "$OTHER" -- node "$TMP/pub/theirs.js" 120 &
other=$!
cleanup_hooks+=("kill $mine $other 2>/dev/null")
sleep 1

"$PROF" top --uid "$MINE" --call-graph dwarf -F 499 --stdio --rows 60 -d 4 -n 2 >"$TMP/top" 2>"$TMP/err" ||
	fail "prof top exited $?: $(tail -5 "$TMP/err")"
grep -q other_tenant_secret "$TMP/top" && fail "another tenant's function in the view: $(grep -m1 other_tenant_secret "$TMP/top")"
python3 - "$TMP/top" "$TMP/pub/shares.js" <<'PY' || fail "prof top's JavaScript rows are not as built: $(head -c 3000 "$TMP/top")"
import re, sys
out, path = open(sys.argv[1]).read(), sys.argv[2]
snap = out.split("prof top:")[-1]          # the last view: counts since the start
m = re.search(r"^Node: (\d+) samples of 1 node process\(es\), (\d+) with JavaScript frames, (\d+) of them all named; "
              r"(\d+) frames named.*; (\d+) \[js: unverified\]", snap, re.M)
if not m:
    sys.exit("no Node line for one node process in the header")
samples, with_js, named, frames, unverified = map(int, m.groups())
fn = re.compile(r"(\w+) \(" + re.escape(path) + r":\d+:\d+\)")
want = {"sixty": 60, "thirty": 30, "inner": 10}
n = dict.fromkeys(want, 0)
rows_unverified = 0
for line in snap.splitlines():
    r = re.match(r"^ +[0-9.]+% +(\d+)  (.*)$", line)
    if not r:
        continue
    k, rest = int(r.group(1)), r.group(2)
    rows_unverified += k * rest.count("[js: unverified]")
    names = fn.findall(rest)
    if not names:
        continue
    callers = {"spin": ("sixty", "thirty", "inner", "decoy"), "inner": ("outer",),
               "sixty": ("round",), "thirty": ("round",), "outer": ("round",), "decoy": ()}
    for a, b in zip(names, names[1:]):        # callee <- caller
        if b not in callers.get(a, (b,)):
            sys.exit(f"{a} under {b}: not a call shares.js makes: {line.strip()[:300]}")
    first = next((x for x in names if x in n), None)
    if first:
        n[first] += k
inner = {k: n[k] for k in n}
s = sum(inner.values())
if s < 200:
    sys.exit(f"only {s} samples in sixty/thirty/inner")
print(f"# {samples} node samples, {with_js} with JavaScript frames, {named} all named, {unverified} unverified; "
      + ", ".join(f"{k} {100 * v / s:.1f} %" for k, v in inner.items()))
for k, w in want.items():
    if abs(100 * inner[k] / s - w) > 8:
        sys.exit(f"{k}: {100 * inner[k] / s:.1f} % of the program's samples, want {w} +- 8")
if named * 10 < with_js * 9:
    sys.exit(f"only {named} of {with_js} samples with JavaScript frames all named")
if rows_unverified > unverified:
    sys.exit(f"the rows show {rows_unverified} [js: unverified], the header counts {unverified}")
PY
pass "prof top names the tenant's JavaScript frames, none of the other's"
