/*
 * tap.h
 *		The TAP lines of wal_stall's C unit tests (test/unit/ and
 *		bench/t/unit/test_unit*.c): one "ok N - what" or "not ok N - what" line per
 *		check, numbered from 1, then "N passed, N failed" from tap_finish().
 *
 * Every file of a test program includes it; the one file that holds main()
 * defines TAP_MAIN before it, and so holds the counters and the functions
 * once for the whole program.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 */
#ifndef WAL_STALL_TAP_H
#define WAL_STALL_TAP_H

#include <stdbool.h>

/* One check: its line, and its count. */
extern void check(bool ok, const char *fmt,...);

/* Print the closing line; the exit status of the test program. */
extern int	tap_finish(void);

#ifdef TAP_MAIN

#include <stdarg.h>
#include <stdio.h>

static int	tap_passed;
static int	tap_failed;

void
check(bool ok, const char *fmt,...)
{
	va_list		ap;

	printf("%s %d - ", ok ? "ok" : "not ok", tap_passed + tap_failed + 1);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	/* a crash in the next check leaves the lines before it on a pipe */
	fflush(stdout);
	if (ok)
		tap_passed++;
	else
		tap_failed++;
}

int
tap_finish(void)
{
	printf("%d passed, %d failed\n", tap_passed, tap_failed);
	return tap_failed > 0;
}

#endif							/* TAP_MAIN */

#endif							/* WAL_STALL_TAP_H */
