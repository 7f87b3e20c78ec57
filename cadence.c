/*-------------------------------------------------------------------------
 *
 * cadence.c
 *		The collector's cadence: rests, the adaptive interval and the
 *		bursts (cadence.h says how a tick calls it).
 *
 * Totals stay unbiased whatever the cadence does, because every sample
 * weighs the real time since the previous tick.  What a longer sleep costs
 * is the short waits: an episode shorter than the interval may be missed,
 * and one seen once counts as one interval long (ws_first_sample_length()).
 * So each rule lengthens the sleep only where that loses nothing the views
 * promise; docs/sampling.md measures what each one saves and costs.
 *
 * Built without PostgreSQL's headers, like src/common's files that must
 * also build apart from a server: test/unit/test_cadence.c drives these
 * very functions in a simulated collector.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "cadence.h"

/* Quiet ticks in a row before a rest: a wait seen is often followed by more. */
#define WS_QUIET_TICKS_BEFORE_REST	10

/*
 * The longest rest while a busy server inserts WAL, in sample intervals: a
 * wait that begins in it is seen at most this late, and such a server's
 * wake-ups fall from 1,000 to about 100 a second at 1 ms.
 */
#define WS_LOAD_REST_INTERVALS		10

/*
 * A rest needs the ring's free space to hold this many rests' worth of WAL
 * at the last tick's insert rate: a wrap-around within the rest would need
 * the rate to grow this many times over with the WAL writer writing nothing.
 */
#define WS_REST_RATE_MARGIN		8

/*
 * An episode is long against an interval it lasts this many times: sampled
 * at it, the episode is seen twice or more, its length off by one interval.
 */
#define WS_LONG_EPISODE_INTERVALS	2

/*
 * A class is long against an interval while at most this share of its
 * recent wait time lies in episodes short against it: the median moment of
 * its waiting is then in an episode sampled well.
 */
#define WS_SHORT_TIME_MAX_SHARE		0.5

/*
 * The wrap-around class is tuned by its percentiles, not its time: its
 * episodes must last this many intervals, and at most this share of them
 * may be shorter, or its short ones' p50 would read several intervals.
 */
#define WS_LONG_WRAP_INTERVALS		4
#define WS_SHORT_WRAP_MAX_SHARE		(1.0 / 16)

/*
 * Recent episodes seen (not weighted) a class needs before its short ones
 * hold the interval down: an occasional CLOG wait says nothing about the
 * next one, counted in a burst or not.
 */
#define WS_JUDGED_MIN_EPISODES		8

/*
 * A class with less than this share of all recent stall time is minor: its
 * short episodes hold the interval down only while one is young.
 */
#define WS_MINOR_CLASS_SHARE		(1.0 / 16)

/*
 * A class's recent time stays below this: the sum over the
 * WS_CADENCE_MAX_CLASSES classes fits in 64 bits with room to spare.
 */
#define WS_RECENT_TIME_CAP			(UINT64_MAX / 64)

/*
 * A burst lasts this many sample intervals: long enough to see a commit
 * wait begin and end at full rate, one slot of each cycle.
 */
#define WS_BURST_INTERVALS			8

#define Min(a, b)	((a) < (b) ? (a) : (b))
#define Max(a, b)	((a) > (b) ? (a) : (b))

/* draw()'s values lie in [0, WS_DRAW_RANGE): the 53 bits a double holds */
#define WS_DRAW_RANGE	((double) (UINT64_C(1) << 53))

/* A xorshift64 draw from *rng (never 0): uniform in [0, WS_DRAW_RANGE). */
static uint64_t
draw(uint64_t *rng)
{
	uint64_t	x = *rng;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*rng = x;
	return x >> 11;
}

/* Real time that (from, to] and [lo, hi) share. */
static uint64_t
overlap_ns(uint64_t from, uint64_t to, uint64_t lo, uint64_t hi)
{
	uint64_t	a = Max(from, lo);
	uint64_t	b = Min(to, hi);

	return b > a ? b - a : 0;
}

/* Forget every class's episodes: their lengths count sample intervals. */
static void
forget_classes(WalStallCadence *c)
{
	memset(c->classes, 0, sizeof(c->classes));
	for (int k = 0; k < WS_CADENCE_MAX_CLASSES; k++)
	{
		c->classes[k].youngest_open_ns = WS_NONE_OPEN;
		c->classes[k].youngest_counted_open_ns = WS_NONE_OPEN;
	}
	c->classes[c->settings.wrap_class].by_count = true;
}

/* Start the cycles again: no cycle yet, nothing counted in a burst. */
static void
restart_cycles(WalStallCadence *c)
{
	c->started = false;
	c->burst_cycle = false;
	c->burst_armed = false;
	c->burst_begun = false;
	memset(&c->cycle, 0, sizeof(c->cycle));
	memset(&c->before, 0, sizeof(c->before));
	c->cycle_saw_wait = false;
	c->burst_next = false;
	memset(c->burst_counted, 0, sizeof(c->burst_counted));
	memset(c->pending_var, 0, sizeof(c->pending_var));
	for (int k = 0; k < WS_CADENCE_MAX_CLASSES; k++)
		c->last_burst_counted[k] = -1;
}

/* N, the slots of a cycle: wal_stall.episode_sampling, at least one */
static int
cycle_slots(const WalStallCadenceSettings *s)
{
	return Max(s->episode_sampling, 1);
}

/* A cycle's length: N slots of WS_BURST_INTERVALS sample intervals. */
static uint64_t
cycle_length_ns(const WalStallCadenceSettings *s)
{
	return s->sample_ns * WS_BURST_INTERVALS * (uint64_t) cycle_slots(s);
}

/*
 * About how many ticks a burst cycle takes: its burst at the sample
 * interval, the tick that arms it, the doublings back up to max_ns after
 * it, the rest of the cycle at max_ns, and the tick its end asks for.
 */
static double
burst_cycle_ticks(const WalStallCadenceSettings *s)
{
	uint64_t	sample_ns = s->sample_ns;
	int			doublings = 0;

	while (doublings + 1 < WS_INTERVAL_STEPS &&
		   (sample_ns << (doublings + 1)) <= s->max_ns)
		doublings++;
	return WS_BURST_INTERVALS + 1 + doublings + 1 +
		(double) (cycle_length_ns(s) - sample_ns * WS_BURST_INTERVALS) /
		(double) (sample_ns << doublings);
}

/*
 * The step bursts are judged at (0: none): a class short against
 * sample_ns << step holds the time rule at sample_ns << (step - 1) at
 * most, so the longest step at which that interval ticks more often than
 * a burst cycle does.  At the defaults 8 ms: in a 128 ms cycle the time
 * rule ticks 32 times at 4 ms and 16 at 8 ms, a burst cycle about 28.
 * It depends on the settings alone: ws_cadence_configure() keeps it.
 */
static int
burst_step(const WalStallCadenceSettings *s)
{
	uint64_t	sample_ns = s->sample_ns;
	double		cycle_ns;
	double		ticks;
	int			step = 0;

	if (sample_ns == 0 || s->max_ns < 2 * sample_ns)
		return 0;
	cycle_ns = (double) cycle_length_ns(s);
	ticks = burst_cycle_ticks(s);
	while (step + 1 < WS_INTERVAL_STEPS &&
		   (sample_ns << (step + 1)) <= s->max_ns &&
		   cycle_ns / (double) (sample_ns << step) > ticks)
		step++;
	return step;
}

/*
 * ws_cadence_init
 *		Start at now_ns, sampling at the sample interval, the draws seeded
 *		from seed.
 */
void
ws_cadence_init(WalStallCadence *c, const WalStallCadenceSettings *settings,
				uint64_t now_ns, uint64_t seed)
{
	memset(c, 0, sizeof(*c));
	c->rng = seed != 0 ? seed : 1;
	c->prev_ns = now_ns;
	ws_cadence_configure(c, settings, now_ns);
	forget_classes(c);
	restart_cycles(c);
}

/*
 * ws_cadence_configure
 *		Take new settings (a reload): sample at the sample interval from
 *		now_ns.  The cycles go on; those that begin next take the settings.
 */
void
ws_cadence_configure(WalStallCadence *c, const WalStallCadenceSettings *settings,
					 uint64_t now_ns)
{
	bool		same_unit = c->settings.sample_ns == settings->sample_ns;

	c->settings = *settings;
	/* the arrays hold WS_CADENCE_MAX_CLASSES: never follow more */
	c->settings.nclasses = Min(Max(settings->nclasses, 1), WS_CADENCE_MAX_CLASSES);
	c->settings.ndeciding = Min(Max(settings->ndeciding, 0), c->settings.nclasses);
	if (settings->wrap_class < 0 || settings->wrap_class >= c->settings.nclasses)
		c->settings.wrap_class = 0;
	c->burst_step = burst_step(&c->settings);
	if (!same_unit)
		forget_classes(c);
	c->interval_ns = c->sleep_ns = settings->sample_ns;
	c->resting = false;
	c->awaiting = false;
	c->quiet_ticks = 0;
	c->deadline_ns = now_ns + c->sleep_ns;
}

/*
 * ws_cadence_reset
 *		After wal_stall_reset(), which dropped every episode and figure:
 *		the episodes this tick sees begin after it, in no cycle yet, and
 *		each counts once; what the bursts before counted goes.
 */
void
ws_cadence_reset(WalStallCadence *c)
{
	restart_cycles(c);
	memset(&c->rule, 0, sizeof(c->rule));
	c->rule.weight[WS_COUNT_OUTSIDE] = 1;
	c->rule.share[WS_COUNT_OUTSIDE] = 1.0;
}

/*
 * The variance a burst cycle of weight N, whose burst counted `counted`
 * episodes of a class, adds to that class's estimated count: the bursts
 * are drawn one slot a cycle, and waits come in clusters (a group commit
 * wakes many), so the variance is estimated from successive burst cycles,
 * N^2 (counted - last)^2 / 2, and for the first as if its episodes were
 * drawn one by one, N (N - 1) counted.  Sets *last.
 */
static int64_t
burst_variance(uint32_t weight, int64_t counted, int64_t *last)
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
 * begin_cycle
 *		When the current cycle is over (or none has begun), begin the next
 *		where the last ended (now, after a gap of a whole cycle or more),
 *		of N slots of WS_BURST_INTERVALS sample intervals; a burst cycle,
 *		its burst one slot drawn at random, if the ticks before said so.
 *		The cycle that drops out is complete: its variance is taken.
 */
static void
begin_cycle(WalStallCadence *c, uint64_t now_ns)
{
	int			n = cycle_slots(&c->settings);
	uint64_t	slot_ns = c->settings.sample_ns * WS_BURST_INTERVALS;
	uint64_t	length = cycle_length_ns(&c->settings);
	WalStallCycle next;

	/* a burst cycle ends only after its burst, however late that comes */
	if (c->started && (now_ns < c->cycle.end_ns || (c->burst_cycle && !c->burst_begun)))
		return;
	for (int k = 0; k < c->settings.nclasses; k++)
		c->pending_var[k] += burst_variance(c->before.weight,
											c->burst_counted[WS_COUNT_BEFORE][k],
											&c->last_burst_counted[k]);
	memcpy(c->burst_counted[WS_COUNT_BEFORE], c->burst_counted[WS_COUNT_CURRENT],
		   sizeof(c->burst_counted[WS_COUNT_BEFORE]));
	memset(c->burst_counted[WS_COUNT_CURRENT], 0, sizeof(c->burst_counted[WS_COUNT_CURRENT]));

	next.start_ns = c->started && now_ns - c->cycle.end_ns < length ?
		c->cycle.end_ns : now_ns;
	next.end_ns = next.start_ns + length;
	next.slot_ns = slot_ns;
	c->burst_cycle = c->burst_next && n > 1;
	if (c->burst_cycle)
	{
		next.slot_from_ns = next.start_ns + slot_ns * (draw(&c->rng) % (uint64_t) n);
		/* nothing counts before the burst begins (begin_burst()) */
		next.count_from_ns = next.count_to_ns = next.slot_from_ns;
		next.weight = (uint32_t) n;
	}
	else
	{
		next.slot_from_ns = next.count_from_ns = next.start_ns;
		next.count_to_ns = next.end_ns;
		next.weight = 1;
	}
	/* the first cycle has none before it: an empty one, where it begins */
	if (c->started)
		c->before = c->cycle;
	else
		c->before = (WalStallCycle)
		{
			next.start_ns, next.start_ns, next.start_ns, next.start_ns,
			next.start_ns, slot_ns, 1
		};
	c->cycle = next;
	c->burst_armed = false;
	c->burst_begun = false;
	c->cycle_saw_wait = false;
	c->started = true;
}

/*
 * begin_burst
 *		In a burst cycle, the first tick in the burst's slot arms the burst
 *		and the next begins it, for a slot's length from there.  Not the
 *		first: it ends a long sleep, which the scheduler ends later than a
 *		sample interval, so the burst's first ticks would come closer
 *		together than the rest and catch more of the waits shorter than an
 *		interval.
 */
static void
begin_burst(WalStallCadence *c, uint64_t now_ns)
{
	if (!c->burst_cycle || c->burst_begun || now_ns < c->cycle.slot_from_ns)
		return;
	if (!c->burst_armed)
	{
		c->burst_armed = true;
		return;
	}
	c->cycle.count_from_ns = now_ns;
	c->cycle.count_to_ns = now_ns + c->cycle.slot_ns;
	c->cycle.end_ns = Max(c->cycle.end_ns, c->cycle.count_to_ns);
	c->burst_begun = true;
}

/*
 * count_rule
 *		How an episode first seen at now_ns, which began in (prev_ns, now_ns],
 *		counts: each part of that interval that lies where a cycle counts (a
 *		burst cycle's burst, all of any other) counts it with the chance of
 *		that part's share, as that cycle's weight; a part in no cycle counts
 *		it once.  So any episode, wherever it begins, is counted with
 *		expected weight 1.
 */
static WalStallCountRule
count_rule(const WalStallCadence *c, uint64_t prev_ns, uint64_t now_ns)
{
	WalStallCountRule rule = {{1, 1, 1}, {0.0, 0.0, 0.0}};
	const WalStallCycle *cycles[2] = {&c->before, &c->cycle};
	uint64_t	length = now_ns > prev_ns ? now_ns - prev_ns : 0;
	uint64_t	covered = 0;

	if (!c->started || length == 0)
	{
		rule.share[WS_COUNT_OUTSIDE] = 1.0;
		return rule;
	}
	for (int part = WS_COUNT_BEFORE; part <= WS_COUNT_CURRENT; part++)
	{
		const WalStallCycle *cycle = cycles[part];

		covered += overlap_ns(prev_ns, now_ns, cycle->start_ns, cycle->end_ns);
		rule.weight[part] = cycle->weight;
		rule.share[part] = (double) overlap_ns(prev_ns, now_ns, cycle->count_from_ns,
											   cycle->count_to_ns) / (double) length;
	}
	rule.share[WS_COUNT_OUTSIDE] = (double) (length - covered) / (double) length;
	return rule;
}

/*
 * ws_cadence_wake
 *		The tick at now_ns begins: how its samples weigh, the cycle it lies
 *		in, and the count rule of the episodes it sees begin.  woken: a
 *		statement's start ended a sleep that awaited one, before its
 *		deadline; the next deadline then counts from now.
 */
WalStallTick
ws_cadence_wake(WalStallCadence *c, uint64_t now_ns, bool woken)
{
	WalStallTick tick;
	uint64_t	gap = now_ns - c->prev_ns;

	/* an await's reach is its own length and ten rests, not ten awaits */
	tick.elapsed_ns = Min(gap, c->awaiting ?
						  c->sleep_ns + WS_SAMPLE_REACH_SLEEPS * c->settings.idle_ns :
						  WS_SAMPLE_REACH_SLEEPS * c->sleep_ns);
	tick.unobserved_ns = gap - tick.elapsed_ns;
	tick.interval_ns = c->interval_ns;
	tick.slept_ns = now_ns < c->deadline_ns ? gap : c->sleep_ns;
	tick.rested = c->resting;
	tick.woken = woken && c->awaiting;
	tick.late = now_ns > c->deadline_ns + c->sleep_ns;
	c->late = tick.late;
	c->elapsed_ns = tick.elapsed_ns;
	c->woken = tick.woken;
	if (now_ns < c->deadline_ns)
		c->deadline_ns = now_ns;

	begin_cycle(c, now_ns);
	begin_burst(c, now_ns);
	c->rule = count_rule(c, c->prev_ns, now_ns);
	c->prev_ns = now_ns;
	/* ws_cadence_note_open() notes the episodes still open at this tick */
	for (int k = 0; k < c->settings.nclasses; k++)
	{
		c->classes[k].youngest_open_ns = WS_NONE_OPEN;
		c->classes[k].youngest_counted_open_ns = WS_NONE_OPEN;
	}
	return tick;
}

/*
 * ws_cadence_episode_weight
 *		The count weight of an episode of class cls that begins at this
 *		tick, drawn by the tick's count rule: 0 when not counted.  A
 *		wrap-around counts once in any cycle: a small ring is tuned by its
 *		wrap-arounds' percentiles, and they are few beside commits.
 */
uint32_t
ws_cadence_episode_weight(WalStallCadence *c, int cls)
{
	const WalStallCountRule *rule = &c->rule;
	double		u;

	if (c->classes[cls].by_count || rule->share[WS_COUNT_OUTSIDE] >= 1.0)
		return 1;
	u = (double) draw(&c->rng) / WS_DRAW_RANGE;
	for (int part = 0; part < WS_COUNT_PARTS; part++)
	{
		if (u < rule->share[part])
		{
			if (rule->weight[part] > 1 && part < WS_COUNT_OUTSIDE)
				c->burst_counted[part][cls]++;
			return rule->weight[part];
		}
		u -= rule->share[part];
	}
	return 0;
}

/* An episode of class cls, age_ns old, is open at this tick. */
void
ws_cadence_note_open(WalStallCadence *c, int cls, uint64_t age_ns, bool counted)
{
	WalStallClassLengths *lengths = &c->classes[cls];

	lengths->youngest_open_ns = Min(lengths->youngest_open_ns, age_ns);
	if (counted)
		lengths->youngest_counted_open_ns = Min(lengths->youngest_counted_open_ns, age_ns);
}

/*
 * A counted episode of class cls closed, length_ns long, standing for
 * weight episodes (its count weight): the recent figures estimate all of
 * the class's episodes, so that a class counted in bursts weighs as much
 * beside the others as one counted whole.
 */
void
ws_cadence_note_closed(WalStallCadence *c, int cls, uint64_t length_ns, uint32_t weight)
{
	WalStallClassLengths *lengths = &c->classes[cls];
	uint64_t	sample_ns = c->settings.sample_ns;

	if (weight == 0 || lengths->episodes > UINT32_MAX - weight ||
		length_ns > (WS_RECENT_TIME_CAP - lengths->time_ns) / weight)
		return;
	lengths->episodes += weight;
	lengths->observed++;
	lengths->time_ns += weight * length_ns;
	for (int step = 0; step < WS_INTERVAL_STEPS; step++)
	{
		if (length_ns < WS_LONG_EPISODE_INTERVALS * (sample_ns << step))
			lengths->shorter_ns[step] += weight * length_ns;
		if (length_ns < WS_LONG_WRAP_INTERVALS * (sample_ns << step))
			lengths->shorter[step] += weight;
	}
}

/*
 * ws_cadence_forget_half
 *		Once a second: halve every class's recent counts and times, so the
 *		interval follows the episodes of the last second or two, and a class
 *		no longer seen is forgotten.
 */
void
ws_cadence_forget_half(WalStallCadence *c)
{
	for (int k = 0; k < c->settings.nclasses; k++)
	{
		WalStallClassLengths *lengths = &c->classes[k];

		lengths->episodes /= 2;
		lengths->observed /= 2;
		lengths->time_ns = lengths->episodes > 0 ? lengths->time_ns / 2 : 0;
		for (int step = 0; step < WS_INTERVAL_STEPS; step++)
		{
			lengths->shorter[step] /= 2;
			lengths->shorter_ns[step] = lengths->episodes > 0 ?
				lengths->shorter_ns[step] / 2 : 0;
		}
	}
}

/* The variance of class cls's estimated count not yet taken; 0 after. */
int64_t
ws_cadence_take_variance(WalStallCadence *c, int cls)
{
	int64_t		variance = c->pending_var[cls];

	c->pending_var[cls] = 0;
	return variance;
}

/* Are the class's recent episodes long against sample_ns << step? */
static bool
class_is_long(const WalStallClassLengths *lengths, int step)
{
	if (lengths->episodes == 0)
		return false;
	if (lengths->by_count)
		return lengths->shorter[step] <= WS_SHORT_WRAP_MAX_SHARE * lengths->episodes;
	return lengths->shorter_ns[step] <= WS_SHORT_TIME_MAX_SHARE * lengths->time_ns;
}

/*
 * Is the class short against sample_ns << step: not long, with any recent
 * episode for the wrap-around class, else with enough of them and not a
 * minor share of all_time_ns, the deciding classes' recent time?
 */
static bool
class_is_short(const WalStallClassLengths *lengths, int step, uint64_t all_time_ns)
{
	if (lengths->by_count)
		return lengths->episodes > 0 && !class_is_long(lengths, step);
	return lengths->observed >= WS_JUDGED_MIN_EPISODES &&
		lengths->time_ns >= WS_MINOR_CLASS_SHARE * all_time_ns &&
		!class_is_long(lengths, step);
}

/* How many intervals an open episode of the class lasts to be long. */
static uint64_t
long_intervals(const WalStallClassLengths *lengths)
{
	return lengths->by_count ? WS_LONG_WRAP_INTERVALS : WS_LONG_EPISODE_INTERVALS;
}

/*
 * Does the class forbid sample_ns << step: short against it, or not long
 * and with an episode open younger than long against it?  The first waits
 * of a class, before any has closed, bring the interval back at once.
 */
static bool
class_forbids(const WalStallCadence *c, const WalStallClassLengths *lengths,
			  int step, uint64_t all_time_ns)
{
	uint64_t	interval = c->settings.sample_ns << step;

	return class_is_short(lengths, step, all_time_ns) ||
		(!class_is_long(lengths, step) &&
		 lengths->youngest_open_ns < long_intervals(lengths) * interval);
}

/* The deciding classes' recent wait time. */
static uint64_t
deciding_time_ns(const WalStallCadence *c)
{
	uint64_t	all_time_ns = 0;

	for (int k = 0; k < c->settings.ndeciding; k++)
		all_time_ns += c->classes[k].time_ns;
	return all_time_ns;
}

/*
 * interval_allowed
 *		May the collector sample at sample_ns << step, all_time_ns being the
 *		deciding classes' recent wait time?  Only while no
 *		deciding class forbids it and some episode is followed (with none,
 *		resting, not a longer interval, saves the wake-ups).  In a burst
 *		cycle the classes judged by their time do not forbid it (the bursts
 *		count their episodes): every counted episode still open must be
 *		long against it, and the wrap-around class must allow it.
 */
static bool
interval_allowed(const WalStallCadence *c, int step, uint64_t all_time_ns)
{
	uint64_t	interval = c->settings.sample_ns << step;
	bool		followed = false;

	for (int k = 0; k < c->settings.ndeciding; k++)
	{
		const WalStallClassLengths *lengths = &c->classes[k];

		followed |= lengths->youngest_open_ns != WS_NONE_OPEN || lengths->episodes > 0;
		if (c->burst_cycle &&
			lengths->youngest_counted_open_ns < long_intervals(lengths) * interval)
			return false;
		if (c->burst_cycle && !lengths->by_count)
			continue;
		if (class_forbids(c, lengths, step, all_time_ns))
			return false;
	}
	return followed || c->burst_cycle;
}

/*
 * longest_interval
 *		The sampling interval for the next tick: the longest sample_ns << step,
 *		at most max_ns and one doubling above the current one, that
 *		interval_allowed(), every shorter one allowed too.
 */
static uint64_t
longest_interval(const WalStallCadence *c)
{
	uint64_t	sample_ns = c->settings.sample_ns;
	uint64_t	chosen = sample_ns;
	uint64_t	all_time_ns = deciding_time_ns(c);

	if (c->settings.max_ns <= sample_ns || sample_ns == 0)
		return sample_ns;
	for (int step = 1; step < WS_INTERVAL_STEPS; step++)
	{
		uint64_t	interval = sample_ns << step;

		if (interval > c->settings.max_ns || interval > 2 * c->interval_ns ||
			!interval_allowed(c, step, all_time_ns))
			break;
		chosen = interval;
	}
	return chosen;
}

/*
 * bursts_help
 *		Would counting in bursts save wake-ups: is some class judged by its
 *		time short against c->burst_step (its short episodes alone hold the
 *		interval where it ticks more often than a burst cycle), and the
 *		wrap-around class does not forbid twice the sample interval?
 */
static bool
bursts_help(const WalStallCadence *c)
{
	uint64_t	all_time_ns = deciding_time_ns(c);
	int			step = c->burst_step;
	bool		short_by_time = false;

	if (step == 0)
		return false;
	for (int k = 0; k < c->settings.ndeciding; k++)
	{
		const WalStallClassLengths *lengths = &c->classes[k];

		if (lengths->by_count && class_forbids(c, lengths, 1, all_time_ns))
			return false;
		if (!lengths->by_count)
			short_by_time |= class_is_short(lengths, step, all_time_ns);
	}
	return short_by_time;
}

/*
 * in_burst
 *		Is t within the burst of a burst cycle, or within its slot while the
 *		burst has not begun?  The collector samples there at the sample
 *		interval and does not rest.
 */
static bool
in_burst(const WalStallCadence *c, uint64_t t_ns)
{
	if (!c->burst_cycle)
		return false;
	if (c->burst_begun)
		return t_ns >= c->cycle.count_from_ns && t_ns < c->cycle.count_to_ns;
	return t_ns >= c->cycle.slot_from_ns && t_ns - c->cycle.slot_from_ns < c->cycle.slot_ns;
}

/*
 * choose_rest
 *		How long to sleep if nothing can stall, or the sample interval if
 *		something can.  Nothing can while, for WS_QUIET_TICKS_BEFORE_REST
 *		ticks, no process is in a tracked wait and no episode is open, and
 *		the ring's free space outlasts the rest at the last tick's insert
 *		rate WS_REST_RATE_MARGIN times over.  The rest doubles at every
 *		quiet tick after those, up to wal_stall.idle_interval, and
 *		WS_LOAD_REST_INTERVALS sample intervals while a process is busy
 *		and the last tick saw WAL inserted; the first tick that sees a
 *		wait ends it, and a tick that cannot tell the insert rate (the
 *		first after start or promotion) takes none.  Nor does the tick a
 *		statement woke: the statement is sampled from its start as a wait
 *		seen would be, so the sleep's end does not decide what is seen.
 */
static uint64_t
choose_rest(WalStallCadence *c, const WalStallTickSeen *seen)
{
	uint64_t	sample_ns = c->settings.sample_ns;
	uint64_t	longest = c->settings.idle_ns;
	uint64_t	rest;
	double		free_bytes;

	/*
	 * Work that inserted no WAL since the last tick (read-only queries)
	 * rests as an idle server does: it waits on WAL only to evict a page
	 * dirtied before, or on the CLOG, and the first such wait seen ends the
	 * rest.  As on an idle server, WAL that begins to be inserted within
	 * such a rest is seen at its end, up to idle_interval later.
	 */
	if (seen->process_busy && seen->inserted_bytes > 0)
		longest = Min(longest, WS_LOAD_REST_INTERVALS * sample_ns);
	if (seen->tracked_wait || seen->episode_open || seen->rate_unknown || c->woken ||
		longest <= sample_ns || c->settings.ring_bytes == 0)
	{
		c->quiet_ticks = 0;
		return sample_ns;
	}
	rest = c->resting ? Min(c->sleep_ns, longest) : sample_ns;
	if (c->quiet_ticks < WS_QUIET_TICKS_BEFORE_REST)
		c->quiet_ticks++;
	else
		rest = Min(2 * rest, longest);

	free_bytes = (double) c->settings.ring_bytes *
		(seen->ring_fill < 0 ? 1.0 : 1.0 - seen->ring_fill);
	/* a tick with no time behind it tells no rate: it may rest if none came */
	if (c->elapsed_ns == 0 ? seen->inserted_bytes > 0 :
		(double) seen->inserted_bytes / c->elapsed_ns * rest * WS_REST_RATE_MARGIN > free_bytes)
	{
		c->quiet_ticks = 0;
		return sample_ns;
	}
	return rest;
}

/*
 * may_await
 *		May the sleep that begins at base await a statement until the
 *		second's close?  Only a rest at its longest, with no process at
 *		work and no WAL inserted since the last tick (the ring's margin
 *		holds for a rest, not for a second), when the collector allows it
 *		(seen->second_end_ns: after a second with no process at work, on a
 *		primary, where a statement's start wakes it).  Work that starts
 *		with no statement (autovacuum, a checkpoint) is then seen up to a
 *		second late; its samples still weigh the time since the last tick,
 *		so its time is not lost.
 */
static bool
may_await(const WalStallCadence *c, const WalStallTickSeen *seen, uint64_t rest,
		  uint64_t base)
{
	return c->resting && rest >= c->settings.idle_ns && !seen->process_busy &&
		seen->inserted_bytes == 0 && !seen->rate_unknown &&
		seen->second_end_ns > base + rest;
}

/*
 * burst_deadline
 *		The deadline of the next tick, given the one the interval or a rest
 *		asks for: in a burst cycle never beyond its burst's slot still to
 *		come, so the burst is sampled from its start; in a burst cycle, or
 *		one after which a burst cycle is expected, never beyond its end.
 */
static uint64_t
burst_deadline(const WalStallCadence *c, uint64_t now_ns, uint64_t deadline_ns)
{
	if (c->burst_cycle && now_ns < c->cycle.slot_from_ns)
		deadline_ns = Min(deadline_ns, c->cycle.slot_from_ns);
	if ((c->burst_cycle || c->burst_next) && c->started)
		deadline_ns = Min(deadline_ns, c->cycle.end_ns);
	return deadline_ns;
}

/*
 * ws_cadence_next
 *		The tick at now_ns saw this: choose what to sleep (a rest, or the
 *		sampling interval: the sample interval within a burst, the longest
 *		one allowed elsewhere) and set the next deadline.  After a rest
 *		the interval starts again at the sample interval.
 */
void
ws_cadence_next(WalStallCadence *c, const WalStallTickSeen *seen, uint64_t now_ns)
{
	uint64_t	sample_ns = c->settings.sample_ns;
	bool		bursting = in_burst(c, now_ns);
	uint64_t	rest;
	uint64_t	base;

	c->cycle_saw_wait |= seen->tracked_wait || seen->episode_open;
	/* an idle server must rest meanwhile, not wake for bursts */
	c->burst_next = c->cycle_saw_wait && bursts_help(c);
	rest = choose_rest(c, seen);
	c->resting = rest > sample_ns && !bursting;
	if (c->resting)
	{
		c->interval_ns = sample_ns;
		c->sleep_ns = rest;
	}
	else
	{
		c->interval_ns = bursting ? sample_ns : longest_interval(c);
		c->sleep_ns = c->interval_ns;
	}
	base = c->late ? now_ns : c->deadline_ns;
	/* a burst to come keeps its deadline: no await past it */
	c->awaiting = may_await(c, seen, rest, base) &&
		burst_deadline(c, now_ns, seen->second_end_ns) == seen->second_end_ns;
	if (c->awaiting)
		c->sleep_ns = seen->second_end_ns - base;
	c->deadline_ns = burst_deadline(c, now_ns, base + c->sleep_ns);
}
