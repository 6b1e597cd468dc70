// SPDX-License-Identifier: GPL-2.0
/* Helpers shared by the libFuzzer targets (fuzz.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"

/* Enough for every target: each writes one or two names. */
#define FUZZ_MAX_FILES 4

static char dir[4096];
static char *files[FUZZ_MAX_FILES];

static void cleanup(void)
{
	for (int i = 0; i < FUZZ_MAX_FILES && files[i]; i++) {
		unlink(files[i]);
		free(files[i]);
		files[i] = NULL;
	}
	if (*dir)
		rmdir(dir);
}

static void make_dir(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(dir, sizeof(dir), "%s/netlab-fuzz.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		abort();
	atexit(cleanup);
}

static const char *file_path(const char *name)
{
	size_t len = strlen(name);
	int i;

	if (!*dir)
		make_dir();
	for (i = 0; i < FUZZ_MAX_FILES && files[i]; i++) {
		const char *base = files[i] + strlen(dir) + 1;

		if (!strncmp(base, name, len) && !base[len])
			return files[i];
	}
	if (i == FUZZ_MAX_FILES || asprintf(&files[i], "%s/%s", dir, name) < 0)
		abort();
	return files[i];
}

/*
 * Overwritten in place and then cut to size, not opened with O_TRUNC: ext4
 * flushes a file truncated to 0 and rewritten when it is closed
 * (auto_da_alloc), a few milliseconds per input.
 */
const char *fuzz_file(const char *name, const uint8_t *data, size_t size)
{
	const char *path = file_path(name);
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	off_t len = (off_t)size;

	if (fd < 0)
		abort();
	while (size) {
		ssize_t n = write(fd, data, size);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			abort();
		data += n;
		size -= (size_t)n;
	}
	if (ftruncate(fd, len) || close(fd))
		abort();
	return path;
}

char *fuzz_str(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

char *fuzz_split(const uint8_t *data, size_t size, const char **out, size_t n)
{
	char *s = fuzz_str(data, size), *p = s, *end = s + size;

	for (size_t i = 0; i < n; i++) {
		out[i] = p <= end ? p : end;
		if (p <= end)
			p += strlen(p) + 1;
	}
	return s;
}
