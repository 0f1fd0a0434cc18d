#!/usr/bin/env bash
# JavaScript frames in prof record --call-graph dwarf (and -g), on node run by a tenant (--uid)
# without any flag: shares.js (sixty, thirty and outer -> inner spinning on
# process.cpuUsage() for 6, 3 and 1 ms in turn, driven by setImmediate; decoy() of
# the same shape run only at the start, under the top level) on
#  - the machine's node (20.x), with --call-graph dwarf and with -g, and
#  - Debian 12's node 18 (nodejs + libnode108 and the packages it loads its bundled
#    modules from, apt-get download, cached in ~/.cache/prof/debs as node/frames
#    does), run from their extracted tree in a mount namespace of its own, as the
#    tenant (setpriv), the machine's packages untouched.
# For each (record_check.py over perf script's stacks): every frame named in
# shares.js has its function's name, line and column, every pair of named frames
# is a call the program makes (decoy never for another), the shares of
# sixty/thirty/outer within 5 points of 60/30/10, and at least 40 % of the node
# samples name the program; perf report names the functions through the kept
# /prof/js-frames object; the summary's Node line counts them.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/node18.sh"
require_root
require_perf
HERE=$(cd "$(dirname "$0")" && pwd)
USER_=profnjs
make_user "$USER_"
mkdir -p "$TMP/pub"
chmod 755 "$TMP" "$TMP/pub"
cp "$HERE/shares.js" "$TMP/pub/shares.js" && chmod 644 "$TMP/pub/shares.js" || fail "copy shares.js"
tested=0 skipped=()

# check WHAT FILE: the recording's JavaScript frames (see above)
check() {
	local what=$1 f=$2
	grep -E '^prof: Node' "$TMP/summary" | sed "s/^/# $what: /"
	grep -qE '^prof: Node: [0-9]+ samples of 1 node process\(es\), [0-9]+ with JavaScript frames, [0-9]+ of them all named; [0-9]+ frames named' "$TMP/summary" ||
		fail "$what: no Node line in the summary: $(cat "$TMP/summary")"
	perf_lost_ok=1 perf_folded "$f" "$TMP/folded"
	python3 "$HERE/record_check.py" "$TMP/folded" "$TMP/pub/shares.js" 5 40 >"$TMP/check" ||
		fail "$what: $(cat "$TMP/check")"
	sed "s/^/# $what: /" "$TMP/check"
	perf_lost_ok=1 perf_clean "$TMP/report" report -i "$f" --stdio --no-children --sort sym
	for fn in sixty thirty inner outer spin; do
		grep -qE "\b$fn \(.*/shares\.js:[0-9]+:[0-9]+\)" "$TMP/report" || fail "$what: perf report does not name $fn"
	done
	tested=$((tested + 1))
}

if command -v node >/dev/null; then
	v=$(node --version)
	"$PROF" record --uid "$USER_" --call-graph dwarf -F 499 -o "$TMP/n20.data" -- node "$TMP/pub/shares.js" 6 \
		>/dev/null 2>"$TMP/summary" || fail "node $v: prof record: $(tail -5 "$TMP/summary")"
	check "node $v" "$TMP/n20.data"
	# -g (frame pointers): the stack copy asked for because the workload is node
	"$PROF" record --uid "$USER_" -g -F 499 -o "$TMP/n20g.data" -- node "$TMP/pub/shares.js" 6 \
		>/dev/null 2>"$TMP/summary" || fail "node $v -g: prof record: $(tail -5 "$TMP/summary")"
	check "node $v -g" "$TMP/n20g.data"
else
	skipped+=("the machine's node (none installed)")
fi

# Debian's node 18 (node18.sh); root makes the mount namespace, the tenant runs node
# (setpriv): prof keeps root for the command (--run-as self) and records the tenant
if node18_extract "$TMP/n18"; then
	chmod -R a+rX "$TMP/n18"
	"$PROF" record --uid "$USER_" --run-as self --call-graph dwarf -F 499 -o "$TMP/n18.data" -- \
		unshare -m --propagation private sh -c "$NODE18_SH" "$TMP/n18" "$USER_" "$TMP/pub/shares.js" 8 \
		>/dev/null 2>"$TMP/summary" || fail "Debian's node 18: prof record: $(tail -5 "$TMP/summary")"
	check "Debian's node 18" "$TMP/n18.data"
else
	skipped+=("$node18_why")
fi

[ "$tested" -gt 0 ] || skip "no node to test: ${skipped[*]}"
for s in "${skipped[@]}"; do note "skipped: $s"; done
pass "$tested recordings: JavaScript frames in dwarf and -g samples named right, shares within 5 points, no wrong caller"
