// SPDX-License-Identifier: GPL-2.0
/*
 * Opening and streaming a trace.dat with libtracecmd (see tracefile.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <event-parse.h>
#include <trace-cmd.h>

#include "trace/tracefile.h"
#include "lib/util.h"

#define TRACE_MAGIC "\027\010\104tracing"
#define TRACE_MAGIC_LEN 10
#define CHECK_IT "check it with trace-cmd report; if that fails too, record it again"

/*
 * libtracecmd and libtraceevent print warnings to stderr; a library must not.
 * Silence them while a file is open, then put back their defaults (there is
 * no getter for the current level).
 */
static void libs_quiet(bool quiet)
{
	tracecmd_set_loglevel(quiet ? TEP_LOG_NONE : TEP_LOG_WARNING);
	tep_set_loglevel(quiet ? TEP_LOG_NONE : TEP_LOG_CRITICAL);
}

/* The file exists, is a regular file and starts with trace-cmd's magic. */
static int check_file(const char *path, const char *hint, char **err)
{
	char magic[TRACE_MAGIC_LEN];
	struct stat st;
	ssize_t n;
	int fd, e;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		e = errno;
		if (fd >= 0)
			close(fd);
		err_set(err,
			"cannot read trace '%s': %s\nhint: give a run directory (its files/trace.dat is read) or a trace.dat file",
			path, strerror(e));
		return -e;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		err_set(err,
			"cannot read trace '%s': not a regular file\nhint: give a run directory or a trace.dat file",
			path);
		return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	}
	n = st.st_size ? read(fd, magic, sizeof(magic)) : 0;
	close(fd);
	if (!st.st_size) {
		err_set(err, "cannot read trace '%s': the file is empty\nhint: the recording did not finish; %s",
			path, hint);
		return -EINVAL;
	}
	if (n != (ssize_t)sizeof(magic) || memcmp(magic, TRACE_MAGIC, sizeof(magic))) {
		err_set(err,
			"cannot read trace '%s': not a trace.dat file (it does not start with trace-cmd's magic)\nhint: netlab report reads what trace-cmd record -o FILE writes",
			path);
		return -EINVAL;
	}
	return 0;
}

int tracefile_open(struct tracefile *tf, const char *path, const char *hint, char **err)
{
	struct tracecmd_input *top;
	int ret;

	memset(tf, 0, sizeof(*tf));
	tf->path = path;
	ret = check_file(path, hint, err);
	if (ret)
		return ret;
	libs_quiet(true);
	top = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!top) {
		libs_quiet(false);
		err_set(err,
			"cannot read trace '%s': libtracecmd cannot parse its headers (truncated or corrupted)\nhint: " CHECK_IT,
			path);
		return -EINVAL;
	}
	tf->n = 1 + (tracecmd_buffer_instances(top) > 0 ? tracecmd_buffer_instances(top) : 0);
	tf->h = xzalloc(tf->n * sizeof(*tf->h));
	tf->h[0] = top;
	for (int i = 1; i < tf->n; i++) {
		tf->h[i] = tracecmd_buffer_instance_handle(top, i - 1);
		if (!tf->h[i]) {
			err_set(err,
				"cannot read trace '%s': cannot open its buffer '%s' (truncated or corrupted)\nhint: " CHECK_IT,
				path, tracecmd_buffer_instance_name(top, i - 1));
			tf->n = i;
			tracefile_close(tf);
			return -EINVAL;
		}
	}
	tf->tep = tracecmd_get_tep(top);
	{
		struct stat st;

		if (!stat(path, &st)) {
			tf->dev = st.st_dev;
			tf->ino = st.st_ino;
		}
	}
	tf->cpus = tep_get_cpus(tf->tep);
	return 0;
}

/*
 * libtracecmd 1.3 reads a version 6 file through mmap and leaves some of
 * those mappings in place after tracecmd_close(), so every pass over the
 * same file added the file's pages to our resident size (four passes: four
 * times the file). At close, unmap what is left of this file's mappings,
 * recognised by its device and inode in /proc/self/maps. (Evicting pages
 * during a pass with MADV_DONTNEED kept the resident size flat too, but the
 * library then faulted them back in, and the report took 2.7 times as long.)
 */

static void unmap_leftovers(const struct tracefile *tf)
{
	char line[512];
	FILE *maps;

	if (!tf->ino)
		return;
	maps = fopen("/proc/self/maps", "re");
	if (!maps)
		return;
	while (fgets(line, sizeof(line), maps)) {
		unsigned long lo, hi, ino;
		unsigned int major, minor;

		if (sscanf(line, "%lx-%lx %*s %*s %x:%x %lu", &lo, &hi, &major, &minor, &ino) != 5 ||
		    ino != tf->ino || makedev(major, minor) != tf->dev)
			continue;
		munmap((void *)lo, hi - lo);
	}
	fclose(maps);
}

struct iter {
	tracefile_cb cb;
	void *ctx;
	int rc;
};

static int on_record(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *data)
{
	struct iter *it = data;

	it->rc = it->cb(rec, cpu, it->ctx);
	return it->rc ? -1 : 0;
}

int tracefile_iterate(struct tracefile *tf, tracefile_cb cb, void *ctx, char **err)
{
	struct iter it = { .cb = cb, .ctx = ctx };

	if (tracecmd_iterate_events_multi(tf->h, tf->n, on_record, &it) < 0) {
		if (it.rc)
			return it.rc;
		err_set(err, "cannot read trace '%s': reading its events failed (truncated or corrupted)\nhint: " CHECK_IT,
			tf->path);
		return -EINVAL;
	}
	return it.rc;
}

void tracefile_close(struct tracefile *tf)
{
	if (!tf->h)
		return;
	for (int i = tf->n - 1; i >= 0; i--)
		tracecmd_close(tf->h[i]);
	/* What the library left mapped of this file is nobody's any more. */
	unmap_leftovers(tf);
	free(tf->h);
	tf->h = NULL;
	tf->tep = NULL;
	libs_quiet(false);
}

struct tep_event *tracefile_event(struct tracefile *tf, const char *system, const char *name)
{
	return tep_find_event_by_name(tf->tep, system, name);
}

uint64_t tracefile_u64(struct tracefile *tf, struct tep_record *rec, struct tep_format_field *f)
{
	if (!f || rec->size < 0 || (unsigned int)(f->offset + f->size) > (unsigned int)rec->size)
		return 0;
	return tep_read_number(tf->tep, (char *)rec->data + f->offset, f->size);
}

uint64_t tracefile_u64_at(struct tracefile *tf, struct tep_record *rec, struct tep_format_field *f,
			  unsigned int off, unsigned int size)
{
	if (!f || rec->size < 0 || off + size > (unsigned int)f->size ||
	    (unsigned int)(f->offset + off + size) > (unsigned int)rec->size)
		return 0;
	return tep_read_number(tf->tep, (char *)rec->data + f->offset + off, size);
}

char *tracefile_find(const char *target)
{
	static const char *const rel[] = { "files/trace.dat", "trace.dat" };
	struct stat st;

	if (stat(target, &st) || !S_ISDIR(st.st_mode))
		return xstrdup(target);
	for (size_t i = 0; i < ARRAY_SIZE(rel); i++) {
		char *p = xasprintf("%s/%s", target, rel[i]);

		if (!access(p, F_OK))
			return p;
		free(p);
	}
	return NULL;
}

static int skip_record(struct tep_record *rec, int cpu, void *ctx)
{
	return 0;
}

int tracefile_check(const char *path, const char *hint, char **err)
{
	struct tracefile tf;
	int ret = tracefile_open(&tf, path, hint, err);

	if (ret)
		return ret;
	ret = tracefile_iterate(&tf, skip_record, NULL, err);
	tracefile_close(&tf);
	return ret;
}
