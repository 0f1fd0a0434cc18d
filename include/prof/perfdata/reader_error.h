/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a perf.data reader says of a bad file: where (the offset, the record type)
 * and what.  The header reader (perf_reader.c) and the data section's records
 * (record_stream.c) both fill it; the command prints it.
 */
#ifndef PROF_PERFDATA_READER_ERROR_H
#define PROF_PERFDATA_READER_ERROR_H

#include <stdint.h>

struct reader_error {
	uint64_t offset;                /* where in the file */
	uint32_t type;                  /* record type, or 0 */
	char msg[160];
};

/* Fill e (when not NULL) and return -EINVAL: the reader's messages. */
__attribute__((format(printf, 4, 5)))
int reader_error__set(struct reader_error *e, uint64_t off, uint32_t type, const char *fmt, ...);
/* A read of fd at off that failed with e, or came short (e == -ENODATA: the file was
 * cut since it was opened at opened_size bytes): err says so; returns e. */
int reader_error__read(struct reader_error *err, int fd, uint64_t opened_size, uint64_t off, int e);

#endif
