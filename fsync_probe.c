/*-------------------------------------------------------------------------
 *
 * fsync_probe.c
 *		wal_stall_test_fsync(): pg_test_fsync's tests, run by the server.
 *
 * The calling backend writes and syncs a scratch file in the WAL directory
 * (or another one), so the figures are what a server process gets there:
 * same file system, mount options and cgroup I/O limits.  The tests, their
 * order and their file handling are pg_test_fsync's (a 16MB file written
 * once, every op rewriting its start, O_DIRECT for open_datasync and
 * open_sync), so that the two can be compared; on top, every op is timed.
 *
 * No shared memory is used: the probe works without preloading.  No wait
 * event is reported, so the collector never counts the probe's writes.
 * The scratch file, wal_stall_fsync.<pid>.tmp, is created with O_EXCL and
 * removed on success, error and cancel; only a backend crash leaves it.
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
#define MAX_SAMPLES			(512 * 1024)	/* latencies kept per test */
#define RESULT_COLS			9

/* How an op makes its writes durable. */
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

typedef struct ProbeTest
{
	const char *group;			/* %d stands for the WAL block size in kB */
	const char *method;
	ProbeSync	sync;
	int			write_kb;
	int			writes_per_op;
} ProbeTest;

#define ONE_WRITE	"one %dkB write"
#define TWO_WRITES	"two %dkB writes"
#define SIZES		"open_sync sizes"

/* pg_test_fsync's tests, in its order. */
static const ProbeTest probe_tests[] = {
	{ONE_WRITE, "open_datasync", SYNC_OPEN_DATASYNC, WAL_BLOCK_KB, 1},
	{ONE_WRITE, "fdatasync", SYNC_FDATASYNC, WAL_BLOCK_KB, 1},
	{ONE_WRITE, "fsync", SYNC_FSYNC, WAL_BLOCK_KB, 1},
	{ONE_WRITE, "fsync_writethrough", SYNC_FSYNC_WRITETHROUGH, WAL_BLOCK_KB, 1},
	{ONE_WRITE, "open_sync", SYNC_OPEN_SYNC, WAL_BLOCK_KB, 1},
	{TWO_WRITES, "open_datasync", SYNC_OPEN_DATASYNC, WAL_BLOCK_KB, 2},
	{TWO_WRITES, "fdatasync", SYNC_FDATASYNC, WAL_BLOCK_KB, 2},
	{TWO_WRITES, "fsync", SYNC_FSYNC, WAL_BLOCK_KB, 2},
	{TWO_WRITES, "fsync_writethrough", SYNC_FSYNC_WRITETHROUGH, WAL_BLOCK_KB, 2},
	{TWO_WRITES, "open_sync", SYNC_OPEN_SYNC, WAL_BLOCK_KB, 2},
	{SIZES, "1 * 16kB open_sync write", SYNC_OPEN_SYNC, 16, 1},
	{SIZES, "2 * 8kB open_sync writes", SYNC_OPEN_SYNC, 8, 2},
	{SIZES, "4 * 4kB open_sync writes", SYNC_OPEN_SYNC, 4, 4},
	{SIZES, "8 * 2kB open_sync writes", SYNC_OPEN_SYNC, 2, 8},
	{SIZES, "16 * 1kB open_sync writes", SYNC_OPEN_SYNC, 1, 16},
	{"non-write descriptor", "write, fsync, close", SYNC_WRITE_FSYNC_CLOSE, WAL_BLOCK_KB, 1},
	{"non-write descriptor", "write, close, fsync", SYNC_WRITE_CLOSE_FSYNC, WAL_BLOCK_KB, 1},
	{"non-synced writes", "write", SYNC_NONE, WAL_BLOCK_KB, 1},
};

#define NUM_TESTS	((int) lengthof(probe_tests))

/*
 * One call's state; the error cleanup callback reads it too.  The figures
 * are those of the test being run.  Its per-op latencies are all kept up
 * to MAX_SAMPLES ops, so percentiles are exact, and beyond that a uniform
 * random sample of that size (reservoir sampling): memory stays bounded.
 */
typedef struct ProbeRun
{
	char	   *path;			/* the scratch file */
	char	   *buf;			/* FILL_CHUNK_SIZE random bytes, I/O-aligned */
	uint64		limit_ns;		/* length of each test */
	uint64		rng;			/* splitmix64 state */
	bool		created;		/* the scratch file exists and is ours */
	int			direct_refused; /* tests that could not use O_DIRECT */
	int64		ops;
	uint64		elapsed_ns;
	uint64		max_ns;
	int			nsamples;
	uint64	   *samples;		/* per-op latencies, ns */
} ProbeRun;

/*
 * check_seconds
 *		The seconds argument; NULL, NaN and values out of range are refused.
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
 * check_allowed
 *		Keep a caller who is not superuser inside the data directory (as
 *		configured or resolved) or the resolved WAL directory, which is
 *		often a symlink.  path is resolved, or, when it does not resolve,
 *		lexical and then must not climb with "..": the error must not tell
 *		whether a path outside exists.
 */
static void
check_allowed(const char *given, const char *path)
{
	const char *roots[3];

	if (superuser())
		return;
	roots[0] = DataDir;
	roots[1] = resolve_path(DataDir);
	roots[2] = resolve_path(psprintf("%s/%s", DataDir, XLOGDIR));
	for (int i = 0; i < (int) lengthof(roots); i++)
	{
		if (roots[i] != NULL && path_is_prefix_of_path(roots[i], path) &&
			!path_contains_parent_reference(path))
			return;
	}
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("permission denied to test directory \"%s\"", given),
			 errdetail("Only superusers may test a directory outside the data directory and the WAL directory.")));
}

/*
 * resolve_directory
 *		The directory to test, absolute, with every symlink and ".."
 *		resolved: NULL means the WAL directory, and a relative path is taken
 *		from the data directory.
 */
static char *
resolve_directory(text *arg)
{
	char	   *given;
	char	   *path;
	char	   *resolved;
	int			save_errno;
	struct stat st;

	given = arg ? text_to_cstring(arg) : psprintf("%s/%s", DataDir, XLOGDIR);
	if (is_absolute_path(given))
		path = pstrdup(given);
	else
		path = psprintf("%s/%s", DataDir, given);
	canonicalize_path(path);

	resolved = resolve_path(path);
	save_errno = errno;
	check_allowed(given, resolved ? resolved : path);
	errno = save_errno;
	if (resolved == NULL || stat(resolved, &st) < 0)
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

/* splitmix64: fast, and good enough for file data and sampling. */
static uint64
next_random(uint64 *state)
{
	uint64		z = (*state += UINT64CONST(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64CONST(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64CONST(0x94D049BB133111EB);
	return z ^ (z >> 31);
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

/* Open the scratch file; transaction abort closes what an error leaves. */
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
 *		Create the scratch file (O_EXCL: never take over a file that is not
 *		ours), fill it with random data, which no file system can compress,
 *		and sync it, so that the tests overwrite allocated blocks and start
 *		with no dirty pages.  run->buf keeps the last random chunk.
 */
static void
create_scratch(ProbeRun *run)
{
	int			fd;

	fd = OpenTransientFile(run->path, O_RDWR | O_CREAT | O_EXCL | PG_BINARY);
	if (fd < 0)
	{
		int			save_errno = errno;

		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not create file \"%s\": %m", run->path),
				 save_errno == EEXIST ?
				 errhint("A server process that crashed left the file behind; remove it.") : 0));
	}
	run->created = true;

	for (int done = 0; done < SCRATCH_FILE_SIZE; done += FILL_CHUNK_SIZE)
	{
		for (int i = 0; i < FILL_CHUNK_SIZE; i += sizeof(uint64))
		{
			uint64		word = next_random(&run->rng);

			memcpy(run->buf + i, &word, sizeof(word));
		}
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
 */
static void
remove_scratch(int code pg_attribute_unused(), Datum arg)
{
	ProbeRun   *run = (ProbeRun *) DatumGetPointer(arg);

	if (run->created && unlink(run->path) < 0 && errno != ENOENT)
		ereport(WARNING,
				(errcode_for_file_access(),
				 errmsg("could not remove file \"%s\": %m", run->path)));
	run->created = false;
}

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
#if defined(HAVE_FSYNC_WRITETHROUGH) && defined(WIN32)
			rc = _commit(fd);
#elif defined(HAVE_FSYNC_WRITETHROUGH) && defined(F_FULLFSYNC)
			rc = (fcntl(fd, F_FULLFSYNC, 0) == -1) ? -1 : 0;
#endif
			break;
		case SYNC_FSYNC:
		case SYNC_WRITE_FSYNC_CLOSE:
		case SYNC_WRITE_CLOSE_FSYNC:
			rc = fsync(fd);
			break;
		default:
			return;				/* the descriptor syncs each write, or none */
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
	int			flags = O_RDWR | PG_BINARY;

	if (test->sync == SYNC_WRITE_FSYNC_CLOSE)
	{
		fd = open_scratch(run, flags);
		write_blocks(run, fd, test);
		sync_file(run, fd, test->sync);
		close_scratch(run, fd);
		close_scratch(run, open_scratch(run, flags));
	}
	else if (test->sync == SYNC_WRITE_CLOSE_FSYNC)
	{
		fd = open_scratch(run, flags);
		write_blocks(run, fd, test);
		close_scratch(run, fd);
		fd = open_scratch(run, flags);
		sync_file(run, fd, test->sync);
		close_scratch(run, fd);
	}
	else
	{
		write_blocks(run, fd, test);
		sync_file(run, fd, test->sync);
	}
}

/*
 * open_direct
 *		Open for an open_datasync or open_sync test, with O_DIRECT as
 *		pg_test_fsync does.  A file system that refuses O_DIRECT, or writes
 *		this small with it, fails with EINVAL: the test is then skipped.
 *		The trial write is the one the test starts with anyway.
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
#ifdef O_DSYNC
		case SYNC_OPEN_DATASYNC:
			return open_direct(run, test, flags | O_DSYNC, fd);
#endif
#ifdef O_SYNC
		case SYNC_OPEN_SYNC:
			return open_direct(run, test, flags | O_SYNC, fd);
#endif
#ifdef WS_HAVE_FDATASYNC
		case SYNC_FDATASYNC:
#endif
#ifdef HAVE_FSYNC_WRITETHROUGH
		case SYNC_FSYNC_WRITETHROUGH:
#endif
		case SYNC_FSYNC:
		case SYNC_NONE:
			*fd = open_scratch(run, flags);
			return true;
		case SYNC_WRITE_FSYNC_CLOSE:
		case SYNC_WRITE_CLOSE_FSYNC:
			return true;
		default:
			return false;		/* not on this platform */
	}
}

/* Count an op, and keep its latency in the sample (Algorithm R). */
static void
record_op(ProbeRun *run, uint64 ns)
{
	run->ops++;
	run->max_ns = Max(run->max_ns, ns);
	if (run->nsamples < MAX_SAMPLES)
		run->samples[run->nsamples++] = ns;
	else
	{
		uint64		slot = next_random(&run->rng) % (uint64) run->ops;

		if (slot < MAX_SAMPLES)
			run->samples[slot] = ns;
	}
}

static int
compare_uint64(const void *a, const void *b)
{
	uint64		x = *(const uint64 *) a;
	uint64		y = *(const uint64 *) b;

	return (x > y) - (x < y);
}

/* Nearest-rank percentile of the sorted sample, in microseconds. */
static double
percentile_us(const ProbeRun *run, double fraction)
{
	int			rank = (int) ceil(fraction * run->nsamples);

	return run->samples[Max(rank, 1) - 1] / 1000.0;
}

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
	instr_time	start,
				prev,
				now;

	run->ops = 0;
	run->max_ns = 0;
	run->nsamples = 0;
	INSTR_TIME_SET_CURRENT(start);
	prev = start;
	for (;;)
	{
		run_op(run, test, fd);
		INSTR_TIME_SET_CURRENT(now);
		record_op(run, elapsed_ns(now, prev));
		prev = now;
		run->elapsed_ns = elapsed_ns(now, start);
		if (run->elapsed_ns >= run->limit_ns)
			break;
		CHECK_FOR_INTERRUPTS();
	}
	qsort(run->samples, run->nsamples, sizeof(uint64), compare_uint64);
}

/* One result row: the figures of the test just run, NULLs if it could not. */
static void
put_row(ReturnSetInfo *rsinfo, const ProbeTest *test, const ProbeRun *run)
{
	Datum		values[RESULT_COLS];
	bool		nulls[RESULT_COLS];

	memset(nulls, 0, sizeof(nulls));
	values[0] = CStringGetTextDatum(psprintf(test->group, WAL_BLOCK_KB));
	values[1] = CStringGetTextDatum(test->method);
	values[2] = Int32GetDatum(test->write_kb);
	values[3] = Int32GetDatum(test->writes_per_op);
	for (int i = 4; i < RESULT_COLS; i++)
		nulls[i] = (run == NULL);
	if (run != NULL)
	{
		double		ops_per_sec = run->ops / (run->elapsed_ns / 1e9);

		values[4] = Float8GetDatum(ops_per_sec);
		values[5] = Float8GetDatum(1e6 / ops_per_sec);
		values[6] = Float8GetDatum(percentile_us(run, 0.50));
		values[7] = Float8GetDatum(percentile_us(run, 0.99));
		values[8] = Float8GetDatum(run->max_ns / 1000.0);
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
		put_row(rsinfo, test, run);
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
	run->rng = ((uint64) MyProcPid << 32) ^ (uint64) GetCurrentTimestamp();
	run->samples = palloc(MAX_SAMPLES * sizeof(uint64));

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
				 errdetail_plural("%d test that writes with O_DIRECT, as pg_test_fsync does, has no figures.",
								  "%d tests that write with O_DIRECT, as pg_test_fsync does, have no figures.",
								  run->direct_refused, run->direct_refused),
				 errhint("The file system does not support O_DIRECT, or not for writes this small.")));
	return (Datum) 0;
}
