/*-------------------------------------------------------------------------
 *
 * cadence.h
 *		The collector's cadence: when it ticks next, at what sampling
 *		interval, and as how many episodes a wait that begins counts.
 *
 * The collector tells the cadence what each tick saw; the cadence keeps
 * every rule's state in one WalStallCadence and answers with the next
 * deadline.  A tick calls, in order:
 *
 *	ws_cadence_wake()			after the sleep: how the tick weighs, and
 *								the count rule of the waits it sees begin;
 *	ws_cadence_reset()			if wal_stall_reset() came since the last tick
 *								(or at the second's close, if it came since);
 *	ws_cadence_episode_weight()	per episode that begins;
 *	ws_cadence_note_open(), ws_cadence_note_closed()
 *								per episode followed;
 *	ws_cadence_take_variance()	per class, for the figures;
 *	ws_cadence_next()			what the tick saw: the next deadline.
 *
 * and once a second ws_cadence_forget_half(); ws_cadence_configure() at a
 * reload.
 *
 * Three rules choose the next deadline (docs/sampling.md measures each):
 *	- rest: while nothing can stall, sleep longer than the sampling
 *	  interval (ws_cadence_next(), choose_rest()); after a second with no
 *	  process at work, until the second's close, unless a statement
 *	  begins first (awaiting a statement);
 *	- the adaptive interval: sample at the longest interval, up to
 *	  wal_stall.max_sample_interval, against which the episodes of every
 *	  stall class are long (interval_allowed());
 *	- bursts: where short waits alone hold the interval where it ticks
 *	  more often than a burst cycle would, count only the episodes that
 *	  begin in one burst of each cycle, each as N, and sample at the longer
 *	  interval in between (ws_cadence_episode_weight()).
 *
 * No PostgreSQL header is needed here: test/unit/ builds cadence.c into a
 * simulated collector apart from a server.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WAL_STALL_CADENCE_H
#define WAL_STALL_CADENCE_H

#include <stdbool.h>
#include <stdint.h>

/*
 * A sample weighs the real time since the previous tick up to this many
 * times the sleep that ended: beyond that the collector was not looking
 * (stopped, starved of CPU), and crediting the whole gap to whatever waits
 * when it looks again would invent long waits.
 */
#define WS_SAMPLE_REACH_SLEEPS	10

/* Classes the cadence can follow: WS_NUM_CLASSES fits (collector.c). */
#define WS_CADENCE_MAX_CLASSES	8

/* Intervals the adaptive interval considers: sample_interval << 0 .. 7. */
#define WS_INTERVAL_STEPS		8

/* No open episode in a class. */
#define WS_NONE_OPEN			UINT64_MAX

/* What the cadence is set to (from the settings, at start and reload). */
typedef struct WalStallCadenceSettings
{
	uint64_t	sample_ns;		/* wal_stall.sample_interval */
	uint64_t	max_ns;			/* wal_stall.max_sample_interval */
	uint64_t	idle_ns;		/* wal_stall.idle_interval */
	int			episode_sampling;	/* wal_stall.episode_sampling: N */
	uint64_t	ring_bytes;		/* the WAL ring: XLOGbuffers * XLOG_BLCKSZ */
	int			nclasses;		/* classes followed */
	int			ndeciding;		/* the first ones, whose waits clients feel:
								 * they alone choose the interval */
	int			wrap_class;		/* the wrap-around class: judged by its
								 * episodes' number, each counted once */
} WalStallCadenceSettings;

/* What one tick saw, for the next deadline. */
typedef struct WalStallTickSeen
{
	bool		tracked_wait;	/* a process in a tracked wait event */
	bool		episode_open;	/* an episode still followed */
	bool		process_busy;	/* a process on CPU or in a non-idle wait */
	double		ring_fill;		/* occupancy of the WAL ring, < 0 unknown */
	uint64_t	inserted_bytes; /* WAL inserted since the previous tick */
	bool		rate_unknown;	/* no previous insert position to tell it:
								 * the first tick after start or promotion */
	uint64_t	second_end_ns;	/* the close of this second, if the sleep
								 * may await a statement until then; else 0 */
} WalStallTickSeen;

/* How the tick that just woke weighs. */
typedef struct WalStallTick
{
	uint64_t	elapsed_ns;		/* its samples' weight */
	uint64_t	unobserved_ns;	/* the gap beyond the weight */
	uint64_t	interval_ns;	/* the sampling interval it samples at */
	uint64_t	slept_ns;		/* the interval or rest that ended */
	bool		rested;			/* it ends a rest */
	bool		woken;			/* a statement's start ended the sleep */
	bool		late;			/* more than a whole sleep late */
} WalStallTick;

/* What the cadence knows of one class's episodes, for the interval. */
typedef struct WalStallClassLengths
{
	bool		by_count;		/* the wrap-around class */
	uint32_t	episodes;		/* recent episodes closed, each as its
								 * count weight */
	uint32_t	observed;		/* of them, those seen: each once, the
								 * evidence WS_JUDGED_MIN_EPISODES asks */
	uint32_t	shorter[WS_INTERVAL_STEPS]; /* of them, those short against
											 * sample_ns << step, by the
											 * wrap-around rule */
	uint64_t	time_ns;		/* their lengths, summed */
	uint64_t	shorter_ns[WS_INTERVAL_STEPS];	/* of that, in those short
												 * against sample_ns << step */
	uint64_t	youngest_open_ns;	/* age of the youngest open episode */
	uint64_t	youngest_counted_open_ns;	/* the same among those counted */
} WalStallClassLengths;

/* One cycle: its span, and where and as how many its episodes count. */
typedef struct WalStallCycle
{
	uint64_t	start_ns;		/* monotonic clock */
	uint64_t	end_ns;
	uint64_t	count_from_ns;	/* a burst cycle's burst (empty until it
								 * begins); all of any other */
	uint64_t	count_to_ns;
	uint64_t	slot_from_ns;	/* a burst cycle's burst slot */
	uint64_t	slot_ns;		/* a slot's length, as the cycle began */
	uint32_t	weight;			/* N in a burst cycle, else 1 */
} WalStallCycle;

/* The parts of a tick's interval a count rule tells apart. */
#define WS_COUNT_BEFORE			0	/* in the cycle before */
#define WS_COUNT_CURRENT		1	/* in the current cycle */
#define WS_COUNT_OUTSIDE		2	/* in none: before the first, or a gap */
#define WS_COUNT_PARTS			3

/*
 * How an episode that began in a tick's interval counts: with probability
 * share[part], as weight[part] episodes; with what the shares leave, not
 * at all.
 */
typedef struct WalStallCountRule
{
	uint32_t	weight[WS_COUNT_PARTS];
	double		share[WS_COUNT_PARTS];
} WalStallCountRule;

/* The cadence: every field its rules read or write. */
typedef struct WalStallCadence
{
	WalStallCadenceSettings settings;

	/* the sleep */
	uint64_t	prev_ns;		/* the last tick */
	uint64_t	deadline_ns;	/* the next */
	uint64_t	interval_ns;	/* the sampling interval in force */
	uint64_t	sleep_ns;		/* what is slept: interval_ns or a rest */
	bool		resting;
	bool		awaiting;		/* the rest awaits a statement, up to the
								 * second's close */
	bool		woken;			/* the last tick ended it early */
	bool		late;			/* the last tick came late */
	uint64_t	elapsed_ns;		/* the last tick's weight */
	int			quiet_ticks;	/* in a row, for the rest */

	/* the adaptive interval */
	WalStallClassLengths classes[WS_CADENCE_MAX_CLASSES];

	/* bursts: the current cycle, and the one before it */
	int			burst_step;		/* bursts help where a class is short
								 * against sample_ns << burst_step (0:
								 * never); from the settings */
	bool		started;		/* a cycle has begun */
	bool		burst_cycle;	/* the current one counts in its burst */
	bool		burst_armed;	/* ... a tick in its slot came */
	bool		burst_begun;	/* ... and its burst has begun */
	WalStallCycle cycle;
	WalStallCycle before;
	bool		cycle_saw_wait; /* a tick of this cycle saw a wait */
	bool		burst_next;		/* the next cycle is to be a burst cycle,
								 * as far as the ticks so far go */
	uint64_t	rng;			/* the draws, never 0 */
	WalStallCountRule rule;		/* for the waits that begin at this tick */

	/*
	 * Per class, the episodes the bursts of the cycle before and of the
	 * current one counted, the count of the last burst cycle whose variance
	 * is taken (-1: none yet), and the variance not yet taken.
	 */
	int64_t		burst_counted[2][WS_CADENCE_MAX_CLASSES];
	int64_t		last_burst_counted[WS_CADENCE_MAX_CLASSES];
	int64_t		pending_var[WS_CADENCE_MAX_CLASSES];
} WalStallCadence;

extern void ws_cadence_init(WalStallCadence *c, const WalStallCadenceSettings *settings,
							uint64_t now_ns, uint64_t seed);
extern void ws_cadence_configure(WalStallCadence *c,
								 const WalStallCadenceSettings *settings,
								 uint64_t now_ns);
extern void ws_cadence_reset(WalStallCadence *c);
extern WalStallTick ws_cadence_wake(WalStallCadence *c, uint64_t now_ns, bool woken);
extern uint32_t ws_cadence_episode_weight(WalStallCadence *c, int cls);
extern void ws_cadence_note_open(WalStallCadence *c, int cls, uint64_t age_ns,
								 bool counted);
extern void ws_cadence_note_closed(WalStallCadence *c, int cls, uint64_t length_ns,
								   uint32_t weight);
extern void ws_cadence_next(WalStallCadence *c, const WalStallTickSeen *seen,
							uint64_t now_ns);
extern int64_t ws_cadence_take_variance(WalStallCadence *c, int cls);
extern void ws_cadence_forget_half(WalStallCadence *c);

/*
 * ws_first_sample_length
 *		How much of an episode's first sample counts towards its length:
 *		its weight, but at most the sampling interval it is taken at.  The
 *		wait began somewhere within that weight; after a rest, counting all
 *		of it would turn a short wait into a long episode.  Its time
 *		(total_ms) keeps the whole weight.
 */
static inline uint64_t
ws_first_sample_length(uint64_t weight_ns, uint64_t interval_ns)
{
	return weight_ns < interval_ns ? weight_ns : interval_ns;
}

#endif							/* WAL_STALL_CADENCE_H */
