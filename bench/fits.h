/*-------------------------------------------------------------------------
 *
 * fits.h
 *		wal_stall_bench: a path built into a fixed buffer either fits or is
 *		an error that says so, never a silently truncated path.
 *
 *		if (!WSB_PATH(path, err, errlen, "%s/x", dir))
 *			return -1;
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WSB_FITS_H
#define WSB_FITS_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>

/*
 * n: what snprintf returned for buf of size.  true when all of it fit;
 * else false with the message in err (the path's start, as much as fit).
 */
static inline bool
wsb_fits(int n, size_t size, const char *buf, char *err, size_t errlen)
{
	if (n >= 0 && (size_t) n < size)
		return true;
	snprintf(err, errlen, "path too long: \"%.200s...\" (%d bytes, at most %zu)",
			 buf, n, size - 1);
	return false;
}

/* The same for a caller with no message to return: the message on stderr. */
static inline bool
wsb_fits_or_say(int n, size_t size, const char *buf)
{
	char		msg[320];

	if (wsb_fits(n, size, buf, msg, sizeof(msg)))
		return true;
	fprintf(stderr, "wal_stall_bench: error: %s\n", msg);
	return false;
}

/* The same where errno carries the failure: ENAMETOOLONG. */
static inline bool
wsb_fits_errno(int n, size_t size)
{
	if (n >= 0 && (size_t) n < size)
		return true;
	errno = ENAMETOOLONG;
	return false;
}

/* sizeof(a), and a compile error when a is a pointer, not an array */
#define WSB_ARRAY_SIZE(a) \
	(sizeof(a) + 0 * sizeof(char[1 - 2 * __builtin_types_compatible_p(__typeof__(a), __typeof__(&(a)[0]))]))

/* snprintf into the array buf: true when it fit, else false with err */
#define WSB_PATH(buf, err, errlen, ...) \
	wsb_fits(snprintf((buf), WSB_ARRAY_SIZE(buf), __VA_ARGS__), sizeof(buf), (buf), (err), (errlen))

/* snprintf into the array buf: true when it fit, else false with errno set */
#define WSB_PATH_ERRNO(buf, ...) \
	wsb_fits_errno(snprintf((buf), WSB_ARRAY_SIZE(buf), __VA_ARGS__), sizeof(buf))

/* snprintf into the array buf: true when it fit, else false, said on stderr */
#define WSB_PATH_SAY(buf, ...) \
	wsb_fits_or_say(snprintf((buf), WSB_ARRAY_SIZE(buf), __VA_ARGS__), sizeof(buf), (buf))

#endif							/* WSB_FITS_H */
