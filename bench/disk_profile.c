/*-------------------------------------------------------------------------
 *
 * disk_profile.c
 *		wal_stall_bench: the seeds' WAL disks (--wal-disk) and the rules
 *		that choose a throttle reproducing them.  No server here: target.c
 *		measures each throttle and asks these rules for the next.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "disk_profile.h"

/*
 * pg_test_fsync on the two machines of "Re: wal_buffers, redux"
 * (pgsql-hackers, March 2012), 2 seconds a test.
 */
static const WsbDiskProfile profiles[] = {
	{"nate_boley", "Nate Boley's machine", {108.654, 58.072, 20.234}},
	{"power7", "the IBM POWER7 server", {167.091, 164.597, 47.321}},
};

#define N_PROFILES ((int) (sizeof(profiles) / sizeof(profiles[0])))

/* a write and the cache flush after it: the throttle counts both as writes */
#define IOS_PER_SYNCED_WRITE 2.0
/* two writes costing this much more than one: the disk pays by the byte */
#define TWO_WRITES_BY_THE_BYTE 1.25
#define TWO_WRITES_BYTES 16384.0
/*
 * What an fsync after one write costs the journal's store, in kB, beyond
 * the fdatasync it also makes: the commit (descriptor, inode table block,
 * commit record; about 16kB) spread over the fsyncs that share a commit.
 * Measured here: a store at 150 kB/s gave 20-25 fsyncs a second beside 100
 * fdatasyncs, 200 kB/s 28-51, 130 kB/s 11-14 (the rate is steep in the cap:
 * a slower commit makes more fsyncs wait for one).
 */
#define JOURNAL_KB_PER_FSYNC 6.0

const WsbDiskProfile *
wsb_disk_profile(const char *name)
{
	for (int i = 0; i < N_PROFILES; i++)
		if (strcmp(profiles[i].name, name) == 0)
			return &profiles[i];
	return NULL;
}

/* "nate_boley, power7": for an error naming the choices */
const char *
wsb_disk_profile_names(void)
{
	static char names[128];

	if (names[0] == '\0')
		for (int i = 0; i < N_PROFILES; i++)
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
					 i ? ", " : "", profiles[i].name);
	return names;
}

/*
 * The throttle a simple model of the disk gives: an fdatasync after one
 * write is two I/Os, so the IOPS are twice the seed's rate; when two writes
 * cost the seed clearly more than one, each byte costs time, and the MB/s
 * cap (kB/s) makes a 16kB write take what the seed's two writes took; the
 * journal's store spends JOURNAL_KB_PER_FSYNC in what an fsync costs the
 * seed beyond an fdatasync.
 */
void
wsb_disk_first_throttle(const WsbDiskProfile *p, WsbThrottle *t)
{
	double		extra = 1.0 / p->seed.fsync_one - 1.0 / p->seed.fdatasync_one;

	t->iops = (int) lround(IOS_PER_SYNCED_WRITE * p->seed.fdatasync_one);
	t->kbps = 0;
	/* the seconds an fsync costs beyond an fdatasync, spent on the journal */
	t->journal_kbps = extra > 0 ? (int) fmax(1.0, lround(JOURNAL_KB_PER_FSYNC / extra)) : 0;
	if (p->seed.fdatasync_two * TWO_WRITES_BY_THE_BYTE < p->seed.fdatasync_one)
	{
		long		kbps = lround(TWO_WRITES_BYTES * p->seed.fdatasync_two / 1024.0);

		t->kbps = kbps < 1 ? 1 : (int) kbps;
	}
	if (t->iops < 1)
		t->iops = 1;
}

bool
wsb_disk_rate_fits(double seed, double measured, double share)
{
	return measured > 0 && seed > 0 && fabs(measured / seed - 1.0) <= share;
}

/*
 * How far a probe missed the seed: the largest of the rates' relative
 * misses, fsync's only with_fsync (a journal the throttle reaches);
 * HUGE_VAL when one was not measured.
 */
double
wsb_disk_miss(const WsbDiskProfile *p, const WsbSyncRates *measured, bool with_fsync)
{
	double		miss;

	if (measured->fdatasync_one <= 0 || measured->fdatasync_two <= 0 ||
		(with_fsync && measured->fsync_one <= 0))
		return HUGE_VAL;
	miss = fmax(fabs(measured->fdatasync_one / p->seed.fdatasync_one - 1.0),
				fabs(measured->fdatasync_two / p->seed.fdatasync_two - 1.0));
	return with_fsync ? fmax(miss, fabs(measured->fsync_one / p->seed.fsync_one - 1.0)) : miss;
}

/* A limit scaled by seed/measured, at least 1: a rate is proportional to it. */
static int
corrected(int limit, double seed, double measured)
{
	long		v = lround(limit * seed / measured);

	return v < 1 ? 1 : (int) v;
}

/*
 * The journal's cap scaled by the square root of how far the fsync rate
 * missed: the rate is steeper than proportional in the cap (a slower
 * commit makes more fsyncs share it, and wait), so a full correction
 * would overshoot.
 */
static int
journal_corrected(int kbps, double seed, double measured)
{
	long		v = lround(kbps * sqrt(seed / measured));

	return v < 1 ? 1 : (int) v;
}

/*
 * The next throttle from what the last one measured: each limit scaled by
 * how far the rate it governs missed (the IOPS govern one write's rate, the
 * kB/s two writes', the journal's kB/s the fsync's), unless that rate is
 * already close.  false when nothing changed: the calibration stops.
 */
bool
wsb_disk_next_throttle(const WsbDiskProfile *p, const WsbSyncRates *measured, WsbThrottle *t)
{
	WsbThrottle was = *t;

	if (measured->fdatasync_one > 0 &&
		!wsb_disk_rate_fits(p->seed.fdatasync_one, measured->fdatasync_one, WSB_DISK_CLOSE))
		t->iops = corrected(t->iops, p->seed.fdatasync_one, measured->fdatasync_one);
	if (t->kbps > 0 && measured->fdatasync_two > 0 &&
		!wsb_disk_rate_fits(p->seed.fdatasync_two, measured->fdatasync_two, WSB_DISK_CLOSE))
		t->kbps = corrected(t->kbps, p->seed.fdatasync_two, measured->fdatasync_two);
	if (t->journal_kbps > 0 && measured->fsync_one > 0 &&
		!wsb_disk_rate_fits(p->seed.fsync_one, measured->fsync_one, WSB_DISK_CLOSE))
		t->journal_kbps = journal_corrected(t->journal_kbps, p->seed.fsync_one, measured->fsync_one);
	return t->iops != was.iops || t->kbps != was.kbps || t->journal_kbps != was.journal_kbps;
}

/* Do the three rates reproduce the seed's within WSB_DISK_FIT? */
bool
wsb_disk_calibrated(const WsbDiskCalibration *c)
{
	return c->profile != NULL && c->probes > 0 &&
		wsb_disk_rate_fits(c->profile->seed.fdatasync_one, c->measured.fdatasync_one, WSB_DISK_FIT) &&
		wsb_disk_rate_fits(c->profile->seed.fdatasync_two, c->measured.fdatasync_two, WSB_DISK_FIT) &&
		wsb_disk_rate_fits(c->profile->seed.fsync_one, c->measured.fsync_one, WSB_DISK_FIT);
}

/* "108.7/s here 112.3/s (+3%)" */
static void
rate_pair(char *buf, size_t len, const char *what, double seed, double measured)
{
	size_t		n = strlen(buf);

	if (measured > 0)
		snprintf(buf + n, len - n, "%s %.1f/s, here %.1f/s (%+.0f%%)", what, seed, measured,
				 100.0 * (measured / seed - 1.0));
	else
		snprintf(buf + n, len - n, "%s %.1f/s, here not measured", what, seed);
}

/*
 * One line for the report and the terminal: the seed's rates beside the
 * ones measured through the chosen throttle, and whether they fit.
 */
void
wsb_disk_describe(const WsbDiskCalibration *c, char *buf, size_t len)
{
	const WsbDiskProfile *p = c->profile;
	size_t		n;

	if (p == NULL)
	{
		snprintf(buf, len, "none");
		return;
	}
	snprintf(buf, len, "%s, %s (pg_test_fsync, 2012) against wal_stall_test_fsync here: ", p->name,
			 p->machine);
	rate_pair(buf, len, "fdatasync after one 8kB write", p->seed.fdatasync_one, c->measured.fdatasync_one);
	rate_pair(buf, len, "; after two", p->seed.fdatasync_two, c->measured.fdatasync_two);
	rate_pair(buf, len, "; fsync", p->seed.fsync_one, c->measured.fsync_one);
	n = strlen(buf);
	snprintf(buf + n, len - n, "; pg_wal throttled to %d write IOPS", c->throttle.iops);
	n = strlen(buf);
	if (c->throttle.kbps > 0)
		snprintf(buf + n, len - n, " and %d kB/s", c->throttle.kbps);
	n = strlen(buf);
	if (c->throttle.journal_kbps > 0)
		snprintf(buf + n, len - n, ", its journal to %d kB/s", c->throttle.journal_kbps);
	n = strlen(buf);
	snprintf(buf + n, len - n, " after %d probe%s: %s within %.0f%% of the seed's", c->probes,
			 c->probes == 1 ? "" : "s",
			 wsb_disk_calibrated(c) ? "all three rates" : "the three rates are NOT all",
			 100.0 * WSB_DISK_FIT);
}
