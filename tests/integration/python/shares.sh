#!/usr/bin/env bash
# Python frames, by construction: sixty(), thirty() and ten() spin 6, 3 and 1 ms of
# CPU in turn, each in its own loop (self time: the innermost Python frame of each
# sample); prof report gives each its share within 5 points,
# and so do Debian's
# perf report and perf script, reading the same file (the frames are symbols of the
# object prof keeps in the build-id cache); >= 95 % of the samples have verified
# Python frames; prof report -F pprof puts qualname, file and line in pprof's own
# fields.
. "$(dirname "$0")/lib.sh"
require_perf
# the 60/30/10 program: sixty, thirty and ten at def lines 2, 5 and 8
cp "$(dirname "$0")/shares.py" "$TMP/pub/shares.py"
chmod 644 "$TMP/pub/shares.py"
F=$TMP/shares.data
py_record "$F" "$TMP/pub/shares.py" 4
perf_lost_ok=1  # dwarf at 4 kHz loses records on a loaded host: both read the same file
py_folded "$F" "$TMP/prof.folded"

# share KIND FOLDED-FILE: each function's share of the samples in one of them
check_shares() {
	python3 - "$1" "$2" <<'PY' || fail "$1: shares off"
import re, sys
kind, path = sys.argv[1], sys.argv[2]
n = {"sixty": 0, "thirty": 0, "ten": 0}
total = unverified = 0
for line in open(path):
    stack, _, count = line.rstrip("\n").rpartition(" ")
    frames = stack.split(";")
 
    mine = [f.split(" (")[0] for f in frames if "shares.py:" in f and f.split(" (")[0] in n]
    if not mine:
        unverified += any("[python: unverified]" in f for f in frames)
        continue
    total += int(count)
    n[mine[-1]] += int(count)
print(f"# {kind}: {total} samples in them ({unverified} unverified): " + ", ".join(f"{k} {100 * v / max(total, 1):.1f}%" for k, v in n.items()))
want = {"sixty": 60, "thirty": 30, "ten": 10}
if total < 2000 or any(abs(100 * n[k] / total - want[k]) > 5 for k in want):
    sys.exit(1)
PY
}
check_shares "prof report" "$TMP/prof.folded"

# Debian's perf reads the frames from the same file
perf_folded "$F" "$TMP/perf.folded"
check_shares "perf script" "$TMP/perf.folded"
perf_clean "$TMP/report.txt" report -i "$F" --children --sort sym --stdio -g none
grep -E '^ +[0-9.]+% .*\[\.\] sixty \(.*shares\.py:(def )?[0-9]+\)' "$TMP/report.txt" | sed 's/^/# perf report: /' |
	grep -q . || fail "perf report does not name sixty(): $(grep -F shares.py "$TMP/report.txt" | head -5)"

# most samples verified, and the summary says how many
read -r samples verified < <(sed -nE 's/^prof: Python: ([0-9]+) samples .*, ([0-9]+) of them all verified.*/\1 \2/p' "$TMP/summary")
[ -n "${samples:-}" ] || fail "no Python line in the summary: $(cat "$TMP/summary")"
[ "$((verified * 100))" -ge "$((samples * 95))" ] || fail "only $verified of $samples samples verified"
# prof report's header says it as the summary did
"$PROF" report -i "$F" >"$TMP/header.txt" 2>"$TMP/err" || fail "prof report: $(cat "$TMP/err")"
grep -qE "^# python: $samples samples of 1 interpreter\(s\), [0-9]+ with Python frames, $verified of them all verified; .*with every Python frame read at the sample instant" \
	"$TMP/header.txt" || fail "prof report's header does not say the summary's Python counts: $(grep -E '^#' "$TMP/header.txt")"

# pprof's own fields: each function's name is its qualname, its file name the file,
# its line the line it ran (read at the sample instant; system_name keeps prof
# report's whole symbol).  go tool pprof -raw prints a location's line as "NAME
# FILE:LINE s=START_LINE(SYSTEM_NAME)".
GO=$(command -v go || true)
if [ -n "$GO" ] && "$GO" tool pprof -h >/dev/null 2>&1; then
	"$PROF" report -i "$F" -F pprof -o "$TMP/p.pb.gz" 2>"$TMP/err" || fail "prof report -F pprof: $(cat "$TMP/err")"
	HOME=$TMP GOCACHE=$TMP/gocache PPROF_TMPDIR=$TMP "$GO" tool pprof -raw "$TMP/p.pb.gz" >"$TMP/raw.txt" 2>"$TMP/err" ||
		fail "go tool pprof -raw: $(head -c 2000 "$TMP/err")"
	for fn in "sixty 3 4" "thirty 6 7" "ten 9 10"; do
		set -- $fn
		grep -qE " M=[0-9]+ $1 $TMP/pub/shares\.py:($2|$3) s=[0-9]+\($1 \($TMP/pub/shares\.py(:($2|$3))?\)\)\$" "$TMP/raw.txt" ||
			fail "pprof has no function $1 of shares.py at line $2 or $3 in its own fields: $(grep -F "$1" "$TMP/raw.txt" | head -3)"
	done
	! grep -qE ":def [0-9]+\) ?:0" "$TMP/raw.txt" || fail "a Python frame's file and line only inside its name: $(grep -E ':def [0-9]+\) ?:0' "$TMP/raw.txt" | head -3)"
	note "pprof: sixty, thirty, ten with their file and line in pprof's fields"
else
	note "pprof's fields not checked: go tool pprof is not installed (Debian package golang-go)"
fi
pass "Python shares within 5 points in prof report and perf script; $verified of $samples samples verified"
