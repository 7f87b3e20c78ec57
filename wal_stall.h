/*-------------------------------------------------------------------------
 *
 * wal_stall.h
 *		Shared structures, stall classes and prototypes of wal_stall.
 *
 * Data flows one way: the collector (collector.c) is the only process that
 * writes WalStallShared; SQL functions (views.c) copy what they need under
 * a shared lock and build rows from the copy.  wal_stall_reset() is the one
 * exception: it zeroes the accumulated figures (WalStallFigures) under the
 * exclusive lock.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WAL_STALL_H
#define WAL_STALL_H

#include "access/xlogdefs.h"
#include "datatype/timestamp.h"
#include "storage/lwlock.h"
#include "storage/proc.h"

/*
 * Stall classes, in the order the views list them.  The first four are
 * "stall" classes: time that a process serving queries spent waiting, which
 * is what a client feels.  The last three are "io" classes, counted for
 * every process (the WAL writer and checkpointer included).
 */
typedef enum WalStallClass
{
	WS_CLASS_WAL_BUFFER_FULL = 0,
	WS_CLASS_WAL_FLUSH,
	WS_CLASS_WAL_INSERT,
	WS_CLASS_CLOG,
	WS_CLASS_WAL_WRITE,
	WS_CLASS_WAL_FSYNC,
	WS_CLASS_SLRU_IO,
	WS_NUM_CLASSES
} WalStallClass;

#define WS_NUM_STALL_CLASSES	(WS_CLASS_CLOG + 1)

/*
 * What a wait event means to us.  classify.c maps every wait_event_info
 * value of the running server to one of these, by name; the rest of the
 * code speaks only in these terms.
 */
typedef enum WalStallEvent
{
	WS_EVENT_NONE = 0,
	WS_EVENT_WAL_INSERT_LOCK,	/* LWLock WALInsert */
	WS_EVENT_WAL_MAPPING_LOCK,	/* LWLock WALBufMapping */
	WS_EVENT_WAL_WRITE_LOCK,	/* LWLock WALWrite */
	WS_EVENT_WAL_WRITE_IO,		/* IO WALWrite, WALInitWrite */
	WS_EVENT_WAL_SYNC_IO,		/* IO WALSync, WALInitSync */
	WS_EVENT_CLOG,				/* LWLock XactSLRU, XactBuffer; IPC
								 * XactGroupUpdate */
	WS_EVENT_SLRU_IO			/* IO SLRURead, SLRUWrite, SLRUSync,
								 * SLRUFlushSync */
} WalStallEvent;

/* The episode a process slot is following, per tracker (stall or io). */
typedef enum WalStallGroup
{
	WS_GROUP_NONE = 0,
	WS_GROUP_WAL_PATH,			/* stall tracker: any WAL write-path event */
	WS_GROUP_CLOG,				/* stall tracker: CLOG lock events */
	WS_GROUP_WAL_WRITE,			/* io tracker */
	WS_GROUP_WAL_FSYNC,			/* io tracker */
	WS_GROUP_SLRU_IO			/* io tracker */
} WalStallGroup;

/*
 * Episode-length histogram, in samples: bucket 0 holds one-sample episodes,
 * bucket k holds 2^(k-1) + 1 to 2^k samples.  Edges sit half an interval off
 * the multiples of the interval, (0, 1.5], (1.5, 2.5], (2.5, 4.5] ... times
 * the base, so that jitter around one interval does not split a sample
 * count across two buckets.
 */
#define WS_HIST_BUCKETS			32

#define WS_NS_PER_MS			1000000.0

/* The longest wal_stall.sample_interval (and idle_interval), in ms. */
#define WS_MAX_SAMPLE_INTERVAL_MS	1000.0

/*
 * wal_stall.max_sample_interval's default, in ms: the longest sampling
 * period of the adaptive period (cadence.h); see docs/results.md for the
 * study that chose it.
 */
#define WS_DEFAULT_MAX_SAMPLE_INTERVAL_MS	8.0

/*
 * A sample weighs the real time since the previous tick, up to this many
 * intervals.  Beyond that the collector was not looking (stopped, starved of
 * CPU, waiting for its lock), and crediting the whole gap to whatever is
 * waiting when it looks again would invent long waits.
 */
#define WS_MAX_SAMPLE_WEIGHT	10

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

/*
 * An episode: consecutive samples of one process in one class.  A wait on
 * the WAL write path whose cause changes (an insertion-lock wait, then the
 * wrap-around write its lock holder was blocked on) is counted as one
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
								 * every class it was counted in */
	uint64		first_ns;		/* the first sample's weight (cadence.h) */
	uint64		first_period_ns;	/* the sampling period at the first
									 * sample: what of its weight counts
									 * towards the episode's length */
	double		period_weighted;	/* sum of its samples' period * weight
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

typedef struct WalStallClassStats
{
	int64		episodes;
	int64		samples;
	uint64		total_ns;
	uint64		max_ns;
	int64		hist[WS_HIST_BUCKETS];
	uint64		hist_ns[WS_HIST_BUCKETS];	/* summed durations per bucket */
} WalStallClassStats;

/* The figures of one class for one statement (wal_stall_queries). */
typedef struct WalStallQueryStats
{
	WalStallStatement statement;
	int32		cls;			/* WalStallClass */
	uint64		last_charge;	/* recency: the table's charge count then */
	WalStallClassStats stats;
} WalStallQueryStats;

/*
 * Core counters read once a second (and at reset): pg_stat_wal, the CLOG row
 * and the sum of all rows of pg_stat_slru, the XID counter and the WAL
 * position.  A counter core does not have on this version stays -1 and is
 * shown as NULL.  The *_reset_at fields are core's own stats_reset times of
 * the rows the counters come from: a difference of two readings means
 * something only when they are equal (ws_counters_delta()).
 */
typedef struct WalStallCounters
{
	TimestampTz wal_reset_at;	/* pg_stat_wal (and pg_stat_io's on 18) */
	TimestampTz clog_reset_at;	/* the CLOG row of pg_stat_slru */
	TimestampTz slru_reset_at;	/* the latest of all pg_stat_slru rows */
	TimestampTz ckpt_reset_at;	/* checkpoint counts (compat.h) */
	int64		wal_fpi;
	int64		ckpt_timed;
	int64		ckpt_requested;
	int64		wal_buffers_full;
	int64		wal_write;
	int64		wal_sync;
	double		wal_write_time_ms;
	double		wal_sync_time_ms;
	int64		clog_zeroed;
	int64		clog_hits;
	int64		clog_reads;
	int64		clog_written;
	int64		clog_flushes;
	int64		slru_reads;		/* every SLRU, like the slru_io class */
	int64		slru_written;
	uint64		next_xid;		/* full transaction id counter */
	XLogRecPtr	insert_lsn;		/* the replay position during recovery */
} WalStallCounters;

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
	double		resolution_ms;	/* sampling period of the stall samples,
								 * weighted by their time; -1 when none */
} WalStallSecond;

/*
 * The figures: everything counted since the last reset, in one struct so
 * that wal_stall_reset() zeroes it, a clean shutdown saves it and the next
 * start loads it as a whole (persist.c writes the struct itself).  A field
 * added here is reset, saved and loaded with the others; a save file of a
 * build without it is refused by its size.  The history ring and the
 * wal_stall_queries table are counted since the reset too, but live in
 * memory of their own, and are saved after the figures.
 *
 * The first fields, up to and including classes, are laid out as format
 * version 3 of the save file had them (persist.c reads such a file): add
 * new fields after them.
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
	bool		timing_off_seen;	/* track_wal_io_timing was off at some
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
	double		period_weighted[WS_NUM_CLASSES];	/* per class, the sum of
													 * its counted samples'
													 * period * weight, in
													 * ns^2: over total_ns,
													 * the resolution */
} WalStallFigures;

/*
 * The shared state.
 *
 * Locking: "lock" (our own tranche, never taken by backends on their own
 * paths) is held exclusively by the collector while it applies one tick or
 * closes one second, and by wal_stall_reset(); readers hold it shared while
 * they copy.  Nothing here is read or written without it, except nslots and
 * history_size, which never change after shared memory is created, and the
 * episode groups, which the collector (their only writer) reads unlocked.
 * The figures are no exception: they are read and written under the lock
 * like the rest.
 */
typedef struct WalStallShared
{
	LWLock	   *lock;

	/* the collector watching itself */
	int			collector_pid;
	uint64		interval_ns;	/* wal_stall.sample_interval in force */
	uint64		current_interval_ns;	/* longer while the collector rests */
	uint64		rest_ns;		/* time covered by ticks after a rest */
	int64		ticks;
	uint64		tick_cost_ns;	/* sum of work per tick, for the mean */
	uint64		max_tick_cost_ns;
	int64		overruns;		/* ticks that came more than an interval late */
	uint64		unobserved_ns;	/* time between ticks beyond WS_MAX_SAMPLE_WEIGHT */
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

	/*
	 * Followed in the same segment by WalStallProcSlot[nslots] and
	 * WalStallSecond[history_size]; ws_slots and ws_history point there.
	 */
} WalStallShared;

/* wal_stall.c */
extern WalStallShared *ws_shared;
extern WalStallProcSlot *ws_slots;
extern WalStallSecond *ws_history;
extern double ws_sample_interval_ms;
extern double ws_idle_interval_ms;
extern double ws_max_sample_interval_ms;
extern int	ws_history_seconds;
extern bool ws_save;
extern void ws_check_loaded(void);

/* classify.c */

/* Event numbers looked at per wait class (classify.c) */
#define WS_MAX_EVENT_ID		1024

/*
 * Our meaning of every wait_event_info, as ws_classify_init() found the
 * running server's events: the collector looks up every process at every
 * tick, so the lookup is two loads and no branch to mispredict.
 */
typedef struct WalStallWaitTable
{
	uint8		row_of_class[256];	/* by wait class: a row of event[] */
	bool		idle_class[256];	/* by wait class: see ws_wait_is_idle() */
	/* WalStallEvent by row and event id; the rows: classes not tracked,
	 * LWLock, IO, IPC (classify.c) */
	uint8		event[4][WS_MAX_EVENT_ID];
} WalStallWaitTable;

extern WalStallWaitTable ws_wait_table;

extern void ws_classify_init(void);

/*
 * Our meaning of one wait_event_info value; WS_EVENT_NONE if untracked.  The
 * wait class is its top byte, the event the rest.
 */
static inline WalStallEvent
ws_classify_event(uint32 wait_event_info)
{
	uint32		id = wait_event_info & 0x00FFFFFF;
	uint8		row = ws_wait_table.row_of_class[wait_event_info >> 24];

	return (WalStallEvent) ws_wait_table.event[row][Min(id, WS_MAX_EVENT_ID - 1)] *
		(id < WS_MAX_EVENT_ID);
}

/*
 * Is a process in this wait idle, as far as stalls go?  Waiting for a
 * client, for work (the Activity events of background processes), for a
 * timeout, or in an extension's own wait: nothing it does can stall on WAL
 * or CLOG until it wakes up and works again.  0 (no wait) is a process on
 * CPU, or an unused PGPROC: the caller tells them apart.
 */
static inline bool
ws_wait_is_idle(uint32 wait_event_info)
{
	return ws_wait_table.idle_class[wait_event_info >> 24];
}

extern uint32 ws_walwriter_sleep_event(void);
extern const char *ws_class_name(WalStallClass cls);
extern const char *ws_class_kind(WalStallClass cls);
extern WalStallGroup ws_stall_group(WalStallEvent event);
extern WalStallGroup ws_io_group(WalStallEvent event);
extern WalStallClass ws_io_class(WalStallGroup group);
extern WalStallClass ws_sample_class(WalStallEpisode *episode, WalStallEvent event,
									 uint8 lock_mode, bool in_commit, bool ring_full,
									 bool *by_ring);
extern int	ws_hist_bucket(uint64 duration_ns, uint64 base_ns);
extern void ws_hist_bounds(int bucket, uint64 base_ns, double *lower_ns, double *upper_ns);
extern double ws_histogram_percentile(const WalStallClassStats *stats, uint64 base_ns,
									  double fraction);

/* persist.c */
extern void ws_load_figures(void);
extern void ws_shmem_shutdown(int code, Datum arg);

/* counters.c */
extern void ws_read_counters(WalStallCounters *counters, bool with_stats);
extern void ws_counters_unknown(WalStallCounters *counters);
extern void ws_counters_keep_stats(WalStallCounters *counters,
								   const WalStallCounters *earlier);
extern void ws_counters_delta(const WalStallCounters *now,
							  const WalStallCounters *before,
							  WalStallCounters *delta);
extern XLogRecPtr ws_wal_position(bool in_recovery);
extern bool ws_checkpoint_positions(XLogRecPtr *started_redo, XLogRecPtr *done_redo);
extern double ws_ring_occupancy(XLogRecPtr insert, XLogRecPtr write);
extern uint64 ws_ring_bytes(void);

/* queries.c */
extern int	ws_max_queries;
extern Size ws_queries_shmem_size(int nslots);
extern void ws_queries_shmem_init(int nslots);
extern void ws_queries_install_hooks(void);
extern void ws_queries_read_statement(PGPROC *proc, WalStallStatement *out);
extern void ws_queries_charge(const WalStallStatement *st, WalStallClass cls,
							  int64 samples, uint64 time_ns, uint64 duration_ns,
							  uint64 hist_base_ns);
extern void ws_queries_reset_locked(void);
extern int	ws_queries_count(void);
extern const WalStallQueryStats *ws_queries_entry(int i);
extern bool ws_queries_restore(const WalStallQueryStats *saved);

/* collector.c */
extern void ws_register_collector(void);
extern void ws_reset_locked(const WalStallCounters *baseline);
PGDLLEXPORT void wal_stall_collector_main(Datum main_arg);

#endif							/* WAL_STALL_H */
