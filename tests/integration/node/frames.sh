#!/usr/bin/env bash
# src/node on a live node, without any flag: prof-node-probe finds V8 by its own
# metadata and names the JavaScript frames of shape.js (main -> a -> b -> c, a second
# c in other.js, an anonymous function expression, an arrow, a function inlined once
# optimized, a comparator under V8's sort builtin, a JSON.parse reviver under native
# code, and a decoy that ran only before) from the registers of the stopped main
# thread, 200 times, for:
#  - the machine's node (20.x), and
#  - Debian 12's node 18 (nodejs + libnode108 and the three packages it loads its
#    bundled modules from), taken with apt-get download (cached in
#    ~/.cache/prof/debs) and run out of their extracted tree in a mount namespace of
#    its own (an overlay puts their /usr/share/nodejs over the machine's /usr/share),
#    the machine's own packages untouched.
# frames_check.py: every frame named in the program's files has the name, file, line
# and column of its function, every pair of named frames is a call the program makes,
# the decoy is never named; at least 40 % of the samples name frames of the program.
# The same run with the stack read after the thread ran on ("live") is counted, not
# failed: it shows why the sample path must read the frames at the sample instant.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/node18.sh"
: "${PROF_NODE_PROBE:?PROF_NODE_PROBE must name the prof-node-probe test program}"
require_root
HERE=$(cd "$(dirname "$0")" && pwd)
cp "$HERE/shape.js" "$HERE/other.js" "$TMP/" || fail "copy the program"
pids=()
cleanup_hooks+=('for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait')
tested=0 skipped=()

# probe WHAT PID MODE: the stacks of the running shape.js, checked
probe() {
	local what=$1 pid=$2 mode=$3
	"$PROF_NODE_PROBE" describe "$pid" >"$TMP/describe" 2>"$TMP/err" ||
		fail "$what: V8 not read: $(cat "$TMP/err")"
	note "$what: $(head -2 "$TMP/describe" | tr '\n' ' ')"
	"$PROF_NODE_PROBE" stacks "$pid" 200 10 $mode >"$TMP/stacks" 2>"$TMP/err" ||
		fail "$what: prof-node-probe stacks: $(cat "$TMP/err")"
	if [ "$mode" = live ]; then
		python3 "$HERE/frames_check.py" "$TMP/stacks" "$TMP" live | sed "s/^/# $what, read late: /"
		return
	fi
	python3 "$HERE/frames_check.py" "$TMP/stacks" "$TMP" >"$TMP/check" ||
		fail "$what: $(cat "$TMP/check")"
	sed "s/^/# $what: /" "$TMP/check"
	pct=$(sed -nE 's/.*with frames of the program [0-9]+ \(([0-9.]+) %\).*/\1/p' "$TMP/check")
	awk -v p="$pct" 'BEGIN { exit !(p >= 40) }' || fail "$what: only $pct % of the samples name the program's frames"
	grep -q 'c@other' "$TMP/check" && grep -q 'c@shape' "$TMP/check" ||
		fail "$what: the two functions named c were not both seen"
}

# run WHAT CMD...: shape.js under CMD, probed strict then live
run() {
	local what=$1 pid; shift
	for mode in strict live; do
		"$@" "$TMP/shape.js" 120 >"$TMP/out" 2>&1 &
		pid=$!
		pids+=("$pid")
		for _ in $(seq 100); do grep -q ready "$TMP/out" && break; sleep 0.1; done
		grep -q ready "$TMP/out" || fail "$what: shape.js did not start: $(cat "$TMP/out")"
		# the node process itself (under unshare, the launcher's child)
		node_pid=$(pgrep -P "$pid" -f shape.js | head -1)
		probe "$what" "${node_pid:-$pid}" "$mode"
		kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
	done
	tested=$((tested + 1))
}

if command -v node >/dev/null; then
	run "node $(node --version)" node
else
	skipped+=("the machine's node (none installed)")
fi

# Debian 12's node 18, as its packages install it, without installing them (node18.sh)
if node18_extract "$TMP/n18"; then
	chmod 755 "$TMP"
	run "Debian's node 18" unshare -m --propagation private sh -c "$NODE18_SH" "$TMP/n18" ""
else
	skipped+=("$node18_why")
fi

[ "$tested" -gt 0 ] || skip "no node to test: ${skipped[*]}"
for s in "${skipped[@]}"; do note "skipped: $s"; done
pass "$tested node builds: every frame named in the program right (name, file, line, column, caller), no decoy"
