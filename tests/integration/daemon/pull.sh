#!/usr/bin/env bash
# profd's pull endpoint, read by real HTTP clients: curl and go tool pprof fetch
# /debug/pprof/profile?seconds=N from a profd started here (pull_listen on the
# loopback, port 0); the pprof holds both tenants' programs, labelled, with their
# totals equal to prof report --daemon's over the window the pprof states, and
# hot_function's locations carry its ELF address in a mapping with the object's
# build id.  Selectors (user=, uid=, cgroup=) return one tenant only; go tool
# pprof -tagfocus selects by the user label (go tool pprof asks /debug/pprof/symbol
# for what profd did not name: it knows no more); an unknown parameter is 400,
# another profile kind 404, POST 405.  A token set by SIGHUP: no or a wrong bearer token is
# 401, the right one 200.  Status counts what was served.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib.sh"
require_root
command -v curl >/dev/null || skip "needs curl"
GO=$(command -v go || true)
[ -n "$GO" ] && "$GO" tool pprof -h >/dev/null 2>&1 || skip "needs go tool pprof (Debian golang-go) to read the pprof"
export GOCACHE=$TMP/gocache PPROF_TMPDIR=$TMP
make_user profpa
make_user profpb
HOT_A=$(public_named "$PROF_HOT" hot-alpha)
HOT_B=$(public_named "$PROF_HOT" hot-beta)
root=$(cgroup2_root)
[ -n "$root" ] || skip "no cgroup2"
CG=$root/prof-it-pull.$$
make_cgroup_tree "$CG"
mkdir "$CG/tenant-a" "$CG/tenant-b" || fail "mkdir cgroups"
CGA=${CG#$root}/tenant-a

profd_config "bucket = 2" "fine_span = 30" "pull_listen = 127.0.0.1:0"
start_profd
port=$(pstatus pull_port)
[ -n "$port" ] && [ "$port" != 0 ] || fail "status has no pull_port: $("$PROF" daemon status --raw --socket "$SOCK" | grep ^pull)"
URL=http://127.0.0.1:$port/debug/pprof/profile

run_in "$CG/tenant-a" profpa "$HOT_A" 5 &
A=$!
run_in "$CG/tenant-b" profpb "$HOT_B" 5 &
B=$!
cleanup_hooks+=("kill $A $B 2>/dev/null")
wait $A $B
sleep 2         # the last fine bucket closes about a second after its end

# curl: 200, the headers scrapers check, a gzipped pprof
code=$(curl -sS -o "$TMP/all.pb.gz" -D "$TMP/all.hdr" -w '%{http_code}' "$URL?seconds=20") || fail "curl"
[ "$code" = 200 ] || fail "seconds=20: HTTP $code: $(head -c 300 "$TMP/all.pb.gz")"
grep -qi '^content-type: application/octet-stream' "$TMP/all.hdr" || fail "content type: $(cat "$TMP/all.hdr")"
gzip -t "$TMP/all.pb.gz" || fail "the body is not gzip"
HOME=$TMP "$GO" tool pprof -raw "$TMP/all.pb.gz" >"$TMP/all.raw" 2>"$TMP/err" || fail "go tool pprof -raw: $(cat "$TMP/err")"
pass "curl $URL?seconds=20: 200, application/octet-stream, gzip; go tool pprof reads it"

# both tenants, labelled; totals as prof report --daemon over the pprof's own window
python3 - "$TMP/all.raw" "$(id -u profpa)" "$(id -u profpb)" "$CGA" >"$TMP/window" <<'PY' || fail "the pprof's samples: $(head -40 "$TMP/all.raw")"
import re, sys
raw, ua, ub, cga = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3], sys.argv[4]
for want in ("comm:[hot-alpha]", "comm:[hot-beta]", "user:[profpa]", "user:[profpb]", "uid:[%s]" % ua,
             "uid:[%s]" % ub, "cgroup:[%s]" % cga):
    assert want in raw, "no label " + want
m = re.search(r"profd: (\d+) samples from ([0-9.]+) to ([0-9.]+)", raw)
assert m, "no window comment"
samples = sum(int(x.group(1)) for x in re.finditer(r"^\s+(\d+)\s+\d+: ", raw, re.M))
assert samples == int(m.group(1)), (samples, m.group(1))
print(m.group(1), int(float(m.group(2))), int(float(m.group(3))))
PY
read -r n from until <"$TMP/window"
"$PROF" report --daemon --socket "$SOCK" --from "$from" --until "$until" -F json >"$TMP/rep.json" 2>"$TMP/err" ||
	fail "prof report --daemon --from $from --until $until: $(cat "$TMP/err")"
rep=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["samples"])' "$TMP/rep.json")
[ "$rep" = "$n" ] || fail "pprof has $n samples over [$from, $until), prof report --daemon $rep"
[ "$n" -gt 20 ] || fail "only $n samples in 20 s of two busy programs"
pass "both tenants labelled (user, uid, cgroup, comm); $n samples, as prof report --daemon over [$from, $until)"

# hot_function: a location with its ELF address, in a mapping with hot's build id
bid=$(readelf -n "$HOT_A" | awk '/Build ID/ { print $3; exit }')
vaddr=$(nm "$HOT_A" | awk '$3 == "hot_function" { print $1; exit }')
python3 - "$TMP/all.raw" "$bid" "$vaddr" "$HOT_A" <<'PY' || fail "hot_function's location or mapping: $(sed -n '/^Locations/,$p' "$TMP/all.raw" | head -30)"
import re, sys
raw, bid, vaddr, path = open(sys.argv[1]).read(), sys.argv[2], int(sys.argv[3], 16), sys.argv[4]
locs = raw[raw.index("Locations"):raw.index("Mappings")]
maps = raw[raw.index("Mappings"):]
m = re.search(r"^\s*(\d+):.*%s %s" % (re.escape(path), bid), maps, re.M)
assert m, "no mapping of %s with build id %s" % (path, bid)
mid = m.group(1)
addrs = [int(a, 16) for a, mm in re.findall(r"^\s*\d+: (0x[0-9a-f]+) M=(\d+) hot_function", locs, re.M) if mm == mid]
assert addrs, "no hot_function location in mapping %s" % mid
# the ELF address, not a runtime one: within the function (its size is small)
assert all(vaddr <= a < vaddr + 4096 for a in addrs), (hex(vaddr), [hex(a) for a in addrs])
print("hot_function at", [hex(a) for a in addrs], "symbol at", hex(vaddr))
PY
pass "hot_function's locations carry its ELF address ($vaddr + ...) in the mapping with build id $bid"

# one tenant: user=, uid=, cgroup=
only() {        # only QUERY USER COMM NOT_COMM
	code=$(curl -sS -o "$TMP/one.pb.gz" -w '%{http_code}' "$URL?$1") || fail "curl $1"
	[ "$code" = 200 ] || fail "$1: HTTP $code: $(head -c 300 "$TMP/one.pb.gz")"
	HOME=$TMP "$GO" tool pprof -raw "$TMP/one.pb.gz" >"$TMP/one.raw" 2>"$TMP/err" || fail "pprof $1: $(cat "$TMP/err")"
	grep -q "comm:\[$3\]" "$TMP/one.raw" || fail "$1 lacks $3"
	users=$(grep -o 'user:\[[^]]*\]' "$TMP/one.raw" | sort -u | tr '\n' ' ')
	[ "$users" = "user:[$2] " ] && ! grep -q "comm:\[$4\]" "$TMP/one.raw" ||
		fail "$1 returns other tenants: $(grep -o 'user:\[[^]]*\]\|comm:\[[^]]*\]' "$TMP/one.raw" | sort | uniq -c)"
}
only "seconds=20&user=profpa" profpa hot-alpha hot-beta
only "seconds=20&uid=$(id -u profpb)" profpb hot-beta hot-alpha
only "seconds=20&cgroup=$CGA" profpa hot-alpha hot-beta
pass "user=, uid= and cgroup= return that tenant's samples only"

# go tool pprof on the URL itself, and -tagfocus on the user label
HOME=$TMP "$GO" tool pprof -raw -seconds 20 "$URL" >"$TMP/go.raw" 2>"$TMP/err" || fail "go tool pprof URL: $(cat "$TMP/err")"
grep -q 'comm:\[hot-beta\]' "$TMP/go.raw" || fail "go tool pprof URL: no hot-beta"
HOME=$TMP "$GO" tool pprof -traces -tagfocus=user=profpa -seconds 20 "$URL" >"$TMP/go.tr" 2>"$TMP/err" || fail "-tagfocus: $(cat "$TMP/err")"
grep -q 'hot-alpha' "$TMP/go.tr" && ! grep -q 'hot-beta' "$TMP/go.tr" || fail "-tagfocus=user=profpa: $(grep -o 'comm:[^ ]*' "$TMP/go.tr" | sort | uniq -c)"
pass "go tool pprof -seconds 20 $URL reads it; -tagfocus=user=profpa keeps profpa's"

# what is not served
code=$(curl -sS -o "$TMP/e" -w '%{http_code}' "$URL?seconds=5&bogus=1")
[ "$code" = 400 ] && grep -q "unknown parameter 'bogus'" "$TMP/e" || fail "bogus=1: $code $(cat "$TMP/e")"
code=$(curl -sS -o "$TMP/e" -w '%{http_code}' "$URL?user=nosuchuser-$$")
[ "$code" = 400 ] || fail "an unknown user: $code $(cat "$TMP/e")"
code=$(curl -sS -o "$TMP/e" -w '%{http_code}' "http://127.0.0.1:$port/debug/pprof/heap")
[ "$code" = 404 ] && grep -q "CPU profiles only" "$TMP/e" || fail "heap: $code $(cat "$TMP/e")"
[ "$(curl -sS "http://127.0.0.1:$port/debug/pprof/symbol")" = "num_symbols: 0" ] || fail "/debug/pprof/symbol"
code=$(curl -sS -o "$TMP/e" -w '%{http_code}' -X POST "$URL")
[ "$code" = 405 ] || fail "POST: $code"
HOME=$TMP "$GO" tool pprof -raw "$URL?bogus=1" >/dev/null 2>"$TMP/err" && fail "go tool pprof took a 400"
grep -q "unknown parameter 'bogus'" "$TMP/err" || fail "go tool pprof does not show profd's message: $(cat "$TMP/err")"
pass "bogus=1 and an unknown user are 400 (go tool pprof shows why), /debug/pprof/heap 404, POST 405"

# a bearer token, set by a reload
echo "s3cret-$$" >"$PD/token" && chmod 600 "$PD/token"
profd_config "bucket = 2" "fine_span = 30" "pull_listen = 127.0.0.1:$port" "pull_token_file = $PD/token"
kill -HUP "$PROFD_PID"
for _ in $(seq 50); do
	[ "$(curl -s -o /dev/null -w '%{http_code}' "$URL?seconds=2")" = 401 ] && break
	sleep 0.1
done
code=$(curl -sS -o "$TMP/e" -D "$TMP/h" -w '%{http_code}' "$URL?seconds=2")
[ "$code" = 401 ] && grep -qi '^www-authenticate: bearer' "$TMP/h" || fail "no token after the reload: $code $(cat "$TMP/e") ($(pstatus reload))"
code=$(curl -sS -o "$TMP/e" -w '%{http_code}' -H "Authorization: Bearer wrong-$$" "$URL?seconds=2")
[ "$code" = 401 ] && grep -q "wrong bearer token" "$TMP/e" || fail "a wrong token: $code $(cat "$TMP/e")"
code=$(curl -sS -o "$TMP/t.pb.gz" -w '%{http_code}' -H "Authorization: Bearer s3cret-$$" "$URL?seconds=20")
[ "$code" = 200 ] && gzip -t "$TMP/t.pb.gz" || fail "the right token: $code"
pass "after SIGHUP with pull_token_file: no token and a wrong one are 401, the right one 200"

# a token file others may read is refused, and the running one stays
chmod 644 "$PD/token"
kill -HUP "$PROFD_PID"
sleep 1
pstatus reload | grep -q "readable by its owner only" || fail "a world-readable token file was taken: $(pstatus reload)"
code=$(curl -sS -o /dev/null -w '%{http_code}' -H "Authorization: Bearer s3cret-$$" "$URL?seconds=2")
[ "$code" = 200 ] || fail "the endpoint stopped after a refused reload: $code"
pass "a world-readable token file is refused at reload (status says why); the endpoint keeps serving"

ok=$(pstatus pull_ok)
[ "$ok" -ge 6 ] && [ "$(pstatus pull_unauthorized)" -ge 2 ] && [ "$(pstatus pull_bad_request)" -ge 2 ] ||
	fail "status: $("$PROF" daemon status --raw --socket "$SOCK" | grep -E '^(pull|export)')"
[ "$(pstatus export_successes)" -ge "$ok" ] || fail "export_successes $(pstatus export_successes) < pull_ok $ok"
"$PROF" daemon status --socket "$SOCK" | grep -qE "^pull: port $port, .* answered" ||
	fail "prof daemon status: $("$PROF" daemon status --socket "$SOCK")"
pass "status: pull_ok $ok, pull_unauthorized $(pstatus pull_unauthorized), pull_bad_request $(pstatus pull_bad_request)"
stop_profd || fail "profd's exit after SIGTERM"
