#!/usr/bin/env bash
# profd and debuginfod.  A stripped C program (built here, its debug file split off
# with objcopy --only-keep-debug) served by a real debuginfod (Debian's, on a free
# loopback port, stopped at the end):
# - profd without [symbols] debuginfod_urls asks nothing (the server's log shows no
#   request, its status counts 0) and the program stays [unknown];
# - with the key in profd's prof.conf, its worker fetches the debug file (status:
#   debuginfod_found 1), the samples from then on are named in prof report --daemon
#   (>= 95 %) and in its pprof export (function names, read by go tool pprof);
# - a server that accepts and never answers: profd's sampling goes on (its samples
#   and lost counts as without a server), the worker counts it failed.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib.sh"
require_root
command -v debuginfod >/dev/null || skip "needs debuginfod (Debian package debuginfod, in scripts/dev's test packages)"
for c in gcc objcopy strip python3 curl; do
	command -v $c >/dev/null || skip "needs $c"
done
unset DEBUGINFOD_URLS
mkdir -p "$TMP/srv"

cat >"$TMP/hot.c" <<'C'
#include <stdlib.h>
#include <time.h>
__attribute__((noinline)) long daemon_alpha(long n) { long s = 0; for (long i = 0; i < n; i++) s += i * i ^ (s >> 3); return s; }
__attribute__((noinline)) long daemon_beta(long n) { long s = 1; for (long i = 0; i < n; i++) s = s * 31 + i; return s; }
int main(int argc, char **argv)
{
	time_t end = time(NULL) + (argc > 1 ? atoi(argv[1]) : 1);
	volatile long sink = 0;
	while (time(NULL) < end) { sink += daemon_alpha(1000000); sink += daemon_beta(300000); }
	return sink == 42 ? 1 : 0;
}
C
gcc -g -O2 -fno-omit-frame-pointer -Wl,--build-id -o "$TMP/c-hot" "$TMP/hot.c" || fail "gcc"
objcopy --only-keep-debug "$TMP/c-hot" "$TMP/srv/c-hot.debug" || fail "objcopy"
strip "$TMP/c-hot" || fail "strip"
readelf -SW "$TMP/c-hot" | grep -q '\.symtab' && fail "c-hot still has a .symtab"
bid=$(bidof "$TMP/c-hot")
[ -n "$bid" ] || fail "c-hot has no build id"
debuginfod_serve "$TMP/srv" c-hot
URL=$DEBUGINFOD_URL
base=$(requests)

# report --daemon over [from, now] as JSON, the share of c-hot named
daemon_share() {
	"$PROF" report --daemon --socket "$SOCK" --from "$1" --sort dso,sym -F json >"$TMP/rep.json" 2>"$TMP/err" ||
		fail "prof report --daemon: $(cat "$TMP/err")"
	named_share "$TMP/rep.json" c-hot
}
wait_status() {        # wait_status KEY MIN SECONDS
	for _ in $(seq $((${3} * 10))); do
		[ "$(pstatus "$1")" -ge "$2" ] 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}
# run_hot SECONDS: c-hot for that long, in the background ($hot)
run_hot() {
	"$TMP/c-hot" "$1" &
	hot=$!
}
# what a stalled sampling thread shows: samples lost (rings full) or late (stamped
# before the bucket open when they are read)
counts() { echo "$(pstatus samples) $(pstatus lost_samples) $(pstatus late)"; }
# run_share SECONDS: c-hot for that long under profd, to its end and its last bucket
# closed; daemon_share over the run
run_share() {
	local t
	t=$(date +%s)
	run_hot "$1"
	wait $hot
	sleep 3
	daemon_share "$t"
}

# ---- no key: nothing asked ------------------------------------------------------------
profd_config "frequency = 199" "bucket = 2"
start_profd
read -r n named top <<<"$(run_share 6)"
note "no key: c-hot: $named of $n samples named"
n0=$n
# a shared host: the program may get little of a CPU (100 of 1,200 samples at most)
[ "$n" -ge 100 ] && [ "$named" -eq 0 ] || fail "no key: $named of $n named ($top)"
[ "$(pstatus debuginfod_asked)" = 0 ] || fail "no key: status says debuginfod_asked $(pstatus debuginfod_asked)"
[ "$(requests)" -eq "$base" ] || fail "profd without the key asked debuginfod: $(grep 'GET /buildid/' "$TMP/srv.log" | tail -3)"
read -r s0 l0 late0 <<<"$(counts)"
stop_profd || fail "profd exited $?"
pass "profd without [symbols] debuginfod_urls: 0 requests, c-hot [unknown] ($n samples)"

# ---- the key: fetched by the worker, named from then on -----------------------------------
rm -rf "$PD"
profd_config "frequency = 199" "bucket = 2" "pull_listen = 127.0.0.1:0" "[symbols]" "debuginfod_urls = $URL" "debuginfod_timeout = 2"
start_profd
grep -q "debuginfod: asking $URL" "$PD/log" || fail "profd's log does not say it asks $URL: $(tail -3 "$PD/log")"
run_hot 10
wait_status debuginfod_found 1 8 || fail "no debug file fetched: $("$PROF" daemon status --raw --socket "$SOCK" | grep ^debuginfod)"
t1=$(($(date +%s) + 2))    # past the bucket open when it arrived
grep -q "GET /buildid/$bid/debuginfo" "$TMP/srv.log" || fail "the server was not asked for c-hot's build id"
[ -f "$PD/state/debuginfod/$bid/debuginfo" ] || fail "no debug file in $PD/state/debuginfod: $(find "$PD/state" | head)"
cmp -s "$PD/state/debuginfod/$bid/debuginfo" "$TMP/srv/c-hot.debug" || fail "the kept debug file is not the server's"
wait $hot
sleep 3
read -r n named top <<<"$(daemon_share "$t1")"
note "the key: c-hot after the debug file arrived: $named of $n samples named ($(pct "$named" "$n") %): $top"
[ "$n" -ge 100 ] || fail "only $n samples of c-hot after $t1"
[ $((named * 100)) -ge $((n * 95)) ] || fail "$named of $n named, < 95 %"
[ "$top" = "daemon_alpha daemon_beta" ] || fail "c-hot named '$top'"
"$PROF" daemon status --socket "$SOCK" | grep -E "^debuginfod: asked [0-9]+: found [1-9]" ||
	fail "prof daemon status says nothing of debuginfod: $("$PROF" daemon status --socket "$SOCK" | head -20)"
# the pprof export (pull) and prof report --daemon -F pprof: function names
if command -v go >/dev/null && go tool pprof -h >/dev/null 2>&1; then
	export GOCACHE=$TMP/gocache PPROF_TMPDIR=$TMP
	"$PROF" report --daemon --socket "$SOCK" --from "$t1" -F pprof -o "$TMP/rep.pb.gz" 2>"$TMP/err" ||
		fail "prof report --daemon -F pprof: $(cat "$TMP/err")"
	port=$(pstatus pull_port)
	curl -sf -o "$TMP/pull.pb.gz" "http://127.0.0.1:$port/debug/pprof/profile?seconds=30" || fail "pull"
	for f in rep pull; do
		HOME=$TMP go tool pprof -symbolize=none -top -nodecount=20 "$TMP/$f.pb.gz" >"$TMP/$f.top" 2>"$TMP/err" ||
			fail "go tool pprof $f: $(cat "$TMP/err")"
		grep -q 'daemon_alpha' "$TMP/$f.top" && grep -q 'daemon_beta' "$TMP/$f.top" ||
			fail "the $f pprof does not name c-hot's functions: $(head -20 "$TMP/$f.top")"
	done
	pass "the pprof of prof report --daemon and of the pull export name daemon_alpha and daemon_beta"
else
	note "no go tool pprof: the pprof exports are not read back"
fi
read -r d_asked <<<"$(pstatus debuginfod_asked)"
stop_profd || fail "profd exited $?"
grep -Eq "debuginfod: asked [0-9]+: found [1-9]" "$PD/log" || fail "profd's log has no debuginfod counts at its stop: $(tail -3 "$PD/log")"
pass "profd with the key: c-hot $named of $n named after its debug file arrived ($top); asked $d_asked build ids"

# ---- a server that never answers: sampling goes on -------------------------------------
hport=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 - "$hport" >"$TMP/hung.log" 2>&1 <<'PY' &
import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(64)
held = []
while True:
    c, _ = s.accept(); held.append(c); print("accepted", flush=True)
PY
hung=$!
cleanup_hooks+=("kill $hung 2>/dev/null")
rm -rf "$PD"
profd_config "frequency = 199" "bucket = 2" "[symbols]" "debuginfod_urls = http://127.0.0.1:$hport" "debuginfod_timeout = 5"
start_profd
read -r n2 named2 _ <<<"$(run_share 6)"
read -r s2 l2 late2 <<<"$(counts)"
grep -q accepted "$TMP/hung.log" || fail "the hung server was never asked"
note "hung server: c-hot $n2 samples ($named2 named); profd samples $s2 lost $l2 late $late2; without a server: c-hot $n0, profd samples $s0 lost $l0 late $late0"
[ "$named2" -eq 0 ] || fail "named $named2 with a server that never answered"
# the same program for the same time: its samples as without a server (a shared host:
# >= 50 %), and no stall: the sampling thread held for the server's 5 s would find
# ~2,000 samples (199 Hz, 2 CPUs) stamped before the open bucket; a loaded host
# makes some late without any server (78 in one run), so half a stall is the bound
[ $((n2 * 100)) -ge $((n0 * 50)) ] || fail "hung server: c-hot $n2 samples in 6 s, $n0 without a server"
[ "$late2" -le $((late0 + 1000)) ] || fail "hung server: $late2 samples late, $late0 without a server"
[ "$l2" -le $((l0 + 100)) ] || fail "hung server: lost $l2 samples, $l0 without a server"
wait_status debuginfod_failed 1 15 || fail "the worker does not count the hung server failed: $("$PROF" daemon status --raw --socket "$SOCK" | grep ^debuginfod)"
stop_profd || fail "profd exited $?"
pass "a server that never answers: c-hot $n2 samples in 6 s, lost $l2 (without a server: $l0); counted failed"
