# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by bench/containers (its ci case), after tests/integration/lib.sh.
#
#   ci_root      sets CI_ROOT: a root directory for a CI build in a container, made
#                once and cached in ~/.cache/prof/ci-root-$CI_ROOT_VERSION: the
#                host's own build toolchain (the files of build-essential's
#                installed dependencies and the tools a Makefile runs, as dpkg
#                lists them; no network), and under /src the kernel's tools/ tree
#                of Debian's linux-source-6.12 (libperf and libapi: a C project of
#                ~80 files built by make).
CI_ROOT_VERSION=1
CI_TOOLS="build-essential make coreutils dash bash sed grep mawk findutils diffutils"

ci_root() {
	local cache
	cache=$(getent passwd "$(id -u)" | cut -d: -f6)/.cache/prof   # HOME is the recording's
	local dir=$cache/ci-root-$CI_ROOT_VERSION tarball=/usr/src/linux-source-6.12.tar.xz tmp pkgs p
	CI_ROOT=$dir
	[ -e "$dir/.complete" ] && return 0
	[ -f "$tarball" ] || skip "needs $tarball (package linux-source-6.12)"
	command -v apt-cache >/dev/null && command -v dpkg-query >/dev/null || skip "needs apt-cache and dpkg"
	tmp=$dir.tmp
	rm -rf "$tmp" && mkdir -p "$tmp/usr/bin" "$tmp/usr/lib" "$tmp/usr/lib64" "$tmp/usr/sbin" || fail "mkdir $tmp"
	# merged /usr, as the host has it
	for p in bin lib lib64 sbin; do ln -s "usr/$p" "$tmp/$p"; done
	# the installed packages build-essential needs (no recommends), and the tools
	pkgs=$(apt-cache depends --recurse --installed --no-recommends --no-suggests --no-conflicts \
		--no-breaks --no-replaces --no-enhances $CI_TOOLS 2>/dev/null | grep -v '^ ' | sed 's/:.*//' | sort -u)
	for p in $pkgs; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || continue
		dpkg -L "$p" 2>/dev/null
	done | grep -vE '^/usr/share/(doc|man|info|locale|lintian|bug)/' | sort -u |
		while IFS= read -r p; do [ -f "$p" ] || [ -L "$p" ] && echo "${p#/}"; done >"$tmp.list"
	tar -C / --no-recursion -cf - -T "$tmp.list" | tar -C "$tmp" --keep-directory-symlink -xf - ||
		fail "copy the toolchain into $tmp"
	[ -x "$tmp/usr/bin/gcc" ] && [ -x "$tmp/usr/bin/make" ] && [ -x "$tmp/bin/sh" ] ||
		fail "no gcc, make or sh in $tmp (packages: $pkgs)"
	mkdir -p "$tmp/src" "$tmp/tmp" "$tmp/proc" "$tmp/sys" "$tmp/dev" "$tmp/etc" && chmod 1777 "$tmp/tmp"
	echo "root:x:0:0:root:/:/bin/sh" >"$tmp/etc/passwd"
	echo "root:x:0:" >"$tmp/etc/group"
	tar -xJf "$tarball" -C "$tmp/src" --strip-components=1 --wildcards 'linux-source-6.12/tools/*' ||
		fail "extract tools/ from $tarball"
	rm -f "$tmp.list"
	rm -rf "$dir" && mv "$tmp" "$dir" && touch "$dir/.complete" || fail "cache $dir"
}
