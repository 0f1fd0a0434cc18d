#!/usr/bin/env bash
# Java frames in prof record --call-graph dwarf and -g samples, on real JVMs run by a tenant
# (--uid): the machine's OpenJDK 17, the other OpenJDK 17 build apt offers
# (apt-get download, extracted here) and Temurin 25 where it is installed.  One JVM
# per build runs Hot: alpha() does twice beta()'s work, each its own frame
# (-XX:CompileCommand=dontinline), both called by main().  For each:
#   - >= 80 % of the main thread's samples carry a Java frame;
#   - among samples whose leaf is a named Hot method, alpha's share within 5 points
#     of 66.7 %, in prof report and in perf script (the frames are symbols of the
#     object prof keeps in the build-id cache), and perf report names Hot.alpha;
#   - every caller shown of alpha or beta is Hot.main; no Hot method the program
#     does not have;
#   - the summary's Java line says how many were named.
# A decoy on Debian's build: 300 methods hot in turns in a 4 MiB code cache, so code
# is flushed and its addresses reused by other compiles, and a method deoptimized and
# compiled again: every Churn frame shown under its only real caller (m* under
# call(), call() and trap() under main()), and unverified frames counted.
# With -g (the registers and 2 KiB of stack the kernel copies for a Java leaf,
# jvm/frames.h), on Debian's build: Hot within 3 points, the decoy 0 wrong.
. "$(dirname "$0")/../lib.sh"
require_root
require_perf

JDK17=/usr/lib/jvm/java-17-openjdk-amd64
[ -x "$JDK17/bin/javac" ] || skip "needs openjdk-17-jdk-headless (scripts/dev's test packages)"
USER_=profjvm
make_user "$USER_"
mkdir -p "$TMP/pub/classes"
chmod 755 "$TMP" "$TMP/pub"

cp "$(dirname "$0")/Hot.java" "$TMP/Hot.java" || fail "copy Hot.java"
{
	echo 'public class Churn {'
	for i in $(seq 0 299); do
		printf '    static long m%d(long x) { long s = %d; for (int i = 0; i < 200; i++) {' "$i" "$i"
		for j in $(seq 1 24); do printf ' s += (x + i * %d) * %d ^ (s >>> %d);' "$j" $((i * 7 + j)) $(((i + j) % 13 + 1)); done
		echo ' } return s; }'
	done
	echo '    static long trap(long x) { if (x < 0) return -x * 3 + new StringBuilder().append(x).length(); return x + 1; }'
	echo '    public static void main(String[] args) throws Exception {'
	echo '        long end = System.currentTimeMillis() + 1000L * Integer.parseInt(args[0]); long s = 0; int round = 0;'
	echo '        while (System.currentTimeMillis() < end) {'
	echo '            int base = (round++ % 10) * 30;'
	echo '            for (int k = 0; k < 20000; k++) { int m = base + k % 30; s += call(m, s); s += trap(round > 20 && k % 1000 == 0 ? -k : k); }'
	echo '        }'
	echo '        System.out.println(s);'
	echo '    }'
	echo '    static long call(int m, long s) {'
	echo '        switch (m) {'
	for i in $(seq 0 299); do echo "        case $i: return m$i(s);"; done
	echo '        default: return 0; } }'
	echo '}'
} >"$TMP/Churn.java"
"$JDK17/bin/javac" -d "$TMP/pub/classes" "$TMP/Hot.java" "$TMP/Churn.java" || fail "javac failed"
chmod -R a+rX "$TMP/pub"

builds=("$JDK17")
other=$(apt-cache policy openjdk-17-jre-headless 2>/dev/null | awk '/Installed:/ { i = $2 } /^ +(\*\*\* )?[0-9]/ { v = ($1 == "***") ? $2 : $1; if (v != i && !seen[v]++) print v }' | head -n 1)
if [ -n "$other" ]; then
	mkdir -p "$TMP/pub/deb"
	if (cd "$TMP/pub/deb" && apt-get download "openjdk-17-jre-headless=$other" >/dev/null 2>&1); then
		dpkg-deb -x "$TMP"/pub/deb/*.deb "$TMP/pub/deb/x" && chmod -R a+rX "$TMP/pub/deb" && builds+=("$TMP/pub/deb/x$JDK17")
	else
		note "openjdk-17-jre-headless $other could not be downloaded: that build not checked"
	fi
else
	note "apt offers no other openjdk-17-jre-headless build: one Debian build checked"
fi
if [ -x /usr/lib/jvm/temurin-25-jdk-amd64/bin/java ]; then
	builds+=(/usr/lib/jvm/temurin-25-jdk-amd64)
else
	note "Temurin 25 is not installed here: JDK 25 not checked"
fi
[ "${#builds[@]}" -ge 2 ] || note "only one JDK build here: the test's two-build check is this one"

# record JDK OUT CLASS SECONDS [JVM options]: the tenant's run of CLASS recorded by uid,
# with $MODE's call chains
MODE="--call-graph dwarf"
record() {
	local jdk=$1 out=$2 class=$3 secs=$4
	shift 4
	# shellcheck disable=SC2086
	"$PROF" record --uid "$USER_" $MODE -F 1000 -o "$out" -- \
		"$jdk/bin/java" -XX:CompileCommand=quiet "$@" -cp "$TMP/pub/classes" "$class" "$secs" \
		2>"$TMP/summary" >/dev/null || fail "$jdk: prof record: $(tail -5 "$TMP/summary")"
	grep -E '^prof: Java' "$TMP/summary" | sed 's/^/# /'
	grep -qE '^prof: Java: [0-9]+ samples of 1 JVM\(s\), [0-9]+ with Java frames' "$TMP/summary" ||
		fail "$jdk: no Java line in the summary: $(cat "$TMP/summary")"
}

# check_hot WHO FOLDED [POINTS]: the main thread's (comm java) stacks, leaf last; alpha's
# share within POINTS (5) of its truth
check_hot() {
	python3 - "$1" "$2" "${3:-5}" <<'PY' || fail "$1: Java frames wrong or missing"
import re, sys
who, path, points = sys.argv[1], sys.argv[2], float(sys.argv[3])
total = java = alpha = beta = wrong = callers = 0
for line in open(path):
    stack, _, count = line.rstrip("\n").rpartition(" ")
    frames = stack.split(";")
    if frames[0] != "java":
        continue
    n = int(count)
    total += n
    names = [f for f in frames[1:] if f.startswith(("Hot.", "java.", "jdk.", "sun.", "[java"))]
    if names:
        java += n
    hot = [f.split(" (")[0] for f in frames if f.startswith("Hot.")]
    for h in hot:
        if h not in ("Hot.alpha", "Hot.beta", "Hot.main"):
            print(f"# WRONG {who}: a method Hot does not have: {h}")
            wrong += n
    leaf = frames[-1].split(" (")[0]
    if leaf in ("Hot.alpha", "Hot.beta"):
        if leaf == "Hot.alpha":
            alpha += n
        else:
            beta += n
        caller = frames[-2] if len(frames) > 2 else ""
        if not caller.startswith("[java"):
            callers += n
            if not caller.startswith("Hot.main ("):
                print(f"# WRONG {who}: {leaf} under {caller}")
                wrong += n
named = alpha + beta
share = 100 * alpha / max(named, 1)
print(f"# {who}: {total} samples of the main thread, {100 * java / max(total, 1):.1f} % with Java frames; "
      f"alpha {share:.1f} % of {named} (truth 66.7), {callers} with their caller shown, {wrong} wrong")
sys.exit(1 if wrong or total < 500 or java * 100 < total * 80 or named < 300 or abs(share - 66.7) > points or
         callers * 2 < named else 0)
PY
}

# perf script's stacks folded (lib.sh's perf_folded), perf's notice of records the
# rings lost on a loaded host aside (prof's summary counts them too), any other
# word on stderr a failure
folded() {
	"$PERF" script -i "$1" -F comm,ip,sym >"$TMP/script.txt" 2>"$TMP/perf.err" || fail "perf script: $(head -c 2000 "$TMP/perf.err")"
	grep -vE '^Warning:$|^Processed [0-9]+ events and lost [0-9]+ chunks!$|^Check IO/CPU overload!$|^$' "$TMP/perf.err" |
		grep -q . && fail "perf script wrote to stderr: $(head -c 2000 "$TMP/perf.err")"
	grep -q 'lost' "$TMP/perf.err" && note "perf script: $(grep lost "$TMP/perf.err")"
	python3 "$LIB_DIR/perf_folded.py" "$TMP/script.txt" >"$2" || fail "folding perf script's stacks"
}

n=0
for jdk in "${builds[@]}"; do
	n=$((n + 1))
	F=$TMP/hot$n.data
	note "$jdk: $("$jdk/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.vm.version = //p')"
	record "$jdk" "$F" Hot 6 -XX:CompileCommand=dontinline,Hot::alpha -XX:CompileCommand=dontinline,Hot::beta
	"$PROF" report -i "$F" -F folded -g --no-inline >"$TMP/pf.raw" 2>"$TMP/err" || fail "prof report: $(cat "$TMP/err")"
	sed -E 's/_\(/ (/g; s/\[java:_/[java: /g' "$TMP/pf.raw" >"$TMP/prof$n.folded"
	check_hot "prof report" "$TMP/prof$n.folded"
	folded "$F" "$TMP/perf$n.folded"
	check_hot "perf script" "$TMP/perf$n.folded"
	"$PERF" report -i "$F" --no-children --sort sym --stdio -g none >"$TMP/report.txt" 2>/dev/null || fail "perf report failed"
	grep -E '^ +[0-9.]+% +\[\.\] Hot\.alpha \(Hot\.java' "$TMP/report.txt" | sed 's/^/# perf report: /' | grep -q . ||
		fail "$jdk: perf report does not name Hot.alpha: $(grep -E '^ +[0-9.]+%' "$TMP/report.txt" | head -5)"
done

# check_decoy FILE WHO: every Churn frame of FILE under its only real caller
check_decoy() {
	folded "$1" "$TMP/churn.folded"
	python3 - "$TMP/churn.folded" "$2" <<'PY' || fail "the decoy ($2): a Churn frame under a caller it does not have"
import sys
callers = {"call": "main", "trap": "main"}
shown = wrong = churn = 0
for line in open(sys.argv[1]):
    stack, _, count = line.rstrip("\n").rpartition(" ")
    frames = [f.split(" (")[0] for f in stack.split(";")[1:]]
    for i, f in enumerate(frames):
        if not f.startswith("Churn."):
            if f.startswith("Hot."):
                wrong += int(count)
            continue
        churn += int(count)
        name = f[6:]
        if i == 0 or frames[i - 1].startswith("[java"):
            continue
        want = "call" if name.startswith("m") and name[1:].isdigit() else callers.get(name)
        if want is None:
            continue
        shown += int(count)
        if frames[i - 1] != "Churn." + want:
            print(f"# WRONG: Churn.{name} under {frames[i - 1]}")
            wrong += int(count)
print(f"# decoy ({sys.argv[2]}): {churn} Churn frames, {shown} with their caller shown, {wrong} wrong")
sys.exit(1 if wrong or not shown else 0)
PY
	unverified=$(sed -nE 's/^prof: Java: .* ([0-9]+) \[java: unverified\].*/\1/p' "$TMP/summary")
	note "decoy ($2): ${unverified:-0} [java: unverified] frames counted"
}

# the decoy, on Debian's build
record "$JDK17" "$TMP/churn.data" Churn 8 -XX:ReservedCodeCacheSize=4m
check_decoy "$TMP/churn.data" dwarf

# -g, on Debian's build: the leaf's registers and stack copy, the same walk
MODE=-g
F=$TMP/hot-g.data
record "$JDK17" "$F" Hot 8 -XX:CompileCommand=dontinline,Hot::alpha -XX:CompileCommand=dontinline,Hot::beta
"$PROF" report -i "$F" -F folded -g --no-inline >"$TMP/pf.raw" 2>"$TMP/err" || fail "prof report: $(cat "$TMP/err")"
sed -E 's/_\(/ (/g; s/\[java:_/[java: /g' "$TMP/pf.raw" >"$TMP/prof-g.folded"
check_hot "prof report -g" "$TMP/prof-g.folded" 3
folded "$F" "$TMP/perf-g.folded"
check_hot "perf script -g" "$TMP/perf-g.folded" 3
"$PERF" report -i "$F" --no-children --sort sym --stdio -g none >"$TMP/report.txt" 2>/dev/null || fail "perf report failed"
grep -qE '^ +[0-9.]+% +\[\.\] Hot\.alpha \(Hot\.java' "$TMP/report.txt" ||
	fail "-g: perf report does not name Hot.alpha: $(grep -E '^ +[0-9.]+%' "$TMP/report.txt" | head -5)"
# the outputs' Java fields, against perf script of the same file: the header's Java
# line; JSON's rows by sym ("java", class, method, file, line) with each method's
# leaf samples as perf script counts them; pprof's function, file and line fields
"$PROF" report -i "$F" >"$TMP/text" 2>"$TMP/err" || fail "prof report: $(cat "$TMP/err")"
grep -E '^# java: [0-9]+ samples of 1 JVM\(s\), [0-9]+ with Java frames' "$TMP/text" | sed 's/^/# header: /' | grep -q . ||
	fail "prof report's header has no Java line: $(head -8 "$TMP/text")"
"$PERF" script -i "$F" -F ip,sym >"$TMP/leaves.txt" 2>/dev/null || fail "perf script -F ip,sym"
"$PROF" report -i "$F" -F json --sort sym >"$TMP/g.json" 2>"$TMP/err" || fail "prof report -F json: $(cat "$TMP/err")"
python3 - "$TMP/g.json" "$TMP/leaves.txt" <<'PY' || fail "-g: JSON's Java fields wrong (above)"
import json, re, sys
rows = json.load(open(sys.argv[1]))["rows"]
mine, bad = {}, 0
for r in rows:
    if not r.get("java"):
        continue
    if r["dso"] != "/prof/java-frames":
        bad += 1
    sym = r["sym"]
    if sym.startswith("["):
        if "class" in r or "method" in r:
            bad += 1
        continue
    m = re.fullmatch(r"(\S+)\.(\S+?) \(([^:)]+)(?::(\d+))?\)", sym)
    if not m or r.get("class") != m[1] or r.get("method") != m[2] or r.get("file") != m[3] or \
       r.get("line") != (int(m[4]) if m[4] else None):
        print(f"# WRONG: {r}")
        bad += 1
        continue
    key = m[1] + "." + m[2]
    mine[key] = mine.get(key, 0) + r["samples"]
# perf script: each sample's first line after its header is the leaf
perf, leaf_next = {}, True
for line in open(sys.argv[2]):
    if not line.strip():
        leaf_next = True
        continue
    parts = line.split(None, 1)
    if leaf_next and len(parts) == 2:
        name = parts[1].strip().split(" (")[0]
        perf[name] = perf.get(name, 0) + 1
    leaf_next = False
for k in ("Hot.alpha", "Hot.beta"):
    print(f"# JSON {k}: {mine.get(k, 0)} samples, perf script's leaves {perf.get(k, 0)}")
    if mine.get(k, 0) != perf.get(k, 0) or not mine.get(k):
        bad += 1
sys.exit(1 if bad else 0)
PY
if command -v go >/dev/null; then
	"$PROF" report -i "$F" -F pprof -g -o "$TMP/g.pb.gz" 2>"$TMP/err" || fail "prof report -F pprof: $(cat "$TMP/err")"
	HOME=$TMP go tool pprof -raw "$TMP/g.pb.gz" >"$TMP/g.raw" 2>"$TMP/err" || fail "go tool pprof: $(cat "$TMP/err")"
	# pprof's own fields: "NAME FILE:LINE s=START(SYSTEM_NAME)"
	grep -qE ' Hot\.main Hot\.java:[0-9]+ s=0\(Hot\.main \(Hot\.java\)\)$' "$TMP/g.raw" ||
		fail "pprof has no Hot.main with its file and line in its own fields: $(grep -m3 Hot "$TMP/g.raw")"
fi
record "$JDK17" "$TMP/churn-g.data" Churn 8 -XX:ReservedCodeCacheSize=4m
check_decoy "$TMP/churn-g.data" -g
pass "Java frames named in prof report, perf script and perf report on ${#builds[@]} JDK build(s), with dwarf and -g; the decoy named nothing wrong"
