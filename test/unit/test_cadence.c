/*
 * Unit tests of the collector's cadence (cadence.c), apart from a server.
 * cadence.c is built into this file, so that its rules are checked one by
 * one, and the simulated collector at the end drives its entry points as
 * collector.c does.  Prints TAP lines and "N passed, N failed".
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../cadence.c"
#define TAP_MAIN
#include "../tap.h"

#define MS	UINT64_C(1000000)

/* Classes here: 0 the wrap-arounds, 1 the commit waits, 2 the rest. */
#define NCLASSES	3

/* A cadence at 1 ms, up to max_ns, resting up to 100 ms, on a 16MB ring. */
static void
fresh(WalStallCadence *c, uint64_t max_ns)
{
	WalStallCadenceSettings settings = {MS, max_ns, 100 * MS, 8, 16 << 20,
	NCLASSES, NCLASSES, 0};

	ws_cadence_init(c, &settings, 0, 12345);
}

static WalStallTickSeen
quiet_tick(void)
{
	WalStallTickSeen seen = {false, false, false, 0.0, 0, false, 0};

	return seen;
}

/* A tick under read-only load: a process at work, inserting no WAL. */
static WalStallTickSeen
busy_tick(void)
{
	WalStallTickSeen seen = {false, false, true, 0.0, 0, false, 0};

	return seen;
}

/* A tick under write load: a process at work, a commit's WAL inserted. */
static WalStallTickSeen
writing_tick(void)
{
	WalStallTickSeen seen = {false, false, true, 0.0, 200, false, 0};

	return seen;
}

/* What the tick chooses, rest or not, kept as the collector keeps it. */
static uint64_t
rest_step(WalStallCadence *c, const WalStallTickSeen *seen)
{
	uint64_t	next = choose_rest(c, seen);

	c->resting = next > c->settings.sample_ns;
	c->sleep_ns = next;
	return next;
}

/*
 * May the cadence rest rest_ns, resting already, with bytes inserted in the
 * last elapsed_ns on a ring of ring bytes?
 */
static bool
may_rest(WalStallCadence *c, WalStallTickSeen seen, uint64_t bytes,
		 uint64_t elapsed_ns, uint64_t ring, uint64_t rest_ns)
{
	c->settings.ring_bytes = ring;
	c->elapsed_ns = elapsed_ns;
	seen.inserted_bytes = bytes;
	c->resting = true;
	c->sleep_ns = rest_ns;
	c->quiet_ticks = 0;
	return choose_rest(c, &seen) == rest_ns;
}

static void
test_quiet(void)
{
	WalStallCadence c;
	WalStallTickSeen seen = quiet_tick();

	fresh(&c, 8 * MS);
	check(may_rest(&c, seen, 0, MS, 16 << 20, 20 * MS), "nothing seen: rests");
	seen.tracked_wait = true;
	check(!may_rest(&c, seen, 0, MS, 16 << 20, 20 * MS) && c.quiet_ticks == 0,
		  "a tracked wait: no rest, the quiet count starts over");
	seen = quiet_tick();
	seen.episode_open = true;
	check(!may_rest(&c, seen, 0, MS, 16 << 20, 20 * MS), "an open episode: no rest");
	seen = busy_tick();
	check(!may_rest(&c, seen, 200, MS, 16 << 20, 20 * MS) &&
		  may_rest(&c, seen, 200, MS, 16 << 20, 10 * MS),
		  "a process on CPU inserting WAL: rests at most 10 ms");
	check(may_rest(&c, seen, 0, MS, 16 << 20, 20 * MS) &&
		  may_rest(&c, seen, 0, MS, 16 << 20, 100 * MS),
		  "a process on CPU inserting none: rests as idle, 100 ms");
	seen = quiet_tick();
	check(may_rest(&c, seen, 200, MS, 16 << 20, 20 * MS),
		  "WAL inserted with no process busy (a commit, then idle): rests");
	seen = quiet_tick();
	seen.ring_fill = 0.99;
	check(may_rest(&c, seen, 0, MS, 16 << 20, 20 * MS),
		  "a full ring with nothing inserted cannot wrap: rests");
	seen.ring_fill = -1;
	check(may_rest(&c, seen, 0, MS, 16 << 20, 20 * MS),
		  "ring unknown (recovery), nothing inserted: rests");
	check(!may_rest(&c, seen, 0, MS, 0, 20 * MS), "ring size unknown: no rest");
	seen = busy_tick();
	seen.rate_unknown = true;
	check(!may_rest(&c, seen, 0, MS, 16 << 20, 10 * MS) && c.quiet_ticks == 0,
		  "insert rate unknown (the first tick after a promotion): no rest");
}

static void
test_stretch(void)
{
	WalStallCadence c;
	WalStallTickSeen seen = quiet_tick();
	uint64_t	interval = MS;
	int			n = 0;
	uint64_t	seen_intervals[32];

	fresh(&c, 8 * MS);
	c.settings.idle_ns = 20 * MS;
	for (int i = 0; i < WS_QUIET_TICKS_BEFORE_REST; i++)
		interval = rest_step(&c, &seen);
	check(interval == MS, "the first %d quiet ticks keep the sample interval",
		  WS_QUIET_TICKS_BEFORE_REST);
	while (interval < 20 * MS && n < 32)
		seen_intervals[n++] = interval = rest_step(&c, &seen);
	check(n == 5 && seen_intervals[0] == 2 * MS && seen_intervals[1] == 4 * MS &&
		  seen_intervals[2] == 8 * MS && seen_intervals[3] == 16 * MS &&
		  seen_intervals[4] == 20 * MS,
		  "then it doubles step by step: 2, 4, 8, 16, 20 ms (%d steps)", n);
	check(rest_step(&c, &seen) == 20 * MS, "and stays at the idle interval");
	seen.tracked_wait = true;
	check(rest_step(&c, &seen) == MS && c.quiet_ticks == 0,
		  "the first tick that sees a wait drops straight back to 1 ms");
	seen.tracked_wait = false;
	check(rest_step(&c, &seen) == MS && c.quiet_ticks == 1,
		  "and a quiet spell starts over");
}

static void
test_disabled(void)
{
	WalStallCadence c;
	WalStallTickSeen seen = quiet_tick();
	uint64_t	interval = MS;

	fresh(&c, 8 * MS);
	c.settings.idle_ns = MS;
	for (int i = 0; i < 100; i++)
		interval = rest_step(&c, &seen);
	check(interval == MS, "idle interval = sample interval: never rests");
	c.settings.sample_ns = 5 * MS;
	c.settings.idle_ns = 2 * MS;
	for (int i = 0; i < 100; i++)
		interval = rest_step(&c, &seen);
	check(interval == 5 * MS, "idle interval below the sample interval: never rests, never faster");
	c.settings.sample_ns = 3 * MS;
	c.settings.idle_ns = 20 * MS;
	for (int i = 0; i < 100; i++)
		interval = rest_step(&c, &seen);
	check(interval == 20 * MS, "a sample interval of 3 ms stretches to the idle interval too");
	c.settings.sample_ns = MS;
	c.settings.idle_ns = 10 * MS;
	c.sleep_ns = 7 * MS;
	c.quiet_ticks = WS_QUIET_TICKS_BEFORE_REST;
	check(rest_step(&c, &seen) == 10 * MS, "capped at the idle interval (7 -> 10, not 14)");
}

static void
test_first_sample(void)
{
	check(ws_first_sample_length(20 * MS, MS) == MS,
		  "a first sample weighing a 20 ms rest counts 1 ms of the length");
	check(ws_first_sample_length(MS / 2, MS) == MS / 2,
		  "a first sample shorter than the interval counts as it is");
	check(ws_first_sample_length(MS, MS) == MS, "one interval counts one interval");
}

/*
 * An idle server's ticks over [from, to): the collector lets the rest await
 * a statement (second_end_ns) only after a tick that ended a rest, and only
 * if may_await; a tick at a second's close awaits until the next one.
 * Returns the ticks in [from, to).
 */
static int
idle_ticks(WalStallCadence *c, WalStallTickSeen seen, bool may_await,
		   uint64_t from, uint64_t to)
{
	uint64_t	t = c->deadline_ns;
	int			ticks = 0;

	while (t < to)
	{
		WalStallTick tick = ws_cadence_wake(c, t, false);
		uint64_t	second_end = (t / (1000 * MS) + 1) * 1000 * MS;

		seen.second_end_ns = (may_await && tick.rested) ? second_end : 0;
		ws_cadence_next(c, &seen, t);
		ticks += t >= from;
		t = c->deadline_ns;
	}
	return ticks;
}

/* A cadence idle for 7 s whose tick at 7,000 ms awaits a statement until 8,000 ms. */
static void
await_from_7000(WalStallCadence *c)
{
	WalStallTickSeen seen = quiet_tick();

	fresh(c, 8 * MS);
	(void) idle_ticks(c, quiet_tick(), true, 0, 7000 * MS);
	(void) ws_cadence_wake(c, 7000 * MS, false);
	seen.second_end_ns = 8000 * MS;
	ws_cadence_next(c, &seen, 7000 * MS);
}

/* After a second with no process at work, the rest awaits a statement. */
static void
test_await(void)
{
	WalStallCadence c;
	WalStallTick tick;
	int			ticks;

	fresh(&c, 8 * MS);
	ticks = idle_ticks(&c, quiet_tick(), true, 2000 * MS, 7000 * MS);
	check(ticks == 5, "an idle server awaiting statements ticks once a second (%d in 5 s)",
		  ticks);
	check(c.awaiting && c.deadline_ns == 7000 * MS,
		  "... at the second's close (deadline %.1f ms)", c.deadline_ns / 1e6);
	fresh(&c, 8 * MS);
	ticks = idle_ticks(&c, quiet_tick(), false, 2000 * MS, 7000 * MS);
	check(ticks == 50 && !c.awaiting,
		  "where the collector does not allow it, it rests 100 ms (%d ticks in 5 s)", ticks);
	fresh(&c, 8 * MS);
	ticks = idle_ticks(&c, busy_tick(), true, 2000 * MS, 7000 * MS);
	check(ticks == 50 && !c.awaiting,
		  "a process at work, even inserting nothing: no await (%d ticks in 5 s)", ticks);

	fresh(&c, 8 * MS);
	{
		WalStallTickSeen seen = quiet_tick();

		seen.inserted_bytes = 100;
		ticks = idle_ticks(&c, seen, true, 2000 * MS, 7000 * MS);
	}
	check(ticks == 50 && !c.awaiting,
		  "WAL inserted since the last tick, by no process at work: no await (%d ticks in 5 s)",
		  ticks);

	/* a collector stopped for 5 s in an await: its own length and ten rests count */
	await_from_7000(&c);
	tick = ws_cadence_wake(&c, 13000 * MS, false);
	check(tick.elapsed_ns == 2000 * MS && tick.unobserved_ns == 4000 * MS && tick.late,
		  "an await's tick 5 s late weighs 2,000 ms, 4,000 unobserved (%.0f, %.0f)",
		  tick.elapsed_ns / 1e6, tick.unobserved_ns / 1e6);

	/* a statement wakes the await at 7,300 ms */
	await_from_7000(&c);
	check(c.awaiting, "awaiting from 7,000 ms");
	tick = ws_cadence_wake(&c, 7300 * MS, true);
	check(tick.woken && tick.elapsed_ns == 300 * MS && !tick.late,
		  "woken at 7,300 ms: the tick weighs the 300 ms slept, and is not late");
	{
		WalStallTickSeen seen = busy_tick();

		ws_cadence_next(&c, &seen, 7300 * MS);
	}
	check(!c.resting && !c.awaiting && c.deadline_ns == 7301 * MS,
		  "the statement is sampled from the sample interval on (deadline %.3f ms)",
		  c.deadline_ns / 1e6);
	tick = ws_cadence_wake(&c, 7301 * MS, true);
	check(!tick.woken, "a latch set while not awaiting wakes no statement tick");

	/* a signal ends an await early: the next deadline counts from then */
	await_from_7000(&c);
	tick = ws_cadence_wake(&c, 7200 * MS, false);
	check(!tick.woken && tick.elapsed_ns == 200 * MS, "a signal at 7,200 ms: an ordinary tick");
	{
		WalStallTickSeen seen = quiet_tick();

		ws_cadence_next(&c, &seen, 7200 * MS);
	}
	check(c.resting && c.deadline_ns == 7300 * MS,
		  "the rest after it ends 100 ms later, not after the await's deadline (%.1f ms)",
		  c.deadline_ns / 1e6);
}

static void
test_load_may_rest(void)
{
	WalStallCadence c;
	WalStallTickSeen seen = busy_tick();
	uint64_t	ring = 16 << 20;
	uint64_t	per_ms = ring / WS_REST_RATE_MARGIN / 10;

	fresh(&c, 8 * MS);
	check(may_rest(&c, seen, 200, MS, ring, 10 * MS), "write load, 200 B a ms on 16MB: may rest 10 ms");
	/* 16MB ring, a 10 ms rest: up to 16MB / 8 = 2MB in 10 ms */
	check(may_rest(&c, seen, per_ms, MS, ring, 10 * MS),
		  "16MB ring at 1/8 of it per rest: may rest");
	check(!may_rest(&c, seen, per_ms + 1, MS, ring, 10 * MS),
		  "one byte a ms more: no rest");
	check(may_rest(&c, seen, per_ms + 1, MS, ring, 2 * MS), "but a 2 ms rest fits");
	seen.ring_fill = 0.5;
	check(!may_rest(&c, seen, per_ms / 2 + 1, MS, ring, 10 * MS) &&
		  may_rest(&c, seen, per_ms / 2, MS, ring, 10 * MS),
		  "the ring half full: half the rate");
	seen = busy_tick();
	/* 32kB ring: 4 kB per rest at most, 400 bytes a ms for 10 ms */
	check(!may_rest(&c, seen, 8192, MS, 32 << 10, 2 * MS), "32kB ring, a page a ms: never rests");
	check(may_rest(&c, seen, 400, MS, 32 << 10, 10 * MS),
		  "32kB ring, 400 B a ms (one small commit): may rest");
	/* the rate is per elapsed time: 16 kB over a 10 ms rest is 1.6 kB a ms */
	check(may_rest(&c, seen, 16 << 10, 10 * MS, 1 << 20, 10 * MS),
		  "16 kB in 10 ms on 1MB: may rest 10 ms");
	check(!may_rest(&c, seen, 16 << 10, MS, 1 << 20, 10 * MS), "16 kB in 1 ms on 1MB: no rest");
	check(may_rest(&c, seen, 0, 0, 1 << 20, 10 * MS), "no time and no WAL: may rest");
	check(!may_rest(&c, seen, 1, 0, 1 << 20, 10 * MS), "no time but some WAL: no rest");
}

/*
 * After a wait, as the collector calls it: a tracked wait (or an open
 * episode) at one tick, then quiet ticks under load.  Returns how many
 * quiet ticks chose the sample interval before the first rest, and sets
 * *first to that rest.
 */
static int
base_ticks_after_wait(bool open_episode, uint64_t *first)
{
	WalStallCadence c;
	WalStallTickSeen seen = writing_tick();
	uint64_t	interval = MS;
	int			n = 0;

	fresh(&c, 8 * MS);
	c.elapsed_ns = MS;
	c.resting = true;
	c.sleep_ns = 10 * MS;
	c.quiet_ticks = 50;
	if (open_episode)
		seen.episode_open = true;
	else
		seen.tracked_wait = true;
	(void) rest_step(&c, &seen);
	seen = writing_tick();
	while (n < 100)
	{
		interval = rest_step(&c, &seen);
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
	WalStallCadence c;
	WalStallTickSeen seen = writing_tick();
	WalStallTickSeen idle = quiet_tick();
	uint64_t	interval = MS;
	int			n = 0;
	uint64_t	steps[8];

	fresh(&c, 8 * MS);
	c.elapsed_ns = MS;
	for (int i = 0; i < WS_QUIET_TICKS_BEFORE_REST; i++)
		interval = rest_step(&c, &seen);
	check(interval == MS, "under load the first %d quiet ticks keep 1 ms",
		  WS_QUIET_TICKS_BEFORE_REST);
	while (n < 8)
		steps[n++] = rest_step(&c, &seen);
	check(steps[0] == 2 * MS && steps[1] == 4 * MS && steps[2] == 8 * MS &&
		  steps[3] == 10 * MS && steps[7] == 10 * MS,
		  "then 2, 4, 8, 10 ms and no further under load (%d intervals)",
		  WS_LOAD_REST_INTERVALS);
	seen.tracked_wait = true;
	check(rest_step(&c, &seen) == MS && c.quiet_ticks == 0,
		  "the first tracked wait: straight back to 1 ms");
	seen.tracked_wait = false;
	check(rest_step(&c, &seen) == MS, "and no rest right after it");

	/* resting under load, the insert rate climbs: back to 1 ms at once */
	c.resting = true;
	c.sleep_ns = 10 * MS;
	c.quiet_ticks = 50;
	c.elapsed_ns = 10 * MS;
	seen.inserted_bytes = 5 << 20;
	check(rest_step(&c, &seen) == MS && c.quiet_ticks == 0,
		  "5MB in a 10 ms rest on 16MB: a wrap is possible within a rest, 1 ms");

	/* from an idle rest to work: down to the load's longest rest */
	c.resting = true;
	c.sleep_ns = 100 * MS;
	c.quiet_ticks = 50;
	check(rest_step(&c, &idle) == 100 * MS, "idle: the idle rest (100 ms) as before");
	seen.inserted_bytes = 0;
	check(rest_step(&c, &seen) == 100 * MS, "read-only work after an idle rest: rests on, 100 ms");
	seen.inserted_bytes = 200;
	check(rest_step(&c, &seen) == 10 * MS, "work that inserts WAL: down to 10 ms");
	c.settings.ring_bytes = 32 << 10;
	c.elapsed_ns = MS;
	seen.inserted_bytes = 8192;
	check(rest_step(&c, &seen) == MS, "write load on a 32kB ring: 1 ms");
	for (int i = 0; i < 100; i++)
		interval = rest_step(&c, &seen);
	check(interval == MS, "and it never rests there");

	/* the load's longest rest follows the sample interval, within idle_interval */
	c.settings.ring_bytes = 16 << 20;
	seen.inserted_bytes = 200;
	c.settings.sample_ns = 5 * MS;
	c.resting = true;
	c.sleep_ns = 40 * MS;
	c.quiet_ticks = 50;
	check(rest_step(&c, &seen) == 50 * MS, "sample interval 5 ms: rests up to 50 ms under load");
	c.settings.sample_ns = MS;
	c.settings.idle_ns = 4 * MS;
	c.sleep_ns = 10 * MS;
	check(rest_step(&c, &seen) == 4 * MS, "idle_interval 4 ms caps the load's rest too");
	c.settings.idle_ns = MS;
	check(rest_step(&c, &seen) == MS, "idle_interval = sample_interval: no rest under load either");
}

/* A cadence with no episodes seen, none open, no wrap-around class. */
static void
no_episodes(WalStallCadence *c)
{
	fresh(c, 8 * MS);
	c->classes[0].by_count = false;
}

/* n closed episodes of length_ns in class cls, counted against 1 ms */
static void
closed(WalStallCadence *c, int cls, int n, uint64_t length_ns)
{
	for (int i = 0; i < n; i++)
		ws_cadence_note_closed(c, cls, length_ns, 1);
}

/* The interval chosen from current_ns, up to max_ns. */
static uint64_t
choose(WalStallCadence *c, uint64_t current_ns, uint64_t max_ns)
{
	c->settings.max_ns = max_ns;
	c->interval_ns = current_ns;
	return longest_interval(c);
}

/* The interval the rules settle at from 1 ms, one doubling a tick. */
static uint64_t
settled(WalStallCadence *c, uint64_t max_ns)
{
	uint64_t	interval = MS;

	for (int tick = 0; tick < 16; tick++)
		interval = choose(c, interval, max_ns);
	return interval;
}

static void
test_interval_short_class(void)
{
	WalStallCadence c;

	/* a 32kB ring's wrap-arounds: about 1 ms each, hundreds a second */
	no_episodes(&c);
	closed(&c, 0, 300, MS);
	check(settled(&c, 8 * MS) == MS,
		  "a class of 1 ms episodes keeps the interval at 1 ms");
	c.classes[0].youngest_open_ns = 400 * MS;
	check(settled(&c, 8 * MS) == MS,
		  "... even while one of its episodes has lasted 400 ms");
	c.classes[0].youngest_open_ns = WS_NONE_OPEN;
	closed(&c, 1, 1, 3 * 1000 * MS);
	check(settled(&c, 8 * MS) == MS,
		  "... even beside a class of 3 s episodes (300 of 3,300 ms)");

	/* wrap-arounds of 1 to 3 ms, seen by one to three samples */
	no_episodes(&c);
	closed(&c, 0, 100, MS);
	closed(&c, 0, 100, 2 * MS);
	closed(&c, 0, 50, 3 * MS);
	closed(&c, 1, 1, 3 * 1000 * MS);
	check(settled(&c, 8 * MS) == MS,
		  "a class of 1-3 ms episodes beside 3 s ones (450 of 3,450 ms): 1 ms");

	/* the short class is between episodes: none open, recent ones short */
	no_episodes(&c);
	closed(&c, 0, 300, MS);
	closed(&c, 1, 2, 2000 * MS);
	c.classes[1].youngest_open_ns = 1500 * MS;
	check(choose(&c, 4 * MS, 8 * MS) == MS,
		  "from 4 ms: a short class between its episodes brings it back to 1 ms at once");

	/* sampled at 4 ms, waits shorter than 4 ms are one sample: 4 ms each */
	no_episodes(&c);
	for (int i = 0; i < 20; i++)
		ws_cadence_note_closed(&c, 0, 4 * MS, 1);
	check(choose(&c, 4 * MS, 8 * MS) == 2 * MS,
		  "one-sample episodes at 4 ms (4 ms each): down to 2 ms at once");

	/* the time, not the number, of short episodes decides: half of it */
	no_episodes(&c);
	closed(&c, 0, 80, MS);
	closed(&c, 0, 10, 8 * MS);
	check(settled(&c, 8 * MS) == 4 * MS,
		  "80 waits of 1 ms beside 10 of 8 ms (80 of 160 ms short): 4 ms");
	closed(&c, 0, 1, MS);
	check(settled(&c, 8 * MS) == MS,
		  "one more of 1 ms (81 of 161 ms short): 1 ms");
}

/* A 32kB ring's wrap-arounds on a slow disk: p50 about 4 ms, p95 19 ms. */
static void
wrap_arounds(WalStallCadence *c, int cls, int times)
{
	for (int i = 0; i < times; i++)
	{
		closed(c, cls, 20, MS);
		closed(c, cls, 15, 2 * MS);
		closed(c, cls, 20, 4 * MS);
		closed(c, cls, 20, 7 * MS);
		closed(c, cls, 15, 14 * MS);
		closed(c, cls, 10, 40 * MS);
	}
}

static void
test_interval_wrap_around_class(void)
{
	WalStallCadence c;

	/* by their time such waits are long: most of it is in the long ones */
	no_episodes(&c);
	wrap_arounds(&c, 0, 3);
	check(settled(&c, 8 * MS) == 4 * MS,
		  "wrap-around lengths in a class judged by time: 4 ms (31 per cent of it under 8 ms)");
	/* a wrap-around class is judged by their number: 1 ms */
	no_episodes(&c);
	c.classes[0].by_count = true;
	wrap_arounds(&c, 0, 3);
	check(settled(&c, 8 * MS) == MS,
		  "the same in the wrap-around class: 1 ms");
	/* even as a sliver of the time beside long commit waits */
	closed(&c, 1, 1000, 50 * MS);
	check(settled(&c, 8 * MS) == MS,
		  "... even with 1,980 ms of 51,980 (1/26): 1 ms");
	check(choose(&c, 8 * MS, 8 * MS) == MS,
		  "... and from 8 ms back to 1 ms at once");

	/* one short episode in 16 is tolerated, two are not */
	no_episodes(&c);
	c.classes[0].by_count = true;
	closed(&c, 0, 15, 100 * MS);
	closed(&c, 0, 1, MS);
	check(settled(&c, 8 * MS) == 8 * MS,
		  "wrap-arounds, 1 under four periods in 16: 8 ms");
	closed(&c, 0, 1, MS);
	check(settled(&c, 8 * MS) < 8 * MS,
		  "2 in 17: not 8 ms");

	/* however few its recent episodes */
	no_episodes(&c);
	c.classes[0].by_count = true;
	closed(&c, 0, 2, 2 * MS);
	closed(&c, 1, 1000, 50 * MS);
	check(settled(&c, 8 * MS) == MS,
		  "two recent wrap-arounds of 2 ms beside long commit waits: 1 ms");

	/* its young episodes must last four periods, not two */
	no_episodes(&c);
	c.classes[0].by_count = true;
	c.classes[0].youngest_open_ns = 8 * MS;
	check(settled(&c, 8 * MS) == 2 * MS,
		  "a wrap-around open for 8 ms, nothing closed: 2 ms (8 = 4 x 2)");
}

static void
test_interval_rare_class(void)
{
	WalStallCadence c;
	uint64_t	interval;

	/* a CLOG wait now and then beside long commit waits */
	no_episodes(&c);
	closed(&c, 0, 1, 50 * MS);
	closed(&c, 1, WS_JUDGED_MIN_EPISODES - 1, MS);
	check(settled(&c, 8 * MS) == 8 * MS,
		  "fewer than WS_JUDGED_MIN_EPISODES short episodes: not judged, 8 ms");
	c.classes[1].youngest_open_ns = MS;
	check(choose(&c, 8 * MS, 8 * MS) == MS,
		  "... but a young one of them brings the interval back to 1 ms at once");
	c.classes[1].youngest_open_ns = 4 * MS;
	interval = choose(&c, MS, 8 * MS);
	check(interval == 2 * MS, "... and allows 2 ms once it has lasted 4 ms");
	c.classes[1].youngest_open_ns = WS_NONE_OPEN;
	closed(&c, 1, 1, MS);
	check(settled(&c, 8 * MS) == MS,
		  "WS_JUDGED_MIN_EPISODES short episodes, 8 of 58 ms: judged short, 1 ms");

	/* a minor class: short episodes, under a sixteenth of the time */
	no_episodes(&c);
	closed(&c, 0, 100, 50 * MS);
	closed(&c, 1, 312, MS);
	check(settled(&c, 8 * MS) == 8 * MS,
		  "312 ms of 1 ms waits beside 5,000 ms of 50 ms ones (1/17): 8 ms");
	closed(&c, 1, 22, MS);
	check(settled(&c, 8 * MS) == MS,
		  "334 ms of them (1/16): 1 ms");
}

/* The WAL insert waits of 50 tpcb-like clients, in class 1, times over. */
static void
wal_insert_waits(WalStallCadence *c, int times)
{
	for (int i = 0; i < times; i++)
	{
		closed(c, 1, 76, MS);
		closed(c, 1, 52, 2 * MS);
		closed(c, 1, 23, 3 * MS);
		closed(c, 1, 22, 4 * MS);
		closed(c, 1, 28, 6 * MS);
		closed(c, 1, 10, 12 * MS);
		closed(c, 1, 4, 24 * MS);
	}
}

static void
test_interval_long_episodes(void)
{
	WalStallCadence c;
	uint64_t	interval;

	/* a 16MB ring's wrap-arounds: seconds each */
	no_episodes(&c);
	closed(&c, 0, 20, 2000 * MS);
	check(settled(&c, 8 * MS) == 8 * MS,
		  "a class of 2 s episodes: 8 ms");
	check(choose(&c, MS, 8 * MS) == 2 * MS,
		  "one doubling a tick: 1 ms to 2 ms");
	check(choose(&c, 2 * MS, 8 * MS) == 4 * MS,
		  "then 4 ms");
	check(settled(&c, 5 * MS) == 4 * MS,
		  "max_sample_interval 5 ms: the longest power of two below, 4 ms");
	check(settled(&c, MS) == MS,
		  "max_sample_interval = sample_interval: adaptation off");
	check(settled(&c, MS / 2) == MS,
		  "max_sample_interval below sample_interval: adaptation off");

	/* episodes of 6 ms: long against 2 ms (4 ms), not against 4 ms (8) */
	no_episodes(&c);
	closed(&c, 0, 100, 6 * MS);
	check(settled(&c, 8 * MS) == 2 * MS,
		  "6 ms episodes: 2 ms, two periods or more");

	/*
	 * 50 tpcb-like clients' waits on this project's machine, by samples at
	 * 1 ms (2,683, 3,028, 4,936, 5,226, 2,717, 315 and 54 wal_flush
	 * episodes of 1, 2, 3-4, 5-8, 9-16, 17-32 and more samples; 76, 52,
	 * 45, 28, 10 and 4 wal_insert ones), with the buckets' episodes spread
	 * over their lengths: commit waits have 47% of their time in episodes
	 * under 8 ms, WAL insert waits 35% under 4 ms and 70% under 8.
	 */
	no_episodes(&c);
	closed(&c, 0, 2700, MS);
	closed(&c, 0, 3000, 2 * MS);
	closed(&c, 0, 2500, 3 * MS);
	closed(&c, 0, 2400, 4 * MS);
	for (int samples = 5; samples <= 8; samples++)
		closed(&c, 0, 1300, samples * MS);
	closed(&c, 0, 2700, 12 * MS);
	closed(&c, 0, 300, 24 * MS);
	closed(&c, 0, 100, 48 * MS);
	c.classes[0].youngest_open_ns = 0;
	check(settled(&c, 8 * MS) == 4 * MS,
		  "commit waits of 50 tpcb-like clients, one just begun: 4 ms");
	wal_insert_waits(&c, 1);
	check(settled(&c, 8 * MS) == 4 * MS,
		  "... with their WAL insert waits, 0.7 per cent of the time: still 4 ms");
	c.classes[1].youngest_open_ns = MS;
	check(choose(&c, 4 * MS, 8 * MS) == 2 * MS,
		  "... down to 2 ms at once while a WAL insert wait is 1 ms old (long against 2 ms)");
	c.classes[1].youngest_open_ns = WS_NONE_OPEN;
	wal_insert_waits(&c, 15);
	check(settled(&c, 8 * MS) == 2 * MS,
		  "WAL insert waits 16 times as many, 10 per cent of the time: 2 ms (35 per cent of it under 4 ms, 70 under 8)");
	closed(&c, 2, 8500, MS);
	check(settled(&c, 8 * MS) == MS,
		  "and 1 ms wrap-arounds, 6.4 per cent of the time: 1 ms");

	/* open episodes of a class with no recent ones: their age decides */
	no_episodes(&c);
	c.classes[2].youngest_open_ns = MS;
	check(settled(&c, 8 * MS) == MS,
		  "an open episode of 1 ms, nothing closed: 1 ms");
	c.classes[2].youngest_open_ns = 8 * MS;
	interval = choose(&c, MS, 8 * MS);
	interval = choose(&c, interval, 8 * MS);
	check(interval == 4 * MS, "every open episode 8 ms old: 4 ms (8 = 2 x 4)");
	interval = choose(&c, interval, 8 * MS);
	check(interval == 4 * MS, "... not 8 ms (16 > 8)");
	c.classes[2].youngest_open_ns = 16 * MS;
	interval = choose(&c, interval, 8 * MS);
	check(interval == 8 * MS, "16 ms old: 8 ms");

	/* a new episode in a class without long recent ones: back at once */
	c.classes[1].youngest_open_ns = MS;
	check(choose(&c, interval, 8 * MS) == MS,
		  "from 8 ms: a young episode of another class brings it back to 1 ms at once");
	/* ... but not when its class's recent episodes were long */
	closed(&c, 1, 20, 500 * MS);
	check(choose(&c, interval, 8 * MS) == 8 * MS,
		  "a young episode of a class whose recent episodes lasted 500 ms: 8 ms");

	/* nothing followed at all: the base interval (resting is another rule) */
	no_episodes(&c);
	check(settled(&c, 8 * MS) == MS, "nothing followed: 1 ms");
}

static void
test_interval_forgets(void)
{
	WalStallCadence c;

	no_episodes(&c);
	closed(&c, 0, 300, MS);
	closed(&c, 1, 2, 2000 * MS);
	check(settled(&c, 8 * MS) == MS, "short wrap-arounds seen: 1 ms");
	/* the short class stops; a second or two halves its counts to nothing */
	for (int second = 0; second < 9; second++)
	{
		ws_cadence_forget_half(&c);
		if (second % 4 == 0)
			closed(&c, 1, 1, 2000 * MS);
	}
	check(c.classes[0].episodes == 0 && c.classes[0].time_ns == 0 &&
		  c.classes[0].shorter_ns[0] == 0,
		  "nine seconds later the short class is forgotten, its times too");
	check(settled(&c, 8 * MS) == 8 * MS,
		  "then the long class alone: 8 ms");
	/* halving keeps the shares */
	no_episodes(&c);
	closed(&c, 0, 100, MS);
	closed(&c, 0, 30, 4 * MS);
	ws_cadence_forget_half(&c);
	check(c.classes[0].episodes == 65 && c.classes[0].time_ns == 110 * MS &&
		  c.classes[0].shorter_ns[1] == 50 * MS,
		  "halved: 65 episodes, 110 ms, 50 ms of it under 4 ms");
	/* and the counts never overflow */
	c.classes[2].episodes = UINT32_MAX;
	ws_cadence_note_closed(&c, 2, MS, 1);
	check(c.classes[2].episodes == UINT32_MAX && c.classes[2].shorter_ns[0] == 0,
		  "a full count stays full");
	/* an episode counted in a burst stands for its weight */
	no_episodes(&c);
	ws_cadence_note_closed(&c, 1, MS, 8);
	ws_cadence_note_closed(&c, 1, 10 * MS, 0);
	check(c.classes[1].episodes == 8 && c.classes[1].observed == 1 && c.classes[1].time_ns == 8 * MS &&
		  c.classes[1].shorter[0] == 8 && c.classes[1].shorter_ns[0] == 8 * MS,
		  "an episode of weight 8: 8 episodes, 8 ms, seen once; one of weight 0: nothing");
	check(!class_is_short(&c.classes[1], 1, c.classes[1].time_ns),
		  "... one episode seen is not the evidence a short class needs, whatever its weight");
}

/*
 * Counting episodes in bursts: what the cadence knows of 50 tpcb-like
 * clients' commit waits on a fast disk, 1-2 ms each, a few 4-8 ms.
 */
static void
know_commit_waits(WalStallCadence *c)
{
	forget_classes(c);
	closed(c, 1, 300, MS);
	closed(c, 1, 200, 2 * MS);
	closed(c, 1, 30, 6 * MS);
}

/* ... in a fresh cadence. */
static void
commit_waits(WalStallCadence *c)
{
	fresh(c, 8 * MS);
	know_commit_waits(c);
}

/* The count weight of an episode that begins in (prev_ns, now_ns]. */
static uint32_t
weight_in(WalStallCadence *c, uint64_t prev_ns, uint64_t now_ns)
{
	c->rule = count_rule(c, prev_ns, now_ns);
	return ws_cadence_episode_weight(c, 1);
}

static void
test_bursts_cycles(void)
{
	WalStallCadence c;
	uint64_t	from;
	int			drawn = 0;
	int			slots[8] = {0};
	bool		every_slot = true;

	fresh(&c, 8 * MS);
	check(weight_in(&c, 0, MS) == 1, "before any cycle: every episode counts once");
	c.burst_next = true;
	begin_cycle(&c, 1000 * MS);
	check(c.burst_cycle && c.cycle.start_ns == 1000 * MS && c.cycle.end_ns == 1064 * MS &&
		  c.cycle.slot_ns == 8 * MS &&
		  (c.cycle.slot_from_ns - 1000 * MS) % (8 * MS) == 0 &&
		  c.cycle.count_to_ns == c.cycle.count_from_ns && c.cycle.weight == 8,
		  "a burst cycle: 64 ms, its burst in one slot of 8 ms, counting 8 each, nothing yet");
	from = c.cycle.slot_from_ns + MS / 2;
	check(in_burst(&c, from - MS / 2) && !in_burst(&c, from - MS),
		  "its slot is sampled at the sample interval");
	begin_burst(&c, from - MS);
	check(!c.burst_armed, "a tick before its slot does not arm the burst");
	begin_burst(&c, from);
	check(c.burst_armed && !c.burst_begun,
		  "the first tick in its slot, after a long sleep, arms it");
	check(count_rule(&c, from - 6 * MS, from).share[WS_COUNT_CURRENT] == 0.0,
		  "... and the long interval that ends on that tick counts nothing");
	from += MS + MS / 10;
	begin_burst(&c, from);
	check(c.burst_begun && c.cycle.count_from_ns == from &&
		  c.cycle.count_to_ns == from + 8 * MS,
		  "the next, a sample interval on, begins the burst: 8 ms from there");
	check(count_rule(&c, from - MS, from).share[WS_COUNT_CURRENT] == 0.0,
		  "... the interval before it counts nothing either");
	check(weight_in(&c, from, from + MS) == 8 && c.burst_counted[WS_COUNT_CURRENT][1] == 1,
		  "an episode that begins in the burst counts as 8, noted in the burst's count");
	check(weight_in(&c, from + 8 * MS, from + 10 * MS) == 0,
		  "... one that begins after it is not counted");
	check(count_rule(&c, from + 7 * MS + MS / 2, from + 8 * MS + MS / 2).share[WS_COUNT_CURRENT] == 0.5,
		  "... one in an interval half in the burst, with probability 1/2");
	check(in_burst(&c, from) && !in_burst(&c, from + 8 * MS), "the burst is the slot's 8 ms");
	for (int i = 0; i < 10000; i++)
		drawn += weight_in(&c, from + 7 * MS + MS / 2, from + 8 * MS + MS / 2) == 8;
	check(drawn > 4800 && drawn < 5200, "share 1/2: %d of 10,000 counted", drawn);
	check(weight_in(&c, from, from + MS) == 8 && (c.classes[0].by_count = true) &&
		  ws_cadence_episode_weight(&c, 0) == 1,
		  "a wrap-around that begins in the burst counts once, as anywhere");
	begin_cycle(&c, 1063 * MS);
	check(c.cycle.start_ns == 1000 * MS, "the cycle holds until its end");
	check(burst_deadline(&c, 1062 * MS, 1070 * MS) == 1064 * MS &&
		  burst_deadline(&c, 1060 * MS, 1062 * MS) == 1062 * MS,
		  "a burst cycle's sleep ends where it ends");
	c.cycle.slot_from_ns = 1040 * MS;
	c.burst_armed = c.burst_begun = false;
	check(burst_deadline(&c, 1036 * MS, 1044 * MS) == 1040 * MS &&
		  burst_deadline(&c, 1041 * MS, 1042 * MS) == 1042 * MS,
		  "... and where its burst begins, when it is still to come");
	c.cycle.slot_from_ns = 1056 * MS;
	c.cycle.count_from_ns = c.cycle.count_to_ns = 1056 * MS;
	(void) ws_cadence_wake(&c, 1056 * MS, false);
	(void) ws_cadence_wake(&c, 1065 * MS, false);
	check(c.cycle.start_ns == 1000 * MS && c.burst_begun &&
		  c.cycle.count_from_ns == 1065 * MS && c.cycle.end_ns == 1073 * MS,
		  "a burst whose slot passed before its second tick (a starved CPU) begins all the same, "
		  "its cycle ending after it");
	c.cycle.end_ns = 1064 * MS;
	/* its burst, as if it had begun at 1041 ms */
	c.cycle.count_from_ns = 1041 * MS;
	c.cycle.count_to_ns = 1049 * MS;
	c.burst_begun = true;
	c.burst_next = false;
	begin_cycle(&c, 1064 * MS + 3 * MS);
	check(!c.burst_cycle && c.cycle.start_ns == 1064 * MS && c.before.start_ns == 1000 * MS,
		  "the next cycle begins where the last ended, a tick late or not");
	check(c.burst_counted[WS_COUNT_BEFORE][1] > 0 && c.burst_counted[WS_COUNT_CURRENT][1] == 0,
		  "... and the burst's counts become the cycle before's");
	c.rule = count_rule(&c, 1046 * MS + MS / 2, 1065 * MS);
	check(c.rule.share[WS_COUNT_BEFORE] > 0.0 && c.rule.weight[WS_COUNT_BEFORE] == 8 &&
		  c.rule.share[WS_COUNT_CURRENT] > 0.0 && c.rule.weight[WS_COUNT_CURRENT] == 1,
		  "an interval across two cycles is counted by both: the burst's part as 8, the rest of the next as 1");
	check(burst_deadline(&c, 1065 * MS, 1300 * MS) == 1300 * MS,
		  "a cycle that counts every episode sleeps freely");
	c.burst_next = true;
	check(burst_deadline(&c, 1065 * MS, 1300 * MS) == 1128 * MS,
		  "... unless a burst cycle is expected next");
	begin_cycle(&c, 1400 * MS);
	check(c.cycle.start_ns == 1400 * MS, "after a gap of a whole cycle, the next begins now");
	check(count_rule(&c, 1128 * MS, 1400 * MS + MS).share[WS_COUNT_OUTSIDE] > 0.99,
		  "... and what fell in the gap counts once");
	for (int i = 0; i < 800; i++)
	{
		c.burst_begun = true;	/* each burst sampled: the cycle may end */
		begin_cycle(&c, c.cycle.end_ns);
		slots[(c.cycle.slot_from_ns - c.cycle.start_ns) / (8 * MS)]++;
	}
	for (int i = 0; i < 8; i++)
		every_slot &= slots[i] > 60 && slots[i] < 140;
	check(every_slot, "the burst's slot is drawn: %d %d %d %d %d %d %d %d of 800",
		  slots[0], slots[1], slots[2], slots[3], slots[4], slots[5], slots[6], slots[7]);
	c.settings.episode_sampling = 1;
	c.burst_begun = true;
	begin_cycle(&c, c.cycle.end_ns);
	check(!c.burst_cycle && c.cycle.weight == 1,
		  "wal_stall.episode_sampling = 1: no burst cycle");
	ws_cadence_reset(&c);
	check(!c.started && weight_in(&c, 0, MS) == 1,
		  "after a reset: no cycle, every episode counts once");
}

static void
test_bursts_variance(void)
{
	int64_t		last = -1;
	int64_t		v1;
	int64_t		v2;
	int64_t		v3;

	check(burst_variance(1, 100, &last) == 0 && last == -1,
		  "a cycle that counts every episode adds no variance");
	v1 = burst_variance(8, 16, &last);
	v2 = burst_variance(8, 20, &last);
	v3 = burst_variance(8, 20, &last);
	check(v1 == 8 * 7 * 16 && v2 == 64 * 16 / 2 && v3 == 0 && last == 20,
		  "the first burst cycle: 8 x 7 x 16; then half of 64 times the squared difference: %lld, %lld, %lld",
		  (long long) v1, (long long) v2, (long long) v3);
	(void) burst_variance(1, 0, &last);
	check(burst_variance(8, 24, &last) == 64 * 16 / 2,
		  "a cycle that was not a burst cycle between two: the two are compared");
}

/* Would bursts help, up to max_ns? */
static bool
help(WalStallCadence *c, uint64_t max_ns)
{
	WalStallCadenceSettings settings = c->settings;

	settings.max_ns = max_ns;
	ws_cadence_configure(c, &settings, 0);
	return bursts_help(c);
}

static void
test_bursts_help(void)
{
	WalStallCadence c;

	commit_waits(&c);
	check(settled(&c, 8 * MS) == MS, "commit waits of 1-2 ms hold the time rule at 1 ms");
	check(help(&c, 8 * MS), "... so bursts help");
	check(!help(&c, MS),
		  "... unless the interval may not grow (max_sample_interval = sample_interval)");
	closed(&c, 0, 1, MS);
	check(!help(&c, 8 * MS), "a recent short wrap-around: no bursts, every wrap-around counted");
	commit_waits(&c);
	c.classes[0].youngest_open_ns = MS;
	check(!help(&c, 8 * MS), "a young wrap-around open, none closed: no bursts");
	/* a slower WAL disk: commit waits of 4 ms, a few of 10 */
	no_episodes(&c);
	c.classes[0].by_count = true;
	closed(&c, 1, 300, 4 * MS);
	closed(&c, 1, 50, 10 * MS);
	check(settled(&c, 8 * MS) == 2 * MS,
		  "commit waits of 4 ms hold the time rule at 2 ms, 32 ticks a 64 ms cycle");
	check(help(&c, 8 * MS), "... so bursts help: a burst cycle takes about 20 (%.1f)",
		  burst_cycle_ticks(&c.settings));
	check(burst_step(&c.settings) == 2, "up to 8 ms, bursts are judged against 4 ms");
	c.settings.max_ns = 64 * MS;
	check(burst_step(&c.settings) == 2 && help(&c, 64 * MS),
		  "up to 64 ms, against 4 ms too: at 8 ms the time rule ticks 8 times a cycle, "
		  "fewer than a burst cycle's %.1f", burst_cycle_ticks(&c.settings));
	c.settings.max_ns = 2 * MS;
	check(burst_step(&c.settings) == 1 && !help(&c, 2 * MS),
		  "up to 2 ms, against 2 ms: 4 ms waits hold 2 ms, no bursts");
	c.settings.max_ns = 8 * MS;
	c.settings.episode_sampling = 2;
	check(burst_step(&c.settings) == 1 && !help(&c, 8 * MS),
		  "cycles of 2 slots (16 ms): bursts only where the time rule would hold 1 ms "
		  "(a burst cycle takes %.1f ticks)", burst_cycle_ticks(&c.settings));
	c.settings.episode_sampling = 16;
	check(burst_step(&c.settings) == 3 && help(&c, 8 * MS),
		  "cycles of 16 slots (128 ms, the default): about %.0f ticks, against 32 at 4 ms: "
		  "bursts where the class holds 4 ms or less", burst_cycle_ticks(&c.settings));
	/* commit waits of 10 ms: long against 4 ms, short against 8 */
	no_episodes(&c);
	c.classes[0].by_count = true;
	closed(&c, 1, 300, 10 * MS);
	check(settled(&c, 8 * MS) == 4 * MS && !help(&c, 8 * MS),
		  "waits of 10 ms hold the time rule at 4 ms: at 8 slots no bursts");
	c.settings.episode_sampling = 16;
	check(help(&c, 8 * MS), "... at 16 slots bursts (28 ticks a cycle against 32)");
	c.settings.episode_sampling = 1;
	check(burst_step(&c.settings) == 0, "wal_stall.episode_sampling = 1: bursts never help");
	c.settings.episode_sampling = 8;
	c.settings.sample_ns = MS / 10;
	check(burst_step(&c.settings) == 2, "sampling at 0.1 ms up to 8 ms: against 0.4 ms");
	c.settings.sample_ns = MS;
	no_episodes(&c);
	c.classes[0].by_count = true;
	closed(&c, 1, 300, 20 * MS);
	check(!help(&c, 8 * MS), "long commit waits: the time rule lets the interval grow, no bursts");
	no_episodes(&c);
	c.classes[0].by_count = true;
	check(!help(&c, 8 * MS), "nothing followed: no bursts");
}

/* The interval outside the burst of a burst cycle. */
static uint64_t
burst_cycle_interval(WalStallCadence *c, uint64_t current_ns)
{
	c->burst_cycle = true;
	return choose(c, current_ns, 8 * MS);
}

static void
test_bursts_interval(void)
{
	WalStallCadence c;
	uint64_t	interval = MS;

	commit_waits(&c);
	for (int tick = 0; tick < 8; tick++)
		interval = burst_cycle_interval(&c, interval);
	check(interval == 8 * MS,
		  "outside the burst, short commit waits counted in it let the interval grow to 8 ms");
	check(burst_cycle_interval(&c, MS) == 2 * MS, "... one doubling a tick");
	c.classes[1].youngest_open_ns = MS;
	check(burst_cycle_interval(&c, 8 * MS) == 8 * MS,
		  "... an episode open but not counted does not hold it");
	c.classes[1].youngest_counted_open_ns = MS;
	check(burst_cycle_interval(&c, 8 * MS) == MS,
		  "a counted episode open for 1 ms holds it at 1 ms: it is being timed");
	c.classes[1].youngest_counted_open_ns = 5 * MS;
	check(burst_cycle_interval(&c, 8 * MS) == 2 * MS, "... at 5 ms, 2 ms (long against it)");
	c.classes[1].youngest_counted_open_ns = WS_NONE_OPEN;
	c.classes[0].youngest_open_ns = 2 * MS;
	check(burst_cycle_interval(&c, 8 * MS) == MS,
		  "a young wrap-around brings it back to 1 ms at once, counted or not");
	c.classes[0].youngest_open_ns = WS_NONE_OPEN;
	closed(&c, 0, 3, MS);
	check(burst_cycle_interval(&c, 8 * MS) == MS, "short wrap-arounds forbid any longer interval");
}

/* A reproducible pseudo-random number in [0, 1). */
static uint64_t sim_state = 88172645463325252ULL;

static double
sim_uniform(void)
{
	return (double) draw(&sim_state) / 9007199254740992.0;
}

#define SIM_EPISODES	40000

/* One simulated wait, and what the simulated collector saw of it. */
typedef struct SimWait
{
	int			cls;			/* 1 a commit wait, 0 a wrap-around */
	uint64_t	start;
	uint64_t	end;
	bool		seen;
	bool		closed;
	uint32_t	weight;
	uint64_t	first_ns;		/* the first sample's weight */
	uint64_t	first_interval_ns;	/* the interval it was taken at */
	uint64_t	time_ns;		/* its samples' weights */
} SimWait;

static SimWait sim[SIM_EPISODES];

/* What a simulated run gives, of the commit waits but the last. */
typedef struct SimResult
{
	double		truth;			/* waits closed */
	double		truth_ns;
	double		estimate;		/* their weighted count */
	double		variance;		/* its estimated variance */
	double		weighted_ns;	/* their lengths, weighted */
	double		counted_ns;		/* real time counted in bursts, times N */
	uint64_t	burst_cycles_ns;	/* time in burst cycles */
	long		ticks;
	long		cycles;
	long		burst_cycles;
	long		bursts_lost;	/* burst cycles that ended before their burst */
	double		seconds;
	long		wraps;			/* wrap-arounds closed */
	long		wraps_not_once; /* of them, those not counted as one */
} SimResult;

/* How long the simulated waits last: from sim_min_ns, up to sim_span_ns more. */
static uint64_t sim_min_ns = MS;
static uint64_t sim_span_ns = 4 * MS;

/* One in this many simulated waits is a wrap-around of 40-60 ms (0: none). */
static int	sim_wrap_every = 0;

/*
 * The collector starts knowing commit waits of 1-2 ms (know_commit_waits()),
 * and is told so again each second it has forgotten them; false: it knows
 * only what it sees of the simulated waits.
 */
static bool sim_told = true;

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
		sim[i].cls = 1;
		sim[i].start = t;
		sim[i].end = t + sim_min_ns + (uint64_t) (sim_uniform() * sim_span_ns);
		if (sim_wrap_every > 0 && i % sim_wrap_every == sim_wrap_every - 1)
		{
			sim[i].cls = 0;
			sim[i].end = t + 40 * MS + (uint64_t) (sim_uniform() * 20 * MS);
		}
	}
}

/*
 * One tick of the simulated collector at t: what collector.c's
 * apply_samples() does with the waits, through the same calls to the
 * cadence.  Returns true if a wait was open.
 */
static bool
sim_tick(WalStallCadence *c, const WalStallTick *tick, uint64_t t, int n, int *lo,
		 SimResult *r)
{
	bool		open = false;

	for (int i = *lo; i < n && sim[i].start <= t; i++)
	{
		SimWait    *w = &sim[i];

		if (w->closed)
			continue;
		if (w->end <= t)
		{
			/* over: close it, if it was seen */
			uint64_t	length = w->time_ns - w->first_ns +
				ws_first_sample_length(w->first_ns, w->first_interval_ns);

			w->closed = true;
			if (w->seen && w->cls == 0)
			{
				r->wraps++;
				r->wraps_not_once += w->weight != 1;
			}
			if (w->seen && w->weight > 0)
			{
				ws_cadence_note_closed(c, w->cls, length, w->weight);
				if (w->cls == 1)
				{
					r->estimate += w->weight;
					r->weighted_ns += (double) w->weight * length;
				}
			}
			continue;
		}
		open = true;
		if (!w->seen)
		{
			w->seen = true;
			w->weight = ws_cadence_episode_weight(c, w->cls);
			w->first_ns = tick->elapsed_ns;
			w->first_interval_ns = tick->interval_ns;
		}
		w->time_ns += tick->elapsed_ns;
		ws_cadence_note_open(c, w->cls,
							 w->time_ns - w->first_ns +
							 ws_first_sample_length(w->first_ns, w->first_interval_ns),
							 w->weight > 0);
	}
	while (*lo < n && sim[*lo].closed)
		(*lo)++;
	return open;
}

/*
 * A collector that follows the first n waits of sim[] by the cadence's
 * entry points, as collector.c's loop calls them, with the scheduler
 * waking it late: up to 0.1 ms after an interval of 1 ms, up to 0.6 ms
 * after a longer sleep, so that the tick that begins a burst is later
 * than those within it.  It goes on for three cycles after the last wait
 * begins, so that every burst cycle's variance is taken.
 */
/*
 * A share of the ticks that end a sleep longer than the sample interval
 * comes later still, by up to sim_starved_ns: a CPU busy elsewhere.
 */
static double sim_starved_share = 0;
static uint64_t sim_starved_ns = 0;

/* wal_stall.episode_sampling in the simulated collector */
static int	sim_slots = 8;

/* A cycle of the simulated collector: sim_slots slots of a burst's length. */
static uint64_t
sim_cycle_ns(void)
{
	return (uint64_t) sim_slots * WS_BURST_INTERVALS * MS;
}

static SimResult
sim_collect(int n)
{
	WalStallCadence c;
	WalStallCadenceSettings settings = {MS, 8 * MS, MS, sim_slots, 16 << 20,
	NCLASSES, NCLASSES, 0};
	SimResult	r = {0};
	uint64_t	t = MS;
	uint64_t	next_second = 1000 * MS;
	uint64_t	horizon = sim[n - 1].start;
	uint64_t	cycle_start = UINT64_MAX;
	int			lo = 0;

	ws_cadence_init(&c, &settings, 0, draw(&sim_state) | 1);
	if (sim_told)
		know_commit_waits(&c);
	while (t < horizon + 3 * sim_cycle_ns())
	{
		WalStallTick tick = ws_cadence_wake(&c, t, false);
		WalStallTickSeen seen = writing_tick();

		if (c.cycle.start_ns != cycle_start)
		{
			cycle_start = c.cycle.start_ns;
			r.cycles++;
			r.burst_cycles += c.burst_cycle;
			if (c.before.weight > 1)
				r.burst_cycles_ns += c.before.end_ns - c.before.start_ns;
			/* a burst cycle that ended with its burst never sampled */
			r.bursts_lost += c.before.weight > 1 &&
				c.before.count_from_ns == c.before.count_to_ns;
		}
		for (int p = WS_COUNT_BEFORE; p <= WS_COUNT_CURRENT; p++)
			if (c.rule.weight[p] > 1)
				r.counted_ns += c.rule.share[p] * c.rule.weight[p] * tick.elapsed_ns;
		r.ticks += t < horizon;
		seen.tracked_wait = seen.episode_open = sim_tick(&c, &tick, t, n, &lo, &r);
		r.variance += ws_cadence_take_variance(&c, 1);
		if (t >= next_second)
		{
			ws_cadence_forget_half(&c);
			/* the load's commit waits, as the collector knew them before */
			if (sim_told && c.classes[1].episodes < WS_JUDGED_MIN_EPISODES && t < horizon)
				know_commit_waits(&c);
			next_second += 1000 * MS;
		}
		ws_cadence_next(&c, &seen, t);
		t = c.deadline_ns + (uint64_t) (sim_uniform() * (c.sleep_ns > MS ? 0.6 : 0.1) * MS);
		if (c.sleep_ns > MS && sim_uniform() < sim_starved_share)
			t += (uint64_t) (sim_uniform() * sim_starved_ns);
	}
	/* a wait shorter than an interval is caught with the odds of its length */
	for (int i = 0; i < n; i++)
	{
		uint64_t	length = sim[i].end - sim[i].start;

		if (!sim[i].closed || sim[i].cls != 1)
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
 * 20 s of steady waits from sim_waits(), 2 a millisecond, followed by the
 * simulated collector: nearly every cycle a burst cycle, the weighted
 * count and mean length those of all waits, fewer than max_per_s ticks a
 * second (against: what the collector would wake without bursts).
 */
static SimResult
check_steady_run(const char *what, double max_per_s, const char *against)
{
	SimResult	r;
	double		sd;

	sim_waits(SIM_EPISODES, 2.0, 0, 0);
	r = sim_collect(SIM_EPISODES);
	sd = sqrt(r.variance);
	check(r.burst_cycles * 10 >= r.cycles * 9,
		  "%s: %ld of %ld cycles burst cycles", what, r.burst_cycles, r.cycles);
	check(fabs(r.estimate - r.truth) <= 4 * sd && sd > 0 && sd < r.truth * 0.05,
		  "... weighted count %.0f +- %.0f against %.0f waits", r.estimate, sd, r.truth);
	check(fabs(r.weighted_ns / r.estimate - r.truth_ns / r.truth) < 0.05 * r.truth_ns / r.truth,
		  "... mean length %.3f ms against %.3f ms",
		  r.weighted_ns / r.estimate / MS, r.truth_ns / r.truth / MS);
	check(r.ticks < r.seconds * max_per_s,
		  "... %ld ticks in %.1f s: %.0f a second, against %s",
		  r.ticks, r.seconds, r.ticks / r.seconds, against);
	return r;
}

/*
 * At sim_slots slots a cycle: over 20 s of steady commit waits, fewer than
 * max_per_s ticks a second (against: what without bursts), N times the
 * real time counted in bursts that of the burst cycles, and the count
 * unbiased over many runs, of steady waits (the estimated variance that of
 * the errors) and of spells of 20 ms every 120, over spell_runs runs: one
 * burst in N finds a spell or not, so more slots need more runs for the
 * same precision.
 */
static void
check_bursts_unbiased(double max_per_s, const char *against, int spell_runs)
{
	SimResult	r;
	double		error;
	double		z2;
	char		what[64];

	snprintf(what, sizeof(what), "%d slots, steady commit waits", sim_slots);
	r = check_steady_run(what, max_per_s, against);
	check(fabs(r.counted_ns - r.burst_cycles_ns) <
		  0.005 * r.burst_cycles_ns + sim_cycle_ns(),
		  "%d times the real time counted in bursts is %.4f of the burst cycles' time",
		  sim_slots, r.counted_ns / r.burst_cycles_ns);
	sim_runs(400, 4000, 2.0, 0, 0, &error, &z2);
	check(fabs(error) < 0.01 && z2 > 0.5 && z2 < 1.5,
		  "%d slots, 400 runs of 4,000 steady waits: mean error %+.2f%%, "
		  "mean squared error %.2f estimated variances", sim_slots, 100 * error, z2);
	sim_runs(spell_runs, 4000, 6.0, 20, 100, &error, &z2);
	check(fabs(error) < 0.025,
		  "%d slots, %d runs of 4,000 waits in spells of 20 ms every 120: mean error %+.2f%%",
		  sim_slots, spell_runs, 100 * error);
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
	double		error;
	double		z2;

	check_bursts_unbiased(400, "1,000 at 1 ms", 400);
	sim_runs(400, 4000, 6.0, 8, 30, &error, &z2);
	check(fabs(error) < 0.02,
		  "400 runs of 4,000 waits in spells of 8 ms every 38: mean error %+.2f%%", 100 * error);

	/*
	 * Waits shorter than an interval, 0.2-0.6 ms: what a sampler at 1 ms
	 * catches of them, a share as large as their length, is what the
	 * bursts estimate, less what the cycles that count every episode miss
	 * at a longer interval (about 1%% here).  The ticks within a burst must
	 * come as far apart as at 1 ms all along: a burst begun on the tick
	 * that ends a long sleep, later than the rest, catches 3%% too many.
	 */
	sim_min_ns = MS / 5;
	sim_span_ns = 2 * MS / 5;
	sim_runs(400, 4000, 4.0, 0, 0, &error, &z2);
	check(fabs(error) < 0.02,
		  "400 runs of 4,000 waits of 0.2-0.6 ms: mean error %+.2f%% against a 1 ms sampler's catch",
		  100 * error);
	sim_min_ns = MS;
	sim_span_ns = 4 * MS;

	/*
	 * A starved collector: one long sleep in four ends up to 16 ms later
	 * than its deadline, so that a burst's slot may pass, or its cycle
	 * end, before the burst begins.  The burst is sampled all the same.
	 */
	sim_starved_share = 0.25;
	sim_starved_ns = 16 * MS;
	sim_waits(SIM_EPISODES, 2.0, 0, 0);
	r = sim_collect(SIM_EPISODES);
	check(r.bursts_lost == 0 && r.burst_cycles * 10 >= r.cycles * 9,
		  "one long sleep in four up to 16 ms late: %ld of %ld burst cycles ended before their burst",
		  r.bursts_lost, r.burst_cycles);
	sim_starved_share = 0;
	sim_starved_ns = 0;
}

/*
 * The default cycle of 16 slots (128 ms): the same steady waits counted
 * from one burst in 16, unbiased over many runs, the variance estimated as
 * well as at 8, at fewer ticks than cycles of 8 slots take.
 */
static void
test_bursts_sixteen_slots(void)
{
	sim_slots = 16;
	check_bursts_unbiased(260, "317 with 8 slots", 1600);
	sim_slots = 8;
}

/*
 * Commit waits of 2 to 10 ms, as on a slower WAL disk, 2 a millisecond,
 * the collector told nothing: the time rule alone would hold the interval
 * at 2 ms (62% of the waiting is in waits under 8 ms); the collector finds
 * that bursts help from what it sees, and counts the waits in them.
 */
static void
test_bursts_longer_waits(void)
{
	double		error;
	double		z2;

	sim_told = false;
	sim_min_ns = 2 * MS;
	sim_span_ns = 8 * MS;
	(void) check_steady_run("waits of 2-10 ms", 350, "500 at 2 ms");
	sim_runs(200, 4000, 2.0, 0, 0, &error, &z2);
	check(fabs(error) < 0.01 && z2 > 0.5 && z2 < 1.5,
		  "200 runs of 4,000 waits of 2-10 ms: mean error %+.2f%%, mean squared error %.2f estimated variances",
		  100 * error, z2);
	sim_told = true;
	sim_min_ns = MS;
	sim_span_ns = 4 * MS;
}

/*
 * Wrap-arounds among the commit waits, one wait in 50, 40-60 ms each: every
 * one is counted once, in a burst or not, while the commit waits are still
 * estimated from the bursts.
 */
static void
test_wraps_counted_once(void)
{
	SimResult	r;

	sim_wrap_every = 50;
	sim_waits(SIM_EPISODES, 2.0, 0, 0);
	r = sim_collect(SIM_EPISODES);
	check(r.wraps >= SIM_EPISODES / 50 - 1 && r.wraps_not_once == 0,
		  "%ld wrap-arounds, %ld of them not counted as one", r.wraps, r.wraps_not_once);
	check(r.burst_cycles * 2 >= r.cycles && fabs(r.estimate - r.truth) <= 4 * sqrt(r.variance),
		  "... beside %ld burst cycles of %ld: commit waits %.0f +- %.0f against %.0f",
		  r.burst_cycles, r.cycles, r.estimate, sqrt(r.variance), r.truth);
	sim_wrap_every = 0;
}

int
main(void)
{
	test_quiet();
	test_stretch();
	test_disabled();
	test_first_sample();
	test_await();
	test_load_may_rest();
	test_load_rest_after_wait();
	test_load_stretch();
	test_interval_short_class();
	test_interval_rare_class();
	test_interval_wrap_around_class();
	test_interval_long_episodes();
	test_interval_forgets();
	test_bursts_cycles();
	test_bursts_variance();
	test_bursts_help();
	test_bursts_interval();
	test_bursts_estimate();
	test_bursts_sixteen_slots();
	test_bursts_longer_waits();
	test_wraps_counted_once();
	return tap_finish();
}
