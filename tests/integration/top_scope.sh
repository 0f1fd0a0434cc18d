#!/usr/bin/env bash
# prof top --uid shows that user's processes and never another user's: two users run
# the same program at once; --uid of one lists only its pid and uid.  -a, over the
# same moment, shows both (the check could fail).
. "$(dirname "$0")/lib.sh"
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
