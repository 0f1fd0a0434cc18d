# shellcheck shell=bash disable=SC2034  # its variables are the sourcing test's
# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by the node tests (after lib.sh): Debian 12's node 18 as its packages
# install it, without installing them: nodejs + libnode108 and the three packages it
# loads its bundled modules from (absolute /usr/share/nodejs paths), taken with
# apt-get download (cached in ~/.cache/prof/debs) and extracted into DEST; run by
# NODE18_SH in a mount namespace of its own, an overlay of DEST's /usr/share over
# the machine's, the machine's own packages untouched.
NODE18_VERSION=18.20.4+dfsg-1~deb12u3
NODE18_DEBS=${XDG_CACHE_HOME:-$HOME/.cache}/prof/debs

# node18_extract DEST: 0, or 1 with why in node18_why
node18_extract() {
	local dest=$1 v=$NODE18_VERSION p d
	mkdir -p "$NODE18_DEBS"
	for p in nodejs=$v libnode108=$v node-acorn node-cjs-module-lexer node-undici; do
		ls "$NODE18_DEBS/${p%%=*}"_*.deb >/dev/null 2>&1 || (cd "$NODE18_DEBS" && apt-get download -q "$p" >/dev/null 2>&1) ||
			{ node18_why="Debian's node 18 (apt-get download $p failed)"; return 1; }
	done
	for d in "$NODE18_DEBS"/nodejs_"${v//:/%3a}"_amd64.deb "$NODE18_DEBS"/libnode108_"${v//:/%3a}"_amd64.deb \
		"$NODE18_DEBS"/node-acorn_*.deb "$NODE18_DEBS"/node-cjs-module-lexer_*.deb "$NODE18_DEBS"/node-undici_*.deb; do
		dpkg-deb -x "$d" "$dest" || fail "extract $d"
	done
}

# The script that runs DEST's node: unshare -m --propagation private sh -c
# "$NODE18_SH" DEST USER ARGS... (USER "": as the caller; else as USER, by setpriv).
NODE18_SH='d=$0 u=$1; shift
mount -t overlay overlay -o lowerdir="$d/usr/share:/usr/share" /usr/share || exit 1
export LD_LIBRARY_PATH="$d/usr/lib/x86_64-linux-gnu"
[ -z "$u" ] || exec setpriv --reuid="$u" --regid="$u" --clear-groups "$d/usr/bin/node" "$@"
exec "$d/usr/bin/node" "$@"'
