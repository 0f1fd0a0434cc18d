# SPDX-License-Identifier: GPL-2.0-or-later
"""bench/run's parts: the world, measuring, the perf.data reader, the page."""
