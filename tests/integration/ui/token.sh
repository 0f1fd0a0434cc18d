#!/usr/bin/env bash
# prof ui's token: without it, or with a wrong one (query or cookie), every path is
# refused (403) and told on stderr; with it (or the cookie the page sets) they are
# answered.  Not loopback without --allow-remote; SIGTERM ends it cleanly.
. "$(dirname "$0")/ui_lib.sh"
require_root
record_hot 1
ui_start - -i "$TMP/hot.data"
paths="/ /api/sources /api/folded /api/top /api/flame /api/search?q=hot /api/svg /api/pprof /api/folded?src=0&from=0&until=1000 /api/group?key=comm /api/sandwich?sym=main /api/diff?from2=0 /api/folded?comm=prof-hot /favicon.ico /no/such/path"
wrong=$(printf '%s' "$UI_TOKEN" | tr '0-9a-f' '1-9a-f0')
n=0
for p in $paths; do
	for how in none query short cookie; do
		case $how in
		none) args=("$UI_BASE$p") ;;
		query) args=("$UI_BASE$p$([[ $p == *\?* ]] && echo '&' || echo '?')token=$wrong") ;;
		short) args=("$UI_BASE$p$([[ $p == *\?* ]] && echo '&' || echo '?')token=${UI_TOKEN:0:31}") ;;
		cookie) args=(-b "prof_ui=$wrong" "$UI_BASE$p") ;;
		esac
		code=$(curl -s -o "$TMP/refused" -w '%{http_code}' "${args[@]}")
		[ "$code" = 403 ] || fail "$how token: $p answered $code, not 403"
		grep -q "$UI_TOKEN" "$TMP/refused" && fail "a refusal tells the token"
		n=$((n + 1))
	done
done
refused=$(grep -c '^prof ui: refused ' "$TMP/ui.err")
[ "$refused" -eq "$n" ] || fail "$n requests refused, $refused told on stderr: $(head -5 "$TMP/ui.err")"
grep -q "refused GET /api/top from 127.0.0.1: no token (403)" "$TMP/ui.err" || fail "the log does not say what was refused"
pass "$n requests without the token or with a wrong one: 403, each told on stderr"

for p in / /api/sources /api/folded /api/top /api/flame /api/search?q=hot /api/svg /api/pprof /api/group?key=comm \
	 /api/sandwich?sym=main /api/diff?from2=0 /api/folded?comm=prof-hot; do
	ui_get "$p" >/dev/null
	[ "$(cat "$TMP/status")" = 200 ] || fail "$p with the token answered $(cat "$TMP/status")"
done
ui_get /no/such/path >/dev/null
[ "$(cat "$TMP/status")" = 404 ] || fail "an unknown path with the token answered $(cat "$TMP/status"), not 404"
# the page sets an HttpOnly cookie its own requests carry
curl -s -c "$TMP/jar" -o /dev/null "$UI_URL"
grep -q "#HttpOnly_127.0.0.1.*prof_ui.$UI_TOKEN" "$TMP/jar" || fail "no HttpOnly cookie from the page: $(cat "$TMP/jar")"
code=$(curl -s -b "$TMP/jar" -o /dev/null -w '%{http_code}' "$UI_BASE/api/sources")
[ "$code" = 200 ] || fail "the page's cookie is not taken ($code)"
pass "with the token, or the page's cookie, every path is answered"
ui_stop
grep -q '^prof ui: stopped' "$TMP/ui.err" || fail "no word of stopping on stderr"

# a second run has another token, the first one's is refused
ui_start - -i "$TMP/hot.data"
first=$UI_TOKEN
ui_stop
ui_start - -i "$TMP/hot.data"
[ "$UI_TOKEN" != "$first" ] || fail "two runs printed the same token"
code=$(curl -s -o /dev/null -w '%{http_code}' "$UI_BASE/api/sources?token=$first")
[ "$code" = 403 ] || fail "the previous run's token answered $code"
ui_stop
pass "each run its own token; SIGTERM ends it with 0"

if "$PROF" ui -i "$TMP/hot.data" --listen 0.0.0.0:0 >"$TMP/remote.out" 2>"$TMP/remote.err"; then
	fail "--listen 0.0.0.0:0 without --allow-remote served"
fi
[ -s "$TMP/remote.out" ] && fail "--listen 0.0.0.0 printed an address: $(cat "$TMP/remote.out")"
grep -q "not a loopback address.*--allow-remote" "$TMP/remote.err" || fail "no clear refusal: $(cat "$TMP/remote.err")"
ui_start - -i "$TMP/hot.data" --listen 127.0.0.2:0
[[ $UI_BASE == http://127.0.0.2:* ]] || fail "--listen 127.0.0.2:0 serves at $UI_BASE"
ui_stop
pass "a non-loopback --listen is refused without --allow-remote"
