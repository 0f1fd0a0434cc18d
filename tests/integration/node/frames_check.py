#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Check prof-node-probe's stacks of shape.js (tests/integration/node/frames.sh).

usage: frames_check.py PROBE_OUTPUT DIR [live]

Every frame named in shape.js or other.js must be one of their functions, with the
line and column of its start (the '(' of its parameters, as V8 counts it) found in the
files here; decoy (run only before the probe starts) must never be named; and each
pair of consecutive named frames must be a call the program makes: callee under its
caller, or under its caller's caller where an optimized (compiled) caller may have
inlined the function between.  Prints the counts; exit 1 on any wrong frame (unless
live: then the wrong ones are counted and printed, for the record, not failed)."""
import re
import sys
from collections import Counter

out, here = sys.argv[1], sys.argv[2]
live = len(sys.argv) > 3 and sys.argv[3] == 'live'

# callee -> its callers in the program ("main": the module's own code, anonymous)
CALLS = {
    'a@shape': {'main', 'anon@shape'}, 'b@shape': {'a@shape'}, 'c@shape': {'b@shape'},
    'hotInline@shape': {'main'}, 'tiny@shape': {'hotInline@shape'}, 'anon@shape': {'main'},
    'arrow@shape': {'main'}, 'c@other': {'arrow@shape'}, 'cmp@shape': {'sortUser@shape'},
    'sortUser@shape': {'main'}, 'reviver@shape': {'parseUser@shape'}, 'parseUser@shape': {'main'},
}


def positions():
    """name@file -> (line, column) of each function's '(' in the sources."""
    pos = {}
    for f in ('shape', 'other'):
        for n, text in enumerate(open(f'{here}/{f}.js'), 1):
            for m in re.finditer(r'function (\w+)\(|const (\w+) = (?:function )?\(', text):
                name = m.group(1) or m.group(2)
                pos[f'{name}@{f}'] = (n, m.end())
    pos['main'] = (1, 1)
    return pos


def may_call(callee, caller, compiled):
    if caller in CALLS.get(callee, ()):
        return True
    # through functions an optimized caller may have inlined
    return compiled and any(may_call(mid, caller, compiled) for mid in CALLS.get(callee, ()) if mid != 'main')


FRAME = re.compile(r'^js (.+?) \((.*?):(\d+|\[unknown line: [^]]*\]):?(\d*)\) (interpreted|compiled)$')
pos = positions()
samples = with_js = 0
why = Counter()
named = Counter()
bad = []
for line in open(out):
    if not line.startswith('sample '):
        continue
    samples += 1
    frames = [f.strip() for f in line.split(':', 1)[1].split(' | ')]
    user = []
    for f in frames:
        if f.startswith('stop: '):
            why[f[6:]] += 1
            continue
        m = FRAME.match(f)
        if not m:
            continue
        name, file, ln, col, tier = m.groups()
        base = file.rsplit('/', 1)[-1]
        if base not in ('shape.js', 'other.js'):
            continue
        key = 'main' if name == '(anonymous)' else f'{name}@{base[:-3]}'
        named[key] += 1
        if key not in pos or pos[key] != (int(ln), int(col or 0)):
            bad.append(f'{f}: expected {pos.get(key, "no such function")}')
        if key.startswith('decoy@'):
            bad.append(f'{f}: decoy named (it ran only before the probe)')
        user.append((key, tier == 'compiled', f))
    if user:
        with_js += 1
    for (callee, _, f), (caller, compiled, g) in zip(user, user[1:]):
        if not may_call(callee, caller, compiled):
            bad.append(f'{f} under {g}: no such call')

print(f'samples {samples}, with frames of the program {with_js} ({100 * with_js / max(samples, 1):.1f} %)')
print('named: ' + ', '.join(f'{k} {v}' for k, v in sorted(named.items())))
print('walks ended: ' + '; '.join(f'{v} {k}' for k, v in why.most_common()))
print(f'wrong frames: {len(bad)}')
for b in bad[:20]:
    print('  ' + b)
if live:
    sys.exit(0)
sys.exit(1 if bad else 0)
