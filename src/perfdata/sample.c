/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "prof/perfdata/sample.h"

void sample_layout__init(struct sample_layout *l, uint64_t st)
{
	/* Fixed-size leading fields of a sample, in the kernel's order. */
	static const uint64_t lead[] = { PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_IP, PERF_SAMPLE_TID,
					 PERF_SAMPLE_TIME, PERF_SAMPLE_ADDR, PERF_SAMPLE_ID,
					 PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU, PERF_SAMPLE_PERIOD };
	/* The sample_id_all trailer, in order. */
	static const uint64_t trail[] = { PERF_SAMPLE_TID, PERF_SAMPLE_TIME, PERF_SAMPLE_ID,
					  PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU,
					  PERF_SAMPLE_IDENTIFIER };
	int n = 0, total = 0;

	*l = (struct sample_layout){ .sample_type = st, .s_tid = -1, .s_time = -1, .s_cpu = -1,
				     .s_id = -1, .t_tid = -1, .t_time = -1, .t_id = -1,
				     .s_cgroup_back = -1, .s_ip = -1, .s_period = -1, .s_chain = -1 };
	for (unsigned i = 0; i < sizeof(lead) / sizeof(lead[0]); i++) {
		if (!(st & lead[i]))
			continue;
		if (lead[i] == PERF_SAMPLE_TID)
			l->s_tid = n;
		else if (lead[i] == PERF_SAMPLE_TIME)
			l->s_time = n;
		else if (lead[i] == PERF_SAMPLE_CPU)
			l->s_cpu = n;
		else if (lead[i] == PERF_SAMPLE_IP)
			l->s_ip = n;
		else if (lead[i] == PERF_SAMPLE_PERIOD)
			l->s_period = n;
		else if (lead[i] == PERF_SAMPLE_IDENTIFIER || (lead[i] == PERF_SAMPLE_ID && l->s_id < 0))
			l->s_id = n;
		n++;
	}
	l->fixed_size = (unsigned)(sizeof(struct perf_event_header) + 8 * (unsigned)n);
	/* The call chain follows the fixed fields unless READ's variable part comes first. */
	if ((st & PERF_SAMPLE_CALLCHAIN) && !(st & PERF_SAMPLE_READ))
		l->s_chain = n;
	/* CGROUP is found from the end when no field the kernel puts after it is asked for. */
	l->s_cgroup_back = -1;
	if ((st & PERF_SAMPLE_CGROUP) &&
	    !(st & (PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE | PERF_SAMPLE_AUX)))
		l->s_cgroup_back = 1;

	for (unsigned i = 0; i < sizeof(trail) / sizeof(trail[0]); i++)
		if (st & trail[i])
			total++;
	l->trailer_size = 8 * (unsigned)total;
	n = total;
	for (unsigned i = 0; i < sizeof(trail) / sizeof(trail[0]); i++) {
		if (!(st & trail[i]))
			continue;
		if (trail[i] == PERF_SAMPLE_TID)
			l->t_tid = n;
		else if (trail[i] == PERF_SAMPLE_TIME)
			l->t_time = n;
		else if (trail[i] == PERF_SAMPLE_IDENTIFIER)
			l->t_id = n;
		n--;
	}
}
