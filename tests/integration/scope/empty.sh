#!/usr/bin/env bash
# A scope with no tasks records an empty, valid file; bad scopes are clear errors.
. "$(dirname "$0")/../lib.sh"
require_root
require_perf

U=prof-it-empty
make_user "$U"
F=$TMP/empty.data
"$PROF" record --uid "$U" -o "$F" -d 1 2>"$TMP/err" || fail "exit $?: $(cat "$TMP/err")"
grep -q '^\[ prof record: 0 samples written' "$TMP/err" || fail "summary: $(cat "$TMP/err")"
# perf report refuses a file without samples by design; script and the header read it.
perf_clean "$TMP/script" script -i "$F"
[ ! -s "$TMP/script" ] || fail "perf script printed samples: $(head -3 "$TMP/script")"
perf_clean "$TMP/header" report -i "$F" --header-only
grep -q '# cmdline' "$TMP/header" || fail "no header"
size=$(stat -c %s "$F")
pass "empty recording: valid, $size bytes"
[ "$size" -lt 65536 ] || fail "empty recording is $size bytes"

cd "$TMP" || fail cd
expect() {
	local want=$1 msg=$2; shift 2
	"$PROF" record "$@" -o x.data >out 2>err
	rc=$?
	[ "$rc" -eq "$want" ] || fail "'$*': exit $rc, want $want: $(cat err)"
	grep -q -- "$msg" err || fail "'$*': message lacks '$msg': $(cat err)"
	[ ! -e x.data ] || fail "'$*' left x.data"
	pass "'$*' -> $rc: $(head -n 1 err)"
}
expect 2 "no such user 'no-such-user-xyz'" --uid no-such-user-xyz -d 1
expect 2 "no cgroup named 'no-such-unit.service'" --cgroup no-such-unit.service -d 1
expect 2 "not found" --cgroup /no/such/cgroup -d 1
expect 2 "no process with pid 999999999" --pid 999999999 -d 1
expect 2 "cannot be combined" -a --uid root -d 1
expect 2 "bad pid" --pid 12x -d 1
