/*-------------------------------------------------------------------------
 *
 * gauge.h
 *		wal_stall_bench, gauge.c: the machine's speed, second by second,
 *		beside the runs (docs/verdict.md, "The machine's speed").
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WSB_GAUGE_H
#define WSB_GAUGE_H

#include <stdint.h>

/* start the gauge (once per experiment): 0, or -1 with err */
extern int	wsb_gauge_start(char *err, size_t errlen);

/*
 * The geometric mean of the CPU microseconds one unit of the gauge's work
 * took over the seconds first..last (Unix time, inclusive); NAN when the
 * gauge is not running or measured none of them.
 */
extern double wsb_gauge_mean(int64_t first, int64_t last);

#endif							/* WSB_GAUGE_H */
