#!/usr/bin/env bash
# debuginfod as a source of names.  A stripped C++ program and a stripped Rust
# program (built here, their debug files split off with objcopy --only-keep-debug)
# are served by a real debuginfod (Debian's, on a free port, its own database,
# stopped at the end):
# - nothing configured: nothing is asked (the server's log shows no request), and
#   the programs stay [unknown];
# - DEBUGINFOD_URLS set: prof record keeps each program's debug file in the build-id
#   cache (its summary says asked/found), prof report names >= 95 % of each program's
#   samples and says what it asked (its pprof too), perf report of prof's file names
#   them too, so does prof report with no server (the kept file), and prof top (its
#   worker thread) names them once the file arrived;
# - prof.conf's [symbols] debuginfod_urls does the same; a malformed line is named;
# - a server answering another build's debug file for the build id (a plain HTTP
#   server laid out as debuginfod's API) names nothing: 0 names taken, never a wrong
#   one, and nothing is kept for perf.
. "$(dirname "$0")/../lib.sh"
require_root
require_perf
command -v debuginfod >/dev/null || skip "needs debuginfod (Debian package debuginfod, in scripts/dev's test packages)"
for c in g++ objcopy strip python3 curl; do
	command -v $c >/dev/null || skip "needs $c"
done

# rustup's rustc finds its toolchains under the real home
[ -d "$HOME/.rustup" ] && export RUSTUP_HOME=${RUSTUP_HOME:-$HOME/.rustup}
export HOME=$TMP/home XDG_CACHE_HOME=$TMP/home/.cache
unset DEBUGINFOD_URLS XDG_CONFIG_HOME DEBUGINFOD_CACHE_PATH
mkdir -p "$HOME" "$TMP/srv" "$TMP/fake"

cat >"$TMP/hot.cc" <<'CC'
#include <cstdlib>
#include <ctime>
namespace ns {
template <typename T> struct W {
	__attribute__((noinline)) static T work(T n) { T s = 0; for (T i = 0; i < n; i++) s += i * i ^ (s >> 3); return s; }
};
}
__attribute__((noinline)) long other(long n) { long s = 1; for (long i = 0; i < n; i++) s = s * SEED + i; return s; }
int main(int argc, char **argv)
{
	time_t end = time(NULL) + (argc > 1 ? atoi(argv[1]) : 1);
	volatile long sink = 0;
	while (time(NULL) < end) { sink += ns::W<long>::work(1000000); sink += other(300000); }
	return sink == 42 ? 1 : 0;
}
CC
# two builds of one program: another build id, nearly the same code (a wrong debug
# file for it would name its addresses plausibly: exactly what must never happen)
g++ -g -O2 -DSEED=31 -fno-omit-frame-pointer -Wl,--build-id -o "$TMP/cxx-hot" "$TMP/hot.cc" || fail "g++"
g++ -g -O2 -DSEED=37 -fno-omit-frame-pointer -Wl,--build-id -o "$TMP/cxx-other" "$TMP/hot.cc" || fail "g++ (other build)"
progs=(cxx-hot)
if command -v rustc >/dev/null; then
	cat >"$TMP/hot.rs" <<'RS'
use std::time::{Duration, Instant};
#[inline(never)]
fn rust_alpha(n: u64) -> u64 { let mut s = 0u64; for i in 0..n { s = s.wrapping_add(i.wrapping_mul(i) ^ (s >> 3)); } s }
#[inline(never)]
fn rust_beta(n: u64) -> u64 { let mut s = 1u64; for i in 0..n { s = s.wrapping_mul(31).wrapping_add(i); } s }
fn main() {
    let secs: u64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(1);
    let end = Instant::now() + Duration::from_secs(secs);
    let mut sink = 0u64;
    while Instant::now() < end { sink = sink.wrapping_add(rust_alpha(std::hint::black_box(1_000_000))); sink = sink.wrapping_add(rust_beta(std::hint::black_box(300_000))); }
    std::process::exit(if sink == 42 { 1 } else { 0 });
}
RS
	rustc -C opt-level=2 -C debuginfo=2 -C force-frame-pointers=yes -C link-arg=-Wl,--build-id \
		-o "$TMP/rust-hot" "$TMP/hot.rs" 2>"$TMP/err" || fail "rustc: $(cat "$TMP/err")"
	progs+=(rust-hot)
else
	note "no rustc here: the C++ program only"
fi
for p in "${progs[@]}" cxx-other; do
	objcopy --only-keep-debug "$TMP/$p" "$TMP/srv/$p.debug" || fail "objcopy $p"
	strip "$TMP/$p" || fail "strip $p"
	readelf -SW "$TMP/$p" | grep -q '\.symtab' && fail "$p still has a .symtab"
	[ -n "$(bidof "$TMP/$p")" ] || fail "$p has no build id"
done
mv "$TMP/srv/cxx-other.debug" "$TMP/other.debug"

debuginfod_serve "$TMP/srv" "${progs[@]}"
URL=$DEBUGINFOD_URL
port=${URL##*:}
# the checks' own requests above (curl's): prof's are counted from here
base=$(requests)

expect_top() {  # the two hot functions of program $1, in name order
	case $1 in
	cxx-*) echo "ns::W<long>::work other" ;;
	rust-*) echo "hot::rust_alpha hot::rust_beta" ;;
	esac
}
check_named() { # file $1 (named_share's kind $4), program $2, what $3: >= 95 % named, by its own names
	local n named top
	read -r n named top <<<"$(named_share "$1" "$2" "${4:-json}")"
	note "$3: $2: $named of $n samples named ($(pct "$named" "$n") %): $top"
	[ "$n" -ge 200 ] || fail "$3: $2: only $n samples"
	[ $((named * 100)) -ge $((n * 95)) ] || fail "$3: $2: $named of $n named, < 95 %"
	[ "$top" = "$(expect_top "$2")" ] || fail "$3: $2 names '$top', not '$(expect_top "$2")'"
}
check_unnamed() {
	local n named top
	read -r n named top <<<"$(named_share "$1" "$2")"
	note "$3: $2: $named of $n samples named"
	[ "$n" -ge 200 ] && [ "$named" -eq 0 ] || fail "$3: $2: $named of $n samples named ($top)"
}

# ---- nothing configured: nothing asked ---------------------------------------------
for p in "${progs[@]}"; do
	"$PROF" record -o "$TMP/$p.data" -- "$TMP/$p" 2 2>"$TMP/$p.rec" >/dev/null || fail "prof record $p: $(cat "$TMP/$p.rec")"
	grep -q debuginfod "$TMP/$p.rec" && fail "prof record $p without a server: $(cat "$TMP/$p.rec")"
	"$PROF" report -i "$TMP/$p.data" --sort dso,sym -F json >"$TMP/$p.off.json" 2>"$TMP/err" || fail "prof report: $(cat "$TMP/err")"
	grep -q debuginfod "$TMP/err" && fail "prof report $p without a server: $(cat "$TMP/err")"
	check_unnamed "$TMP/$p.off.json" "$p" "not configured"
done
[ "$(requests)" -eq "$base" ] || fail "asked debuginfod without DEBUGINFOD_URLS: $(grep 'GET /buildid/' "$TMP/srv.log" | tail -3)"

# ---- DEBUGINFOD_URLS: record keeps, report names, perf report of prof's file names --
for p in "${progs[@]}"; do
	bid=$(bidof "$TMP/$p")
	DEBUGINFOD_URLS=$URL "$PROF" record -o "$TMP/$p.data" -- "$TMP/$p" 2 2>"$TMP/$p.rec" >/dev/null ||
		fail "prof record $p: $(cat "$TMP/$p.rec")"
	grep -E "^prof: debuginfod \($URL\): asked [0-9]+: found [1-9]" "$TMP/$p.rec" | grep -q 'kept [1-9]' ||
		fail "prof record $p did not say it kept a debug file: $(cat "$TMP/$p.rec")"
	ls "$HOME"/.debug/.build-id/"${bid:0:2}"/"${bid:2}"/debug >/dev/null ||
		fail "no debug file kept for $p ($bid): $(find "$HOME/.debug" | head)"
	cmp -s "$HOME"/.debug/.build-id/"${bid:0:2}"/"${bid:2}"/debug "$TMP/srv/$p.debug" ||
		fail "the debug file kept for $p is not the server's"
	# perf report of prof's file (Debian's perf has no debuginfod: the kept debug file)
	perf_clean "$TMP/$p.perf" report -i "$TMP/$p.data" --stdio --no-children --sort dso,sym -g none -F sample,dso,sym -t '|'
	check_named "$TMP/$p.perf" "$p" "perf report of prof's file" perf
	# the kept debug file names it for prof report too, with no server and no request
	rm -rf "$XDG_CACHE_HOME/debuginfod_client"
	before=$(requests)
	"$PROF" report -i "$TMP/$p.data" --sort dso,sym -F json >"$TMP/$p.kept.json" 2>"$TMP/err" || fail "prof report: $(cat "$TMP/err")"
	check_named "$TMP/$p.kept.json" "$p" "no server, the debug file prof record kept"
	[ "$(requests)" -eq "$before" ] || fail "prof report without DEBUGINFOD_URLS asked the server"
	# without the kept file, prof report asks the server itself (and says so)
	rm -f "$HOME"/.debug/.build-id/"${bid:0:2}"/"${bid:2}"/debug "$HOME/.debug$TMP/$p/$bid/debug"
	DEBUGINFOD_URLS=$URL "$PROF" report -i "$TMP/$p.data" --sort dso,sym -F json >"$TMP/$p.on.json" 2>"$TMP/err" ||
		fail "prof report: $(cat "$TMP/err")"
	check_named "$TMP/$p.on.json" "$p" "DEBUGINFOD_URLS"
	grep -Eq "^prof report: debuginfod \($URL\): asked [0-9]+: found [1-9]" "$TMP/err" ||
		fail "prof report says nothing of debuginfod: $(cat "$TMP/err")"
done

# ---- the pprof of prof report through debuginfod: function names --------------------
p=${progs[0]}
rm -rf "$XDG_CACHE_HOME/debuginfod_client"
before=$(requests)
DEBUGINFOD_URLS=$URL "$PROF" report -i "$TMP/$p.data" -F pprof -o "$TMP/$p.pb.gz" 2>"$TMP/err" ||
	fail "prof report -F pprof: $(cat "$TMP/err")"
[ "$(requests)" -gt "$before" ] || fail "prof report -F pprof did not ask the server"
if command -v go >/dev/null && go tool pprof -h >/dev/null 2>&1; then
	GOCACHE=$TMP/gocache PPROF_TMPDIR=$TMP go tool pprof -symbolize=none -top -nodecount=10 "$TMP/$p.pb.gz" \
		>"$TMP/$p.pprof" 2>"$TMP/err" || fail "go tool pprof: $(cat "$TMP/err")"
	grep -q 'ns::W<long>::work' "$TMP/$p.pprof" && grep -qE ' other$' "$TMP/$p.pprof" ||
		fail "the pprof does not name $p's functions: $(head -20 "$TMP/$p.pprof")"
	pass "prof report -F pprof through debuginfod names $p's functions (go tool pprof -top)"
else
	note "no go tool pprof: the pprof is not read back"
fi

# ---- prof.conf's [symbols] instead of the environment; a bad line named --------------
rm -rf "$XDG_CACHE_HOME/debuginfod_client"
mkdir -p "$HOME/.config/prof"
printf '[symbols]\ndebuginfod_urls = %s\ndebuginfod_timeout = 3\n' "$URL" >"$HOME/.config/prof/prof.conf"
"$PROF" report -i "$TMP/${progs[0]}.data" --sort dso,sym -F json >"$TMP/conf.json" 2>"$TMP/err" || fail "prof report: $(cat "$TMP/err")"
check_named "$TMP/conf.json" "${progs[0]}" "[symbols] debuginfod_urls"
printf '[symbols]\ndebuginfod_urls = ftp://127.0.0.1:%s\n' "$port" >"$HOME/.config/prof/prof.conf"
"$PROF" record -o "$TMP/x.data" -- true >/dev/null 2>"$TMP/err" && fail "prof record took a malformed [symbols] line"
grep -q "prof.conf:2: bad debuginfod_urls: 'ftp://127.0.0.1:$port' is not an http:// or https:// URL" "$TMP/err" ||
	fail "the malformed line is not named: $(cat "$TMP/err")"
rm -f "$HOME/.config/prof/prof.conf"

# ---- prof top ------------------------------------------------------------------------
rm -rf "$XDG_CACHE_HOME/debuginfod_client"
p=${progs[-1]}
"$TMP/$p" 5 &
pid=$!
cleanup_hooks+=("kill $pid 2>/dev/null")
sleep 0.3
# its worker fetches while the samples go on: the object is named from the screen
# after the file arrived (-z: the last screen, all of it after)
DEBUGINFOD_URLS=$URL "$PROF" top --pid "$pid" --stdio -d 2 -n 2 -z --rows 50 --sort dso,sym >"$TMP/top" 2>"$TMP/err" ||
	fail "prof top: $(cat "$TMP/err")"
wait $pid
grep -Eq "^debuginfod: asked [0-9]+: found [1-9]" "$TMP/top" || fail "prof top says nothing of debuginfod: $(head -5 "$TMP/top")"
check_named "$TMP/top" "$p" "prof top" top

# ---- a server answering another build's debug file: nothing named, nothing kept ----
p=${progs[0]}
bid=$(bidof "$TMP/$p")
mkdir -p "$TMP/fake/buildid/$bid"
cp "$TMP/other.debug" "$TMP/fake/buildid/$bid/debuginfo"
http_dir "$TMP/fake"
fport=$http_port
rm -rf "$XDG_CACHE_HOME/debuginfod_client" "$HOME/.debug"
DEBUGINFOD_URLS=http://127.0.0.1:$fport "$PROF" record -o "$TMP/wrong.data" -- "$TMP/$p" 2 2>"$TMP/wrong.rec" >/dev/null ||
	fail "prof record: $(cat "$TMP/wrong.rec")"
grep -q "answered another build's file (not used)" "$TMP/wrong.rec" || fail "prof record took or hid another build's file: $(cat "$TMP/wrong.rec")"
[ -e "$HOME/.debug/.build-id/${bid:0:2}/${bid:2}/debug" ] && fail "prof record kept another build's debug file for perf"
DEBUGINFOD_URLS=http://127.0.0.1:$fport "$PROF" report -i "$TMP/wrong.data" --sort dso,sym -F json >"$TMP/wrong.json" 2>"$TMP/err" ||
	fail "prof report: $(cat "$TMP/err")"
grep -Eq "asked [0-9]+: found 0, not found [0-9]+, failed 0, 1 answered another build's file \(not used\)" "$TMP/err" ||
	fail "prof report did not say it refused another build's file: $(cat "$TMP/err")"
check_unnamed "$TMP/wrong.json" "$p" "another build's file"
grep -q "GET /buildid/$bid/debuginfo" "$TMP/http-$fport.log" || fail "the wrong server was never asked"
# the control: the right server after it names the program (the wrong file was not cached)
DEBUGINFOD_URLS=$URL "$PROF" report -i "$TMP/wrong.data" --sort dso,sym -F json >"$TMP/right.json" 2>"$TMP/err" ||
	fail "prof report: $(cat "$TMP/err")"
check_named "$TMP/right.json" "$p" "the right server after the wrong one"
pass "debuginfod names stripped C++ and Rust programs in prof report, prof top and perf report of prof's file; nothing asked unless configured; another build's debug file names nothing"
