/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the libFuzzer targets (tests/fuzz/fuzz_*.c, README.md).
 *
 * The parsers under test read paths or NUL-terminated strings; these turn
 * the fuzzer's bytes into either. Nothing here prints or exits, except
 * abort() when the machine itself fails (a temporary file cannot be
 * written), which libFuzzer reports as a crash of the harness, not of
 * netlab.
 */
#ifndef NETLAB_FUZZ_H
#define NETLAB_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/*
 * fuzz_file() - the input as a file
 * @name: the file's name ("X.scn"): the parsers look at the extension
 * @data: the bytes
 * @size: their number
 *
 * The file lives in a directory private to this process, created on the
 * first call and removed at exit; each call replaces its content.
 * Return: the file's path, valid until the next call with the same @name.
 */
const char *fuzz_file(const char *name, const uint8_t *data, size_t size);

/* The input as a C string, cut at its first NUL byte; caller frees. */
char *fuzz_str(const uint8_t *data, size_t size);

/*
 * fuzz_split() - the input cut at NUL bytes into at most @n strings
 * @out: @n pointers into one allocation; those past the last piece are ""
 *
 * Return: the allocation to free (all of @out points into it).
 */
char *fuzz_split(const uint8_t *data, size_t size, const char **out, size_t n);

#endif /* NETLAB_FUZZ_H */
