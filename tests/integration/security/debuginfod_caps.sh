#!/usr/bin/env bash
# A copy of prof with file capabilities, run by an ordinary user, asks debuginfod
# only with the operator's configuration (the system prof.conf's [symbols]): the
# user's DEBUGINFOD_URLS and own prof.conf do not make it ask (the server's log shows
# no request); the same user's prof without capabilities does (the control).
. "$(dirname "$0")/../lib.sh"
require_root
require_perf
command -v setcap >/dev/null || skip "needs setcap (libcap2-bin)"
command -v runuser >/dev/null || skip "needs runuser"
command -v gcc >/dev/null && command -v python3 >/dev/null || skip "needs gcc and python3"

U=prof-it-dbgd
make_user "$U"
chmod 755 "$TMP"
mkdir -p "$TMP/bin" "$TMP/capbin" "$TMP/u/.config/prof" "$TMP/www" && chown -R "$U" "$TMP/u" || fail "dirs"
cp "$PROF" "$TMP/bin/prof" && cp "$PROF" "$TMP/capbin/prof" && chmod 755 "$TMP/bin/prof" "$TMP/capbin/prof" || fail "copy"
setcap cap_perfmon,cap_sys_ptrace,cap_syslog=ep "$TMP/capbin/prof" 2>/dev/null || skip "file capabilities not supported here"
printf 'int main(void) { volatile unsigned long s = 0; for (unsigned long i = 0; i < 400000000UL; i++) s += i; return 0; }\n' >"$TMP/spin.c"
gcc -O1 -Wl,--build-id -o "$TMP/bin/spin" "$TMP/spin.c" && strip "$TMP/bin/spin" || fail "gcc"
chmod 755 "$TMP/bin/spin"
export HOME=$TMP/root-home
"$PROF" record -q -o "$TMP/u/spin.data" -- "$TMP/bin/spin" >/dev/null 2>"$TMP/err" || fail "prof record: $(cat "$TMP/err")"
chown "$U" "$TMP/u/spin.data"

http_dir "$TMP/www"
port=$http_port
base=$(grep -c 'GET /buildid/' "$TMP/http-$port.log")
printf '[symbols]\ndebuginfod_urls = http://127.0.0.1:%s\n' "$port" >"$TMP/u/.config/prof/prof.conf"
chown "$U" "$TMP/u/.config/prof/prof.conf"
report_as_user() {      # $1: the prof copy; the user's environment names the server
	runuser -u "$U" -- env -i PATH=/usr/bin:/bin HOME="$TMP/u" DEBUGINFOD_URLS="$2" \
		timeout 60 "$1" report -i "$TMP/u/spin.data" --sort dso,sym >"$TMP/out" 2>"$TMP/err"
}
# with capabilities: neither the environment's server nor the user's file's
report_as_user "$TMP/capbin/prof" "http://127.0.0.1:$port" || fail "prof report (capabilities): $(cat "$TMP/err")"
report_as_user "$TMP/capbin/prof" "" || fail "prof report (capabilities, own prof.conf): $(cat "$TMP/err")"
[ "$(grep -c 'GET /buildid/' "$TMP/http-$port.log")" -eq "$base" ] ||
	fail "a prof with capabilities asked the user's server: $(grep 'GET /buildid/' "$TMP/http-$port.log" | tail -3)"
grep -q debuginfod "$TMP/err" && fail "a prof with capabilities says it asked: $(cat "$TMP/err")"
# without: the user's own choice is theirs
report_as_user "$TMP/bin/prof" "http://127.0.0.1:$port" || fail "prof report: $(cat "$TMP/err")"
grep -q "GET /buildid/$(readelf -n "$TMP/bin/spin" | awk '/Build ID/ { print $3 }')/debuginfo" "$TMP/http-$port.log" ||
	fail "the control: the user's own prof did not ask their server: $(cat "$TMP/http-$port.log")"
grep -q "prof report: debuginfod (http://127.0.0.1:$port): asked [0-9]*: found 0, not found [1-9]" "$TMP/err" ||
	fail "the control: prof report's line: $(cat "$TMP/err")"
pass "a prof with capabilities asks no server the user names; the user's own prof does"
