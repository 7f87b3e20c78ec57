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
 *
 * Where the scratch file may go.  A crash (kill -9, immediate shutdown,
 * power loss) can leave the file behind, so it may only go where a stray
 * file is harmless: its name starts with "pgsql_tmp", which base backups
 * and pg_rewind skip everywhere, and it goes in the WAL directory (the
 * server ignores files there that are not WAL), in a temporary-files
 * directory (base/pgsql_tmp or a tablespace's, which the server empties at
 * every start), or, for superusers only, in a directory outside the data
 * directory and the tablespaces.  Every other directory of the data
 * directory is refused to everybody: a stray file in pg_tblspc or an SLRU
 * directory stops the server from starting.  A run first removes the
 * scratch files of dead processes from its directory.
 *
 * The check cannot be raced: the directory is opened once, component by
 * component with O_NOFOLLOW (following only the links the server set up
 * itself, pg_wal and those in pg_tblspc), and the scratch file is created,
 * opened and removed relative to that descriptor.  A caller who is not
 * superuser is judged on the text of the path alone, before anything is
 * looked up, so errors tell nothing about what exists outside.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "access/xlog_internal.h"
#include "common/file_perm.h"
#include "common/relpath.h"
#include "common/shortest_dec.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "portability/instr_time.h"
#include "storage/fd.h"
#include "storage/ipc.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"

#include "compat.h"

PG_FUNCTION_INFO_V1(wal_stall_test_fsync);

#define SCRATCH_FILE_SIZE	(16 * 1024 * 1024)	/* a default WAL segment */
#define FILL_CHUNK_SIZE		(256 * 1024)
#define WAL_BLOCK_KB		(XLOG_BLCKSZ / 1024)
#define MIN_SECONDS			0.1
#define MAX_SECONDS			60.0
#define MAX_SAMPLES			(512 * 1024)	/* latencies kept per test */
#define RESULT_COLS			9

/*
 * The scratch file is SCRATCH_PREFIX<pid>.  The "pgsql_tmp" prefix makes
 * base backups skip it and startup remove it from temporary directories.
 */
#define SCRATCH_PREFIX		PG_TEMP_FILE_PREFIX "_wal_stall_fsync."
#define MAX_SCRATCH_FDS		2	/* a test's descriptor and an op's own */

/*
 * fd.c emulates PG_O_DIRECT with fcntl(F_NOCACHE) on macOS; the probe opens
 * with openat() and must do the same itself there.
 */
#ifdef PG_O_DIRECT_USE_F_NOCACHE
#define PROBE_O_DIRECT		0
#else
#define PROBE_O_DIRECT		PG_O_DIRECT
#endif

#define WHERE_TO_TEST_HINT \
	"Test the WAL directory (directory NULL), \"base/pgsql_tmp\" or a tablespace's \"pgsql_tmp\" directory; a superuser may also test a directory outside the data directory."

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
 * Where the scratch file may go.  A directory inside the data directory is
 * named by its path relative to it, and walked to from there; only the
 * links the server made itself (PROBE_WAL's pg_wal, the OID link of
 * PROBE_TABLESPACE_TEMP) are followed.
 */
typedef enum ProbePlace
{
	PROBE_WAL,					/* pg_wal */
	PROBE_BASE_TEMP,			/* base/pgsql_tmp */
	PROBE_TABLESPACE_TEMP,		/* pg_tblspc/OID/PG_.../pgsql_tmp */
	PROBE_OUTSIDE				/* superuser: a directory outside */
} ProbePlace;

typedef struct ProbeTarget
{
	ProbePlace	place;
	const char *walk;			/* path walked: relative to the data
								 * directory, or absolute and free of
								 * symlinks for PROBE_OUTSIDE */
} ProbeTarget;

/*
 * One call's state; the error cleanup callback reads it too.  The figures
 * are those of the test being run.  Its per-op latencies are all kept up
 * to MAX_SAMPLES ops, so percentiles are exact, and beyond that a uniform
 * random sample of that size (reservoir sampling): memory stays bounded.
 */
typedef struct ProbeRun
{
	const char *directory;		/* as the caller named it, for messages */
	char	   *name;			/* the scratch file's name in dirfd */
	char	   *path;			/* directory/name, for messages */
	int			dirfd;			/* the directory checked and used, or -1 */
	int			fds[MAX_SCRATCH_FDS];	/* scratch descriptors, -1 if free */
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
 *		The value is printed in the shortest form that reads back exactly,
 *		as float8 output does: the caller sees what was given.
 */
static double
check_seconds(FunctionCallInfo fcinfo)
{
	double		seconds;
	char		given[DOUBLE_SHORTEST_DECIMAL_LEN];

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("seconds per test must not be null"),
				 errhint("Omit the argument to run each test for 2 seconds.")));
	seconds = PG_GETARG_FLOAT8(0);
	if (!(seconds >= MIN_SECONDS && seconds <= MAX_SECONDS))
	{
		double_to_shortest_decimal_buf(seconds, given);
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("seconds per test must be between %g and %g",
						MIN_SECONDS, MAX_SECONDS),
				 errdetail("The value given was %s.", given),
				 errhint("Each of the %d tests runs this long, so a call takes about %d times as long.",
						 NUM_TESTS, NUM_TESTS)));
	}
	return seconds;
}

/*
 * normalize_path
 *		path with empty and "." components dropped and ".." applied, from
 *		the text alone: no symlink is looked at.  *escapes is set when a
 *		relative path climbs above its start.  "." is what is left of a
 *		relative path that names its start.
 */
static char *
normalize_path(const char *path, bool *escapes)
{
	bool		absolute = is_absolute_path(path);
	char	   *copy = pstrdup(path);
	char	  **parts = palloc((strlen(path) / 2 + 2) * sizeof(char *));
	int			nparts = 0;
	StringInfoData out;

	*escapes = false;
	for (char *part = strtok(copy, "/"); part != NULL; part = strtok(NULL, "/"))
	{
		if (strcmp(part, ".") == 0)
			continue;
		if (strcmp(part, "..") != 0)
			parts[nparts++] = part;
		else if (nparts > 0)
			nparts--;
		else if (!absolute)
			*escapes = true;	/* "/.." is "/" */
	}

	initStringInfo(&out);
	for (int i = 0; i < nparts; i++)
		appendStringInfo(&out, "%s%s", (i > 0 || absolute) ? "/" : "", parts[i]);
	if (out.len == 0)
		appendStringInfoString(&out, absolute ? "/" : ".");
	return out.data;
}

/*
 * path_below
 *		path relative to root when path is root or below it ("." for root
 *		itself), else NULL.  Both are normalized absolute paths.
 */
static const char *
path_below(const char *root, const char *path)
{
	size_t		len = strlen(root);

	if (strcmp(root, "/") == 0)
		return path[1] ? path + 1 : ".";
	if (strncmp(root, path, len) != 0)
		return NULL;
	if (path[len] == '\0')
		return ".";
	return path[len] == '/' ? path + len + 1 : NULL;
}

/*
 * is_tablespace_temp
 *		Whether rel is pg_tblspc/OID/PG_<version>_<catversion>/pgsql_tmp.
 */
static bool
is_tablespace_temp(const char *rel)
{
	const char *prefix = "pg_tblspc/";
	size_t		digits;

	if (strncmp(rel, prefix, strlen(prefix)) != 0)
		return false;
	rel += strlen(prefix);
	digits = strspn(rel, "0123456789");
	return digits > 0 &&
		strcmp(rel + digits,
			   "/" TABLESPACE_VERSION_DIRECTORY "/" PG_TEMP_FILES_DIR) == 0;
}

/*
 * place_in_data_directory
 *		Which allowed place rel, a normalized path relative to the data
 *		directory, names; false for every other directory of the data
 *		directory.
 */
static bool
place_in_data_directory(const char *rel, ProbeTarget *target)
{
	target->walk = rel;
	if (strcmp(rel, XLOGDIR) == 0)
		target->place = PROBE_WAL;
	else if (strcmp(rel, "base/" PG_TEMP_FILES_DIR) == 0)
		target->place = PROBE_BASE_TEMP;
	else if (is_tablespace_temp(rel))
		target->place = PROBE_TABLESPACE_TEMP;
	else
		return false;
	return true;
}

/* The error for a directory where a stray scratch file would do harm. */
static void
refuse_directory(const char *given)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("cannot test directory \"%s\"", given),
			 errdetail("Inside the data directory only the WAL directory and the temporary-file directories may be tested: a scratch file left elsewhere by a crash could stop the server or a standby from starting, or be copied by base backups."),
			 errhint(WHERE_TO_TEST_HINT)));
}

/*
 * The error for a path a caller who is not superuser may not use.  It
 * depends on the text alone, so it tells nothing about what exists.
 */
static void
deny_directory(const char *given)
{
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("permission denied to test directory \"%s\"", given),
			 errdetail("Only superusers may test a directory outside the data directory."),
			 errhint(WHERE_TO_TEST_HINT)));
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
 * place_of_resolved
 *		A superuser's absolute path, resolved: an allowed place of the data
 *		directory or of a tablespace, a directory outside all of them, or
 *		refused.  Comparing resolved paths catches a path that reaches the
 *		data directory, pg_wal or a tablespace through a symlink.
 */
static void
place_of_resolved(const char *given, const char *resolved, ProbeTarget *target)
{
	char	   *wal = resolve_path(psprintf("%s/%s", DataDir, XLOGDIR));
	char	   *data = resolve_path(DataDir);
	const char *rel;
	DIR		   *dir;
	struct dirent *de;

	if (wal != NULL && strcmp(wal, resolved) == 0)
	{
		target->place = PROBE_WAL;
		target->walk = XLOGDIR;
		return;
	}
	if (data != NULL && (rel = path_below(data, resolved)) != NULL)
	{
		if (!place_in_data_directory(rel, target))
			refuse_directory(given);
		return;
	}
	if (wal != NULL && path_below(wal, resolved) != NULL)
		refuse_directory(given);	/* below the WAL directory */

	/* A tablespace's tree: only its pgsql_tmp, reached through its link. */
	dir = AllocateDir("pg_tblspc");
	while ((de = ReadDir(dir, "pg_tblspc")) != NULL)
	{
		char	   *link = psprintf("pg_tblspc/%s", de->d_name);
		char	   *location;

		if (de->d_name[0] == '.')
			continue;
		location = resolve_path(psprintf("%s/%s", DataDir, link));
		if (location == NULL || (rel = path_below(location, resolved)) == NULL)
			continue;
		FreeDir(dir);
		if (!place_in_data_directory(psprintf("%s/%s", link, rel), target) ||
			target->place != PROBE_TABLESPACE_TEMP)
			refuse_directory(given);
		return;
	}
	FreeDir(dir);

	target->place = PROBE_OUTSIDE;
	target->walk = resolved;
}

/*
 * choose_target
 *		Where the scratch file goes: NULL is the WAL directory, a relative
 *		path is taken from the data directory.  A caller who is not
 *		superuser is judged on the normalized text alone; a superuser's
 *		path that leaves the data directory is resolved.
 */
static void
choose_target(const char *given, ProbeTarget *target)
{
	bool		escapes;
	char	   *path;
	const char *rel;
	char	   *resolved;

	if (given == NULL)
	{
		target->place = PROBE_WAL;
		target->walk = XLOGDIR;
		return;
	}
	path = normalize_path(given, &escapes);
	if (!is_absolute_path(path) && !escapes)
		rel = path;
	else if (!superuser())
		rel = is_absolute_path(path) ?
			path_below(normalize_path(DataDir, &escapes), path) : NULL;
	else
		rel = NULL;

	if (rel != NULL)
	{
		if (!place_in_data_directory(rel, target))
			refuse_directory(given);
		return;
	}
	if (!superuser())
		deny_directory(given);

	if (!is_absolute_path(path))
		path = normalize_path(psprintf("%s/%s", DataDir, given), &escapes);
	resolved = resolve_path(path);
	if (resolved == NULL)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open directory \"%s\": %m", given)));
	place_of_resolved(given, resolved, target);
}

/* Close a descriptor opened outside fd.c, and give back its slot. */
static int
close_external(int fd)
{
	int			rc = close(fd);

	ReleaseExternalFD();
	return rc;
}

/* openat() a descriptor counted against fd.c's limit. */
static int
openat_external(int dirfd, const char *name, int flags, mode_t mode)
{
	int			fd;
	int			save_errno;

	ReserveExternalFD();
	fd = openat(dirfd, name, flags | O_CLOEXEC, mode);
	if (fd < 0)
	{
		save_errno = errno;
		ReleaseExternalFD();
		errno = save_errno;
	}
	return fd;
}

/*
 * open_step
 *		Replace run->dirfd by its subdirectory name, created first if
 *		create.  Symlinks are not followed unless follow: then the
 *		directory opened is the one checked, whatever is renamed meanwhile.
 */
static void
open_step(ProbeRun *run, const char *name, bool follow, bool create,
		  bool outside)
{
	int			fd;

	if (create && mkdirat(run->dirfd, name, pg_dir_create_mode) < 0 &&
		errno != EEXIST)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not create directory \"%s\": %m", run->directory)));
	fd = openat_external(run->dirfd, name,
						 O_RDONLY | O_DIRECTORY | (follow ? 0 : O_NOFOLLOW), 0);
	if (fd < 0)
	{
		bool		not_dir = (errno == ENOTDIR || errno == ELOOP);

		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open directory \"%s\": %m", run->directory),
				 (not_dir && !outside) ?
				 errdetail("Inside the data directory, the only symbolic links followed are \"pg_wal\" and those in \"pg_tblspc\".") : 0));
	}
	close_external(run->dirfd);
	run->dirfd = fd;
}

/*
 * open_directory
 *		Open the target into run->dirfd: the data directory (or "/") first,
 *		then one component at a time.  run->dirfd always holds the one
 *		descriptor open, so the error cleanup closes it.
 */
static void
open_directory(ProbeRun *run, const ProbeTarget *target)
{
	bool		outside = (target->place == PROBE_OUTSIDE);
	char	   *walk = pstrdup(target->walk);
	char	   *parts[MAXPGPATH];
	int			nparts = 0;

	for (char *part = strtok(walk, "/"); part != NULL; part = strtok(NULL, "/"))
	{
		if (nparts >= (int) lengthof(parts))
			elog(ERROR, "too many components in path \"%s\"", target->walk);
		parts[nparts++] = part;
	}

	run->dirfd = openat_external(AT_FDCWD, outside ? "/" : DataDir,
								 O_RDONLY | O_DIRECTORY, 0);
	if (run->dirfd < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open directory \"%s\": %m",
						outside ? "/" : DataDir)));
	for (int i = 0; i < nparts; i++)
	{
		/* pg_wal, and a tablespace's link pg_tblspc/OID: set up by the server */
		bool		follow = !outside &&
			((target->place == PROBE_WAL && i == 0) ||
			 (target->place == PROBE_TABLESPACE_TEMP && i == 1));
		/* temporary directories are made when first needed, as fd.c does */
		bool		create = !outside && target->place != PROBE_WAL &&
			i == nparts - 1;

		open_step(run, parts[i], follow, create, outside);
	}
}

/*
 * scratch_pid
 *		The pid in a scratch file's name, 0 if name is not one.
 */
static pid_t
scratch_pid(const char *name)
{
	const char *digits = name + strlen(SCRATCH_PREFIX);
	char	   *end;
	long		pid;

	if (strncmp(name, SCRATCH_PREFIX, strlen(SCRATCH_PREFIX)) != 0 ||
		!isdigit((unsigned char) digits[0]))
		return 0;
	errno = 0;
	pid = strtol(digits, &end, 10);
	if (*end != '\0' || errno != 0 || pid > PG_INT32_MAX)
		return 0;
	return (pid_t) pid;
}

/*
 * remove_stale_scratch
 *		Remove the scratch files that crashed runs left in the directory:
 *		those whose process is gone, and one bearing our own pid, which a
 *		dead process had before us.  Housekeeping only: a failure to read
 *		the directory is not an error, and the O_EXCL create still protects
 *		any file left.
 */
static void
remove_stale_scratch(ProbeRun *run)
{
	int			fd = openat_external(run->dirfd, ".", O_RDONLY | O_DIRECTORY, 0);
	DIR		   *dir = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;

	if (dir == NULL)
	{
		if (fd >= 0)
			close_external(fd);
		return;
	}
	while ((de = readdir(dir)) != NULL)
	{
		pid_t		pid = scratch_pid(de->d_name);

		if (pid <= 0)
			continue;
		if (pid != MyProcPid && (kill(pid, 0) == 0 || errno != ESRCH))
			continue;			/* alive, or not ours to signal */
		if (unlinkat(run->dirfd, de->d_name, 0) == 0)
			ereport(LOG,
					(errmsg("removed file \"%s/%s\" left by a wal_stall_test_fsync() run of process %d",
							run->directory, de->d_name, (int) pid)));
	}
	closedir(dir);
	ReleaseExternalFD();
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

/*
 * try_open_scratch
 *		Open the scratch file relative to the checked directory, never
 *		through a symlink; -1 with errno set on failure.  The descriptor
 *		is kept in run->fds for the error cleanup to close.
 */
static int
try_open_scratch(ProbeRun *run, int flags)
{
	int			slot = 0;
	int			fd;

	while (run->fds[slot] >= 0)
		if (++slot >= MAX_SCRATCH_FDS)
			elog(ERROR, "too many descriptors open on the scratch file");
	fd = openat_external(run->dirfd, run->name,
						 (flags & ~PG_O_DIRECT) | O_NOFOLLOW | PG_BINARY |
						 ((flags & PG_O_DIRECT) ? PROBE_O_DIRECT : 0),
						 pg_file_create_mode);
#ifdef PG_O_DIRECT_USE_F_NOCACHE
	if (fd >= 0 && (flags & PG_O_DIRECT) && fcntl(fd, F_NOCACHE, 1) < 0)
	{
		int			save_errno = errno;

		close_external(fd);
		errno = save_errno;
		fd = -1;
	}
#endif
	if (fd >= 0)
		run->fds[slot] = fd;
	return fd;
}

static int
open_scratch(ProbeRun *run, int flags)
{
	int			fd = try_open_scratch(run, flags);

	if (fd < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open file \"%s\": %m", run->path)));
	return fd;
}

static void
close_scratch(ProbeRun *run, int fd)
{
	for (int slot = 0; slot < MAX_SCRATCH_FDS; slot++)
		if (run->fds[slot] == fd)
			run->fds[slot] = -1;
	if (close_external(fd) != 0)
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

	fd = try_open_scratch(run, O_RDWR | O_CREAT | O_EXCL);
	if (fd < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not create file \"%s\": %m", run->path)));
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
 * release_run
 *		Close every descriptor and remove the scratch file if we created it.
 *		Error and exit cleanup, and the end of a successful run: returns the
 *		errno of a failed removal, 0 if none.
 */
static int
release_run(ProbeRun *run)
{
	int			unlink_errno = 0;

	for (int slot = 0; slot < MAX_SCRATCH_FDS; slot++)
	{
		if (run->fds[slot] >= 0)
			close_external(run->fds[slot]);
		run->fds[slot] = -1;
	}
	if (run->created && unlinkat(run->dirfd, run->name, 0) < 0 &&
		errno != ENOENT)
		unlink_errno = errno;
	run->created = false;
	if (run->dirfd >= 0)
		close_external(run->dirfd);
	run->dirfd = -1;
	return unlink_errno;
}

/* The error cleanup callback: release_run, warning if the file stays. */
static void
cleanup_run(int code pg_attribute_unused(), Datum arg)
{
	ProbeRun   *run = (ProbeRun *) DatumGetPointer(arg);
	int			unlink_errno = release_run(run);

	if (unlink_errno != 0)
	{
		errno = unlink_errno;
		ereport(WARNING,
				(errcode_for_file_access(),
				 errmsg("could not remove file \"%s\": %m", run->path)));
	}
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
	int			flags = O_RDWR;

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

	*fd = try_open_scratch(run, flags | PG_O_DIRECT);
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
	int			flags = O_RDWR;

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
 *		granted; see the file header for the directories allowed.
 */
Datum
wal_stall_test_fsync(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	double		seconds = check_seconds(fcinfo);
	char	   *given = PG_ARGISNULL(1) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(1));
	ProbeTarget target;
	ProbeRun   *run;
	int			unlink_errno;

	choose_target(given, &target);
	ws_init_materialized_srf(fcinfo);

	run = palloc0(sizeof(ProbeRun));
	run->directory = given ? given : XLOGDIR;
	run->name = psprintf("%s%d", SCRATCH_PREFIX, MyProcPid);
	run->path = psprintf("%s/%s", run->directory, run->name);
	run->dirfd = -1;
	for (int slot = 0; slot < MAX_SCRATCH_FDS; slot++)
		run->fds[slot] = -1;
	run->buf = (char *) TYPEALIGN(PG_IO_ALIGN_SIZE,
								  palloc(FILL_CHUNK_SIZE + PG_IO_ALIGN_SIZE));
	run->limit_ns = (uint64) (seconds * 1e9);
	run->rng = ((uint64) MyProcPid << 32) ^ (uint64) GetCurrentTimestamp();
	run->samples = palloc(MAX_SAMPLES * sizeof(uint64));

	PG_ENSURE_ERROR_CLEANUP(cleanup_run, PointerGetDatum(run));
	{
		open_directory(run, &target);
		remove_stale_scratch(run);
		create_scratch(run);
		run_tests(run, rsinfo);
	}
	PG_END_ENSURE_ERROR_CLEANUP(cleanup_run, PointerGetDatum(run));

	unlink_errno = release_run(run);
	if (unlink_errno != 0)
	{
		errno = unlink_errno;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not remove file \"%s\": %m", run->path)));
	}
	if (run->direct_refused > 0)
		ereport(NOTICE,
				(errmsg("direct I/O was refused in directory \"%s\"", run->directory),
				 errdetail_plural("%d test that writes with O_DIRECT, as pg_test_fsync does, has no figures.",
								  "%d tests that write with O_DIRECT, as pg_test_fsync does, have no figures.",
								  run->direct_refused, run->direct_refused),
				 errhint("The file system does not support O_DIRECT, or not for writes this small.")));
	return (Datum) 0;
}
