/*-------------------------------------------------------------------------
 *
 * advice.h
 *		wal_stall_advice(): which settings to change, from what was
 *		measured, as a pure function of the figures.
 *
 * The rules know nothing of shared memory or SQL: views.c gathers the
 * figures since the last reset into a WalStallAdviceInput and turns the
 * rows into a result set; test/unit/test_advice.c tries every rule on
 * crafted figures.  No PostgreSQL header is needed here.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WAL_STALL_ADVICE_H
#define WAL_STALL_ADVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Less history than this, in seconds, is too little to advise on. */
#define WS_ADVICE_MIN_SECONDS		60
/* Room the suggested ring leaves over the need: a factor. */
#define WS_ADVICE_RING_HEADROOM		2.0
/* Seconds after a checkpoint began that count as its full-page burst. */
#define WS_ADVICE_CKPT_WINDOW		30
/*
 * CLOG misses matter only as far as clients wait for them: below this share
 * of client time in CLOG lock waits more buffers would save little; from
 * the second one, with many misses, the advice is given with confidence.
 */
#define WS_ADVICE_CLOG_LOCK_SHARE_MIN	0.001
#define WS_ADVICE_CLOG_LOCK_SHARE_HIGH	0.01
#define WS_ADVICE_MAX_ROWS			8
/* Room for the figures of WalStallAdviceInput, counted in ws_advice_nfigures. */
#define WS_ADVICE_MAX_FIGURES		64
/* The largest figure of each type ws_advice_check() lets the rules see. */
#define WS_ADVICE_INT_BOUND			1e8
#define WS_ADVICE_INT64_BOUND		9007199254740992.0	/* 2^53 */
#define WS_ADVICE_DOUBLE_BOUND		1e15

typedef struct WalStallAdviceInput
{
	int			server_version;	/* PG_VERSION_NUM */
	int			readings;		/* figures pooled here: 1 since one reset */

	/* the history since the reset */
	double		seconds;		/* covered by history rows */
	int			history_rows;
	int64_t		xids;
	int64_t		wal_bytes;
	double		peak_wal_bytes_per_sec;
	int			seconds_ring_full;	/* rows whose fill reached the full mark */
	double		client_seconds;	/* sum of active_backends * seconds */
	int			checkpoints;	/* rows saying "done" */
	int			checkpoints_timed;	/* of those, counted as timed by core */
	double		wrap_ms_after_checkpoint; /* wal_buffer_full_ms within the window */
	double		seconds_after_checkpoint; /* seconds within the window */

	/* the summary since the reset */
	double		wrap_ms;		/* wal_buffer_full total_ms */
	double		flush_ms;		/* wal_flush total_ms */
	double		wrap_ms_writer_asleep;	/* of wrap_ms, while the WAL writer slept */
	double		write_p99_ms;	/* wal_write p99, NAN if none */
	double		fsync_p99_ms;	/* wal_fsync p99, NAN if none */
	double		write_ms;		/* wal_write total_ms */
	double		fsync_ms;		/* wal_fsync total_ms */

	/* the CLOG since the reset */
	int64_t		clog_hits;		/* -1 unknown */
	int64_t		clog_reads;
	double		clog_lock_ms;
	double		clog_slru_io_ms;	/* slru_io total_ms: SLRU pages read or written */
	int			clog_buffers;
	int			clog_span_pages;	/* CLOG pages from the oldest unfrozen xid to
									 * the next one; 0 unknown */

	/* settings in force */
	int64_t		wal_buffers_bytes;
	int64_t		wal_buffers_max_bytes;	/* the GUC's maximum */
	int			wal_block_size;
	int			wal_writer_delay_ms;
	int64_t		wal_writer_flush_after_bytes;	/* 0: flush at every wake-up */
	int			max_wal_size_mb;
	int			checkpoint_timeout_s;
	int64_t		shared_buffers_kb;
	int			clog_buffers_max;	/* what the lever can reach */
} WalStallAdviceInput;

/*
 * How several readings of the figures (each since a reset, as on the
 * harness's runs of one configuration) pool into one input
 * (ws_advice_pool): counts and times add up, peaks and tails take the
 * largest reading's (a p99 so taken bounds the pooled p99 from above: no
 * reading has more than 1% of its waits beyond it), settings must be the
 * same in every reading.
 * A figure that may be unknown is -1 (integers) or NaN (doubles) then; an
 * unknown part makes an unknown sum, and a peak ignores it.
 */
typedef enum WalStallPoolRule
{
	WS_POOL_SUM,
	WS_POOL_MAX,
	WS_POOL_SAME
} WalStallPoolRule;

typedef enum WalStallFigureType
{
	WS_FIGURE_INT,
	WS_FIGURE_INT64,
	WS_FIGURE_DOUBLE
} WalStallFigureType;

/* One figure of WalStallAdviceInput: a column of wal_stall_advice_figures. */
typedef struct WalStallAdviceFigure
{
	const char *name;
	size_t		offset;
	WalStallFigureType type;
	WalStallPoolRule pool;
	bool		may_be_unknown;
} WalStallAdviceFigure;

extern const WalStallAdviceFigure ws_advice_figures[];
extern const int ws_advice_nfigures;

typedef struct WalStallAdviceRow
{
	char		setting[64];
	char		current[64];	/* "" is NULL */
	char		suggested[64];	/* "" is NULL */
	char		confidence[16];
	char		evidence[640];
} WalStallAdviceRow;

extern int	ws_advise(const WalStallAdviceInput *in, WalStallAdviceRow *rows, int max_rows);
extern const char *ws_advice_pool(WalStallAdviceInput *into, const WalStallAdviceInput *reading);
extern const char *ws_advice_check(const WalStallAdviceInput *in);
extern int64_t ws_round_up_pow2(int64_t bytes);
extern void ws_format_bytes(int64_t bytes, char *buf, int len);

#endif							/* WAL_STALL_ADVICE_H */
