#!/usr/bin/env bash
# prof top --off-cpu, the live view of hogs.sh's contention: a tenant's CPU hog pinned
# (taskset) to one CPU beside two hogs of another user.  Its row says it waited for
# the CPU for the share of its time the kernel says (schedstat's run-queue wait over
# its life, within 5 points; 2/3 by construction on a quiet host), and who held it:
# the other user by name in root's view (>= 95 % on a quiet host), "other tenants"
# in the tenant's own (prof with the file capabilities, run by her), and nothing of
# the other user (name, comm) anywhere in her view.  With --holders cgroup, root's
# view names the cgroup the test puts the neighbour's hogs in (>= 95 % on a quiet
# host), and the tenant's still only the five words.
. "$(dirname "$0")/lib.sh"
command -v taskset >/dev/null || skip "needs taskset (util-linux)"
command -v setcap >/dev/null || skip "needs setcap (libcap2-bin)"
command -v runuser >/dev/null || skip "needs runuser"
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs (the hogs take one)"
CPU=$(($(nproc) - 1))

A=prof-it-ota
B=prof-it-otb
make_user "$A"
make_user "$B"
mine=$(public_copy "$PROF_OFFCPU")
comm=$(basename "$mine" | cut -c1-15)
mkdir -p "$TMP/pub/n" && cp "$PROF_OFFCPU" "$TMP/pub/n/nbr-hog" && chmod 755 "$TMP/pub/n" "$TMP/pub/n/nbr-hog" || fail copy
mkdir "$TMP/bin" "$TMP/u" && chown "$A" "$TMP/u" && chmod 755 "$TMP/bin" || fail dirs
cp "$PROF" "$TMP/bin/prof" && chmod 755 "$TMP/bin/prof" || fail copy
setcap cap_perfmon,cap_sys_ptrace,cap_syslog=ep "$TMP/bin/prof" 2>/dev/null || skip "file capabilities not supported here"

# The neighbour's cgroup for --holders cgroup (cgroup2; not checked on a host without).
NCG=
cg2=$(cgroup2_root)
if [ -n "$cg2" ] && [ -w "$cg2/cgroup.procs" ]; then
	NCG=$cg2/prof-it-otb-nbr
	make_cgroup_tree "$NCG"
fi
NBR_CG=         # the cgroup view() puts the neighbour's hogs in ("": where they are)
TOP_EXTRA=()    # more options of view()'s top


# One view: top from before her hog starts to after it ends (one cumulative
# snapshot), the neighbour's two hogs on the CPU throughout.  $1: who runs top (root:
# the build's prof, scope her uid; else she, with the capability install's copy, scope
# the process tree of her hog: a tenant's --uid needs tracefs).
view() {
	local who=$1 top=("$PROF") scope hp tp
	rm -f "$TMP/u/pid.$who"   # a second view of the same user: not the first one's pid
	for _ in 1 2; do
		sh -c '[ -z "$1" ] || echo $$ >"$1/cgroup.procs" || exit 1; shift; exec "$@"' sh "$NBR_CG" \
			runuser -u "$B" -- taskset -c "$CPU" "$TMP/pub/n/nbr-hog" hog 8 >/dev/null &
	done
	runuser -u "$A" -- sh -c 'echo $$ >"$1"; sleep 2; exec taskset -c "$2" "$3" hog 3' sh "$TMP/u/pid.$who" \
		"$CPU" "$mine" >"$TMP/truth.$who" &
	hp=$!
	for _ in $(seq 100); do [ -s "$TMP/u/pid.$who" ] && break; sleep 0.05; done
	scope=(--uid "$A")
	[ "$who" = root ] || { top=(runuser -u "$who" -- "$TMP/bin/prof"); scope=(--pid "$(cat "$TMP/u/pid.$who")"); }
	"${top[@]}" top --off-cpu "${TOP_EXTRA[@]}" "${scope[@]}" --stdio -d 6 -n 1 --rows 20 >"$TMP/top.$who" 2>"$TMP/err.$who" &
	tp=$!
	wait "$hp" || fail "$who: the hog failed"
	wait "$tp" || fail "$who: prof top: $(cat "$TMP/err.$who")"
	wait
	note "$who: $(cat "$TMP/top.$who")"
}

# The hog's row: "on runq blocked pid comm holders..." (percent signs dropped).
row() { awk -v c="$comm" '$5 == c && $1 ~ /%$/ { gsub(/%/, ""); print; exit }' "$1"; }

# Its runq share of its own time (on + runq + blocked), the kernel's over its life.
check_runq() {
	local who=$1 on runq blocked exec wait life rest
	read -r on runq blocked _ _ rest < <(row "$TMP/top.$who")
	[ -n "$runq" ] || fail "$who: no row for $comm: $(cat "$TMP/top.$who")"
	read -r _ exec wait life <"$TMP/truth.$who" || fail "$who: no ground truth"
	pr=$(awk -v r="$runq" -v o="$on" -v b="$blocked" 'BEGIN { printf "%.1f", 100 * r / (o + r + b) }')
	pk=$(pct "$wait" "$life")
	near "$pr" "$pk" 5 || fail "$who: the row's runq is $pr % of its time, the kernel's run-queue wait $pk %"
	quiet=0
	near "$pk" 66.7 1 && quiet=1
	# where the kernel says 2/3 (others' work took little of the CPU), so must the row
	if near "$pk" 66.7 5; then
		near "$pr" 66.7 5 || fail "$who: the row's runq is $pr % of its time, not 2/3 +- 5 points"
	else
		note "the host was busy: the kernel's run-queue wait is $pk % of the hog's life ($(uptime))"
	fi
	pass "$who: the row waited for the CPU $pr % of its time (kernel: $pk %; 2/3 by construction on a quiet host)"
	holders=$rest
}

# ---- root: the neighbour by name ------------------------------------------------
view root
check_runq root
share=$(echo "$holders" | grep -oE "$B [0-9]+" | awk '{ print $2 }')
if [ $quiet = 1 ]; then
	awk -v s="${share:-0}" 'BEGIN { exit !(s >= 95) }' || fail "root: $B held the CPU ${share:-0} %, not >= 95: $holders"
else
	awk -v s="${share:-0}" 'BEGIN { exit !(s >= 30) }' || fail "root: $B held the CPU ${share:-0} %: $holders"
	note "the host was busy ($(uptime)): others' share of the wait allowed"
fi
pass "root: held by $B for $share % of the wait ($holders)"

# ---- root, --holders cgroup: the neighbour's cgroup by its path ---------------------
if [ -n "$NCG" ]; then
	NBR_CG=$NCG TOP_EXTRA=(--holders cgroup)
	view root
	NBR_CG= TOP_EXTRA=()
	grep -q 'Runq held by (cgroup)' "$TMP/top.root" || fail "root: no cgroup holders' title: $(cat "$TMP/top.root")"
	check_runq root
	ncg=${NCG#"$cg2"}
	share=$(echo "$holders" | awk -v c="$ncg" '{ for (i = 1; i < NF; i++) if ($i == c) print $(i + 1) }')
	awk -v s="${share:-0}" -v q=$quiet 'BEGIN { exit !(s >= (q ? 95 : 30)) }' ||
		fail "root: --holders cgroup: $ncg held the CPU ${share:-0} %: $holders"
	echo "$holders" | awk -v b="$B" '{ for (i = 1; i <= NF; i++) if ($i == b) exit 1 }' ||
		fail "root: --holders cgroup names the user: $holders"
	pass "root: --holders cgroup: held by $ncg for $share % of the wait ($holders)"
else
	note "no writable cgroup2 root: --holders cgroup not checked"
fi

# ---- a thread asleep through the snapshot: its open interval counts -------------
"$PROF" top --off-cpu --uid "$A" --stdio -d 3 -n 1 >"$TMP/top.sleep" 2>"$TMP/err" &
tp=$!
sleep 1
runuser -u "$A" -- sleep 8 &
wait "$tp" || fail "sleep: prof top: $(cat "$TMP/err")"
pkill -u "$A" -x sleep
wait
blocked=$(awk '$5 == "sleep" && $1 ~ /%$/ { gsub(/%/, ""); print $3; exit }' "$TMP/top.sleep")
awk -v b="${blocked:-0}" 'BEGIN { exit !(b >= 25) }' ||
	fail "a thread asleep for the last ~2 s of a 3 s view shows blocked ${blocked:-no row} %: $(cat "$TMP/top.sleep")"
grep -qE 'intervals ended \(0 cut\), [1-9][0-9]* open' "$TMP/top.sleep" || fail "no open interval counted: $(cat "$TMP/top.sleep")"
pass "a sleep still going at the snapshot shows blocked $blocked % of the view"

# ---- the tenant: "other tenants", and nothing of theirs ----------------------------
view "$A"
check_runq "$A"
share=$(echo "$holders" | grep -oE "other tenants [0-9]+" | awk '{ print $3 }')
echo "$holders" | grep -qE '(^| )(self|system|idle|\[unknown\]|other tenants) [0-9]+' || fail "tenant: holders '$holders'"
awk -v s="${share:-0}" -v q=$quiet 'BEGIN { exit !(s >= (q ? 95 : 30)) }' ||
	fail "tenant: other tenants held the CPU ${share:-0} %: $holders"
pass "tenant: held by 'other tenants' for $share % of the wait"
for s in "$B" nbr-hog "uid $(id -u "$B")"; do
	grep -q -- "$s" "$TMP/top.$A" && fail "tenant: her top shows '$s': $(cat "$TMP/top.$A")"
done
# every holder of every row is one of the five words
awk '$1 ~ /%$/ { for (i = 6; i <= NF; i++) if ($i !~ /%$/ && $i !~ /^(self|system|idle|\[unknown\]|other|tenants|others)$/) { print $i; exit 1 } }' \
	"$TMP/top.$A" >"$TMP/bad" || fail "tenant: a holder named '$(cat "$TMP/bad")' in her top"
pass "tenant: neither $B nor nbr-hog in her view; holders only self, other tenants, system, idle, [unknown]"

# ---- the tenant, --holders cgroup: still the five words, no cgroup of another's -------
if [ -n "$NCG" ]; then
	NBR_CG=$NCG TOP_EXTRA=(--holders cgroup)
	view "$A"
	NBR_CG= TOP_EXTRA=()
	for s in "$B" nbr-hog prof-it-otb-nbr "uid $(id -u "$B")"; do
		grep -q -- "$s" "$TMP/top.$A" && fail "tenant: --holders cgroup: her top shows '$s': $(cat "$TMP/top.$A")"
	done
	awk '$1 ~ /%$/ { for (i = 6; i <= NF; i++) if ($i !~ /%$/ && $i !~ /^(self|system|idle|\[unknown\]|other|tenants|others)$/) { print $i; exit 1 } }' \
		"$TMP/top.$A" >"$TMP/bad" || fail "tenant: --holders cgroup: a holder named '$(cat "$TMP/bad")' in her top"
	echo "$(row "$TMP/top.$A")" | grep -qE 'other tenants [0-9]+' || fail "tenant: --holders cgroup: no other tenants: $(cat "$TMP/top.$A")"
	pass "tenant: --holders cgroup still shows only the five words"
fi

# --off-cpu with a count that is not nanoseconds is refused, with what to give
"$PROF" top --off-cpu -a -e page-faults --stdio -n 1 >/dev/null 2>"$TMP/err" && fail "-e page-faults accepted"
grep -q "cpu-clock" "$TMP/err" || fail "the refusal does not say what to give: $(cat "$TMP/err")"
pass "--off-cpu -e page-faults refused: $(cat "$TMP/err")"
"$PROF" top -a --holders cgroup --stdio -n 1 >/dev/null 2>"$TMP/err" && fail "--holders without --off-cpu accepted"
grep -q -- "--off-cpu" "$TMP/err" || fail "the refusal does not say what to give: $(cat "$TMP/err")"
pass "--holders without --off-cpu refused: $(cat "$TMP/err")"
