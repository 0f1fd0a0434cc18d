# SPDX-License-Identifier: GPL-2.0-or-later
# Folded stacks (comm;outermost;...;leaf count) from `perf script -F comm,ip,sym`
# text, for comparison with prof report -F folded: symbol offsets dropped, a frame
# perf names nothing is [unknown].  lib.sh's perf_folded runs it; load() reads a
# folded file (tests import it: PYTHONPATH=$LIB_DIR).
import collections
import re
import sys

def load(path):
    """A folded file (prof report -F folded, or this script's output) as a Counter."""
    c = collections.Counter()
    for line in open(path):
        k, _, n = line.rstrip("\n").rpartition(" ")
        c[k] += int(n)
    return c


def fold(path):
    stacks = collections.Counter()
    comm, frames = None, []

    def flush():
        if comm is not None:
            stacks[";".join([comm] + frames[::-1])] += 1

    for line in open(path):
        if not line.strip():
            flush()
            comm, frames = None, []
        elif line[0] not in " \t":
            flush()
            comm, frames = line.split()[0], []
        else:
            parts = line.split(None, 1)
            sym = parts[1].strip() if len(parts) > 1 else "[unknown]"
            frames.append(re.sub(r"\+0x[0-9a-f]+$", "", sym))
    flush()
    return stacks


if __name__ == "__main__":
    for k, v in fold(sys.argv[1]).items():
        print(k, v)
