/*-------------------------------------------------------------------------
 *
 * fits.h
 *		wal_stall_bench: a path built into a fixed buffer either fits or is
 *		an error that says so, never a silently truncated path.
 *
 *		if (!wsb_fits(snprintf(path, sizeof(path), "%s/x", dir),
 *					  sizeof(path), path, err, errlen))
 *			return -1;
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WSB_FITS_H
#define WSB_FITS_H

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

#endif							/* WSB_FITS_H */
