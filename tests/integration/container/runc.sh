#!/usr/bin/env bash
# runc, the runtime under Docker and containerd, runs the harness's root from an OCI
# bundle (../container.sh container_runc) in a Docker-named and a pod-named cgroup and
# on an overlay: what a profiler on the host sees of its containers is what it sees
# of the harness's own (maps shows the container's paths, map_files and
# /proc/PID/root reach its objects, its cgroup is the runtime's name), and nothing is
# left after cleanup (runc's cgroups in every hierarchy, the overlay, the state).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../container.sh"
require_root
command -v runc >/dev/null || skip "needs runc (Debian package runc)"

container_root "$TMP/root"
R=$TMP/root D=$CTR_DECOY_DIR
[ ! -e /app ] || skip "the host has /app: the test needs that path to exist only in the container"

container_runc "$R" docker -- /app/ctr-hot 30
[ "$CTR_CGROUP" = "system.slice/docker-$CTR_ID.scope" ] || fail "runc's cgroup /$CTR_CGROUP"
container_check_objects "runc" "$R" /app/ctr-hot
container_check_ns "runc"
range=$(ctr_exec_map "$CTR_PID" /app/ctr-hot | cut -d' ' -f1)
note "evidence (runc): $(grep ' /app/ctr-hot$' "/proc/$CTR_PID/maps" | grep r-xp | tr -s ' '); map_files/$range -> $(readlink "/proc/$CTR_PID/map_files/$range"), build id $(ctr_build_id "/proc/$CTR_PID/map_files/$range") = $(ctr_build_id "$R/app/ctr-hot")"
v1=$(ctr_hierarchies | grep -v "^$(cgroup2_root)\$" | head -n 1)
[ -z "$v1" ] || [ -d "$v1/$CTR_CGROUP" ] || fail "runc made no $v1/$CTR_CGROUP"
pass "runc: /app/ctr-hot in /$CTR_CGROUP, maps, map_files and /proc/PID/root as with the harness's containers"
first=$CTR_N first_id=$CTR_ID first_pid=$CTR_PID

container_runc "$R" pod -- "$D/ctr-hot-nofp" 30
[[ $CTR_CGROUP == "$CTR_POD_CGROUP/cri-containerd-$CTR_ID.scope" ]] || fail "runc's pod cgroup /$CTR_CGROUP"
container_check_objects "runc pod" "$R" "$D/ctr-hot-nofp"
container_check_ns "runc pod"
pass "runc pod: $D/ctr-hot-nofp (the host's file there is a decoy) in /$CTR_CGROUP"

container_runc --overlay "$R" docker-cgroupfs -- "$D/ctr-hot" 30
container_check_objects "runc overlay" "$R" "$D/ctr-hot"
container_check_ns "runc overlay"
mdev=$(ctr_exec_map "$CTR_PID" "$D/ctr-hot" | cut -d' ' -f2)
[ "$((16#${mdev%:*})):$((16#${mdev#*:}))" = "$(stat -c '%Hd:%Ld' "$CTR_ROOT/app")" ] || fail "runc overlay: maps device $mdev"
pass "runc overlay: maps shows the overlay's device $mdev"

container_stop "$first"
runc state "ctr-$first_id" >/dev/null 2>&1 && fail "container_stop left the runc container"
ctr_gone "$first_pid" || fail "container_stop left its pid $first_pid"
container_cleanup
left=$(container_leftovers)
[ "$(echo "$left" | grep -v "^dir $TMP\$" | grep -c .)" -eq 0 ] || fail "left after cleanup: $left"
pass "nothing left after cleanup: no runc state, cgroups (in $(ctr_hierarchies | wc -l) hierarchies) or mounts"
