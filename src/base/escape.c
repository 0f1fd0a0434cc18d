/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "prof/base/escape.h"
#include "prof/base/util.h"

/*
 * The length of the well-formed UTF-8 character at s (at most n bytes), its code
 * point in *cp; 0 when the bytes there are not one (RFC 3629: no overlong forms, no
 * surrogates, nothing past U+10FFFF).
 */
static size_t utf8_char(const unsigned char *s, size_t n, uint32_t *cp)
{
	unsigned char c = s[0];
	size_t len;
	uint32_t v, min;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf)
		len = 2, v = c & 0x1f, min = 0x80;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, v = c & 0x0f, min = 0x800;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, v = c & 0x07, min = 0x10000;
	else
		return 0;
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (s[i] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return len;
}

size_t utf8__prefix(const char *s, size_t n, size_t chars)
{
	size_t off = 0;
	uint32_t cp;

	for (; off < n && chars; chars--) {
		size_t l = utf8_char((const unsigned char *)s + off, n - off, &cp);
		off += l ? l : 1;
	}
	return off;
}

size_t utf8__count(const char *s, size_t n)
{
	size_t chars = 0;
	uint32_t cp;

	for (size_t off = 0; off < n; chars++) {
		size_t l = utf8_char((const unsigned char *)s + off, n - off, &cp);
		off += l ? l : 1;
	}
	return chars;
}

int escape__json(FILE *out, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	uint32_t cp;

	fputc('"', out);
	for (size_t off = 0; off < n;) {
		size_t l = utf8_char(p + off, n - off, &cp);

		if (!l) {
			fputs("\\ufffd", out);
			off++;
			continue;
		}
		if (cp == '"' || cp == '\\')
			fprintf(out, "\\%c", (char)cp);
		else if (cp < 0x20 || cp == 0x7f)
			fprintf(out, "\\u%04x", (unsigned)cp);
		else
			fwrite(p + off, 1, l, out);
		off += l;
	}
	fputc('"', out);
	return ferror(out) ? -EIO : 0;
}

int escape__xml(FILE *out, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	uint32_t cp;

	for (size_t off = 0; off < n;) {
		size_t l = utf8_char(p + off, n - off, &cp);

		if (!l) {
			fputs("\xef\xbf\xbd", out);     /* U+FFFD */
			off++;
			continue;
		}
		switch (cp) {
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '&': fputs("&amp;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&#39;", out); break;
		default:
			/* XML 1.0's Char production; a carriage return would be read as a newline */
			if ((cp < 0x20 && cp != '\t' && cp != '\n') || cp == 0xfffe || cp == 0xffff)
				break;
			fwrite(p + off, 1, l, out);
		}
		off += l;
	}
	return ferror(out) ? -EIO : 0;
}

size_t escape__text(char *dst, size_t len, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), o = 0;
	uint32_t cp;

	if (!len)
		return 0;
	for (size_t off = 0; off < n;) {
		size_t l = utf8_char(p + off, n - off, &cp);
		bool bad = !l || cp < 0x20 || (cp >= 0x7f && cp <= 0x9f);

		if (!l)
			l = 1;
		if (bad) {
			if (o + 4 * l >= len)
				break;
			for (size_t i = 0; i < l; i++)
				o += (size_t)snprintf(dst + o, len - o, "\\x%02x", p[off + i]);
		} else {
			if (o + l >= len)
				break;
			memcpy(dst + o, p + off, l);
			o += l;
		}
		off += l;
	}
	dst[o] = '\0';
	return o;
}
