#!/usr/bin/env bash
# A workload that cannot run: exit 127/126, a clear message, and nothing left behind.
. "$(dirname "$0")/../lib.sh"
require_root

cd "$TMP" || fail "cd"
echo "previous recording" >perf.data

check() {
	local want=$1 msg=$2; shift 2
	"$PROF" record "$@" >out 2>err
	rc=$?
	[ "$rc" -eq "$want" ] || fail "'$*': exit $rc, want $want: $(cat err)"
	grep -q "$msg" err || fail "'$*': message lacks '$msg': $(cat err)"
	[ "$(cat perf.data)" = "previous recording" ] || fail "'$*': perf.data was touched"
	[ ! -e perf.data.old ] || fail "'$*': left perf.data.old behind"
	[ "$(ls | sort | tr '\n' ' ')" = "err out perf.data " ] || fail "'$*': left files: $(ls)"
	pass "'$*' -> $rc: $(cat err)"
}
check 127 "command not found" -a -- /nonexistent/program
check 127 "command not found" -a -- no-such-command-anywhere
check 126 "Permission denied" -a -- /etc/passwd
check 126 "Permission denied" -a -- /tmp
