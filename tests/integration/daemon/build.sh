#!/usr/bin/env bash
# A build host: a tenant's make -j2 loop beside profd (every job a fork, an exec, a
# GNU make setresuid(-1, euid, -1) and a dozen mmaps).  Every sample of the build is
# attributed: profd's unattributed count stays 0, the build's commands (make, cc1,
# as, ld...) show under the tenant with their names, and the tenant's own view holds
# the same samples of them as root's view does under the tenant's uid.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib.sh"
require_root
command -v make >/dev/null && command -v cc >/dev/null || skip "needs make and cc"
make_user profdbuild
public_prof

profd_config "bucket = 2" "fine_span = 10"
start_profd
u0=$(pstatus unattributed)

src=$TMP/src
mkdir -p "$src"
for i in $(seq 12); do
	printf '#include <stdio.h>\n#include <stdlib.h>\nint f%d(const char *s) { return atoi(s) + %d; }\n' "$i" "$i" >"$src/f$i.c"
done
printf 'int main(void) { return 0; }\n' >"$src/main.c"
printf 'OBJS := $(patsubst %%.c,%%.o,$(wildcard *.c))\nprog: $(OBJS)\n\t$(CC) -o $@ $^\n%%.o: %%.c\n\t$(CC) -O1 -c -o $@ $<\n' >"$src/Makefile"
chown -R profdbuild "$src"
chmod 755 "$TMP"
as_user profdbuild bash -c "cd '$src' && end=\$((SECONDS + 12)); while [ \$SECONDS -lt \$end ]; do rm -f *.o prog; make -s -j2 >/dev/null 2>&1 || exit 1; echo x >>builds; done" ||
	fail "the build loop failed"
builds=$(wc -l <"$src/builds")
sleep 4         # the last spans close
u1=$(pstatus unattributed)

# rows "uid comm samples" of the build's commands
build_rows() {
	awk '$1 ~ /%$/ && ($4 ~ /^(make|cc|cc1|as|ld|collect2|gcc|sh)$/) { print $3, $4, $2 }'
}
"$PROF" report --daemon --socket "$SOCK" --since 60s -s uid,comm >"$TMP/root.txt" 2>"$TMP/err" ||
	fail "prof report --daemon as root: $(cat "$TMP/err")"
as_user profdbuild "$PUB_PROF" report --daemon --socket "$SOCK" --since 60s -s uid,comm >"$TMP/user.txt" 2>"$TMP/err" ||
	fail "prof report --daemon as profdbuild: $(cat "$TMP/err")"
mine=$(build_rows <"$TMP/root.txt" | awk '$1 == "profdbuild" { n += $3 } END { print n + 0 }')
cc1=$(build_rows <"$TMP/root.txt" | awk '$1 == "profdbuild" && $2 == "cc1" { n += $3 } END { print n + 0 }')
theirs=$(build_rows <"$TMP/user.txt" | awk '$1 == "profdbuild" { n += $3 } END { print n + 0 }')
unknown=$(awk '$1 ~ /%$/ && $3 == "profdbuild" && ($4 == "" || $4 ~ /unknown|^:/)' "$TMP/root.txt" | wc -l)
note "$builds builds in 12 s; the build's samples under profdbuild: $mine (cc1 $cc1), in its own view $theirs; unattributed $u0 -> $u1"
[ "$builds" -ge 3 ] || fail "only $builds builds ran"
[ "$cc1" -gt 0 ] || fail "no cc1 sample of profdbuild: $(head -20 "$TMP/root.txt")"
[ "$mine" -eq "$theirs" ] || fail "root sees $mine samples of profdbuild's build, profdbuild $theirs"
[ "$unknown" -eq 0 ] || fail "profdbuild has samples without a command name: $(grep profdbuild "$TMP/root.txt")"
[ "$u1" -eq "$u0" ] || fail "profd could not attribute $((u1 - u0)) samples beside the build"
pass "a make -j2 loop beside profd: $mine samples of the build, all under its tenant and commands, none unattributed"
