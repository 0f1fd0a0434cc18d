#!/usr/bin/env bash
# Containers as scopes and labels (issue 17, item 4), with containers made by
# ../container.sh as runtimes make them (Docker's, podman's, containerd's and
# CRI-O's cgroup names, a Kubernetes pod), a host process beside them, and perf as
# the reference:
# - record --container <12-digit prefix> has the container's samples only (not the
#   host process's, not another container's), perf's --sort cgroup agreeing;
# - record --pod UID (dashes or underscores) has the pod's containers only;
# - an ambiguous prefix (two containers whose ids share 12 digits), a missing id and
#   a malformed one are refused (exit 2) naming the candidates;
# - report --sort container: each container's samples are the sum of its cgroups'
#   (--sort cgroup, on the same file); the text shows the 12-digit id, "-" for the
#   host; report --container filters, and refuses an ambiguous or missing one;
# - JSON and -F pprof carry the container's id (go tool pprof -tags);
# - top --container shows the container only.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../container.sh"
require_root
require_perf
command -v python3 >/dev/null || skip "needs python3"

container_root "$TMP/root"
R=$TMP/root
cp "$PROF_HOT" "$TMP/host-hot"
"$TMP/host-hot" 60 >/dev/null &
host_pid=$!
cleanup_hooks+=("kill $host_pid 2>/dev/null")

container_run "$R" docker -- /app/ctr-hot 60
A=$CTR_ID A_CG=$CTR_CGROUP
container_run "$R" pod -- /app/ctr-hot-nofp 60
B=$CTR_ID B_CG=$CTR_CGROUP POD=$CTR_POD_UID POD_CG=$CTR_POD_CGROUP
container_run "$R" "crio:$POD" -- /app/ctr-hot 60
B2=$CTR_ID
# C's id shares A's first 12 digits; its cgroup is podman's (cgroupfs manager)
C=${A:0:12}$(ctr_new_id | cut -c13-)
container_run "$R" "libpod_parent/libpod-$C" -- /app/ctr-hot 60
C_CG=$CTR_CGROUP
[ "${C:0:16}" != "${A:0:16}" ] || skip "two random ids share 16 digits"

# Which containers (and how many samples) a file's --sort container rows have.
containers_of() {
	"$PROF" report -i "$1" --sort container -F json "${@:2}" | python3 -c '
import json, sys
for r in json.load(sys.stdin)["rows"]:
    print(r["container"] or "host", r["samples"])'
}

# 1. --container with a 16-digit prefix (12 are A's and C's): A only.
F=$TMP/a.data
"$PROF" record --container "${A:0:16}" -o "$F" -d 3 2>"$TMP/err" || fail "record --container: $(cat "$TMP/err")"
containers_of "$F" >"$TMP/c" || fail "report --sort container"
note "record --container ${A:0:16}: $(tr '\n' ' ' <"$TMP/c")"
[ "$(wc -l <"$TMP/c")" -eq 1 ] && [ "$(cut -d' ' -f1 "$TMP/c")" = "$A" ] || fail "not A's samples only: $(cat "$TMP/c")"
[ "$(cut -d' ' -f2 "$TMP/c")" -ge 500 ] || fail "too few samples of A: $(cat "$TMP/c")"
perf_clean "$TMP/perf" report -i "$F" --stdio --no-children --sort cgroup,comm
grep -E '^ +[0-9]' "$TMP/perf" | grep -vE " /$A_CG +ctr-hot *$" && fail "perf report: samples not A's ctr-hot"
grep -qE " /$A_CG +ctr-hot" "$TMP/perf" || fail "perf report: no A: $(head -c 1500 "$TMP/perf")"
"$PROF" report -i "$F" --sort comm | grep -q host-hot && fail "the host process is in the file"
pass "record --container ${A:0:16}: $(cut -d' ' -f2 "$TMP/c") samples, all A's (perf report --sort cgroup agrees), no host or other container's"

# 2. --pod: the pod's two containers, not A, C or the host.
"$PROF" record --pod "$POD" -q -o "$F" -d 2 2>"$TMP/err" || fail "record --pod: $(cat "$TMP/err")"
containers_of "$F" | sort >"$TMP/c"
printf '%s\n%s\n' "$B" "$B2" | sort >"$TMP/want"
[ "$(cut -d' ' -f1 "$TMP/c")" = "$(cat "$TMP/want")" ] || fail "record --pod: $(cat "$TMP/c"), want B and B2"
"$PROF" record --pod "${POD//-/_}" -q -o "$F" -d 0.3 2>"$TMP/err" || fail "record --pod with underscores: $(cat "$TMP/err")"
pass "record --pod $POD: its two containers only ($(tr '\n' ' ' <"$TMP/c"))"

# 3. Errors: ambiguous, missing, malformed; exit 2 as other scope errors.
expect_refused() {
	local what=$1 pattern=$2; shift 2
	"$PROF" "$@" >/dev/null 2>"$TMP/err"
	local rc=$?
	[ "$rc" -eq 2 ] || fail "$what: exit $rc (want 2): $(cat "$TMP/err")"
	grep -qE -- "$pattern" "$TMP/err" || fail "$what: message: $(cat "$TMP/err")"
	note "$what: $(cat "$TMP/err")"
}
expect_refused "ambiguous prefix" "ambiguous.*$A \\(/$A_CG\\).*|ambiguous.*$C \\(/$C_CG\\)" \
	record --container "${A:0:12}" -q -o "$F" -d 0.3
grep -qF "$A (/$A_CG)" "$TMP/err" && grep -qF "$C (/$C_CG)" "$TMP/err" || fail "ambiguity does not name both: $(cat "$TMP/err")"
expect_refused "missing container" "no container 'ffffffffffff0000'.*containers here: .*${A:0:12} \\(/$A_CG\\)" \
	record --container ffffffffffff0000 -q -o "$F" -d 0.3
expect_refused "short prefix" "at least its first 12 hex digits" record --container "${A:0:11}" -q -o "$F" -d 0.3
expect_refused "missing pod" "no pod with uid.*pods here: .*$POD \\(/$POD_CG\\)" \
	record --pod 00000000-0000-0000-0000-000000000000 -q -o "$F" -d 0.3
expect_refused "top, ambiguous" "ambiguous" top --container "${A:0:12}" --stdio -n 1 -d 0.2
pass "ambiguous, missing and malformed ids and pods refused (exit 2), naming the candidates"

# 3b. A tenant (a capability-installed prof run by a test user) may not record a
# container that is not theirs: its cgroup is checked as a --cgroup's is.
if command -v setcap >/dev/null && command -v runuser >/dev/null; then
	U=prof-it-ctr
	make_user "$U"
	mkdir -p "$TMP/bin" "$TMP/u" && chmod 755 "$TMP" "$TMP/bin" && chown "$U" "$TMP/u" || fail "dirs"
	cp "$PROF" "$TMP/bin/prof" && chmod 755 "$TMP/bin/prof" || fail "copy"
	if setcap cap_perfmon,cap_sys_ptrace,cap_syslog=ep "$TMP/bin/prof" 2>/dev/null; then
		(cd "$TMP/u" && runuser -u "$U" -- timeout 20 "$TMP/bin/prof" record --container "${A:0:16}" -o u.data -d 0.5) \
			>/dev/null 2>"$TMP/err"
		rc=$?
		[ "$rc" -eq 1 ] && grep -q "refused by the access policy.*cgroup /$A_CG is not delegated" "$TMP/err" ||
			fail "a tenant's --container of root's container: exit $rc: $(cat "$TMP/err")"
		[ ! -e "$TMP/u/u.data" ] || fail "the refused recording left a file"
		pass "a tenant's --container of a container not theirs: refused ($(cat "$TMP/err"))"
	else
		note "file capabilities are not supported here: the tenant's case was not run"
	fi
else
	note "no setcap or runuser: the tenant's case was not run"
fi

# 4. A file with everything: --sort container agrees with --sort cgroup.
F=$TMP/all.data
"$PROF" record -a -q -o "$F" -d 3 2>"$TMP/err" || fail "record -a: $(cat "$TMP/err")"
"$PROF" report -i "$F" --sort container -F json >"$TMP/by_container.json" || fail "report --sort container"
"$PROF" report -i "$F" --sort cgroup -F json >"$TMP/by_cgroup.json" || fail "report --sort cgroup"
python3 - "$TMP/by_container.json" "$TMP/by_cgroup.json" "$A" "$B" "$B2" "$C" "/$A_CG" <<'PY' || fail "--sort container and --sort cgroup disagree"
import collections, json, sys
byc, bycg = (json.load(open(f)) for f in sys.argv[1:3])
a, b, b2, c, a_cg = sys.argv[3:]
assert byc["samples"] == bycg["samples"], (byc["samples"], bycg["samples"])
have = {r["container"]: r["samples"] for r in byc["rows"]}
summed = collections.Counter()
for r in bycg["rows"]:
    summed[r["container"]] += r["samples"]
    if r["cgroup"] == a_cg:
        assert r["container"] == a, r
print("by container:", {k[:16] or "host": v for k, v in have.items()})
print("by cgroup, summed:", {k[:16] or "host": v for k, v in summed.items()})
assert have == dict(summed), "the sums differ"
for i in (a, b, b2, c):
    assert have.get(i, 0) >= 200, f"container {i[:12]}: {have.get(i, 0)} samples"
assert have.get("", 0) >= 200, "host tasks"
PY
"$PROF" report -i "$F" --sort container,comm >"$TMP/text" || fail "text report"
grep -qE "^ +[0-9.]+% +[0-9]+ +${B:0:12} +ctr-hot-nofp *$" "$TMP/text" || fail "text: no '${B:0:12} ctr-hot-nofp' row: $(head -20 "$TMP/text")"
grep -qE "^ +[0-9.]+% +[0-9]+ +- +host-hot *$" "$TMP/text" || fail "text: the host process is not under '-': $(head -20 "$TMP/text")"
grep -q "$A" "$TMP/text" && fail "text shows the full id"
pass "report --sort container: each container's samples are its cgroups' (--sort cgroup), the host's under '-'"

# 5. report --container filters the same file.
containers_of "$F" --container "${C:0:16}" >"$TMP/c" || fail "report --container"
want=$(python3 -c 'import json,sys; print(sum(r["samples"] for r in json.load(open(sys.argv[1]))["rows"] if r["container"] == sys.argv[2]))' \
	"$TMP/by_container.json" "$C")
[ "$(cat "$TMP/c")" = "$C $want" ] || fail "report --container ${C:0:16}: $(cat "$TMP/c"), want $C $want"
expect_refused "report, ambiguous" "ambiguous in .*$A" report -i "$F" --container "${A:0:12}"
grep -qF "$C" "$TMP/err" || fail "report's ambiguity does not name C: $(cat "$TMP/err")"
expect_refused "report, missing" "has no samples of a container 'ffffffffffff'.*its containers: .*$A" \
	report -i "$F" --container ffffffffffff
pass "report --container ${C:0:16}: its $want samples; ambiguous and missing refused"

# 6. Labels: JSON rows by cgroup name their container, pprof's samples carry it.
P=$TMP/p.pb.gz
"$PROF" report -i "$F" -F pprof -o "$P" 2>"$TMP/err" || fail "-F pprof: $(cat "$TMP/err")"
GO=$(command -v go || true)
if [ -n "$GO" ] && "$GO" tool pprof -h >/dev/null 2>&1; then
	"$GO" tool pprof -tags "$P" >"$TMP/tags" 2>"$TMP/tags.err" || fail "go tool pprof -tags: $(head -c 1000 "$TMP/tags.err")"
	python3 - "$TMP/tags" "$TMP/by_container.json" "$A" "$B" <<'PY' || fail "pprof's container labels"
import json, re, sys
text = open(sys.argv[1]).read()
m = re.search(r"^ container: Total (\S+)\n((?:\s+\S+ \(\s*[\d.]+%\): \S+\n)+)", text, re.M)
assert m, text[:2000]
counts = {v: n for n, v in re.findall(r"^\s+(\S+) \(\s*[\d.]+%\): (\S+)$", m.group(2), re.M)}
rows = {r["container"]: r for r in json.load(open(sys.argv[2]))["rows"]}
for i in sys.argv[3:]:
    assert i in counts, f"{i[:12]} not among the labels {list(counts)[:6]}"
print("pprof container labels:", {k[:16]: v for k, v in counts.items()})
PY
	pass "-F pprof: samples labelled container=<id>"
else
	note "go tool pprof is not installed: the pprof labels were not read back"
fi

# 7. top --container: the container's rows only.
"$PROF" top --container "${B:0:12}" --stdio -n 2 -d 1 --sort container,comm >"$TMP/top" 2>"$TMP/err" ||
	fail "top --container: $(cat "$TMP/err")"
grep -qE "^ +[0-9.]+% +([0-9]+ +)?${B:0:12} +ctr-hot-nofp" "$TMP/top" || fail "top: no B row: $(head -c 1500 "$TMP/top")"
grep -E '^ +[0-9.]+%' "$TMP/top" | grep -vE "${B:0:12} +ctr-hot-nofp" && fail "top shows others"
pass "top --container ${B:0:12}: B's rows only"
