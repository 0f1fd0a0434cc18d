#!/usr/bin/env bash
# A system-wide recording with call chains reads in perf report and perf script without
# a warning, and shows the workload's hot function on top with the right comm.
. "$(dirname "$0")/../lib.sh"
require_root
require_perf

F=$TMP/hot.data
"$PROF" record -a -g -o "$F" -- "$PROF_HOT" 2 >"$TMP/out" 2>"$TMP/err" || fail "prof record exited $?: $(cat "$TMP/err")"
grep -q '^\[ prof record: [0-9]* samples written' "$TMP/err" || fail "no summary line: $(cat "$TMP/err")"
# (-a records the host: what it met of other programs is the summary's too, in
# notes that say how many: Python processes, the test runner's own among them, tasks
# forked and ended before /proc could name them, and on a host running containers,
# or a test run from a root of its own beside the host's, the objects and perf maps
# of tasks in other roots; which of these a busy host gives varies, so the check is
# that nothing else is said and nothing is a warning or an error)
! grep -vE '^(\[ prof record: |prof: )' "$TMP/err" | grep -q . && ! grep -qiE '^prof: (warning|error)' "$TMP/err" ||
	fail "more than the summary on stderr: $(cat "$TMP/err")"
pass "recorded: $(cat "$TMP/err")"

perf_clean "$TMP/report" report -i "$F" --stdio --no-children --sort comm,dso,sym
line=$(top_user_line "$TMP/report")
note "top user line: $line"
echo "$line" | grep -qE 'prof-hot +prof-hot +\[\.\] hot_function' || fail "hot_function is not the top user symbol: $(grep -E '^ +[0-9]' "$TMP/report" | head -5)"
hot=$(pct_of "$TMP/report" 'hot_function')
cold=$(pct_of "$TMP/report" 'cold_function')
awk -v h="$hot" -v c="$cold" 'BEGIN { exit !(h > 3 * c && c > 0) }' || fail "hot $hot% vs cold $cold%: not the workload's 9:1 shape"
pass "perf report: hot_function $hot%, cold_function $cold%"

# Call chains reach the workload's own main through hot_function (a whole word: with
# libc's debug symbols installed, __libc_start_call_main would match too).
perf_clean "$TMP/report-g" report -i "$F" --stdio --no-children --comm prof-hot -S hot_function -G
grep -qw 'main' "$TMP/report-g" || fail "no call chain from hot_function to main: $(grep -v '^#' "$TMP/report-g" | head -20)"
pass "call chains resolve to main"

perf_clean "$TMP/script" script -i "$F"
n=$(grep -c 'hot_function' "$TMP/script" || true)
[ "$n" -gt 100 ] || fail "perf script shows only $n hot_function frames"
grep -qE '^ *prof-hot +[0-9]+ ' "$TMP/script" || fail "perf script lines lack the comm"
pass "perf script: $n hot_function frames"

# Kernel samples resolve to kernel symbols, not raw addresses.
perf_clean "$TMP/kreport" report -i "$F" --stdio --no-children --sort dso,sym
grep -qE '\[kernel\.kallsyms\] +\[k\] [a-z_]' "$TMP/kreport" || fail "no resolved kernel symbol"
pass "kernel symbols resolve"

# The header carries what perf record writes.
perf_clean "$TMP/header" report -i "$F" --header-only
for k in hostname 'os release' arch nrcpus 'total memory' cmdline 'event :'; do
	grep -q "# $k" "$TMP/header" || fail "header lacks '$k': $(cat "$TMP/header")"
done
pass "header features present"
# The command line as perf writes its own: prof's path, then the verb and arguments.
want="# cmdline : $(readlink -f "$PROF") record -a -g -o $F -- $PROF_HOT 2"
got=$(sed -n 's/ *$//; /^# cmdline : /p' "$TMP/header")	# perf prints a space after each word
[ "$got" = "$want" ] || fail "cmdline is '$got', not '$want'"
pass "cmdline: prof's path first"
