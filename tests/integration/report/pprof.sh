#!/usr/bin/env bash
# prof report -F pprof writes a gzipped profile.proto that go tool pprof reads, with
# the same totals and the same top function as prof report, labels uid/user/cgroup/
# comm/pid on each sample, the stacks (main calls hot_function) and the objects'
# build ids.  speedscope (its npm package, which ships its importers only inside its
# web page's bundle) imports it in headless chromium and draws hot_function.
. "$(dirname "$0")/../lib.sh"
require_root

F=$TMP/w.data
P=$TMP/w.pb.gz
"$PROF" record -q -g -o "$F" -- "$PROF_HOT" 2 fork || fail "record"
"$PROF" report -i "$F" -F pprof -o "$P" 2>"$TMP/err" || fail "prof report -F pprof: $(cat "$TMP/err")"
gzip -t "$P" || fail "the pprof file is not gzip"
"$PROF" report -i "$F" -F json --sort sym >"$TMP/rep.json" || fail "prof report json"

# A terminal gets no binary: -o is asked for.  -o with another format is refused.
"$PROF" report -i "$F" -F text -o "$TMP/x" >/dev/null 2>"$TMP/err"; rc=$?
[ $rc -eq 2 ] && grep -q -- "-o is for -F pprof" "$TMP/err" || fail "-o with text: exit $rc, $(cat "$TMP/err")"

SPEEDSCOPE=${PROF_SPEEDSCOPE:-$HOME/.cache/prof/speedscope/node_modules/speedscope}
GO=$(command -v go || true)
if [ -z "$GO" ] || ! "$GO" tool pprof -h >/dev/null 2>&1; then
	skip "go tool pprof is not installed (Debian package golang-go): the pprof file was written but not read back"
fi
export HOME=$TMP GOCACHE=$TMP/gocache GOFLAGS=-mod=mod PPROF_TMPDIR=$TMP
"$GO" tool pprof -raw "$P" >"$TMP/raw.txt" 2>"$TMP/raw.err" || fail "go tool pprof -raw: $(head -c 2000 "$TMP/raw.err")"
"$GO" tool pprof -top -nodecount=5 "$P" >"$TMP/top.txt" 2>"$TMP/top.err" || fail "go tool pprof -top: $(head -c 2000 "$TMP/top.err")"
"$GO" tool pprof -traces "$P" >"$TMP/traces.txt" 2>/dev/null || fail "go tool pprof -traces"
python3 - "$TMP/rep.json" "$TMP/raw.txt" "$TMP/top.txt" "$TMP/traces.txt" <<'PY' || fail "go tool pprof and prof report disagree"
import json, re, sys
rep = json.load(open(sys.argv[1]))
raw = open(sys.argv[2]).read()
top = open(sys.argv[3]).read()
traces = open(sys.argv[4]).read()
# -raw: the sample lines are "  COUNT  PERIOD: loc ids"; their sums are the totals
samples = period = 0
for m in re.finditer(r"^\s+(\d+)\s+(\d+): ", raw, re.M):
    samples += int(m.group(1)); period += int(m.group(2))
assert "samples/count cpu/nanoseconds" in raw or "samples/count" in raw, raw[:500]
print(f"samples: prof {rep['samples']} pprof {samples}; period: prof {rep['period']} pprof {period}")
assert samples == rep["samples"], "sample totals differ"
assert period == rep["period"], "period totals differ"
# -top: the first function row is prof report's first symbol
rows = [l for l in top.splitlines() if re.match(r"^\s+[0-9.]+\w*\s+[0-9.]+%", l)]
first = rows[0].split()[-1]
print("pprof top:", first, "| prof report top:", rep["rows"][0]["sym"])
assert first == rep["rows"][0]["sym"] == "hot_function", (first, rep["rows"][0])
# labels on samples, and the call chains
for lab in ("comm:[prof-hot]", "comm:[prof-child]", "user:[root]", "uid:[0", "pid:[", "cgroup:["):
    assert lab in raw, "no label " + lab
assert re.search(r"hot_function\n\s+main\n", traces), "no hot_function <- main trace"
PY
pass "go tool pprof -raw/-top read it: totals and top function match prof report, labels and stacks present"

# The mapping of the workload's object carries its build id (from HEADER_BUILD_ID).
if command -v readelf >/dev/null; then
	bid=$(readelf -n "$PROF_HOT" | awk '/Build ID/ { print $3; exit }')
	[ -n "$bid" ] || fail "prof-hot has no build id"
	grep -qF "$(readlink -f "$PROF_HOT") $bid" "$TMP/raw.txt" ||
		fail "no mapping of prof-hot with build id $bid: $(sed -n '/^Mappings/,$p' "$TMP/raw.txt" | head)"
	pass "prof-hot's mapping has its build id $bid"
fi

# Fit for a backend that symbolizes by build id: hot_function's locations carry its
# ELF virtual address (nm's), and prof-hot's mapping the range and file offset of the
# executable segment they are in (readelf's), so that pprof's base is 0.
if command -v readelf >/dev/null && command -v nm >/dev/null; then
	vaddr=$(nm "$PROF_HOT" | awk '$3 == "hot_function" { print $1; exit }')
	readelf -lW "$PROF_HOT" | awk '$1 == "LOAD" && / E / { print $2, $3, $6 }' >"$TMP/text.seg"
	python3 - "$TMP/raw.txt" "$(readlink -f "$PROF_HOT")" "$vaddr" "$TMP/text.seg" <<'PY' ||
import re, sys
raw, path, vaddr = open(sys.argv[1]).read(), sys.argv[2], int(sys.argv[3], 16)
off, va, memsz = (int(x, 16) for x in open(sys.argv[4]).read().split())
maps = raw[raw.index("Mappings"):]
m = re.search(r"^\s*(\d+): (0x[0-9a-f]+)/(0x[0-9a-f]+)/(0x[0-9a-f]+) %s " % re.escape(path), maps, re.M)
assert m, "no mapping of " + path
mid, start, limit, foff = m.group(1), int(m.group(2), 16), int(m.group(3), 16), int(m.group(4), 16)
locs = raw[raw.index("Locations"):raw.index("Mappings")]
addrs = [int(a, 16) for a, mm in re.findall(r"^\s*\d+: (0x[0-9a-f]+) M=(\d+) hot_function", locs, re.M) if mm == mid]
assert addrs, "no hot_function location in mapping " + mid
assert all(vaddr <= a < vaddr + 4096 for a in addrs), ("not ELF addresses", hex(vaddr), [hex(a) for a in addrs])
assert start and start <= min(addrs) and max(addrs) < limit, ("range", hex(start), hex(limit))
assert start - foff == va - off, ("file offset", hex(start), hex(foff), "segment", hex(va), hex(off))
assert va <= start and limit <= ((va + memsz + 4095) & ~4095), ("outside the segment", hex(start), hex(limit))
print("hot_function at", [hex(a) for a in addrs], "in", hex(start), hex(limit), "offset", hex(foff))
PY
		fail "hot_function's addresses or prof-hot's mapping range: $(sed -n '/^Locations/,$p' "$TMP/raw.txt" | head -40)"
	pass "hot_function's locations carry its ELF address ($vaddr...); prof-hot's mapping has the executable segment's range and file offset"
fi


# speedscope: its page, served locally, opens the file from #profileURL=; a hook in a
# copy of the page records the text speedscope draws on its canvases into the DOM,
# which headless chromium dumps (hot_function is wide enough never to be elided).
# A file that is not a profile draws no names.
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ] || [ ! -f "$SPEEDSCOPE/dist/release/index.html" ]; then
	note "speedscope not checked: needs chromium and the npm package speedscope in \$PROF_SPEEDSCOPE ($SPEEDSCOPE) (scripts/dev test installs both)"
	exit 0
fi
WEB=$TMP/web
mkdir -p "$WEB" && cp -r "$SPEEDSCOPE/dist/release/." "$WEB/" && cp "$P" "$WEB/p.pb.gz" || fail "speedscope copy"
head -c 4096 "$PROF" | gzip >"$WEB/bad.pb.gz"
python3 - "$WEB/index.html" "$WEB/harness.html" <<'PY' || fail "speedscope's index.html has no script tag"
import sys
s = open(sys.argv[1]).read()
hook = """<script>
(function () {
	var seen = {};
	var orig = CanvasRenderingContext2D.prototype.fillText;
	CanvasRenderingContext2D.prototype.fillText = function (t) {
		seen[String(t)] = 1;
		return orig.apply(this, arguments);
	};
	setInterval(function () {
		document.documentElement.setAttribute('data-drawn', Object.keys(seen).join('|'));
	}, 200);
})();
</script>
"""
i = s.index('<script src="speedscope-')
open(sys.argv[2], "w").write(s[:i] + hook + s[i:])
PY
python3 -m http.server 0 --bind 127.0.0.1 --directory "$WEB" >"$TMP/http.log" 2>&1 &
SRV=$!
cleanup_hooks+=("kill $SRV 2>/dev/null")
port=
for i in $(seq 100); do
	port=$(grep -o 'port [0-9]*' "$TMP/http.log" | awk '{ print $2 }')
	[ -n "$port" ] && break
	sleep 0.1
done
[ -n "$port" ] || fail "no local web server for speedscope"
drawn() {        # file, seconds (an import error opens an alert() that holds the page)
	timeout "$2" "$CHROMIUM" --headless --no-sandbox --disable-gpu --user-data-dir="$TMP/chromium" \
		--virtual-time-budget=8000 --window-size=2400,800 \
		--dump-dom "http://127.0.0.1:$port/harness.html#profileURL=http://127.0.0.1:$port/$1" 2>/dev/null |
		grep -o 'data-drawn="[^"]*"' | tr '|' '\n'
}
# On a loaded machine headless chromium's virtual time can run out before the page
# has fetched and drawn the profile (only the time axis drawn): try again, a few times.
for attempt in 1 2 3 4; do
	drawn p.pb.gz 60 >"$TMP/drawn"
	grep -q hot_function "$TMP/drawn" && break
	note "speedscope attempt $attempt drew no frame yet: $(tr '\n' ' ' <"$TMP/drawn" | head -c 200)"
done
for name in hot_function main __libc_start_call_main; do
	grep -qx "$name" "$TMP/drawn" || grep -qx "data-drawn=\"$name" "$TMP/drawn" ||
		fail "speedscope drew no $name: $(tr '\n' ' ' <"$TMP/drawn" | head -c 1000)"
done
grep -qE '^[0-9.]+(ms|s)$' "$TMP/drawn" || fail "speedscope's axis is not in time units (cpu/nanoseconds): $(head -c 500 "$TMP/drawn")"
drawn bad.pb.gz 15 >"$TMP/drawn-bad"
grep -q hot_function "$TMP/drawn-bad" && fail "a garbage file drew hot_function: the check proves nothing"
pass "speedscope $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["version"])' "$SPEEDSCOPE/package.json") imports it: draws hot_function under main on a time axis"
