/*-------------------------------------------------------------------------
 *
 * advice.c
 *		The rules of wal_stall_advice(), a pure function of the figures
 *		(advice.h).  Each rule states its evidence in numbers; too little
 *		evidence gives one row that says so, and no rule ever suggests a
 *		smaller setting.  A row either suggests a change or is a keep row
 *		(suggested = current, evidence "keep: ..."): never a change that
 *		is already there.
 *
 * No PostgreSQL header on purpose: the rules are unit-tested apart from a
 * server (test/unit/test_advice.c).
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "advice.h"

#define MB		(1024.0 * 1024.0)

/* The smallest power of two that is at least bytes. */
int64_t
ws_round_up_pow2(int64_t bytes)
{
	int64_t		p = 1;

	while (p < bytes && p < (INT64_C(1) << 62))
		p <<= 1;
	return p;
}

/* Bytes in PostgreSQL's style: the largest unit that divides them exactly. */
void
ws_format_bytes(int64_t bytes, char *buf, int len)
{
	if (bytes % (INT64_C(1) << 30) == 0 && bytes > 0)
		snprintf(buf, len, "%lldGB", (long long) (bytes >> 30));
	else if (bytes % (INT64_C(1) << 20) == 0 && bytes > 0)
		snprintf(buf, len, "%lldMB", (long long) (bytes >> 20));
	else if (bytes % 1024 == 0)
		snprintf(buf, len, "%lldkB", (long long) (bytes >> 10));
	else
		snprintf(buf, len, "%lldB", (long long) bytes);
}

static WalStallAdviceRow *
add_row(WalStallAdviceRow *rows, int *n, int max_rows, const char *setting,
		const char *confidence)
{
	WalStallAdviceRow *row;

	if (*n >= max_rows)
		return NULL;
	row = &rows[(*n)++];
	memset(row, 0, sizeof(*row));
	snprintf(row->setting, sizeof(row->setting), "%s", setting);
	snprintf(row->confidence, sizeof(row->confidence), "%s", confidence);
	return row;
}

/* Share of client time lost to wrap-around, in %; -1 when unknown. */
static double
wrap_share_pct(const WalStallAdviceInput *in)
{
	if (in->client_seconds <= 0)
		return -1;
	return 100.0 * in->wrap_ms / 1000.0 / in->client_seconds;
}

/* The tail latency of one write+fsync cycle, ms; 0 when nothing measured. */
static double
tail_flush_ms(const WalStallAdviceInput *in)
{
	double		ms = 0;

	if (!isnan(in->write_p99_ms))
		ms += in->write_p99_ms;
	if (!isnan(in->fsync_p99_ms))
		ms += in->fsync_p99_ms;
	return ms;
}

/*
 * wal_buffers: the ring must hold the WAL written at the peak rate while one
 * write+fsync cycle at its tail latency is under way, with headroom; rounded
 * up to a power of two, at least twice the current ring when it did fill
 * (the per-second peak understates bursts inside a second), capped at the
 * setting's maximum.  "keep" when the ring never filled.
 */
static void
advise_wal_buffers(const WalStallAdviceInput *in, WalStallAdviceRow *rows, int *n, int max)
{
	WalStallAdviceRow *row;
	char		cur[32];
	char		sug[32];
	char		need_s[32];
	double		tail = tail_flush_ms(in);
	double		need = in->peak_wal_bytes_per_sec * tail / 1000.0;
	double		share = wrap_share_pct(in);
	int64_t		target;
	int64_t		cap;
	const char *confidence;

	ws_format_bytes(in->wal_buffers_bytes, cur, sizeof(cur));
	if (in->seconds_ring_full == 0 && in->wrap_ms <= 0)
	{
		row = add_row(rows, n, max, "wal_buffers", in->seconds >= 300 ? "high" : "medium");
		if (row == NULL)
			return;
		snprintf(row->current, sizeof(row->current), "%s", cur);
		snprintf(row->suggested, sizeof(row->suggested), "%s", cur);
		snprintf(row->evidence, sizeof(row->evidence),
				 "keep: the ring never filled in %.0f s of history (peak WAL %.1f MB/s, %s ring)",
				 in->seconds, in->peak_wal_bytes_per_sec / MB, cur);
		return;
	}

	cap = ws_round_up_pow2(in->wal_buffers_max_bytes + 1) / 2;	/* largest power of two allowed */
	/* compared as doubles first: a need past the cap is never made an integer */
	if (need * WS_ADVICE_RING_HEADROOM >= (double) cap)
		target = cap;
	else
		target = ws_round_up_pow2((int64_t) ceil(need * WS_ADVICE_RING_HEADROOM));
	if (target < 2 * in->wal_buffers_bytes)
		target = 2 * in->wal_buffers_bytes;
	if (target > cap)
		target = cap;

	if (in->history_rows > 0 && in->seconds_ring_full * 10 >= in->history_rows && share >= 1.0)
		confidence = "high";
	else if (in->seconds_ring_full >= 3)
		confidence = "medium";
	else
		confidence = "low";
	row = add_row(rows, n, max, "wal_buffers", confidence);
	if (row == NULL)
		return;
	snprintf(row->current, sizeof(row->current), "%s", cur);
	ws_format_bytes(target, sug, sizeof(sug));
	snprintf(need_s, sizeof(need_s), "%.1f MB", need / MB);
	if (target <= in->wal_buffers_bytes)
	{
		snprintf(row->suggested, sizeof(row->suggested), "%s", cur);
		snprintf(row->evidence, sizeof(row->evidence),
				 "keep: ring full in %d of %.0f s, but %s is already the largest power of two wal_buffers allows; "
				 "the WAL device is what can change (see the storage row)",
				 in->seconds_ring_full, in->seconds, cur);
		return;
	}
	snprintf(row->suggested, sizeof(row->suggested), "%s", sug);
	if (tail > 0)
		snprintf(row->evidence, sizeof(row->evidence),
				 "ring full in %d of %.0f s; clients lost %.1f s to wrap-around (%.1f%% of client time); "
				 "peak WAL %.1f MB/s; p99 WAL write+fsync %.1f ms: %.1f MB/s x %.1f ms = %s, "
				 "so wal_buffers %s holds the peak with %.0fx that headroom or more",
				 in->seconds_ring_full, in->seconds, in->wrap_ms / 1000.0, share < 0 ? 0 : share,
				 in->peak_wal_bytes_per_sec / MB, tail, in->peak_wal_bytes_per_sec / MB, tail,
				 need_s, sug, WS_ADVICE_RING_HEADROOM);
	else
		snprintf(row->evidence, sizeof(row->evidence),
				 "ring full in %d of %.0f s; clients lost %.1f s to wrap-around (%.1f%% of client time); "
				 "peak WAL %.1f MB/s; no WAL write or fsync was sampled, so the need is unknown: "
				 "twice the ring is the smallest step that can tell",
				 in->seconds_ring_full, in->seconds, in->wrap_ms / 1000.0, share < 0 ? 0 : share,
				 in->peak_wal_bytes_per_sec / MB);
}

/*
 * wal_writer_delay: the ring frees when the WAL is written, which between
 * commits that flush is the WAL writer's job, once every wal_writer_delay.
 * When most wrap-around time passed while the WAL writer slept, and the
 * ring fills at the peak rate faster than twice per delay, a delay of half
 * the fill time lets the writer empty it before it fills.
 * (wal_writer_flush_after decides when the writer also fsyncs; the ring
 * frees on the write alone, so it is not suggested.  From 18 it also
 * decides when an asynchronous commit wakes the writer: not before that
 * much WAL waits to be flushed, where 13 to 16 woke it at every completed
 * page.  A ring smaller than that never gets the writer's help between its
 * sleeps, and the evidence says so: docs/results.md, "PostgreSQL 18: small
 * rings and the WAL writer".  Lowering it to the ring's size would make
 * the writer fsync at every wake-up instead.)
 */
static void
advise_wal_writer(const WalStallAdviceInput *in, WalStallAdviceRow *rows, int *n, int max)
{
	WalStallAdviceRow *row;
	double		asleep_share;
	double		fill_ms;
	int			suggested;
	char		ring[32];
	char		flush_after[32];
	char		no_wake[256] = "";

	if (in->wrap_ms <= 0 || in->peak_wal_bytes_per_sec <= 0)
		return;
	asleep_share = in->wrap_ms_writer_asleep / in->wrap_ms;
	fill_ms = in->wal_buffers_bytes / in->peak_wal_bytes_per_sec * 1000.0;
	if (asleep_share < 0.5 || fill_ms / 2 >= in->wal_writer_delay_ms)
		return;
	suggested = (int) floor(fill_ms / 2);
	if (suggested < 1)
		suggested = 1;
	if (suggested >= in->wal_writer_delay_ms)
		return;
	row = add_row(rows, n, max, "wal_writer_delay", asleep_share >= 0.8 ? "medium" : "low");
	if (row == NULL)
		return;
	snprintf(row->current, sizeof(row->current), "%dms", in->wal_writer_delay_ms);
	snprintf(row->suggested, sizeof(row->suggested), "%dms", suggested);
	if (in->server_version >= 180000 &&
		in->wal_writer_flush_after_bytes > in->wal_buffers_bytes)
	{
		ws_format_bytes(in->wal_buffers_bytes, ring, sizeof(ring));
		ws_format_bytes(in->wal_writer_flush_after_bytes, flush_after, sizeof(flush_after));
		snprintf(no_wake, sizeof(no_wake),
				 "; on 18 commits wake the writer only once wal_writer_flush_after (%s) of WAL "
				 "waits, more than the %s ring holds, so between its sleeps it never helps",
				 flush_after, ring);
	}
	snprintf(row->evidence, sizeof(row->evidence),
			 "%.0f%% of the %.1f s of wrap-around stalls came while the WAL writer slept; at the peak "
			 "%.1f MB/s the ring fills in %.1f ms, less than the %d ms the writer sleeps: waking every "
			 "%d ms it writes the ring out before it fills (a larger wal_buffers does the same without "
			 "the wake-ups)%s",
			 100.0 * asleep_share, in->wrap_ms / 1000.0, in->peak_wal_bytes_per_sec / MB, fill_ms,
			 in->wal_writer_delay_ms, suggested, no_wake);
}

/*
 * max_wal_size / checkpoint_timeout: after a checkpoint begins, the first
 * change of every page writes a full-page image, and the WAL rate peaks.
 * When wrap-around stalls cluster in the WS_ADVICE_CKPT_WINDOW seconds after
 * checkpoints (at least twice the rate elsewhere, and most of the time) and
 * checkpoints come more often than every 5 minutes, spacing them out
 * halves the bursts.
 */
static void
advise_checkpoints(const WalStallAdviceInput *in, WalStallAdviceRow *rows, int *n, int max)
{
	WalStallAdviceRow *row;
	double		rate_after,
				rate_else,
				interval;
	double		seconds_else = in->seconds - in->seconds_after_checkpoint;
	bool		timed;

	if (in->checkpoints < 1 || in->wrap_ms <= 0 || in->seconds_after_checkpoint <= 0 || seconds_else <= 0)
		return;
	rate_after = in->wrap_ms_after_checkpoint / in->seconds_after_checkpoint;
	rate_else = (in->wrap_ms - in->wrap_ms_after_checkpoint) / seconds_else;
	interval = in->seconds / in->checkpoints;
	if (rate_after < 2 * rate_else || in->wrap_ms_after_checkpoint < 0.5 * in->wrap_ms || interval >= 300)
		return;
	timed = in->checkpoints_timed * 2 > in->checkpoints;
	row = add_row(rows, n, max, timed ? "checkpoint_timeout" : "max_wal_size", "medium");
	if (row == NULL)
		return;
	if (timed)
	{
		snprintf(row->current, sizeof(row->current), "%ds", in->checkpoint_timeout_s);
		snprintf(row->suggested, sizeof(row->suggested), "%ds", 2 * in->checkpoint_timeout_s);
	}
	else
	{
		snprintf(row->current, sizeof(row->current), "%dMB", in->max_wal_size_mb);
		snprintf(row->suggested, sizeof(row->suggested), "%dMB", 2 * in->max_wal_size_mb);
	}
	snprintf(row->evidence, sizeof(row->evidence),
			 "%d checkpoints in %.0f s (one every %.0f s, %s); %.0f%% of the wrap-around time came in "
			 "the %d s after one began (%.1f ms per second there, %.1f elsewhere): full-page images "
			 "after each checkpoint fill the ring; checkpoints half as often halve those bursts",
			 in->checkpoints, in->seconds, interval, timed ? "mostly timed" : "mostly requested or WAL-driven",
			 100.0 * in->wrap_ms_after_checkpoint / in->wrap_ms, WS_ADVICE_CKPT_WINDOW,
			 rate_after, rate_else);
}

/*
 * A CLOG row that keeps the buffers as they are.  Its evidence starts with
 * the hit ratio every such row states; the caller's why_fmt says the rest.
 */
#if defined(__GNUC__)
__attribute__((format(printf, 6, 7)))
#endif
static void
add_clog_keep_row(const WalStallAdviceInput *in, WalStallAdviceRow *rows, int *n, int max,
				  double ratio, const char *why_fmt,...)
{
	WalStallAdviceRow *row;
	int			len;
	va_list		ap;

	row = add_row(rows, n, max, in->server_version >= 170000 ?
				  "transaction_buffers" : "CLOG buffers (shared_buffers)", "medium");
	if (row == NULL)
		return;
	snprintf(row->current, sizeof(row->current), "%d buffers", in->clog_buffers);
	snprintf(row->suggested, sizeof(row->suggested), "%d buffers", in->clog_buffers);
	len = snprintf(row->evidence, sizeof(row->evidence),
				   "keep: CLOG hit ratio %.2f%% (%lld reads in %.0f s)",
				   100.0 * ratio, (long long) in->clog_reads, in->seconds);
	if (len < 0 || len >= (int) sizeof(row->evidence))
		return;
	va_start(ap, why_fmt);
	vsnprintf(row->evidence + len, sizeof(row->evidence) - len, why_fmt, ap);
	va_end(ap);
}

/*
 * CLOG buffers: misses (pages read back into the SLRU) with a hit ratio
 * under 99% ask for more buffers, if clients lose time to them: waiting on
 * the CLOG's locks and on SLRU I/O while the misses are read back.  Misses
 * that cost clients under 0.1% of their time are left alone.  The count
 * asked for holds every CLOG page a tuple can still ask about (the span
 * from the oldest unfrozen xid to the next), when that span is known and
 * larger than the buffers; else twice the buffers.  On 17+
 * transaction_buffers sets them; on 13-16 only shared_buffers does (512
 * pages per CLOG buffer, 128 at most), which changes much else: the row
 * says so.
 */
static void
advise_clog(const WalStallAdviceInput *in, WalStallAdviceRow *rows, int *n, int max)
{
	WalStallAdviceRow *row;
	double		ratio;
	int			want;
	bool		settable = in->server_version >= 170000;
	const char *confidence;
	double		lock_share;
	double		lost_ms = in->clog_lock_ms + in->clog_slru_io_ms;
	bool		by_span;

	if (in->clog_hits < 0 || in->clog_reads < 0 || in->clog_hits + in->clog_reads == 0)
		return;
	ratio = (double) in->clog_hits / (in->clog_hits + in->clog_reads);
	lock_share = in->client_seconds > 0 ? lost_ms / (in->client_seconds * 1000.0) : -1;
	if (ratio >= 0.99 || in->clog_reads < 10)
	{
		add_clog_keep_row(in, rows, n, max, ratio, ", lock waits %.1f ms", in->clog_lock_ms);
		return;
	}
	if (lock_share >= 0 && lock_share < WS_ADVICE_CLOG_LOCK_SHARE_MIN)
	{
		add_clog_keep_row(in, rows, n, max, ratio,
						  ", but clients waited on CLOG locks and SLRU I/O only %.1f ms, %.3f%% of their time: "
						  "more buffers would save little",
						  lost_ms, 100.0 * lock_share);
		return;
	}
	confidence = (ratio < 0.9 && in->clog_reads >= 1000 &&
				  lock_share >= WS_ADVICE_CLOG_LOCK_SHARE_HIGH) ? "high" : "medium";
	/*
	 * Enough for every page a tuple can still ask about (from the oldest
	 * unfrozen xid to the next, one more for the page being filled), when
	 * that is more than there is; else twice the buffers.
	 */
	by_span = in->clog_span_pages > 0 && in->clog_span_pages + 1 > in->clog_buffers;
	want = by_span ? in->clog_span_pages + 1 : in->clog_buffers * 2;
	if (settable)
		want = ((want + 15) / 16) * 16;
	if (want > in->clog_buffers_max)
		want = in->clog_buffers_max;
	if (want <= in->clog_buffers)
	{
		/* nothing to ask for: a keep row, like the others that suggest no change */
		add_clog_keep_row(in, rows, n, max, ratio,
						  ", lock waits %.1f ms, but %d CLOG buffers is the most this version allows%s",
						  in->clog_lock_ms, in->clog_buffers,
						  settable ? "" : " (17 makes it a setting, transaction_buffers)");
		return;
	}
	row = add_row(rows, n, max, settable ? "transaction_buffers" : "shared_buffers", confidence);
	if (row == NULL)
		return;
	if (settable)
	{
		snprintf(row->current, sizeof(row->current), "%d", in->clog_buffers);
		snprintf(row->suggested, sizeof(row->suggested), "%d", want);
		if (by_span)
			snprintf(row->evidence, sizeof(row->evidence),
					 "CLOG hit ratio %.2f%% (%lld reads in %.0f s), clients lost %.1f ms to CLOG lock "
					 "waits and SLRU I/O (%.2f%% of their time): tuples can still ask about the %d CLOG "
					 "pages from the oldest unfrozen transaction to the next, and %d buffers hold them all",
					 100.0 * ratio, (long long) in->clog_reads, in->seconds, lost_ms,
					 100.0 * lock_share, in->clog_span_pages, want);
		else
			snprintf(row->evidence, sizeof(row->evidence),
					 "CLOG hit ratio %.2f%% (%lld reads in %.0f s), lock waits %.1f ms: twice the CLOG buffers "
					 "keeps twice the range of transaction statuses in memory",
					 100.0 * ratio, (long long) in->clog_reads, in->seconds, in->clog_lock_ms);
	}
	else
	{
		int64_t		need_kb = (int64_t) want * 512 * 8;

		if (need_kb < in->shared_buffers_kb)
			need_kb = in->shared_buffers_kb;
		snprintf(row->current, sizeof(row->current), "%lldMB (%d CLOG buffers)",
				 (long long) (in->shared_buffers_kb / 1024), in->clog_buffers);
		snprintf(row->suggested, sizeof(row->suggested), "%lldMB (%d CLOG buffers)",
				 (long long) (need_kb / 1024), want);
		snprintf(row->evidence, sizeof(row->evidence),
				 "CLOG hit ratio %.2f%% (%lld reads in %.0f s), lock waits %.1f ms; before 17 the CLOG has "
				 "shared_buffers / 512 pages of buffers (128 at most), so shared_buffers is the only lever, "
				 "and it changes much more than the CLOG: weigh that",
				 100.0 * ratio, (long long) in->clog_reads, in->seconds, in->clog_lock_ms);
	}
}

/*
 * Storage: when clients lost 1% of their time or more on the WAL path, WAL
 * writes and fsyncs took at least half as long as those stalls, and one
 * write+fsync cycle's tail latency is 5 ms or more, the device is the
 * bottleneck (too few IOPS, too little bandwidth, slow syncs).  What it
 * would need: a write+fsync cycle within half the time the ring takes to
 * fill at the peak rate.  A device whose p99 already meets that gets a keep
 * row: the stalls are not its to fix, and a row that asks for nothing is
 * not advice.
 */
static void
advise_storage(const WalStallAdviceInput *in, WalStallAdviceRow *rows, int *n, int max)
{
	WalStallAdviceRow *row;
	double		stall = in->wrap_ms + in->flush_ms;
	double		io_ms = in->write_ms + in->fsync_ms;
	double		tail = tail_flush_ms(in);
	double		fill_ms;
	char		cur[32];

	if (stall <= 0 || in->client_seconds <= 0 || stall / 1000.0 < 0.01 * in->client_seconds ||
		io_ms < 0.5 * stall || tail < 5.0)
		return;
	row = add_row(rows, n, max, "storage (WAL device)", "medium");
	if (row == NULL)
		return;
	snprintf(row->current, sizeof(row->current), "write+fsync p99 %.1f ms", tail);
	ws_format_bytes(in->wal_buffers_bytes, cur, sizeof(cur));
	fill_ms = in->peak_wal_bytes_per_sec > 0 ?
		in->wal_buffers_bytes / in->peak_wal_bytes_per_sec * 1000.0 : 0;
	if (fill_ms > 0 && tail < fill_ms / WS_ADVICE_RING_HEADROOM)
	{
		/* the device already meets what this row would ask of it */
		snprintf(row->suggested, sizeof(row->suggested), "%s", row->current);
		snprintf(row->evidence, sizeof(row->evidence),
				 "keep: p99 write+fsync %.1f ms is already under half the %.1f ms the %s ring takes to "
				 "fill at the peak %.1f MB/s, so the device keeps up with the ring; the %.1f s of client "
				 "stalls on the WAL path (WAL writes and fsyncs took %.1f s) are not the device's to fix",
				 tail, fill_ms, cur, in->peak_wal_bytes_per_sec / MB, stall / 1000.0, io_ms / 1000.0);
		return;
	}
	if (fill_ms > 0)
	{
		snprintf(row->suggested, sizeof(row->suggested), "write+fsync p99 under %.1f ms",
				 fill_ms / WS_ADVICE_RING_HEADROOM);
		snprintf(row->evidence, sizeof(row->evidence),
				 "WAL writes and fsyncs took %.1f s, against %.1f s of client stalls on the WAL path; "
				 "p99 write+fsync %.1f ms; at the peak %.1f MB/s the %s ring fills in %.1f ms, so a device "
				 "that writes and syncs within half that keeps up: measure it with "
				 "SELECT * FROM wal_stall_test_fsync()",
				 io_ms / 1000.0, stall / 1000.0, tail, in->peak_wal_bytes_per_sec / MB, cur, fill_ms);
	}
	else
		snprintf(row->evidence, sizeof(row->evidence),
				 "WAL writes and fsyncs took %.1f s, against %.1f s of client stalls on the WAL path; "
				 "p99 write+fsync %.1f ms: measure the device with SELECT * FROM wal_stall_test_fsync()",
				 io_ms / 1000.0, stall / 1000.0, tail);
}

/*
 * ws_advise
 *		Fill rows with advice from the figures; returns how many.  With too
 *		little evidence, one row that says so and nothing else.
 */
int
ws_advise(const WalStallAdviceInput *in, WalStallAdviceRow *rows, int max_rows)
{
	int			n = 0;
	WalStallAdviceRow *row;

	if (in->seconds < WS_ADVICE_MIN_SECONDS || (in->xids == 0 && in->wal_bytes == 0))
	{
		char		since[64];

		row = add_row(rows, &n, max_rows, "(none)", "none");
		if (row == NULL)
			return n;
		if (in->readings > 1)
			snprintf(since, sizeof(since), "in %d readings pooled", in->readings);
		else
			snprintf(since, sizeof(since), "since the last reset");
		if (in->seconds < WS_ADVICE_MIN_SECONDS)
			snprintf(row->evidence, sizeof(row->evidence),
					 "too little evidence: %.0f s of history %s, at least %d s are needed",
					 in->seconds, since, WS_ADVICE_MIN_SECONDS);
		else
			snprintf(row->evidence, sizeof(row->evidence),
					 "no load: no transaction and no WAL in %.0f s of history %s",
					 in->seconds, since);
		return n;
	}
	advise_wal_buffers(in, rows, &n, max_rows);
	advise_wal_writer(in, rows, &n, max_rows);
	advise_checkpoints(in, rows, &n, max_rows);
	advise_clog(in, rows, &n, max_rows);
	advise_storage(in, rows, &n, max_rows);
	return n;
}

#define FIGURE(field, type, pool, unknown) \
	{#field, offsetof(WalStallAdviceInput, field), type, pool, unknown}

/*
 * Every figure of WalStallAdviceInput, in the order of the columns of the
 * SQL type wal_stall_advice_figures (views.c checks the two agree).
 */
const WalStallAdviceFigure ws_advice_figures[] = {
	FIGURE(server_version, WS_FIGURE_INT, WS_POOL_SAME, false),
	FIGURE(readings, WS_FIGURE_INT, WS_POOL_SUM, false),
	FIGURE(seconds, WS_FIGURE_DOUBLE, WS_POOL_SUM, false),
	FIGURE(history_rows, WS_FIGURE_INT, WS_POOL_SUM, false),
	FIGURE(xids, WS_FIGURE_INT64, WS_POOL_SUM, false),
	FIGURE(wal_bytes, WS_FIGURE_INT64, WS_POOL_SUM, false),
	FIGURE(peak_wal_bytes_per_sec, WS_FIGURE_DOUBLE, WS_POOL_MAX, false),
	FIGURE(seconds_ring_full, WS_FIGURE_INT, WS_POOL_SUM, false),
	FIGURE(client_seconds, WS_FIGURE_DOUBLE, WS_POOL_SUM, false),
	FIGURE(checkpoints, WS_FIGURE_INT, WS_POOL_SUM, false),
	FIGURE(checkpoints_timed, WS_FIGURE_INT, WS_POOL_SUM, false),
	FIGURE(wrap_ms_after_checkpoint, WS_FIGURE_DOUBLE, WS_POOL_SUM, false),
	FIGURE(seconds_after_checkpoint, WS_FIGURE_DOUBLE, WS_POOL_SUM, false),
	FIGURE(wrap_ms, WS_FIGURE_DOUBLE, WS_POOL_SUM, false),
	FIGURE(flush_ms, WS_FIGURE_DOUBLE, WS_POOL_SUM, false),
	FIGURE(wrap_ms_writer_asleep, WS_FIGURE_DOUBLE, WS_POOL_SUM, false),
	FIGURE(write_p99_ms, WS_FIGURE_DOUBLE, WS_POOL_MAX, true),
	FIGURE(fsync_p99_ms, WS_FIGURE_DOUBLE, WS_POOL_MAX, true),
	FIGURE(write_ms, WS_FIGURE_DOUBLE, WS_POOL_SUM, false),
	FIGURE(fsync_ms, WS_FIGURE_DOUBLE, WS_POOL_SUM, false),
	FIGURE(clog_hits, WS_FIGURE_INT64, WS_POOL_SUM, true),
	FIGURE(clog_reads, WS_FIGURE_INT64, WS_POOL_SUM, true),
	FIGURE(clog_lock_ms, WS_FIGURE_DOUBLE, WS_POOL_SUM, false),
	FIGURE(clog_slru_io_ms, WS_FIGURE_DOUBLE, WS_POOL_SUM, false),
	FIGURE(clog_buffers, WS_FIGURE_INT, WS_POOL_SAME, false),
	FIGURE(clog_span_pages, WS_FIGURE_INT, WS_POOL_MAX, false),
	FIGURE(wal_buffers_bytes, WS_FIGURE_INT64, WS_POOL_SAME, false),
	FIGURE(wal_buffers_max_bytes, WS_FIGURE_INT64, WS_POOL_SAME, false),
	FIGURE(wal_block_size, WS_FIGURE_INT, WS_POOL_SAME, false),
	FIGURE(wal_writer_delay_ms, WS_FIGURE_INT, WS_POOL_SAME, false),
	FIGURE(wal_writer_flush_after_bytes, WS_FIGURE_INT64, WS_POOL_SAME, false),
	FIGURE(max_wal_size_mb, WS_FIGURE_INT, WS_POOL_SAME, false),
	FIGURE(checkpoint_timeout_s, WS_FIGURE_INT, WS_POOL_SAME, false),
	FIGURE(shared_buffers_kb, WS_FIGURE_INT64, WS_POOL_SAME, false),
	FIGURE(clog_buffers_max, WS_FIGURE_INT, WS_POOL_SAME, false),
};
const int	ws_advice_nfigures = sizeof(ws_advice_figures) / sizeof(ws_advice_figures[0]);

_Static_assert(sizeof(ws_advice_figures) / sizeof(ws_advice_figures[0]) <= WS_ADVICE_MAX_FIGURES,
			   "WS_ADVICE_MAX_FIGURES holds every figure");

/* A figure as a double, whichever its type. */
static double
figure_value(const WalStallAdviceFigure *f, const WalStallAdviceInput *in)
{
	const char *p = (const char *) in + f->offset;

	if (f->type == WS_FIGURE_INT)
		return *(const int *) p;
	if (f->type == WS_FIGURE_INT64)
		return (double) *(const int64_t *) p;
	return *(const double *) p;
}

/* Is the figure unknown (-1, NaN), where it may be? */
static bool
figure_unknown(const WalStallAdviceFigure *f, const WalStallAdviceInput *in)
{
	double		v = figure_value(f, in);

	return f->may_be_unknown && (isnan(v) || v == -1);
}

/*
 * ws_advice_check
 *		NULL when every figure of in is a number the rules can work on
 *		(advice.h: from 0 to its type's bound, or unknown where it may be;
 *		readings at least 1), else the name of the first that is not.  The
 *		bounds leave the rules' arithmetic (twice a setting, ten times a
 *		count) far from overflow; a server's own figures never reach them.
 */
const char *
ws_advice_check(const WalStallAdviceInput *in)
{
	for (int i = 0; i < ws_advice_nfigures; i++)
	{
		const WalStallAdviceFigure *f = &ws_advice_figures[i];
		double		v = figure_value(f, in);
		double		bound = f->type == WS_FIGURE_INT ? WS_ADVICE_INT_BOUND :
			f->type == WS_FIGURE_INT64 ? WS_ADVICE_INT64_BOUND : WS_ADVICE_DOUBLE_BOUND;

		if (figure_unknown(f, in))
			continue;
		if (!(v >= 0 && v <= bound))
			return f->name;
	}
	return in->readings >= 1 ? NULL : "readings";
}

/* An integer figure, whichever its width. */
static int64_t
get_integer(const WalStallAdviceFigure *f, const void *p)
{
	return f->type == WS_FIGURE_INT ? *(const int *) p : *(const int64_t *) p;
}

static void
set_integer(const WalStallAdviceFigure *f, void *p, int64_t value)
{
	if (f->type == WS_FIGURE_INT)
		*(int *) p = (int) value;
	else
		*(int64_t *) p = value;
}

/* Do a setting's two values agree? */
static bool
same_setting(const WalStallAdviceFigure *f, const void *a, const void *b)
{
	if (f->type == WS_FIGURE_DOUBLE)
		return *(const double *) a == *(const double *) b;
	return get_integer(f, a) == get_integer(f, b);
}

/* Pool one count, time or peak into *into. */
static void
pool_figure(const WalStallAdviceFigure *f, void *into, const void *reading)
{
	bool		max = f->pool == WS_POOL_MAX;

	if (f->type == WS_FIGURE_DOUBLE)
	{
		double	   *a = into;
		double		b = *(const double *) reading;

		/* fmax() takes the number when one side is NaN (unknown) */
		*a = max ? fmax(*a, b) : *a + b;
	}
	else
	{
		int64_t		a = get_integer(f, into);
		int64_t		b = get_integer(f, reading);

		if (max)
			set_integer(f, into, a > b ? a : b);
		else
			set_integer(f, into, f->may_be_unknown && (a < 0 || b < 0) ? -1 : a + b);
	}
}

/*
 * ws_advice_pool
 *		Add one reading's figures to into (advice.h says how each pools).
 *		NULL when pooled, else the name of a setting that differs between
 *		them, into then unchanged.
 */
const char *
ws_advice_pool(WalStallAdviceInput *into, const WalStallAdviceInput *reading)
{
	for (int i = 0; i < ws_advice_nfigures; i++)
	{
		const WalStallAdviceFigure *f = &ws_advice_figures[i];

		if (f->pool == WS_POOL_SAME &&
			!same_setting(f, (const char *) into + f->offset, (const char *) reading + f->offset))
			return f->name;
	}
	for (int i = 0; i < ws_advice_nfigures; i++)
	{
		const WalStallAdviceFigure *f = &ws_advice_figures[i];

		if (f->pool != WS_POOL_SAME)
			pool_figure(f, (char *) into + f->offset, (const char *) reading + f->offset);
	}
	return NULL;
}
