/*
 * Unit tests of the collector's cadence (cadence.h), apart from a server:
 * the choice of the next interval is a pure function of what a tick saw.
 * Prints TAP lines and "N passed, N failed".
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 */
#include <stdio.h>

#include "../../cadence.h"
#define TAP_MAIN
#include "../tap.h"

#define MS	UINT64_C(1000000)

static WalStallTickSeen
quiet_tick(void)
{
	WalStallTickSeen seen = {false, false, false, 0.0};

	return seen;
}

static void
test_quiet(void)
{
	WalStallTickSeen seen = quiet_tick();

	check(ws_tick_is_quiet(&seen), "nothing seen: quiet");
	seen.tracked_wait = true;
	check(!ws_tick_is_quiet(&seen), "a tracked wait: busy");
	seen = quiet_tick();
	seen.episode_open = true;
	check(!ws_tick_is_quiet(&seen), "an open episode: busy");
	seen = quiet_tick();
	seen.process_busy = true;
	check(!ws_tick_is_quiet(&seen), "a process on CPU: busy");
	seen = quiet_tick();
	seen.ring_fill = 0.49;
	check(ws_tick_is_quiet(&seen), "ring at 49%%: quiet");
	seen.ring_fill = 0.5;
	check(!ws_tick_is_quiet(&seen), "ring at 50%%: busy");
	seen.ring_fill = -1;
	check(ws_tick_is_quiet(&seen), "ring unknown (recovery): quiet");
}

static void
test_stretch(void)
{
	uint64_t	interval = MS;
	int			quiet = 0;
	int			ticks_to_idle = 0;
	uint64_t	seen_intervals[32];
	int			n = 0;

	for (int i = 0; i < WS_QUIET_TICKS_BEFORE_REST; i++)
		interval = ws_next_interval(interval, MS, 20 * MS, true, &quiet);
	check(interval == MS, "the first %d quiet ticks keep the base interval",
		  WS_QUIET_TICKS_BEFORE_REST);

	while (interval < 20 * MS && ticks_to_idle < 32)
	{
		interval = ws_next_interval(interval, MS, 20 * MS, true, &quiet);
		seen_intervals[n++] = interval;
		ticks_to_idle++;
	}
	check(n == 5 && seen_intervals[0] == 2 * MS && seen_intervals[1] == 4 * MS &&
		  seen_intervals[2] == 8 * MS && seen_intervals[3] == 16 * MS &&
		  seen_intervals[4] == 20 * MS,
		  "then it doubles step by step: 2, 4, 8, 16, 20 ms (%d steps)", n);
	interval = ws_next_interval(interval, MS, 20 * MS, true, &quiet);
	check(interval == 20 * MS, "and stays at the idle interval");

	interval = ws_next_interval(interval, MS, 20 * MS, false, &quiet);
	check(interval == MS && quiet == 0,
		  "the first busy tick drops straight back to the base interval");
	interval = ws_next_interval(interval, MS, 20 * MS, true, &quiet);
	check(interval == MS && quiet == 1, "and a quiet spell starts over");
}

static void
test_disabled(void)
{
	uint64_t	interval = MS;
	int			quiet = 0;

	for (int i = 0; i < 100; i++)
		interval = ws_next_interval(interval, MS, MS, true, &quiet);
	check(interval == MS, "idle interval = base interval: never rests");
	interval = 5 * MS;
	for (int i = 0; i < 100; i++)
		interval = ws_next_interval(interval, 5 * MS, 2 * MS, true, &quiet);
	check(interval == 5 * MS, "idle interval below base: never rests, never faster");
	interval = MS;
	quiet = 0;
	for (int i = 0; i < 100; i++)
		interval = ws_next_interval(interval, 3 * MS, 20 * MS, true, &quiet);
	check(interval == 20 * MS, "a base of 3 ms stretches to the idle interval too");
	interval = 7 * MS;
	quiet = WS_QUIET_TICKS_BEFORE_REST;
	interval = ws_next_interval(interval, MS, 10 * MS, true, &quiet);
	check(interval == 10 * MS, "capped at the idle interval (7 -> 10, not 14)");
}

static void
test_first_sample(void)
{
	check(ws_histogram_first_sample(20 * MS, MS) == MS,
		  "a first sample weighing a 20 ms rest counts 1 ms in the histogram");
	check(ws_histogram_first_sample(MS / 2, MS) == MS / 2,
		  "a first sample shorter than the interval counts as it is");
	check(ws_histogram_first_sample(MS, MS) == MS, "one interval counts one interval");
}

/* Ten resting seconds in a row: core is read on the tenth, then again ten later. */
static void
test_core_reads(void)
{
	int			unread = 0;
	int			reads = 0;
	int			first_read = -1;

	check(ws_second_reads_core(false, 0), "a second with work reads core");
	check(ws_second_reads_core(false, WS_REST_CORE_READ_SECONDS - 3),
		  "a second with work reads core even soon after a resting one");
	for (int s = 1; s <= 3 * WS_REST_CORE_READ_SECONDS; s++)
	{
		if (ws_second_reads_core(true, unread))
		{
			reads++;
			unread = 0;
			if (first_read < 0)
				first_read = s;
		}
		else
			unread++;
	}
	check(first_read == WS_REST_CORE_READ_SECONDS,
		  "resting, the first read comes on second %d (%d)",
		  WS_REST_CORE_READ_SECONDS, first_read);
	check(reads == 3, "resting %d s reads core 3 times (%d)",
		  3 * WS_REST_CORE_READ_SECONDS, reads);
	check(!ws_second_reads_core(true, 0), "a resting second right after a read does not");
}

int
main(void)
{
	test_core_reads();
	test_quiet();
	test_stretch();
	test_disabled();
	test_first_sample();
	return tap_finish();
}
