/*-------------------------------------------------------------------------
 *
 * fsync_probe.c
 *		wal_stall_test_fsync(): pg_test_fsync's tests, run by the server.
 *
 * The backend that calls the function writes and syncs a scratch file in
 * the WAL directory (or another one), so the figures are what a server
 * process gets there: same file system and mount options, same cgroup I/O
 * limits.  The tests are those of pg_test_fsync, in its order and with its
 * file handling (a 16MB file written once, every op rewriting the start of
 * it, O_DIRECT for open_datasync and open_sync), so that the two tools can
 * be compared figure for figure.  On top of that every op is timed, for
 * the p50, p99 and max latencies.
 *
 * Nothing here uses shared memory: the probe works without preloading the
 * library.  No wait event is reported during the I/O, so the collector
 * never counts the probe's own writes as WAL stalls.
 *
 * The scratch file is wal_stall_fsync.<pid>.tmp, created with O_EXCL and
 * removed on success, on error and on cancel (PG_ENSURE_ERROR_CLEANUP);
 * only a crash of the backend can leave it behind.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "access/xlog_internal.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "port/pg_bitutils.h"
#include "portability/instr_time.h"
#include "storage/fd.h"
#include "storage/ipc.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

#include "compat.h"

PG_FUNCTION_INFO_V1(wal_stall_test_fsync_1_0);

#define SCRATCH_FILE_SIZE	(16 * 1024 * 1024)	/* a default WAL segment */
#define FILL_CHUNK_SIZE		(256 * 1024)
#define WAL_BLOCK_KB		(XLOG_BLCKSZ / 1024)
#define MIN_SECONDS			0.1
#define MAX_SECONDS			60.0
#define RESULT_COLS			9

/* How one op makes its writes durable. */
typedef enum ProbeSync
{
	SYNC_OPEN_DATASYNC,			/* O_DSYNC | O_DIRECT descriptor */
	SYNC_FDATASYNC,
	SYNC_FSYNC,
	SYNC_FSYNC_WRITETHROUGH,
	SYNC_OPEN_SYNC,				/* O_SYNC | O_DIRECT descriptor */
	SYNC_WRITE_FSYNC_CLOSE,		/* the op opens its own descriptors */
	SYNC_WRITE_CLOSE_FSYNC,
	SYNC_NONE
} ProbeSync;

typedef enum ProbeGroup
{
	GROUP_ONE_WRITE,
	GROUP_TWO_WRITES,
	GROUP_OPEN_SYNC_SIZES,
	GROUP_NON_WRITE_DESCRIPTOR,
	GROUP_NON_SYNCED
} ProbeGroup;

typedef struct ProbeTest
{
	ProbeGroup	group;
	const char *method;
	ProbeSync	sync;
	int			write_kb;
	int			writes_per_op;
} ProbeTest;

/* pg_test_fsync's tests, in its order. */
static const ProbeTest probe_tests[] = {
	{GROUP_ONE_WRITE, "open_datasync", SYNC_OPEN_DATASYNC, WAL_BLOCK_KB, 1},
	{GROUP_ONE_WRITE, "fdatasync", SYNC_FDATASYNC, WAL_BLOCK_KB, 1},
	{GROUP_ONE_WRITE, "fsync", SYNC_FSYNC, WAL_BLOCK_KB, 1},
	{GROUP_ONE_WRITE, "fsync_writethrough", SYNC_FSYNC_WRITETHROUGH, WAL_BLOCK_KB, 1},
	{GROUP_ONE_WRITE, "open_sync", SYNC_OPEN_SYNC, WAL_BLOCK_KB, 1},
	{GROUP_TWO_WRITES, "open_datasync", SYNC_OPEN_DATASYNC, WAL_BLOCK_KB, 2},
	{GROUP_TWO_WRITES, "fdatasync", SYNC_FDATASYNC, WAL_BLOCK_KB, 2},
	{GROUP_TWO_WRITES, "fsync", SYNC_FSYNC, WAL_BLOCK_KB, 2},
	{GROUP_TWO_WRITES, "fsync_writethrough", SYNC_FSYNC_WRITETHROUGH, WAL_BLOCK_KB, 2},
	{GROUP_TWO_WRITES, "open_sync", SYNC_OPEN_SYNC, WAL_BLOCK_KB, 2},
	{GROUP_OPEN_SYNC_SIZES, "1 * 16kB open_sync write", SYNC_OPEN_SYNC, 16, 1},
	{GROUP_OPEN_SYNC_SIZES, "2 * 8kB open_sync writes", SYNC_OPEN_SYNC, 8, 2},
	{GROUP_OPEN_SYNC_SIZES, "4 * 4kB open_sync writes", SYNC_OPEN_SYNC, 4, 4},
	{GROUP_OPEN_SYNC_SIZES, "8 * 2kB open_sync writes", SYNC_OPEN_SYNC, 2, 8},
	{GROUP_OPEN_SYNC_SIZES, "16 * 1kB open_sync writes", SYNC_OPEN_SYNC, 1, 16},
	{GROUP_NON_WRITE_DESCRIPTOR, "write, fsync, close", SYNC_WRITE_FSYNC_CLOSE, WAL_BLOCK_KB, 1},
	{GROUP_NON_WRITE_DESCRIPTOR, "write, close, fsync", SYNC_WRITE_CLOSE_FSYNC, WAL_BLOCK_KB, 1},
	{GROUP_NON_SYNCED, "write", SYNC_NONE, WAL_BLOCK_KB, 1},
};

#define NUM_TESTS	((int) lengthof(probe_tests))

/*
 * Per-op latencies of one test, in nanoseconds, in log-linear buckets:
 * values below 2 * LAT_SUB have a bucket each, and every power of two
 * above is cut into LAT_SUB buckets, so a bucket is at most 1/64 (1.6%) of
 * its values wide.  A percentile is interpolated inside its bucket.
 */
#define LAT_SUB_BITS	6
#define LAT_SUB			(1 << LAT_SUB_BITS)
#define LAT_BUCKETS		(2 * LAT_SUB + (63 - LAT_SUB_BITS) * LAT_SUB)

typedef struct LatencyHist
{
	int64		ops;
	uint64		elapsed_ns;
	uint64		min_ns;
	uint64		max_ns;
	int64		counts[LAT_BUCKETS];
} LatencyHist;

/* One call's state; the error cleanup callback reads it too. */
typedef struct ProbeRun
{
	char	   *path;			/* the scratch file */
	char	   *buf;			/* FILL_CHUNK_SIZE random bytes, I/O-aligned */
	uint64		limit_ns;		/* length of each test */
	bool		created;		/* the scratch file exists and is ours */
	int			direct_refused; /* tests that could not use O_DIRECT */
	LatencyHist hist;
} ProbeRun;

/*
 * check_seconds
 *		The seconds argument, after checking it: NULL, NaN and values out
 *		of range are refused.
 */
static double
check_seconds(FunctionCallInfo fcinfo)
{
	double		seconds;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("seconds per test must not be null"),
				 errhint("Omit the argument to run each test for 2 seconds.")));
	seconds = PG_GETARG_FLOAT8(0);
	if (!(seconds >= MIN_SECONDS && seconds <= MAX_SECONDS))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("seconds per test must be between %g and %g",
						MIN_SECONDS, MAX_SECONDS),
				 errdetail("The value given was %g.", seconds),
				 errhint("Each of the %d tests runs this long, so a call takes about %d times as long.",
						 NUM_TESTS, NUM_TESTS)));
	return seconds;
}

/* realpath() into palloc'd memory; NULL with errno set on failure. */
static char *
resolve_path(const char *path)
{
	char	   *resolved = realpath(path, NULL);
	char	   *copy;

	if (resolved == NULL)
		return NULL;
	copy = pstrdup(resolved);
	free(resolved);
	return copy;
}

/*
 * inside_server_tree
 *		Is path the data directory, the WAL directory, or below one of them?
 *		The data directory counts both as configured and resolved, the WAL
 *		directory as resolved, since pg_wal is often a symlink.
 */
static bool
inside_server_tree(const char *path)
{
	char	   *wal = psprintf("%s/%s", DataDir, XLOGDIR);
	char	   *roots[3];

	roots[0] = DataDir;
	roots[1] = resolve_path(DataDir);
	roots[2] = resolve_path(wal);
	for (int i = 0; i < (int) lengthof(roots); i++)
	{
		if (roots[i] != NULL && path_is_prefix_of_path(roots[i], path))
			return true;
	}
	return false;
}

/*
 * check_allowed
 *		Refuse a caller who is not superuser a directory outside the server's
 *		own trees.  Called on the resolved path, or, when the path does not
 *		resolve, on the lexical one (which must not climb with "..") so that
 *		the error does not tell whether a path outside exists.
 */
static void
check_allowed(const char *given, const char *path)
{
	if (superuser())
		return;
	if (!path_contains_parent_reference(path) && inside_server_tree(path))
		return;
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("permission denied to test directory \"%s\"", given),
			 errdetail("Only superusers may test a directory outside the data directory and the WAL directory.")));
}

/*
 * resolve_directory
 *		The directory to test, absolute and with every symlink and ".."
 *		resolved: NULL means the WAL directory, a relative path is taken
 *		from the data directory.
 */
static char *
resolve_directory(text *arg)
{
	char	   *given;
	char	   *path;
	char	   *resolved;
	struct stat st;

	if (arg == NULL)
		given = psprintf("%s/%s", DataDir, XLOGDIR);
	else
		given = text_to_cstring(arg);
	if (is_absolute_path(given))
		path = pstrdup(given);
	else
		path = psprintf("%s/%s", DataDir, given);
	canonicalize_path(path);

	resolved = resolve_path(path);
	if (resolved == NULL)
	{
		int			save_errno = errno;

		check_allowed(given, path);
		errno = save_errno;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not stat directory \"%s\": %m", given)));
	}
	check_allowed(given, resolved);

	if (stat(resolved, &st) < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not stat directory \"%s\": %m", given)));
	if (!S_ISDIR(st.st_mode))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("\"%s\" is not a directory", given),
				 errhint("Pass a directory: the probe creates its scratch file there.")));
	return resolved;
}

/*
 * fill_random
 *		Random bytes (splitmix64), so that no file system can compress or
 *		deduplicate the writes.  len is a multiple of 8.
 */
static void
fill_random(char *buf, Size len, uint64 *state)
{
	for (Size i = 0; i + sizeof(uint64) <= len; i += sizeof(uint64))
	{
		uint64		z = (*state += UINT64CONST(0x9E3779B97F4A7C15));

		z = (z ^ (z >> 30)) * UINT64CONST(0xBF58476D1CE4E5B9);
		z = (z ^ (z >> 27)) * UINT64CONST(0x94D049BB133111EB);
		z ^= z >> 31;
		memcpy(buf + i, &z, sizeof(z));
	}
}

/* Raise the error of a failed or short write (errno 0 means a full disk). */
static void
report_write_error(ProbeRun *run)
{
	if (errno == 0)
		errno = ENOSPC;
	ereport(ERROR,
			(errcode_for_file_access(),
			 errmsg("could not write to file \"%s\": %m", run->path)));
}

/* Open the scratch file; the descriptor is closed at abort if we fail. */
static int
open_scratch(ProbeRun *run, int flags)
{
	int			fd = OpenTransientFile(run->path, flags);

	if (fd < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open file \"%s\": %m", run->path)));
	return fd;
}

static void
close_scratch(ProbeRun *run, int fd)
{
	if (CloseTransientFile(fd) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not close file \"%s\": %m", run->path)));
}

/*
 * create_scratch
 *		Create the scratch file (O_EXCL: never reuse a file that is not
 *		ours), fill it with random data and sync it, so that later tests
 *		overwrite allocated blocks and start with no dirty pages.
 */
static void
create_scratch(ProbeRun *run)
{
	uint64		seed = ((uint64) MyProcPid << 32) ^ (uint64) GetCurrentTimestamp();
	int			fd;

	fd = OpenTransientFile(run->path, O_RDWR | O_CREAT | O_EXCL | PG_BINARY);
	if (fd < 0)
	{
		int			save_errno = errno;

		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not create file \"%s\": %m", run->path),
				 save_errno == EEXIST ?
				 errhint("The file was probably left behind by a server process that crashed; remove it.") : 0));
	}
	run->created = true;

	for (int done = 0; done < SCRATCH_FILE_SIZE; done += FILL_CHUNK_SIZE)
	{
		fill_random(run->buf, FILL_CHUNK_SIZE, &seed);
		errno = 0;
		if (write(fd, run->buf, FILL_CHUNK_SIZE) != FILL_CHUNK_SIZE)
			report_write_error(run);
		CHECK_FOR_INTERRUPTS();
	}
	if (fsync(fd) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not fsync file \"%s\": %m", run->path)));
	close_scratch(run, fd);
}

/*
 * remove_scratch
 *		Error and exit cleanup: remove the scratch file if we created it.
 *		Descriptors are closed by transaction abort or process exit.
 */
static void
remove_scratch(int code, Datum arg)
{
	ProbeRun   *run = (ProbeRun *) DatumGetPointer(arg);

	if (run->created && unlink(run->path) < 0 && errno != ENOENT)
		ereport(WARNING,
				(errcode_for_file_access(),
				 errmsg("could not remove file \"%s\": %m", run->path)));
	run->created = false;
}

#ifdef HAVE_FSYNC_WRITETHROUGH
/* Flush through the drive's write cache, where the platform can. */
static int
fsync_writethrough(int fd)
{
#if defined(WIN32)
	return _commit(fd);
#elif defined(F_FULLFSYNC)
	return fcntl(fd, F_FULLFSYNC, 0) == -1 ? -1 : 0;
#else
	errno = ENOSYS;
	return -1;
#endif
}
#endif

/*
 * sync_file
 *		The sync call of a method, made directly rather than through
 *		pg_fsync(): the probe measures the disk even when fsync is off.
 */
static void
sync_file(ProbeRun *run, int fd, ProbeSync sync)
{
	int			rc = 0;

	switch (sync)
	{
		case SYNC_FDATASYNC:
#ifdef WS_HAVE_FDATASYNC
			if (fdatasync(fd) != 0)
				ereport(ERROR,
						(errcode_for_file_access(),
						 errmsg("could not fdatasync file \"%s\": %m", run->path)));
#endif
			return;
		case SYNC_FSYNC_WRITETHROUGH:
#ifdef HAVE_FSYNC_WRITETHROUGH
			rc = fsync_writethrough(fd);
#endif
			break;
		case SYNC_FSYNC:
		case SYNC_WRITE_FSYNC_CLOSE:
		case SYNC_WRITE_CLOSE_FSYNC:
			rc = fsync(fd);
			break;
		default:
			return;
	}
	if (rc != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not fsync file \"%s\": %m", run->path)));
}

/* An op's writes: writes_per_op blocks from the start of the file. */
static void
write_blocks(ProbeRun *run, int fd, const ProbeTest *test)
{
	int			size = test->write_kb * 1024;

	for (int i = 0; i < test->writes_per_op; i++)
	{
		errno = 0;
		if (pg_pwrite(fd, run->buf, size, (off_t) i * size) != size)
			report_write_error(run);
	}
}

/*
 * run_op
 *		One op of a test.  The non-write descriptor tests open the file for
 *		every op, as pg_test_fsync does: write, fsync and close, then open
 *		and close again; or write and close, then open, fsync and close.
 */
static void
run_op(ProbeRun *run, const ProbeTest *test, int fd)
{
	switch (test->sync)
	{
		case SYNC_WRITE_FSYNC_CLOSE:
			fd = open_scratch(run, O_RDWR | PG_BINARY);
			write_blocks(run, fd, test);
			sync_file(run, fd, test->sync);
			close_scratch(run, fd);
			close_scratch(run, open_scratch(run, O_RDWR | PG_BINARY));
			break;
		case SYNC_WRITE_CLOSE_FSYNC:
			fd = open_scratch(run, O_RDWR | PG_BINARY);
			write_blocks(run, fd, test);
			close_scratch(run, fd);
			fd = open_scratch(run, O_RDWR | PG_BINARY);
			sync_file(run, fd, test->sync);
			close_scratch(run, fd);
			break;
		default:
			write_blocks(run, fd, test);
			sync_file(run, fd, test->sync);
			break;
	}
}

/*
 * open_direct
 *		Open for an open_datasync or open_sync test, with O_DIRECT as
 *		pg_test_fsync does.  A file system that refuses O_DIRECT, or writes
 *		of this size with it, fails with EINVAL: the test is then skipped.
 *		The trial write is the same one the test makes first.
 */
static bool
open_direct(ProbeRun *run, const ProbeTest *test, int flags, int *fd)
{
	int			size = test->write_kb * 1024;

	*fd = OpenTransientFile(run->path, flags | PG_O_DIRECT);
	if (*fd < 0 && errno != EINVAL)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open file \"%s\": %m", run->path)));
	if (*fd >= 0)
	{
		errno = 0;
		if (pg_pwrite(*fd, run->buf, size, 0) == size)
			return true;
		if (errno != EINVAL)
			report_write_error(run);
		close_scratch(run, *fd);
		*fd = -1;
	}
	run->direct_refused++;
	return false;
}

/*
 * open_for_test
 *		Open the descriptor a test writes through (-1 for the tests that
 *		open their own).  False when the test cannot run here: the platform
 *		lacks the method, or the file system refuses direct I/O.
 */
static bool
open_for_test(ProbeRun *run, const ProbeTest *test, int *fd)
{
	int			flags = O_RDWR | PG_BINARY;

	*fd = -1;
	switch (test->sync)
	{
		case SYNC_OPEN_DATASYNC:
#ifdef O_DSYNC
			return open_direct(run, test, flags | O_DSYNC, fd);
#else
			return false;
#endif
		case SYNC_OPEN_SYNC:
#ifdef O_SYNC
			return open_direct(run, test, flags | O_SYNC, fd);
#else
			return false;
#endif
		case SYNC_FDATASYNC:
#ifndef WS_HAVE_FDATASYNC
			return false;
#endif
			break;
		case SYNC_FSYNC_WRITETHROUGH:
#ifndef HAVE_FSYNC_WRITETHROUGH
			return false;
#endif
			break;
		case SYNC_WRITE_FSYNC_CLOSE:
		case SYNC_WRITE_CLOSE_FSYNC:
			return true;
		default:
			break;
	}
	*fd = open_scratch(run, flags);
	return true;
}

/* Histogram bucket of a latency. */
static int
lat_bucket(uint64 ns)
{
	int			msb,
				shift;

	if (ns < 2 * LAT_SUB)
		return (int) ns;
	msb = pg_leftmost_one_pos64(ns);
	shift = msb - LAT_SUB_BITS;
	return 2 * LAT_SUB + (msb - LAT_SUB_BITS - 1) * LAT_SUB +
		(int) ((ns >> shift) - LAT_SUB);
}

/* Bounds [lower, upper) of a histogram bucket, in nanoseconds. */
static void
lat_bounds(int bucket, double *lower, double *upper)
{
	int			k = bucket - 2 * LAT_SUB;
	int			shift;
	uint64		top;

	if (k < 0)
	{
		*lower = bucket;
		*upper = bucket + 1;
		return;
	}
	shift = k / LAT_SUB + 1;
	top = LAT_SUB + k % LAT_SUB;
	*lower = ldexp((double) top, shift);
	*upper = ldexp((double) (top + 1), shift);
}

static void
hist_record(LatencyHist *hist, uint64 ns)
{
	hist->counts[lat_bucket(ns)]++;
	hist->ops++;
	hist->min_ns = Min(hist->min_ns, ns);
	hist->max_ns = Max(hist->max_ns, ns);
}

/*
 * hist_percentile
 *		The latency that fraction of the ops did not exceed (nearest rank,
 *		interpolated inside its bucket, within the observed min and max).
 */
static double
hist_percentile(const LatencyHist *hist, double fraction)
{
	int64		rank = Max((int64) ceil(fraction * hist->ops), 1);
	int64		seen = 0;

	for (int b = 0; b < LAT_BUCKETS; b++)
	{
		double		lower,
					upper,
					value;

		if (seen + hist->counts[b] < rank)
		{
			seen += hist->counts[b];
			continue;
		}
		lat_bounds(b, &lower, &upper);
		value = lower + (upper - lower) * (rank - seen) / hist->counts[b];
		value = Min(value, (double) hist->max_ns);
		return Max(value, (double) hist->min_ns);
	}
	return (double) hist->max_ns;
}

/* Nanoseconds from start to end. */
static uint64
elapsed_ns(instr_time end, instr_time start)
{
	INSTR_TIME_SUBTRACT(end, start);
	return ws_instr_time_ns(end);
}

/*
 * time_test
 *		Run a test's ops until its time is up.  One clock read per op: an
 *		op's latency runs from the end of the one before, so the latencies
 *		add up to the elapsed time exactly.
 */
static void
time_test(ProbeRun *run, const ProbeTest *test, int fd)
{
	LatencyHist *hist = &run->hist;
	instr_time	start,
				prev,
				now;

	memset(hist, 0, sizeof(LatencyHist));
	hist->min_ns = PG_UINT64_MAX;
	INSTR_TIME_SET_CURRENT(start);
	prev = start;
	for (;;)
	{
		run_op(run, test, fd);
		INSTR_TIME_SET_CURRENT(now);
		hist_record(hist, elapsed_ns(now, prev));
		prev = now;
		hist->elapsed_ns = elapsed_ns(now, start);
		if (hist->elapsed_ns >= run->limit_ns)
			break;
		CHECK_FOR_INTERRUPTS();
	}
}

static const char *
group_name(ProbeGroup group)
{
	switch (group)
	{
		case GROUP_ONE_WRITE:
			return psprintf("one %dkB write", WAL_BLOCK_KB);
		case GROUP_TWO_WRITES:
			return psprintf("two %dkB writes", WAL_BLOCK_KB);
		case GROUP_OPEN_SYNC_SIZES:
			return "open_sync sizes";
		case GROUP_NON_WRITE_DESCRIPTOR:
			return "non-write descriptor";
		case GROUP_NON_SYNCED:
			return "non-synced writes";
	}
	return "";					/* keep compiler quiet */
}

/* One result row; hist NULL for a test that could not run. */
static void
put_row(ReturnSetInfo *rsinfo, const ProbeTest *test, const LatencyHist *hist)
{
	Datum		values[RESULT_COLS];
	bool		nulls[RESULT_COLS];

	memset(nulls, 0, sizeof(nulls));
	values[0] = CStringGetTextDatum(group_name(test->group));
	values[1] = CStringGetTextDatum(test->method);
	values[2] = Int32GetDatum(test->write_kb);
	values[3] = Int32GetDatum(test->writes_per_op);
	if (hist == NULL)
	{
		for (int i = 4; i < RESULT_COLS; i++)
			nulls[i] = true;
	}
	else
	{
		double		ops_per_sec = hist->ops / (hist->elapsed_ns / 1e9);

		values[4] = Float8GetDatum(ops_per_sec);
		values[5] = Float8GetDatum(1e6 / ops_per_sec);
		values[6] = Float8GetDatum(hist_percentile(hist, 0.50) / 1000.0);
		values[7] = Float8GetDatum(hist_percentile(hist, 0.99) / 1000.0);
		values[8] = Float8GetDatum(hist->max_ns / 1000.0);
	}
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/* Every test in turn, one row each. */
static void
run_tests(ProbeRun *run, ReturnSetInfo *rsinfo)
{
	for (int i = 0; i < NUM_TESTS; i++)
	{
		const ProbeTest *test = &probe_tests[i];
		int			fd;

		if (!open_for_test(run, test, &fd))
		{
			put_row(rsinfo, test, NULL);
			continue;
		}
		time_test(run, test, fd);
		if (fd >= 0)
			close_scratch(run, fd);
		put_row(rsinfo, test, &run->hist);
	}
}

/*
 * wal_stall_test_fsync(seconds float8, directory text)
 *		pg_test_fsync's tests on a scratch file in directory (NULL: the WAL
 *		directory), seconds each, one row per test.  Superuser-only unless
 *		granted; a grantee who is not superuser is kept inside the server's
 *		own directories.
 */
Datum
wal_stall_test_fsync_1_0(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	double		seconds = check_seconds(fcinfo);
	char	   *directory;
	ProbeRun   *run;

	directory = resolve_directory(PG_ARGISNULL(1) ? NULL : PG_GETARG_TEXT_PP(1));
	ws_init_materialized_srf(fcinfo);

	run = palloc0(sizeof(ProbeRun));
	run->path = psprintf("%s/wal_stall_fsync.%d.tmp", directory, MyProcPid);
	run->buf = (char *) TYPEALIGN(PG_IO_ALIGN_SIZE,
								  palloc(FILL_CHUNK_SIZE + PG_IO_ALIGN_SIZE));
	run->limit_ns = (uint64) (seconds * 1e9);

	PG_ENSURE_ERROR_CLEANUP(remove_scratch, PointerGetDatum(run));
	{
		create_scratch(run);
		run_tests(run, rsinfo);
	}
	PG_END_ENSURE_ERROR_CLEANUP(remove_scratch, PointerGetDatum(run));

	run->created = false;
	if (unlink(run->path) < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not remove file \"%s\": %m", run->path)));

	if (run->direct_refused > 0)
		ereport(NOTICE,
				(errmsg("direct I/O was refused in directory \"%s\"", directory),
				 errdetail("%d tests that write with O_DIRECT, as pg_test_fsync does, have no figures.",
						   run->direct_refused),
				 errhint("The file system does not support O_DIRECT, or not for writes this small.")));
	return (Datum) 0;
}
