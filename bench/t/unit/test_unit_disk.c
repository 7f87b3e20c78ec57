/*-------------------------------------------------------------------------
 *
 * test_unit_disk.c
 *		wal_stall_bench unit tests: the seeds' disk profiles
 *		(disk_profile.c): the first throttle, its corrections from what a
 *		probe measured, when a calibration fits, and the report's line.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "test_unit.h"

static void
test_profiles(void)
{
	const WsbDiskProfile *nate = wsb_disk_profile("nate_boley");
	const WsbDiskProfile *power7 = wsb_disk_profile("power7");

	check(nate && nate->seed.fdatasync_one == 108.654 && nate->seed.fdatasync_two == 58.072 &&
		  nate->seed.fsync_one == 20.234, "nate_boley: the seed's pg_test_fsync figures");
	check(power7 && power7->seed.fdatasync_one == 167.091 && power7->seed.fdatasync_two == 164.597 &&
		  power7->seed.fsync_one == 47.321, "power7: the seed's pg_test_fsync figures");
	check(wsb_disk_profile("Nate_Boley") == NULL && wsb_disk_profile("") == NULL,
		  "a profile is named exactly");
	check(strcmp(wsb_disk_profile_names(), "nate_boley, power7") == 0, "the names, for an error");
}

static void
test_throttles(void)
{
	const WsbDiskProfile *nate = wsb_disk_profile("nate_boley");
	const WsbDiskProfile *power7 = wsb_disk_profile("power7");
	WsbThrottle t;
	WsbSyncRates m;

	wsb_disk_first_throttle(nate, &t);
	check(t.iops == 217 && t.kbps == 929 && t.journal_kbps == 149,
		  "nate_boley: two I/Os per synced write at 108.7/s, 16kB at 58.1/s, "
		  "6 kB of journal in fsync's extra 40.2 ms (got %d, %d, %d)", t.iops, t.kbps, t.journal_kbps);
	wsb_disk_first_throttle(power7, &t);
	check(t.iops == 334 && t.kbps == 0 && t.journal_kbps == 396,
		  "power7: two writes cost what one does, so no bandwidth cap; "
		  "6 kB of journal in 15.1 ms (got %d, %d, %d)", t.iops, t.kbps, t.journal_kbps);

	/* measured too fast on all three: each limit scaled down by its miss */
	t = (WsbThrottle) {217, 929, 149};
	m = (WsbSyncRates) {130.0, 71.8, 80.9};
	check(wsb_disk_next_throttle(nate, &m, &t) && t.iops == 181 && t.kbps == 751 && t.journal_kbps == 75,
		  "too fast: IOPS x 108.7/130, kB/s x 58.1/71.8, the journal x sqrt(20.2/80.9) (got %d, %d, %d)",
		  t.iops, t.kbps, t.journal_kbps);
	/* one write close, two not: only the cap moves */
	t = (WsbThrottle) {217, 929, 149};
	m = (WsbSyncRates) {105.9, 71.8, 21.0};
	check(wsb_disk_next_throttle(nate, &m, &t) && t.iops == 217 && t.kbps == 751 && t.journal_kbps == 149,
		  "one write and fsync within 8%%: the IOPS and the journal stay (got %d, %d, %d)",
		  t.iops, t.kbps, t.journal_kbps);
	/* fsync too slow: the journal's cap rises */
	t = (WsbThrottle) {217, 751, 149};
	m = (WsbSyncRates) {105.9, 60.0, 10.0};
	check(wsb_disk_next_throttle(nate, &m, &t) && t.iops == 217 && t.kbps == 751 && t.journal_kbps == 212,
		  "fsync at 10/s: the journal x sqrt(20.2/10) (got %d, %d, %d)", t.iops, t.kbps, t.journal_kbps);
	/* all close: nothing changes, the calibration stops */
	t = (WsbThrottle) {217, 751, 149};
	m = (WsbSyncRates) {105.9, 60.0, 19.5};
	check(!wsb_disk_next_throttle(nate, &m, &t) && t.iops == 217 && t.kbps == 751 && t.journal_kbps == 149,
		  "all within 8%%: no change, false");
	/* no cap stays no cap, whatever two writes measured */
	t = (WsbThrottle) {334, 0, 396};
	m = (WsbSyncRates) {150.0, 100.0, 47.0};
	check(wsb_disk_next_throttle(power7, &m, &t) && t.iops == 372 && t.kbps == 0 && t.journal_kbps == 396,
		  "power7 too slow: IOPS up, still no cap (got %d, %d, %d)", t.iops, t.kbps, t.journal_kbps);
	/* a rate not measured corrects nothing */
	t = (WsbThrottle) {217, 929, 149};
	m = (WsbSyncRates) {-1, -1, -1};
	check(!wsb_disk_next_throttle(nate, &m, &t) && t.iops == 217 && t.kbps == 929 && t.journal_kbps == 149,
		  "nothing measured: nothing changes");
	/* a limit never falls to 0 (0 would lift it) */
	t = (WsbThrottle) {1, 1, 1};
	m = (WsbSyncRates) {1e6, 1e6, 1e6};
	check(wsb_disk_next_throttle(nate, &m, &t) == false && t.iops == 1 && t.kbps == 1 && t.journal_kbps == 1,
		  "limits stay at least 1");
}

static void
test_describe(void)
{
	WsbDiskCalibration c;
	char		buf[1024];

	memset(&c, 0, sizeof(c));
	wsb_disk_describe(&c, buf, sizeof(buf));
	check(strcmp(buf, "none") == 0 && !wsb_disk_calibrated(&c), "no profile: none");

	c.profile = wsb_disk_profile("nate_boley");
	c.throttle = (WsbThrottle) {217, 751, 149};
	c.measured = (WsbSyncRates) {105.9, 60.0, 22.1};
	c.probes = 2;
	wsb_disk_describe(&c, buf, sizeof(buf));
	check(wsb_disk_calibrated(&c) &&
		  strstr(buf, "fdatasync after one 8kB write 108.7/s, here 105.9/s (-3%); "
				 "after two 58.1/s, here 60.0/s (+3%); fsync 20.2/s, here 22.1/s (+9%); "
				 "pg_wal throttled to 217 write IOPS and 751 kB/s, its journal to 149 kB/s after 2 probes: "
				 "all three rates within 20% of the seed's") != NULL,
		  "calibrated: the seed's rates beside ours, the throttle (%s)", buf);

	c.measured.fdatasync_two = 71.8;
	c.probes = 1;
	wsb_disk_describe(&c, buf, sizeof(buf));
	check(!wsb_disk_calibrated(&c) &&
		  strstr(buf, "after 1 probe: the three rates are NOT all within 20% of the seed's") != NULL,
		  "two writes 24%% off: not calibrated, and it says so (%s)", buf);
	c.measured.fdatasync_two = 60.0;
	c.measured.fsync_one = 133.6;
	check(!wsb_disk_calibrated(&c), "fsync 560%% off: not calibrated");

	c.profile = wsb_disk_profile("power7");
	c.throttle = (WsbThrottle) {334, 0, 0};
	c.measured = (WsbSyncRates) {160.0, 158.0, 50.0};
	wsb_disk_describe(&c, buf, sizeof(buf));
	check(wsb_disk_calibrated(&c) && strstr(buf, "throttled to 334 write IOPS after") != NULL &&
		  strstr(buf, "kB/s") == NULL,
		  "no cap named when none (%s)", buf);
	check(fabs(wsb_disk_miss(wsb_disk_profile("nate_boley"), &(WsbSyncRates) {97.79, 63.88, 20.2}, true) - 0.1) < 1e-3 &&
		  fabs(wsb_disk_miss(wsb_disk_profile("nate_boley"), &(WsbSyncRates) {108.7, 58.1, 30.35}, true) - 0.5) < 1e-3 &&
		  wsb_disk_miss(wsb_disk_profile("nate_boley"), &(WsbSyncRates) {108.7, 58.1, -1}, true) == HUGE_VAL,
		  "a probe's miss: the largest of the three misses; unmeasured is the worst");
	check(fabs(wsb_disk_miss(wsb_disk_profile("nate_boley"), &(WsbSyncRates) {97.79, 63.88, 133.6}, false) - 0.1) < 1e-3 &&
		  fabs(wsb_disk_miss(wsb_disk_profile("nate_boley"), &(WsbSyncRates) {97.79, 63.88, -1}, false) - 0.1) < 1e-3,
		  "a journal out of reach: fsync's miss left out");
	check(wsb_disk_rate_fits(100, 120, 0.2) && !wsb_disk_rate_fits(100, 120.5, 0.2) &&
		  !wsb_disk_rate_fits(100, -1, 0.2) && wsb_disk_rate_fits(100, 80, 0.2),
		  "within 20%%: both sides, a missing rate never fits");
}

void
test_disk_profiles(void)
{
	test_profiles();
	test_throttles();
	test_describe();
}
