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

typedef struct WalStallAdviceInput
{
	int			server_version;	/* PG_VERSION_NUM */

	/* the history since the reset */
	double		seconds;		/* covered by history rows */
	int			rows;
	int64_t		xids;
	int64_t		wal_bytes;
	double		peak_wal_bytes_per_sec;
	int			seconds_ring_full;	/* rows whose fill reached the full mark */
	double		client_seconds;	/* sum of active_backends * seconds */
	int			checkpoints;	/* rows saying "done" */
	int			checkpoints_timed;	/* of those, counted as timed by core */
	double		wrap_ms_after_ckpt; /* wal_buffer_full_ms within the window */
	double		seconds_after_ckpt; /* seconds within the window */

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

typedef struct WalStallAdviceRow
{
	char		setting[64];
	char		current[64];	/* "" is NULL */
	char		suggested[64];	/* "" is NULL */
	char		confidence[16];
	char		evidence[640];
} WalStallAdviceRow;

extern int	ws_advise(const WalStallAdviceInput *in, WalStallAdviceRow *rows, int max_rows);
extern int64_t ws_round_up_pow2(int64_t bytes);
extern void ws_format_bytes(int64_t bytes, char *buf, int len);

#endif							/* WAL_STALL_ADVICE_H */
