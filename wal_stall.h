/*-------------------------------------------------------------------------
 *
 * wal_stall.h
 *		What every part of wal_stall may use: the stall classes, the settings,
 *		the check that the library was preloaded, the collector's entry points.
 *
 * The rest is declared by audience: shared_state.h (the shared memory and
 * the save file's layout, for the collector, the SQL functions and
 * persist.c), classify.h (wait events to classes, for the collector),
 * histogram.h, counters.h and queries.h.  Like core's pgstat.h beside
 * utils/pgstat_internal.h, this header changes only when what it offers
 * does.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WAL_STALL_H
#define WAL_STALL_H

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

#define WS_NS_PER_MS			1000000.0

/* The longest wal_stall.sample_interval (and idle_interval), in ms. */
#define WS_MAX_SAMPLE_INTERVAL_MS	1000.0

/*
 * wal_stall.max_sample_interval's default, in ms: the longest sampling
 * interval of the adaptive interval (cadence.c); see docs/results.md for
 * the study that chose it.
 */
#define WS_DEFAULT_MAX_SAMPLE_INTERVAL_MS	8.0

/*
 * wal_stall.episode_sampling's default: under a load of short waits that
 * would hold the interval at 4 ms or less at the defaults, count the episodes that
 * begin in one burst of every this many (cadence.c, docs/sampling.md); see
 * docs/results.md for the study that chose it.
 */
#define WS_DEFAULT_EPISODE_SAMPLING	16

/* ... and its highest value. */
#define WS_MAX_EPISODE_SAMPLING		64

/* The settings (wal_stall.c defines them, but ws_max_queries: queries.c) */
extern double ws_sample_interval_ms;
extern double ws_idle_interval_ms;
extern double ws_max_sample_interval_ms;
extern int	ws_episode_sampling;
extern int	ws_history_seconds;
extern bool ws_save;
extern int	ws_max_queries;

/* wal_stall.c */
extern void ws_check_loaded(void);

/* classify.c */
extern const char *ws_class_name(WalStallClass cls);
extern const char *ws_class_kind(WalStallClass cls);

/* collector.c */
extern void ws_register_collector(void);
extern void ws_statement_begins(void);
PGDLLEXPORT void wal_stall_collector_main(Datum main_arg);

#endif							/* WAL_STALL_H */
