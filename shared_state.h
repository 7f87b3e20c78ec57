/*-------------------------------------------------------------------------
 *
 * shared_state.h
 *		wal_stall's shared memory and the layout of its save file: for the
 *		collector that writes it, the SQL functions that read it and
 *		persist.c that saves and loads it.
 *
 * Data flows one way: the collector (collector.c) writes WalStallShared;
 * SQL functions (views.c) copy what they need under a shared lock and build
 * rows from the copy.  wal_stall_reset() is the one other writer: under the
 * exclusive lock it zeroes the figures (WalStallFigures), the history, the
 * query table and the episodes of the slots.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WAL_STALL_SHARED_STATE_H
#define WAL_STALL_SHARED_STATE_H

#include "datatype/timestamp.h"
#include "port/atomics.h"
#include "storage/latch.h"
#include "storage/lwlock.h"

#include "counters.h"
#include "histogram.h"
#include "queries.h"
#include "wal_stall.h"

/*
 * An episode: consecutive samples of one process in one class.  A wait on
 * the WAL write path whose cause changes (an insertion-lock wait, then the
 * wrap-around write its lock holder is blocked on) is counted as one
 * episode per class, so that the summary and the history count every
 * sample in the same class.  "cause" belongs to the whole wait: the cause
 * its latest WALWrite or WALBufMapping lock wait gave (see
 * ws_sample_class()), which the WAL I/O that follows inherits.
 */
typedef struct WalStallEpisode
{
	uint8		group;			/* WalStallGroup, NONE when idle */
	uint8		cls;			/* WalStallClass of its samples */
	bool		caused;			/* a lock mode gave the wait a cause: */
	uint8		cause;			/* WalStallClass */
	uint32		samples;
	uint64		time_ns;		/* sum of the samples' real durations */
	uint64		wait_ns;		/* the same since the wait began, over
								 * every class it is counted in, its first
								 * sample counting at most an interval */
	uint64		first_ns;		/* the first sample's weight */
	uint64		first_interval_ns;	/* the sampling interval at the first
									 * sample: what of its weight counts
									 * towards the episode's length */
	uint32		count_weight;	/* the episodes it stands for when counted:
								 * 0 when it began where episodes are not
								 * counted (cadence.c, bursts) */
	double		interval_weighted;	/* sum of its samples' interval * weight
									 * (ns^2), for the class's resolution */
	WalStallStatement statement;	/* at the first sample: charged with it */
} WalStallEpisode;

/* Per PGPROC slot: what the collector follows for that process. */
typedef struct WalStallProcSlot
{
	int			pid;			/* 0 when the slot is not in use */
	uint32		wait_event_info;	/* as seen at the last tick */
	WalStallEpisode stall;
	WalStallEpisode io;
} WalStallProcSlot;

/*
 * What the checkpointer did in a second, from the redo pointer of the
 * latest checkpoint started (moves at its start) and the redo pointer in
 * pg_control (moves at its end).
 */
typedef enum WalStallCheckpoint
{
	WS_CKPT_NONE = 0,
	WS_CKPT_START,				/* began in this second, still running */
	WS_CKPT_RUNNING,			/* began before, still running */
	WS_CKPT_DONE				/* ended in this second */
} WalStallCheckpoint;

#define WS_CKPT_KIND_TIME		0x01	/* core counted a timed checkpoint */
#define WS_CKPT_KIND_REQUESTED	0x02	/* ... a requested one (WAL, CHECKPOINT) */

/* One second of history. */
typedef struct WalStallSecond
{
	TimestampTz sample_time;	/* end of the second */
	double		seconds;		/* real length of the row: more than 1 after a
								 * gap, less than 1 for the first after a
								 * reset */
	int64		xids;
	int64		wal_bytes;
	double		buffer_fill_max;
	double		buffer_fill_avg;
	double		stall_ms[WS_NUM_STALL_CLASSES];
	double		wal_fsync_max_ms;
	int64		wal_buffers_full;
	int64		wal_writes;
	int64		wal_syncs;
	double		wal_sync_ms;
	int64		clog_hits;
	int64		clog_reads;
	double		waiting_backends;
	double		mean_interval_ms;	/* real time between two ticks */
	double		active_backends;	/* mean processes serving queries at work */
	int64		wal_fpi;
	uint8		checkpoint;		/* WalStallCheckpoint */
	int8		checkpoint_kind;	/* WS_CKPT_KIND_* bits, -1 unknown */
	double		resolution_ms;	/* sampling interval of the stall samples,
								 * weighted by their time; -1 when none */
} WalStallSecond;

/*
 * The figures: everything counted since the last reset, in one struct so
 * that wal_stall_reset() zeroes it, a clean shutdown saves it and the next
 * start loads it as a whole (persist.c writes the struct itself).  A field
 * added here is reset, saved and loaded with the others; a save file of a
 * build without it is refused by its size.  The history ring and the
 * wal_stall_queries table are counted since the reset too, but live in
 * memory of their own, and are saved after the figures.  The tests that
 * forge save files take each field's offset from test/test_functions.c's
 * list of them: a field added here goes there too (test/t/015 fails until
 * it does).
 */
typedef struct WalStallFigures
{
	TimestampTz reset_at;
	uint64		hist_base_ns;	/* histogram bucket 0 upper bound */
	int64		reset_ticks;	/* ticks since reset */
	int64		reset_full_rate_ticks;	/* those at wal_stall.sample_interval
										 * (not ending a rest), and */
	uint64		reset_full_rate_ns; /* their summed weights: the resolution */
	bool		baseline_valid;
	bool		timing_off_seen;	/* track_wal_io_timing off at some
									 * second since the reset */
	uint64		wrap_writer_asleep_ns;	/* wal_buffer_full time sampled while
										 * the WAL writer slept */
	WalStallCounters baseline;	/* core counters at reset */
	WalStallClassStats classes[WS_NUM_CLASSES];
	int64		wal_path_waits;	/* clients' WAL write-path waits, and those
								 * of them that */
	int64		wal_path_waits_io_first;	/* began in WAL I/O */
	uint64		ring_rule_ns;	/* write-path time no lock mode decided */
	int64		query_evictions;	/* wal_stall_queries entries evicted */
	double		interval_weighted[WS_NUM_CLASSES];	/* per class, the sum of
													 * its samples'
													 * interval * weight, in
													 * ns^2: over total_ns,
													 * the resolution */

	/*
	 * Episodes counted in bursts (cadence.c; docs/sampling.md, "Counting
	 * episodes in bursts"): each episode counted adds to classes[].episodes,
	 * its histogram and wal_stall_queries the number of episodes it stands
	 * for, its weight w (1 when every episode that begins is counted).  Per
	 * class, how many were counted one by one, and the variance of
	 * classes[].episodes as an estimate of all episodes, estimated from the
	 * bursts' counts (0 while every episode is counted).
	 */
	int64		episodes_counted[WS_NUM_CLASSES];
	int64		episodes_var[WS_NUM_CLASSES];
} WalStallFigures;

/*
 * Whether the collector's rest awaits a statement: flag is 1 while it does,
 * and the first top-level statement to begin then clears it and sets latch
 * (ws_statement_begins()).  Backends read it at every statement, so it has
 * a cache line of its own, away from what the collector writes every tick.
 */
typedef union WalStallAwait
{
	struct
	{
		pg_atomic_uint32 flag;
		Latch	   *latch;		/* the collector's; NULL while none runs */
	}			s;
	char		line[PG_CACHE_LINE_SIZE];
} WalStallAwait;

/*
 * The shared state.
 *
 * Locking: "lock" (our own tranche, never taken by backends on their own
 * paths) guards all of it; the protocol, who writes what and who may read
 * without it, is at the top of collector.c.  Only nslots and history_size,
 * fixed when shared memory is created, await (an atomic flag and the
 * latch it wakes), and what the collector alone writes and reads back
 * (ticks, the episode slots while it scans) are read without it.
 */
typedef struct WalStallShared
{
	WalStallAwait await;		/* first: ShmemInitStruct() starts the struct
								 * on a cache line */
	LWLock	   *lock;

	/* the collector watching itself */
	int			collector_pid;
	uint64		sample_interval_ns;	/* wal_stall.sample_interval in force */
	uint64		current_interval_ns;	/* longer while the collector rests */
	uint64		rest_ns;		/* time covered by ticks after a rest */
	int64		ticks;
	uint64		tick_cost_ns;	/* sum of work per tick, for the mean */
	uint64		max_tick_cost_ns;
	int64		overruns;		/* ticks that came more than a whole sleep
								 * late */
	uint64		unobserved_ns;	/* time between ticks beyond WS_SAMPLE_REACH_SLEEPS */
	TimestampTz started_at;
	uint64		reset_count;	/* bumped by every reset */
	bool		in_recovery;	/* the server is a standby (or recovering) */

	/* accumulated since reset */
	WalStallFigures figures;

	/* per-second history ring */
	int			history_size;
	int			history_next;	/* slot the next row goes to */
	int64		history_rows;	/* rows written since reset */

	/* per-process episodes, indexed like ProcGlobal->allProcs */
	int			nslots;

#ifdef WS_TEST_FUNCTIONS
	/* a reset to force at this pid's statement copy (test_functions.c) */
	int			test_reset_at_copy_pid;
#endif

	/*
	 * Followed in the same segment by WalStallProcSlot[nslots] and
	 * WalStallSecond[history_size]; ws_slots and ws_history point there.
	 */
} WalStallShared;

/*
 * Bump the version whenever what is saved changes in a way the sizes in the
 * header may not show: fields reordered or retyped in WalStallFigures,
 * WalStallCounters, WalStallClassStats, WalStallSecond or WalStallQueryStats,
 * or a field added whose zero an older file cannot stand for.  A field
 * added to WalStallFigures needs no bump otherwise: it changes
 * figures_size, so that a file of a build without it is refused.  A file
 * of another version is not read: its figures start from zero, as
 * pg_stat_statements does with a file of another format.
 */
#define WS_STAT_MAGIC			0x57534631	/* "WSF1" */
#define WS_STAT_FORMAT_VERSION	1

/*
 * The file's header.  Every size that shapes the payload is in it, so that
 * a file written by a build with other structs is refused, not misread.
 */
typedef struct WalStallFileHeader
{
	uint32		magic;
	uint32		format_version;
	uint32		pg_version_num; /* PG_VERSION_NUM of the writer */
	uint32		figures_size;	/* sizeof(WalStallFigures) */
	uint32		class_stats_size;	/* sizeof(WalStallClassStats) */
	uint32		nclasses;		/* WS_NUM_CLASSES */
	uint32		hist_buckets;	/* WS_HIST_BUCKETS */
	uint32		second_size;	/* sizeof(WalStallSecond) */
	uint32		nhistory;		/* history rows after the figures */
	uint32		query_stats_size;	/* sizeof(WalStallQueryStats) */
	uint32		nqueries;		/* wal_stall_queries entries after the rows */
} WalStallFileHeader;

/* wal_stall.c: the shared memory, and the two arrays after WalStallShared */
extern WalStallShared *ws_shared;
extern WalStallProcSlot *ws_slots;
extern WalStallSecond *ws_history;

/* persist.c */
extern void ws_load_figures(void);
extern void ws_shmem_shutdown(int code, Datum arg);

/* collector.c */
extern void ws_reset_locked(const WalStallCounters *baseline);

/*
 * test_functions.c, in a build with WS_TEST_FUNCTIONS=1 only: the reset a
 * test arms for one process, forced where the collector is about to copy
 * that process's statement from its episode slot, unlocked (the race
 * reread_torn_statements() mends).  Nothing in any other build.
 */
#ifdef WS_TEST_FUNCTIONS
extern void ws_test_reset_at_statement_copy(int pid);
#else
#define ws_test_reset_at_statement_copy(pid) ((void) 0)
#endif

/*
 * views.c: how the last copy of the history ring in this backend went
 * (wal_stall_history(), wal_stall_advice()), for the tests and
 * bench/history_copy_hold.sh: the lock held this many times, for at most
 * this many rows and this long each, this long in all.
 */
typedef struct WalStallCopyStats
{
	int			holds;
	int			rows;
	int			max_rows_per_hold;
	double		max_hold_ms;
	double		total_hold_ms;	/* what one hold of the whole copy took */
} WalStallCopyStats;

extern WalStallCopyStats ws_last_history_copy;

#endif							/* WAL_STALL_SHARED_STATE_H */
