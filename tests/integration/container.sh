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
#       Sets CTR_N (its index), CTR_RUNTIME (namespaces), CTR_PID (host pid of its
#       pid 1), CTR_SHIM (the unshare that waits for it, outside the cgroup, as a
#       runtime's shim is), CTR_ID (64 hex), CTR_HOSTNAME, CTR_POD_UID and
#       CTR_POD_CGROUP (pod kinds: the pod's slice), CTR_CGROUP (path under the
#       cgroup2 mount, no leading /: prof --cgroup and perf -G take it),
#       CTR_CGROUP_DIR (absolute), CTR_ROOT (the root it runs in: the overlay's
#       mount for --overlay), CTR_OUT/CTR_ERR (its stdout, stderr); prints one
#       "# container" line unless --quiet.  Call it in the test's shell (not in
#       $(...)): it sets variables and its container is a child of that shell.
#   container_wait [N]   waits for container N (default: the last) to exit; its status
#   container_stop [N]   kills container N (SIGKILL to its pid 1 ends every process
#       of its pid namespace; a runtime's: the runtime's delete)
#   container_pids [N]   host pids of container N's processes (its pid namespace's), one a line
#   container_cleanup    stops every container, removes their cgroups (and the parent
#       cgroups it made), unmounts what it mounted; runs at exit (cleanup_hooks).
#       lib.sh then removes $TMP with the roots.
#   container_leftovers [MANIFEST]  prints what the harness made that is still there
#       (each "process", "cgroup", "mount", "dir" or "runtime" of MANIFEST, default
#       $CTR_MANIFEST); empty after cleanup.  container_run writes each thing it
#       makes to $CTR_MANIFEST (default $TMP/ctr-state/manifest; set it to a path
#       outside $TMP to check, from another shell, what a test left behind).
#   container_reap MANIFEST  removes what a run killed by SIGKILL left (no trap ran:
#       its containers died with their shims, but its cgroups, overlay mounts,
#       $TMP and the containers of real runtimes remain).
#   container_check_objects WHAT ROOT PROG  checks, for container $CTR_PID running
#       PROG (a path inside ROOT), what a profiler on the host sees: maps shows PROG
#       and its library at their paths inside (no path of ROOT), the host's files at
#       those paths are absent or other files, /proc/PID/map_files/<range> and
#       /proc/PID/root<path> are ROOT's files (bytes, build id), and the (device,
#       inode) of maps is the file reached both ways.  fail()s with WHAT.
#   container_check_ns WHAT  its own mnt, pid and uts namespaces, pid 1 inside, its
#       hostname ($CTR_HOSTNAME), its cgroup (when it has one of its own), the shim
#       outside it.
#
# Real runtimes (Debian's), for the same roots; each sets the same CTR_* variables
# (CTR_RUNTIME runc or podman; CTR_SHIM podman's conmon, empty for runc, whose
# container's parent is the host's init), works with container_wait, stop, pids,
# cleanup, leftovers and reap, and skips (77) with the runtime's own error where
# it cannot run:
#   container_runc [--overlay] [--quiet] ROOT CGROUP -- CMD [ARGS...]
#       runc (the runtime under Docker and containerd) from an OCI bundle of `runc
#       spec`: ROOT as root.path, CGROUP (the kinds above) as linux.cgroupsPath
#       (cgroupfs driver: runc makes it in every hierarchy, v1 and v2), its default
#       namespaces (mount, pid, uts, ipc, network).  --overlay: ROOT as the lower dir
#       of an overlay mounted on the host, as Docker does.
#   container_podman [--overlay] [--rootless USER] [--quiet] ROOT -- CMD [ARGS...]
#       podman run --rootfs ROOT (ROOT:O with --overlay) --runtime runc --network
#       none.  As root, its cgroup is libpod_parent/libpod-<id> (the cgroupfs
#       manager: there is no systemd here).  --rootless USER: USER runs podman on a
#       copy of ROOT USER owns (as a rootless image's files are), with HOME and
#       XDG_RUNTIME_DIR under $TMP; on a hybrid hierarchy a rootless container has
#       no cgroup of its own (CTR_CGROUP is USER's).
#   Why not crun: on a host whose cgroup2 mount has controllers while v1 ones are
#   mounted too (here hugetlb), crun 1.8 refuses: "cgroups in hybrid mode not
#   supported, drop all controllers from cgroupv2".  Why podman gets --ulimit: where
#   the bounding set lacks CAP_SYS_RESOURCE (these VMs), podman's defaults (nofile
#   1048576, nproc the host's maximum after podman lowered its own to 32768) are
#   above the hard limits and the runtime's setrlimit fails: "error setting rlimit
#   type 7 (RLIMIT_NOFILE): operation not permitted", then RLIMIT_NPROC.
#
# The root (container_root DIR):
#   /app/ctr-hot, /app/ctr-hot-nofp    the program (container_app.c) with and without
#       frame pointers, and /app/lib/libctr.so, libctr-nofp.so, the library each
#       uses (container_lib.c, by RUNPATH): paths that exist only inside the root.
#   $CTR_DECOY_DIR/ctr-hot, ctr-hot-nofp, libctr.so, libctr-nofp.so    the same
#       code built there (RUNPATH $CTR_DECOY_DIR): the host has other files at these
#       paths (container_decoy.c: functions decoy_*), as a host's /usr/bin/python3
#       or libssl.so.3 is another build than a container's.
#   The dynamic loader and libc, copied from the host (the paths ldd finds); empty
#   /proc (container-init mounts it), /sys, /dev, /run, /tmp; /etc with hostname,
#   hosts, resolv.conf, passwd, group and mtab, as an image has them.
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

# container_shell DIR: the host's /bin/sh at DIR/bin/sh, with the loader and libraries
# it needs, so that a root made by container_root can run a shell loop.
container_shell() {
	local dir=$1 sh lib
	sh=$(readlink -f /bin/sh)
	for lib in $(ldd "$sh" | grep -o '/[^ ]*'); do ctr_copy_object "$dir" "$lib"; done
	mkdir -p "$dir/bin" && cp "$sh" "$dir/bin/sh" || fail "copy $sh into $dir"
}

container_root() {
	local dir=$1 cflags='-O2 -g -fno-optimize-sibling-calls' line path
	command -v gcc >/dev/null || skip "needs gcc"
	command -v ldd >/dev/null || skip "needs ldd (libc-bin)"
	mkdir -p "$dir" || fail "mkdir $dir"
	CTR_DECOY_DIR=$dir.host
	local real=$dir$CTR_DECOY_DIR
	mkdir -p "$dir/app" "$dir/proc" "$dir/sys" "$dir/dev" "$dir/run" "$dir/tmp" "$dir/etc" "$real" "$CTR_DECOY_DIR" ||
		fail "mkdir in $dir"
	chmod 1777 "$dir/tmp"
	# What an image has and runtimes mount over or link (runc, podman): then they
	# need not write into the root.
	echo "ctr" >"$dir/etc/hostname"
	: >"$dir/etc/hosts"
	: >"$dir/etc/resolv.conf"
	echo "root:x:0:0:root:/:/app/ctr-hot" >"$dir/etc/passwd"
	echo "root:x:0:" >"$dir/etc/group"
	ln -s /proc/self/mounts "$dir/etc/mtab"
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

# A new container's number, state dir ($CTR_STATE) and the cleanup, registered once.
ctr_begin() {
	CTR_N=$ctr_n
	ctr_n=$((ctr_n + 1))
	if [ -z "$ctr_cleanup_registered" ]; then
		ctr_cleanup_registered=1
		ctr_pids_all=() ctr_shims=() ctr_cgdirs=() ctr_mounts=() ctr_cg_made=() ctr_rt=()
		cleanup_hooks=(container_cleanup "${cleanup_hooks[@]}")
		mkdir -p "$TMP/ctr-state" "$(dirname "$CTR_MANIFEST")" || fail "mkdir for $CTR_MANIFEST"
		ctr_made dir "$TMP"
	fi
	CTR_STATE=$TMP/ctr-state/$CTR_N
	mkdir -p "$CTR_STATE" && chmod 755 "$TMP" "$TMP/ctr-state" "$CTR_STATE" || fail "mkdir $CTR_STATE"
	CTR_POD_UID= CTR_POD_CGROUP= CTR_OUT=$CTR_STATE/out CTR_ERR=$CTR_STATE/err
}

# Its id and cgroup for a kind (see the header): CTR_ID, CTR_CGROUP, the pod's.
ctr_place() {
	local kind=$1
	CTR_ID=$(ctr_new_id)
	case $kind in
	pod|crio) CTR_POD_UID=$(cat /proc/sys/kernel/random/uuid) ;;
	pod:*|crio:*) CTR_POD_UID=${kind#*:} kind=${kind%%:*} ;;
	esac
	CTR_CGROUP=$(ctr_cgroup_path "$kind" "$CTR_ID")
	[ -n "$CTR_POD_UID" ] && CTR_POD_CGROUP=$(dirname "$CTR_CGROUP")
	return 0
}

# An overlay on the host with ROOT as its lower dir, at $CTR_STATE/merged (upper and
# work beside it), as Docker mounts an image's layers: CTR_ROOT.
ctr_overlay() {
	grep -qw overlay /proc/filesystems || modprobe overlay 2>/dev/null
	mount -t overlay overlay -o "lowerdir=$1,upperdir=$CTR_STATE/upper,workdir=$CTR_STATE/work" "$CTR_STATE/merged" ||
		skip "cannot mount an overlay here"
	CTR_ROOT=$CTR_STATE/merged
	ctr_mounts+=("$CTR_ROOT")
	ctr_made mount "$CTR_ROOT"
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
	ctr_begin
	n=$CTR_N st=$CTR_STATE
	ctr_place "$kind"
	CTR_CGROUP_DIR=$cgroot/$CTR_CGROUP
	ctr_cgroup_make "$cgroot" "$CTR_CGROUP"
	ctr_cgdirs[n]=$CTR_CGROUP_DIR

	# The root: ROOT itself, or an overlay with ROOT as its lower dir.
	CTR_ROOT=$root
	local ovl_opt=()
	if [ -n "$overlay" ]; then
		mkdir -p "$st/upper" "$st/work" "$st/merged" || fail "mkdir overlay dirs"
		[ -n "$rootless" ] && chown "$rootless:" "$st/upper" "$st/work" "$st/merged"
		if [ -n "$rootless" ]; then
			CTR_ROOT=$st/merged
			ovl_opt=(-O "lowerdir=$root,upperdir=$st/upper,workdir=$st/work")
		else
			ctr_overlay "$root"
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
	CTR_HOSTNAME=ctr-${CTR_ID:0:12} CTR_RUNTIME=namespaces
	( exec 3<"$st/go"; exec "${pre[@]}" unshare "${ns[@]}" -- "$init" -w 3 -n "$CTR_HOSTNAME" \
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
	if [ -n "${ctr_rt[n]:-}" ]; then
		while kill -0 "${ctr_pids_all[n]}" 2>/dev/null; do sleep 0.05; done
		[ "${ctr_rt[n]%% *}" = podman ] && rc=$(ctr_rt_cmd "${ctr_rt[n]}" wait "$(ctr_rt_id "${ctr_rt[n]}")" 2>/dev/null)
		return "${rc:-0}"
	fi
	wait "${ctr_shims[n]}" || rc=$?
	return "$rc"
}

# The tasks of its pid namespace (a rootless runtime's container has no cgroup of
# its own).
container_pids() {
	local n=${1:-$CTR_N} ns p
	ns=$(readlink "/proc/${ctr_pids_all[n]}/ns/pid" 2>/dev/null) || return 0
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/ns/pid" 2>/dev/null)" = "$ns" ] && echo "${p#/proc/}"
	done
	return 0
}

# Wait (up to 2 s) until PID is gone or a zombie (a runtime's container is not our
# child: the host's init reaps it).
ctr_gone() {
	local i
	for ((i = 0; i < 200; i++)); do
		[ -e "/proc/$1" ] || return 0
		[ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" = Z ] && return 0
		sleep 0.01
	done
	return 1
}

container_stop() {
	local n=${1:-$CTR_N} pid=${ctr_pids_all[${1:-$CTR_N}]}
	if [ -n "${ctr_rt[n]:-}" ]; then
		ctr_rt_delete "${ctr_rt[n]}"
		ctr_gone "$pid"
		return 0
	fi
	kill -KILL "$pid" 2>/dev/null
	wait "${ctr_shims[n]}" 2>/dev/null
	return 0
}

CTR_SHARE=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/bench/benchlib/ctrshare.py

# WHEN JSON PERF PID...: each container's samples as prof report (JSON, --sort
# pid,dso,sym) and perf report (-F sample,pid,dso,sym -g none -t '|') name them:
# at least 100, none wrong (none the host decoy's), at least 99 % named.
ctr_check_names() {
	local when=$1 json=$2 perf=$3 reader p n right wrong dec unknown
	shift 3
	for reader in "prof-json $json" "perf-report $perf"; do
		while read -r p n right wrong dec unknown; do
			[ "$n" -ge 100 ] || fail "$when ${reader%% *}: container pid $p has $n samples"
			[ "$wrong" -eq 0 ] || fail "$when ${reader%% *}: pid $p: $wrong of $n named wrong ($dec the host decoy's)"
			[ $((right * 100)) -ge $((n * 99)) ] || fail "$when ${reader%% *}: pid $p: $right of $n named ($unknown unknown)"
			note "$when ${reader%% *}: pid $p: $right of $n samples named, $unknown unknown, 0 wrong"
		done < <(python3 "$CTR_SHARE" names $reader "$@")
	done
}

# ctr_check_dwarf_stacks FILE: --call-graph dwarf stacks of ctr-hot-nofp in FILE, as
# prof report's folded stacks and perf script show them: at least 1000, >= 90 % reaching
# main and _start, none through the host decoy.
ctr_check_dwarf_stacks() {
	local f=$1 reader n good
	"$PROF" report -i "$f" -F folded -g --no-inline --comm ctr-hot-nofp >"$TMP/dwarf.folded" 2>"$TMP/dwarf.ferr" ||
		fail "dwarf: prof report -F folded: $(cat "$TMP/dwarf.ferr")"
	perf_clean "$TMP/dwarf.script" script -i "$f" -F comm,ip,sym
	for reader in "folded $TMP/dwarf.folded" "perf-script $TMP/dwarf.script"; do
		read -r _ n good < <(python3 "$CTR_SHARE" stacks $reader ctr-hot-nofp)
		[ "$n" -ge 1000 ] || fail "dwarf ${reader%% *}: $n stacks"
		[ $((good * 100)) -ge $((n * 90)) ] ||
			fail "dwarf ${reader%% *}: $good of $n stacks reach main and _start"
		note "dwarf ${reader%% *}: $good of $n stacks reach main and _start"
	done
	if grep -q decoy_ "$TMP/dwarf.folded" "$TMP/dwarf.script"; then
		fail "dwarf: a stack names the decoy: $(grep -h decoy_ "$TMP/dwarf.folded" "$TMP/dwarf.script" | head -3)"
	fi
}

# A hostile ELF: FILE's PT_NOTE made to start 1 TiB past the file's end.
ctr_note_past_end() {
	python3 - "$1" <<'PY'
import struct, sys
with open(sys.argv[1], "r+b") as f:
    eh = f.read(64)
    phoff, = struct.unpack_from("<Q", eh, 32)
    phentsize, phnum = struct.unpack_from("<HH", eh, 54)
    for i in range(phnum):
        f.seek(phoff + i * phentsize)
        if struct.unpack("<I", f.read(4))[0] == 4:      # PT_NOTE
            f.seek(phoff + i * phentsize + 8)
            f.write(struct.pack("<Q", 1 << 40))         # p_offset
            break
    else:
        sys.exit("no PT_NOTE")
PY
}

ctr_build_id() {
	readelf -n "$1" 2>/dev/null | awk '/Build ID:/ { print $3; exit }'
}

# The maps line of PATH's executable mapping in PID: "range dev inode".
ctr_exec_map() {
	awk -v p="$2" '$6 == p && $2 ~ /x/ { print $1, $4, $5; exit }' "/proc/$1/maps"
}

container_check_objects() {
	local what=$1 root=$2 prog=$3 pid=$CTR_PID suffix= lib obj m range dev ino mdev bid
	command -v readelf >/dev/null || skip "needs readelf (binutils)"
	case $prog in *-nofp) suffix=-nofp ;; esac
	case $prog in /app/*) lib=/app/lib/libctr$suffix.so ;; *) lib=$(dirname "$prog")/libctr$suffix.so ;; esac
	grep -qF "$root/" "/proc/$pid/maps" && fail "$what: maps shows host paths: $(grep -F "$root/" "/proc/$pid/maps")"
	for obj in "$prog" "$lib"; do
		bid=$(ctr_build_id "$root$obj")
		m=$(ctr_exec_map "$pid" "$obj")
		[ -n "$m" ] || fail "$what: maps shows no executable mapping of $obj: $(grep ctr "/proc/$pid/maps")"
		read -r range dev ino <<<"$m"
		mdev=$((16#${dev%:*})):$((16#${dev#*:}))
		# the host path: absent or another file
		if [ -e "$obj" ]; then
			[ "$(ctr_build_id "$obj")" != "$bid" ] || fail "$what: the host's $obj is the container's"
			cmp -s "$obj" "$root$obj" && fail "$what: the host's $obj is the container's"
		fi
		# map_files: the mapped file itself; /proc/PID/root: the container's root
		[ "$(ctr_build_id "/proc/$pid/map_files/$range")" = "$bid" ] || fail "$what: map_files/$range is not $obj"
		cmp -s "/proc/$pid/map_files/$range" "$root$obj" || fail "$what: map_files/$range differs from $root$obj"
		cmp -s "/proc/$pid/root$obj" "$root$obj" || fail "$what: /proc/$pid/root$obj differs from $root$obj"
		# the mapped (device, inode) is the file reached both ways
		[ "$(stat -Lc '%Hd:%Ld %i' "/proc/$pid/map_files/$range")" = "$mdev $ino" ] ||
			fail "$what: maps says $mdev $ino, map_files is $(stat -Lc '%Hd:%Ld %i' "/proc/$pid/map_files/$range")"
		[ "$(stat -Lc '%Hd:%Ld %i' "/proc/$pid/root$obj")" = "$mdev $ino" ] ||
			fail "$what: maps says $mdev $ino, /proc/PID/root$obj is $(stat -Lc '%Hd:%Ld %i' "/proc/$pid/root$obj")"
	done
}

container_check_ns() {
	local what=$1 pid=$CTR_PID ns
	for ns in mnt pid uts; do
		[ "$(readlink "/proc/$pid/ns/$ns")" != "$(readlink "/proc/self/ns/$ns")" ] || fail "$what: shares the host's $ns namespace"
	done
	grep -qE "^NSpid:[[:space:]]+$pid[[:space:]]+1\$" "/proc/$pid/status" || fail "$what: not pid 1 inside: $(grep NSpid "/proc/$pid/status")"
	[ "$(nsenter -t "$pid" -u hostname)" = "$CTR_HOSTNAME" ] || fail "$what: hostname $(nsenter -t "$pid" -u hostname), not $CTR_HOSTNAME"
	[[ $CTR_CGROUP == *"$CTR_ID"* ]] || return 0
	grep -qxF "0::/$CTR_CGROUP" "/proc/$pid/cgroup" || fail "$what: cgroup $(grep '^0::' "/proc/$pid/cgroup"), not /$CTR_CGROUP"
	grep -qxF "$pid" "$CTR_CGROUP_DIR/cgroup.procs" || fail "$what: $pid not in $CTR_CGROUP_DIR"
	# the shim (unshare, conmon) stays outside, as a runtime's shim does
	[ -n "$CTR_SHIM" ] && grep -qxF "$CTR_SHIM" "$CTR_CGROUP_DIR/cgroup.procs" && fail "$what: the shim is in the container's cgroup"
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
	for n in "${!ctr_rt[@]}"; do ctr_rt_delete "${ctr_rt[n]}"; done
	for n in "${!ctr_shims[@]}"; do
		kill -KILL "${ctr_pids_all[n]}" "${ctr_shims[n]}" 2>/dev/null
		for p in $(cat "${ctr_cgdirs[n]}/cgroup.procs" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
	done
	for n in "${!ctr_shims[@]}"; do [ -n "${ctr_shims[n]}" ] && wait "${ctr_shims[n]}" 2>/dev/null; done
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
	ctr_shims=() ctr_pids_all=() ctr_mounts=() ctr_cg_made=() ctr_rt=()
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
		runtime) ctr_rt_exists "$a $b" && echo "runtime $a $b" ;;
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
		[ "$what" = runtime ] && ctr_rt_delete "$a $b"
	done <"$manifest"
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

# ---- real runtimes ----

# The cgroup hierarchies mounted here, v1 and v2.
ctr_hierarchies() {
	awk '{ for (i = 7; i < NF; i++) if ($i == "-") break; if ($(i + 1) == "cgroup" || $(i + 1) == "cgroup2") print $5 }' /proc/self/mountinfo
}

# Remember the directories of REL a runtime is about to make in every hierarchy,
# so that cleanup removes them (and only them) after the runtime deleted its own.
ctr_cgroup_track() {
	local rel=$1 h d part
	local IFS=$'\n'
	for h in $(ctr_hierarchies); do
		d=$h
		IFS=/
		for part in $rel; do
			[ -n "$part" ] || continue
			d=$d/$part
			if [ ! -d "$d" ]; then
				ctr_cg_made+=("$d")
				ctr_made cgroup "$d"
			fi
		done
		IFS=$'\n'
	done
}

# A runtime container is "runc ID" or "podman ID USER HOME XDG" (USER - for root).
ctr_rt_id() {
	local a=($1)
	echo "${a[1]}"
}
ctr_rt_cmd() {
	local a=($1)
	shift
	if [ "${a[0]}" = runc ]; then
		runc "$@"
	elif [ "${a[2]}" = - ]; then
		podman "$@"
	else
		# from the user's home: the test's cwd (meson's, under a clone in /root on a
		# fresh machine) may be closed to the user, and podman's process chdirs to it
		( cd "${a[3]}" && setpriv --reuid="${a[2]}" --regid="$(id -g "${a[2]}")" --init-groups env -i HOME="${a[3]}" \
			XDG_RUNTIME_DIR="${a[4]}" PATH=/usr/sbin:/usr/bin:/sbin:/bin podman "$@" )
	fi
}
ctr_rt_exists() {
	local id=$(ctr_rt_id "$1") rc
	case $1 in
	runc*) ctr_rt_cmd "$1" state "$id" >/dev/null 2>&1 ;;
	*)
		ctr_rt_cmd "$1" container exists "$id" 2>/dev/null
		rc=$?
		ctr_rt_unpause "$1"
		return "$rc" ;;
	esac
}
ctr_rt_delete() {
	local id=$(ctr_rt_id "$1")
	case $1 in
	runc*) ctr_rt_cmd "$1" delete -f "$id" >/dev/null 2>&1 ;;
	*)
		ctr_rt_cmd "$1" rm -f -t 0 "$id" >/dev/null 2>&1
		ctr_rt_unpause "$1" ;;
	esac
	return 0
}
# Rootless podman keeps a pause process holding the user's namespace, which every
# podman command of the user joins (or makes anew), among them the "podman
# container cleanup" conmon runs when a container ends: wait until the user runs
# nothing else, then end it.
ctr_rt_unpause() {
	local a=($1) pause= i quiet=0
	[ "${a[2]}" != - ] || return 0
	for ((i = 0; i < 200 && quiet < 4; i++)); do
		pause=$(cat "${a[4]}/libpod/tmp/pause.pid" 2>/dev/null)
		if [ -z "$(ps -u "${a[2]}" -o pid=,stat= | awk -v p="$pause" '$1 != p && $2 !~ /^Z/')" ]; then
			quiet=$((quiet + 1))
		else
			quiet=0
		fi
		sleep 0.05
	done
	[ -n "$pause" ] && kill -KILL "$pause" 2>/dev/null
	return 0
}

# What container_run does after its start, for a runtime's container: the
# variables, the manifest, and the wait for CMD's exec.
ctr_rt_started() {
	local n=$1 rt=$2 pid=$3 cmd=$4 quiet=$5 i comm
	CTR_PID=$pid CTR_SHIM= CTR_RUNTIME=${rt%% *}
	ctr_pids_all[n]=$pid ctr_rt[n]=$rt
	ctr_made runtime "$rt"
	comm=$(basename "$cmd")
	comm=${comm:0:15}
	for ((i = 0; i < 500; i++)); do
		[ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$comm" ] && break
		kill -0 "$pid" 2>/dev/null || fail "$CTR_RUNTIME container $n exited before it ran $cmd"
		sleep 0.01
	done
	CTR_CGROUP=$(awk -F: '$1 == "0" { sub(/^\//, "", $3); print $3 }' "/proc/$pid/cgroup")
	CTR_CGROUP_DIR=$(cgroup2_root)/$CTR_CGROUP
	# Only a cgroup of its own is the container's (not a rootless user's).
	[[ $CTR_CGROUP == *"$CTR_ID"* ]] && ctr_cgdirs[n]=$CTR_CGROUP_DIR
	[ -n "$quiet" ] || note "container $n ($CTR_RUNTIME): pid $CTR_PID, cgroup /$CTR_CGROUP, id $CTR_ID"
}

container_runc() {
	local overlay= quiet=
	while [ $# -gt 0 ]; do
		case $1 in
		--overlay) overlay=1; shift ;;
		--quiet) quiet=1; shift ;;
		*) break ;;
		esac
	done
	[ $# -ge 4 ] && [ "$3" = -- ] || fail "usage: container_runc [--overlay] [--quiet] ROOT CGROUP -- CMD [ARGS...]"
	local root=$1 kind=$2 n b pid
	shift 3
	command -v runc >/dev/null || skip "needs runc (Debian package runc)"
	command -v python3 >/dev/null || skip "needs python3"
	ctr_begin
	n=$CTR_N b=$CTR_STATE/bundle
	ctr_place "$kind"
	local rel=$CTR_CGROUP
	CTR_ROOT=$root
	if [ -n "$overlay" ]; then
		mkdir -p "$CTR_STATE/upper" "$CTR_STATE/work" "$CTR_STATE/merged" || fail "mkdir overlay dirs"
		ctr_overlay "$root"
	fi
	mkdir -p "$b" && runc spec --bundle "$b" || fail "runc spec"
	CTR_HOSTNAME=ctr-${CTR_ID:0:12}
	python3 - "$b/config.json" "$CTR_ROOT" "/$rel" "$CTR_HOSTNAME" "$@" <<'PY' || fail "edit $b/config.json"
import json, sys
path, root, cgroup, host, args = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
c = json.load(open(path))
c["root"] = {"path": root, "readonly": False}
c["process"].update(args=args, terminal=False, cwd="/")
c["hostname"] = host
c["linux"]["cgroupsPath"] = cgroup
json.dump(c, open(path, "w"), indent=1)
PY
	ctr_cgroup_track "$rel"
	if ! runc run -d --bundle "$b" "ctr-$CTR_ID" </dev/null >"$CTR_OUT" 2>"$CTR_ERR"; then
		runc delete -f "ctr-$CTR_ID" >/dev/null 2>&1
		skip "runc cannot run a container here: $(tail -n 3 "$CTR_ERR")"
	fi
	pid=$(runc state "ctr-$CTR_ID" | python3 -c 'import json, sys; print(json.load(sys.stdin)["pid"])') ||
		fail "runc state ctr-$CTR_ID"
	ctr_rt_started "$n" "runc ctr-$CTR_ID" "$pid" "$1" "$quiet"
	[ "$CTR_CGROUP" = "$rel" ] || fail "runc put $pid in /$CTR_CGROUP, not /$rel"
}

container_podman() {
	local overlay= rootless= quiet=
	while [ $# -gt 0 ]; do
		case $1 in
		--overlay) overlay=1; shift ;;
		--rootless) rootless=$2; shift 2 ;;
		--quiet) quiet=1; shift ;;
		*) break ;;
		esac
	done
	[ $# -ge 3 ] && [ "$2" = -- ] || fail "usage: container_podman [--overlay] [--rootless USER] [--quiet] ROOT -- CMD [ARGS...]"
	local root=$1 n rt rootfs id pid nofile nproc
	shift 2
	command -v podman >/dev/null || skip "needs podman (Debian package podman)"
	command -v runc >/dev/null || skip "needs runc (Debian package runc): crun refuses hybrid cgroup hierarchies"
	ctr_begin
	n=$CTR_N rootfs=$root rt="podman - - - -"
	local opts=(--runtime runc --network none)
	if [ -n "$rootless" ]; then
		command -v newuidmap >/dev/null || skip "needs newuidmap (Debian package uidmap) for rootless podman"
		grep -q "^$rootless:" /etc/subuid || skip "$rootless has no subordinate uids (/etc/subuid)"
		rootfs=$CTR_STATE/rootfs
		mkdir -p "$CTR_STATE/home" "$CTR_STATE/run" && cp -a "$root" "$rootfs" &&
			chown -R "$rootless:" "$rootfs" "$CTR_STATE/home" "$CTR_STATE/run" && chmod 700 "$CTR_STATE/run" ||
			fail "a rootfs for $rootless"
		rt="podman - $rootless $CTR_STATE/home $CTR_STATE/run"
		opts+=(--ulimit host)
	else
		ctr_cgroup_track libpod_parent
		ctr_cgroup_track libpod_parent/conmon
		nofile=$(ulimit -Hn) nproc=$(ulimit -Hu)
		[ "$nproc" = unlimited ] || [ "$nproc" -gt 32768 ] && nproc=32768
		opts+=(--ulimit "nofile=$nofile:$nofile" --ulimit "nproc=$nproc:$nproc")
	fi
	[ -n "$overlay" ] && rootfs=$rootfs:O
	if ! id=$(ctr_rt_cmd "$rt" run -d "${opts[@]}" --rootfs "$rootfs" "$@" 2>"$CTR_ERR"); then
		skip "podman cannot run a container here: $(tail -n 3 "$CTR_ERR")"
	fi
	CTR_ID=$id CTR_HOSTNAME=${id:0:12}
	rt=${rt/podman -/podman $id}
	pid=$(ctr_rt_cmd "$rt" inspect -f '{{.State.Pid}}' "$id") || fail "podman inspect $id"
	CTR_ROOT=${rootfs%:O}
	ctr_rt_started "$n" "$rt" "$pid" "$1" "$quiet"
	CTR_SHIM=$(awk '{ print $4 }' "/proc/$pid/stat")     # conmon, podman's shim
	if [ -z "$rootless" ]; then
		[ "$CTR_CGROUP" = "libpod_parent/libpod-$id" ] || fail "podman put $pid in /$CTR_CGROUP"
	fi
}
