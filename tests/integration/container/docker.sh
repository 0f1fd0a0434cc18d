#!/usr/bin/env bash
# Issue 21, real Docker: Debian's docker.io, a dockerd of the test's own (dockerd.sh:
# its own data root, exec root, pidfile and socket, no iptables or bridge, the
# cgroupfs driver: containers in cgroup /docker/<id>), an image made by `docker
# import` of a root built here (busybox-static's shell, the container tests' program
# ctr-hot and its library, its loader and libc: ../container.sh), no network.  The
# program is at a path where the host has another (the decoy, functions decoy_*).
# Checks:
# - a container's shell runs 30 ms processes of the program in a loop, recorded by
#   `prof record -g --container ID`: >= 95 % of their samples named by prof report
#   and by perf report of prof's file, none after the host's decoy;
# - the same without frame pointers, `--call-graph dwarf`: >= 95 % named, none
#   after the decoy, >= 90 % of their stacks reach main and _start (prof report -F
#   folded, perf script of prof's file);
# - containers whose one process lives 30 ms (each container ~30 ms in all),
#   started during a `prof record -a -g`: their samples named by both readers, none
#   after the decoy;
# - `prof report --sort container` names each of these containers by the name
#   Docker gave it, beside its id (they are gone, their state is still there);
# - `--container NAME` finds the container Docker named in its dockerd's data root
#   (a prof.conf [containers] docker_data_root), and reports show the name.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../container.sh"
. "$(dirname "$0")/dockerd.sh"
require_root
require_perf
command -v python3 >/dev/null || skip "needs python3"
command -v readelf >/dev/null || skip "needs readelf (binutils)"
[ -x /bin/busybox ] || skip "needs busybox-static (/bin/busybox)"
file -L /bin/busybox 2>/dev/null | grep -q 'statically linked' || skip "/bin/busybox is not busybox-static"

container_root "$TMP/root"
R=$TMP/root
D=$CTR_DECOY_DIR
[ -n "$(ctr_build_id "$R$D/ctr-hot")" ] || skip "gcc writes no build ids here"
mkdir -p "$R/bin" && cp /bin/busybox "$R/bin/busybox" && ln -s busybox "$R/bin/sh" || fail "busybox into $R"
export HOME=$TMP/home
mkdir -p "$HOME"

dockerd_start
dockerd_image "$R" prof-it-ctr:1
note "image prof-it-ctr:1: $(dk image inspect -f '{{.Size}}' prof-it-ctr:1) bytes"

# prof report -F json and perf report of prof's file $F, for NAME.
reports() {
	local name=$1
	"$PROF" report -i "$F" -F json --sort comm,dso,sym >"$TMP/$name.json" 2>"$TMP/$name.rerr" ||
		fail "$name: prof report: $(cat "$TMP/$name.rerr")"
	perf_clean "$TMP/$name.perf" report -i "$F" --stdio --no-children -F sample,comm,dso,sym -g none -t '|'
}

# At least MIN % of COMM's samples named by each reader, none after the decoy, at
# least LEAST samples.
check_named() {
	local name=$1 comm=$2 min=$3 least=$4 reader c n right wrong dec unknown
	for reader in "prof-json $TMP/$name.json" "perf-report $TMP/$name.perf"; do
		read -r c n right wrong dec unknown < <(python3 "$CTR_SHARE" comms $reader "$comm")
		[ "$n" -ge "$least" ] || fail "$name ${reader%% *}: $comm has $n samples"
		[ "$wrong" -eq 0 ] || fail "$name ${reader%% *}: $wrong of $n samples named wrong ($dec after the host's decoy)"
		[ $((right * 100)) -ge $((n * min)) ] || fail "$name ${reader%% *}: $right of $n named ($unknown unknown)"
		note "$name ${reader%% *}: $right of $n samples of $comm named, $unknown unknown, 0 wrong"
	done
}

# (a) A loop of 30 ms processes in a container, frame pointers.
docker_start prof-it-loop prof-it-ctr:1 /bin/sh -c "while :; do $D/ctr-hot 0.03; done"
[ "$DK_CGROUP" = "docker/$DK_ID" ] || note "the container's cgroup is /$DK_CGROUP, not /docker/<id>"
F=$TMP/loop.data
"$PROF" record -g --container "$DK_ID" -e cpu-clock -F 1000 -o "$F" -d 4 2>"$TMP/loop.err" ||
	fail "loop: prof record: $(cat "$TMP/loop.err")"
note "loop: $(grep -E '^prof: .*(objects|mappings)' "$TMP/loop.err" | tr '\n' ' ')"
reports loop
check_named loop ctr-hot 95 1000
"$PROF" report -i "$F" --sort container >"$TMP/loop.ctr" 2>&1 || fail "prof report --sort container: $(cat "$TMP/loop.ctr")"
grep -q "${DK_ID:0:12}" "$TMP/loop.ctr" || fail "--sort container does not show ${DK_ID:0:12}: $(head -20 "$TMP/loop.ctr")"
note "--sort container: $(grep -E '^ +[0-9.]+%' "$TMP/loop.ctr" | head -3 | tr -s ' ' | tr '\n' ';')"
# (a') The same container by the name Docker gave it: its state is in this dockerd's
# data root, which a prof.conf [containers] section names.
printf '[containers]\ndocker_data_root = %s\n' "$DK_DIR/data" >"$TMP/names.conf"
F=$TMP/named.data
"$PROF" record --config "$TMP/names.conf" -g --container prof-it-loop -e cpu-clock -F 1000 -o "$F" -d 2 \
	2>"$TMP/named.err" || fail "named: prof record --container prof-it-loop: $(cat "$TMP/named.err")"
reports named
check_named named ctr-hot 95 400
"$PROF" report -i "$F" --sort container >"$TMP/named.ctr" 2>&1 || fail "named: prof report --sort container: $(cat "$TMP/named.ctr")"
grep -q "prof-it-loop (${DK_ID:0:12})" "$TMP/named.ctr" ||
	fail "named: --sort container does not show 'prof-it-loop (${DK_ID:0:12})': $(head -20 "$TMP/named.ctr")"
"$PROF" report -i "$F" -F json --sort container >"$TMP/named.cjson" 2>&1 || fail "named: prof report -F json"
python3 - "$TMP/named.cjson" "$DK_ID" <<'PY' || fail "named: JSON has no container_name prof-it-loop for $DK_ID"
import json, sys
d = json.load(open(sys.argv[1]))
rows = [r for e in (d.get("events") or [d]) for r in e.get("rows", [])]
sys.exit(0 if any(r.get("container") == sys.argv[2] and r.get("container_name") == "prof-it-loop" for r in rows) else 1)
PY
pass "docker, --container NAME: the container Docker named, found in its dockerd's data root; --sort container and JSON show the name"
dk rm -f prof-it-loop >/dev/null
pass "docker, a loop of 30 ms processes, -g: >= 95 % named by prof report and perf report, none after the decoy; --sort container shows it"

# (a') The same without frame pointers, --call-graph dwarf.
docker_start prof-it-dwarf prof-it-ctr:1 /bin/sh -c "while :; do $D/ctr-hot-nofp 0.03; done"
F=$TMP/dwarf.data
"$PROF" record --call-graph dwarf --container "$DK_ID" -e cpu-clock -F 1000 -o "$F" -d 4 2>"$TMP/dwarf.err" ||
	fail "dwarf: prof record: $(cat "$TMP/dwarf.err")"
note "dwarf: $(grep -E '^prof: .*(objects|mappings)' "$TMP/dwarf.err" | tr '\n' ' ')"
reports dwarf
check_named dwarf ctr-hot-nofp 95 1000
ctr_check_dwarf_stacks "$F"
dk rm -f prof-it-dwarf >/dev/null
pass "docker, a loop of 30 ms processes, --call-graph dwarf: >= 95 % named, >= 90 % of stacks reach main, none after the decoy"

# (b) Containers of ~30 ms in all (one process of 30 ms each), during an -a recording.
F=$TMP/short.data
"$PROF" record --config "$TMP/names.conf" -a -g -e cpu-clock -F 1000 -o "$F" -- sleep 12 2>"$TMP/short.err" &
rec=$!
cleanup_hooks=("kill $rec 2>/dev/null" "${cleanup_hooks[@]}")
sleep 2
ids=()
for i in 1 2 3 4 5; do
	dk create --network none --name "prof-it-short$i" prof-it-ctr:1 "$D/ctr-hot" 0.03 >/dev/null || fail "docker create"
	ids+=("$(dk inspect -f '{{.Id}}' "prof-it-short$i")")
	dk start -a "prof-it-short$i" >/dev/null || fail "container $i exited $?"
done
wait "$rec" || fail "short: prof record exited $?: $(cat "$TMP/short.err")"
note "short: $(grep -E '^prof: .*(objects|mappings)' "$TMP/short.err" | tr '\n' ' ')"
reports short
check_named short ctr-hot 95 40
"$PROF" report -i "$F" --sort container,comm >"$TMP/short.ctr" 2>&1 || fail "prof report --sort container: $(cat "$TMP/short.ctr")"
for i in 1 2 3 4 5; do
	id=${ids[i - 1]}
	grep -E "prof-it-short$i \(${id:0:12}\).*ctr-hot" "$TMP/short.ctr" >/dev/null ||
		fail "short: --sort container,comm has no ctr-hot row of prof-it-short$i (${id:0:12}): $(grep -E 'ctr-hot|docker' "$TMP/short.ctr" | head)"
done
pass "docker, 5 containers of 30 ms in all during prof record -a: their samples named by both readers, none after the decoy; each shown by its name by --sort container"
