#!/usr/bin/env bash
# Java frames in the live readers: prof top (-g and --call-graph dwarf) and profd's
# history (prof report --daemon), on one JVM of Debian's OpenJDK 17 run by a tenant.
# Hot's alpha() does twice beta()'s work, each its own frame, both called by main():
#   - prof top -g and --call-graph dwarf, as root on the tenant's pid: Hot.alpha and
#     Hot.beta named (the synthetic object's names, asked of the live pipeline), every
#     caller shown Hot.main, alpha's share of the two within 5 points of 66.7 %, the
#     header's Java line;
#   - profd (call chains, its own rate) while it runs: the tenant's folded history
#     names Hot.alpha under Hot.main, never under another caller; another tenant's
#     history has none of it.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../daemon/lib.sh"
require_root
JDK17=/usr/lib/jvm/java-17-openjdk-amd64
[ -x "$JDK17/bin/javac" ] || skip "needs openjdk-17-jdk-headless (scripts/dev's test packages)"
USER_=profjvml
OTHER=profjvmo
make_user "$USER_"
make_user "$OTHER"
public_prof
mkdir -p "$TMP/pub/classes"
chmod 755 "$TMP" "$TMP/pub"
cp "$(dirname "$0")/Hot.java" "$TMP/Hot.java" || fail "copy Hot.java"
"$JDK17/bin/javac" -d "$TMP/pub/classes" "$TMP/Hot.java" || fail "javac failed"
chmod -R a+rX "$TMP/pub"

profd_config "frequency = 997" "bucket = 2" "fine_span = 60" "java_frames = yes"
start_profd

as_user "$USER_" "$JDK17/bin/java" -XX:CompileCommand=quiet -XX:CompileCommand=dontinline,Hot::alpha \
	-XX:CompileCommand=dontinline,Hot::beta -cp "$TMP/pub/classes" Hot 300 >/dev/null &
J=$!
cleanup_hooks+=("kill $J 2>/dev/null")
sleep 4         # C2-compiled by now
JP=$(pgrep -u "$USER_" -x java | head -n 1)    # the JVM itself, not runuser
[ -n "$JP" ] || fail "the tenant's java is not running"

# check_top WHO FILE: top's rows ("PCT SAMPLES COMM DSO SYMBOL <- CALLER ...")
check_top() {
	python3 - "$1" "$2" <<'PY' || fail "$1: Java frames wrong or missing (above): $(tail -12 "$2")"
import re, sys
who, path = sys.argv[1], sys.argv[2]
alpha = beta = wrong = 0
block = open(path).read().split(" Overhead ")[-1]     # the last screen: every sample so far
for line in block.splitlines():
    m = re.match(r"\s*[0-9.]+%\s+(\d+)\s+\S+\s+(\S+)\s+(.*)$", line)
    if not m:
        continue
    n, frames = int(m.group(1)), [f.split(" (")[0].strip() for f in m.group(3).split(" <- ")]
    for i, f in enumerate(frames):
        if f.startswith("Hot.") and f not in ("Hot.alpha", "Hot.beta", "Hot.main"):
            print(f"# WRONG {who}: {f}")
            wrong += n
        if f in ("Hot.alpha", "Hot.beta") and i + 1 < len(frames) and not frames[i + 1].startswith("[java"):
            if frames[i + 1] != "Hot.main":
                print(f"# WRONG {who}: {f} under {frames[i + 1]}")
                wrong += n
            elif i == 0:
                alpha += n if f == "Hot.alpha" else 0
                beta += n if f == "Hot.beta" else 0
share = 100 * alpha / max(alpha + beta, 1)
print(f"# {who}: alpha {share:.1f} % of {alpha + beta} leaves under Hot.main (truth 66.7), {wrong} wrong")
sys.exit(1 if wrong or alpha + beta < 300 or abs(share - 66.7) > 5 else 0)
PY
}

for mode in -g "--call-graph dwarf"; do
	# shellcheck disable=SC2086
	"$PROF" top -p "$JP" $mode --stdio -d 2 -n 3 --rows 40 >"$TMP/top" 2>"$TMP/err" ||
		fail "prof top $mode: $(cat "$TMP/err")"
	check_top "prof top $mode" "$TMP/top"
	grep -qE '^Java: [0-9]+ samples of 1 JVM\(s\), [0-9]+ with Java frames' "$TMP/top" ||
		fail "prof top $mode: no Java line in its header: $(head -4 "$TMP/top")"
done
pass "prof top -g and --call-graph dwarf name Hot.alpha and Hot.beta under Hot.main"

# (the JVM runs on: a loaded host's top may take long to start)
kill -0 $J || fail "the tenant's java failed"
sleep 3         # profd's fine buckets close about a second after their end
as_user "$USER_" "$PUB_PROF" report --daemon --socket "$SOCK" --since 1m -F folded -g >"$TMP/out" 2>"$TMP/err" ||
	fail "the tenant's folded history: $(cat "$TMP/err")"
sed -E 's/_\(/ (/g; s/\[java:_/[java: /g' "$TMP/out" >"$TMP/d.folded"
python3 - "$TMP/d.folded" <<'PY' || fail "the tenant's Java frames in profd's history (above)"
import sys
named = under = wrong = 0
for line in open(sys.argv[1]):
    stack, _, count = line.rstrip("\n").rpartition(" ")
    frames = [f.split(" (")[0] for f in stack.split(";")]
    for i, f in enumerate(frames):
        if f.startswith("Hot.") and f not in ("Hot.alpha", "Hot.beta", "Hot.main"):
            wrong += int(count)
        if f in ("Hot.alpha", "Hot.beta"):
            named += int(count)
            if i > 0 and not frames[i - 1].startswith("[java"):
                if frames[i - 1] == "Hot.main":
                    under += int(count)
                else:
                    print(f"# WRONG: {f} under {frames[i - 1]}")
                    wrong += int(count)
print(f"# profd: {named} Hot.alpha/Hot.beta frames, {under} under Hot.main, {wrong} wrong")
sys.exit(1 if wrong or under < 100 else 0)
PY
# JSON: the methods as Java frames in an object of their own, not Python's
as_user "$USER_" "$PUB_PROF" report --daemon --socket "$SOCK" --since 1m -F json >"$TMP/d.json" 2>"$TMP/err" ||
	fail "the tenant's JSON history: $(cat "$TMP/err")"
python3 - "$TMP/d.json" <<'PY' || fail "profd's JSON: Hot.alpha not a Java frame (above)"
import json, sys
rows = [r for r in json.load(open(sys.argv[1]))["rows"] if r.get("sym", "").startswith("Hot.alpha")]
print(f"# profd JSON: {rows[:1]}")
sys.exit(0 if rows and all(r.get("java") and r.get("dso") == "[java]" and r.get("class") == "Hot" and
                           r.get("method") == "alpha" and "python" not in r for r in rows) else 1)
PY
as_user "$OTHER" "$PUB_PROF" report --daemon --socket "$SOCK" --since 1m -F folded -g >"$TMP/other" 2>"$TMP/err" ||
	fail "the other tenant's history: $(cat "$TMP/err")"
grep -q 'Hot\.' "$TMP/other" && fail "another tenant's history names the JVM's methods: $(grep -m1 'Hot\.' "$TMP/other")"
pass "profd's history names the tenant's Java methods under their caller, and shows them to no one else"
kill $J
stop_profd || fail "profd exited $? on SIGTERM: $(tail -5 "$PD/log")"
