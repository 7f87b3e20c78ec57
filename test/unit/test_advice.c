/*
 * Unit tests of wal_stall_advice()'s rules (advice.c) on crafted figures:
 * every rule where it fires and where it must not, thin evidence, caps and
 * rounding.  Prints TAP lines and "N passed, N failed".
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../../advice.h"
#define TAP_MAIN
#include "../tap.h"


/* A 10-minute history of a loaded server whose 32kB ring never filled. */
static WalStallAdviceInput
quiet_server(void)
{
	WalStallAdviceInput in;

	memset(&in, 0, sizeof(in));
	in.server_version = 150000;
	in.readings = 1;
	in.seconds = 600;
	in.history_rows = 600;
	in.xids = 600000;
	in.wal_bytes = (int64_t) 600 * 5 * 1024 * 1024;
	in.peak_wal_bytes_per_sec = 8.0 * 1024 * 1024;
	in.client_seconds = 4 * 600;
	in.write_p99_ms = 1.0;
	in.fsync_p99_ms = 2.0;
	in.write_ms = 200;
	in.fsync_ms = 1000;
	in.clog_hits = -1;
	in.clog_reads = -1;
	in.clog_buffers = 32;
	in.clog_buffers_max = 128;
	in.wal_buffers_bytes = 32 * 1024;
	in.wal_buffers_max_bytes = (int64_t) (2147483647 / 8192) * 8192;
	in.wal_block_size = 8192;
	in.wal_writer_delay_ms = 200;
	in.wal_writer_flush_after_bytes = 1024 * 1024;
	in.max_wal_size_mb = 1024;
	in.checkpoint_timeout_s = 300;
	in.shared_buffers_kb = 128 * 1024;
	return in;
}

/* The quiet server, but its ring was full in 100 of the 600 s, 10 s in all. */
static WalStallAdviceInput
filling_ring_server(void)
{
	WalStallAdviceInput in = quiet_server();

	in.seconds_ring_full = 100;
	in.wrap_ms = 10000;
	return in;
}

/* Rows seen by advise(), and those of them that break the keep rule. */
static int	rows_seen;
static int	rows_inconsistent;

/*
 * ws_advise(), and the rule every row must follow: a row either suggests a
 * value other than the current one, or it is a keep row ("keep: ..."
 * evidence) that suggests the current value.  A row that asks for nothing
 * is never listed as advice.
 */
static int
advise(const WalStallAdviceInput *in, WalStallAdviceRow *rows)
{
	int			n = ws_advise(in, rows, WS_ADVICE_MAX_ROWS);

	for (int i = 0; i < n; i++)
	{
		bool		keep = strncmp(rows[i].evidence, "keep: ", 6) == 0;
		bool		same = rows[i].suggested[0] != '\0' &&
			strcmp(rows[i].suggested, rows[i].current) == 0;

		rows_seen++;
		if (keep != same && strcmp(rows[i].confidence, "none") != 0)
		{
			rows_inconsistent++;
			printf("# %s: current \"%s\", suggested \"%s\", evidence \"%.60s...\"\n",
				   rows[i].setting, rows[i].current, rows[i].suggested, rows[i].evidence);
		}
	}
	return n;
}

static const WalStallAdviceRow *
find(const WalStallAdviceRow *rows, int n, const char *setting)
{
	for (int i = 0; i < n; i++)
		if (strcmp(rows[i].setting, setting) == 0)
			return &rows[i];
	return NULL;
}

/* advise(), then its row for setting (NULL if none); *n gets the row count. */
static const WalStallAdviceRow *
advise_row(const WalStallAdviceInput *in, WalStallAdviceRow *rows, int *n, const char *setting)
{
	*n = advise(in, rows);
	return find(rows, *n, setting);
}

/* A check that row r suggests want; the line names what it got. */
static void
check_suggested(const WalStallAdviceRow *r, const char *want, const char *what)
{
	check(r && strcmp(r->suggested, want) == 0, "%s (%s)", what, r ? r->suggested : "none");
}

static void
test_helpers(void)
{
	char		buf[32];

	check(ws_round_up_pow2(1) == 1 && ws_round_up_pow2(3) == 4 && ws_round_up_pow2(4096) == 4096 &&
		  ws_round_up_pow2(4097) == 8192, "round up to powers of two");
	ws_format_bytes(32768, buf, sizeof(buf));
	check(strcmp(buf, "32kB") == 0, "32768 bytes read 32kB (%s)", buf);
	ws_format_bytes(16 * 1024 * 1024, buf, sizeof(buf));
	check(strcmp(buf, "16MB") == 0, "16MB (%s)", buf);
	ws_format_bytes((int64_t) 1 << 30, buf, sizeof(buf));
	check(strcmp(buf, "1GB") == 0, "1GB (%s)", buf);
}

static void
test_thin_evidence(void)
{
	WalStallAdviceRow rows[WS_ADVICE_MAX_ROWS];
	WalStallAdviceInput in = quiet_server();
	int			n;

	in.seconds = 59;
	in.seconds_ring_full = 50;
	in.wrap_ms = 40000;
	n = advise(&in, rows);
	check(n == 1 && strcmp(rows[0].confidence, "none") == 0 &&
		  strstr(rows[0].evidence, "59 s of history") != NULL,
		  "59 s of history: one row saying so, no guess (%s)", rows[0].evidence);
	check(rows[0].suggested[0] == '\0' && rows[0].current[0] == '\0', "and nothing suggested");

	in = quiet_server();
	in.xids = 0;
	in.wal_bytes = 0;
	n = advise(&in, rows);
	check(n == 1 && strstr(rows[0].evidence, "no load") != NULL, "no load: one row saying so");
}

static void
test_wal_buffers(void)
{
	WalStallAdviceRow rows[WS_ADVICE_MAX_ROWS];
	WalStallAdviceInput in = quiet_server();
	const WalStallAdviceRow *r;
	int			n;

	r = advise_row(&in, rows, &n, "wal_buffers");
	check(r && strcmp(r->suggested, "32kB") == 0 && strncmp(r->evidence, "keep", 4) == 0,
		  "the ring never filled: keep 32kB");

	/* the seeds' case: ring full in 214 of 600 s, 38 MB/s, p99 41 ms */
	in.seconds_ring_full = 214;
	in.wrap_ms = 41200;
	in.client_seconds = 600;
	in.peak_wal_bytes_per_sec = 38.0 * 1024 * 1024;
	in.write_p99_ms = 1.0;
	in.fsync_p99_ms = 40.0;
	in.wal_buffers_bytes = 16 * 1024 * 1024;
	r = advise_row(&in, rows, &n, "wal_buffers");
	/* 38 MB/s x 41 ms = 1.56 MB, x2 = 3.1 MB -> 4MB; but at least 2 x 16MB */
	check_suggested(r, "32MB", "a filling 16MB ring whose need is below it: at least twice it, 32MB");
	check(r && strcmp(r->confidence, "high") == 0, "ring full in a third of the seconds, 6.9%% of client time: high");
	check(r && strstr(r->evidence, "ring full in 214 of 600 s") && strstr(r->evidence, "6.9% of client time") &&
		  strstr(r->evidence, "38.0 MB/s x 41.0 ms = 1.6 MB"), "the evidence states the numbers: %s", r ? r->evidence : "");

	in.wal_buffers_bytes = 32 * 1024;
	in.peak_wal_bytes_per_sec = 100.0 * 1024 * 1024;
	r = advise_row(&in, rows, &n, "wal_buffers");
	/* 100 MB/s x 41 ms = 4.1 MB, x2 = 8.2 MB -> 16MB */
	check_suggested(r, "16MB", "100 MB/s x 41 ms x 2 rounds up to 16MB");

	in.peak_wal_bytes_per_sec = 1e12;
	r = advise_row(&in, rows, &n, "wal_buffers");
	check_suggested(r, "1GB", "capped at the largest power of two allowed, 1GB");

	in.wal_buffers_bytes = (int64_t) 1 << 30;
	r = advise_row(&in, rows, &n, "wal_buffers");
	check(r && strcmp(r->suggested, "1GB") == 0 && strncmp(r->evidence, "keep: ", 6) == 0 &&
		  strstr(r->evidence, "largest power of two"),
		  "already at the cap: a keep row that says why (%s)", r ? r->evidence : "none");

	in = quiet_server();
	in.seconds_ring_full = 1;
	in.wrap_ms = 3;
	r = advise_row(&in, rows, &n, "wal_buffers");
	check(r && strcmp(r->confidence, "low") == 0 && strcmp(r->suggested, "64kB") == 0,
		  "one full second: twice the ring, low confidence (%s, %s)", r ? r->suggested : "", r ? r->confidence : "");

	in.write_p99_ms = NAN;
	in.fsync_p99_ms = NAN;
	r = advise_row(&in, rows, &n, "wal_buffers");
	check(r && strstr(r->evidence, "need is unknown"), "no I/O sampled: the need is said to be unknown");

	{
		int			doubled = 0;
		int			sizes = 0;

		for (int64_t cur = 32 * 1024; cur <= ((int64_t) 512 << 20); cur *= 2, sizes++)
		{
			char		want[32];

			in = filling_ring_server();
			in.wal_buffers_bytes = cur;
			in.peak_wal_bytes_per_sec = 1.0;	/* a need far below any ring */
			r = advise_row(&in, rows, &n, "wal_buffers");
			ws_format_bytes(cur * 2, want, sizeof(want));
			doubled += (r && strcmp(r->suggested, want) == 0);
		}
		check(doubled == sizes, "every filling ring from 32kB to 512MB: twice its size (%d of %d)",
			  doubled, sizes);
	}
	in = filling_ring_server();
	in.peak_wal_bytes_per_sec = 1.0;
	in.wal_buffers_bytes = 4 * 1024 * 1024;
	r = advise_row(&in, rows, &n, "wal_buffers");
	check_suggested(r, "8MB", "never lower than the current ring, even when the need is tiny");
}

static void
test_wal_writer(void)
{
	WalStallAdviceRow rows[WS_ADVICE_MAX_ROWS];
	WalStallAdviceInput in = filling_ring_server();
	const WalStallAdviceRow *r;
	int			n;

	in.wrap_ms_writer_asleep = 9000;
	in.wal_buffers_bytes = 1024 * 1024;
	in.peak_wal_bytes_per_sec = 40.0 * 1024 * 1024;	/* fills 1MB in 25 ms */
	r = advise_row(&in, rows, &n, "wal_writer_delay");
	check(r && strcmp(r->current, "200ms") == 0 && strcmp(r->suggested, "12ms") == 0,
		  "90%% of the wrap-around while the writer slept, ring fills in 25 ms: wal_writer_delay 12ms (%s)",
		  r ? r->suggested : "none");

	check(r && strstr(r->evidence, "wal_writer_flush_after") == NULL,
		  "on 15 the evidence does not speak of wal_writer_flush_after");

	/* 18: commits wake the writer only once wal_writer_flush_after waits */
	in.server_version = 180000;
	in.wal_buffers_bytes = 32 * 1024;
	in.peak_wal_bytes_per_sec = 4.0 * 1024 * 1024;	/* fills 32kB in 7.8 ms */
	r = advise_row(&in, rows, &n, "wal_writer_delay");
	check(r && strstr(r->evidence, "wal_writer_flush_after (1MB) of WAL waits, more than the 32kB ring holds"),
		  "on 18 with a 32kB ring under a 1MB wal_writer_flush_after, the evidence says the writer is not woken (%s)",
		  r ? r->evidence : "no row");
	in.wal_writer_flush_after_bytes = 0;
	r = advise_row(&in, rows, &n, "wal_writer_delay");
	check(r && strstr(r->evidence, "wal_writer_flush_after") == NULL,
		  "with wal_writer_flush_after 0 it does not");
	in.server_version = 150000;
	in.wal_writer_flush_after_bytes = 1024 * 1024;
	in.wal_buffers_bytes = 1024 * 1024;
	in.peak_wal_bytes_per_sec = 40.0 * 1024 * 1024;

	in.wrap_ms_writer_asleep = 2000;
	n = advise(&in, rows);
	check(find(rows, n, "wal_writer_delay") == NULL, "20%% while it slept: no wal_writer_delay row");

	in.wrap_ms_writer_asleep = 9000;
	in.wal_writer_delay_ms = 10;
	n = advise(&in, rows);
	check(find(rows, n, "wal_writer_delay") == NULL,
		  "the writer already wakes faster than half the fill time: no row");
}

static void
test_checkpoints(void)
{
	WalStallAdviceRow rows[WS_ADVICE_MAX_ROWS];
	WalStallAdviceInput in = filling_ring_server();
	const WalStallAdviceRow *r;
	int			n;

	in.checkpoints = 5;			/* every 120 s */
	in.checkpoints_timed = 0;
	in.seconds_after_checkpoint = 150;
	in.wrap_ms_after_checkpoint = 8000;
	r = advise_row(&in, rows, &n, "max_wal_size");
	check(r && strcmp(r->suggested, "2048MB") == 0,
		  "80%% of wrap-around in post-checkpoint windows, WAL-driven checkpoints every 120 s: max_wal_size 2048MB");
	in.checkpoints_timed = 5;
	r = advise_row(&in, rows, &n, "checkpoint_timeout");
	check(r && strcmp(r->suggested, "600s") == 0, "timed ones: checkpoint_timeout 600s");
	in.checkpoints = 1;			/* one in 600 s: not often */
	n = advise(&in, rows);
	check(find(rows, n, "checkpoint_timeout") == NULL && find(rows, n, "max_wal_size") == NULL,
		  "a checkpoint every 600 s is not often: no row");
	in.checkpoints = 5;
	in.wrap_ms_after_checkpoint = 2500;	/* 16.7 ms/s after, 16.4 elsewhere */
	n = advise(&in, rows);
	check(find(rows, n, "checkpoint_timeout") == NULL, "stalls spread evenly: no row");
}

static void
test_clog(void)
{
	WalStallAdviceRow rows[WS_ADVICE_MAX_ROWS];
	WalStallAdviceInput in = quiet_server();
	const WalStallAdviceRow *r;
	int			n;

	in.clog_hits = 999900;
	in.clog_reads = 100;
	r = advise_row(&in, rows, &n, "CLOG buffers (shared_buffers)");
	check(r && strncmp(r->evidence, "keep", 4) == 0, "99.99%% hits: keep (%s)", r ? r->evidence : "none");

	/* half the lookups miss, but clients waited 1 s of their 2,400 */
	in.clog_hits = 5000;
	in.clog_reads = 5000;
	in.clog_lock_ms = 1000;
	r = advise_row(&in, rows, &n, "CLOG buffers (shared_buffers)");
	check(r && strncmp(r->evidence, "keep", 4) == 0 && strstr(r->evidence, "save little") &&
		  find(rows, n, "shared_buffers") == NULL,
		  "50%% hits, CLOG lock waits 0.04%% of client time: keep (%s)", r ? r->evidence : "none");

	/* 0.5% of client time: worth more buffers, not with confidence */
	in.clog_lock_ms = 12000;
	r = advise_row(&in, rows, &n, "shared_buffers");
	check(r && strcmp(r->confidence, "medium") == 0,
		  "50%% hits, lock waits 0.5%% of client time: more buffers, medium confidence (%s)",
		  r ? r->confidence : "none");

	/* 2% of client time */
	in.clog_lock_ms = 48000;
	r = advise_row(&in, rows, &n, "shared_buffers");
	check(r && strcmp(r->suggested, "256MB (64 CLOG buffers)") == 0 && strcmp(r->confidence, "high") == 0,
		  "15, 50%% hits, 32 buffers at 128MB: shared_buffers 256MB for 64 (%s)", r ? r->suggested : "none");
	check(r && strstr(r->evidence, "only lever"), "and it says shared_buffers is the only lever before 17");

	in.clog_buffers = 128;
	r = advise_row(&in, rows, &n, "CLOG buffers (shared_buffers)");
	check(r && find(rows, n, "shared_buffers") == NULL && strcmp(r->suggested, "128 buffers") == 0 &&
		  strncmp(r->evidence, "keep: ", 6) == 0 && strstr(r->evidence, "most this version allows"),
		  "15 at 128 buffers: nothing to ask for, so a keep row that says why (%s)",
		  r ? r->evidence : "none");

	in.server_version = 170000;
	in.clog_buffers = 40;
	in.clog_buffers_max = 131072;
	r = advise_row(&in, rows, &n, "transaction_buffers");
	check_suggested(r, "80", "17: transaction_buffers 80, a multiple of 16");
	in.clog_buffers = 50;
	r = advise_row(&in, rows, &n, "transaction_buffers");
	check_suggested(r, "112", "17: 2 x 50 rounds up to 112");

	/* the span the tuples can ask about: 96 pages and the one being filled */
	in.clog_buffers = 16;
	in.clog_span_pages = 96;
	in.clog_lock_ms = 0;
	in.clog_slru_io_ms = 48000;
	r = advise_row(&in, rows, &n, "transaction_buffers");
	check_suggested(r, "112", "17: a span of 96 CLOG pages needs 97 buffers, 112 in banks of 16");
	check(r && strstr(r->evidence, "96 CLOG pages") && strstr(r->evidence, "SLRU I/O"),
		  "and the evidence names the span and the SLRU I/O waits (%s)", r ? r->evidence : "none");
	in.clog_slru_io_ms = 100;
	r = advise_row(&in, rows, &n, "transaction_buffers");
	check(r && strncmp(r->evidence, "keep", 4) == 0 && strstr(r->evidence, "save little"),
		  "SLRU I/O waits of 0.004%% of client time: keep (%s)", r ? r->evidence : "none");
	in.clog_slru_io_ms = 48000;
	in.clog_buffers = 128;
	r = advise_row(&in, rows, &n, "transaction_buffers");
	check_suggested(r, "256", "17: 128 buffers hold the span already: twice them");
}

static void
test_storage(void)
{
	WalStallAdviceRow rows[WS_ADVICE_MAX_ROWS];
	WalStallAdviceInput in = filling_ring_server();
	const WalStallAdviceRow *r;
	int			n;

	in.flush_ms = 2000;
	in.client_seconds = 600;	/* 12 s of stalls: 2% of client time */
	in.fsync_ms = 9000;
	in.fsync_p99_ms = 79.0;
	in.wal_buffers_bytes = 1024 * 1024;
	in.peak_wal_bytes_per_sec = 10.0 * 1024 * 1024;	/* fills in 100 ms */
	r = advise_row(&in, rows, &n, "storage (WAL device)");
	check(r && strcmp(r->suggested, "write+fsync p99 under 50.0 ms") == 0 &&
		  strcmp(r->current, "write+fsync p99 80.0 ms") == 0 && strstr(r->evidence, "wal_stall_test_fsync"),
		  "WAL I/O dominates: a storage row pointing at wal_stall_test_fsync() (%s)", r ? r->suggested : "none");
	check(r && strncmp(r->evidence, "keep", 4) != 0, "and it is advice, not a keep row");

	/*
	 * The device already meets what the row would ask: a 16MB ring filling
	 * at 37.5 MB/s takes 426.7 ms, half of that is 213.3 ms, and the p99
	 * write+fsync is 5.3 ms.  Not advice: a keep row.
	 */
	in.write_p99_ms = 1.3;
	in.fsync_p99_ms = 4.0;
	in.wal_buffers_bytes = 16 * 1024 * 1024;
	in.peak_wal_bytes_per_sec = 37.5 * 1024 * 1024;
	r = advise_row(&in, rows, &n, "storage (WAL device)");
	check(r && strcmp(r->current, "write+fsync p99 5.3 ms") == 0 &&
		  strcmp(r->suggested, r->current) == 0 && strncmp(r->evidence, "keep: ", 6) == 0,
		  "p99 write+fsync 5.3 ms, the ring fills in 426.7 ms: keep, not \"under 213.3 ms\" as advice (%s | %s)",
		  r ? r->suggested : "none", r ? r->evidence : "");
	in.write_p99_ms = 1.0;
	in.wal_buffers_bytes = 1024 * 1024;
	in.peak_wal_bytes_per_sec = 10.0 * 1024 * 1024;

	in.fsync_p99_ms = 2.0;
	n = advise(&in, rows);
	check(find(rows, n, "storage (WAL device)") == NULL, "fast writes and fsyncs (3 ms): no storage row");
	in.fsync_p99_ms = 79.0;
	in.fsync_ms = 1000;
	in.write_ms = 8000;
	n = advise(&in, rows);
	check(find(rows, n, "storage (WAL device)") != NULL,
		  "slow writes (a bandwidth limit) count as much as slow fsyncs");
	in.write_ms = 200;
	in.fsync_p99_ms = 79.0;
	in.fsync_ms = 1000;
	n = advise(&in, rows);
	check(find(rows, n, "storage (WAL device)") == NULL, "fsyncs a small part of the stalls: no storage row");
	in.fsync_ms = 9000;
	in.wrap_ms = 10;
	in.flush_ms = 0;
	n = advise(&in, rows);
	check(find(rows, n, "storage (WAL device)") == NULL,
		  "clients hardly stalled (10 ms in 2400 client-seconds): no storage row, however slow the fsyncs");
}

/* The figures of a reading, scaled in time: 600 s of the server times share. */
static WalStallAdviceInput
part_of(WalStallAdviceInput in, double share)
{
	in.seconds *= share;
	in.history_rows = (int) (in.history_rows * share);
	in.xids = (int64_t) (in.xids * share);
	in.wal_bytes = (int64_t) (in.wal_bytes * share);
	in.client_seconds *= share;
	in.seconds_ring_full = (int) (in.seconds_ring_full * share);
	in.wrap_ms *= share;
	in.write_ms *= share;
	in.fsync_ms *= share;
	return in;
}

/*
 * Every figure of WalStallAdviceInput is in ws_advice_figures, laid end to
 * end: a field added to the struct and not to the table leaves a gap that
 * padding cannot explain.
 */
static void
test_figures_table(void)
{
	size_t		end = 0;
	bool		tiled = true;

	check(ws_advice_nfigures <= WS_ADVICE_MAX_FIGURES, "%d figures fit WS_ADVICE_MAX_FIGURES",
		  ws_advice_nfigures);
	for (int i = 0; i < ws_advice_nfigures; i++)
	{
		const WalStallAdviceFigure *f = &ws_advice_figures[i];
		size_t		size = f->type == WS_FIGURE_INT ? sizeof(int) : 8;
		size_t		aligned = (end + size - 1) / size * size;

		if (f->offset != aligned)
		{
			tiled = false;
			printf("# %s at offset %zu, expected %zu\n", f->name, f->offset, aligned);
		}
		end = f->offset + size;
	}
	check(tiled && (end + 7) / 8 * 8 == sizeof(WalStallAdviceInput),
		  "the figures cover WalStallAdviceInput in order (%zu of %zu bytes)", end,
		  sizeof(WalStallAdviceInput));
}

static void
test_pooling(void)
{
	WalStallAdviceRow rows[WS_ADVICE_MAX_ROWS];
	WalStallAdviceInput whole = filling_ring_server();
	WalStallAdviceInput pooled = part_of(whole, 0.05);
	WalStallAdviceInput reading = pooled;
	const WalStallAdviceRow *r;
	int			n,
				refused = 0;

	/* one 30 s reading is too short; twenty of them pooled are not */
	n = advise(&pooled, rows);
	check(n == 1 && strstr(rows[0].evidence, "30 s of history since the last reset") != NULL,
		  "one 30 s reading: too little evidence (%s)", rows[0].evidence);
	for (int i = 1; i < 20; i++)
		refused += ws_advice_pool(&pooled, &reading) != NULL;
	check(refused == 0 && pooled.readings == 20 && pooled.seconds == 600 && pooled.history_rows == 600 &&
		  pooled.seconds_ring_full == 100 && pooled.wrap_ms == 10000 && pooled.xids == 600000,
		  "twenty readings add up: %d readings, %.0f s, %d rows, %d full, %.0f ms", pooled.readings,
		  pooled.seconds, pooled.history_rows, pooled.seconds_ring_full, pooled.wrap_ms);
	r = advise_row(&pooled, rows, &n, "wal_buffers");
	{
		WalStallAdviceRow once[WS_ADVICE_MAX_ROWS];
		const WalStallAdviceRow *w = advise_row(&whole, once, &n, "wal_buffers");

		check(r && w && strcmp(r->suggested, w->suggested) == 0 && strcmp(r->evidence, w->evidence) == 0,
			  "pooled, they get the advice of the whole 600 s: %s (%s)", r ? r->suggested : "none",
			  r ? r->evidence : "none");
	}

	/* too short even pooled: the row says how many readings */
	pooled = reading = part_of(whole, 0.05 / 1.5);
	ws_advice_pool(&pooled, &reading);
	n = advise(&pooled, rows);
	check(n == 1 && strstr(rows[0].evidence, "40 s of history in 2 readings pooled") != NULL,
		  "two 20 s readings: too little evidence, pooled (%s)", rows[0].evidence);
	reading = part_of(whole, 0.05);

	/* peaks and tails take the largest; an unknown tail is ignored */
	pooled = reading;
	reading.peak_wal_bytes_per_sec = 20.0 * 1024 * 1024;
	reading.fsync_p99_ms = NAN;
	reading.write_p99_ms = 7.5;
	reading.clog_span_pages = 3;
	ws_advice_pool(&pooled, &reading);
	check(pooled.peak_wal_bytes_per_sec == 20.0 * 1024 * 1024 && pooled.write_p99_ms == 7.5 &&
		  pooled.fsync_p99_ms == 2.0 && pooled.clog_span_pages == 3,
		  "peak, p99 and span: the largest reading's, NaN ignored (%.1f ms, %.1f ms)",
		  pooled.write_p99_ms, pooled.fsync_p99_ms);

	/* an unknown count makes an unknown sum */
	pooled = reading;
	pooled.clog_hits = 500;
	pooled.clog_reads = 20;
	reading.clog_hits = -1;
	reading.clog_reads = 30;
	ws_advice_pool(&pooled, &reading);
	check(pooled.clog_hits == -1 && pooled.clog_reads == 50, "CLOG hits unknown in one: unknown; "
		  "reads add up (%lld, %lld)", (long long) pooled.clog_hits, (long long) pooled.clog_reads);

	/* the range the rules work on: unknowns where they may be, bounds */
	reading = part_of(whole, 0.5);
	check(ws_advice_check(&reading) == NULL, "a server's figures are in range");
	reading.write_p99_ms = NAN;
	reading.clog_hits = -1;
	check(ws_advice_check(&reading) == NULL, "an unknown p99 or CLOG count is allowed");
	reading.wrap_ms = NAN;
	check(ws_advice_check(&reading) && strcmp(ws_advice_check(&reading), "wrap_ms") == 0,
		  "an unknown wrap-around time is not");
	reading = part_of(whole, 0.5);
	reading.wal_buffers_bytes = INT64_MAX;
	check(ws_advice_check(&reading) && strcmp(ws_advice_check(&reading), "wal_buffers_bytes") == 0,
		  "a ring of 2^63 bytes is out of range");
	reading = part_of(whole, 0.5);
	reading.seconds = INFINITY;
	check(ws_advice_check(&reading) && strcmp(ws_advice_check(&reading), "seconds") == 0,
		  "infinite seconds are out of range");
	reading = part_of(whole, 0.5);
	reading.readings = 0;
	check(ws_advice_check(&reading) && strcmp(ws_advice_check(&reading), "readings") == 0,
		  "no reading at all is out of range");
	reading = part_of(whole, 0.5);
	reading.seconds_ring_full = (int) WS_ADVICE_INT_BOUND;
	pooled = reading;
	ws_advice_pool(&pooled, &reading);
	check(ws_advice_check(&pooled) && strcmp(ws_advice_check(&pooled), "seconds_ring_full") == 0,
		  "two readings at the bound pool out of range, without overflow (%d)", pooled.seconds_ring_full);
	reading = part_of(whole, 0.5);
	reading.wal_buffers_max_bytes = (int64_t) WS_ADVICE_INT64_BOUND;
	reading.peak_wal_bytes_per_sec = WS_ADVICE_DOUBLE_BOUND;
	reading.write_p99_ms = WS_ADVICE_DOUBLE_BOUND;
	reading.seconds = 600;
	n = advise(&reading, rows);
	check(n > 0 && ws_advice_check(&reading) == NULL,
		  "figures at their bounds: advice without overflow (%d rows)", n);

	/* a setting that differs: refused, nothing pooled */
	pooled = part_of(whole, 0.5);
	reading = pooled;
	reading.wal_buffers_bytes = 1024 * 1024;
	{
		const char *differs = ws_advice_pool(&pooled, &reading);

		check(differs != NULL && strcmp(differs, "wal_buffers_bytes") == 0 && pooled.readings == 1 &&
			  pooled.seconds == 300, "another wal_buffers: refused by name (%s), nothing pooled",
			  differs ? differs : "pooled");
	}
}

int
main(void)
{
	test_helpers();
	test_thin_evidence();
	test_wal_buffers();
	test_wal_writer();
	test_checkpoints();
	test_clog();
	test_storage();
	test_figures_table();
	test_pooling();
	check(rows_inconsistent == 0,
		  "every row suggests a change, or is a keep row suggesting the current value (%d of %d rows not)",
		  rows_inconsistent, rows_seen);
	return tap_finish();
}
