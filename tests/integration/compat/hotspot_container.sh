#!/usr/bin/env bash
# hotspot (Debian's package, 1.3.0 in Debian 12) names a container's samples as perf
# report does, never after the host's file at the container's path.  A pod (as
# ../container/objects.sh makes it) of two containers, one running /app/ctr-hot (a
# path only inside its root), one running ctr-hot at the decoy path (where the host
# has a DIFFERENT program, functions decoy_*), recorded with `prof record --cgroup
# POD` (-g, then --call-graph dwarf with the programs built without frame pointers);
# the containers are gone before the files are read.  hotspot's parser
# (hotspot-perfparser) reads each file with no path given, the build-id cache the
# invoking user's ($HOME/.debug, where prof keeps the containers' objects).  Checks:
# - each function of the containers' objects that perf report names for a container
#   (>= 1 % of its samples) is defined in the parser's stream, its share of that
#   container's samples (as the leaf) within 5 points of perf report's;
# - no decoy_* function is defined in the stream.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../container.sh"
require_root
require_perf
command -v python3 >/dev/null || skip "needs python3"
command -v readelf >/dev/null || skip "needs readelf (binutils)"
PP=/usr/lib/x86_64-linux-gnu/libexec/hotspot-perfparser
[ -x "$PP" ] || skip "needs hotspot's parser $PP (Debian package hotspot)"
[ ! -e /app ] || skip "the host has /app: the test needs that path to exist only in the container"
stream=$(dirname "$0")/perfparser_stream.py

container_root "$TMP/root"
R=$TMP/root
D=$CTR_DECOY_DIR
[ -n "$(ctr_build_id "$R/app/ctr-hot")" ] || skip "gcc writes no build ids here"
nm "$D/ctr-hot" | grep -q ' decoy_' || fail "the host's $D/ctr-hot is not the decoy"

# run NAME SUFFIX OPTIONS...: the pod recorded with OPTIONS, then its containers gone.
run() {
	local name=$1 sfx=$2
	shift 2
	export HOME=$TMP/home-$name
	mkdir -p "$HOME"
	container_run --quiet "$R" pod -- /app/ctr-hot pause
	local pod=$CTR_POD_CGROUP pod_uid=$CTR_POD_UID
	container_run --quiet "$R" "pod:$pod_uid" -- "/app/ctr-hot$sfx" 0
	app=$CTR_PID
	container_run --quiet "$R" "pod:$pod_uid" -- "$D/ctr-hot$sfx" 0
	decoy=$CTR_PID
	F=$TMP/$name.data
	"$PROF" record --cgroup "$pod" "$@" -e cpu-clock -F 1000 -o "$F" -d 4 2>"$TMP/$name.err" ||
		fail "$name: prof record exited $?: $(cat "$TMP/$name.err")"
	container_cleanup
}

# check NAME: the parser's stream of $F against perf report's names, per container.
check() {
	local name=$1 p
	# perf's own warnings (chunks lost on a loaded host) are noted: both readers read
	# the same records, and the names and shares are what is compared
	"$PERF" report -i "$F" --stdio --no-children -F sample,pid,dso,sym -g none -t '|' >"$TMP/$name.perf" 2>"$TMP/$name.perr" ||
		fail "$name: perf report exited $?: $(head -c 2000 "$TMP/$name.perr")"
	[ ! -s "$TMP/$name.perr" ] || note "$name: perf report said: $(tr '\n' ' ' <"$TMP/$name.perr")"
	"$PP" --input "$F" --output "$TMP/$name.qps" 2>"$TMP/$name.pperr" ||
		fail "$name: hotspot-perfparser exited $?: $(tail -5 "$TMP/$name.pperr")"
	python3 "$stream" "$TMP/$name.qps" >"$TMP/$name.all" || fail "$name: the parser's stream: $(cat "$TMP/$name.all")"
	! grep -q $'\tdecoy_' "$TMP/$name.all" ||
		fail "$name: hotspot's parser read the host's decoy: $(grep $'\tdecoy_' "$TMP/$name.all" | head -3)"
	for p in "$app" "$decoy"; do
		python3 "$stream" "$TMP/$name.qps" "$p" >"$TMP/$name.$p" || fail "$name: the parser's stream of $p"
		python3 - "$name" "$p" "$TMP/$name.perf" "$TMP/$name.$p" <<'PY' || fail "$name: pid $p: hotspot's names differ from perf report's"
import collections, re, sys
name, pid, perf, defs = sys.argv[1:]
own = re.compile(r"(^|/)(ctr-hot|libctr)[^/]*$")
# perf report -F sample,pid,dso,sym -t '|': "  1234|  4242:ctr-hot|ctr-hot|[.] ctr_app_spin"
perf_n, perf_total = collections.Counter(), 0
for line in open(perf, errors="replace"):
    f = line.rstrip("\n").split("|")
    if line.startswith("#") or len(f) < 4 or f[1].strip().split(":")[0] != pid:
        continue
    perf_total += int(f[0])
    if own.search(f[2].strip()):
        perf_n[re.sub(r"^\[.\] ", "", f[3].strip())] += int(f[0])
hs_n, hs_total = collections.Counter(), 0
for line in open(defs):
    if line.startswith("# samples "):
        hs_total = int(line.split()[2])
    elif not line.startswith("#"):
        counts, _, sym = line.rstrip("\n").partition("\t")
        self_n, _total, binary = counts.split(" ", 2)
        if own.search(binary):
            hs_n[sym] += int(self_n)
if perf_total < 100 or hs_total < 100:
    sys.exit(f"{name}: pid {pid}: {perf_total} samples in perf report, {hs_total} in the stream")
bad, shown = [], []
for sym, n in perf_n.most_common():
    if n < perf_total / 100:
        continue
    p, h = 100 * n / perf_total, 100 * hs_n[sym] / hs_total
    shown.append(f"{sym} {p:.1f}/{h:.1f}%")
    if abs(p - h) > 5:
        bad.append(sym)
if not shown or bad:
    sys.exit(f"{name}: pid {pid}: perf/hotspot: {shown}; not within 5 points: {bad}; hotspot has {hs_n.most_common(5)}")
print(f"# {name}: pid {pid}: perf report/hotspot's parser: " + ", ".join(shown))
PY
	done
	pass "$name: hotspot's parser names both containers' functions as perf report does, none of the host's decoy"
}

run fp "" -g
check fp
run dwarf -nofp --call-graph dwarf
check dwarf
