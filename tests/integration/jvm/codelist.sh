#!/usr/bin/env bash
# src/jvm against real JVMs: the machine's OpenJDK 17, the other OpenJDK 17 build
# Debian offers (apt-get download, extracted here and run from here), and Temurin
# 25 where it is installed.  For each, a Java program of known methods runs; the
# JVM's own list of its compiled code (jcmd PID Compiler.codelist: compile id,
# method, [blob, code begin - code end]) is taken several times while it runs, and
# prof-jvm-probe checks every nmethod listed against what src/jvm reads at its
# first and middle byte: the same compile id must have the same blob, code range
# and method name (and its scopes' outermost frame that method); another compile
# id there is stale, refused, never a mismatch.  One of the programs is a decoy: a
# code cache made small (-XX:ReservedCodeCacheSize) and methods made and dropped in
# turn, one deoptimized by an uncommon trap, so code is flushed and its addresses
# reused by other compiles.  No JVM at all: SKIP.
. "$(dirname "$0")/../lib.sh"
: "${PROF_JVM_PROBE:?PROF_JVM_PROBE must name the prof-jvm-probe test program}"
require_root

JDK17=/usr/lib/jvm/java-17-openjdk-amd64
[ -x "$JDK17/bin/javac" ] || skip "needs openjdk-17-jdk-headless (scripts/dev's test packages)"

mkdir -p "$TMP/classes"
cat >"$TMP/Hot.java" <<'JAVA'
public class Hot {
    static long a(long x) { long s = 0; for (int i = 0; i < 1000; i++) s += (x ^ i) * 31; return s; }
    static long b(long x) { long s = 0; for (int i = 0; i < 500; i++) s += helper(x + i); return s; }
    static long helper(long x) { return x * x + 7; }
    public static void main(String[] args) throws Exception {
        long end = System.currentTimeMillis() + 1000L * Integer.parseInt(args[0]);
        long s = 0;
        System.out.println("ready");
        while (System.currentTimeMillis() < end) { s += a(s); s += b(s); }
        System.out.println(s);
    }
}
JAVA
# the decoy: 300 methods (each of some size) hot in turns of 30 (the cold ones' code flushed from a small
# cache, their addresses given to later compiles), and trap(), compiled while x >= 0
# only, then called with x < 0 (an uncommon trap: deoptimized, compiled again)
{
	echo 'public class Churn {'
	# each method long enough (24 statements in its loop) that the 300 do not fit the
	# small cache at once, on a quiet host too: the cold ones must be flushed
	for i in $(seq 0 299); do
		printf '    static long m%d(long x) { long s = %d; for (int i = 0; i < 200; i++) {' "$i" "$i"
		for j in $(seq 1 24); do printf ' s += (x + i * %d) * %d ^ (s >>> %d);' "$j" $((i * 7 + j)) $(((i + j) % 13 + 1)); done
		echo ' } return s; }'
	done
	echo '    static long trap(long x) { if (x < 0) return -x * 3 + new StringBuilder().append(x).length(); return x + 1; }'
	echo '    public static void main(String[] args) throws Exception {'
	echo '        long end = System.currentTimeMillis() + 1000L * Integer.parseInt(args[0]); long s = 0; int round = 0;'
	echo '        System.out.println("ready");'
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
"$JDK17/bin/javac" -d "$TMP/classes" "$TMP/Hot.java" "$TMP/Churn.java" || fail "javac failed"

# The other OpenJDK 17 build apt offers, extracted here (none offered: only this one).
builds=("$JDK17")
other=$(apt-cache policy openjdk-17-jre-headless 2>/dev/null | awk '/Installed:/ { i = $2 } /^ +(\*\*\* )?[0-9]/ { v = ($1 == "***") ? $2 : $1; if (v != i && !seen[v]++) print v }' | head -n 1)
if [ -n "$other" ]; then
	mkdir -p "$TMP/deb"
	if (cd "$TMP/deb" && apt-get download "openjdk-17-jre-headless=$other" >/dev/null 2>&1); then
		dpkg-deb -x "$TMP"/deb/*.deb "$TMP/deb/x" && builds+=("$TMP/deb/x$JDK17")
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

pids=()
cleanup_hooks+=('for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait')

# codelist JCMD PID OUT: the JVM's list of its compiled code (the attach retried: on a
# loaded machine the JVM may not answer jcmd's attach within its default time).
codelist() {
	local try
	for try in 1 2 3; do
		"$1" -J-Dsun.tools.attach.attachTimeout=60000 "$2" Compiler.codelist >"$3" 2>&1 &&
			grep -q '^[0-9]* [0-9]' "$3" && return 0
		sleep 1
	done
	fail "jcmd $2 Compiler.codelist failed: $(head -c 500 "$3")"
}

# sampled PID JCMD: the leaf pcs of a second of perf's cpu-clock samples, named by
# the probe (read before and after: verified or "unverified"), each verified name
# the one the JVM lists right after for that compile id, the pc inside its blob.
sampled() {
	local pid=$1 jcmd=$2
	command -v "$PERF" >/dev/null 2>&1 || { note "  no perf: sampled pcs not checked"; return; }
	"$PERF" record -q -e cpu-clock -p "$pid" -o "$TMP/leaf.data" -- sleep 1 >/dev/null 2>&1 ||
		{ note "  perf record could not sample the JVM: sampled pcs not checked"; return; }
	"$PERF" script -i "$TMP/leaf.data" -F ip 2>/dev/null | sort -u | head -n 400 >"$TMP/leaf.pcs"
	kill -0 "$pid" 2>/dev/null || fail "the JVM $pid ended before its pcs were named: $(tail -n 5 "$TMP/java.out")"
	"$PROF_JVM_PROBE" pcs "$pid" <"$TMP/leaf.pcs" >"$TMP/leaf.named" || fail "prof-jvm-probe pcs failed"
	codelist "$jcmd" "$pid" "$TMP/leaf.codelist"
	python3 - "$TMP/leaf.named" "$TMP/leaf.codelist" <<'PY' || fail "a sampled pc was named other than the JVM lists it"
import re, sys
listed = {}
for l in open(sys.argv[2]):
    m = re.match(r"(\d+) \S+ \S+ (\S+) \[(0x[0-9a-f]+), (0x[0-9a-f]+) - (0x[0-9a-f]+)\]", l)
    if m:
        listed[int(m[1])] = (m[2], int(m[3], 16), int(m[5], 16))
named = verified = agreed = unverified = wrong = 0
for l in open(sys.argv[1]):
    f = l.split()
    if len(f) < 4 or f[1] != "nmethod":
        continue
    named += 1
    if l.rstrip().endswith("| unverified"):
        unverified += 1
        continue
    verified += 1
    cid, name, pc = int(f[2]), f[3], int(f[0], 16)
    if cid in listed:
        lname, lo, hi = listed[cid]
        if lname != name or not lo <= pc < hi:
            wrong += 1
            print("# WRONG:", l.strip(), "listed", lname, hex(lo), hex(hi))
        else:
            agreed += 1
print(f"#   sampled pcs in nmethods: {named}, verified {verified} (listed after and agreeing: {agreed}), "
      f"unverified {unverified}, wrong {wrong}")
sys.exit(1 if wrong or (verified and not agreed) else 0)
PY
}

# check JDK CLASS SECONDS [JVM options...]: run it (for at most SECONDS; killed when done), list and check its code three times.
check() {
	local jdk=$1 class=$2 secs=$3 jcmd=$1/bin/jcmd pid round out total_wrong=0
	shift 3
	[ -x "$jcmd" ] || jcmd=$JDK17/bin/jcmd  # a JRE: the installed JDK's jcmd attaches to it
	"$jdk/bin/java" "$@" -cp "$TMP/classes" "$class" "$secs" >"$TMP/java.out" 2>&1 &
	pid=$!
	pids+=("$pid")
	for _ in $(seq 50); do grep -q ready "$TMP/java.out" && break; sleep 0.2; done
	sleep 2
	"$PROF_JVM_PROBE" describe "$pid" >"$TMP/describe" 2>&1 || fail "$jdk: refused: $(cat "$TMP/describe")"
	note "$jdk $class: $(sed -n 's/^release //p' "$TMP/describe"), libjvm.so build id" \
		"$(readelf -n "$(sed -n 's/^libjvm //p' "$TMP/describe")" | sed -n 's/.*Build ID: //p')"
	for round in 1 2 3; do
		codelist "$jcmd" "$pid" "$TMP/codelist.$round"
		"$PROF_JVM_PROBE" codelist "$pid" <"$TMP/codelist.$round" >"$TMP/probe.$round" ||
			{ grep -E '^WRONG' "$TMP/probe.$round" | head -n 5; total_wrong=1; }
		note "  round $round: $(tail -n 1 "$TMP/probe.$round")"
		sleep 1
	done
	# addresses the code cache gave to another compile between two listings
	reused=$(cat "$TMP"/codelist.* | awk '/^[0-9]+ / { a = $6; if (a in id && id[a] != $1) r[a] = 1; id[a] = $1 } END { print length(r) }')
	note "  code addresses reused by another compile across the listings: $reused"
	reused_total=$((reused_total + reused))
	if [ "$class" = Hot ]; then sampled "$pid" "$jcmd"; fi
	kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
	[ "$total_wrong" -eq 0 ] || fail "$jdk $class: a compile named other than the JVM lists it"
	agreed=$(cat "$TMP"/probe.* | awk '/^summary/ { n += $5 } END { print n + 0 }')
	[ "$agreed" -gt 0 ] || fail "$jdk $class: no listed nmethod was named"
	grep -q '^ok [0-9]* Hot\.a(J)J\|^ok [0-9]* Churn\.' "$TMP"/probe.* || fail "$jdk $class: the program's own methods were not named"
}

reused_total=0
for jdk in "${builds[@]}"; do
	check "$jdk" Hot 3600
	check "$jdk" Churn 3600 -XX:ReservedCodeCacheSize=4m
done
# the decoy decoyed: some address held two compiles in turn, and was named right
[ "$reused_total" -gt 0 ] || fail "no JVM reused a code address while listed: the decoy did not exercise"
pass "every nmethod the JVMs listed was named as they list it, stale ones refused (${#builds[@]} builds)"
