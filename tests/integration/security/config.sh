#!/usr/bin/env bash
# prof.conf: every error class is file:line and a non-zero exit, nothing is recorded;
# a good file sets the defaults and the command line overrides it; an unsafe system
# file is refused when prof runs with capabilities for someone else.
. "$(dirname "$0")/../lib.sh"
require_root
require_perf
cd "$TMP" && chmod 755 "$TMP" || fail cd

bad() {
	local want=$1; shift
	printf '%b' "$1" >bad.conf
	"$PROF" record --config bad.conf -a -d 0.2 -o x.data >out 2>err
	rc=$?
	[ "$rc" -eq 2 ] || fail "'$1': exit $rc: $(cat err)"
	grep -q "bad.conf:$want" err || fail "'$1': no bad.conf:$want in: $(cat err)"
	[ ! -e x.data ] || fail "recorded despite a bad config"
	pass "$(cat err)"
}
bad 2: '[record]\nnosuch = 1\n'
bad 3: '[record]\nfrequency = 100\nfrequency = lots\n'
bad 1: 'garbage line\n'
bad 2: '[record]\nmmap_pages = 1048576\n'
bad 2: "[record]\noutput = $(printf '%0300d' 0)\n"

printf '[record]\nevent = cpu-clock\nfrequency = 97\noutput = from-config-%%p.data\n' >good.conf
"$PROF" record --config good.conf -q -- "$PROF_HOT" 0.5 || fail "good config"
f=$(ls from-config-*.data 2>/dev/null | head -1)
[ -n "$f" ] || fail "output pattern not used: $(ls)"
perf_clean header report -i "$f" --header-only
grep -q 'sample_freq } = 97,' header || fail "frequency from the config not used: $(grep sample_freq header)"
pass "config sets event, frequency, output ($f)"
"$PROF" record --config good.conf -q -F 51 -o cli.data -- "$PROF_HOT" 0.3 || fail "override"
perf_clean header report -i cli.data --header-only
grep -q 'sample_freq } = 51,' header || fail "-F does not override the config"
pass "the command line overrides the config"

# Unsafe system configuration with a capability copy run by a user.
sys=${PROF_SYSCONFDIR:?the build sysconfdir}
command -v setcap >/dev/null || skip "needs setcap for the unsafe-config case"
if [ -e "$sys/prof.conf" ]; then
	note "$sys/prof.conf exists: not replacing it"
	exit 0
fi
U=prof-it-conf
make_user "$U"
mkdir -p "$sys"
printf '[policy]\nadmin_group = users\n' >"$sys/prof.conf"
cleanup_hooks+=("rm -f '$sys/prof.conf'")
chmod 666 "$sys/prof.conf"
cp "$PROF" bin-prof && chmod 755 bin-prof
setcap cap_perfmon,cap_sys_ptrace=ep bin-prof 2>/dev/null || skip "file capabilities not supported here"
mkdir u && chown "$U" u
runuser -u "$U" -- ./bin-prof record -d 0.2 -o u/x.data -- sleep 0.2 >out 2>err
rc=$?
[ "$rc" -eq 2 ] && grep -q "refusing a configuration" err || fail "unsafe config used: exit $rc: $(cat err)"
[ ! -e u/x.data ] || fail "recorded with an unsafe config"
pass "unsafe system config refused: $(cat err)"
chmod 644 "$sys/prof.conf"
runuser -u "$U" -- ./bin-prof record -q -o u/x.data -- sleep 0.2 >out 2>err || fail "safe config refused: $(cat err)"
pass "the same file, root-owned and 0644, is used"
