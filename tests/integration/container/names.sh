#!/usr/bin/env bash
# The names people type (issue 21, item 3): --container NAME with podman's real
# containers (its containers.json), docker's config.v2.json in a data root given by
# prof.conf's [containers] docker_data_root, and Kubernetes' pod and container names
# from a kubelet log tree (kubelet_log_dir) for a container in a real cgroup laid out
# as the kubelet's (kubepods...pod<uid>/cri-containerd-<id>.scope):
# - record --container NAME / --pod NS/POD records that container or pod only;
# - report --sort container shows "name (id12)", JSON a container_name beside the
#   id, pprof a container_name label (go tool pprof -tags); the names are in the file;
# - an ambiguous name, an id prefix that is another container's name and a name
#   that matches nothing are refused, with the candidates or the places looked in;
# - a name with control characters reaches no terminal raw; a tenant (the
#   capability-installed prof as a test user) learns no name or id of root's containers.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../container.sh"
require_root
require_perf
command -v python3 >/dev/null || skip "needs python3"
command -v podman >/dev/null || skip "needs podman (Debian package podman)"

container_root "$TMP/root"
R=$TMP/root
container_podman "$R" -- /app/ctr-hot 60
A=$CTR_ID
podman rename "$A" prof-it-web 2>"$TMP/err" || fail "podman rename: $(cat "$TMP/err")"
container_podman "$R" -- /app/ctr-hot-nofp 60
B=$CTR_ID
podman rename "$B" prof-it-db 2>"$TMP/err" || fail "podman rename: $(cat "$TMP/err")"
container_run "$R" pod -- /app/ctr-hot 60
K=$CTR_ID POD=$CTR_POD_UID

# Which containers, their names and samples a file's --sort container rows have.
containers_of() {
	"$PROF" report -i "$1" --sort container -F json "${@:2}" | python3 -c '
import json, sys
for r in json.load(sys.stdin)["rows"]:
    print(r["container"] or "host", r["container_name"] or "-", r["samples"])'
}

# 1. podman's name: A only, named in every output.
F=$TMP/web.data
"$PROF" record --container prof-it-web -o "$F" -d 2 2>"$TMP/err" || fail "record --container prof-it-web: $(cat "$TMP/err")"
containers_of "$F" >"$TMP/c" || fail "report --sort container -F json"
note "record --container prof-it-web: $(tr '\n' ' ' <"$TMP/c")"
[ "$(wc -l <"$TMP/c")" -eq 1 ] && [ "$(cut -d' ' -f1-2 "$TMP/c")" = "$A prof-it-web" ] ||
	fail "not A's samples only, named: $(cat "$TMP/c")"
[ "$(cut -d' ' -f3 "$TMP/c")" -ge 300 ] || fail "too few samples of A: $(cat "$TMP/c")"
"$PROF" report -i "$F" --sort container,comm >"$TMP/text" 2>"$TMP/err" || fail "report text: $(cat "$TMP/err")"
grep -qE "prof-it-web \(${A:0:12}\) +ctr-hot" "$TMP/text" || fail "text report: $(cat "$TMP/text")"
grep -q "container-name $A prof-it-web" "$F" || fail "the name is not in the file's section"
pass "record --container prof-it-web (podman): $(cut -d' ' -f3 "$TMP/c") samples, all A's; text shows 'prof-it-web (${A:0:12})'"

# report --container NAME: by the names the file carries.
"$PROF" report -i "$F" --container prof-it-web --sort container -F json >"$TMP/j" 2>"$TMP/err" ||
	fail "report --container prof-it-web: $(cat "$TMP/err")"
python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); assert r["samples"] > 0 and r.get("filtered", 0) == 0, r' "$TMP/j" ||
	fail "report --container prof-it-web kept: $(head -c 500 "$TMP/j")"
"$PROF" report -i "$F" --container prof-it-db >/dev/null 2>"$TMP/err"; rc=$?
[ $rc -eq 2 ] && grep -q "has no samples of a container 'prof-it-db'; its containers: $A (prof-it-web)" "$TMP/err" ||
	fail "report --container prof-it-db: exit $rc: $(cat "$TMP/err")"
pass "report --container prof-it-web keeps its samples; another name is refused, naming the file's containers"

# pprof: the samples carry container_name.
P=$TMP/web.pb.gz
"$PROF" report -i "$F" -F pprof -o "$P" 2>"$TMP/err" || fail "-F pprof: $(cat "$TMP/err")"
GO=$(command -v go || true)
if [ -n "$GO" ] && "$GO" tool pprof -h >/dev/null 2>&1; then
	HOME=$TMP GOCACHE=$TMP/gocache "$GO" tool pprof -tags "$P" >"$TMP/tags" 2>"$TMP/tags.err" ||
		fail "go tool pprof -tags: $(head -c 1000 "$TMP/tags.err")"
	grep -A2 "^ container_name: Total" "$TMP/tags" | grep -qE "\( *100(\.0)?%\): prof-it-web$" ||
		fail "pprof's container_name labels: $(cat "$TMP/tags")"
	pass "-F pprof: every sample labelled container_name=prof-it-web"
else
	note "go tool pprof is not installed: the pprof labels were not read back"
fi

# 2. Refusals: no such name (where prof looked), an ambiguous one (candidates).
"$PROF" record --container prof-it-nothing -o "$TMP/x.data" -d 0.5 2>"$TMP/err"; rc=$?
[ $rc -eq 2 ] && grep -q "no container named 'prof-it-nothing' (looked in /var/lib/docker/containers/\*/config.v2.json, /var/lib/containers/storage/\*-containers/containers.json" "$TMP/err" ||
	fail "a name that matches nothing: exit $rc: $(cat "$TMP/err")"
[ ! -e "$TMP/x.data" ] || fail "the refused recording left a file"
pass "a name that matches nothing: refused, saying where prof looked"

# A docker data root of its own (as the real-Docker test's dockerd has), naming B
# as A is named in podman's: ambiguous, both listed.
D=$TMP/docker
mkdir -p "$D/containers/$B"
docker_config() {       # ID NAME: a config.v2.json as dockerd writes it, members cut
	python3 -c 'import json, sys; print(json.dumps({"State": {"Running": True, "Pid": 1}, "ID": sys.argv[1],
	"Config": {"Hostname": sys.argv[1][:12], "Image": "prof-it", "Labels": {"Name": "not this"}},
	"Name": "/" + sys.argv[2], "Driver": "overlay2"}))' "$1" "$2"
}
docker_config "$B" prof-it-web >"$D/containers/$B/config.v2.json"
printf '[containers]\ndocker_data_root = %s\nkubelet_log_dir = %s\n' "$D" "$TMP/log" >"$TMP/prof.conf"
"$PROF" record --config "$TMP/prof.conf" --container prof-it-web -o "$TMP/x.data" -d 0.5 2>"$TMP/err"; rc=$?
[ $rc -eq 2 ] && grep -q "container name 'prof-it-web' is ambiguous: 2 match: prof-it-web ${B:0:12} (docker), prof-it-web ${A:0:12} (podman); give its id" "$TMP/err" ||
	fail "an ambiguous name: exit $rc: $(cat "$TMP/err")"
pass "an ambiguous name: refused with both candidates ($(cat "$TMP/err"))"

# 3. docker's name, from the configured data root; an id prefix that is another
# container's name is refused.
docker_config "$B" prof-it-dk >"$D/containers/$B/config.v2.json"
F=$TMP/dk.data
"$PROF" record --config "$TMP/prof.conf" --container prof-it-dk -o "$F" -d 2 2>"$TMP/err" ||
	fail "record --container prof-it-dk: $(cat "$TMP/err")"
containers_of "$F" >"$TMP/c" || fail "report --sort container"
[ "$(wc -l <"$TMP/c")" -eq 1 ] && [ "$(cut -d' ' -f1-2 "$TMP/c")" = "$B prof-it-dk" ] ||
	fail "not B's samples only, named by docker's config: $(cat "$TMP/c")"
pass "record --container prof-it-dk (docker_data_root $D): B only, named prof-it-dk"
docker_config "$B" "${A:0:12}" >"$D/containers/$B/config.v2.json"
"$PROF" record --config "$TMP/prof.conf" --container "${A:0:12}" -o "$TMP/x.data" -d 0.5 2>"$TMP/err"; rc=$?
[ $rc -eq 2 ] && grep -q "container '${A:0:12}' is ambiguous: it is the name of docker container ${B:0:12}" "$TMP/err" ||
	fail "an id prefix that is a name: exit $rc: $(cat "$TMP/err")"
pass "an id prefix that is another container's name: refused"

# 4. A hostile name: control characters reach no terminal raw; JSON has them escaped.
docker_config "$B" $'evil\e]0;pwned\a\e[31mred' >"$D/containers/$B/config.v2.json"
F=$TMP/evil.data
"$PROF" record --config "$TMP/prof.conf" --container "${B:0:16}" -o "$F" -d 1 2>"$TMP/err" || fail "record B: $(cat "$TMP/err")"
"$PROF" report -i "$F" --sort container >"$TMP/text" 2>&1 || fail "report: $(cat "$TMP/text")"
grep -q $'\e' "$TMP/text" && fail "an escape character reached the text report"
grep -qF 'evil\x1b]0;pwned\x07\x1b[31mred ('"${B:0:12}"')' "$TMP/text" || fail "the escaped name: $(cat "$TMP/text")"
"$PROF" report -i "$F" --sort container -F json | python3 -c '
import json, sys
r = json.load(sys.stdin)["rows"]
assert [x["container_name"] for x in r] == ["evil\x1b]0;pwned\x07\x1b[31mred"], r' || fail "JSON's container_name"
pass "a name with control characters: escaped in text (\\x1b), exact in JSON"

# 5. Kubernetes: the kubelet's log tree names the pod and its container.
L=$TMP/log
mkdir -p "$L/pods/shop_web-0_$POD/app" "$L/pods/shop_other-1_$(cat /proc/sys/kernel/random/uuid)" "$L/containers"
: >"$L/pods/shop_web-0_$POD/app/0.log"
ln -s "$L/pods/shop_web-0_$POD/app/0.log" "$L/containers/web-0_shop_app-$K.log"
F=$TMP/pod.data
"$PROF" record --config "$TMP/prof.conf" --pod shop/web-0 -o "$F" -d 2 2>"$TMP/err" || fail "record --pod shop/web-0: $(cat "$TMP/err")"
containers_of "$F" >"$TMP/c" || fail "report --sort container"
[ "$(wc -l <"$TMP/c")" -eq 1 ] && [ "$(cut -d' ' -f1-2 "$TMP/c")" = "$K shop/web-0/app" ] ||
	fail "not the pod's container only, named: $(cat "$TMP/c")"
"$PROF" report -i "$F" --sort container >"$TMP/text" || fail "report"
grep -qF "shop/web-0/app (${K:0:12})" "$TMP/text" || fail "text: $(cat "$TMP/text")"
# the container restarted: the kubelet's link of the old one is still there (a
# second id of that name); the one that runs is meant
dead=$(ctr_new_id)
ln -s "$L/pods/shop_web-0_$POD/app/1.log" "$L/containers/web-0_shop_app-$dead.log"
F=$TMP/kc.data
"$PROF" record --config "$TMP/prof.conf" --container shop/web-0/app -o "$F" -d 1 2>"$TMP/err" ||
	fail "record --container shop/web-0/app: $(cat "$TMP/err")"
[ "$(containers_of "$F" | cut -d' ' -f1)" = "$K" ] || fail "--container shop/web-0/app: $(containers_of "$F")"
"$PROF" record --config "$TMP/prof.conf" --pod shop/nope -o "$TMP/x.data" -d 0.5 2>"$TMP/err"; rc=$?
[ $rc -eq 2 ] && grep -q "no pod named 'shop/nope' (looked in .*$L/pods" "$TMP/err" || fail "--pod shop/nope: exit $rc: $(cat "$TMP/err")"
pass "--pod shop/web-0 and --container shop/web-0/app (of two ids, the one that runs): the pod's container, shown 'shop/web-0/app (${K:0:12})'; an unknown pod refused"

# 6. A tenant (capability-installed prof, a test user) reads none of root's runtime
# state: a name gives neither a recording nor the id.
if command -v setcap >/dev/null && command -v runuser >/dev/null; then
	U=prof-it-names
	make_user "$U"
	mkdir -p "$TMP/bin" "$TMP/u" && chmod 755 "$TMP" "$TMP/bin" && chown "$U" "$TMP/u" || fail "dirs"
	cp "$PROF" "$TMP/bin/prof" && chmod 755 "$TMP/bin/prof" || fail "copy"
	if setcap cap_perfmon,cap_sys_ptrace,cap_syslog=ep "$TMP/bin/prof" 2>/dev/null; then
		(cd "$TMP/u" && runuser -u "$U" -- timeout 20 "$TMP/bin/prof" record --container prof-it-web -o u.data -d 0.5) \
			>/dev/null 2>"$TMP/err"
		rc=$?
		[ "$rc" -eq 2 ] && grep -q "no container named 'prof-it-web'.*not readable with your rights" "$TMP/err" ||
			fail "a tenant's --container NAME of root's container: exit $rc: $(cat "$TMP/err")"
		grep -q "${A:0:12}" "$TMP/err" && fail "the tenant learnt A's id: $(cat "$TMP/err")"
		[ ! -e "$TMP/u/u.data" ] || fail "the refused recording left a file"
		pass "a tenant's --container NAME of root's container: refused, no id said ($(cat "$TMP/err"))"
	else
		note "file capabilities are not supported here: the tenant's case was not run"
	fi
else
	note "no setcap or runuser: the tenant's case was not run"
fi
