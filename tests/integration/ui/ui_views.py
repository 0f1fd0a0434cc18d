#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tests/integration/ui/views.sh's checks of prof ui's answers against prof report's.

  ui_views.py events SOURCES.json              the first source's event names
  ui_views.py index SOURCES.json NAME          the index of event NAME
  ui_views.py timelines SOURCES.json REPORT.json...   each event's timeline adds up
                                               to prof report --event's samples
  ui_views.py group GROUP.json REPORT.json KEY /api/group's rows are --sort KEY's
  ui_views.py sandwich SW.json FOLDED TOP.json FUNC   callers and callees of FUNC
                                               recomputed from the folded stacks
  ui_views.py diff DIFF.json A.folded B.folded FUNC grew|shrank
Exit 0 when it holds, 1 (with what differs) when not."""
import collections, json, sys


def load_folded(path):
    stacks = collections.Counter()
    for line in open(path):
        k, n = line.rstrip("\n").rsplit(" ", 1)
        stacks[tuple(k.split(";"))] += int(n)
    return stacks


def name(s):
    # folded.c's names: ';', ' ' and newlines are '_'
    return s.replace(";", "_").replace(" ", "_").replace("\n", "_")


def flat(tree, prefix=(), out=None, diff=False):
    """Every node of an /api tree by its path from the root (the root excluded): its samples."""
    out = {} if out is None else out
    kids = tree[3] if diff else tree[2]
    for k in kids:
        path = prefix + (name(k[0]),)
        out[path] = (k[1], k[2]) if diff else k[1]
        flat(k, path, out, diff)
    return out


def prefix_sums(stacks):
    out = collections.Counter()
    for st, n in stacks.items():
        for i in range(1, len(st) + 1):
            out[st[:i]] += n
    return out


def main():
    cmd = sys.argv[1]
    if cmd in ("events", "index"):
        evs = [e["name"] for e in json.load(open(sys.argv[2]))["sources"][0]["events"]]
        print(" ".join(evs) if cmd == "events" else evs.index(sys.argv[3]))
    elif cmd == "timelines":
        src = json.load(open(sys.argv[2]))["sources"][0]
        reps = [json.load(open(p)) for p in sys.argv[3:]]
        assert [e["name"] for e in src["events"]] == [r["event"] for r in reps], (src["events"], reps)
        for e, r in zip(src["events"], reps):
            assert e["samples"] == sum(e["counts"]) == r["samples"] > 0, (e["name"], e["samples"], r["samples"])
            assert len(e["counts"]) == len(src["counts"])
        print("# " + ", ".join(f"{e['name']} {e['samples']}" for e in src["events"]))
    elif cmd == "group":
        g, r, key = json.load(open(sys.argv[2])), json.load(open(sys.argv[3])), sys.argv[4]
        col = {"uid": "user"}.get(key, key)
        got = {row["value"]: row["samples"] for row in g["rows"]}
        want = {row[col]: row["samples"] for row in r["rows"]}
        assert got == want, (key, got, want)
        assert g["total"] == r["samples"], (g["total"], r["samples"])
        print(f"# {key}: " + ", ".join(f"{k} {v}" for k, v in list(got.items())[:5]))
    elif cmd == "sandwich":
        sw, stacks, top, func = (json.load(open(sys.argv[2])), load_folded(sys.argv[3]),
                                 json.load(open(sys.argv[4])), sys.argv[5])
        callers, callees = collections.Counter(), collections.Counter()
        total = 0
        for st, n in stacks.items():
            frames = st[1:]         # the comm first, then outermost to leaf
            at = [i for i, f in enumerate(frames) if f == func]
            if not at:
                continue
            total += n
            below = frames[at[0] + 1:]                          # from its outermost frame
            above = tuple(reversed(frames[:at[-1]])) + (st[0],)  # from its innermost, up to the comm
            for i in range(1, len(below) + 1):
                callees[below[:i]] += n
            for i in range(1, len(above) + 1):
                callers[above[:i]] += n
        want_total = sum(r["total"] for r in top["rows"] if r["sym"] == func)
        assert sw["total"] == total == want_total > 0, (sw["total"], total, want_total)
        assert sw["callers"][1] == sw["callees"][1] == total
        assert flat(sw["callers"]) == dict(callers), "callers differ"
        assert flat(sw["callees"]) == dict(callees), "callees differ"
        print(f"# {func}: {total} samples, {len(callers)} caller paths, {len(callees)} callee paths")
    elif cmd == "diff":
        d, a, b, func, way = (json.load(open(sys.argv[2])), load_folded(sys.argv[3]), load_folded(sys.argv[4]),
                              sys.argv[5], sys.argv[6])
        assert d["total_a"] == sum(a.values()) > 0 and d["total_b"] == sum(b.values()) > 0, \
            (d["total_a"], sum(a.values()), d["total_b"], sum(b.values()))
        got = flat(d["tree"], diff=True)
        pa, pb = prefix_sums(a), prefix_sums(b)
        want = {k: (pa.get(k, 0), pb.get(k, 0)) for k in set(pa) | set(pb)}
        bad = [(k, got.get(k), want.get(k)) for k in set(got) | set(want) if got.get(k) != want.get(k)]
        assert not bad, bad[:3]
        na = sum(v for k, v in a.items() if func in k) / d["total_a"]
        nb = sum(v for k, v in b.items() if func in k) / d["total_b"]
        assert (nb > na) if way == "grew" else (nb < na), (func, na, nb)
        print(f"# {len(got)} nodes, each A's and B's; {func} {100 * na:.1f}% -> {100 * nb:.1f}% of the samples")


if __name__ == "__main__":
    try:
        main()
    except AssertionError as e:
        print(f"FAIL: {e}")
        sys.exit(1)
