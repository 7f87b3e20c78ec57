/*-------------------------------------------------------------------------
 *
 * aged.h
 *		wal_stall_bench: the aged table (--aged-pages), a setup step that
 *		makes the CLOG miss (aged.c).
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WSB_AGED_H
#define WSB_AGED_H

#include "engine.h"

#define WSB_AGED_TEMPLATE	"wal_stall_aged"	/* built once, never read */
#define WSB_AGED_RUN_DB		"wal_stall_aged_run"	/* a fresh copy per run */
#define WSB_AGED_CHECK_DB	"wal_stall_aged_check"	/* read once, to check the span */

/* What the build made, as checked in a copy of it. */
typedef struct WsbAgedSpan
{
	long long	rows;
	long long	first_xid;		/* the aged rows' xmins, 32-bit */
	long long	last_xid;
	int			pages;			/* distinct CLOG pages of those xmins */
	double		build_seconds;
} WsbAgedSpan;

/* Build the template database and check its span; 0, or -1 with err. */
extern int	wsb_aged_build(WsbTarget *t, const WsbOptions *o, WsbAgedSpan *span,
						   char *err, size_t errlen);
/* The run's fresh copy of the template (dropping the last one); 0 or -1. */
extern int	wsb_aged_copy(WsbTarget *t, char *err, size_t errlen);
/* Drop the run's copy; 0 or -1. */
extern int	wsb_aged_drop_copy(WsbTarget *t, char *err, size_t errlen);
/* The aged workload as the work directory's script.sql; 0 or -1. */
extern int	wsb_aged_write_script(const WsbTarget *t);
/* The rows of the aged table (pgbench's :aged_rows). */
extern long long wsb_aged_rows(const WsbOptions *o);

#endif							/* WSB_AGED_H */
