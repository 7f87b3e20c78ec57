/*
 * tap.h
 *		The few lines of TAP the unit tests of test/unit/ print: one "ok N"
 *		or "not ok N" line per check, then "N passed, N failed".
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 */
#ifndef WAL_STALL_TAP_H
#define WAL_STALL_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

static int	tap_passed;
static int	tap_failed;

static void
check(bool ok, const char *fmt,...)
{
	va_list		ap;

	printf("%s %d - ", ok ? "ok" : "not ok", tap_passed + tap_failed + 1);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (ok)
		tap_passed++;
	else
		tap_failed++;
}

/* Print the closing line; the exit status of the test program. */
static int
tap_finish(void)
{
	printf("%d passed, %d failed\n", tap_passed, tap_failed);
	return tap_failed > 0;
}

#endif							/* WAL_STALL_TAP_H */
