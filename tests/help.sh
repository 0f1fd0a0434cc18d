#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Every --help fits a terminal of 80x24 and ends with where to read more; prof --help
# names every command, and each command it names answers --help.
#   tests/help.sh PROF PROFD
set -u
PROF=$1 PROFD=$2
fail=0
check() {       # check LABEL: the help text on stdin
	local text
	text=$(cat)
	awk -v l="$1" 'length > 80 { printf "%s: line %d is %d columns: %s\n", l, NR, length, $0; bad = 1 }
		       END { if (NR > 24) { printf "%s: %d lines, more than 24\n", l, NR; bad = 1 }
			     if ($0 !~ /See [a-z-]+\([158]\)/) { printf "%s: the last line names no man page: %s\n", l, $0; bad = 1 }
			     exit bad }' <<<"$text" || fail=1
}
"$PROF" --help | check "prof --help"
"$PROFD" --help | check "profd --help"
cmds=$("$PROF" --help | awk '/^Commands:/ { on = 1; next } on && /^$/ { exit } on { print $1 }')
for want in record report top daemon ui; do
	grep -qx "$want" <<<"$cmds" || { echo "prof --help does not name '$want'"; fail=1; }
done
for c in $cmds; do
	"$PROF" "$c" --help >/dev/null || { echo "prof $c --help fails"; fail=1; }
	"$PROF" "$c" --help | check "prof $c --help"
done
"$PROF" top --daemon --help | check "prof top --daemon --help"
# the unknown command's message names them all too
msg=$("$PROF" no-such-command 2>&1 >/dev/null)
for c in $cmds; do
	grep -q "[ ,(]$c[,;]" <<<"$msg" || { echo "prof's unknown command message does not name '$c': $msg"; fail=1; }
done
exit $fail
