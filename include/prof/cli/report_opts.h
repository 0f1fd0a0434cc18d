/* SPDX-License-Identifier: GPL-2.0-or-later */
/* prof report: options, rows, and the folded stacks of the folded and SVG outputs. */
#ifndef PROF_CLI_REPORT_OPTS_H
#define PROF_CLI_REPORT_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum report_key {
	KEY_UID, KEY_CGROUP, KEY_PID, KEY_COMM, KEY_DSO, KEY_SYM,
	KEY__MAX
};

enum report_format { FORMAT_TEXT, FORMAT_FOLDED, FORMAT_JSON, FORMAT_SVG, FORMAT_PPROF };

struct report_opts {
	const char *input;
	const char *output;             /* -o: where -F pprof goes (NULL: stdout) */
	size_t max_stacks;              /* the engine's cap (0: its default) */
	enum report_key keys[KEY__MAX];
	size_t nr_keys;
	enum report_format format;
	bool callchain;                 /* -g */
	bool no_inline;                 /* --no-inline: call chains without inlined frames */
	size_t top;                     /* 0: all */
	double percent_limit;
	/* filters (0/NULL: none) */
	bool has_uid;
	uint32_t uid;
	bool has_pid;
	int32_t pid;
	const char *comm;
	const char *cgroup;
};

/* "uid,comm,sym": the keys in order.  0, or -EINVAL with a message in err. */
int report_keys__parse(const char *arg, enum report_key keys[KEY__MAX], size_t *ret_nr, char *err, size_t errlen);
extern const char *const report_key_names[KEY__MAX];

/* Parse argv; -EINVAL with err; 1 for --help. */
int report_opts__parse(struct report_opts *o, int argc, char **argv, char *err, size_t errlen);
extern const char report_opts__usage[];

/* A row's key: the grouped fields of the aggregation engine's entries (profile.h),
 * the others zero; strings interned. */
struct report_sample {
	uint32_t uid;
	bool uid_known;
	uint64_t cgroup;
	int32_t pid;
	const char *comm;
	const char *dso;
	const char *sym;                /* "[unknown]" when unresolved */
	bool kernel;
};

struct report_row {
	struct report_sample key;
	uint64_t samples, period;
};

/* Folded stacks for the folded and SVG outputs, fed from the engine's entries. */
struct report_agg;

struct report_agg *report_agg__new(void);
struct report_agg *report_agg__free(struct report_agg *a);
/* A stack, outermost frame first, for folded output. */
int report_agg__add_stack(struct report_agg *a, const char *const *frames, size_t nr, uint64_t count);

/* Write folded stacks ("a;b;c count" lines, most frequent first). */
int report_agg__write_folded(struct report_agg *a, FILE *out);

/* Write the stacks as an interactive SVG flame graph. */
int report_agg__write_svg(struct report_agg *a, FILE *out, const char *title);

#endif
