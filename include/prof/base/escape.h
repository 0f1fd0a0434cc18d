/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Names from a perf.data file (commands, symbols, cgroups, objects) are whatever the
 * tasks recorded made them: any bytes, invalid UTF-8, terminal escapes.  Every output
 * of prof report writes them through the one helper of its kind below, so each stays
 * well-formed whatever the names hold.
 */
#ifndef PROF_BASE_ESCAPE_H
#define PROF_BASE_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

/*
 * Write the first n bytes of s as a JSON string, quotes included: control characters
 * as \u00XX, invalid UTF-8 as \ufffd.  Returns 0 or -EIO.
 */
int escape__json(FILE *out, const char *s, size_t n);

/*
 * Write the first n bytes of s as XML 1.0 character data (good in content and in
 * quoted attributes): &<>"' as entities, characters XML does not allow (controls
 * but tab and newline, U+FFFE, U+FFFF) left out, invalid UTF-8 as U+FFFD.  Returns 0
 * or -EIO.
 */
int escape__xml(FILE *out, const char *s, size_t n);

/*
 * Copy the string s into dst (len bytes, NUL-terminated when len > 0) for a terminal:
 * control characters (C0, DEL and C1) and bytes of invalid UTF-8 become visible
 * "\xNN" escapes, so nothing written can move the cursor, retitle or reprogram the
 * terminal.  Cuts only between whole characters or escapes.  Returns the length
 * written.  A dst of 4 * strlen(s) + 1 bytes always holds all of it.
 */
size_t escape__text(char *dst, size_t len, const char *s);

/*
 * The length in bytes of the first chars characters of s (n bytes): each byte of
 * invalid UTF-8 counts as one character, as the helpers above show it as one.
 */
size_t utf8__prefix(const char *s, size_t n, size_t chars);

/* The number of characters in the n bytes of s, counted as utf8__prefix() does. */
size_t utf8__count(const char *s, size_t n);

#endif
