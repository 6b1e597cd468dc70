/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Opening a trace.dat (trace-cmd's format) for a streaming pass, shared by
 * the report's analyses (tracedrops, pktpath, netrx).
 *
 * tracefile_open() checks the file (exists, regular, not empty, trace-cmd's
 * magic), opens it with libtracecmd (headers, event formats, kallsyms) and
 * every buffer instance; tracefile_iterate() then hands the records of all
 * buffers to a callback in timestamp order, one at a time, freeing each after
 * the callback, so a pass keeps nothing per event unless it wants to.
 * While a file is open the libraries' warnings to stderr are silenced.
 */
#ifndef NETLAB_TRACEFILE_H
#define NETLAB_TRACEFILE_H

#include <stdint.h>

struct tep_handle;
struct tep_record;
struct tep_event;
struct tep_format_field;
struct tracecmd_input;

struct tracefile {
	const char *path;
	struct tracecmd_input **h;	/* the top buffer, then the instances */
	int n;
	struct tep_handle *tep;		/* of the top buffer: formats and kallsyms */
	int cpus;
	unsigned long dev, ino;		/* the file's, to find its mappings */
};

/*
 * @hint: the "how to record it" advice for an empty file (after "hint: the
 * recording did not finish; "), e.g. "record it again with trace-cmd record".
 * Return: 0; -errno for a file that cannot be opened (-EISDIR for a
 * directory); -EINVAL for one that is not a trace.dat or is truncated or
 * corrupted; -ENOMEM. @err names @path and ends with a "\nhint: ..." line.
 */
int tracefile_open(struct tracefile *tf, const char *path, const char *hint, char **err);

typedef int (*tracefile_cb)(struct tep_record *rec, int cpu, void *ctx);

/*
 * Every record in timestamp order. A nonzero return from @cb stops the pass
 * and is returned; -EINVAL when the library fails mid-file (with @err set).
 */
int tracefile_iterate(struct tracefile *tf, tracefile_cb cb, void *ctx, char **err);

void tracefile_close(struct tracefile *tf);

/*
 * tracefile_find() - the trace of @target: RUN_DIR/files/trace.dat,
 * RUN_DIR/trace.dat, or @target itself when it is no directory; NULL for a
 * run directory that recorded none. Caller frees.
 */
char *tracefile_find(const char *target);

/*
 * tracefile_check() - whether @path reads through, as every analysis reads
 * it: tracefile_open() then tracefile_iterate() over every record. Return
 * and @err as theirs.
 */
int tracefile_check(const char *path, const char *hint, char **err);

/* The event SYSTEM:NAME, or NULL when the trace did not record it. */
struct tep_event *tracefile_event(struct tracefile *tf, const char *system, const char *name);

/* An unsigned field of a record (0 when @f is NULL or out of the record). */
uint64_t tracefile_u64(struct tracefile *tf, struct tep_record *rec, struct tep_format_field *f);

/*
 * An unsigned number of @size bytes (1, 2, 4 or 8) at byte @off of field @f
 * (an array, as a kprobe's "+0(...):x64[5]"), in the trace's byte order:
 * 0 when @f is NULL or the bytes are not all in the field and the record.
 */
uint64_t tracefile_u64_at(struct tracefile *tf, struct tep_record *rec, struct tep_format_field *f,
			  unsigned int off, unsigned int size);

#endif /* NETLAB_TRACEFILE_H */
