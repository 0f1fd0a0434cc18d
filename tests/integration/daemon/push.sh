#!/usr/bin/env bash
# profd's push to Pyroscope's ingest API, against a small real HTTP receiver
# (python3's http.server, in this test) that records every request: POST
# /ingest?name=APP{user=..,uid=..,cgroup=..,unit=..}&from=&until=&format=pprof, one
# series per tenant's cgroup, X-Scope-OrgID from push_tenant (a user's own line, the
# * line with %u for others), a gzipped body that go tool pprof reads, with samples
# and no sample labels.  Then the receiver goes away for a while: failures are
# counted in status, the queue stays within push_queue (the overflow counted), and
# pushing resumes in order when it comes back.  A 400 is a rejection, counted by
# status, and the next series goes; a 503 with Retry-After is retried.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib.sh"
require_root
GO=$(command -v go || true)
[ -n "$GO" ] && "$GO" tool pprof -h >/dev/null 2>&1 || skip "needs go tool pprof (Debian golang-go) to read the bodies"
export GOCACHE=$TMP/gocache PPROF_TMPDIR=$TMP
make_user profqa
make_user profqb
UA=$(id -u profqa)
UB=$(id -u profqb)
HOT_A=$(public_named "$PROF_HOT" hot-alpha)
HOT_B=$(public_named "$PROF_HOT" hot-beta)
root=$(cgroup2_root)
[ -n "$root" ] || skip "no cgroup2"
CG=$root/prof-it-push.$$
make_cgroup_tree "$CG"
mkdir "$CG/tenant-a.scope" "$CG/tenant-b" || fail "mkdir cgroups"
CGA=${CG#$root}/tenant-a.scope
CGB=${CG#$root}/tenant-b

# The receiver: each request as one JSON line in $R/log, its body in $R/N.bin; what
# it answers is the first word of $R/mode (200, 400, 503...).
R=$TMP/recv
mkdir -p "$R" && echo 200 >"$R/mode"
cat >"$R/recv.py" <<'PY'
import http.server, json, os, sys
d, port = sys.argv[1], int(sys.argv[2])
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(n)
        seq = len(os.listdir(d))
        open(os.path.join(d, "%06d.bin" % seq), "wb").write(body)
        mode = open(os.path.join(d, "mode")).read().split()
        rec = {"seq": seq, "method": "POST", "path": self.path, "org": self.headers.get("X-Scope-OrgID"),
               "ctype": self.headers.get("Content-Type"), "len": n, "answer": int(mode[0])}
        with open(os.path.join(d, "log"), "a") as f:
            f.write(json.dumps(rec) + "\n")
        self.send_response(int(mode[0]))
        if len(mode) > 1:
            self.send_header("Retry-After", mode[1])
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(b'{"code":"x","message":"test receiver says %d"}' % int(mode[0]))
    def log_message(self, *a):
        pass
s = http.server.HTTPServer(("127.0.0.1", port), H)
open(os.path.join(d, "port"), "w").write(str(s.server_address[1]))
s.serve_forever()
PY
RECV=
receiver() {    # receiver PORT: start it (0: any port), RPORT its port
	rm -f "$R/port"
	python3 "$R/recv.py" "$R" "$1" 2>>"$TMP/recv.err" &
	RECV=$!
	cleanup_hooks+=("kill $RECV 2>/dev/null")
	for _ in $(seq 50); do [ -s "$R/port" ] && break; sleep 0.1; done
	RPORT=$(cat "$R/port" 2>/dev/null) || fail "the receiver did not start: $(cat "$TMP/recv.err")"
}
receiver 0
nlog() { [ -f "$R/log" ] && wc -l <"$R/log" || echo 0; }

profd_config "bucket = 2" "fine_span = 10" "push_url = http://127.0.0.1:$RPORT" "push_app = prof.test" \
	"push_tenant = profqa team-a" "push_tenant = * org-%u" "push_backoff_max = 2" "push_queue = 4" \
	"push_timeout = 3" "push_connect_timeout = 1"
start_profd

run_in "$CG/tenant-a.scope" profqa "$HOT_A" 5 &
A=$!
run_in "$CG/tenant-b" profqb "$HOT_B" 5 &
B=$!
cleanup_hooks+=("kill $A $B 2>/dev/null")
wait $A $B
sleep 5         # the last buckets close and are pushed

# what was pushed: the series of both tenants, with their labels and orgs
python3 - "$R" "$UA" "$UB" "$CGA" "$CGB" >"$TMP/picked" <<'PY' || fail "the pushes: $(head -c 3000 "$R/log")"
import json, sys, urllib.parse
d, ua, ub, cga, cgb = sys.argv[1:6]
recs = [json.loads(l) for l in open(d + "/log")]
assert recs, "nothing pushed"
seen = {}
for r in recs:
    u = urllib.parse.urlsplit(r["path"])
    assert r["method"] == "POST" and u.path == "/ingest", r
    q = urllib.parse.parse_qs(u.query, strict_parsing=True)
    assert set(q) == {"name", "from", "until", "format", "sampleRate", "spyName"}, q
    assert q["format"] == ["pprof"] and q["spyName"] == ["prof"] and q["sampleRate"] == ["19"], q
    f, t = q["from"][0], q["until"][0]
    assert len(f) == 10 and len(t) == 10 and int(t) - int(f) == 2 and int(f) % 2 == 0, (f, t)
    assert r["ctype"] == "application/octet-stream", r
    name = q["name"][0]
    assert name.startswith("prof.test{") and name.endswith("}"), name
    labels = dict(kv.split("=", 1) for kv in name[len("prof.test{"):-1].split(","))
    if labels.get("cgroup") in (cga, cgb) and labels.get("uid") == "0":
        # run_in's shell and runuser start a tenant's program in its cgroup as root
        # for their first milliseconds: a sample there is root's, its org by the * line
        assert labels["user"] == "root" and r["org"] == "org-root", (r, labels)
        continue
    if labels.get("cgroup") == cga:
        assert labels == {"user": "profqa", "uid": ua, "cgroup": cga, "unit": "tenant-a.scope"}, labels
        assert r["org"] == "team-a", r
        seen.setdefault("a", r["seq"])
    elif labels.get("cgroup") == cgb:
        assert labels == {"user": "profqb", "uid": ub, "cgroup": cgb}, labels
        assert r["org"] == "org-profqb", r
        seen.setdefault("b", r["seq"])
    else:
        # everyone else on the host: their user's org, by the * line
        assert r["org"] == "org-" + labels["user"], (r, labels)
assert "a" in seen and "b" in seen, ("no series of", {"a", "b"} - set(seen))
print(seen["a"], seen["b"])
PY
read -r sa sb <"$TMP/picked"
for s in $sa $sb; do
	f=$(printf '%s/%06d.bin' "$R" "$s")
	gzip -t "$f" || fail "body $s is not gzip"
	HOME=$TMP "$GO" tool pprof -raw "$f" >"$TMP/b$s.raw" 2>"$TMP/err" || fail "go tool pprof body $s: $(cat "$TMP/err")"
	python3 - "$TMP/b$s.raw" <<'PY' || fail "body $s: $(head -30 "$TMP/b$s.raw")"
import re, sys
raw = open(sys.argv[1]).read()
n = sum(int(m.group(1)) for m in re.finditer(r"^\s+(\d+)\s+\d+: ", raw, re.M))
assert n > 0, "no samples"
assert "hot_function" in raw, "no hot_function"
assert not re.search(r"^\s+\w+:\[", raw, re.M), "samples carry labels (they would split the series)"
assert "samples/count cpu/nanoseconds" in raw, "sample types"
PY
done
pass "series of both tenants: POST /ingest, name prof.test{user,uid,cgroup[,unit]}, from/until 2 s apart, format=pprof, X-Scope-OrgID team-a / org-profqb; bodies are gzipped pprof with hot_function and no sample labels"

# the receiver away for a while: failures counted, the queue bounded
kill "$RECV"
wait "$RECV" 2>/dev/null
n0=$(nlog)
sleep 16        # 8 buckets close: more than push_queue (4) wait
fails=$(pstatus push_failures)
[ "$fails" -ge 2 ] || fail "push_failures $fails with the receiver down"
[ "$(pstatus push_queue)" -le 4 ] && [ "$(pstatus push_queue_max)" -le 4 ] || fail "the queue: $(pstatus push_queue) now, $(pstatus push_queue_max) at most"
[ "$(pstatus push_dropped)" -ge 1 ] || fail "no bucket dropped past push_queue 4: $(pstatus push_dropped)"
pstatus push_last_error | grep -qi "connect" || fail "last error: $(pstatus push_last_error)"
[ "$(pstatus export_failures)" -ge "$fails" ] || fail "export_failures $(pstatus export_failures)"
"$PROF" daemon status --socket "$SOCK" >"$TMP/status.txt" || fail "prof daemon status"
grep -qE "^push: .* $fails failures.*last error: Failed to connect" "$TMP/status.txt" ||
	grep -qE "^push: .* [0-9]+ failures.*last error: " "$TMP/status.txt" || fail "prof daemon status: $(cat "$TMP/status.txt")"
pass "receiver down: $fails failures, queue $(pstatus push_queue) (at most $(pstatus push_queue_max) of 4), $(pstatus push_dropped) buckets dropped, last error: $(pstatus push_last_error)"

# it comes back: pushing resumes, oldest first
receiver "$RPORT"
[ "$RPORT" = "$(cat "$R/port")" ] || fail "the receiver came back on another port"
for _ in $(seq 80); do [ "$(nlog)" -gt "$n0" ] && [ "$(pstatus push_queue)" -le 1 ] && break; sleep 0.1; done
[ "$(nlog)" -gt "$n0" ] || fail "nothing pushed after the receiver came back ($(pstatus push_last_error))"
python3 - "$R/log" "$n0" <<'PY' || fail "pushes after the outage are not in order"
import json, sys, urllib.parse
recs = [json.loads(l) for l in open(sys.argv[1])][int(sys.argv[2]):]
froms = [int(urllib.parse.parse_qs(urllib.parse.urlsplit(r["path"]).query)["from"][0]) for r in recs]
assert froms == sorted(froms), froms
PY
pass "the receiver back: $(( $(nlog) - n0 )) pushes, oldest bucket first"

# a 400 is a rejection (counted by status, the next series goes); 503 with
# Retry-After is retried until it is taken
echo 400 >"$R/mode"
n1=$(nlog)
for _ in $(seq 300); do [ "$(pstatus push_rejected)" -ge 2 ] && break; sleep 0.1; done
[ "$(pstatus push_rejected)" -ge 2 ] && pstatus push_rejected_by_status | grep -q '400=[1-9]' ||
	fail "400s: rejected $(pstatus push_rejected), $(pstatus push_rejected_by_status)"
pstatus push_last_error | grep -q "HTTP 400.*test receiver says 400" || fail "last error: $(pstatus push_last_error)"
echo "503 1" >"$R/mode"
f1=$(pstatus push_failures)
for _ in $(seq 200); do [ "$(pstatus push_failures)" -gt "$f1" ] && break; sleep 0.1; done
[ "$(pstatus push_failures)" -gt "$f1" ] || fail "a 503 is not counted"
ok1=$(pstatus push_pushed)
echo 200 >"$R/mode"
for _ in $(seq 200); do [ "$(pstatus push_pushed)" -gt "$ok1" ] && break; sleep 0.1; done
[ "$(pstatus push_pushed)" -gt "$ok1" ] || fail "no push after the 503s"
pass "400: rejected and counted ($(pstatus push_rejected_by_status)); 503 + Retry-After: retried, then taken"
stop_profd || fail "profd's exit after SIGTERM"
