#!/usr/bin/env bash
# prof record --uid USER -- cmd runs cmd as USER: uid, gid, groups, environment, no
# capabilities in any set, no_new_privs; --run-as chooses, several --uid need it.
. "$(dirname "$0")/../lib.sh"
require_root

U=prof-it-runas
G=prof-it-runas-g
make_user "$U"
groupadd -f "$G" && usermod -aG "$G" "$U" || fail "group"
cleanup_hooks+=("groupdel $G")
cd "$TMP" && chmod 755 "$TMP" || fail cd

"$PROF" record -q --uid "$U" -o r.data -- sh -c '
	id -u; id -G | tr " " "\n" | sort | tr "\n" " "; echo
	grep -E "^(CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs):" /proc/self/status
	echo "env $HOME $USER $LOGNAME $SHELL"' >out 2>err || fail "exit $?: $(cat err)"
cat out
want_groups=$(id -G "$U" | tr " " "\n" | sort | tr "\n" " ")
[ "$(sed -n 1p out)" = "$(id -u "$U")" ] || fail "uid: $(sed -n 1p out)"
[ "$(sed -n 2p out)" = "$want_groups" ] || fail "groups: '$(sed -n 2p out)', want '$want_groups'"
for c in CapInh CapPrm CapEff CapBnd CapAmb; do
	grep -qE "^$c:\s+0+$" out || fail "$c not empty: $(grep "^$c" out)"
done
grep -qE '^NoNewPrivs:\s+1$' out || fail "no_new_privs not set"
grep -q "^env / $U $U /bin/bash$" out || fail "environment: $(grep ^env out)"
pass "runs as $U with no capabilities and no_new_privs"

"$PROF" record -q --uid "$U" --run-as self -o r.data -- id -u >out 2>err || fail "--run-as self: $(cat err)"
[ "$(cat out)" = 0 ] || fail "--run-as self ran as $(cat out)"
"$PROF" record -q -a --run-as "$U" -o r.data -- id -u >out 2>err || fail "--run-as: $(cat err)"
[ "$(cat out)" = "$(id -u "$U")" ] || fail "--run-as $U ran as $(cat out)"
pass "--run-as self and --run-as USER"

"$PROF" record -q --uid "$U",root -o r.data -- id -u >out 2>err
[ $? -eq 2 ] && grep -q -- "--run-as" err || fail "several --uid without --run-as: $(cat err)"
pass "several --uid: $(cat err)"

# Its exit status is prof's; a signal death is 128+N.
"$PROF" record -q --uid "$U" -o r.data -- sh -c 'exit 7'
[ $? -eq 7 ] || fail "exit status not passed on"
"$PROF" record -q --uid "$U" -o r.data -- sh -c 'kill -SEGV $$'
rc=$?
[ "$rc" -eq $((128 + 11)) ] || fail "signal death: $rc"
pass "exit status 7 and 139 passed on"
