# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by the tests and benches that run real Docker (Debian's docker.io), after
# ../lib.sh.  Not a test itself: tests/integration/meson.build does not list it.
#
#   dockerd_start               a dockerd of the test's own: its data root, exec root
#                               (its containerd's state and socket), pidfile and API
#                               socket under a temp dir; no iptables, no bridge, the
#                               cgroupfs driver (containers in cgroup /docker/<id>);
#                               stopped and everything removed when the test ends.
#                               Skips (77) only where dockerd cannot run here.
#   dk ARGS...                  /usr/bin/docker against that daemon (/usr/local/bin's
#                               docker, if any, is not Debian's and is not used)
#   dockerd_image DIR TAG       an image of DIR's tree (`docker import`, no network)
#   docker_start NAME TAG CMD...  a detached container (--network none): sets DK_ID,
#                               DK_PID (its first process on the host), DK_CGROUP
#                               (its cgroup2 path, relative)
#   docker_run NAME TAG CMD...  a container run to its end (its status)
#
# --container NAME (names from Docker's state) is one more recording of the same
# container: `"$PROF" record --container "$name"` beside `--container "$DK_ID"`.
DOCKER_BIN=${DOCKER_BIN:-/usr/bin/docker}
DOCKERD_BIN=${DOCKERD_BIN:-/usr/sbin/dockerd}
DK_DIR=
dk_cgroup_made=()

dk() {
	"$DOCKER_BIN" -H "unix://$DK_DIR/sock" "$@"
}

dockerd_start() {
	local c i cg
	[ -x "$DOCKERD_BIN" ] && [ -x "$DOCKER_BIN" ] || skip "needs Debian's docker.io ($DOCKERD_BIN, $DOCKER_BIN)"
	command -v containerd >/dev/null && command -v runc >/dev/null || skip "needs containerd and runc (docker.io's dependencies)"
	# Short: containerd's socket path (under the exec root) must fit in sun_path.
	DK_DIR=$(mktemp -d /tmp/prof-dk.XXXXXX) || fail "mktemp"
	# The cgroups dockerd makes for /docker in each hierarchy: removed at the end
	# only if this test made them.
	for c in /sys/fs/cgroup /sys/fs/cgroup/*/; do
		cg=${c%/}/docker
		[ -d "${c%/}" ] && [ -e "${c%/}/cgroup.procs" ] && [ ! -e "$cg" ] && dk_cgroup_made+=("$cg")
	done
	cleanup_hooks=(dockerd_stop "${cleanup_hooks[@]}")
	echo '{}' >"$DK_DIR/daemon.json"
	# setsid: a test's Ctrl-C goes to the test, whose trap stops dockerd in order.
	setsid "$DOCKERD_BIN" --config-file "$DK_DIR/daemon.json" --data-root "$DK_DIR/data" \
		--exec-root "$DK_DIR/exec" --pidfile "$DK_DIR/dockerd.pid" -H "unix://$DK_DIR/sock" \
		--iptables=false --ip6tables=false --ip-forward=false --ip-masq=false --bridge=none \
		--userland-proxy=false --exec-opt native.cgroupdriver=cgroupfs --log-level warn \
		</dev/null >"$DK_DIR/dockerd.log" 2>&1 &
	DK_DAEMON=$!
	for ((i = 0; i < 300; i++)); do
		dk version >/dev/null 2>&1 && break
		kill -0 "$DK_DAEMON" 2>/dev/null ||
			skip "dockerd cannot run here: $(tail -n 3 "$DK_DIR/dockerd.log" | tr '\n' ' ')"
		sleep 0.1
	done
	dk version >/dev/null 2>&1 || fail "dockerd did not answer in 30 s: $(tail -n 5 "$DK_DIR/dockerd.log")"
	note "dockerd $(dk version -f '{{.Server.Version}}'): cgroup driver $(dk info -f '{{.CgroupDriver}}'), cgroup v$(dk info -f '{{.CgroupVersion}}'), storage $(dk info -f '{{.Driver}}')"
}

dockerd_stop() {
	local i m
	[ -n "$DK_DIR" ] || return 0
	if [ -n "${DK_DAEMON:-}" ] && kill -0 "$DK_DAEMON" 2>/dev/null; then
		dk ps -aq 2>/dev/null | xargs -r "$DOCKER_BIN" -H "unix://$DK_DIR/sock" rm -f >/dev/null 2>&1
		kill -TERM "$DK_DAEMON"
		for ((i = 0; i < 200; i++)); do kill -0 "$DK_DAEMON" 2>/dev/null || break; sleep 0.1; done
		kill -0 "$DK_DAEMON" 2>/dev/null && kill -KILL "$DK_DAEMON"
		wait "$DK_DAEMON" 2>/dev/null
	fi
	# its containerd (started by it, with it): only one whose state is ours
	for m in $(pgrep -f "containerd --config $DK_DIR/" 2>/dev/null); do kill -KILL "$m"; done
	# mounts left under the temp dir (overlays of a killed daemon), deepest first
	for m in $(awk -v d="$DK_DIR/" 'index($2, d) == 1 { print $2 }' /proc/self/mounts | sort -r); do
		umount -l "$m" 2>/dev/null
	done
	for m in "${dk_cgroup_made[@]}"; do
		[ -d "$m" ] || continue
		find "$m" -mindepth 1 -depth -type d -exec rmdir {} + 2>/dev/null
		rmdir "$m" 2>/dev/null
	done
	rm -rf "$DK_DIR"
	DK_DIR=
}

dockerd_image() {
	local dir=$1 tag=$2
	tar -C "$dir" -c . | dk import - "$tag" >/dev/null || fail "docker import of $dir"
}

# The cgroup2 path of pid $1, relative ('0::' line).
dk_cgroup_of() {
	sed -n 's|^0::/||p' "/proc/$1/cgroup"
}

docker_start() {
	local name=$1 tag=$2
	shift 2
	DK_ID=$(dk run -d --network none --name "$name" "$tag" "$@") || fail "docker run $name"
	DK_PID=$(dk inspect -f '{{.State.Pid}}' "$DK_ID") || fail "docker inspect $name"
	[ "$DK_PID" -gt 0 ] || fail "docker: $name is not running: $(dk logs "$DK_ID" 2>&1 | tail -3)"
	DK_CGROUP=$(dk_cgroup_of "$DK_PID")
}

docker_run() {
	local name=$1 tag=$2
	shift 2
	dk run --rm --network none --name "$name" "$tag" "$@"
}
