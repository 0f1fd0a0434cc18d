#!/usr/bin/env bash
# profd's history shows each tenant their own Python functions, never a wrong caller,
# and nothing of another tenant's: Debian's python3.11 (no frame pointers) run by two
# real users beside each other while profd samples the host with its call chains.
# pyda's program has a() and b() call helper(), which spins on line 5 when called from
# a() and on line 7 from b(), switching every millisecond: every sample of helper() at
# one of those lines must show its own caller (read at the sample instant, python.h),
# in every output a tenant can ask for; pydb runs other functions, which pyda never
# sees (and the reverse); root sees both; the status says how many were verified.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib.sh"
require_root
PY=/usr/bin/python3.11
[ -x "$PY" ] || skip "needs Debian's python3.11 (package python3.11)"
make_user pyda
make_user pydb
public_prof
cp "$(dirname "$0")/../python/callers.py" "$TMP/pub/callers.py" && chmod 644 "$TMP/pub/callers.py" || fail "copy callers.py"
cat >"$TMP/pub/other.py" <<'PY'
import sys, time
def beta_secret_hot():
    s = 0
    for i in range(20000): s += i
def beta_secret_outer():
    end = time.perf_counter() + float(sys.argv[1])
    while time.perf_counter() < end:
        beta_secret_hot()
beta_secret_outer()
PY
chmod 644 "$TMP/pub/callers.py" "$TMP/pub/other.py"

profd_config "frequency = 997" "bucket = 2" "fine_span = 60"
start_profd
grep -q 'with call chains and Python frames' "$PD/log" || fail "profd does not say it shows Python frames: $(cat "$PD/log")"

as_user pyda "$PY" "$TMP/pub/callers.py" 8 &
A=$!
as_user pydb "$PY" "$TMP/pub/other.py" 8 &
B=$!
cleanup_hooks+=("kill $A $B 2>/dev/null")
wait $A || fail "pyda's program failed"
wait $B || fail "pydb's program failed"
sleep 2         # the last fine bucket closes about a second after its end

ask() {         # ask USER ARGS...: prof report --daemon as USER into $TMP/out
	local u=$1
	shift
	as_user "$u" "$PUB_PROF" report --daemon --socket "$SOCK" --since 1m "$@" >"$TMP/out" 2>"$TMP/err"
}

# folded writes spaces as _: the frames as named again
ask pyda -F folded -g || fail "pyda's folded stacks: $(cat "$TMP/err")"
sed -E 's/_\(/ (/g' "$TMP/out" >"$TMP/a.folded"
python3 - "$TMP/a.folded" <<'PY' || fail "pyda's Python frames in profd's history (above)"
import sys
helper = right = wrong = other = unverified = 0
want = {"5": "a", "7": "b"}
for line in open(sys.argv[1]):
    stack, _, count = line.rstrip("\n").rpartition(" ")
    count = int(count)
    frames = [f for f in stack.split(";") if "callers.py:" in f or f.startswith("[python")]
    if not frames or not frames[-1].startswith("helper ("):
        continue
    helper += count
    if "[python: unverified]" in [f.replace("_", " ") for f in frames]:
        unverified += count     # a frame not proven: shown as such, no name claimed
        continue
    names = [f.split(" (")[0] for f in frames]
    at = frames[-1].rsplit(":", 1)[1].rstrip(")")
    if at not in want:
        other += count      # lines 3, 4, 6: both callers'
        continue
    if names == ["<module>", want[at], "helper"]:
        right += count
    else:
        wrong += count
        print(f"# wrong: {';'.join(frames)} {count}")
print(f"# pyda: {helper} samples of helper(), {right} at line 5 or 7 under their own caller, {wrong} wrong, "
      f"{other} at its other lines, {unverified} with a [python: unverified] frame")
sys.exit(1 if wrong or right < 2000 or right * 100 < 80 * helper else 0)
PY
grep -qE 'beta_secret|other\.py|pydb' "$TMP/out" && fail "pyda's stacks name pydb's functions: $(grep -m1 beta_ "$TMP/out")"
pass "pyda: helper() under the caller of its line in every sample, nothing of pydb's"

# every output a tenant can ask for
for fmt in "-F json -g" "-F svg -g"; do
	ask pyda $fmt || fail "pyda $fmt: $(cat "$TMP/err")"
	grep -q 'helper' "$TMP/out" || fail "pyda's $fmt lacks helper(): $(head -20 "$TMP/out")"
	grep -qE 'beta_secret|other\.py' "$TMP/out" && fail "pyda's $fmt names pydb's functions"
done
mkdir "$TMP/a-out" && chown pyda "$TMP/a-out" || fail "mkdir $TMP/a-out"
as_user pyda "$PUB_PROF" report --daemon --socket "$SOCK" --since 1m -F pprof -g -o "$TMP/a-out/a.pb.gz" 2>"$TMP/err" ||
	fail "pyda -F pprof: $(cat "$TMP/err")"
if command -v go >/dev/null; then
	HOME=$TMP go tool pprof -raw "$TMP/a-out/a.pb.gz" >"$TMP/a.raw" 2>"$TMP/err" || fail "go tool pprof: $(cat "$TMP/err")"
	# pprof's own fields: the function's name, its file and the line ("NAME FILE:LINE
	# s=START(SYSTEM_NAME)"), as prof report -F pprof of a file has them
	grep -qE " helper $TMP/pub/callers\.py:5 s=[0-9]+\(helper \($TMP/pub/callers\.py(:5)?\)\)\$" "$TMP/a.raw" ||
		fail "pprof has no helper at callers.py:5 in its own fields: $(grep -m3 helper "$TMP/a.raw")"
	grep -qE 'beta_secret|other\.py' "$TMP/a.raw" && fail "pyda's pprof names pydb's functions"
fi
pass "pyda: JSON, SVG and pprof show helper(), nothing of pydb's"

ask pydb -F folded -g || fail "pydb's folded: $(cat "$TMP/err")"
grep -q 'beta_secret_hot_(.*other\.py:[0-9]*);*' "$TMP/out" || fail "pydb does not get beta_secret_hot: $(head -5 "$TMP/out")"
grep -qE 'helper|callers\.py' "$TMP/out" && fail "pydb's stacks name pyda's functions"
pass "pydb: beta_secret_hot(), nothing of pyda's"

"$PROF" report --daemon --socket "$SOCK" --since 1m -F folded -g >"$TMP/root" 2>"$TMP/err" || fail "root: $(cat "$TMP/err")"
grep -q 'helper_(' "$TMP/root" && grep -q 'beta_secret_hot_(' "$TMP/root" || fail "root does not see both: $(head "$TMP/root")"
"$PROF" daemon status --socket "$SOCK" >"$TMP/st" || fail "status"
grep -E '^python: ' "$TMP/st" | sed 's/^/# /'
grep -qE '^python: [0-9]+ samples of [2-9][0-9]* interpreter' "$TMP/st" || fail "status: $(grep python "$TMP/st")"
pass "root sees both tenants' functions; status: $(grep -o 'with Python frames, [0-9]* of them all verified' "$TMP/st")"

# asked not to, profd shows none and says so nowhere else
stop_profd || fail "profd exited $? on SIGTERM: $(tail -5 "$PD/log")"
profd_config "python_frames = no"
start_profd
"$PROF" daemon status --socket "$SOCK" | grep -q 'Python frames' && fail "python_frames = no still says Python frames"
pass "python_frames = no: none"
stop_profd || fail "profd exited $? on SIGTERM"
