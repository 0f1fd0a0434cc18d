# SPDX-License-Identifier: GPL-2.0-or-later
# Containers made the way runtimes make them, with the real kernel's namespaces, for
# the integration tests and bench/containers.  Source it after ../lib.sh (it uses
# $TMP, cleanup_hooks, fail, skip, note, cgroup2_root).  Needs root, gcc, util-linux
# (unshare), procps (pgrep).
#
#   container_root DIR
#       Builds a root directory in DIR (see "The root" below) and sets CTR_DECOY_DIR.
#   container_run [--overlay] [--rootless USER] [--userns] [--quiet] ROOT CGROUP -- CMD [ARGS...]
#       Starts CMD (a path inside ROOT) as pid 1 of new mount, pid and uts
#       namespaces (and a user namespace with --userns or --rootless), pivot_root'ed
#       into ROOT, inside CGROUP; returns once CMD runs (its exec is done).  CGROUP is
#       a kind, which makes a new id, or a path under the cgroup2 mount:
#         docker            system.slice/docker-<64 hex>.scope   (systemd driver)
#         docker-cgroupfs   docker/<64 hex>                      (cgroupfs driver)
#         libpod            machine.slice/libpod-<64 hex>.scope  (podman as root)
#         pod               kubepods.slice/kubepods-besteffort.slice/
#                             kubepods-besteffort-pod<uid, _ for ->.slice/cri-containerd-<64 hex>.scope
#         crio              the same pod path with crio-<64 hex>.scope
#         pod:UID, crio:UID another container in the pod UID (CTR_POD_UID of one made)
#       --overlay: ROOT is the lower dir of an overlay (a fresh upper dir), mounted
#       on the host as Docker does (rootless: inside the container's namespace, as
#       rootless podman does).  --rootless USER: USER starts it (setpriv, then
#       unshare --user --map-root-user): root inside, USER's uid on the host.
#       Sets CTR_N (its index), CTR_PID (host pid of its pid 1), CTR_SHIM (the
#       unshare that waits for it, outside the cgroup, as a runtime's shim is),
#       CTR_ID (64 hex), CTR_POD_UID and CTR_POD_CGROUP (pod kinds: the pod's slice),
#       CTR_CGROUP (path under the cgroup2 mount, no leading /: prof --cgroup and
#       perf -G take it), CTR_CGROUP_DIR (absolute), CTR_ROOT (the root it runs in: the overlay's mount for
#       --overlay), CTR_OUT/CTR_ERR (its stdout, stderr); prints one "# container"
#       line unless --quiet.  Call it in the test's shell (not in $(...)): it sets
#       variables and its container is a child of that shell.
#   container_wait [N]   waits for container N (default: the last) to exit; its status
#   container_stop [N]   kills container N (all its processes: SIGKILL to its pid 1)
#   container_pids [N]   host pids of container N's processes, one a line
#   container_cleanup    stops every container, removes their cgroups (and the parent
#       cgroups it made), unmounts what it mounted; runs at exit (cleanup_hooks).
#       lib.sh then removes $TMP with the roots.
#   container_leftovers [MANIFEST]  prints what the harness made that is still there
#       (each "process", "cgroup", "mount" or "dir" of MANIFEST, default
#       $CTR_MANIFEST); empty after cleanup.  container_run writes each thing it
#       makes to $CTR_MANIFEST (default $TMP/ctr-state/manifest; set it to a path
#       outside $TMP to check, from another shell, what a test left behind).
#   container_reap MANIFEST  removes what a run killed by SIGKILL left (no trap ran:
#       its containers died with their shims, but its cgroups, overlay mounts and
#       $TMP remain).
#
# The root (container_root DIR):
#   /app/ctr-hot, /app/ctr-hot-nofp    the program (container_app.c) with and without
#       frame pointers, and /app/lib/libctr.so, libctr-nofp.so, the library each
#       uses (container_lib.c, by RUNPATH): paths that exist only inside the root.
#   $CTR_DECOY_DIR/ctr-hot, ctr-hot-nofp, libctr.so, libctr-nofp.so    the same
#       code built there (RUNPATH $CTR_DECOY_DIR): the host has other files at these
#       paths (container_decoy.c: functions decoy_*), as a host's /usr/bin/python3
#       or libssl.so.3 is another build than a container's.
#   The dynamic loader and libc, copied from the host (the paths ldd finds), and
#   empty /proc (mounted by container-init), /tmp, /dev, /etc.
#   CTR_DECOY_DIR is DIR.host: a host directory that exists, with other contents,
#   at the same path inside the root.  The container's functions are named ctr_*
#   (and main); a report that shows decoy_* for its samples read the host's file.

CTR_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../programs" && pwd)
ctr_n=0
ctr_cleanup_registered=
CTR_MANIFEST=${CTR_MANIFEST:-$TMP/ctr-state/manifest}

ctr_made() {
	local IFS=' '
	echo "$*" >>"$CTR_MANIFEST"
}

# A new container id as Docker makes them: 32 random bytes in hex.
ctr_new_id() {
	od -An -tx1 -N32 /dev/urandom | tr -d ' \n'
}

# container-init, built once per test into $TMP (public: rootless users run it).
ctr_init_bin() {
	local bin=$TMP/ctr-bin/container-init
	if [ ! -x "$bin" ]; then
		mkdir -p "$TMP/ctr-bin" && chmod 755 "$TMP" "$TMP/ctr-bin"
		gcc -O2 -Wall -o "$bin" "$CTR_SRC/container_init.c" || fail "build container-init"
	fi
	echo "$bin"
}

# Copy an object ldd named into the root at the same path (regular files: a symlink
# on the host becomes a copy of its target).
ctr_copy_object() {
	local root=$1 path=$2
	[ -e "$root$path" ] && return 0
	mkdir -p "$root$(dirname "$path")" && cp -L "$path" "$root$path" || fail "copy $path into $root"
}

# libctr$4.so into LIBDIR and ctr-hot$4 into BINDIR (paths inside the root $1),
# the program finding the library by its RUNPATH.
ctr_build() {
	local root=$1 libdir=$2 bindir=$3 suffix=$4 flags=$5
	gcc $flags -fPIC -shared -Wl,-soname,libctr$suffix.so -o "$root$libdir/libctr$suffix.so" \
		"$CTR_SRC/container_lib.c" || fail "build $libdir/libctr$suffix.so"
	gcc $flags -o "$root$bindir/ctr-hot$suffix" "$CTR_SRC/container_app.c" \
		-L"$root$libdir" -lctr$suffix -Wl,-rpath,"$libdir" -Wl,--enable-new-dtags ||
		fail "build $bindir/ctr-hot$suffix"
}

container_root() {
	local dir=$1 cflags='-O2 -g -fno-optimize-sibling-calls' line path
	command -v gcc >/dev/null || skip "needs gcc"
	command -v ldd >/dev/null || skip "needs ldd (libc-bin)"
	mkdir -p "$dir" || fail "mkdir $dir"
	CTR_DECOY_DIR=$dir.host
	local real=$dir$CTR_DECOY_DIR
	mkdir -p "$dir/app" "$dir/proc" "$dir/tmp" "$dir/dev" "$dir/etc" "$real" "$CTR_DECOY_DIR" || fail "mkdir in $dir"
	chmod 1777 "$dir/tmp"
	echo "ctr" >"$dir/etc/hostname"
	local fp='-fno-omit-frame-pointer' nofp='-fomit-frame-pointer' v suffix flags
	mkdir -p "$dir/app/lib" || fail "mkdir $dir/app/lib"
	for v in fp nofp; do
		suffix= flags=$fp
		[ "$v" = nofp ] && { suffix=-nofp; flags=$nofp; }
		# The same code twice: under /app (absent on the host), and under the decoy dir.
		ctr_build "$dir" /app/lib /app "$suffix" "$cflags $flags"
		ctr_build "$dir" "$CTR_DECOY_DIR" "$CTR_DECOY_DIR" "$suffix" "$cflags $flags"
		# The host's files at the decoy dir's paths: other code, other names.
		gcc -O0 -DDECOY_LIB -fPIC -shared -Wl,-soname,libctr$suffix.so -o "$CTR_DECOY_DIR/libctr$suffix.so" \
			"$CTR_SRC/container_decoy.c" || fail "build the decoy library"
		gcc -O0 -o "$CTR_DECOY_DIR/ctr-hot$suffix" "$CTR_SRC/container_decoy.c" || fail "build the decoy program"
	done
	# The loader and libc, at the paths ldd finds them (libctr.so: not found on the host).
	while read -r line; do
		for path in $line; do
			case $path in
			/*) [ "${path#"$CTR_DECOY_DIR"/}" = "$path" ] && ctr_copy_object "$dir" "$path" ;;
			esac
		done
	done < <(ldd "$dir/app/ctr-hot")
	[ -n "$(find "$dir" -name 'libc.so*' -print -quit)" ] || fail "no libc copied into $dir: $(ldd "$dir/app/ctr-hot")"
	chmod -R a+rX "$dir" "$CTR_DECOY_DIR"
}

# The cgroup path for a kind (see the header), relative to the cgroup2 mount.
ctr_cgroup_path() {
	local kind=$1 id=$2 pod
	case $kind in
	docker) echo "system.slice/docker-$id.scope" ;;
	docker-cgroupfs) echo "docker/$id" ;;
	libpod) echo "machine.slice/libpod-$id.scope" ;;
	pod|crio)
		pod=$CTR_POD_UID
		local p=kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod${pod//-/_}.slice
		if [ "$kind" = pod ]; then echo "$p/cri-containerd-$id.scope"; else echo "$p/crio-$id.scope"; fi ;;
	*) echo "${kind#/}" ;;
	esac
}

# mkdir -p under the cgroup2 mount, remembering each directory made (cleanup removes
# those, deepest first, and no other).
ctr_cgroup_make() {
	local cgroot=$1 rel=$2 d=$1 part
	local IFS=/
	for part in $rel; do
		[ -n "$part" ] || continue
		d=$d/$part
		if [ ! -d "$d" ]; then
			mkdir "$d" || fail "mkdir $d"
			ctr_cg_made+=("$d")
			ctr_made cgroup "$d"
		fi
	done
}

container_run() {
	local overlay= rootless= userns= quiet=
	while [ $# -gt 0 ]; do
		case $1 in
		--overlay) overlay=1; shift ;;
		--rootless) rootless=$2; userns=1; shift 2 ;;
		--userns) userns=1; shift ;;
		--quiet) quiet=1; shift ;;
		*) break ;;
		esac
	done
	[ $# -ge 4 ] && [ "$3" = -- ] || fail "usage: container_run [--overlay] [--rootless USER] [--userns] [--quiet] ROOT CGROUP -- CMD [ARGS...]"
	local root=$1 kind=$2 cgroot init st n
	shift 3
	command -v unshare >/dev/null || skip "needs unshare (util-linux)"
	cgroot=$(cgroup2_root)
	[ -n "$cgroot" ] || skip "no cgroup2 hierarchy"
	init=$(ctr_init_bin)
	if [ -z "$ctr_cleanup_registered" ]; then
		ctr_cleanup_registered=1
		ctr_pids_all=() ctr_shims=() ctr_cgdirs=() ctr_mounts=() ctr_cg_made=()
		cleanup_hooks=(container_cleanup "${cleanup_hooks[@]}")
		mkdir -p "$TMP/ctr-state" "$(dirname "$CTR_MANIFEST")" || fail "mkdir for $CTR_MANIFEST"
		ctr_made dir "$TMP"
	fi
	n=$ctr_n
	ctr_n=$((ctr_n + 1))
	st=$TMP/ctr-state/$n
	mkdir -p "$st" && chmod 755 "$TMP" "$TMP/ctr-state" "$st" || fail "mkdir $st"

	CTR_N=$n
	CTR_ID=$(ctr_new_id)
	CTR_POD_UID= CTR_POD_CGROUP=
	case $kind in
	pod|crio) CTR_POD_UID=$(cat /proc/sys/kernel/random/uuid) ;;
	pod:*|crio:*) CTR_POD_UID=${kind#*:} kind=${kind%%:*} ;;
	esac
	CTR_CGROUP=$(ctr_cgroup_path "$kind" "$CTR_ID")
	[ -n "$CTR_POD_UID" ] && CTR_POD_CGROUP=$(dirname "$CTR_CGROUP")
	CTR_CGROUP_DIR=$cgroot/$CTR_CGROUP
	ctr_cgroup_make "$cgroot" "$CTR_CGROUP"
	ctr_cgdirs[n]=$CTR_CGROUP_DIR

	# The root: ROOT itself, or an overlay with ROOT as its lower dir.
	CTR_ROOT=$root
	local ovl_opt=()
	if [ -n "$overlay" ]; then
		mkdir -p "$st/upper" "$st/work" "$st/merged" || fail "mkdir overlay dirs"
		[ -n "$rootless" ] && chown "$rootless:" "$st/upper" "$st/work" "$st/merged"
		local opts="lowerdir=$root,upperdir=$st/upper,workdir=$st/work"
		CTR_ROOT=$st/merged
		if [ -n "$rootless" ]; then
			ovl_opt=(-O "$opts")
		else
			grep -qw overlay /proc/filesystems || modprobe overlay 2>/dev/null
			mount -t overlay overlay -o "$opts" "$CTR_ROOT" || skip "cannot mount an overlay here"
			ctr_mounts+=("$CTR_ROOT")
			ctr_made mount "$CTR_ROOT"
		fi
	fi

	# The shim dies with the test's shell (even by SIGKILL), and the container with
	# the shim (--kill-child): nothing keeps running after a test that was killed.
	local pre=(setpriv --pdeathsig KILL) ns=(--mount --pid --uts --fork --kill-child)
	[ -n "$userns" ] && ns+=(--user --map-root-user)
	if [ -n "$rootless" ]; then
		id "$rootless" >/dev/null 2>&1 || fail "no user $rootless"
		pre+=(--reuid="$rootless" --regid="$(id -g "$rootless")" --clear-groups --reset-env)
	fi
	pre+=(--)
	CTR_OUT=$st/out CTR_ERR=$st/err
	mkfifo "$st/go" || fail "mkfifo"
	# The container's pid 1 waits on fd 3 until it is in its cgroup: its exec and
	# everything after happen inside, the unshare (the shim) stays outside.
	( exec 3<"$st/go"; exec "${pre[@]}" unshare "${ns[@]}" -- "$init" -w 3 -n "ctr-${CTR_ID:0:12}" \
		"${ovl_opt[@]}" "$CTR_ROOT" "$@" ) >"$CTR_OUT" 2>"$CTR_ERR" &
	CTR_SHIM=$!
	ctr_shims[n]=$CTR_SHIM
	local go i pid=
	exec {go}>"$st/go"
	for ((i = 0; i < 500; i++)); do
		pid=$(pgrep -P "$CTR_SHIM" | head -n 1)
		[ -n "$pid" ] && break
		kill -0 "$CTR_SHIM" 2>/dev/null || break
		sleep 0.01
	done
	if [ -z "$pid" ]; then
		exec {go}>&-
		fail "container $n did not start: $(cat "$CTR_ERR")"
	fi
	CTR_PID=$pid
	ctr_pids_all[n]=$pid
	ctr_made process "$pid" "$(cat "/proc/$pid/stat" 2>/dev/null | awk '{ print $22 }')"
	ctr_made process "$CTR_SHIM" "$(cat "/proc/$CTR_SHIM/stat" 2>/dev/null | awk '{ print $22 }')"
	echo "$pid" >"$CTR_CGROUP_DIR/cgroup.procs" || fail "move $pid into $CTR_CGROUP_DIR"
	printf g >&"$go"
	exec {go}>&-
	# Running once its comm is the command's and its root is not ours.
	local comm=$(basename "$1")
	comm=${comm:0:15}
	for ((i = 0; i < 500; i++)); do
		[ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$comm" ] &&
			[ "$(stat -Lc %d:%i "/proc/$pid/root/" 2>/dev/null)" != "$(stat -c %d:%i /)" ] && break
		kill -0 "$pid" 2>/dev/null || fail "container $n exited before it ran $1: $(cat "$CTR_ERR")"
		sleep 0.01
	done
	[ "$i" -lt 500 ] || fail "container $n did not exec $1 in 5 s: $(cat "$CTR_ERR")"
	[ -n "$quiet" ] || note "container $n: pid $CTR_PID, cgroup /$CTR_CGROUP, id $CTR_ID${CTR_POD_UID:+, pod $CTR_POD_UID}${overlay:+, overlay}${rootless:+, rootless as $rootless}"
}

container_wait() {
	local n=${1:-$CTR_N} rc=0
	wait "${ctr_shims[n]}" || rc=$?
	return "$rc"
}

container_pids() {
	local n=${1:-$CTR_N}
	cat "${ctr_cgdirs[n]}/cgroup.procs" 2>/dev/null
}

container_stop() {
	local n=${1:-$CTR_N} pid=${ctr_pids_all[${1:-$CTR_N}]}
	kill -KILL "$pid" 2>/dev/null
	wait "${ctr_shims[n]}" 2>/dev/null
	return 0
}

# bash runs no EXIT trap when a signal kills it: these make the signals an exit.
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

# Quiet: bash would report each killed shim ("Killed").
container_cleanup() {
	ctr_cleanup 2>/dev/null
}

ctr_cleanup() {
	local n d m i p
	for n in "${!ctr_shims[@]}"; do
		kill -KILL "${ctr_pids_all[n]}" "${ctr_shims[n]}" 2>/dev/null
		for p in $(cat "${ctr_cgdirs[n]}/cgroup.procs" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
	done
	for n in "${!ctr_shims[@]}"; do wait "${ctr_shims[n]}" 2>/dev/null; done
	for m in "${ctr_mounts[@]}"; do umount "$m" 2>/dev/null || umount -l "$m"; done
	# A killed task leaves its cgroup a moment later; the directories go deepest first.
	for ((i = ${#ctr_cg_made[@]} - 1; i >= 0; i--)); do
		d=${ctr_cg_made[i]}
		for p in 1 2 3 4 5 6 7 8 9 10; do
			rmdir "$d" 2>/dev/null && break
			[ -d "$d" ] || break
			sleep 0.1
		done
	done
	ctr_shims=() ctr_pids_all=() ctr_mounts=() ctr_cg_made=()
}

# A pid is the same process while its start time (field 22 of stat) is the same.
container_leftovers() {
	local manifest=${1:-$CTR_MANIFEST} what a b
	[ -f "$manifest" ] || return 0
	while read -r what a b; do
		case $what in
		cgroup) [ -d "$a" ] && echo "cgroup $a" ;;
		mount) findmnt -rn -o TARGET | grep -qxF "$a" && echo "mount $a" ;;
		dir) [ -e "$a" ] && echo "dir $a" ;;
		process)
			[ -n "$b" ] && [ "$(awk '{ print $22 }' "/proc/$a/stat" 2>/dev/null)" = "$b" ] &&
				echo "process $a $(cat "/proc/$a/comm" 2>/dev/null)" ;;
		esac
	done <"$manifest"
	return 0
}

container_reap() {
	local manifest=$1 what a b
	[ -f "$manifest" ] || return 0
	while read -r what a b; do
		case $what in
		process) [ "$(awk '{ print $22 }' "/proc/$a/stat" 2>/dev/null)" = "$b" ] && kill -KILL "$a" 2>/dev/null ;;
		mount) umount "$a" 2>/dev/null || umount -l "$a" 2>/dev/null ;;
		esac
	done <"$manifest"
	tac "$manifest" | while read -r what a b; do
		case $what in
		cgroup) [ -d "$a" ] && { rmdir "$a" 2>/dev/null || { sleep 0.3; rmdir "$a"; }; } ;;
		dir) case $a in "${TMPDIR:-/tmp}"/prof-it.*) rm -rf "$a" ;; esac ;;
		esac
	done
	return 0
}
