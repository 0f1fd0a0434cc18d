#!/usr/bin/env bash
# podman (Debian's, with runc) runs the harness's root with --rootfs, as root (its
# cgroup libpod_parent/libpod-<id>), on an overlay (--rootfs ROOT:O) and rootless (a
# test user, a user namespace with the user's subordinate uids): what a profiler on
# the host sees of its containers is what it sees of the harness's own, and nothing
# of the test's is left after cleanup (containers, cgroups, the rootless pause process);
# and prof record --container names what runs in podman's own containers, as in the
# harness's (container/objects).  crun is not used: it refuses hybrid cgroup hierarchies (see ../container.sh).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../container.sh"
require_root
require_perf
command -v podman >/dev/null || skip "needs podman (Debian package podman)"
command -v runc >/dev/null || skip "needs runc (Debian package runc)"

container_root "$TMP/root"
R=$TMP/root D=$CTR_DECOY_DIR
[ ! -e /app ] || skip "the host has /app: the test needs that path to exist only in the container"

container_podman "$R" -- /app/ctr-hot 30
[ "$CTR_CGROUP" = "libpod_parent/libpod-$CTR_ID" ] || fail "podman's cgroup /$CTR_CGROUP"
container_check_objects "podman" "$R" /app/ctr-hot
container_check_ns "podman"
range=$(ctr_exec_map "$CTR_PID" /app/ctr-hot | cut -d' ' -f1)
note "evidence (podman): $(grep ' /app/ctr-hot$' "/proc/$CTR_PID/maps" | grep r-xp | tr -s ' '); map_files/$range build id $(ctr_build_id "/proc/$CTR_PID/map_files/$range") = $(ctr_build_id "$R/app/ctr-hot")"
pass "podman: /app/ctr-hot in /$CTR_CGROUP"
first=$CTR_N first_id=$CTR_ID first_pid=$CTR_PID

container_podman --overlay "$R" -- "$D/ctr-hot" 30
container_check_objects "podman overlay" "$R" "$D/ctr-hot"
container_check_ns "podman overlay"
mdev=$(ctr_exec_map "$CTR_PID" "$D/ctr-hot" | cut -d' ' -f2)
fs=$(awk '$5 == "/" { for (i = 7; i < NF; i++) if ($i == "-") break; print $(i + 1) }' "/proc/$CTR_PID/mountinfo")
[ "$fs" = overlay ] || fail "podman overlay: the container's / is $fs"
pass "podman overlay: / is an overlay, maps device $mdev, the host's file at $D/ctr-hot a decoy"

# prof on podman's own containers: both recorded by --container, each named by its own
# objects (the overlay one's path is a decoy on the host), by prof report and by perf
# report of prof's file, while they run
F=$TMP/podman.data
"$PROF" record -g --container "$first_id" --container "$CTR_ID" -o "$F" -d 2 2>"$TMP/rec.err" ||
	fail "prof record --container (podman): $(cat "$TMP/rec.err")"
"$PROF" report -i "$F" -F json --sort pid,dso,sym >"$TMP/podman.json" 2>"$TMP/rep.err" ||
	fail "prof report (podman): $(cat "$TMP/rep.err")"
perf_clean "$TMP/podman.perf" report -i "$F" --stdio --no-children -F sample,pid,dso,sym -g none -t '|'
ctr_check_names podman "$TMP/podman.json" "$TMP/podman.perf" "$first_pid" "$CTR_PID"
pass "prof record --container on podman's containers (plain and overlay): >= 99 % named by prof and perf report, none by the host's decoy"

container_stop "$first"
podman container exists "$first_id" && fail "container_stop left podman's container"
ctr_gone "$first_pid" || fail "container_stop left its pid $first_pid"

U=prof-it-podman
make_user "$U"
uid=$(id -u "$U")
container_podman --rootless "$U" "$R" -- /app/ctr-hot 30
container_check_objects "rootless podman" "$CTR_ROOT" /app/ctr-hot
container_check_ns "rootless podman"
grep -qE "^Uid:[[:space:]]+$uid[[:space:]]" "/proc/$CTR_PID/status" || fail "rootless podman: $(grep Uid "/proc/$CTR_PID/status"), not $uid"
as_user=$(setpriv --reuid="$U" --regid="$(id -g "$U")" --clear-groups sh -c \
	"readelf -n /proc/$CTR_PID/root/app/ctr-hot | awk '/Build ID:/ { print \$3 }'; cat /proc/$CTR_PID/map_files/$(ctr_exec_map "$CTR_PID" /app/ctr-hot | cut -d' ' -f1) >/dev/null" 2>&1)
echo "$as_user" | grep -qx "$(ctr_build_id "$R/app/ctr-hot")" || fail "rootless podman: $U cannot read /proc/PID/root: $as_user"
echo "$as_user" | grep -q 'Operation not permitted' || fail "rootless podman: $U reads map_files, or another error: $as_user"
note "evidence (rootless podman): uid $uid, uid_map $(tr -s ' ' <"/proc/$CTR_PID/uid_map" | tr '\n' ';'), cgroup $(grep '^0::' "/proc/$CTR_PID/cgroup")"
pass "rootless podman: $U's uid $uid on the host; $U reaches /proc/PID/root, not map_files"

container_cleanup
left=$(container_leftovers)
[ "$(echo "$left" | grep -v "^dir $TMP\$" | grep -c .)" -eq 0 ] || fail "left after cleanup: $left"
# zombies aside: the host's init reaps what podman's processes leave
left=$(ps -u "$U" -o pid=,stat=,args= | grep -v "^ *[0-9]* Z")
[ -z "$left" ] || fail "processes of $U left: $left"
pass "nothing left after cleanup: no podman container, cgroup or process of $U"
