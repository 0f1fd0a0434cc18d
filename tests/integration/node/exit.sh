#!/usr/bin/env bash
# JavaScript frames of a node process that is gone before prof judges its last
# samples (issue 35): a sample's V8 heap is read when it is drained from the rings
# and kept for the judge, so a node that exits the moment its work ends, or is
# killed mid-run, keeps its names.  shares.js (see node/record) run by a tenant
# (--uid, --call-graph dwarf, -F 999) on the machine's node
#  - spinning 4 s, then exiting at once (no idle: node/record's program idles 2 s);
#  - killed by SIGKILL after 3 s of a 20 s run.
# For each: record_check.py (every named frame right, no wrong caller, shares of
# sixty/thirty/outer within 5 points of 60/30/10, >= 40 % of node samples naming the
# program); of the samples with JavaScript frames >= 90 % all named (those with a
# frame in OSR code apart), and the summary's "process gone before its sample was
# read" at most 5 % of them (all said).
. "$(dirname "$0")/../lib.sh"
require_root
require_perf
command -v node >/dev/null || skip "no node installed"
HERE=$(cd "$(dirname "$0")" && pwd)
USER_=profnjx
make_user "$USER_"
mkdir -p "$TMP/pub"
chmod 755 "$TMP" "$TMP/pub"
cp "$HERE/shares.js" "$TMP/pub/shares.js" && chmod 644 "$TMP/pub/shares.js" || fail "copy shares.js"
v=$(node --version)

# check WHAT FILE: the recording's JavaScript frames (see above)
check() {
	local what=$1 f=$2 line with named gone osr
	line=$(grep -E '^prof: Node: ' "$TMP/summary") || fail "$what: no Node line in the summary: $(cat "$TMP/summary")"
	note "$what: $line"
	with=$(sed -nE 's/.*, ([0-9]+) with JavaScript frames, .*/\1/p' <<<"$line")
	named=$(sed -nE 's/.*, ([0-9]+) of them all named;.*/\1/p' <<<"$line")
	gone=$(sed -nE 's/.*[ (]([0-9]+) process gone before its sample was read.*/\1/p' <<<"$line")
	osr=$(sed -nE 's/.*[ (]([0-9]+) pc outside its function.s code.*/\1/p' <<<"$line")
	gone=${gone:-0} osr=${osr:-0}
	[ -n "$with" ] && [ "$with" -gt 0 ] && [ -n "$named" ] || fail "$what: the Node line does not count: $line"
	# a frame in code V8 compiled for on-stack replacement (spin's loop, when V8 so
	# decides) is "pc outside its function's code", another limit (DESIGN.md "## Node:
	# read at drain"), counted apart: >= 90 % of the others all named
	[ $((named * 100)) -ge $(((with - osr) * 90)) ] ||
		fail "$what: $named of $with samples with JavaScript frames all named, $osr in OSR code (< 90 % of the rest)"
	[ $((gone * 100)) -le $((with * 5)) ] || fail "$what: $gone of $with samples' processes gone before they were read (> 5 %)"
	note "$what: $named of $with all named ($((named * 100 / with)) %), $gone process gone, $osr pc outside its code"
	perf_lost_ok=1 perf_folded "$f" "$TMP/folded"
	python3 "$HERE/record_check.py" "$TMP/folded" "$TMP/pub/shares.js" 5 40 >"$TMP/check" ||
		fail "$what: $(cat "$TMP/check")"
	sed "s/^/# $what: /" "$TMP/check"
}

"$PROF" record --uid "$USER_" --call-graph dwarf -F 999 -o "$TMP/exit.data" -- node "$TMP/pub/shares.js" 4 0 \
	>/dev/null 2>"$TMP/summary" || fail "node $v, exiting at once: prof record: $(tail -5 "$TMP/summary")"
check "node $v, exiting at once" "$TMP/exit.data"

# the tenant's shell kills its node (prof records the shell's process tree)
"$PROF" record --uid "$USER_" --call-graph dwarf -F 999 -o "$TMP/kill.data" -- \
	sh -c 'node "$1" 20 0 & sleep 3; kill -KILL $!; wait $!; exit 0' sh "$TMP/pub/shares.js" \
	>/dev/null 2>"$TMP/summary" || fail "node $v, killed: prof record: $(tail -5 "$TMP/summary")"
check "node $v, killed by SIGKILL" "$TMP/kill.data"

pass "node $v gone before its samples were judged: named as when it ran"
