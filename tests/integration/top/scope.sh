#!/usr/bin/env bash
# prof top --uid shows that user's processes and never another user's: two users run
# the same program at once; --uid of one lists only its pid and uid.  -a, over the
# same moment, shows both (the check could fail).
. "$(dirname "$0")/../lib.sh"
require_root
make_user proftopa
make_user proftopb
HOT=$(public_copy "$PROF_HOT")

runuser -u proftopa -- "$HOT" 30 &
A=$!
runuser -u proftopb -- "$HOT" 30 &
B=$!
cleanup_hooks+=("kill $A $B 2>/dev/null")
sleep 0.5
PA=$(pgrep -u proftopa -x prof-hot | head -n 1)
PB=$(pgrep -u proftopb -x prof-hot | head -n 1)
[ -n "$PA" ] && [ -n "$PB" ] || fail "workloads did not start"

"$PROF" top --uid proftopa --stdio -d 1 -n 3 --rows 1000 --sort uid,pid,comm,sym >"$TMP/a" 2>"$TMP/err" ||
	fail "prof top --uid: $(cat "$TMP/err")"
"$PROF" top -a --stdio -d 1 -n 2 --rows 1000 --sort uid,pid,comm,sym >"$TMP/all" 2>"$TMP/err" ||
	fail "prof top -a: $(cat "$TMP/err")"
grep -qE "proftopa +$PA +prof-hot .*hot_function" "$TMP/a" || fail "--uid proftopa does not show its prof-hot: $(head -20 "$TMP/a")"
rows=$(grep -E '^ +[0-9.]+%' "$TMP/a")
if echo "$rows" | grep -vE '^ +[0-9.]+% +[0-9]+ +proftopa ' | grep -q .; then
	fail "--uid proftopa shows rows of other users: $(echo "$rows" | grep -vE ' proftopa ' | head)"
fi
grep -qE "proftopb| $PB " "$TMP/a" && fail "--uid proftopa shows proftopb or its pid"
grep -qE "proftopb +$PB +prof-hot" "$TMP/all" || fail "-a does not show proftopb's prof-hot: the check proves nothing"
pass "--uid proftopa: $(echo "$rows" | wc -l) rows, all proftopa's; -a shows proftopb too"

# The access rules are record's: an ordinary user running a copy of prof with the
# file capabilities may not watch another user, nor the host.
command -v setcap >/dev/null || skip "needs setcap (libcap2-bin) for the capability-user part"
mkdir "$TMP/bin" && chmod 755 "$TMP" "$TMP/bin" && cp "$PROF" "$TMP/bin/prof" && chmod 755 "$TMP/bin/prof" || fail "copy"
setcap cap_perfmon,cap_sys_ptrace,cap_syslog=ep "$TMP/bin/prof" 2>/dev/null || skip "file capabilities not supported here"
for scope in "--uid proftopb" "-a" "--pid $PB"; do
	runuser -u proftopa -- timeout 20 "$TMP/bin/prof" top $scope --stdio -d 0.5 -n 2 >"$TMP/u" 2>"$TMP/err"
	rc=$?
	if [ $rc -eq 0 ]; then
		# a --pid of someone else's process may be accepted but must show nothing of it
		[ "$scope" = "--pid $PB" ] || fail "proftopa: prof top $scope allowed: $(head -5 "$TMP/u")"
		grep -qE "proftopb| $PB " "$TMP/u" && fail "proftopa: prof top $scope shows proftopb's process"
		pass "proftopa: prof top $scope shows nothing of proftopb"
		continue
	fi
	[ $rc -eq 1 ] && grep -q "refused by the access" "$TMP/err" || fail "proftopa: prof top $scope: exit $rc: $(cat "$TMP/err")"
	pass "proftopa: prof top $scope refused: $(head -n 1 "$TMP/err")"
done
