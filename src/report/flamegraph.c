/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A self-contained, interactive SVG flame graph of folded stacks: hover shows the
 * function and its share, a click zooms into a frame (click the root to zoom out),
 * "Search" highlights the frames matching a regular expression and tells their
 * share.  No network, no external script.
 */
#include <stdlib.h>
#include <string.h>

#include "prof/escape.h"
#include "prof/flamegraph.h"
#include "prof/util.h"

#define WIDTH 1200
#define FRAME_H 16
#define PAD_TOP 34
#define PAD_BOTTOM 24

struct node {
	char *name;
	uint64_t count;
	size_t child, sibling;  /* indices, 0 = none (node 0 is the root) */
};

struct flamegraph {
	struct node *n;
	size_t nr, cap;
	size_t depth;
};

struct flamegraph *flamegraph__new(void)
{
	struct flamegraph *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->cap = 1024;
	f->n = calloc(f->cap, sizeof(*f->n));
	if (!f->n) {
		free(f);
		return NULL;
	}
	f->n[0].name = strdup("all");
	f->nr = 1;
	return f->n[0].name ? f : flamegraph__free(f);
}

struct flamegraph *flamegraph__free(struct flamegraph *f)
{
	if (!f)
		return NULL;
	for (size_t i = 0; i < f->nr; i++)
		free(f->n[i].name);
	free(f->n);
	free(f);
	return NULL;
}

static size_t child_named(struct flamegraph *f, size_t parent, const char *name, size_t len)
{
	size_t c, last = 0;

	for (c = f->n[parent].child; c; c = f->n[c].sibling) {
		if (strlen(f->n[c].name) == len && !memcmp(f->n[c].name, name, len))
			return c;
		last = c;
	}
	if (f->nr == f->cap) {
		struct node *nn = realloc(f->n, 2 * f->cap * sizeof(*nn));
		if (!nn)
			return 0;
		f->n = nn;
		f->cap *= 2;
	}
	c = f->nr;
	f->n[c] = (struct node){ .name = strndup(name, len) };
	if (!f->n[c].name)
		return 0;
	f->nr++;
	if (last)
		f->n[last].sibling = c;
	else
		f->n[parent].child = c;
	return c;
}

int flamegraph__add(struct flamegraph *f, const char *folded, uint64_t count)
{
	size_t cur = 0, depth = 0;

	f->n[0].count += count;
	for (const char *p = folded; *p;) {
		const char *semi = strchrnul(p, ';');
		cur = child_named(f, cur, p, (size_t)(semi - p));
		if (!cur)
			return -ENOMEM;
		f->n[cur].count += count;
		depth++;
		p = *semi ? semi + 1 : semi;
	}
	if (depth > f->depth)
		f->depth = depth;
	return 0;
}

static void color(const char *name, char *buf, size_t len)
{
	uint32_t h = 2166136261u;

	for (const char *p = name; *p; p++)
		h = (h ^ (uint8_t)*p) * 16777619u;
	/* the classic warm palette: red-orange-yellow */
	snprintf(buf, len, "rgb(%u,%u,%u)", 205 + (h % 50), 80 + ((h >> 8) % 130), 40 + ((h >> 16) % 40));
}

static void emit(struct flamegraph *f, FILE *out, size_t i, double x, size_t depth, uint64_t total)
{
	const struct node *n = &f->n[i];
	double w = total ? (double)n->count / (double)total : 0;
	double y = PAD_TOP + (double)(f->depth - depth) * FRAME_H;
	char fill[32];

	color(n->name, fill, sizeof(fill));
	fprintf(out, "<g class=\"f\" data-x=\"%.9f\" data-w=\"%.9f\"><title>", x, w);
	escape__xml(out, n->name, strlen(n->name));
	fprintf(out, " (%llu samples, %.2f%%)</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" fill=\"%s\" rx=\"2\"/>"
		"<text x=\"%.2f\" y=\"%.1f\"></text><desc>", (unsigned long long)n->count, 100.0 * w,
		10 + x * (WIDTH - 20), y, w * (WIDTH - 20), FRAME_H - 1, fill, 13 + x * (WIDTH - 20), y + FRAME_H - 4);
	escape__xml(out, n->name, strlen(n->name));
	fputs("</desc></g>\n", out);
	for (size_t c = n->child; c; c = f->n[c].sibling) {
		emit(f, out, c, x, depth + 1, total);
		x += total ? (double)f->n[c].count / (double)total : 0;
	}
}

static const char script[] =
	"<script type=\"text/ecmascript\"><![CDATA[\n"
	"var W = %d, fs = document.querySelectorAll('g.f');\n"
	"function label(g, px) {\n"
	"  var t = g.querySelector('text'), name = g.querySelector('desc').textContent;\n"
	"  var n = Math.floor((px - 6) / 7);\n"
	"  t.textContent = n < 3 ? '' : (name.length <= n ? name : name.substring(0, n - 2) + '..');\n"
	"}\n"
	"function zoom(x0, w0) {\n"
	"  fs.forEach(function (g) {\n"
	"    var x = +g.dataset.x, w = +g.dataset.w, r = g.querySelector('rect'), t = g.querySelector('text');\n"
	"    var inside = x >= x0 - 1e-9 && x + w <= x0 + w0 + 1e-9;\n"
	"    g.style.display = inside ? '' : 'none';\n"
	"    if (!inside) return;\n"
	"    var px = (x - x0) / w0 * (W - 20), pw = w / w0 * (W - 20);\n"
	"    r.setAttribute('x', 10 + px); r.setAttribute('width', pw);\n"
	"    t.setAttribute('x', 13 + px); label(g, pw);\n"
	"  });\n"
	"}\n"
	"fs.forEach(function (g) {\n"
	"  g.addEventListener('click', function () { zoom(+g.dataset.x, +g.dataset.w); });\n"
	"});\n"
	"function search() {\n"
	"  var re = prompt('Search (regular expression):');\n"
	"  var total = 0, seen = {};\n"
	"  fs.forEach(function (g) {\n"
	"    var r = g.querySelector('rect');\n"
	"    if (!r.dataset.fill) r.dataset.fill = r.getAttribute('fill');\n"
	"    var hit = re && new RegExp(re).test(g.querySelector('desc').textContent);\n"
	"    r.setAttribute('fill', hit ? 'rgb(230,0,230)' : r.dataset.fill);\n"
	"    if (hit) {\n"
	"      var x = +g.dataset.x, w = +g.dataset.w, covered = false;\n"
	"      for (var k in seen) { var s = seen[k]; if (x >= s[0] - 1e-12 && x + w <= s[0] + s[1] + 1e-12) covered = true; }\n"
	"      if (!covered) { seen[x + ':' + w] = [x, w]; total += w; }\n"
	"    }\n"
	"  });\n"
	"  document.getElementById('matched').textContent = re ? 'Matched: ' + (100 * total).toFixed(2) + '%%' : '';\n"
	"}\n"
	"zoom(0, 1);\n"
	"]]></script>\n";

int flamegraph__write(struct flamegraph *f, FILE *out, const char *title)
{
	size_t height = PAD_TOP + (f->depth + 1) * FRAME_H + PAD_BOTTOM;

	fprintf(out, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%zu\" viewBox=\"0 0 %d %zu\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n"
		"<style>text { font-family: monospace; font-size: 12px; pointer-events: none; } "
		"g.f:hover rect { stroke: black; stroke-width: 0.5; cursor: pointer; } "
		"#search { cursor: pointer; pointer-events: auto; fill: rgb(0,0,160); }</style>\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"rgb(248,248,240)\"/>\n"
		"<text x=\"%d\" y=\"20\" text-anchor=\"middle\" style=\"font-size:16px\">", WIDTH, height, WIDTH,
		height, WIDTH / 2);
	escape__xml(out, title, strlen(title));
	fprintf(out, "</text>\n<text id=\"search\" x=\"%d\" y=\"20\" onclick=\"search()\">Search</text>\n"
		"<text id=\"matched\" x=\"%d\" y=\"%zu\"></text>\n"
		"<text x=\"10\" y=\"20\">Click a frame to zoom, the bottom one to zoom out</text>\n",
		WIDTH - 70, WIDTH - 200, height - 6);
	emit(f, out, 0, 0, 0, f->n[0].count);
	fprintf(out, script, WIDTH);
	fputs("</svg>\n", out);
	return ferror(out) ? -EIO : 0;
}
