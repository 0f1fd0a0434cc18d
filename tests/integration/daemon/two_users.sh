#!/usr/bin/env bash
# Each tenant's read-only view of profd's history, with no privilege at all: two real
# users run CPU-bound programs in cgroups of their own; each, as a plain user with no
# capability, asks the daemon and gets their own programs (one of them exited before
# the question) and nothing of the other's (no sample, comm, cgroup path); asking for
# the other's uid is refused with the rule named; root gets both (so the checks could
# fail); prof top --daemon shows the same.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib.sh"
require_root
make_user profda
make_user profdb
public_prof
HOT_A=$(public_named "$PROF_HOT" hot-alpha)
GONE_A=$(public_named "$PROF_HOT" gone-alpha)
HOT_B=$(public_named "$PROF_HOT" hot-beta)
root=$(cgroup2_root)
[ -n "$root" ] || skip "no cgroup2"
CG=$root/prof-it-daemon.$$
make_cgroup_tree "$CG"
mkdir "$CG/tenant-a" "$CG/tenant-b" || fail "mkdir cgroups"

profd_config "bucket = 2" "fine_span = 10"
start_profd

# nobody is not root: a plain user's process has no capability
caps=$(as_user profda grep CapEff /proc/self/status | awk '{print $2}')
[ "$caps" = 0000000000000000 ] || fail "profda's processes have capabilities: $caps"

# a job that runs and exits before anyone asks
run_in "$CG/tenant-a" profda "$GONE_A" 2 || fail "gone-alpha"
run_in "$CG/tenant-a" profda "$HOT_A" 6 &
A=$!
run_in "$CG/tenant-b" profdb "$HOT_B" 6 &
B=$!
cleanup_hooks+=("kill $A $B 2>/dev/null")
sleep 3
# prof top --daemon as profda while both run: profda's rows only
as_user profda "$PUB_PROF" top --daemon --socket "$SOCK" --stdio -d 1 -n 2 -z --rows 1000 \
	--sort uid,comm,sym >"$TMP/top.a" 2>"$TMP/err" || fail "top --daemon as profda: $(cat "$TMP/err")"
wait $A $B
sleep 2         # the last fine bucket closes about a second after its end

ask() {         # ask USER ARGS...: prof report --daemon as USER into $TMP/out
	local u=$1
	shift
	as_user "$u" "$PUB_PROF" report --daemon --socket "$SOCK" --since 1m "$@" >"$TMP/out" 2>"$TMP/err"
}
ask profda --sort uid,comm,cgroup,sym || fail "profda's report: $(cat "$TMP/err")"
cp "$TMP/out" "$TMP/a.text"
grep -qE 'profda +hot-alpha .*tenant-a .*hot_function' "$TMP/a.text" || fail "profda does not get hot-alpha: $(head -20 "$TMP/a.text")"
grep -qE 'profda +gone-alpha .*hot_function' "$TMP/a.text" || fail "profda does not get gone-alpha, which exited before the question: $(head -20 "$TMP/a.text")"
rows=$(grep -E '^ +[0-9.]+%' "$TMP/a.text")
echo "$rows" | grep -vE '^ +[0-9.]+% +[0-9]+ +profda ' | grep -q . && fail "profda gets rows of other users: $(echo "$rows" | grep -v profda | head)"
grep -qE 'hot-beta|profdb|tenant-b' "$TMP/a.text" && fail "profda's report names profdb's program or cgroup"
pass "profda: $(echo "$rows" | wc -l) rows, all profda's, hot-alpha and gone-alpha (exited before the question)"

# the other outputs carry nothing of profdb either
for fmt in "-F json --sort uid,comm,cgroup,sym" "-F folded -g" "-F svg -g"; do
	ask profda $fmt || fail "profda -F $fmt: $(cat "$TMP/err")"
	grep -q 'hot-alpha' "$TMP/out" || fail "profda $fmt lacks hot-alpha"
	grep -qE 'hot-beta|profdb|tenant-b' "$TMP/out" && fail "profda $fmt names profdb's program or cgroup"
done
mkdir "$TMP/a-out" && chown profda "$TMP/a-out" || fail "mkdir $TMP/a-out"
as_user profda "$PUB_PROF" report --daemon --socket "$SOCK" --since 1m -F pprof -g -o "$TMP/a-out/a.pb.gz" 2>"$TMP/err" ||
	fail "profda -F pprof: $(cat "$TMP/err")"
if command -v go >/dev/null; then
	HOME=$TMP go tool pprof -raw "$TMP/a-out/a.pb.gz" >"$TMP/a.raw" 2>"$TMP/err" || fail "go tool pprof: $(cat "$TMP/err")"
	grep -q 'hot-alpha' "$TMP/a.raw" || fail "pprof lacks hot-alpha"
	grep -qE 'hot-beta|profdb|tenant-b' "$TMP/a.raw" && fail "profda's pprof names profdb's program"
fi
# no kernel symbol reaches a user without [policy] user_kernel
ask profda -F folded -g || fail "folded"
grep -qE ';(entry_SYSCALL|do_syscall|asm_sysvec|__x64_sys)' "$TMP/out" && fail "profda gets kernel symbols: $(grep -m1 -E 'do_syscall|entry_SYSCALL' "$TMP/out")"
pass "profda: json, folded, svg and pprof name nothing of profdb, and no kernel symbol"

# the other way round
ask profdb --sort uid,comm,sym || fail "profdb's report: $(cat "$TMP/err")"
grep -qE 'profdb +hot-beta' "$TMP/out" || fail "profdb does not get hot-beta: $(head -20 "$TMP/out")"
grep -qE 'alpha|profda' "$TMP/out" && fail "profdb's report names profda's programs"
pass "profdb gets hot-beta and nothing of profda"

# another uid is refused, naming the rule
ask profda --uid profdb && fail "profda may ask for profdb's samples: $(head "$TMP/out")"
grep -q "uid $(id -u profdb) is not yours" "$TMP/err" || fail "refusal does not name the rule: $(cat "$TMP/err")"
grep -qE 'hot-beta|profdb' "$TMP/out" && fail "the refusal still printed profdb's rows"
pass "profda --uid profdb: $(head -n 1 "$TMP/err")"

# root gets both; --uid selects one
"$PROF" report --daemon --socket "$SOCK" --since 1m --sort uid,comm >"$TMP/root" 2>"$TMP/err" || fail "root: $(cat "$TMP/err")"
grep -qE 'profda +hot-alpha' "$TMP/root" && grep -qE 'profdb +hot-beta' "$TMP/root" && grep -qE 'profda +gone-alpha' "$TMP/root" ||
	fail "root does not get both users' programs: $(head -20 "$TMP/root")"
"$PROF" report --daemon --socket "$SOCK" --since 1m --sort uid,comm --uid profdb >"$TMP/rootb" 2>"$TMP/err" || fail "root --uid"
grep -q hot-beta "$TMP/rootb" && ! grep -q alpha "$TMP/rootb" || fail "root --uid profdb: $(head "$TMP/rootb")"
"$PROF" report --daemon --socket "$SOCK" --since 1m --sort comm --cgroup "${CG#$root}/tenant-a" >"$TMP/rootcg" 2>"$TMP/err" || fail "root --cgroup"
grep -q hot-alpha "$TMP/rootcg" && ! grep -q hot-beta "$TMP/rootcg" || fail "root --cgroup tenant-a: $(head "$TMP/rootcg")"
pass "root gets both; --uid and --cgroup select one"

# prof daemon status: the sampling and the span for everyone, host-wide counts for root
as_user profda "$PUB_PROF" daemon status --socket "$SOCK" >"$TMP/st.a" 2>"$TMP/err" || fail "status as profda: $(cat "$TMP/err")"
grep -q "^profd at $SOCK: up [0-9]* s, cpu-clock at 19 Hz per CPU, call chains, Python frames, follows set\*uid()" "$TMP/st.a" &&
	grep -q '^history: ' "$TMP/st.a" || fail "profda's status: $(cat "$TMP/st.a")"
grep -qE '^(samples|memory|disk|clients|profd itself):' "$TMP/st.a" && fail "profda gets the host's counts: $(cat "$TMP/st.a")"
as_user profda "$PUB_PROF" daemon status --raw --socket "$SOCK" | grep -qE '^(samples|clients|disk_dir|rss_bytes) ' &&
	fail "profda's raw status has the host's counts"
"$PROF" daemon status --socket "$SOCK" >"$TMP/st.root" || fail "status as root"
for k in samples memory disk clients "profd itself"; do
	grep -q "^$k: " "$TMP/st.root" || fail "root's status lacks '$k:': $(cat "$TMP/st.root")"
done
pass "prof daemon status: $(head -n 1 "$TMP/st.a" | cut -c1-60)...; host-wide lines for root only"

# the live view, asked while both ran
grep -qE 'profda +hot-alpha' "$TMP/top.a" || fail "top --daemon as profda lacks hot-alpha: $(head -20 "$TMP/top.a")"
grep -qE 'hot-beta|profdb' "$TMP/top.a" && fail "top --daemon as profda shows profdb's program"
pass "prof top --daemon as profda: hot-alpha, nothing of profdb"
stop_profd || fail "profd exited $? on SIGTERM: $(tail -5 "$PD/log")"
