# SPDX-License-Identifier: GPL-2.0-or-later
# For the off-CPU tests, sourced first: root (the other users' hogs, tracefs), Debian's
# perf to read prof's files back, and the workload program (prof-offcpu).
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_root
require_perf
: "${PROF_OFFCPU:?PROF_OFFCPU must name the prof-offcpu test program}"
