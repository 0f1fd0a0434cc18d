# SPDX-License-Identifier: GPL-2.0-or-later
# The samples of `perf script --ns -F time,ip,sym` (or any -F with the time last on
# a sample's first line and one "\tADDR SYMBOL" line per frame), for the Python
# tests that judge each sample against the program's own log of when it ran what.
def samples(path):
    """(time in seconds, [symbols innermost first]) of each sample in path."""
    t, frames = None, []
    for l in open(path):
        s = l.strip()
        if not l.startswith("\t") and s.endswith(":"):
            if t is not None:
                yield t, frames
            t, frames = float(s.rstrip(":").split()[-1]), []
        elif l.startswith("\t") and " " in s:
            frames.append(s.split(" ", 1)[1])
    if t is not None:
        yield t, frames
