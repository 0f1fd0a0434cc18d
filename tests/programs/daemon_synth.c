/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Writes a synthetic stretch of profd history into a state directory, through the
 * daemon's own history and store, for bench/daemon: the 1 h query and the bytes per
 * hour need an hour of history, and the bench cannot wait an hour.  A started profd
 * reads it back as its own (run this as profd's user).
 *
 *   prof-daemon-synth STATE_DIR SECONDS RATE UID... 
 *
 * RATE samples a second over the tenants UID..., each sample a random task (4 comms
 * per tenant, in cgroups of their own) and a random stack from a pool of 2000 stacks
 * of 8-16 frames over 600 functions in 6 objects, skewed so a few stacks are hot, as
 * real profiles are.  The last bucket ends now.  Prints the buckets and bytes written.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "prof/daemon/bucket.h"
#include "prof/daemon/dict.h"
#include "prof/daemon/history.h"
#include "prof/daemon/store.h"

#define SEC 1000000000ull
#define STACKS 2000
#define FUNCS 600
#define MAX_TENANTS 64
#define MAX_RATE 100000

static uint64_t rnd_state = 88172645463325252ull;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/* Skewed towards small indexes: the square of a uniform number. */
static size_t skewed(size_t n)
{
	double u = (double)(rnd() % 1000000) / 1e6;

	return (size_t)(u * u * (double)n) % n;
}

static uint32_t str(struct dict *d, const char *s)
{
	int64_t id = dict__str(d, s, strlen(s));

	if (id < 0)
		exit(1);
	return (uint32_t)id;
}

static void make_stacks(struct dict *d, uint32_t *stacks)
{
	uint32_t frames[FUNCS], f[16];
	char name[64];

	for (int i = 0; i < FUNCS; i++) {
		struct dict_obj o = { .kind = DICT_OBJ_FILE, .has_stat = 1, .mode = 0100755 };

		snprintf(name, sizeof(name), "/usr/lib/bench/libsynth%d.so", i % 6);
		o.path = str(d, name);
		snprintf(name, sizeof(name), "synth_function_%d", i);
		frames[i] = (uint32_t)dict__frame(d, &(struct dict_frame){ .obj = (uint32_t)dict__obj(d, &o),
									.sym = str(d, name) });
	}
	for (int i = 0; i < STACKS; i++) {
		size_t depth = 8 + rnd() % 9;

		for (size_t k = 0; k < depth; k++)
			f[k] = frames[(k == depth - 1) ? 0 : skewed(FUNCS)];
		stacks[i] = (uint32_t)dict__stack(d, f, depth);
	}
}

static void make_tasks(struct dict *d, const uint32_t *uids, size_t nr, uint32_t *tasks)
{
	char comm[32], cg[96];

	for (size_t t = 0; t < nr; t++)
		for (int c = 0; c < 4; c++) {
			snprintf(comm, sizeof(comm), "synth-%u-%d", uids[t], c);
			snprintf(cg, sizeof(cg), "/user.slice/user-%u.slice/job-%d.scope", uids[t], c);
			tasks[t * 4 + c] = (uint32_t)dict__task(d, &(struct dict_task){
				.uid = uids[t], .flags = DICT_TASK_UID_KNOWN, .cgroup_id = 1000 + t * 4 + c,
				.cgroup = str(d, cg), .container = str(d, ""), .comm = str(d, comm) });
		}
}

/* One second of samples, as the sampler closes it. */
static int add_second(struct history *h, uint64_t t, size_t rate, const uint32_t *tasks, size_t nr_tasks,
		      const uint32_t *stacks, struct bucket_entry *e)
{
	struct bucket_hdr hdr = { .start_ns = t, .end_ns = t + SEC };
	size_t nr = 0;
	struct bucket *b;
	int r;

	for (size_t i = 0; i < rate; i++) {
		uint32_t task = tasks[rnd() % nr_tasks], stack = stacks[skewed(STACKS)];
		size_t k = 0;

		while (k < nr && (e[k].task != task || e[k].stack != stack))
			k++;
		if (k == nr)
			e[nr++] = (struct bucket_entry){ task, stack, 0, 0 };
		e[k].samples++;
		e[k].period += SEC / 19;
	}
	hdr.c.samples = rate;
	hdr.c.period = rate * (SEC / 19);
	history__lock(h);
	b = bucket__new(&hdr, e, nr, history__dict(h));
	r = b ? history__add_fine(h, b) : -ENOMEM;
	history__unlock(h);
	return r;
}

int main(int argc, char **argv)
{
	struct history_config hc = { .fine_ns = SEC, .bucket_ns = 10 * SEC, .span_ns = 7200 * SEC,
				     .fine_span_ns = 20 * SEC, .memory_max = 1ull << 34,
				     .bucket_max_stacks = 1000000 };
	static uint32_t stacks[STACKS], tasks[MAX_TENANTS * 4], uids[MAX_TENANTS];
	struct store_config sc = { .segment_bytes = 4u << 20, .segment_ns = 600 * SEC, .disk_max = 1ull << 40,
				   .host = "synth" };
	struct store_stats st;
	struct history *h;
	struct store *s;
	struct bucket_entry *e;
	struct timespec ts;
	char dir[4096], err[512];
	size_t rate, nr = 0;
	uint64_t secs, now, start;
	int w;

	if (argc < 5 || (secs = strtoull(argv[2], NULL, 10)) == 0 || (rate = strtoull(argv[3], NULL, 10)) == 0 ||
	    rate > MAX_RATE) {
		fprintf(stderr, "usage: prof-daemon-synth STATE_DIR SECONDS RATE UID...\n");
		return 2;
	}
	for (int i = 4; i < argc && nr < MAX_TENANTS; i++)
		uids[nr++] = (uint32_t)strtoul(argv[i], NULL, 10);
	snprintf(dir, sizeof(dir), "%s/history", argv[1]);
	sc.dir = dir;
	e = calloc(rate, sizeof(*e));
	if (!e || history__new(&hc, &h) < 0 || store__open(&sc, &s, err, sizeof(err)) < 0) {
		fprintf(stderr, "prof-daemon-synth: %s\n", e ? err : "out of memory");
		return 1;
	}
	history__lock(h);
	make_stacks(history__dict(h), stacks);
	make_tasks(history__dict(h), uids, nr, tasks);
	history__unlock(h);
	clock_gettime(CLOCK_REALTIME, &ts);
	now = (uint64_t)ts.tv_sec * SEC;
	now -= now % hc.bucket_ns;
	start = now - secs * SEC;
	for (uint64_t t = start; t < now; t += SEC)
		if (add_second(h, t, rate, tasks, nr * 4, stacks, e) < 0)
			return 1;
	history__lock(h);
	history__close_coarse(h, 0);
	history__unlock(h);
	w = store__write(s, h, now);
	store__stats(s, &st);
	printf("%d buckets, %llu bytes, %zu segments\n", w, (unsigned long long)st.bytes, st.segments);
	store__free(s);
	history__free(h);
	free(e);
	return w < 0;
}
