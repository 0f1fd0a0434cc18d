/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A self-contained, interactive SVG flame graph of folded stacks: hover shows the
 * function and its share, a click zooms into a frame ("Reset Zoom" or a click on a
 * caller zooms out), "Search" highlights the frames matching a regular expression
 * and tells their share.  Readable without its script (labels are in the file); no
 * network, no external script.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "prof/base/escape.h"
#include "prof/base/hash.h"
#include "prof/base/hashtable.h"
#include "prof/base/vec.h"
#include "prof/output/flamegraph.h"
#include "prof/base/util.h"

#define WIDTH 1200
#define FRAME_H 16
#define PAD_TOP 34
#define PAD_BOTTOM 24

struct node {
	const char *name;               /* borrowed (flamegraph__add) */
	uint64_t count;
	size_t parent;
	size_t child, last_child, sibling;      /* indices, 0 = none (node 0 is the root) */
};

/* A node: its parent and its name. */
struct child_key {
	size_t parent;
	const char *name;
};

struct flamegraph {
	struct node *n;
	size_t nr, cap;
	struct hashtable children;      /* of size_t (node index), by struct child_key */
};

static bool child_eq(const void *e, const void *key, const void *ctx)
{
	const struct node *n = &((const struct flamegraph *)ctx)->n[*(const size_t *)e];
	const struct child_key *k = key;

	return n->name == k->name && n->parent == k->parent;
}

struct flamegraph *flamegraph__new(void)
{
	struct flamegraph *f = calloc(1, sizeof(*f));

	if (!f || VEC_RESERVE(f->n, f->cap, 1024) < 0) {
		free(f);
		return NULL;
	}
	f->n[0] = (struct node){ .name = "all" };
	f->nr = 1;
	hashtable__init(&f->children, sizeof(size_t), child_eq, f);
	return f;
}

struct flamegraph *flamegraph__free(struct flamegraph *f)
{
	if (!f)
		return NULL;
	hashtable__release(&f->children);
	free(f->n);
	free(f);
	return NULL;
}

/* The child of parent named name, made the last of its children when new; 0 on ENOMEM. */
static size_t child_named(struct flamegraph *f, size_t parent, const char *name)
{
	struct child_key k = { parent, name };
	uint64_t h = hash__mix(hash__u64(parent), (uintptr_t)name);
	size_t *slot = hashtable__find(&f->children, h, &k), c;
	bool created;

	if (slot)
		return *slot;
	if (VEC_RESERVE(f->n, f->cap, f->nr + 1) < 0 || !(slot = hashtable__insert(&f->children, h, &k, &created)))
		return 0;
	c = *slot = f->nr++;
	f->n[c] = (struct node){ .name = name, .parent = parent };
	if (f->n[parent].last_child)
		f->n[f->n[parent].last_child].sibling = c;
	else
		f->n[parent].child = c;
	f->n[parent].last_child = c;
	return c;
}

int flamegraph__add(struct flamegraph *f, const char *const *names, size_t nr, uint64_t count)
{
	size_t cur = 0;

	f->n[0].count += count;
	for (size_t i = 0; i < nr; i++) {
		cur = child_named(f, cur, names[i]);
		if (!cur)
			return -ENOMEM;
		f->n[cur].count += count;
	}
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

#define INNER (WIDTH - 20)         /* the width of the whole, in pixels */
#define MIN_PX 0.1

/* Node i's share of all samples: its width as a fraction of the whole. */
static double share(const struct flamegraph *f, size_t i)
{
	return f->n[0].count ? (double)f->n[i].count / (double)f->n[0].count : 0;
}

/*
 * Frames narrower than MIN_PX at full width are left out with all their callees
 * (flamegraph.pl's --minwidth).  Their samples stay in their caller's count, so
 * the caller keeps its width and the widths still add up; a graph of many tiny
 * frames loads as fast as one of the frames that can be seen.
 */
static bool drawn(const struct flamegraph *f, size_t i)
{
	return share(f, i) * INNER >= MIN_PX;
}

/* The depth of the deepest drawn frame under node i (at depth). */
static size_t drawn_depth(const struct flamegraph *f, size_t i, size_t depth)
{
	size_t max = depth;

	for (size_t c = f->n[i].child; c; c = f->n[c].sibling) {
		if (drawn(f, c)) {
			size_t d = drawn_depth(f, c, depth + 1);      /* once: MAX() would call it twice */
			max = MAX(max, d);
		}
	}
	return max;
}

/*
 * The label of a frame px wide, as flamegraph.pl makes it: as many characters as
 * fit (7 px each, 6 px of margin), cut with ".." when the name is longer, none
 * under 3.  The script's label() does the same when zooming.
 */
static void write_label(FILE *out, const char *name, double px, double x, double y)
{
	size_t len = strlen(name), fit = px > 6 ? (size_t)((px - 6) / 7) : 0;

	if (fit < 3)
		return;
	fprintf(out, "<text x=\"%.2f\" y=\"%.1f\">", x, y);
	if (utf8__count(name, len) <= fit) {
		escape__xml(out, name, len);
	} else {
		escape__xml(out, name, utf8__prefix(name, len, fit - 2));
		fputs("..", out);
	}
	fputs("</text>", out);
}

/* Draw node i and, left to right, its children wide enough to be seen. */
static void draw(struct flamegraph *f, FILE *out, size_t i, double x, size_t depth, size_t max_depth)
{
	const struct node *n = &f->n[i];
	double w = share(f, i);
	double y = PAD_TOP + (double)(max_depth - depth) * FRAME_H, px = 10 + x * INNER;
	char fill[32];

	color(n->name, fill, sizeof(fill));
	/* the name is the title up to its last " (": the script finds it there */
	fprintf(out, "<g class=\"f\" data-x=\"%.9f\" data-w=\"%.9f\" data-d=\"%zu\"><title>", x, w, depth);
	escape__xml(out, n->name, strlen(n->name));
	fprintf(out, " (%llu samples, %.2f%%)</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" fill=\"%s\" rx=\"2\"/>",
		(unsigned long long)n->count, 100.0 * w, px, y, w * INNER, FRAME_H - 1, fill);
	write_label(out, n->name, w * INNER, px + 3, y + FRAME_H - 4);
	fputs("</g>\n", out);
	for (size_t c = n->child; c; c = f->n[c].sibling) {
		if (drawn(f, c))
			draw(f, out, c, x, depth + 1, max_depth);
		x += share(f, c);
	}
}

/*
 * Frames carry their place as fractions of the whole (data-x, data-w) and their
 * depth (data-d).  Zooming into a frame redraws it at full width with what is
 * above it, shows the frames below it (its callers) at full width and faded, and
 * hides the rest; "Reset Zoom", Escape or a click on a caller zooms back out.
 * Labels are in the file (no script needed to read the graph); the script only
 * redoes them after a zoom.  A search that is not a valid regular expression is
 * taken literally.
 */
static const char script[] =
	"<script type=\"text/ecmascript\"><![CDATA[\n"
	"var fs = document.querySelectorAll('g.f'), EPS = 1e-7;\n"
	"function name_of(g) {\n"
	"  var t = g.querySelector('title').textContent;\n"
	"  return t.substring(0, t.lastIndexOf(' ('));\n"
	"}\n"
	"function label(g, px, x, y) {\n"
	"  var t = g.querySelector('text'), name = name_of(g);\n"
	"  var n = px > 6 ? Math.floor((px - 6) / 7) : 0;\n"
	"  var s = n < 3 ? '' : (name.length <= n ? name : name.substring(0, n - 2) + '..');\n"
	"  if (!t) {\n"
	"    if (!s) return;\n"
	"    t = document.createElementNS('http://www.w3.org/2000/svg', 'text');\n"
	"    t.setAttribute('y', y);\n"
	"    g.appendChild(t);\n"
	"  }\n"
	"  t.setAttribute('x', x);\n"
	"  t.textContent = s;\n"
	"}\n"
	"function zoom(z) {\n"
	"  var x0 = +z.dataset.x, w0 = +z.dataset.w, d0 = +z.dataset.d;\n"
	"  fs.forEach(function (g) {\n"
	"    var x = +g.dataset.x, w = +g.dataset.w, d = +g.dataset.d, r = g.querySelector('rect');\n"
	"    var px, pw;\n"
	"    if (d < d0 && x <= x0 + EPS && x + w >= x0 + w0 - EPS) {\n"
	"      px = 0; pw = W - 20; g.style.opacity = '0.5';\n"
	"    } else if (d >= d0 && x >= x0 - EPS && x + w <= x0 + w0 + EPS) {\n"
	"      px = (x - x0) / w0 * (W - 20); pw = w / w0 * (W - 20); g.style.opacity = '';\n"
	"    } else {\n"
	"      g.style.display = 'none';\n"
	"      return;\n"
	"    }\n"
	"    g.style.display = '';\n"
	"    r.setAttribute('x', 10 + px); r.setAttribute('width', pw);\n"
	"    label(g, pw, 13 + px, +r.getAttribute('y') + H - 4);\n"
	"  });\n"
	"  document.getElementById('unzoom').style.display = z === fs[0] ? 'none' : '';\n"
	"}\n"
	"function unzoom() { zoom(fs[0]); }\n"
	"document.addEventListener('click', function (e) {\n"
	"  var g = e.target.closest && e.target.closest('g.f');\n"
	"  if (g) zoom(g);\n"
	"});\n"
	"document.addEventListener('keydown', function (e) {\n"
	"  if (e.key === 'Escape') { unzoom(); search_for(''); }\n"
	"});\n"
	"function pattern(s) {\n"
	"  try { return new RegExp(s); }\n"
	"  catch (e) { return new RegExp(s.replace(/[.*+?^${}()|[\\]\\\\]/g, '\\\\$&')); }\n"
	"}\n"
	"function search_for(s) {\n"
	"  var re = s ? pattern(s) : null, total = 0, end = -1;\n"
	"  fs.forEach(function (g) {\n"
	"    var r = g.querySelector('rect');\n"
	"    if (!r.dataset.fill) r.dataset.fill = r.getAttribute('fill');\n"
	"    var hit = re !== null && re.test(name_of(g));\n"
	"    r.setAttribute('fill', hit ? 'rgb(230,0,230)' : r.dataset.fill);\n"
	"    /* frames come in order of x, callers first: a match inside the last one\n"
	"       counted is one of its callees and is not counted twice */\n"
	"    var x = +g.dataset.x, w = +g.dataset.w;\n"
	"    if (hit && x + w > end + EPS) { total += w; end = x + w; }\n"
	"  });\n"
	"  document.getElementById('matched').textContent = re ? 'Matched: ' + (100 * total).toFixed(2) + '%' : '';\n"
	"}\n"
	"function search() {\n"
	"  var s = prompt('Search (regular expression):');\n"
	"  if (s !== null) search_for(s);\n"
	"}\n"
	"]]></script>\n";

int flamegraph__write(struct flamegraph *f, FILE *out, const char *title)
{
	size_t depth = drawn_depth(f, 0, 0);
	size_t height = PAD_TOP + (depth + 1) * FRAME_H + PAD_BOTTOM;

	fprintf(out, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%zu\" viewBox=\"0 0 %d %zu\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n"
		"<style>text { font-family: monospace; font-size: 12px; pointer-events: none; } "
		"g.f:hover rect { stroke: black; stroke-width: 0.5; cursor: pointer; } "
		"#search, #unzoom { cursor: pointer; pointer-events: auto; fill: rgb(0,0,160); }</style>\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"rgb(248,248,240)\"/>\n"
		"<text x=\"%d\" y=\"20\" text-anchor=\"middle\" style=\"font-size:16px\">", WIDTH, height, WIDTH,
		height, WIDTH / 2);
	escape__xml(out, title, strlen(title));
	fprintf(out, "</text>\n<text id=\"search\" x=\"%d\" y=\"20\" onclick=\"search()\">Search</text>\n"
		"<text id=\"unzoom\" x=\"10\" y=\"20\" onclick=\"unzoom()\" style=\"display:none\">Reset Zoom</text>\n"
		"<text id=\"matched\" x=\"%d\" y=\"%zu\"></text>\n"
		"<text x=\"10\" y=\"%zu\">Click a frame to zoom in, a faded one below or Reset Zoom to zoom out</text>\n"
		"<script type=\"text/ecmascript\">var W = %d, H = %d;</script>\n",
		WIDTH - 70, WIDTH - 200, height - 6, height - 6, WIDTH, FRAME_H);
	draw(f, out, 0, 0, 0, depth);
	fputs(script, out);
	fputs("</svg>\n", out);
	return ferror(out) ? -EIO : 0;
}
