#!/usr/bin/env bash
# The container harness (../container.sh) against the real kernel: what a profiler on
# the host sees of a contained program is what it sees of a runtime's container.
# For a plain root, a Kubernetes-like pod cgroup with the program at the decoy path,
# an overlay root, and rootless containers (a test user, user namespace; plain and
# overlay):
# - /proc/PID/maps read from the host shows the container's paths (pivot_root, not
#   chroot), and the program's host path does not exist or is the decoy;
# - /proc/PID/map_files/<range> and /proc/PID/root/<path> reach the real objects
#   (their build ids, their bytes), not the host's; with an overlay root the mapped
#   device is the overlay's; the rootless user reaches /proc/PID/root but not
#   map_files (CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE in the initial namespace);
# - pid 1 in its pid namespace, its own mount and uts namespaces, its cgroup named as
#   the runtime names it, the user's host uid when rootless;
# - nothing is left after a test that exits, fails or is killed (SIGTERM, SIGKILL),
#   and a second run works the same.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../container.sh"
require_root
command -v readelf >/dev/null || skip "needs readelf (binutils)"
command -v setpriv >/dev/null || skip "needs setpriv (util-linux)"


container_root "$TMP/root"
R=$TMP/root
D=$CTR_DECOY_DIR
[ ! -e /app ] || skip "the host has /app: the test needs that path to exist only in the container"
[ -n "$(ctr_build_id "$R/app/ctr-hot")" ] || skip "gcc writes no build ids here"
for f in ctr-hot ctr-hot-nofp libctr.so libctr-nofp.so; do
	[ "$(ctr_build_id "$D/$f")" != "$(ctr_build_id "$R$D/$f")" ] || fail "the host's decoy $D/$f has the container's build id"
done

check_container() {
	local what=$1 prog=$2
	container_check_objects "$what" "$R" "$prog"
	container_check_ns "$what"
	pass "$what: maps $prog and its library, map_files and /proc/PID/root reach their build ids, the host's path $([ -e "$prog" ] && echo "is a decoy" || echo "is absent"); pid 1, own mnt/pid/uts, cgroup /$CTR_CGROUP"
}

# 0. The control: after a chroot (not what runtimes do), maps shows host paths, so
# the check below tells the two apart.
chroot "$R" /app/ctr-hot 2 &
cpid=$!
for ((i = 0; i < 100; i++)); do grep -q ctr-hot "/proc/$cpid/maps" 2>/dev/null && break; sleep 0.02; done
grep -qF " $R/app/ctr-hot" "/proc/$cpid/maps" || fail "after chroot, maps shows: $(grep ctr "/proc/$cpid/maps")"
note "evidence: after chroot, maps shows the host's path: $(grep -F "$R/app/ctr-hot" "/proc/$cpid/maps" | grep ' r-xp ' | tr -s ' ')"
kill "$cpid"; wait "$cpid" 2>/dev/null

# 1. A Docker-like container: the program at a path that exists only inside.
container_run "$R" docker -- /app/ctr-hot 30
[[ $CTR_CGROUP =~ ^system\.slice/docker-[0-9a-f]{64}\.scope$ ]] || fail "docker cgroup name: $CTR_CGROUP"
[ "$CTR_CGROUP" = "system.slice/docker-$CTR_ID.scope" ] || fail "id and cgroup differ"
range=$(ctr_exec_map "$CTR_PID" /app/ctr-hot | cut -d' ' -f1)
note "evidence, from the host: $(grep -E ' /app/ctr-hot$' "/proc/$CTR_PID/maps" | grep ' r-xp ' | tr -s ' ')"
note "evidence: readlink /proc/$CTR_PID/map_files/$range: $(readlink "/proc/$CTR_PID/map_files/$range"), build id $(ctr_build_id "/proc/$CTR_PID/map_files/$range"); /proc/$CTR_PID/root/app/ctr-hot: $(ctr_build_id "/proc/$CTR_PID/root/app/ctr-hot"); on the host: $(ls /app/ctr-hot 2>&1)"
check_container "docker" /app/ctr-hot
docker_n=$CTR_N docker_pid=$CTR_PID

# 2. Two containers of a pod (containerd's naming), the program at the path of the
# host's decoy program, with and without frame pointers.
container_run "$R" pod -- "$D/ctr-hot-nofp" 30
[[ $CTR_CGROUP =~ ^kubepods\.slice/kubepods-besteffort\.slice/kubepods-besteffort-pod[0-9a-f]{8}_[0-9a-f]{4}_[0-9a-f]{4}_[0-9a-f]{4}_[0-9a-f]{12}\.slice/cri-containerd-[0-9a-f]{64}\.scope$ ]] ||
	fail "pod cgroup name: $CTR_CGROUP"
[[ $CTR_CGROUP == "$CTR_POD_CGROUP/"* && $CTR_POD_CGROUP == *pod${CTR_POD_UID//-/_}.slice ]] || fail "pod uid $CTR_POD_UID, slice $CTR_POD_CGROUP, cgroup $CTR_CGROUP"
check_container "pod" "$D/ctr-hot-nofp"
range=$(ctr_exec_map "$CTR_PID" "$D/ctr-hot-nofp" | cut -d' ' -f1)
note "evidence: $D/ctr-hot-nofp: map_files/$range build id $(ctr_build_id "/proc/$CTR_PID/map_files/$range"), /proc/$CTR_PID/root$D/ctr-hot-nofp $(ctr_build_id "/proc/$CTR_PID/root$D/ctr-hot-nofp"); the host's file (decoy) $(ctr_build_id "$D/ctr-hot-nofp")"
first=$CTR_N pod=$CTR_POD_UID
container_run "$R" "crio:$pod" -- "$D/ctr-hot" 30
[ "$(dirname "$CTR_CGROUP")" = "$CTR_POD_CGROUP" ] && [[ $CTR_CGROUP == */crio-$CTR_ID.scope ]] || fail "second container of the pod: $CTR_CGROUP"
check_container "pod's second container" "$D/ctr-hot"
container_stop
container_stop "$first"

# 3. An overlay root (mounted on the host, as Docker does): the overlay's device.
container_run --overlay "$R" docker-cgroupfs -- "$D/ctr-hot" 30
[[ $CTR_CGROUP =~ ^docker/[0-9a-f]{64}$ ]] || fail "cgroupfs-driver name: $CTR_CGROUP"
findmnt -n -o FSTYPE "$CTR_ROOT" | grep -qx overlay || fail "overlay: $CTR_ROOT is not an overlay mount"
check_container "overlay" "$D/ctr-hot"
odev=$(stat -c '%Hd:%Ld' "$CTR_ROOT/app") ldev=$(stat -c '%Hd:%Ld' "$R/app")
[ "$odev" != "$ldev" ] || fail "overlay: the same device as the lower dir"
mdev=$(ctr_exec_map "$CTR_PID" "$D/ctr-hot" | cut -d' ' -f2)
[ "$((16#${mdev%:*})):$((16#${mdev#*:}))" = "$odev" ] || fail "overlay: maps shows device $mdev, the overlay is $odev"
note "evidence: overlay: maps device $mdev = the overlay's $odev (lower dir $ldev), inode $(ctr_exec_map "$CTR_PID" "$D/ctr-hot" | cut -d' ' -f3) (lower file's $(stat -c %i "$R$D/ctr-hot")); map_files and /proc/PID/root stat the same"
container_stop

# 4. Rootless: a test user's container in a user namespace, plain and overlay.
U=prof-it-ctr
make_user "$U"
uid=$(id -u "$U")
for variant in plain overlay; do
	opt=()
	[ "$variant" = overlay ] && opt=(--overlay)
	container_run --rootless "$U" "${opt[@]}" "$R" libpod -- /app/ctr-hot 30
	check_container "rootless $variant" /app/ctr-hot
	grep -qE "^Uid:[[:space:]]+$uid[[:space:]]+$uid[[:space:]]+$uid[[:space:]]+$uid\$" "/proc/$CTR_PID/status" ||
		fail "rootless: host uid $(grep Uid "/proc/$CTR_PID/status"), not $uid"
	[ "$(awk '{ print $1, $2, $3 }' "/proc/$CTR_PID/uid_map")" = "0 $uid 1" ] || fail "rootless: uid_map $(cat "/proc/$CTR_PID/uid_map")"
	[ "$(readlink "/proc/$CTR_PID/ns/user")" != "$(readlink /proc/self/ns/user)" ] || fail "rootless: no user namespace"
	[ "$variant" = overlay ] && { findmnt -rn -o TARGET | grep -qxF "$CTR_ROOT" && fail "rootless overlay mounted on the host"; }
	range=$(ctr_exec_map "$CTR_PID" /app/ctr-hot | cut -d' ' -f1)
	as_user=$(setpriv --reuid="$U" --regid="$(id -g "$U")" --clear-groups sh -c \
		"readelf -n /proc/$CTR_PID/root/app/ctr-hot | awk '/Build ID:/ { print \$3 }'; cat /proc/$CTR_PID/map_files/$range >/dev/null" 2>&1)
	echo "$as_user" | grep -qx "$(ctr_build_id "$R/app/ctr-hot")" || fail "rootless $variant: $U cannot read /proc/PID/root: $as_user"
	echo "$as_user" | grep -q 'Operation not permitted' || fail "rootless $variant: $U reads map_files, or another error: $as_user"
	container_stop
	note "evidence: rootless $variant as $U (uid $uid): /proc/$CTR_PID/root/app/ctr-hot build id $(echo "$as_user" | head -n 1); map_files: $(echo "$as_user" | tail -n 1)"
done
pass "rootless: host uid $uid, uid_map 0 $uid 1; the user reaches /proc/PID/root, not map_files"

# 5. A container that ends: waited, its status; stopped: all its processes gone.
container_run --quiet "$R" crio -- /app/ctr-hot 0.3
container_wait || fail "a container of 0.3 s exited $?"
container_stop "$docker_n"
kill -0 "$docker_pid" 2>/dev/null && fail "container_stop left pid $docker_pid"
pass "container_wait and container_stop"

# 6. Nothing left behind: a run that exits, one that fails, one killed by SIGTERM, one
# by SIGKILL; each started the same containers, and each run worked.
child=$TMP/child.sh
cat >"$child" <<EOF
. "$(cd "$(dirname "$0")/.." && pwd)/lib.sh"
. "$(cd "$(dirname "$0")/.." && pwd)/container.sh"
container_root "\$TMP/root"
container_run --quiet "\$TMP/root" docker -- /app/ctr-hot pause
container_run --quiet --overlay "\$TMP/root" pod -- /app/ctr-hot pause
container_run --quiet --rootless $U --overlay "\$TMP/root" libpod -- /app/ctr-hot pause
echo started
case \$1 in
exit) exit 0 ;;
fail) fail "on purpose" ;;
*) while :; do sleep 0.1; done ;;   # a signal's trap runs between two sleeps
esac
EOF
runs=0 cpid=
# A failure here must not leave a child run behind (it would write its manifest
# into this test's removed $TMP).
cleanup_hooks=('[ -n "$cpid" ] && { kill -TERM "$cpid"; wait "$cpid"; } 2>/dev/null' "${cleanup_hooks[@]}")
for how in exit fail TERM KILL exit; do
	runs=$((runs + 1))
	m=$TMP/manifest.$runs out=$TMP/child.$runs
	CTR_MANIFEST=$m bash "$child" "$how" >"$out" 2>&1 &
	cpid=$!
	for ((i = 0; i < 300; i++)); do grep -q started "$out" 2>/dev/null && break; sleep 0.05; done
	grep -q started "$out" || fail "run $how did not start its containers: $(cat "$out")"
	[ "$(grep -c '^process' "$m")" -eq 6 ] || fail "run $how: manifest $(cat "$m")"
	case $how in TERM|KILL) kill "-$how" "$cpid" ;; esac
	{ wait "$cpid"; } 2>/dev/null
	cpid=
	# SIGKILL: no trap runs; the shims die with the shell, the containers with them,
	# and only the cgroups (empty) and the overlay mount remain for a reaper.
	for ((i = 0; i < 40; i++)); do
		left=$(container_leftovers "$m")
		[ "$how" = KILL ] && left=$(echo "$left" | grep '^process')
		[ -z "$left" ] && break
		sleep 0.05
	done
	[ -z "$left" ] || fail "run $how left: $left"
	if [ "$how" = KILL ]; then
		note "after SIGKILL, for a reaper: $(container_leftovers "$m" | cut -d' ' -f1 | sort | uniq -c | tr -s ' ' | tr '\n' ';')"
		container_reap "$m"
		[ -z "$(container_leftovers "$m")" ] || fail "after SIGKILL and a reaper: $(container_leftovers "$m")"
	fi
done
pass "nothing left after a run that exits, fails, or gets SIGTERM; after SIGKILL no process; a second run works"
