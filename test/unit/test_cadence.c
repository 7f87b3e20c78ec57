/*
 * Unit tests of the collector's cadence (cadence.h), apart from a server:
 * the choice of the next interval is a pure function of what a tick saw.
 * Prints TAP lines and "N passed, N failed".
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

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

/* A tick under load: a process at work, nothing in a tracked wait. */
static WalStallTickSeen
busy_tick(void)
{
	WalStallTickSeen seen = {false, false, true, 0.1};

	return seen;
}

/* 1 ms behind, inserting bytes_per_ms, on a ring of ring bytes. */
static WalStallLoadSeen
load(uint64_t bytes_per_ms, uint64_t ring)
{
	WalStallLoadSeen l = {bytes_per_ms, MS, ring};

	return l;
}

static void
test_load_may_rest(void)
{
	WalStallTickSeen seen = busy_tick();
	WalStallLoadSeen l = load(0, 16 << 20);

	check(ws_load_may_rest(&seen, &l, 10 * MS), "select-only load on 16MB: may rest 10 ms");
	seen.tracked_wait = true;
	check(!ws_load_may_rest(&seen, &l, 10 * MS), "a tracked wait: no rest");
	seen = busy_tick();
	seen.episode_open = true;
	check(!ws_load_may_rest(&seen, &l, 10 * MS), "an open episode: no rest");
	seen = busy_tick();
	seen.ring_fill = 0.5;
	check(!ws_load_may_rest(&seen, &l, 10 * MS), "ring half full: no rest");
	seen.ring_fill = -1;
	check(ws_load_may_rest(&seen, &l, 10 * MS), "recovery (ring unknown, nothing inserted): may rest");
	seen = busy_tick();

	/* 16MB ring, a 10 ms rest: up to 16MB / 8 = 2MB in 10 ms */
	l = load(((16 << 20) / WS_LOAD_REST_RING_RESTS) / 10, 16 << 20);
	check(ws_load_may_rest(&seen, &l, 10 * MS), "16MB ring at 1/8 of it per rest: may rest");
	l.inserted_bytes++;
	check(!ws_load_may_rest(&seen, &l, 10 * MS), "one byte a ms more: no rest");
	check(ws_load_may_rest(&seen, &l, 2 * MS), "but a 2 ms rest fits");

	/* 32kB ring: 4 kB per rest at most, 400 bytes a ms for 10 ms */
	l = load(8192, 32 << 10);
	check(!ws_load_may_rest(&seen, &l, 2 * MS), "32kB ring, a page a ms: never rests");
	l = load(400, 32 << 10);
	check(ws_load_may_rest(&seen, &l, 10 * MS), "32kB ring, 400 B a ms (one small commit): may rest");

	/* the rate is per elapsed time: 16 kB over a 10 ms rest is 1.6 kB a ms */
	l = load(16 << 10, 1 << 20);
	l.elapsed_ns = 10 * MS;
	check(ws_load_may_rest(&seen, &l, 10 * MS), "16 kB in 10 ms on 1MB: may rest 10 ms");
	l.elapsed_ns = MS;
	check(!ws_load_may_rest(&seen, &l, 10 * MS), "16 kB in 1 ms on 1MB: no rest");
	l = load(0, 1 << 20);
	l.elapsed_ns = 0;
	check(ws_load_may_rest(&seen, &l, 10 * MS), "no time and no WAL: may rest");
	l.inserted_bytes = 1;
	check(!ws_load_may_rest(&seen, &l, 10 * MS), "no time but some WAL: no rest");
	l = load(0, 0);
	check(!ws_load_may_rest(&seen, &l, 10 * MS), "ring size unknown: no rest");
}

/*
 * After a wait, as the collector calls it: a tracked wait (or an open
 * episode) at one tick, then quiet ticks under load, each choosing from the
 * interval just chosen.  Returns how many quiet ticks chose the base
 * interval before the first rest, and sets *first to that rest.
 */
static int
base_ticks_after_wait(bool open_episode, uint64_t *first)
{
	WalStallTickSeen seen = busy_tick();
	WalStallLoadSeen l = load(0, 16 << 20);
	uint64_t	interval = 10 * MS;
	int			quiet = 50;
	int			n = 0;

	if (open_episode)
		seen.episode_open = true;
	else
		seen.tracked_wait = true;
	interval = ws_choose_interval(interval, MS, 100 * MS, &seen, &l, &quiet);
	seen = busy_tick();
	while (n < 100)
	{
		interval = ws_choose_interval(interval, MS, 100 * MS, &seen, &l, &quiet);
		if (interval > MS)
			break;
		n++;
	}
	*first = interval;
	return n;
}

static void
test_load_rest_after_wait(void)
{
	uint64_t	first;
	int			n;

	n = base_ticks_after_wait(false, &first);
	check(n == WS_QUIET_TICKS_BEFORE_REST && first == 2 * MS,
		  "after a tracked wait under load: %d ticks at 1 ms, then 2 ms (%d, then %.0f ms)",
		  WS_QUIET_TICKS_BEFORE_REST, n, (double) first / MS);
	n = base_ticks_after_wait(true, &first);
	check(n == WS_QUIET_TICKS_BEFORE_REST && first == 2 * MS,
		  "after an episode closed under load: %d ticks at 1 ms, then 2 ms (%d, then %.0f ms)",
		  WS_QUIET_TICKS_BEFORE_REST, n, (double) first / MS);
}

static void
test_load_stretch(void)
{
	WalStallTickSeen seen = busy_tick();
	WalStallLoadSeen l = load(0, 16 << 20);
	WalStallTickSeen idle = quiet_tick();
	uint64_t	interval = MS;
	int			quiet = 0;
	int			n = 0;
	uint64_t	steps[8];

	for (int i = 0; i < WS_QUIET_TICKS_BEFORE_REST; i++)
		interval = ws_choose_interval(interval, MS, 100 * MS, &seen, &l, &quiet);
	check(interval == MS, "under load the first %d quiet ticks keep 1 ms",
		  WS_QUIET_TICKS_BEFORE_REST);
	while (n < 8)
	{
		interval = ws_choose_interval(interval, MS, 100 * MS, &seen, &l, &quiet);
		steps[n++] = interval;
	}
	check(steps[0] == 2 * MS && steps[1] == 4 * MS && steps[2] == 8 * MS &&
		  steps[3] == 10 * MS && steps[7] == 10 * MS,
		  "then 2, 4, 8, 10 ms and no further under load (%d intervals)",
		  WS_LOAD_REST_MAX_INTERVALS);

	seen.tracked_wait = true;
	interval = ws_choose_interval(interval, MS, 100 * MS, &seen, &l, &quiet);
	check(interval == MS && quiet == 0, "the first tracked wait: straight back to 1 ms");
	seen.tracked_wait = false;
	interval = ws_choose_interval(interval, MS, 100 * MS, &seen, &l, &quiet);
	check(interval == MS, "and no rest right after it");

	/* resting under load, the insert rate climbs: back to 1 ms at once */
	l = load(0, 16 << 20);
	interval = 10 * MS;
	quiet = 50;
	l.inserted_bytes = 5 << 20;
	l.elapsed_ns = 10 * MS;
	interval = ws_choose_interval(interval, MS, 100 * MS, &seen, &l, &quiet);
	check(interval == MS && quiet == 0,
		  "5MB in a 10 ms rest on 16MB: a wrap is possible within a rest, 1 ms");

	/* from an idle rest to work: down to the load cap, not further */
	interval = ws_choose_interval(MS, MS, 100 * MS, &idle, &l, &quiet);
	quiet = 50;
	interval = 100 * MS;
	interval = ws_choose_interval(interval, MS, 100 * MS, &idle, &l, &quiet);
	check(interval == 100 * MS, "idle: the idle rest (100 ms) as before");
	l = load(0, 16 << 20);
	interval = ws_choose_interval(interval, MS, 100 * MS, &seen, &l, &quiet);
	check(interval == 10 * MS, "work without WAL after an idle rest: 10 ms");
	l = load(8192, 32 << 10);
	interval = ws_choose_interval(interval, MS, 100 * MS, &seen, &l, &quiet);
	check(interval == MS, "write load on a 32kB ring: 1 ms");
	for (int i = 0; i < 100; i++)
		interval = ws_choose_interval(interval, MS, 100 * MS, &seen, &l, &quiet);
	check(interval == MS, "and it never rests there");

	/* the load cap follows the base interval and stays within idle_interval */
	l = load(0, 16 << 20);
	quiet = 50;
	interval = ws_choose_interval(40 * MS, 5 * MS, 100 * MS, &seen, &l, &quiet);
	check(interval == 50 * MS, "base 5 ms: rests up to 50 ms under load");
	quiet = 50;
	interval = ws_choose_interval(10 * MS, MS, 4 * MS, &seen, &l, &quiet);
	check(interval == 4 * MS, "idle_interval 4 ms caps the load rest too");
	quiet = 50;
	interval = ws_choose_interval(MS, MS, MS, &seen, &l, &quiet);
	check(interval == MS, "idle_interval = sample_interval: no rest under load either");
}

/* The adaptive period's classes: nothing seen yet, nothing open. */
#define NCLASSES	3

static void
no_episodes(WalStallClassLengths *classes)
{
	memset(classes, 0, sizeof(WalStallClassLengths) * NCLASSES);
	for (int c = 0; c < NCLASSES; c++)
	{
		classes[c].youngest_open_ns = WS_PERIOD_NONE_OPEN;
		classes[c].youngest_counted_open_ns = WS_PERIOD_NONE_OPEN;
	}
}

/* n closed episodes of length_ns in a class, counted against base 1 ms */
static void
closed(WalStallClassLengths *lengths, int n, uint64_t length_ns)
{
	for (int i = 0; i < n; i++)
		ws_period_note_episode(lengths, length_ns, MS);
}

/* The period the rule settles at from 1 ms, one doubling a tick. */
static uint64_t
settled_period(const WalStallClassLengths *classes, uint64_t max_ns)
{
	uint64_t	period = MS;

	for (int tick = 0; tick < 16; tick++)
		period = ws_choose_period(period, MS, max_ns, classes, NCLASSES);
	return period;
}

static void
test_period_short_class(void)
{
	WalStallClassLengths classes[NCLASSES];

	/* a 32kB ring's wrap-arounds: about 1 ms each, hundreds a second */
	no_episodes(classes);
	closed(&classes[0], 300, MS);
	check(settled_period(classes, 8 * MS) == MS,
		  "a class of 1 ms episodes keeps the period at 1 ms");
	classes[0].youngest_open_ns = 400 * MS;
	check(settled_period(classes, 8 * MS) == MS,
		  "... even while one of its episodes has lasted 400 ms");
	classes[0].youngest_open_ns = WS_PERIOD_NONE_OPEN;
	closed(&classes[1], 1, 3 * 1000 * MS);
	check(settled_period(classes, 8 * MS) == MS,
		  "... even beside a class of 3 s episodes (300 of 3,300 ms)");

	/* wrap-arounds of 1 to 3 ms, seen by one to three samples */
	no_episodes(classes);
	closed(&classes[0], 100, MS);
	closed(&classes[0], 100, 2 * MS);
	closed(&classes[0], 50, 3 * MS);
	closed(&classes[1], 1, 3 * 1000 * MS);
	check(settled_period(classes, 8 * MS) == MS,
		  "a class of 1-3 ms episodes beside 3 s ones (450 of 3,450 ms): 1 ms");

	/* the short class is between episodes: none open, recent ones short */
	no_episodes(classes);
	closed(&classes[0], 300, MS);
	closed(&classes[1], 2, 2000 * MS);
	classes[1].youngest_open_ns = 1500 * MS;
	check(ws_choose_period(4 * MS, MS, 8 * MS, classes, NCLASSES) == MS,
		  "from 4 ms: a short class between its episodes brings it back to 1 ms at once");

	/* sampled at 4 ms, waits shorter than 4 ms are one sample: 4 ms each */
	no_episodes(classes);
	for (int i = 0; i < 20; i++)
		ws_period_note_episode(&classes[0], 4 * MS, MS);
	check(ws_choose_period(4 * MS, MS, 8 * MS, classes, NCLASSES) == 2 * MS,
		  "one-sample episodes at 4 ms (4 ms each): down to 2 ms at once");

	/* the time, not the number, of short episodes decides: half of it */
	no_episodes(classes);
	closed(&classes[0], 80, MS);
	closed(&classes[0], 10, 8 * MS);
	check(settled_period(classes, 8 * MS) == 4 * MS,
		  "80 waits of 1 ms beside 10 of 8 ms (80 of 160 ms short): 4 ms");
	closed(&classes[0], 1, MS);
	check(settled_period(classes, 8 * MS) == MS,
		  "one more of 1 ms (81 of 161 ms short): 1 ms");
}

/* A 32kB ring's wrap-arounds on a slow disk: p50 about 4 ms, p95 19 ms. */
static void
wrap_arounds(WalStallClassLengths *lengths, int times)
{
	for (int i = 0; i < times; i++)
	{
		closed(lengths, 20, MS);
		closed(lengths, 15, 2 * MS);
		closed(lengths, 20, 4 * MS);
		closed(lengths, 20, 7 * MS);
		closed(lengths, 15, 14 * MS);
		closed(lengths, 10, 40 * MS);
	}
}

static void
test_period_wrap_around_class(void)
{
	WalStallClassLengths classes[NCLASSES];

	/* by their time such waits are long: most of it is in the long ones */
	no_episodes(classes);
	wrap_arounds(&classes[0], 3);
	check(settled_period(classes, 8 * MS) == 4 * MS,
		  "wrap-around lengths in a class judged by time: 4 ms (31 per cent of it under 8 ms)");
	/* a wrap-around class is judged by their number: 1 ms */
	no_episodes(classes);
	classes[0].by_count = true;
	wrap_arounds(&classes[0], 3);
	check(settled_period(classes, 8 * MS) == MS,
		  "the same in the wrap-around class: 1 ms");
	/* even as a sliver of the time beside long commit waits */
	closed(&classes[1], 1000, 50 * MS);
	check(settled_period(classes, 8 * MS) == MS,
		  "... even with 1,980 ms of 51,980 (1/26): 1 ms");
	check(ws_choose_period(8 * MS, MS, 8 * MS, classes, NCLASSES) == MS,
		  "... and from 8 ms back to 1 ms at once");

	/* one short episode in 16 is tolerated, two are not */
	no_episodes(classes);
	classes[0].by_count = true;
	closed(&classes[0], 15, 100 * MS);
	closed(&classes[0], 1, MS);
	check(settled_period(classes, 8 * MS) == 8 * MS,
		  "wrap-arounds, 1 under four periods in 16: 8 ms");
	closed(&classes[0], 1, MS);
	check(settled_period(classes, 8 * MS) < 8 * MS,
		  "2 in 17: not 8 ms");

	/* however few its recent episodes */
	no_episodes(classes);
	classes[0].by_count = true;
	closed(&classes[0], 2, 2 * MS);
	closed(&classes[1], 1000, 50 * MS);
	check(settled_period(classes, 8 * MS) == MS,
		  "two recent wrap-arounds of 2 ms beside long commit waits: 1 ms");

	/* its young episodes must last four periods, not two */
	no_episodes(classes);
	classes[0].by_count = true;
	classes[0].youngest_open_ns = 8 * MS;
	check(settled_period(classes, 8 * MS) == 2 * MS,
		  "a wrap-around open for 8 ms, nothing closed: 2 ms (8 = 4 x 2)");
}

static void
test_period_rare_class(void)
{
	WalStallClassLengths classes[NCLASSES];
	uint64_t	period;

	/* a CLOG wait now and then beside long commit waits */
	no_episodes(classes);
	closed(&classes[0], 1, 50 * MS);
	closed(&classes[1], WS_PERIOD_MIN_EPISODES - 1, MS);
	check(settled_period(classes, 8 * MS) == 8 * MS,
		  "fewer than WS_PERIOD_MIN_EPISODES short episodes: not judged, 8 ms");
	classes[1].youngest_open_ns = MS;
	check(ws_choose_period(8 * MS, MS, 8 * MS, classes, NCLASSES) == MS,
		  "... but a young one of them brings the period back to 1 ms at once");
	classes[1].youngest_open_ns = 4 * MS;
	period = ws_choose_period(MS, MS, 8 * MS, classes, NCLASSES);
	check(period == 2 * MS, "... and allows 2 ms once it has lasted 4 ms");
	classes[1].youngest_open_ns = WS_PERIOD_NONE_OPEN;
	closed(&classes[1], 1, MS);
	check(settled_period(classes, 8 * MS) == MS,
		  "WS_PERIOD_MIN_EPISODES short episodes, 8 of 58 ms: judged short, 1 ms");

	/* a minor class: short episodes, under a sixteenth of the time */
	no_episodes(classes);
	closed(&classes[0], 100, 50 * MS);
	closed(&classes[1], 312, MS);
	check(settled_period(classes, 8 * MS) == 8 * MS,
		  "312 ms of 1 ms waits beside 5,000 ms of 50 ms ones (1/17): 8 ms");
	closed(&classes[1], 22, MS);
	check(settled_period(classes, 8 * MS) == MS,
		  "334 ms of them (1/16): 1 ms");
}

static void
test_period_long_episodes(void)
{
	WalStallClassLengths classes[NCLASSES];
	uint64_t	period;

	/* a 16MB ring's wrap-arounds: seconds each */
	no_episodes(classes);
	closed(&classes[0], 20, 2000 * MS);
	check(settled_period(classes, 8 * MS) == 8 * MS,
		  "a class of 2 s episodes: 8 ms");
	check(ws_choose_period(MS, MS, 8 * MS, classes, NCLASSES) == 2 * MS,
		  "one doubling a tick: 1 ms to 2 ms");
	check(ws_choose_period(2 * MS, MS, 8 * MS, classes, NCLASSES) == 4 * MS,
		  "then 4 ms");
	check(settled_period(classes, 5 * MS) == 4 * MS,
		  "max_sample_interval 5 ms: the longest power of two below, 4 ms");
	check(settled_period(classes, MS) == MS,
		  "max_sample_interval = sample_interval: adaptation off");
	check(settled_period(classes, MS / 2) == MS,
		  "max_sample_interval below sample_interval: adaptation off");

	/* episodes of 6 ms: long against 2 ms (4 ms), not against 4 ms (8) */
	no_episodes(classes);
	closed(&classes[0], 100, 6 * MS);
	check(settled_period(classes, 8 * MS) == 2 * MS,
		  "6 ms episodes: 2 ms, two periods or more");

	/*
	 * 50 tpcb-like clients' waits on this project's machine, by samples at
	 * 1 ms (2,683, 3,028, 4,936, 5,226, 2,717, 315 and 54 wal_flush
	 * episodes of 1, 2, 3-4, 5-8, 9-16, 17-32 and more samples; 76, 52,
	 * 45, 28, 10 and 4 wal_insert ones), with the buckets' episodes spread
	 * over their lengths: commit waits have 47% of their time in episodes
	 * under 8 ms, WAL insert waits 35% under 4 ms and 70% under 8.
	 */
	no_episodes(classes);
	closed(&classes[0], 2700, MS);
	closed(&classes[0], 3000, 2 * MS);
	closed(&classes[0], 2500, 3 * MS);
	closed(&classes[0], 2400, 4 * MS);
	for (int samples = 5; samples <= 8; samples++)
		closed(&classes[0], 1300, samples * MS);
	closed(&classes[0], 2700, 12 * MS);
	closed(&classes[0], 300, 24 * MS);
	closed(&classes[0], 100, 48 * MS);
	classes[0].youngest_open_ns = 0;
	check(settled_period(classes, 8 * MS) == 4 * MS,
		  "commit waits of 50 tpcb-like clients, one just begun: 4 ms");
	closed(&classes[1], 76, MS);
	closed(&classes[1], 52, 2 * MS);
	closed(&classes[1], 23, 3 * MS);
	closed(&classes[1], 22, 4 * MS);
	closed(&classes[1], 28, 6 * MS);
	closed(&classes[1], 10, 12 * MS);
	closed(&classes[1], 4, 24 * MS);
	check(settled_period(classes, 8 * MS) == 4 * MS,
		  "... with their WAL insert waits, 0.7 per cent of the time: still 4 ms");
	classes[1].youngest_open_ns = MS;
	check(ws_choose_period(4 * MS, MS, 8 * MS, classes, NCLASSES) == 2 * MS,
		  "... down to 2 ms at once while a WAL insert wait is 1 ms old (long against 2 ms)");
	classes[1].youngest_open_ns = WS_PERIOD_NONE_OPEN;
	for (int i = 0; i < 15; i++)
	{
		closed(&classes[1], 76, MS);
		closed(&classes[1], 52, 2 * MS);
		closed(&classes[1], 23, 3 * MS);
		closed(&classes[1], 22, 4 * MS);
		closed(&classes[1], 28, 6 * MS);
		closed(&classes[1], 10, 12 * MS);
		closed(&classes[1], 4, 24 * MS);
	}
	check(settled_period(classes, 8 * MS) == 2 * MS,
		  "WAL insert waits 16 times as many, 10 per cent of the time: 2 ms (35 per cent of it under 4 ms, 70 under 8)");
	closed(&classes[2], 8500, MS);
	check(settled_period(classes, 8 * MS) == MS,
		  "and 1 ms wrap-arounds, 6.4 per cent of the time: 1 ms");

	/* open episodes of a class with no recent ones: their age decides */
	no_episodes(classes);
	classes[2].youngest_open_ns = MS;
	check(settled_period(classes, 8 * MS) == MS,
		  "an open episode of 1 ms, nothing closed: 1 ms");
	classes[2].youngest_open_ns = 8 * MS;
	period = ws_choose_period(MS, MS, 8 * MS, classes, NCLASSES);
	period = ws_choose_period(period, MS, 8 * MS, classes, NCLASSES);
	check(period == 4 * MS, "every open episode 8 ms old: 4 ms (8 = 2 x 4)");
	period = ws_choose_period(period, MS, 8 * MS, classes, NCLASSES);
	check(period == 4 * MS, "... not 8 ms (16 > 8)");
	classes[2].youngest_open_ns = 16 * MS;
	period = ws_choose_period(period, MS, 8 * MS, classes, NCLASSES);
	check(period == 8 * MS, "16 ms old: 8 ms");

	/* a new episode in a class without long recent ones: back at once */
	classes[1].youngest_open_ns = MS;
	check(ws_choose_period(period, MS, 8 * MS, classes, NCLASSES) == MS,
		  "from 8 ms: a young episode of another class brings it back to 1 ms at once");
	/* ... but not when its class's recent episodes were long */
	closed(&classes[1], 20, 500 * MS);
	check(ws_choose_period(period, MS, 8 * MS, classes, NCLASSES) == 8 * MS,
		  "a young episode of a class whose recent episodes lasted 500 ms: 8 ms");

	/* nothing followed at all: the base period (resting is another rule) */
	no_episodes(classes);
	check(settled_period(classes, 8 * MS) == MS, "nothing followed: 1 ms");
}

static void
test_period_forgets(void)
{
	WalStallClassLengths classes[NCLASSES];

	no_episodes(classes);
	closed(&classes[0], 300, MS);
	closed(&classes[1], 2, 2000 * MS);
	check(settled_period(classes, 8 * MS) == MS, "short wrap-arounds seen: 1 ms");
	/* the short class stops; a second or two halves its counts to nothing */
	for (int second = 0; second < 9; second++)
	{
		ws_period_forget_half(&classes[0]);
		if (second % 4 == 0)
			closed(&classes[1], 1, 2000 * MS);
	}
	check(classes[0].episodes == 0 && classes[0].time_ns == 0 &&
		  classes[0].shorter_ns[0] == 0,
		  "nine seconds later the short class is forgotten, its times too");
	check(settled_period(classes, 8 * MS) == 8 * MS,
		  "then the long class alone: 8 ms");
	/* halving keeps the shares */
	no_episodes(classes);
	closed(&classes[0], 100, MS);
	closed(&classes[0], 30, 4 * MS);
	ws_period_forget_half(&classes[0]);
	check(classes[0].episodes == 65 && classes[0].time_ns == 110 * MS &&
		  classes[0].shorter_ns[1] == 50 * MS,
		  "halved: 65 episodes, 110 ms, 50 ms of it under 4 ms");
	/* and the counts never overflow */
	classes[2].episodes = UINT32_MAX;
	ws_period_note_episode(&classes[2], MS, MS);
	check(classes[2].episodes == UINT32_MAX && classes[2].shorter_ns[0] == 0,
		  "a full count stays full");
}

/*
 * Counting episodes in bursts: class 0 the wrap-arounds (by count), class 1
 * the commit waits (by time), class 2 the rest.
 */
static void
commit_waits(WalStallClassLengths *classes)
{
	no_episodes(classes);
	classes[0].by_count = true;
	/* 50 tpcb-like clients on a fast disk: 1-2 ms each, a few 4-8 ms */
	closed(&classes[1], 300, MS);
	closed(&classes[1], 200, 2 * MS);
	closed(&classes[1], 30, 6 * MS);
}

static void
test_bursts_cycles(void)
{
	WalStallBursts bursts = {0};
	WalStallCountRule rule;
	uint64_t	rng = 12345;
	uint64_t	from;
	int			part;
	int			drawn = 0;
	int			slots[8] = {0};
	bool		every_slot = true;

	rule = ws_count_rule(&bursts, 0, MS);
	check(ws_episode_weight(&rule, &rng, &part) == 1 && part == WS_COUNT_OUTSIDE,
		  "before any cycle: every episode counts once");
	check(ws_next_cycle(&bursts, 1000 * MS, MS, 8, true, &rng) && bursts.thin &&
		  bursts.cycle.start_ns == 1000 * MS && bursts.cycle.end_ns == 1064 * MS &&
		  bursts.cycle.slot_ns == 8 * MS &&
		  (bursts.cycle.slot_from_ns - 1000 * MS) % (8 * MS) == 0 &&
		  bursts.cycle.count_to_ns == bursts.cycle.count_from_ns &&
		  bursts.cycle.weight == 8,
		  "a thin cycle: 64 ms, its burst in one slot of 8 ms, counting 8 each, nothing yet");
	from = bursts.cycle.slot_from_ns + MS / 2;
	check(ws_in_burst(&bursts, from - MS / 2) && !ws_in_burst(&bursts, from - MS),
		  "its slot is sampled at the base period");
	ws_begin_burst(&bursts, from - MS);
	check(!bursts.burst_armed, "a tick before its slot does not arm the burst");
	ws_begin_burst(&bursts, from);
	check(bursts.burst_armed && !bursts.burst_begun,
		  "the first tick in its slot, after a long sleep, arms it");
	rule = ws_count_rule(&bursts, from - 6 * MS, from);
	check(rule.share[WS_COUNT_CURRENT] == 0.0,
		  "... and the long interval that ends on that tick counts nothing");
	from += MS + MS / 10;
	ws_begin_burst(&bursts, from);
	check(bursts.burst_begun && bursts.cycle.count_from_ns == from &&
		  bursts.cycle.count_to_ns == from + 8 * MS,
		  "the next, a base period on, begins the burst: 8 ms from there");
	rule = ws_count_rule(&bursts, from - MS, from);
	check(rule.share[WS_COUNT_CURRENT] == 0.0,
		  "... the base period before it counts nothing either");
	rule = ws_count_rule(&bursts, from, from + MS);
	check(rule.share[WS_COUNT_CURRENT] == 1.0 && rule.weight[WS_COUNT_CURRENT] == 8,
		  "an episode that begins in the burst counts as 8");
	rule = ws_count_rule(&bursts, from + 8 * MS, from + 10 * MS);
	check(rule.share[WS_COUNT_CURRENT] == 0.0 && rule.share[WS_COUNT_OUTSIDE] == 0.0 &&
		  ws_episode_weight(&rule, &rng, &part) == 0 && part == -1,
		  "... one that begins after it is not counted");
	rule = ws_count_rule(&bursts, from + 7 * MS + MS / 2, from + 8 * MS + MS / 2);
	check(rule.share[WS_COUNT_CURRENT] == 0.5,
		  "... one in an interval half in the burst, with probability 1/2");
	check(ws_in_burst(&bursts, from) && !ws_in_burst(&bursts, from + 8 * MS),
		  "the burst is the slot's 8 ms");
	for (int i = 0; i < 10000; i++)
		drawn += ws_episode_weight(&rule, &rng, &part) == 8;
	check(drawn > 4800 && drawn < 5200, "share 1/2: %d of 10,000 counted", drawn);
	check(!ws_next_cycle(&bursts, 1063 * MS, MS, 8, true, &rng),
		  "the cycle holds until its end");
	check(ws_burst_deadline(&bursts, 1062 * MS, 1070 * MS, false) == 1064 * MS &&
		  ws_burst_deadline(&bursts, 1060 * MS, 1062 * MS, false) == 1062 * MS,
		  "a thin cycle's sleep ends where it ends");
	bursts.cycle.slot_from_ns = 1040 * MS;
	bursts.burst_armed = bursts.burst_begun = false;
	check(ws_burst_deadline(&bursts, 1036 * MS, 1044 * MS, false) == 1040 * MS &&
		  ws_burst_deadline(&bursts, 1041 * MS, 1042 * MS, false) == 1042 * MS,
		  "... and where its burst begins, when it is still to come");
	/* its burst, as if it had begun at 1041 ms */
	bursts.cycle.count_from_ns = 1041 * MS;
	bursts.cycle.count_to_ns = 1049 * MS;
	bursts.burst_begun = true;
	check(ws_next_cycle(&bursts, 1064 * MS + 3 * MS, MS, 8, false, &rng) &&
		  !bursts.thin && bursts.cycle.start_ns == 1064 * MS &&
		  bursts.before.start_ns == 1000 * MS,
		  "the next cycle begins where the last ended, a tick late or not");
	rule = ws_count_rule(&bursts, 1046 * MS + MS / 2, 1065 * MS);
	check(rule.share[WS_COUNT_BEFORE] > 0.0 && rule.weight[WS_COUNT_BEFORE] == 8 &&
		  rule.share[WS_COUNT_CURRENT] > 0.0 && rule.weight[WS_COUNT_CURRENT] == 1,
		  "an interval across two cycles is counted by both: the burst's part as 8, the rest of the next as 1");
	check(ws_burst_deadline(&bursts, 1065 * MS, 1300 * MS, false) == 1300 * MS &&
		  ws_burst_deadline(&bursts, 1065 * MS, 1300 * MS, true) == 1128 * MS,
		  "a cycle that counts every episode sleeps freely, unless a thin one is expected next");
	check(ws_next_cycle(&bursts, 1400 * MS, MS, 8, true, &rng) &&
		  bursts.cycle.start_ns == 1400 * MS,
		  "after a gap of a whole cycle, the next begins now");
	rule = ws_count_rule(&bursts, 1128 * MS, 1400 * MS + MS);
	check(rule.share[WS_COUNT_OUTSIDE] > 0.99,
		  "... and what fell in the gap counts once");
	for (int i = 0; i < 800; i++)
	{
		(void) ws_next_cycle(&bursts, bursts.cycle.end_ns, MS, 8, true, &rng);
		slots[(bursts.cycle.slot_from_ns - bursts.cycle.start_ns) / (8 * MS)]++;
	}
	for (int i = 0; i < 8; i++)
		every_slot &= slots[i] > 60 && slots[i] < 140;
	check(every_slot, "the burst's slot is drawn: %d %d %d %d %d %d %d %d of 800",
		  slots[0], slots[1], slots[2], slots[3], slots[4], slots[5], slots[6], slots[7]);
	(void) ws_next_cycle(&bursts, bursts.cycle.end_ns, MS, 1, true, &rng);
	check(!bursts.thin && bursts.cycle.weight == 1,
		  "wal_stall.episode_sampling = 1: never thin");
}

static void
test_bursts_variance(void)
{
	int64_t		last = -1;
	int64_t		v1;
	int64_t		v2;
	int64_t		v3;

	check(ws_burst_variance(1, 100, &last) == 0 && last == -1,
		  "a cycle that counts every episode adds no variance");
	v1 = ws_burst_variance(8, 16, &last);
	v2 = ws_burst_variance(8, 20, &last);
	v3 = ws_burst_variance(8, 20, &last);
	check(v1 == 8 * 7 * 16 && v2 == 64 * 16 / 2 && v3 == 0 && last == 20,
		  "the first thin cycle: 8 x 7 x 16; then half of 64 times the squared difference: %lld, %lld, %lld",
		  (long long) v1, (long long) v2, (long long) v3);
	(void) ws_burst_variance(1, 0, &last);
	check(ws_burst_variance(8, 24, &last) == 64 * 16 / 2,
		  "a cycle that was not thin between two thin ones: the two are compared");
}

static void
test_bursts_help(void)
{
	WalStallClassLengths classes[NCLASSES];

	commit_waits(classes);
	check(settled_period(classes, 8 * MS) == MS,
		  "commit waits of 1-2 ms hold the time rule at 1 ms");
	check(ws_bursts_help(classes, NCLASSES, MS, 8 * MS),
		  "... so bursts help");
	check(!ws_bursts_help(classes, NCLASSES, MS, MS),
		  "... unless the period may not grow (max_sample_interval = sample_interval)");
	closed(&classes[0], 1, MS);
	check(!ws_bursts_help(classes, NCLASSES, MS, 8 * MS),
		  "a recent short wrap-around: no bursts, every wrap-around counted");
	commit_waits(classes);
	classes[0].youngest_open_ns = MS;
	check(!ws_bursts_help(classes, NCLASSES, MS, 8 * MS),
		  "a young wrap-around open, none closed: no bursts");
	no_episodes(classes);
	classes[0].by_count = true;
	closed(&classes[1], 300, 20 * MS);
	check(!ws_bursts_help(classes, NCLASSES, MS, 8 * MS),
		  "long commit waits: the time rule lets the period grow, no bursts");
	no_episodes(classes);
	classes[0].by_count = true;
	check(!ws_bursts_help(classes, NCLASSES, MS, 8 * MS),
		  "nothing followed: no bursts");
}

static void
test_bursts_period(void)
{
	WalStallClassLengths classes[NCLASSES];
	uint64_t	period = MS;

	commit_waits(classes);
	for (int tick = 0; tick < 8; tick++)
		period = ws_choose_thin_period(period, MS, 8 * MS, classes, NCLASSES);
	check(period == 8 * MS,
		  "outside the burst, short commit waits counted in it let the period grow to 8 ms");
	check(ws_choose_thin_period(MS, MS, 8 * MS, classes, NCLASSES) == 2 * MS,
		  "... one doubling a tick");
	classes[1].youngest_open_ns = MS;
	check(ws_choose_thin_period(8 * MS, MS, 8 * MS, classes, NCLASSES) == 8 * MS,
		  "... an episode open but not counted does not hold it");
	classes[1].youngest_counted_open_ns = MS;
	check(ws_choose_thin_period(8 * MS, MS, 8 * MS, classes, NCLASSES) == MS,
		  "a counted episode open for 1 ms holds it at 1 ms: it is being timed");
	classes[1].youngest_counted_open_ns = 5 * MS;
	check(ws_choose_thin_period(8 * MS, MS, 8 * MS, classes, NCLASSES) == 2 * MS,
		  "... at 5 ms, 2 ms (long against it)");
	classes[1].youngest_counted_open_ns = WS_PERIOD_NONE_OPEN;
	classes[0].youngest_open_ns = 2 * MS;
	check(ws_choose_thin_period(8 * MS, MS, 8 * MS, classes, NCLASSES) == MS,
		  "a young wrap-around brings it back to 1 ms at once, counted or not");
	classes[0].youngest_open_ns = WS_PERIOD_NONE_OPEN;
	closed(&classes[0], 3, MS);
	check(ws_choose_thin_period(8 * MS, MS, 8 * MS, classes, NCLASSES) == MS,
		  "short wrap-arounds forbid any longer period");
}

/* A reproducible pseudo-random number in [0, 1). */
static uint64_t sim_state = 88172645463325252ULL;

static double
sim_uniform(void)
{
	return (double) ws_draw(&sim_state) / 9007199254740992.0;
}

#define SIM_EPISODES	40000

/* One simulated wait, and what the simulated collector saw of it. */
typedef struct SimWait
{
	uint64_t	start;
	uint64_t	end;
	bool		seen;
	bool		closed;
	uint32_t	weight;
	uint64_t	first_ns;		/* the first sample's weight */
	uint64_t	time_ns;		/* its samples' weights */
} SimWait;

static SimWait sim[SIM_EPISODES];

/* What a simulated run gives. */
typedef struct SimResult
{
	double		truth;			/* waits closed */
	double		truth_ns;
	double		estimate;		/* their weighted count */
	double		variance;		/* its estimated variance */
	double		weighted_ns;	/* their lengths, weighted */
	double		counted_ns;		/* real time counted in bursts, times N */
	uint64_t	thin_ns;		/* time in thin cycles */
	long		ticks;
	long		cycles;
	long		thin_cycles;
	double		seconds;
} SimResult;

/* How long the simulated waits last: from sim_min_ns, up to sim_span_ns more. */
static uint64_t sim_min_ns = MS;
static uint64_t sim_span_ns = 4 * MS;

/*
 * n waits of 1 to 5 ms each (every one long enough for a 1 ms sampler to
 * catch; sim_min_ns and sim_span_ns say otherwise), rate_per_ms of them a
 * millisecond while the load is on: always (off_ms 0), or on_ms on and
 * off_ms off, over and over.
 */
static void
sim_waits(int n, double rate_per_ms, uint64_t on_ms, uint64_t off_ms)
{
	uint64_t	t = 0;

	memset(sim, 0, sizeof(SimWait) * n);
	for (int i = 0; i < n; i++)
	{
		t += (uint64_t) (-log(1.0 - sim_uniform()) / rate_per_ms * MS);
		/* the load's off spells hold no start: skip them */
		if (off_ms > 0 && t % ((on_ms + off_ms) * MS) >= on_ms * MS)
			t += (on_ms + off_ms) * MS - t % ((on_ms + off_ms) * MS);
		sim[i].start = t;
		sim[i].end = t + sim_min_ns + (uint64_t) (sim_uniform() * sim_span_ns);
	}
}

/*
 * A collector that follows ws_next_cycle(), ws_count_rule(),
 * ws_episode_weight(), ws_choose_thin_period() and ws_burst_deadline()
 * over the first n waits of sim[], as collector.c does, with the scheduler
 * waking it late: up to 0.1 ms after a period of 1 ms, up to 0.6 ms after
 * a longer sleep, so that the tick that begins a burst is later than
 * those within it.
 */
static SimResult
sim_collect(int n)
{
	WalStallClassLengths classes[NCLASSES];
	WalStallBursts bursts = {0};
	SimResult	r = {0};
	int64_t		burst_counted[2] = {0, 0};
	int64_t		last_counted = -1;
	uint64_t	rng = ws_draw(&sim_state) | 1;	/* a stream of its own */
	uint64_t	t = 0;
	uint64_t	prev = 0;
	uint64_t	deadline = 0;
	uint64_t	period = MS;
	uint64_t	next_second = 1000 * MS;
	uint64_t	horizon = sim[n - 1].start;
	bool		cycle_saw_wait = false;
	bool		thin_next = false;
	int			lo = 0;

	commit_waits(classes);
	while (t < horizon)
	{
		WalStallCountRule rule;
		WalStallCycle dropped = bursts.before;
		uint64_t	elapsed = t - prev;

		if (ws_next_cycle(&bursts, t, MS, 8, thin_next, &rng))
		{
			r.cycles++;
			r.thin_cycles += bursts.thin;
			if (bursts.before.weight > 1)
				r.thin_ns += bursts.before.end_ns - bursts.before.start_ns;
			r.variance += ws_burst_variance(dropped.weight,
											burst_counted[WS_COUNT_BEFORE],
											&last_counted);
			burst_counted[WS_COUNT_BEFORE] = burst_counted[WS_COUNT_CURRENT];
			burst_counted[WS_COUNT_CURRENT] = 0;
			cycle_saw_wait = false;
		}
		ws_begin_burst(&bursts, t);
		rule = ws_count_rule(&bursts, prev, t);
		for (int p = WS_COUNT_BEFORE; p <= WS_COUNT_CURRENT; p++)
			if (rule.weight[p] > 1)
				r.counted_ns += rule.share[p] * rule.weight[p] * elapsed;
		r.ticks++;
		classes[1].youngest_open_ns = WS_PERIOD_NONE_OPEN;
		classes[1].youngest_counted_open_ns = WS_PERIOD_NONE_OPEN;
		for (int i = lo; i < n && sim[i].start <= t; i++)
		{
			SimWait    *w = &sim[i];
			uint64_t	age;

			if (w->closed)
				continue;
			if (w->end <= t)
			{
				/* over: close it, if it was seen */
				w->closed = true;
				if (w->seen && w->weight > 0)
				{
					uint64_t	length = w->time_ns - w->first_ns +
						ws_histogram_first_sample(w->first_ns, MS);

					ws_period_note_episode(&classes[1], length, MS);
					r.estimate += w->weight;
					r.weighted_ns += (double) w->weight * length;
				}
				continue;
			}
			cycle_saw_wait = true;
			if (!w->seen)
			{
				int			part;

				w->seen = true;
				w->weight = ws_episode_weight(&rule, &rng, &part);
				if (w->weight > 1)
					burst_counted[part]++;
				w->first_ns = elapsed;
			}
			w->time_ns += elapsed;
			age = w->time_ns - w->first_ns + ws_histogram_first_sample(w->first_ns, MS);
			if (age < classes[1].youngest_open_ns)
				classes[1].youngest_open_ns = age;
			if (w->weight > 0 && age < classes[1].youngest_counted_open_ns)
				classes[1].youngest_counted_open_ns = age;
		}
		while (lo < n && sim[lo].closed)
			lo++;
		if (t >= next_second)
		{
			for (int c = 0; c < NCLASSES; c++)
				ws_period_forget_half(&classes[c]);
			/* the load's commit waits, as the collector knew them before */
			if (classes[1].episodes < WS_PERIOD_MIN_EPISODES)
				commit_waits(classes);
			next_second += 1000 * MS;
		}
		prev = t;
		thin_next = cycle_saw_wait && ws_bursts_help(classes, NCLASSES, MS, 8 * MS);
		if (ws_in_burst(&bursts, t))
			period = MS;
		else if (bursts.thin)
			period = ws_choose_thin_period(period, MS, 8 * MS, classes, NCLASSES);
		else
			period = ws_choose_period(period, MS, 8 * MS, classes, NCLASSES);
		deadline = ws_burst_deadline(&bursts, t, deadline + period, thin_next);
		t = deadline + (uint64_t) (sim_uniform() * (period > MS ? 0.6 : 0.1) * MS);
	}
	/* the last two cycles' variance, complete at the end */
	r.variance += ws_burst_variance(bursts.before.weight,
									burst_counted[WS_COUNT_BEFORE], &last_counted);
	r.variance += ws_burst_variance(bursts.cycle.weight,
									burst_counted[WS_COUNT_CURRENT], &last_counted);
	/* a wait shorter than a period is caught with the odds of its length */
	for (int i = 0; i < n; i++)
	{
		uint64_t	length = sim[i].end - sim[i].start;

		if (!sim[i].closed)
			continue;
		r.truth += length < MS ? (double) length / MS : 1.0;
		r.truth_ns += length;
	}
	r.seconds = horizon / 1e9;
	return r;
}

/* Over runs of n waits from sim_waits(): the mean relative error and z^2. */
static void
sim_runs(int runs, int n, double rate_per_ms, uint64_t on_ms, uint64_t off_ms,
		 double *mean_error, double *mean_z2)
{
	*mean_error = 0;
	*mean_z2 = 0;
	for (int i = 0; i < runs; i++)
	{
		SimResult	r;
		double		z;

		sim_waits(n, rate_per_ms, on_ms, off_ms);
		r = sim_collect(n);
		z = (r.estimate - r.truth) / sqrt(r.variance > 0 ? r.variance : 1);
		*mean_error += (r.estimate - r.truth) / r.truth / runs;
		*mean_z2 += z * z / runs;
	}
}

/*
 * Over 20 s of commit waits, 2 a millisecond, the simulated collector's
 * weighted count and mean length come out as those of all waits, at a
 * fraction of the wake-ups.  Over many runs the count is unbiased, for a
 * steady load and for waits that come in spells (20 ms every 120 ms, 8
 * every 38), where bursts drawn where the waits are not are as likely
 * as where they are; and under the steady load the estimated variance is
 * that of the errors.  (Under spells much shorter than a cycle the
 * variance of a short run is less well estimated: docs/sampling.md.)
 */
static void
test_bursts_estimate(void)
{
	SimResult	r;
	double		sd;
	double		error;
	double		z2;

	sim_waits(SIM_EPISODES, 2.0, 0, 0);
	r = sim_collect(SIM_EPISODES);
	sd = sqrt(r.variance);
	check(r.thin_cycles * 10 >= r.cycles * 9,
		  "steady commit waits: %ld of %ld cycles thin", r.thin_cycles, r.cycles);
	check(fabs(r.counted_ns - r.thin_ns) < 0.005 * r.thin_ns + 64 * MS,
		  "8 times the real time counted in bursts is %.4f of the thin cycles' time",
		  r.counted_ns / r.thin_ns);
	check(fabs(r.estimate - r.truth) <= 4 * sd && sd > 0 && sd < r.truth * 0.05,
		  "weighted count %.0f +- %.0f against %.0f waits", r.estimate, sd, r.truth);
	check(fabs(r.weighted_ns / r.estimate - r.truth_ns / r.truth) < 0.05 * r.truth_ns / r.truth,
		  "mean length %.3f ms against %.3f ms",
		  r.weighted_ns / r.estimate / MS, r.truth_ns / r.truth / MS);
	check(r.ticks < r.seconds * 400,
		  "%ld ticks in %.1f s: %.0f a second, against 1,000 at 1 ms",
		  r.ticks, r.seconds, r.ticks / r.seconds);

	sim_runs(400, 4000, 2.0, 0, 0, &error, &z2);
	check(fabs(error) < 0.01 && z2 > 0.5 && z2 < 1.5,
		  "400 runs of 4,000 steady waits: mean error %+.2f%%, mean squared error %.2f estimated variances",
		  100 * error, z2);
	sim_runs(400, 4000, 6.0, 20, 100, &error, &z2);
	check(fabs(error) < 0.025,
		  "400 runs of 4,000 waits in spells of 20 ms every 120: mean error %+.2f%%", 100 * error);
	sim_runs(400, 4000, 6.0, 8, 30, &error, &z2);
	check(fabs(error) < 0.02,
		  "400 runs of 4,000 waits in spells of 8 ms every 38: mean error %+.2f%%", 100 * error);

	/*
	 * Waits shorter than a period, 0.2-0.6 ms: what a sampler at 1 ms
	 * catches of them, a share as large as their length, is what the
	 * bursts estimate.  The ticks within a burst must come as far apart as
	 * at 1 ms all along: a burst begun on a tick that ended a long sleep,
	 * later than the rest, caught 3.3% too many.
	 */
	sim_min_ns = MS / 5;
	sim_span_ns = 2 * MS / 5;
	sim_runs(400, 4000, 4.0, 0, 0, &error, &z2);
	check(fabs(error) < 0.01,
		  "400 runs of 4,000 waits of 0.2-0.6 ms: mean error %+.2f%% against a 1 ms sampler's catch",
		  100 * error);
	sim_min_ns = MS;
	sim_span_ns = 4 * MS;
}

int
main(void)
{
	test_core_reads();
	test_quiet();
	test_stretch();
	test_disabled();
	test_first_sample();
	test_load_may_rest();
	test_load_rest_after_wait();
	test_load_stretch();
	test_period_short_class();
	test_period_rare_class();
	test_period_wrap_around_class();
	test_period_long_episodes();
	test_period_forgets();
	test_bursts_cycles();
	test_bursts_variance();
	test_bursts_help();
	test_bursts_period();
	test_bursts_estimate();
	return tap_finish();
}
