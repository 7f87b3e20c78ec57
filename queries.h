/*-------------------------------------------------------------------------
 *
 * queries.h
 *		Statements and the per-statement stall table, wal_stall_queries
 *		(queries.c).
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WAL_STALL_QUERIES_H
#define WAL_STALL_QUERIES_H

#include "storage/proc.h"

#include "histogram.h"
#include "wal_stall.h"

/*
 * The statement a process runs, as the collector read it (queries.c):
 * queryid 0 when none; then userid and dbid are the process's own.
 */
typedef struct WalStallStatement
{
	uint64		queryid;
	Oid			userid;
	Oid			dbid;
} WalStallStatement;

/* The figures of one class for one statement (wal_stall_queries). */
typedef struct WalStallQueryStats
{
	WalStallStatement statement;
	int32		cls;			/* WalStallClass */
	uint64		last_charge;	/* recency: the table's charge count then */
	WalStallClassStats stats;
} WalStallQueryStats;

extern Size ws_queries_shmem_size(int nslots);
extern void ws_queries_shmem_init(int nslots);
extern void ws_queries_install_hooks(void);
extern void ws_queries_read_statement(PGPROC *proc, WalStallStatement *out);
extern void ws_queries_charge(const WalStallStatement *st, WalStallClass cls,
							  int64 count_weight, int64 samples, uint64 time_ns,
							  uint64 duration_ns, uint64 hist_base_ns);
extern void ws_queries_reset_locked(void);
extern int	ws_queries_count(void);
extern const WalStallQueryStats *ws_queries_entry(int i);
extern bool ws_queries_restore(const WalStallQueryStats *saved);

#endif							/* WAL_STALL_QUERIES_H */
