#!/usr/bin/env bash
# hotspot (Debian's package, 1.3.0 in Debian 12) names a Python recording's frames as
# perf report does.  A throwaway user's python3.11 runs sixty(), thirty() and ten()
# (6, 3 and 1 ms of CPU in turn, ../python/shares.py), recorded by uid with -g and
# with --call-graph dwarf; hotspot's parser (hotspot-perfparser, what the GUI runs)
# reads each file with no path given, its build-id cache the invoking user's
# ($HOME/.debug, where prof keeps the synthetic object).  Checks, per recording:
# - every Python function perf report names is defined in the parser's stream, as a
#   symbol of python-frames, and its share of the three (the samples with it in the
#   stack) is within 3 points of perf report's;
# - the parser reports no ELF file missing for /prof/python-frames.
# Before issue 39 the stream defined none of them (one nameless python-frames symbol:
# hotspot showed '??').
. "$(dirname "$0")/../python/lib.sh"
require_perf
PP=/usr/lib/x86_64-linux-gnu/libexec/hotspot-perfparser
[ -x "$PP" ] || skip "needs hotspot's parser $PP (Debian package hotspot)"
stream=$(dirname "$0")/perfparser_stream.py
export HOME=$TMP/home
mkdir -p "$HOME"
cp "$(dirname "$0")/../python/shares.py" "$TMP/pub/shares.py" && chmod 644 "$TMP/pub/shares.py"

# check NAME OPTIONS...: record with OPTIONS, read with perf report and the parser.
check() {
	local name=$1 F=$TMP/$1.data
	shift
	"$PROF" record --uid "$PYUSER" "$@" -F 1000 -m 1024 -o "$F" -- "$PY" "$TMP/pub/shares.py" 3 \
		2>"$TMP/$name.err" >/dev/null || fail "$name: prof record: $(tail -5 "$TMP/$name.err")"
	# perf's own warnings (chunks lost on a loaded host) are noted: both readers read
	# the same records, and the names and shares are what is compared
	"$PERF" report -i "$F" --children --sort dso,sym --stdio -g none >"$TMP/$name.perf" 2>"$TMP/$name.perr" ||
		fail "$name: perf report exited $?: $(head -c 2000 "$TMP/$name.perr")"
	[ ! -s "$TMP/$name.perr" ] || note "$name: perf report said: $(tr '\n' ' ' <"$TMP/$name.perr")"
	"$PP" --input "$F" --output "$TMP/$name.qps" 2>"$TMP/$name.pperr" ||
		fail "$name: hotspot-perfparser exited $?: $(tail -5 "$TMP/$name.pperr")"
	python3 "$stream" "$TMP/$name.qps" >"$TMP/$name.defs" || fail "$name: the parser's stream: $(cat "$TMP/$name.defs")"
	! grep -q '^# error .*python-frames' "$TMP/$name.defs" ||
		fail "$name: the parser did not find the Python frames' object: $(grep '^# error' "$TMP/$name.defs")"
	python3 - "$name" "$TMP/$name.perf" "$TMP/$name.defs" <<'PY' || fail "$name: hotspot's Python frames differ from perf report's"
import re, sys
name, perf, defs = sys.argv[1:]
want = ("sixty", "thirty", "ten")
# perf report: "  58.32%  0.00%  python-frames  [.] sixty (/tmp/.../shares.py:4)"
perf_pct, perf_names = {}, set()
for line in open(perf):
    m = re.match(r"^ +([0-9.]+)% +[0-9.]+% +python-frames +\[\.\] (.*\S)", line)
    if m:
        perf_names.add(m.group(2))
        fn = m.group(2).split(" (")[0]
        if fn in want and "shares.py" in m.group(2):
            perf_pct[fn] = perf_pct.get(fn, 0) + float(m.group(1))
# the stream: "self total binary<TAB>name"
hs_total, hs_names = {}, set()
for line in open(defs):
    if line.startswith("#"):
        continue
    counts, _, sym = line.rstrip("\n").partition("\t")
    self_n, total, binary = counts.split(" ", 2)
    if binary == "python-frames":
        hs_names.add(sym)
        fn = sym.split(" (")[0]
        if fn in want and "shares.py" in sym:
            hs_total[fn] = hs_total.get(fn, 0) + int(total)
missing = sorted(perf_names - hs_names)
if missing:
    sys.exit(f"{name}: perf report names {len(perf_names)} Python functions, the parser's stream lacks {missing[:5]}")
if set(perf_pct) != set(want) or set(hs_total) != set(want):
    sys.exit(f"{name}: perf report has {perf_pct}, hotspot {hs_total}")
ps, hs = sum(perf_pct.values()), sum(hs_total.values())
line = ", ".join(f"{f} {100 * perf_pct[f] / ps:.1f}/{100 * hs_total[f] / hs:.1f}%" for f in want)
print(f"# {name}: {len(perf_names)} Python functions named by perf report, all defined by hotspot's parser; "
      f"shares perf/hotspot: {line}")
if any(abs(100 * perf_pct[f] / ps - 100 * hs_total[f] / hs) > 3 for f in want):
    sys.exit(1)
PY
	pass "$name: hotspot's parser names the Python functions perf report names, in perf report's shares"
}

check g -g
check dwarf --call-graph dwarf
