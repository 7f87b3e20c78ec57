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
	check(t.iops == 217 && t.kbps == 929,
		  "nate_boley: two I/Os per synced write at 108.7/s, 16kB at 58.1/s (got %d, %d)", t.iops, t.kbps);
	wsb_disk_first_throttle(power7, &t);
	check(t.iops == 334 && t.kbps == 0,
		  "power7: two writes cost what one does, so no bandwidth cap (got %d, %d)", t.iops, t.kbps);

	/* measured too fast on both: both limits scaled down by the miss */
	t = (WsbThrottle) {217, 929};
	m = (WsbSyncRates) {130.0, 71.8, 133.6};
	check(wsb_disk_next_throttle(nate, &m, &t) && t.iops == 181 && t.kbps == 751,
		  "too fast: IOPS x 108.7/130, kB/s x 58.1/71.8 (got %d, %d)", t.iops, t.kbps);
	/* one write close, two not: only the cap moves */
	t = (WsbThrottle) {217, 929};
	m = (WsbSyncRates) {105.9, 71.8, 133.6};
	check(wsb_disk_next_throttle(nate, &m, &t) && t.iops == 217 && t.kbps == 751,
		  "one write within 8%%: the IOPS stay (got %d, %d)", t.iops, t.kbps);
	/* both close: nothing changes, the calibration stops */
	t = (WsbThrottle) {217, 751};
	m = (WsbSyncRates) {105.9, 60.0, 133.6};
	check(!wsb_disk_next_throttle(nate, &m, &t) && t.iops == 217 && t.kbps == 751,
		  "both within 8%%: no change, false");
	/* no cap stays no cap, whatever two writes measured */
	t = (WsbThrottle) {334, 0};
	m = (WsbSyncRates) {150.0, 100.0, 160.0};
	check(wsb_disk_next_throttle(power7, &m, &t) && t.iops == 372 && t.kbps == 0,
		  "power7 too slow: IOPS up, still no cap (got %d, %d)", t.iops, t.kbps);
	/* a rate not measured corrects nothing */
	t = (WsbThrottle) {217, 929};
	m = (WsbSyncRates) {-1, -1, -1};
	check(!wsb_disk_next_throttle(nate, &m, &t) && t.iops == 217 && t.kbps == 929,
		  "nothing measured: nothing changes");
	/* a limit never falls to 0 (0 would lift it) */
	t = (WsbThrottle) {1, 1};
	m = (WsbSyncRates) {1e6, 1e6, 1};
	check(wsb_disk_next_throttle(nate, &m, &t) == false && t.iops == 1 && t.kbps == 1,
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
	c.throttle = (WsbThrottle) {217, 751};
	c.measured = (WsbSyncRates) {105.9, 60.0, 133.6};
	c.probes = 2;
	wsb_disk_describe(&c, buf, sizeof(buf));
	check(wsb_disk_calibrated(&c) &&
		  strstr(buf, "fdatasync after one 8kB write 108.7/s, here 105.9/s (-3%); "
				 "after two 58.1/s, here 60.0/s (+3%); fsync 20.2/s, here 133.6/s (+560%); "
				 "pg_wal throttled to 217 write IOPS and 751 kB/s after 2 probes: "
				 "both fdatasync rates within 20% of the seed's; fsync is out of the throttle's reach") != NULL,
		  "calibrated: the seed's rates beside ours, the throttle, fsync out of reach (%s)", buf);

	c.measured.fdatasync_two = 71.8;
	c.probes = 1;
	wsb_disk_describe(&c, buf, sizeof(buf));
	check(!wsb_disk_calibrated(&c) &&
		  strstr(buf, "after 1 probe: the fdatasync rates are NOT both within 20% of the seed's") != NULL,
		  "two writes 24%% off: not calibrated, and it says so (%s)", buf);

	c.profile = wsb_disk_profile("power7");
	c.throttle = (WsbThrottle) {334, 0};
	c.measured = (WsbSyncRates) {160.0, 158.0, 50.0};
	wsb_disk_describe(&c, buf, sizeof(buf));
	check(wsb_disk_calibrated(&c) && strstr(buf, "throttled to 334 write IOPS after") != NULL &&
		  strstr(buf, "kB/s") == NULL && strstr(buf, "out of the throttle's reach") == NULL,
		  "no cap named when none, no fsync clause when fsync fits (%s)", buf);
	check(fabs(wsb_disk_miss(wsb_disk_profile("nate_boley"), &(WsbSyncRates) {97.79, 63.88, 1}) - 0.1) < 1e-3 &&
		  wsb_disk_miss(wsb_disk_profile("nate_boley"), &(WsbSyncRates) {108.7, -1, 1}) == HUGE_VAL,
		  "a probe's miss: the larger of the two fdatasync misses, fsync aside; unmeasured is the worst");
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
