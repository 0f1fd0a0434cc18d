# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced first by the Python tests (lib.sh, pyenv.sh, builds.sh): the test runs
# again in a private mount namespace with an empty tmpfs over /usr/lib/debug, so
# that none passes because of a debug file this machine happens to have.  A test
# that needs one installs it under $TMP and says where (none does today).
if [ -z "${PROF_NODEBUG:-}" ] && [ "$(id -u)" = 0 ] && [ -d /usr/lib/debug ]; then
	command -v unshare >/dev/null || { echo "SKIP: needs unshare (util-linux) to hide /usr/lib/debug"; exit 77; }
	export PROF_NODEBUG=1
	exec unshare -m --propagation private -- bash -c \
		'mount -t tmpfs -o size=64k,mode=755 prof-nodebug /usr/lib/debug && exec bash "$0" "$@"' "$0" "$@"
fi
