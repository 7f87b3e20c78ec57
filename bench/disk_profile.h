/*-------------------------------------------------------------------------
 *
 * disk_profile.h
 *		wal_stall_bench: --wal-disk PROFILE, the WAL disks of the
 *		pgsql-hackers wal_buffers threads of 2012 made from their
 *		pg_test_fsync figures, and the throttle that reproduces them here
 *		(disk_profile.c).
 *
 * A profile names three rates of pg_test_fsync on the seed's machine:
 * fdatasync after one 8kB write, after two, and fsync after one.  The
 * harness throttles pg_wal's loop device (write IOPS, and MB/s when two
 * writes cost the seed more than one) and the store of its file system's
 * journal (kB/s: an fsync after a write waits for a journal commit, an
 * fdatasync does not), and measures the same three rates with
 * wal_stall_test_fsync() inside the server; it corrects the throttle from
 * what it measured until the three rates are close to the seed's, and
 * keeps the throttle whose probe came closest (target.c,
 * wsb_target_calibrate_wal_disk).
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WSB_DISK_PROFILE_H
#define WSB_DISK_PROFILE_H

#include <stdbool.h>
#include <stddef.h>

/* The three pg_test_fsync rates, operations per second (-1: not measured). */
typedef struct WsbSyncRates
{
	double		fdatasync_one;	/* one 8kB write, then fdatasync */
	double		fdatasync_two;	/* two 8kB writes, then fdatasync */
	double		fsync_one;		/* one 8kB write, then fsync */
} WsbSyncRates;

/* A seed's WAL disk. */
typedef struct WsbDiskProfile
{
	const char *name;			/* --wal-disk NAME */
	const char *machine;		/* whose disk: "Nate Boley's machine" */
	WsbSyncRates seed;			/* its pg_test_fsync, as posted */
} WsbDiskProfile;

/* A throttle of pg_wal's device: what slowdisk.c writes into the cgroup. */
typedef struct WsbThrottle
{
	int			iops;			/* write IOPS, at least 1 */
	int			kbps;			/* write kB/s (1024 bytes), 0: no cap */
	int			journal_kbps;	/* the journal's store, write kB/s, 0: no cap */
} WsbThrottle;

/* The calibration's outcome, for the report. */
typedef struct WsbDiskCalibration
{
	const WsbDiskProfile *profile;	/* NULL: no --wal-disk */
	WsbThrottle throttle;		/* the closest one tried, which the runs use */
	WsbSyncRates measured;		/* wal_stall_test_fsync with it */
	int			probes;			/* how many throttles were measured */
} WsbDiskCalibration;

/* within this share of the seed's rate, a probe's rate reproduces it */
#define WSB_DISK_FIT		0.20
/* within this share, the calibration stops correcting */
#define WSB_DISK_CLOSE		0.08
/* the most throttles it measures: each probe writes a 16MB file through it */
#define WSB_DISK_MAX_PROBES 6

extern const WsbDiskProfile *wsb_disk_profile(const char *name);
extern const char *wsb_disk_profile_names(void);
extern void wsb_disk_first_throttle(const WsbDiskProfile *p, WsbThrottle *t);
extern bool wsb_disk_next_throttle(const WsbDiskProfile *p, const WsbSyncRates *measured,
								   WsbThrottle *t);
extern bool wsb_disk_rate_fits(double seed, double measured, double share);
extern double wsb_disk_miss(const WsbDiskProfile *p, const WsbSyncRates *measured, bool with_fsync);
extern bool wsb_disk_calibrated(const WsbDiskCalibration *c);
extern void wsb_disk_describe(const WsbDiskCalibration *c, char *buf, size_t len);

#endif							/* WSB_DISK_PROFILE_H */
