/*-------------------------------------------------------------------------
 *
 * cadence.h
 *		When the collector may rest: the choice of the next sampling
 *		interval, as a pure function of what the last tick saw.
 *
 * A 1 ms sampler that wakes a thousand times a second costs a busy VM
 * about 1% of a core in wake-ups alone, even on an idle server.  Nothing
 * can stall while no process waits on anything wal_stall tracks, no episode
 * is open, no process is busy (running or in any wait but the idle ones)
 * and the WAL ring is far from full: then the collector stretches its
 * interval, doubling it after a quiet spell, up to wal_stall.idle_interval.
 * The first tick that sees anything else drops straight back to
 * wal_stall.sample_interval.
 *
 * Totals stay unbiased at any interval, because every sample weighs the
 * real time since the previous tick.  What resting changes is the timing
 * of the first sample of an episode that begins while the collector rests:
 * it is caught up to one idle interval late, and its weight covers the
 * whole rest.  The episode's duration, as it enters the histogram and
 * max_ms, counts that first sample as one base interval instead (see
 * ws_histogram_first_sample()); total_ms keeps the real weight.
 *
 * Under load the collector rests too, for at most
 * WS_LOAD_REST_MAX_INTERVALS sample intervals, while nothing can stall
 * there either: no process in a tracked wait for WS_QUIET_TICKS_BEFORE_REST
 * ticks, no episode open, the ring less than half full, and the WAL
 * inserted since the previous tick, at that rate over the coming rest, a
 * small share of the ring (ws_load_may_rest()).  A wrap-around can then not
 * begin within the rest unless the insert rate jumps many times over; a
 * tiny ring under write load never rests.  The first tracked wait, or an
 * insert rate that could fill the ring, drops the interval back at once.
 * The cost of it: an episode that begins while the collector rests under
 * load is seen up to one such rest late (10 ms at 1 ms), as in the idle
 * rest, with the same unbiased weights.
 *
 * No PostgreSQL header is needed here: test/unit/ tests it apart from a
 * server.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WAL_STALL_CADENCE_H
#define WAL_STALL_CADENCE_H

#include <stdbool.h>
#include <stdint.h>

/* Quiet ticks in a row before the interval starts to stretch. */
#define WS_QUIET_TICKS_BEFORE_REST	10

/*
 * While the collector rests, core's statistics (pg_stat_wal, pg_stat_slru,
 * the checkpoint counters, pg_control) are read every this many seconds
 * instead of every second: on an idle server that read is most of the
 * collector's remaining cost.
 */
#define WS_REST_CORE_READ_SECONDS	10

/* Ring occupancy from which the collector never rests. */
#define WS_REST_MAX_RING_FILL		0.5

/*
 * The longest rest under load, in sample intervals (and never beyond
 * wal_stall.idle_interval).  Ten intervals is also how far a sample's
 * weight reaches (WS_MAX_SAMPLE_WEIGHT in collector.c), so a rest under
 * load never leaves time unobserved; at 1 ms it cuts the wake-ups of a busy
 * server from 1,000 to about 100 a second.
 */
#define WS_LOAD_REST_MAX_INTERVALS	10

/*
 * Under load, the ring must hold this many rests' worth of WAL at the
 * insert rate of the last tick: with the ring less than half full, a
 * wrap-around within one rest would need the rate to grow fourfold with
 * the WAL writer writing nothing at all.
 */
#define WS_LOAD_REST_RING_RESTS		8

/* What one tick saw that decides whether the collector may rest. */
typedef struct WalStallTickSeen
{
	bool		tracked_wait;	/* a process in a tracked wait event */
	bool		episode_open;	/* an episode still followed */
	bool		process_busy;	/* a process on CPU or in a non-idle wait */
	double		ring_fill;		/* occupancy of the WAL ring, < 0 unknown */
} WalStallTickSeen;

/* Does what the tick saw allow resting? */
static inline bool
ws_tick_is_quiet(const WalStallTickSeen *seen)
{
	return !seen->tracked_wait && !seen->episode_open && !seen->process_busy &&
		seen->ring_fill < WS_REST_MAX_RING_FILL;
}

/*
 * ws_next_interval
 *		The interval to sleep before the next tick, in ns.
 *
 * base_ns is wal_stall.sample_interval, idle_ns wal_stall.idle_interval
 * (resting is off when it is not above base_ns).  *quiet_ticks counts the
 * quiet ticks in a row and is updated.  A busy tick returns base_ns at
 * once; after WS_QUIET_TICKS_BEFORE_REST quiet ones the interval doubles
 * at every further quiet tick, up to idle_ns.
 */
static inline uint64_t
ws_next_interval(uint64_t current_ns, uint64_t base_ns, uint64_t idle_ns,
				 bool quiet, int *quiet_ticks)
{
	uint64_t	next;

	if (!quiet || idle_ns <= base_ns)
	{
		*quiet_ticks = 0;
		return base_ns;
	}
	if (*quiet_ticks < WS_QUIET_TICKS_BEFORE_REST)
	{
		(*quiet_ticks)++;
		return current_ns < base_ns ? base_ns : current_ns;
	}
	next = current_ns * 2;
	if (next < base_ns)
		next = base_ns;
	return next > idle_ns ? idle_ns : next;
}

/*
 * What the collector knows of the load at a tick, for resting under it.
 * How long ago the last tracked wait was seen is not here: the quiet ticks
 * ws_choose_interval() counts are that count already (below).
 */
typedef struct WalStallLoadSeen
{
	uint64_t	inserted_bytes; /* WAL inserted since the previous tick */
	uint64_t	elapsed_ns;		/* time since the previous tick */
	uint64_t	ring_bytes;		/* the WAL ring: XLOGbuffers * XLOG_BLCKSZ */
} WalStallLoadSeen;

/*
 * ws_load_may_rest
 *		May the collector rest rest_ns while processes work, as far as this
 *		tick goes?  Only when it saw no tracked wait and no open episode, the
 *		ring is less than half full (or unknown, in recovery, where nothing
 *		is inserted), and the WAL the rest would see at the last tick's
 *		insert rate fits WS_LOAD_REST_RING_RESTS times in the ring.  That
 *		the ticks before it were quiet too is ws_choose_interval()'s count.
 */
static inline bool
ws_load_may_rest(const WalStallTickSeen *seen, const WalStallLoadSeen *load,
				 uint64_t rest_ns)
{
	double		rate;

	if (seen->tracked_wait || seen->episode_open ||
		!(seen->ring_fill < WS_REST_MAX_RING_FILL) ||
		load->ring_bytes == 0)
		return false;
	/* a tick with no time behind it tells no rate: no rest on it */
	if (load->elapsed_ns == 0)
		return load->inserted_bytes == 0;
	rate = (double) load->inserted_bytes / (double) load->elapsed_ns;
	return rate * (double) rest_ns * WS_LOAD_REST_RING_RESTS <=
		(double) load->ring_bytes;
}

/*
 * ws_choose_interval
 *		The interval to sleep before the next tick, in ns: on an idle server
 *		(ws_tick_is_quiet()) stretched up to idle_ns as ws_next_interval()
 *		does; under load stretched the same way up to
 *		WS_LOAD_REST_MAX_INTERVALS base intervals (at most idle_ns) while
 *		ws_load_may_rest() allows the stretched interval; else base_ns.
 *		*quiet_ticks is ws_next_interval()'s count.
 *
 * Any tick with a tracked wait or an open episode fails both
 * ws_tick_is_quiet() and ws_load_may_rest() and sets *quiet_ticks to 0, so
 * the WS_QUIET_TICKS_BEFORE_REST quiet ticks that must pass before a rest
 * are the ticks since the last tracked wait: a rest under load begins at
 * the eleventh tick after a wait, as on an idle server.  (A second count of
 * the ticks since the last wait, which had to reach ten before this one
 * could start, held the base interval for twenty ticks after every wait.
 * Under 50 select-only clients just after a tpcb-like run, the clients and
 * the WAL writer still wait on WAL now and then, WALInsert and a WAL
 * writer's fsync, about once a second, and the ticks at 1 ms after them
 * were 268 of the 1,570 ticks of a 15 s run, some eighteen a wait.)
 */
static inline uint64_t
ws_choose_interval(uint64_t current_ns, uint64_t base_ns, uint64_t idle_ns,
				   const WalStallTickSeen *seen, const WalStallLoadSeen *load,
				   int *quiet_ticks)
{
	uint64_t	load_cap;
	uint64_t	next;
	int			quiet;

	if (ws_tick_is_quiet(seen))
		return ws_next_interval(current_ns, base_ns, idle_ns, true, quiet_ticks);

	load_cap = base_ns * WS_LOAD_REST_MAX_INTERVALS;
	if (load_cap > idle_ns)
		load_cap = idle_ns;
	/* what the stretch would give, coming down from an idle rest too */
	quiet = *quiet_ticks;
	next = ws_next_interval(current_ns < load_cap ? current_ns : load_cap,
							base_ns, load_cap, true, &quiet);
	if (ws_load_may_rest(seen, load, next))
	{
		*quiet_ticks = quiet;
		return next;
	}
	return ws_next_interval(current_ns, base_ns, idle_ns, false, quiet_ticks);
}

/*
 * ws_second_reads_core
 *		Does the history row closing now read core's statistics?  Always,
 *		unless the collector rested through the whole second of an idle
 *		server (no process at work at any of its ticks); then only
 *		once core was last read WS_REST_CORE_READ_SECONDS seconds ago.
 *		unread_seconds counts the rows closed since the last read.  A row
 *		that does not read shows core's columns as unknown; the next row
 *		that reads carries what core counted since the last read, so sums
 *		over the history stay exact.  Nothing a client waits on happens in
 *		a second the collector rested through idle: any busy process ends
 *		the idle rest within one idle interval.  A second of rests under
 *		load reads core as every second with work does.
 */
static inline bool
ws_second_reads_core(bool rested_whole_second, int unread_seconds)
{
	return !rested_whole_second ||
		unread_seconds + 1 >= WS_REST_CORE_READ_SECONDS;
}

/*
 * ws_histogram_first_sample
 *		How much of an episode's first sample counts towards its duration
 *		in the histogram and max_ms: the real weight, but no more than one
 *		base interval.  Caught after a rest, the wait began anywhere within
 *		it, and counting the whole rest would turn a short wait into a long
 *		episode.
 */
static inline uint64_t
ws_histogram_first_sample(uint64_t weight_ns, uint64_t base_ns)
{
	return weight_ns < base_ns ? weight_ns : base_ns;
}

/*
 * The adaptive period.
 *
 * Under a load that always waits (commits queued on the WAL flush all the
 * time), nothing above lets the collector rest, and a sampler that wakes a
 * thousand times a second pays the wake-up floor whatever its tick does.
 * But a wait that lasts several periods is seen well at a longer period:
 * its time is the sum of its samples' weights, unbiased at any period, and
 * its length is off by at most one period.  What a longer period loses is
 * the short waits: their count and their percentiles.  So the collector
 * samples at a period between wal_stall.sample_interval and
 * wal_stall.max_sample_interval, a power of two times the first, and takes
 * the longest period P that every class it follows allows:
 *
 * - an episode is long against P when it lasts at least
 *   WS_PERIOD_LONG_FACTOR periods: at P it is seen by two samples or more.
 *   Sampled at P, an episode seen once counts as one period long
 *   (ws_histogram_first_sample()), so a class of waits shorter than P
 *   shows short against P at the period it is measured at, and brings the
 *   period down;
 * - a class is long against P when at most one in WS_PERIOD_SHORT_SHARE
 *   of its recent wait time (the episodes that closed in the last second
 *   or two, ws_period_forget_half()) lies in episodes short against P:
 *   the median moment of its waiting belongs to an episode long against
 *   P.  Weighing episodes by their time, not their number, lets the period
 *   follow where the waiting is: under 50 tpcb-like clients most commit
 *   waits last 3 to 16 ms and their time is in those, while the third of
 *   them that last a sample or two of 1 ms hold 9% of it;
 * - a wrap-around class (wal_buffer_full: by_count below) is judged by
 *   the number of its episodes instead, since its percentiles are what a
 *   small ring is tuned by: it is long against P while at most one in
 *   WS_PERIOD_COUNT_SHORT_SHARE of its recent episodes lasted less than
 *   WS_PERIOD_COUNT_LONG_FACTOR periods, and short against P, whatever its
 *   share of the time and however few its recent episodes, when it is not
 *   long.  A time rule would let a 32kB ring's wrap-arounds
 *   (p50 3-4 ms, p95 13-85 ms, most of their time in the long ones) be
 *   followed at 8 ms, and their p50 come out at 8-60 ms;
 * - any other class is short against P when it is not long, has at least
 *   WS_PERIOD_MIN_EPISODES recent episodes and at least one
 *   WS_PERIOD_MINOR_SHARE-th of the recent wait time of all the classes
 *   (commit waits of about a millisecond each on a fast disk, hundreds a
 *   second and most of the waiting): it forbids P, even between its
 *   episodes.  A
 *   class with fewer recent episodes (a CLOG wait now and then) is too
 *   rare to judge from them, and one with less of the time (the WAL
 *   insert lock waits of 50 tpcb-like clients, about 1% of their waiting
 *   beside the commits') is a minor one: either forbids P only while one of
 *   its episodes is young, below, and is otherwise measured at the period
 *   the others allow;
 * - an open episode of a class that is not long against P forbids P until
 *   it has lasted WS_PERIOD_LONG_FACTOR periods (WS_PERIOD_COUNT_LONG_FACTOR
 *   for a wrap-around class): the first waits of a class, before any has
 *   closed, bring the period back at once.
 *
 * What the time rule costs: the classes it lets be followed at a longer
 * period keep their time exact and their lengths within a period, but
 * their episodes shorter than the period are partly missed, and counted
 * as one period when seen, so their count falls and their percentiles
 * rise (under 50 tpcb-like clients the commit waits' p50 measured at about
 * 4 ms reads 6-7 ms).  wal_stall_summary.resolution_ms says the period each
 * class was measured at.
 *
 * The classes that decide are the stall classes, the waits of clients;
 * the io classes (the WAL writer's and any process's WAL and SLRU I/O) are
 * measured at the period the stall classes allow.  Most WAL writes take
 * microseconds, so an io class nearly always has short recent episodes,
 * one sample each at any period: letting it decide would keep the period
 * at the base under every write load, for figures whose lengths are one
 * sample at the base period already.  Their resolution is shown like that
 * of every class (wal_stall_summary.resolution_ms).
 *
 * With nothing followed at all the period is the base: resting, not the
 * adaptive period, is what saves wake-ups while nothing waits.  The period
 * grows one doubling a tick, and comes back at once, to the longest period
 * still allowed, at the first tick that sees a young episode of a class
 * not long against the period, or once a class has turned short.
 */

/* An episode is long against a period it lasts this many times. */
#define WS_PERIOD_LONG_FACTOR	2

/* A class is long while at most 1/this of its recent time is in short ones. */
#define WS_PERIOD_SHORT_SHARE	2

/* A wrap-around class's episode is long against a period it lasts this many times. */
#define WS_PERIOD_COUNT_LONG_FACTOR	4

/* ... and the class is long while at most 1 in this many recent ones is short. */
#define WS_PERIOD_COUNT_SHORT_SHARE	16

/* Recent episodes a class needs before they can make it short. */
#define WS_PERIOD_MIN_EPISODES	8

/* A class with less than 1/this of all recent stall time is minor. */
#define WS_PERIOD_MINOR_SHARE	16

/* Periods considered: base << 0 ... base << (WS_PERIOD_STEPS - 1). */
#define WS_PERIOD_STEPS			8

/* A class's recent time stays below this: the sum over classes fits. */
#define WS_PERIOD_TIME_CAP		(UINT64_MAX / 64)

/* No open episode in a class. */
#define WS_PERIOD_NONE_OPEN		UINT64_MAX

/* What the collector knows of one class's episodes, for the period. */
typedef struct WalStallClassLengths
{
	bool		by_count;		/* a wrap-around class: judged by the number
								 * of its short episodes, not their time */
	uint32_t	episodes;		/* recent episodes closed */
	uint32_t	shorter[WS_PERIOD_STEPS];	/* of them, those shorter than
											 * WS_PERIOD_COUNT_LONG_FACTOR *
											 * (base << step) */
	uint64_t	time_ns;		/* their lengths, summed */
	uint64_t	shorter_ns[WS_PERIOD_STEPS];	/* of that, the time in those
												 * shorter than
												 * WS_PERIOD_LONG_FACTOR *
												 * (base << step) */
	uint64_t	youngest_open_ns;	/* age of the youngest open episode,
									 * WS_PERIOD_NONE_OPEN if none */
	uint64_t	youngest_counted_open_ns;	/* the same among those that
											 * will be counted (bursts,
											 * below) */
} WalStallClassLengths;

/* Count an episode of length_ns that closed, for the periods from base_ns. */
static inline void
ws_period_note_episode(WalStallClassLengths *lengths, uint64_t length_ns,
					   uint64_t base_ns)
{
	if (lengths->episodes == UINT32_MAX ||
		length_ns > WS_PERIOD_TIME_CAP - lengths->time_ns)
		return;
	lengths->episodes++;
	lengths->time_ns += length_ns;
	for (int step = 0; step < WS_PERIOD_STEPS; step++)
	{
		if (length_ns < WS_PERIOD_LONG_FACTOR * (base_ns << step))
			lengths->shorter_ns[step] += length_ns;
		if (length_ns < WS_PERIOD_COUNT_LONG_FACTOR * (base_ns << step))
			lengths->shorter[step]++;
	}
}

/*
 * Age the recent episodes: halve every count and time (the collector does
 * it once a second), so a class's episodes of a few seconds ago weigh less
 * and less, and one that stopped being seen at all is forgotten: once its
 * count is down to nothing, so are its times.
 */
static inline void
ws_period_forget_half(WalStallClassLengths *lengths)
{
	lengths->episodes /= 2;
	lengths->time_ns = lengths->episodes > 0 ? lengths->time_ns / 2 : 0;
	for (int step = 0; step < WS_PERIOD_STEPS; step++)
	{
		lengths->shorter[step] /= 2;
		lengths->shorter_ns[step] = lengths->episodes > 0 ?
			lengths->shorter_ns[step] / 2 : 0;
	}
}

/*
 * Are the recent episodes of the class long against base << step: their
 * time, or for a wrap-around class their number?
 */
static inline bool
ws_class_is_long(const WalStallClassLengths *lengths, int step)
{
	if (lengths->episodes == 0)
		return false;
	if (lengths->by_count)
		return (uint64_t) lengths->shorter[step] * WS_PERIOD_COUNT_SHORT_SHARE <=
			lengths->episodes;
	return lengths->shorter_ns[step] <= lengths->time_ns / WS_PERIOD_SHORT_SHARE;
}

/* How many periods an open episode of the class must last to be long. */
static inline uint64_t
ws_class_long_factor(const WalStallClassLengths *lengths)
{
	return lengths->by_count ? WS_PERIOD_COUNT_LONG_FACTOR : WS_PERIOD_LONG_FACTOR;
}

/*
 * Is the class short against base << step: not long, and, unless a
 * wrap-around class (any recent episode will do), with enough recent
 * episodes and at least a WS_PERIOD_MINOR_SHARE-th of all_time_ns, the
 * recent wait time of every class?
 */
static inline bool
ws_class_is_short(const WalStallClassLengths *lengths, int step,
				  uint64_t all_time_ns)
{
	if (lengths->by_count)
		return lengths->episodes > 0 && !ws_class_is_long(lengths, step);
	return lengths->episodes >= WS_PERIOD_MIN_EPISODES &&
		lengths->time_ns >= all_time_ns / WS_PERIOD_MINOR_SHARE &&
		!ws_class_is_long(lengths, step);
}

/*
 * ws_period_allowed
 *		May the collector sample at base_ns << step, as far as these
 *		classes' episodes go (the rules above)?  *followed is set when any
 *		class has a recent or an open episode.
 */
static inline bool
ws_period_allowed(const WalStallClassLengths *classes, int nclasses,
				  uint64_t base_ns, int step, bool *followed)
{
	uint64_t	period = base_ns << step;
	uint64_t	all_time_ns = 0;

	for (int c = 0; c < nclasses; c++)
		all_time_ns += classes[c].time_ns;
	*followed = false;
	for (int c = 0; c < nclasses; c++)
	{
		const WalStallClassLengths *lengths = &classes[c];
		bool		open = lengths->youngest_open_ns != WS_PERIOD_NONE_OPEN;

		*followed |= open || lengths->episodes > 0;
		/* a class of short episodes: short waits come and go */
		if (ws_class_is_short(lengths, step, all_time_ns))
			return false;
		if (open && !ws_class_is_long(lengths, step) &&
			lengths->youngest_open_ns < ws_class_long_factor(lengths) * period)
			return false;
	}
	return true;
}

/*
 * A rule of the adaptive period: may the collector sample at
 * base_ns << step, as far as these classes' episodes go?
 */
typedef bool (*WalStallPeriodRule) (const WalStallClassLengths *classes,
									int nclasses, uint64_t base_ns, int step);

/*
 * ws_longest_period
 *		The sampling period for the next tick, in ns: the longest of
 *		base_ns << step, at most max_ns and at most one doubling above
 *		current_ns, that rule allows, every shorter one allowing it too;
 *		base_ns when max_ns is not above base_ns (adaptation off).
 */
static inline uint64_t
ws_longest_period(uint64_t current_ns, uint64_t base_ns, uint64_t max_ns,
				  const WalStallClassLengths *classes, int nclasses,
				  WalStallPeriodRule rule)
{
	uint64_t	chosen = base_ns;

	if (max_ns <= base_ns || base_ns == 0)
		return base_ns;
	for (int step = 1; step < WS_PERIOD_STEPS; step++)
	{
		uint64_t	period = base_ns << step;

		if (period > max_ns || period > 2 * current_ns)
			break;
		if (!rule(classes, nclasses, base_ns, step))
			break;
		chosen = period;
	}
	return chosen;
}

/* The time rule: ws_period_allowed(), and something is followed. */
static inline bool
ws_time_rule_allows(const WalStallClassLengths *classes, int nclasses,
					uint64_t base_ns, int step)
{
	bool		followed;

	return ws_period_allowed(classes, nclasses, base_ns, step, &followed) &&
		followed;
}

/*
 * ws_choose_period
 *		The sampling period for the next tick, in ns: the longest of
 *		base_ns << step, at most max_ns and at most one doubling above
 *		current_ns, that ws_period_allowed() allows; base_ns when nothing
 *		is followed, or when max_ns is not above base_ns (adaptation off).
 */
static inline uint64_t
ws_choose_period(uint64_t current_ns, uint64_t base_ns, uint64_t max_ns,
				 const WalStallClassLengths *classes, int nclasses)
{
	return ws_longest_period(current_ns, base_ns, max_ns, classes, nclasses,
							 ws_time_rule_allows);
}

/*
 * Counting episodes in bursts.
 *
 * The time rule above cannot lengthen the period under a load of short
 * waits: 50 tpcb-like clients on a fast WAL disk wait 1-2 ms for each
 * commit's flush, most of that class's time is in episodes of one or two
 * samples, and counting them and timing them one by one needs a sample
 * every base period.  Totals do not: they are unbiased at any period.  So
 * where the time rule is held at the base only by such a class, the
 * collector counts a share of the episodes instead of all of them, and
 * samples at the long period in between.
 *
 * Time is cut into cycles, one after the other, of wal_stall.episode_
 * sampling (N) slots of WS_BURST_PERIODS base periods each.  In a cycle
 * that counts in bursts ("thin") one slot, drawn at random when the cycle
 * begins, holds its burst, sampled at the base period: WS_BURST_PERIODS
 * base periods from the second tick in the slot (ws_begin_burst()).  An
 * episode is counted only when it began in the burst, and then counts as
 * N (its count weight).  Where an episode began is known to within the
 * interval from the tick before it to the tick that first saw it; the
 * interval that straddles the burst's end, a base period long, counts the
 * episode with the probability of the part in the burst (ws_count_rule(),
 * ws_episode_weight()).  The burst begins on a tick, not on the slot's
 * edge, because the interval before the slot's first tick is a long one:
 * the waits that began early in it and ended before the tick are never
 * seen, so the episodes that are seen began mostly late in it, and
 * counting them by the share of the interval in the burst would count too
 * few (3.4% in test_cadence's simulated collector).  And on the second
 * tick, a base period after the first, for the ticks within it to come
 * as far apart as each other (ws_begin_burst()).  So the chance that an episode
 * beginning at any moment is counted is 1/N, and its expected weight 1,
 * whatever the load does within the cycle: the weighted count estimates
 * all episodes without bias.  A counted episode is followed at the base period until
 * it is long against a longer one, so its length is timed as with every
 * episode counted, and the histogram (each counted episode adding N to
 * its bucket) estimates the lengths of all.  Episodes that begin outside
 * the burst add their samples and time, sampled as ever, but are not
 * counted, and do not enter the histogram.
 *
 * The estimate's variance: the episodes of a burst are drawn together,
 * one slot of each cycle, and commit waits come in clusters (a group
 * commit wakes many at once), so a count per episode (N (N - 1) each, as
 * if each were drawn on its own) would understate it.  Each thin cycle's
 * estimate is N times what its burst counted, and the variance of their
 * sum is estimated from successive thin cycles, as for any design that
 * draws one unit of every stratum: half the squared difference of a thin
 * cycle's count and the last one's, N^2 (c - c')^2 / 2, for each after
 * the first, and for the first N (N - 1) c (ws_burst_variance()).  Under a steady load this
 * is the variance of the slot drawn; where the load changes from cycle
 * to cycle it counts that change too, and overstates.
 * wal_stall_summary.episodes_stderr is its square root.
 *
 * What a cycle is, thin or counting every episode once (as without
 * bursts: the count weight is 1, the rules above choose the period), is
 * decided when it begins, from what the ticks before it saw: thin when
 * N > 1, the period may grow at all (wal_stall.max_sample_interval above
 * the base), some tick of the cycle before saw a process in a tracked
 * wait or an episode open (the recent episodes of a load take seconds to
 * be forgotten once it stops, and an idle server must rest meanwhile,
 * not wake for bursts), and ws_bursts_help(): some class judged by its
 * time is short (it alone holds the period at the base) and no
 * wrap-around class forbids a longer period.  Nothing the cycle itself
 * holds decides it, nor where its burst lies.
 *
 * A wrap-around is counted, each as one, in any cycle: a small ring is
 * tuned by its wrap-arounds' percentiles and has fewer of them than a
 * server has commits.  One that begins outside a burst is caught at the
 * period in force, which it brings back to the base at once (the thin
 * rule below), and the next cycle is not thin.
 *
 * In a thin cycle the collector does not rest during the burst, and its
 * sleeps end where the burst begins and where the cycle ends, so that
 * the burst is sampled at the base period from its start; so do the
 * sleeps of a cycle after which a thin one is expected.
 */

/* A burst: this many base periods. */
#define WS_BURST_PERIODS		8

/* One cycle: its span, and where and as how many its episodes count. */
typedef struct WalStallCycle
{
	uint64_t	start_ns;		/* monotonic clock */
	uint64_t	end_ns;
	uint64_t	count_from_ns;	/* a thin cycle's burst (empty until it
								 * begins); all of any other */
	uint64_t	count_to_ns;
	uint64_t	slot_from_ns;	/* a thin cycle's burst slot */
	uint64_t	slot_ns;		/* a slot's length, as the cycle began */
	uint32_t	weight;			/* N in a thin cycle, else 1 */
} WalStallCycle;

/* The cycles: the current one, and the one before it. */
typedef struct WalStallBursts
{
	bool		started;		/* a cycle has begun */
	bool		thin;			/* the current one counts in its burst */
	bool		burst_armed;	/* ... a tick in its slot came */
	bool		burst_begun;	/* ... and its burst has begun */
	WalStallCycle cycle;
	WalStallCycle before;		/* for an interval that straddles the two */
} WalStallBursts;

/* The parts of an interval a count rule tells apart. */
#define WS_COUNT_BEFORE			0	/* in the cycle before */
#define WS_COUNT_CURRENT		1	/* in the current cycle */
#define WS_COUNT_OUTSIDE		2	/* in none: before the first, or a gap */
#define WS_COUNT_PARTS			3

/*
 * How an episode that began in the interval of a tick is counted: with
 * probability share[part], as weight[part] episodes; with what the shares
 * leave, not at all.
 */
typedef struct WalStallCountRule
{
	uint32_t	weight[WS_COUNT_PARTS];
	double		share[WS_COUNT_PARTS];
} WalStallCountRule;

/* Real time that (from, to] and [lo, hi) share. */
static inline uint64_t
ws_overlap_ns(uint64_t from, uint64_t to, uint64_t lo, uint64_t hi)
{
	uint64_t	a = from > lo ? from : lo;
	uint64_t	b = to < hi ? to : hi;

	return b > a ? b - a : 0;
}

/*
 * Is t within the burst of the current cycle, a thin one, or within its
 * slot while the burst has not begun?  The collector samples there at the
 * base period.
 */
static inline bool
ws_in_burst(const WalStallBursts *bursts, uint64_t t_ns)
{
	const WalStallCycle *c = &bursts->cycle;

	if (!bursts->thin)
		return false;
	if (bursts->burst_begun)
		return t_ns >= c->count_from_ns && t_ns < c->count_to_ns;
	return t_ns >= c->slot_from_ns && t_ns - c->slot_from_ns < c->slot_ns;
}

/*
 * A xorshift64 draw from *rng (a state that is never 0): uniform in
 * [0, 2^53).
 */
static inline uint64_t
ws_draw(uint64_t *rng)
{
	uint64_t	x = *rng;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*rng = x;
	return x >> 11;
}

/*
 * ws_count_rule
 *		How an episode that began in the interval (prev_ns, now_ns] is
 *		counted: each part of the interval that lies where a cycle counts
 *		(a thin cycle's burst, all of any other) counts it with the
 *		probability of that part's share of the interval, as that cycle's
 *		weight; a part in no cycle (before the first, or a gap the
 *		collector was away for) counts it once.
 */
static inline WalStallCountRule
ws_count_rule(const WalStallBursts *bursts, uint64_t prev_ns, uint64_t now_ns)
{
	WalStallCountRule rule = {{1, 1, 1}, {0.0, 0.0, 0.0}};
	const WalStallCycle *cycles[2] = {&bursts->before, &bursts->cycle};
	uint64_t	length = now_ns > prev_ns ? now_ns - prev_ns : 0;
	uint64_t	covered = 0;

	if (!bursts->started || length == 0)
	{
		rule.share[WS_COUNT_OUTSIDE] = 1.0;
		return rule;
	}
	for (int part = WS_COUNT_BEFORE; part <= WS_COUNT_CURRENT; part++)
	{
		const WalStallCycle *c = cycles[part];

		covered += ws_overlap_ns(prev_ns, now_ns, c->start_ns, c->end_ns);
		rule.weight[part] = c->weight;
		rule.share[part] = (double) ws_overlap_ns(prev_ns, now_ns, c->count_from_ns,
												  c->count_to_ns) / (double) length;
	}
	rule.share[WS_COUNT_OUTSIDE] = (double) (length - covered) / (double) length;
	return rule;
}

/*
 * ws_episode_weight
 *		The count weight of an episode that begins now, drawn by rule from
 *		*rng: 0 when it is not counted.  *part is the part it was counted
 *		in (WS_COUNT_*), -1 when not counted.
 */
static inline uint32_t
ws_episode_weight(const WalStallCountRule *rule, uint64_t *rng, int *part)
{
	double		u;

	*part = -1;
	/* every episode counted once: no draw */
	if (rule->share[WS_COUNT_OUTSIDE] >= 1.0)
	{
		*part = WS_COUNT_OUTSIDE;
		return 1;
	}
	u = (double) ws_draw(rng) / 9007199254740992.0;
	for (int p = 0; p < WS_COUNT_PARTS; p++)
	{
		if (u < rule->share[p])
		{
			*part = p;
			return rule->weight[p];
		}
		u -= rule->share[p];
	}
	return 0;
}

/*
 * ws_bursts_help
 *		Would counting in bursts let the period grow: is some class judged
 *		by its time short against twice the base (its short episodes hold
 *		the period at the base), while no wrap-around class forbids that
 *		period, by its recent episodes or a young open one?
 */
static inline bool
ws_bursts_help(const WalStallClassLengths *classes, int nclasses,
			   uint64_t base_ns, uint64_t max_ns)
{
	uint64_t	all_time_ns = 0;
	bool		short_by_time = false;

	if (base_ns == 0 || max_ns < 2 * base_ns)
		return false;
	for (int c = 0; c < nclasses; c++)
		all_time_ns += classes[c].time_ns;
	for (int c = 0; c < nclasses; c++)
	{
		const WalStallClassLengths *lengths = &classes[c];

		if (!lengths->by_count)
		{
			short_by_time |= ws_class_is_short(lengths, 1, all_time_ns);
			continue;
		}
		if (ws_class_is_short(lengths, 1, all_time_ns) ||
			(lengths->youngest_open_ns != WS_PERIOD_NONE_OPEN &&
			 !ws_class_is_long(lengths, 1) &&
			 lengths->youngest_open_ns < ws_class_long_factor(lengths) * 2 * base_ns))
			return false;
	}
	return short_by_time;
}

/*
 * ws_next_cycle
 *		At a tick at now_ns: when the current cycle is over (or none has
 *		begun), begin the next, right where the last one ended (or now,
 *		after a gap of a whole cycle or more, or for the first), of ratio
 *		slots of WS_BURST_PERIODS base periods; thin if ratio > 1 and thin
 *		(decided from the ticks before), its burst one slot drawn from
 *		*rng.  Returns true when a cycle began.
 */
static inline bool
ws_next_cycle(WalStallBursts *bursts, uint64_t now_ns, uint64_t base_ns,
			  int ratio, bool thin, uint64_t *rng)
{
	uint64_t	slot_ns = base_ns * WS_BURST_PERIODS;
	uint64_t	length = slot_ns * (uint64_t) (ratio > 1 ? ratio : 1);
	WalStallCycle next;

	if (bursts->started && now_ns < bursts->cycle.end_ns)
		return false;
	if (bursts->started && now_ns - bursts->cycle.end_ns < length)
		next.start_ns = bursts->cycle.end_ns;
	else
		next.start_ns = now_ns;
	next.end_ns = next.start_ns + length;
	thin = thin && ratio > 1;
	next.slot_ns = slot_ns;
	if (thin)
	{
		next.slot_from_ns = next.start_ns +
			slot_ns * (ws_draw(rng) % (uint64_t) ratio);
		/* nothing counts before the burst begins (ws_begin_burst()) */
		next.count_from_ns = next.count_to_ns = next.slot_from_ns;
		next.weight = (uint32_t) ratio;
	}
	else
	{
		next.slot_from_ns = next.start_ns;
		next.count_from_ns = next.start_ns;
		next.count_to_ns = next.end_ns;
		next.weight = 1;
	}
	bursts->burst_armed = false;
	bursts->burst_begun = false;
	/* the first cycle has none before it: an empty one, where it begins */
	if (bursts->started)
		bursts->before = bursts->cycle;
	else
		bursts->before = (WalStallCycle)
		{
			next.start_ns, next.start_ns, next.start_ns, next.start_ns,
			next.start_ns, slot_ns, 1
		};
	bursts->cycle = next;
	bursts->thin = thin;
	bursts->started = true;
	return true;
}

/*
 * ws_begin_burst
 *		At a tick at now_ns, before its interval is counted: in a thin
 *		cycle, the first tick in the burst's slot arms it (and is followed
 *		a base period later, ws_in_burst()), and the next one begins it,
 *		for the burst's length from there (the cycle lasting as long, if
 *		the slot was the last).  Not the first: it ends a long sleep or a
 *		rest, which the scheduler ends later than a base period, so that
 *		the ticks of a burst begun there would come closer together at its
 *		start, and catch more of the waits shorter than a period (3.3% more
 *		of waits of 0.2-0.6 ms in test_cadence's simulated collector).
 */
static inline void
ws_begin_burst(WalStallBursts *bursts, uint64_t now_ns)
{
	WalStallCycle *c = &bursts->cycle;

	if (!bursts->thin || bursts->burst_begun || now_ns < c->slot_from_ns)
		return;
	if (!bursts->burst_armed)
	{
		bursts->burst_armed = true;
		return;
	}
	c->count_from_ns = now_ns;
	c->count_to_ns = now_ns + c->slot_ns;
	if (c->end_ns < c->count_to_ns)
		c->end_ns = c->count_to_ns;
	bursts->burst_begun = true;
}

/*
 * ws_burst_variance
 *		What a cycle of count weight N, whose burst counted `counted`
 *		episodes of a class, adds to the variance of that class's estimated
 *		count: N^2 (counted - *last)^2 / 2, *last being the count of the
 *		thin cycle before it (cycles that counted every episode between
 *		them or not: under a load that comes in spells, the thin cycles are
 *		those after a spell, and they are compared with each other), or
 *		N (N - 1) counted for the first (*last < 0); 0 for a cycle that
 *		counted every episode.  Sets *last for the next.
 */
static inline int64_t
ws_burst_variance(uint32_t weight, int64_t counted, int64_t *last)
{
	int64_t		n = weight;
	int64_t		variance;

	if (weight <= 1)
		return 0;
	if (*last < 0)
		variance = n * (n - 1) * counted;
	else
		variance = n * n * (counted - *last) * (counted - *last) / 2;
	*last = counted;
	return variance;
}

/*
 * ws_burst_deadline
 *		The deadline of the next tick, given the one the period or a rest
 *		asks for, at a tick at now_ns: in a thin cycle, never beyond the
 *		start of its burst still to come; in a thin cycle or one after which
 *		a thin one is expected (thin_next), never beyond the cycle's end.
 */
static inline uint64_t
ws_burst_deadline(const WalStallBursts *bursts, uint64_t now_ns,
				  uint64_t deadline_ns, bool thin_next)
{
	if (bursts->thin && now_ns < bursts->cycle.slot_from_ns &&
		deadline_ns > bursts->cycle.slot_from_ns)
		deadline_ns = bursts->cycle.slot_from_ns;
	if ((bursts->thin || thin_next) && bursts->started &&
		deadline_ns > bursts->cycle.end_ns)
		deadline_ns = bursts->cycle.end_ns;
	return deadline_ns;
}

/*
 * The rule outside a thin cycle's burst: every counted episode still open
 * is long against base_ns << step (it is being timed), and the wrap-around
 * classes allow it by the rules of ws_period_allowed().  The classes
 * judged by their time do not hold it otherwise: their episodes are
 * counted in the bursts.
 */
static inline bool
ws_thin_rule_allows(const WalStallClassLengths *classes, int nclasses,
					uint64_t base_ns, int step)
{
	uint64_t	period = base_ns << step;

	for (int c = 0; c < nclasses; c++)
	{
		const WalStallClassLengths *lengths = &classes[c];
		uint64_t	factor = ws_class_long_factor(lengths);

		if (lengths->youngest_counted_open_ns != WS_PERIOD_NONE_OPEN &&
			lengths->youngest_counted_open_ns < factor * period)
			return false;
		if (lengths->by_count &&
			(ws_class_is_short(lengths, step, 0) ||
			 (lengths->youngest_open_ns != WS_PERIOD_NONE_OPEN &&
			  !ws_class_is_long(lengths, step) &&
			  lengths->youngest_open_ns < factor * period)))
			return false;
	}
	return true;
}

/*
 * ws_choose_thin_period
 *		The sampling period outside a thin cycle's burst: the longest that
 *		ws_thin_rule_allows(), as ws_choose_period() chooses.
 */
static inline uint64_t
ws_choose_thin_period(uint64_t current_ns, uint64_t base_ns, uint64_t max_ns,
					  const WalStallClassLengths *classes, int nclasses)
{
	return ws_longest_period(current_ns, base_ns, max_ns, classes, nclasses,
							 ws_thin_rule_allows);
}

#endif							/* WAL_STALL_CADENCE_H */
