/*-------------------------------------------------------------------------
 *
 * persist.c
 *		Keep wal_stall's figures across a clean restart.
 *
 * At a clean shutdown the postmaster writes what has accumulated since the
 * last reset to pg_stat/wal_stall.stat, and at the next start it reads the
 * file back and removes it at once.  Nothing is written at any other time,
 * so after a crash there is no file and the figures start from zero, like
 * core's own statistics (which crash recovery discards too: a baseline
 * taken from counters that no longer exist would mean nothing).
 *
 * Both ends run in the postmaster, when no other process is attached to
 * shared memory: at start before any child is forked, at shutdown after the
 * last one has exited.  So neither takes our lock.
 *
 * The file is a header, the figures (WalStallFigures, as it is in shared
 * memory), the history rows oldest first, the wal_stall_queries entries,
 * and a CRC-32C of all that.  A file of another format version is set
 * aside with a LOG line, as pg_stat_statements does: a build that saves
 * another layout is an upgrade, not damage.  Anything else unexpected in
 * it (another server version or build, a short file, a bad checksum, a
 * value the collector cannot have written) gives one WARNING.  Either way
 * the file is removed and the figures start from zero; the server always
 * starts.
 *
 * The postmaster must never wait on the file: a FIFO put at one of our
 * paths would block an ordinary open() until someone writes to it.  So
 * both paths are opened with O_NONBLOCK (reading) or O_CREAT | O_EXCL
 * (writing), never following a symbolic link, and anything there that is
 * not a regular file is refused and removed, or, if it is a directory that
 * is not empty, left alone with a message saying that the figures cannot
 * be saved until it is removed.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#include "access/xlog_internal.h"
#include "catalog/pg_control.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "port/pg_crc32c.h"
#include "storage/fd.h"
#include "utils/timestamp.h"

#include "compat.h"
#include "counters.h"
#include "histogram.h"
#include "queries.h"
#include "shared_state.h"
#include "wal_stall.h"

#define WS_STAT_FILE		PGSTAT_STAT_PERMANENT_DIRECTORY "/wal_stall.stat"
#define WS_STAT_TMP_FILE	WS_STAT_FILE ".tmp"

/*
 * What is saved of WalStallShared is its figures, everything accumulated
 * since the last reset, written and read as the struct itself: a field
 * added to WalStallFigures is saved and loaded with no change here (the
 * ws_assert_variable_is_of_type() calls below hold the code to that).  The
 * collector's own status (pid, ticks, started_at, overruns) and the
 * per-process episodes describe the run that ended, and are not saved.
 */

/*
 * Set once the postmaster has initialized our shared memory: when it does
 * so again, it is re-initializing after a crash.
 */
static bool shmem_initialized = false;

/*
 * The save file, read or written through a buffer of our own: stdio's
 * fopen() modes cannot ask for O_NONBLOCK, O_EXCL or O_NOFOLLOW portably.
 */
typedef struct SaveFile
{
	int			fd;
	pg_crc32c	crc;			/* of the bytes read or written with it */
	int			len;			/* bytes in buf */
	int			pos;			/* next byte of buf to read */
	int			err;			/* errno of a failed read() or write() */
	char		buf[BLCKSZ];
} SaveFile;

static void
save_file_init(SaveFile *f, int fd)
{
	f->fd = fd;
	INIT_CRC32C(f->crc);
	f->len = 0;
	f->pos = 0;
	f->err = 0;
}

/* Write out the buffer; false (and f->err) on failure. */
static bool
save_flush(SaveFile *f)
{
	int			done = 0;

	while (done < f->len)
	{
		ssize_t		n = write(f->fd, f->buf + done, f->len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
		{
			/* a short write without an error: the disk is full */
			f->err = (n < 0) ? errno : ENOSPC;
			return false;
		}
		done += n;
	}
	f->len = 0;
	return true;
}

/* Write len bytes, adding them to the checksum if checksum is set. */
static bool
save_write(SaveFile *f, const void *data, size_t len, bool checksum)
{
	const char *in = data;

	if (checksum)
		COMP_CRC32C(f->crc, data, len);
	while (len > 0)
	{
		size_t		room = sizeof(f->buf) - f->len;
		size_t		take = Min(len, room);

		memcpy(f->buf + f->len, in, take);
		f->len += take;
		in += take;
		len -= take;
		if (f->len == (int) sizeof(f->buf) && !save_flush(f))
			return false;
	}
	return true;
}

/*
 * Read len bytes, adding them to the checksum if checksum is set; false at
 * the end of the file, or on an error (f->err).
 */
static bool
save_read(SaveFile *f, void *data, size_t len, bool checksum)
{
	char	   *out = data;
	size_t		left = len;

	while (left > 0)
	{
		size_t		take;

		if (f->pos == f->len)
		{
			ssize_t		n = read(f->fd, f->buf, sizeof(f->buf));

			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				f->err = errno;
			if (n <= 0)
				return false;
			f->len = n;
			f->pos = 0;
		}
		take = Min(left, (size_t) (f->len - f->pos));
		memcpy(out, f->buf + f->pos, take);
		f->pos += take;
		out += take;
		left -= take;
	}
	if (checksum)
		COMP_CRC32C(f->crc, data, len);
	return true;
}

/*
 * not_regular_detail
 *		The detail of a message about something at one of our paths that is
 *		not a regular file, from its lstat() mode.
 */
static char *
not_regular_detail(const char *path, mode_t mode)
{
	const char *kind;

	if (S_ISDIR(mode))
		kind = "a directory";
	else if (S_ISLNK(mode))
		kind = "a symbolic link";
	else if (S_ISFIFO(mode))
		kind = "a FIFO";
	else if (S_ISSOCK(mode))
		kind = "a socket";
	else
		kind = "a device or other special file";
	return psprintf("\"%s\" is %s, not a regular file.", path, kind);
}

/*
 * clear_path
 *		Remove what is at one of our paths, whatever it is, without
 *		following a symbolic link: a file of any kind, or a directory if it
 *		is empty.  True when nothing is there any more; else errno says why,
 *		and *mode what is there (0 if unknown).
 *
 * A directory with something in it is never removed: what it holds is not
 * ours to delete.
 */
static bool
clear_path(const char *path, mode_t *mode)
{
	struct stat st;

	*mode = 0;
	if (lstat(path, &st) != 0)
		return errno == ENOENT;
	*mode = st.st_mode;
	if (S_ISDIR(st.st_mode))
		return rmdir(path) == 0 || errno == ENOENT;
	return unlink(path) == 0 || errno == ENOENT;
}

/*
 * clear_before_save
 *		Make room at one of our paths before the figures are saved there,
 *		saying what was in the way.  A regular file (an earlier attempt's
 *		temporary file) goes silently.  False if the figures cannot be
 *		saved, with a LOG saying why.
 */
static bool
clear_before_save(const char *path)
{
	mode_t		mode;

	if (!clear_path(path, &mode))
	{
		/* errno is still clear_path()'s */
		ereport(LOG,
				(errcode_for_file_access(),
				 errmsg("could not remove \"%s\": %m", path),
				 mode != 0 && !S_ISREG(mode) ?
				 errdetail("%s wal_stall's figures were not saved.",
						   not_regular_detail(path, mode)) :
				 errdetail("wal_stall's figures were not saved."),
				 errhint("Remove it: the figures will be saved at the next clean shutdown.")));
		return false;
	}
	if (mode != 0 && !S_ISREG(mode))
		ereport(LOG,
				(errmsg("removed \"%s\" to save wal_stall figures there", path),
				 errdetail("%s", not_regular_detail(path, mode))));
	return true;
}

/*
 * cluster_shut_down_cleanly
 *		True if pg_control says the server wrote a shutdown checkpoint (or
 *		a shutdown restartpoint on a standby) and has not run since.
 *
 * Only a clean shutdown writes our file, and the postmaster's exit code
 * does not tell: after an immediate shutdown it exits with 0 as well.  Read
 * from the file, not from shared memory, which has no accessor for the
 * state; any trouble reading it counts as "not clean".
 */
static bool
cluster_shut_down_cleanly(void)
{
	ControlFileData control;
	FILE	   *file;
	pg_crc32c	crc;
	bool		ok;

	file = AllocateFile(XLOG_CONTROL_FILE, PG_BINARY_R);
	if (file == NULL)
		return false;
	ok = fread(&control, 1, sizeof(control), file) == sizeof(control);
	FreeFile(file);
	if (!ok || control.pg_control_version != PG_CONTROL_VERSION)
		return false;

	INIT_CRC32C(crc);
	COMP_CRC32C(crc, &control, offsetof(ControlFileData, crc));
	FIN_CRC32C(crc);
	if (!EQ_CRC32C(crc, control.crc))
		return false;

	return control.state == DB_SHUTDOWNED ||
		control.state == DB_SHUTDOWNED_IN_RECOVERY;
}

/*
 * write_figures
 *		Write the file: a temporary sibling first, created anew (O_EXCL: a
 *		FIFO or a link put there cannot be opened instead), then
 *		durable_rename(), which fsyncs it before the rename and the
 *		directory after.  Whatever stands at either path is removed first
 *		(clear_before_save()).  Failures are logged, never raised: this runs
 *		as the postmaster exits.
 */
static void
write_figures(void)
{
	SaveFile	file;
	int			fd;
	WalStallFileHeader header;
	pg_crc32c	crc;
	int			size = ws_shared->history_size;
	int			nhistory;
	int			first;

	if (!clear_before_save(WS_STAT_TMP_FILE) || !clear_before_save(WS_STAT_FILE))
		return;

	nhistory = (int) Min(ws_shared->history_rows, (int64) size);
	first = (nhistory < size) ? 0 : ws_shared->history_next;

	memset(&header, 0, sizeof(header));
	header.magic = WS_STAT_MAGIC;
	header.format_version = WS_STAT_FORMAT_VERSION;
	header.pg_version_num = PG_VERSION_NUM;
	header.figures_size = sizeof(WalStallFigures);
	header.class_stats_size = sizeof(WalStallClassStats);
	header.nclasses = WS_NUM_CLASSES;
	header.hist_buckets = WS_HIST_BUCKETS;
	header.second_size = sizeof(WalStallSecond);
	header.nhistory = nhistory;
	header.query_stats_size = sizeof(WalStallQueryStats);
	header.nqueries = ws_queries_count();

	/*
	 * The figures are written as they are in shared memory, which was zeroed
	 * when it was created and since written field by field (or loaded from
	 * a file), so that padding bytes are not undefined.
	 */
	ws_assert_variable_is_of_type(ws_shared->figures, WalStallFigures);

	fd = OpenTransientFile(WS_STAT_TMP_FILE,
						   O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | PG_BINARY);
	if (fd < 0)
	{
		ereport(LOG,
				(errcode_for_file_access(),
				 errmsg("could not create file \"%s\": %m", WS_STAT_TMP_FILE),
				 errdetail("wal_stall's figures were not saved.")));
		return;
	}
	save_file_init(&file, fd);

	if (!save_write(&file, &header, sizeof(header), true) ||
		!save_write(&file, &ws_shared->figures, sizeof(WalStallFigures), true))
		goto error;
	for (int i = 0; i < nhistory; i++)
	{
		if (!save_write(&file, &ws_history[(first + i) % size],
						sizeof(WalStallSecond), true))
			goto error;
	}
	for (uint32 i = 0; i < header.nqueries; i++)
	{
		if (!save_write(&file, ws_queries_entry(i), sizeof(WalStallQueryStats), true))
			goto error;
	}
	crc = file.crc;
	FIN_CRC32C(crc);
	if (!save_write(&file, &crc, sizeof(crc), false) || !save_flush(&file))
		goto error;

	if (CloseTransientFile(fd) != 0)
	{
		file.err = errno;
		fd = -1;
		goto error;
	}

	/* logs its own failure */
	if (durable_rename(WS_STAT_TMP_FILE, WS_STAT_FILE, LOG) != 0)
		unlink(WS_STAT_TMP_FILE);
	return;

error:
	errno = file.err;
	ereport(LOG,
			(errcode_for_file_access(),
			 errmsg("could not write file \"%s\": %m", WS_STAT_TMP_FILE),
			 errdetail("wal_stall's figures were not saved.")));
	if (fd >= 0)
		CloseTransientFile(fd);
	unlink(WS_STAT_TMP_FILE);
}

/*
 * check_header
 *		NULL if the header describes a file this build can read, else what
 *		is wrong with it, for the WARNING's detail.  The format version is
 *		checked before, by read_figures().
 */
static char *
check_header(const WalStallFileHeader *header)
{
	if (header->pg_version_num != PG_VERSION_NUM)
		return psprintf("The file was written by PostgreSQL version number %u; this server is %u.",
						header->pg_version_num, PG_VERSION_NUM);
	if (header->figures_size != sizeof(WalStallFigures) ||
		header->class_stats_size != sizeof(WalStallClassStats) ||
		header->nclasses != WS_NUM_CLASSES ||
		header->hist_buckets != WS_HIST_BUCKETS ||
		header->second_size != sizeof(WalStallSecond) ||
		header->query_stats_size != sizeof(WalStallQueryStats))
		return psprintf("The file was written by a build of wal_stall with other structures.");
	return NULL;
}

/*
 * Range checks of the values loaded from a file whose checksum matched: a
 * file written by a build with a bug, or edited and checksummed again, can
 * still hold values the collector never writes, and some of them index
 * arrays (stall classes, checkpoint codes), must pass output functions
 * (timestamps), or are added to (counts and sums, which must leave the
 * collector room: WS_FIGURE_MAX).  Every floating-point value is finite.
 * Each check notes the first value out of range; the file is then refused
 * as a whole.  Values any bit pattern of their type is valid for (query
 * ids, OIDs, LSNs, the XID counter) are not checked.
 */
typedef struct RangeCheck
{
	const char *where;			/* "the figures", "history row 3" ... */
	int			index;			/* row or entry number, -1 for none */
	char	   *problem;		/* the first value out of range, or NULL */
} RangeCheck;

static void
range_problem(RangeCheck *rc, const char *field, const char *value, const char *range)
{
	if (rc->problem != NULL)
		return;
	if (rc->index >= 0)
		rc->problem = psprintf("In %s %d, %s is %s; it must be %s.",
							   rc->where, rc->index, field, value, range);
	else
		rc->problem = psprintf("In %s, %s is %s; it must be %s.",
							   rc->where, field, value, range);
}

/*
 * A count: min (0, or -1 where -1 means "not known") up to WS_FIGURE_MAX,
 * which the collector's additions stop at.
 */
static void
check_count(RangeCheck *rc, const char *field, int64 value, int64 min)
{
	if (value < min || value > WS_FIGURE_MAX)
		range_problem(rc, field, psprintf(INT64_FORMAT, value),
					  psprintf("between " INT64_FORMAT " and " INT64_FORMAT,
							   min, WS_FIGURE_MAX));
}

/* A sum of nanoseconds, or a recency clock: up to WS_FIGURE_MAX. */
static void
check_ns(RangeCheck *rc, const char *field, uint64 value)
{
	if (value > (uint64) WS_FIGURE_MAX)
		range_problem(rc, field, psprintf(UINT64_FORMAT, value),
					  psprintf("at most " INT64_FORMAT, WS_FIGURE_MAX));
}

/* A code: one of min .. max (an enum, a set of bits, a bool). */
static void
check_code(RangeCheck *rc, const char *field, int value, int min, int max)
{
	if (value < min || value > max)
		range_problem(rc, field, psprintf("%d", value),
					  psprintf("between %d and %d", min, max));
}

/*
 * A figure in floating point: finite, from -1 ("not known") up to max.
 * The comparisons are false for a NaN, hence the test of it first.
 */
static void
check_double_max(RangeCheck *rc, const char *field, double value, double max)
{
	if (isnan(value) || isinf(value) || value < -1 || value > max)
		range_problem(rc, field, psprintf("%g", value),
					  psprintf("a finite number between -1 and %g", max));
}

/* The same up to WS_FIGURE_MAX, for figures with no tighter bound. */
static void
check_double(RangeCheck *rc, const char *field, double value)
{
	check_double_max(rc, field, value, (double) WS_FIGURE_MAX);
}

/* A timestamp: finite, within what timestamptz can show. */
static void
check_timestamp(RangeCheck *rc, const char *field, TimestampTz value)
{
	if (TIMESTAMP_NOT_FINITE(value) || !IS_VALID_TIMESTAMP(value))
		range_problem(rc, field,
					  psprintf(INT64_FORMAT " microseconds after 2000-01-01", value),
					  "a finite timestamp within PostgreSQL's range");
}

/* A bool as stored: its byte, read without assuming it is 0 or 1. */
static void
check_bool(RangeCheck *rc, const char *field, const bool *value)
{
	check_code(rc, field, *(const unsigned char *) value, 0, 1);
}

/*
 * Episode figures: counts not negative, and a histogram that holds every
 * episode once (the collector adds an episode to both together).
 */
static void
check_class_stats(RangeCheck *rc, const WalStallClassStats *stats)
{
	int64		in_histogram = 0;

	check_count(rc, "episodes", stats->episodes, 0);
	check_count(rc, "samples", stats->samples, 0);
	check_ns(rc, "total_ns", stats->total_ns);
	check_ns(rc, "max_ns", stats->max_ns);
	for (int k = 0; k < WS_HIST_BUCKETS; k++)
	{
		check_count(rc, "a histogram count", stats->hist[k], 0);
		check_ns(rc, "a histogram bucket's time", stats->hist_ns[k]);
		/* bounded: an overflow of the sum would be undefined */
		if (stats->hist[k] >= 0 && stats->hist[k] <= PG_INT64_MAX - in_histogram)
			in_histogram += stats->hist[k];
	}
	if (in_histogram != stats->episodes)
		range_problem(rc, "the histogram's sum", psprintf(INT64_FORMAT, in_histogram),
					  psprintf("the episode count, " INT64_FORMAT, stats->episodes));
}

/*
 * A class's sum of interval * weight (ns^2): over its total_ns it is the
 * class's resolution, a mean of sampling intervals, none of which is longer
 * than the longest sample interval.  A rounding error's worth above that
 * is let through.
 */
static void
check_interval_weighted(RangeCheck *rc, double value, uint64 total_ns)
{
	double		max = (double) total_ns * WS_MAX_SAMPLE_INTERVAL_MS * WS_NS_PER_MS;

	if (isnan(value) || isinf(value) || value < 0 || value > max * (1 + 1e-9))
		range_problem(rc, "interval_weighted", psprintf("%g", value),
					  psprintf("a finite number between 0 and total_ns times the longest sample interval, %g",
							   max));
}

static void
check_counters(RangeCheck *rc, const WalStallCounters *c)
{
	check_timestamp(rc, "baseline.wal_reset_at", c->wal_reset_at);
	check_timestamp(rc, "baseline.clog_reset_at", c->clog_reset_at);
	check_timestamp(rc, "baseline.slru_reset_at", c->slru_reset_at);
	check_timestamp(rc, "baseline.ckpt_reset_at", c->ckpt_reset_at);
	check_count(rc, "baseline.wal_fpi", c->wal_fpi, -1);
	check_count(rc, "baseline.ckpt_timed", c->ckpt_timed, -1);
	check_count(rc, "baseline.ckpt_requested", c->ckpt_requested, -1);
	check_count(rc, "baseline.wal_buffers_full", c->wal_buffers_full, -1);
	check_count(rc, "baseline.wal_write", c->wal_write, -1);
	check_count(rc, "baseline.wal_sync", c->wal_sync, -1);
	check_double(rc, "baseline.wal_write_time_ms", c->wal_write_time_ms);
	check_double(rc, "baseline.wal_sync_time_ms", c->wal_sync_time_ms);
	check_count(rc, "baseline.clog_zeroed", c->clog_zeroed, -1);
	check_count(rc, "baseline.clog_hits", c->clog_hits, -1);
	check_count(rc, "baseline.clog_reads", c->clog_reads, -1);
	check_count(rc, "baseline.clog_written", c->clog_written, -1);
	check_count(rc, "baseline.clog_flushes", c->clog_flushes, -1);
	check_count(rc, "baseline.slru_reads", c->slru_reads, -1);
	check_count(rc, "baseline.slru_written", c->slru_written, -1);
}

static void
check_figures(RangeCheck *rc, const WalStallFigures *f)
{
	rc->where = "the figures";
	rc->index = -1;
	check_timestamp(rc, "reset_at", f->reset_at);
	/* 0 until the first collector starts, else its sample interval */
	if (f->hist_base_ns > (uint64) (WS_MAX_SAMPLE_INTERVAL_MS * WS_NS_PER_MS))
		range_problem(rc, "hist_base_ns", psprintf(UINT64_FORMAT, f->hist_base_ns),
					  psprintf("at most the longest sample interval, " UINT64_FORMAT " ns",
							   (uint64) (WS_MAX_SAMPLE_INTERVAL_MS * WS_NS_PER_MS)));
	check_count(rc, "reset_ticks", f->reset_ticks, 0);
	check_count(rc, "reset_full_rate_ticks", f->reset_full_rate_ticks, 0);
	check_ns(rc, "reset_full_rate_ns", f->reset_full_rate_ns);
	check_ns(rc, "wrap_writer_asleep_ns", f->wrap_writer_asleep_ns);
	check_ns(rc, "ring_rule_ns", f->ring_rule_ns);
	if (f->reset_full_rate_ticks > f->reset_ticks)
		range_problem(rc, "reset_full_rate_ticks", psprintf(INT64_FORMAT, f->reset_full_rate_ticks),
					  psprintf("at most reset_ticks, " INT64_FORMAT, f->reset_ticks));
	check_bool(rc, "baseline_valid", &f->baseline_valid);
	check_bool(rc, "timing_off_seen", &f->timing_off_seen);
	check_counters(rc, &f->baseline);
	check_count(rc, "wal_path_waits", f->wal_path_waits, 0);
	check_count(rc, "wal_path_waits_io_first", f->wal_path_waits_io_first, 0);
	if (f->wal_path_waits_io_first > f->wal_path_waits)
		range_problem(rc, "wal_path_waits_io_first", psprintf(INT64_FORMAT, f->wal_path_waits_io_first),
					  psprintf("at most wal_path_waits, " INT64_FORMAT, f->wal_path_waits));
	check_count(rc, "query_evictions", f->query_evictions, 0);
	for (int c = 0; c < WS_NUM_CLASSES; c++)
	{
		rc->where = "class";
		rc->index = c;
		check_class_stats(rc, &f->classes[c]);
		/* each episode counted adds at least itself to episodes */
		check_count(rc, "episodes_counted", f->episodes_counted[c], 0);
		if (f->episodes_counted[c] > f->classes[c].episodes)
			range_problem(rc, "episodes_counted", psprintf(INT64_FORMAT, f->episodes_counted[c]),
						  psprintf("at most episodes, " INT64_FORMAT, f->classes[c].episodes));
		check_count(rc, "episodes_var", f->episodes_var[c], 0);
		check_interval_weighted(rc, f->interval_weighted[c], f->classes[c].total_ns);
	}
}

static void
check_second(RangeCheck *rc, const WalStallSecond *row, int index)
{
	rc->where = "history row";
	rc->index = index;
	check_timestamp(rc, "sample_time", row->sample_time);
	check_double(rc, "seconds", row->seconds);
	check_count(rc, "xids", row->xids, -1);
	check_count(rc, "wal_bytes", row->wal_bytes, -1);
	check_double(rc, "buffer_fill_max", row->buffer_fill_max);
	check_double(rc, "buffer_fill_avg", row->buffer_fill_avg);
	for (int c = 0; c < WS_NUM_STALL_CLASSES; c++)
		check_double(rc, "stall_ms", row->stall_ms[c]);
	check_double(rc, "wal_fsync_max_ms", row->wal_fsync_max_ms);
	check_count(rc, "wal_buffers_full", row->wal_buffers_full, -1);
	check_count(rc, "wal_writes", row->wal_writes, -1);
	check_count(rc, "wal_syncs", row->wal_syncs, -1);
	check_double(rc, "wal_sync_ms", row->wal_sync_ms);
	check_count(rc, "clog_hits", row->clog_hits, -1);
	check_count(rc, "clog_reads", row->clog_reads, -1);
	check_double(rc, "waiting_backends", row->waiting_backends);
	check_double(rc, "mean_interval_ms", row->mean_interval_ms);
	check_double(rc, "active_backends", row->active_backends);
	check_count(rc, "wal_fpi", row->wal_fpi, -1);
	check_code(rc, "checkpoint", row->checkpoint, WS_CKPT_NONE, WS_CKPT_DONE);
	check_code(rc, "checkpoint_kind", row->checkpoint_kind, -1,
			   WS_CKPT_KIND_TIME | WS_CKPT_KIND_REQUESTED);
	/*
	 * A mean of sampling intervals, or -1 when the row has no stall sample;
	 * a rounding error's worth above the longest is let through.
	 */
	check_double_max(rc, "resolution_ms", row->resolution_ms,
					 WS_MAX_SAMPLE_INTERVAL_MS * (1 + 1e-9));
}

static void
check_query(RangeCheck *rc, const WalStallQueryStats *entry, int index)
{
	rc->where = "statement entry";
	rc->index = index;
	check_code(rc, "cls", entry->cls, 0, WS_NUM_CLASSES - 1);
	/* the table's clock goes on from the largest: it must not wrap */
	check_ns(rc, "last_charge", entry->last_charge);
	check_class_stats(rc, &entry->stats);
}

/*
 * read_figures
 *		Read and check the whole file into figures and the history ring.
 *		Returns NULL on success, else what was wrong: the checksum is
 *		checked before the range of any value, so that damage is reported
 *		as damage.  Rows go straight to ws_history[0 .. *nrows - 1], the
 *		newest that fit, oldest first; on failure the caller zeroes them
 *		again.  wal_stall_queries entries go straight into its table, as
 *		many as wal_stall.max_queries takes now (an entry out of range is
 *		kept out of it); *nqueries is how many were in the file.
 *		*format_version is the file's, once its magic number is ours: a
 *		file of another version is not read further, and NULL is returned,
 *		for the caller to set it aside.
 */
static char *
read_figures(SaveFile *file, WalStallFigures *figures, uint32 *format_version,
			 int *nrows, uint32 *nqueries)
{
	WalStallFileHeader header;
	WalStallSecond skipped;
	RangeCheck	rc = {.problem = NULL};
	pg_crc32c	crc;
	pg_crc32c	stored_crc;
	char	   *problem;
	char		extra;
	uint32		nskip;

	*nrows = 0;
	*nqueries = 0;
	*format_version = 0;
	memset(figures, 0, sizeof(*figures));
	if (!save_read(file, &header, sizeof(header), true))
		return psprintf("The file is shorter than its header.");
	if (header.magic != WS_STAT_MAGIC)
		return psprintf("The file does not start with the wal_stall magic number (%08X instead of %08X).",
						header.magic, WS_STAT_MAGIC);
	*format_version = header.format_version;
	if (header.format_version != WS_STAT_FORMAT_VERSION)
		return NULL;
	if ((problem = check_header(&header)) != NULL)
		return problem;
	if (!save_read(file, figures, sizeof(WalStallFigures), true))
		return psprintf("The file ends before its figures do.");
	check_figures(&rc, figures);

	/* a shorter history ring now keeps the newest rows */
	nskip = header.nhistory > (uint32) ws_shared->history_size ?
		header.nhistory - (uint32) ws_shared->history_size : 0;
	for (uint32 i = 0; i < header.nhistory; i++)
	{
		WalStallSecond *row = (i < nskip) ? &skipped : &ws_history[i - nskip];

		if (!save_read(file, row, sizeof(WalStallSecond), true))
			return psprintf("The file ends after %u of its %u history rows.",
							i, header.nhistory);
		check_second(&rc, row, (int) i);
		if (i >= nskip)
			*nrows = i - nskip + 1;
	}
	for (uint32 i = 0; i < header.nqueries; i++)
	{
		WalStallQueryStats entry;

		if (!save_read(file, &entry, sizeof(entry), true))
			return psprintf("The file ends after %u of its %u statement entries.",
							i, header.nqueries);
		check_query(&rc, &entry, (int) i);
		if (rc.problem == NULL)
			(void) ws_queries_restore(&entry);
	}
	*nqueries = header.nqueries;
	crc = file->crc;
	FIN_CRC32C(crc);

	if (!save_read(file, &stored_crc, sizeof(stored_crc), false))
		return psprintf("The file ends before its checksum.");
	if (!EQ_CRC32C(crc, stored_crc))
		return psprintf("The checksum does not match the contents (%08X computed, %08X stored).",
						crc, stored_crc);
	if (save_read(file, &extra, 1, false))
		return psprintf("The file goes on after its checksum.");
	return rc.problem;
}

/*
 * open_for_load
 *		Open the file to load.  Returns the descriptor, or -1: with
 *		*not_regular set to a detail when something other than a regular
 *		file is at the path, else with errno set (ENOENT when nothing is
 *		there).  Never waits: a FIFO is opened O_NONBLOCK, a symbolic link
 *		is not followed, and nothing but a regular file is read.
 */
static int
open_for_load(char **not_regular)
{
	struct stat st;
	int			fd;
	int			save_errno;

	*not_regular = NULL;
	fd = OpenTransientFile(WS_STAT_FILE, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | PG_BINARY);
	if (fd >= 0)
	{
		if (fstat(fd, &st) != 0)
		{
			save_errno = errno;
			CloseTransientFile(fd);
			errno = save_errno;
			return -1;
		}
		if (S_ISREG(st.st_mode))
			return fd;
		CloseTransientFile(fd);
		*not_regular = not_regular_detail(WS_STAT_FILE, st.st_mode);
		return -1;
	}

	/* a socket, or a symbolic link under O_NOFOLLOW, cannot be opened */
	save_errno = errno;
	if (lstat(WS_STAT_FILE, &st) == 0 && !S_ISREG(st.st_mode))
		*not_regular = not_regular_detail(WS_STAT_FILE, st.st_mode);
	errno = save_errno;
	return -1;
}

/*
 * remove_after_load
 *		Remove what is at the file's path once it has been read or refused.
 *		Returns the hint of the WARNING that reports the problem: whether it
 *		is gone, and if not, what that means.
 */
static char *
remove_after_load(void)
{
	mode_t		mode;

	if (clear_path(WS_STAT_FILE, &mode))
		return psprintf(S_ISREG(mode) ? "wal_stall starts from zero; the file was removed." :
						"wal_stall starts from zero; it was removed.");
	if (S_ISDIR(mode))
		return psprintf("wal_stall starts from zero; the directory could not be removed (%m), "
						"and the figures cannot be saved until it is.");
	return psprintf("wal_stall starts from zero; the file could not be removed (%m).");
}

/*
 * load_detail
 *		The detail of the LOG line saying the figures were loaded: what of
 *		the file was not, if anything.  Returns errdetail()'s value, or 0.
 */
static int
load_detail(uint32 nqueries)
{
	if (ws_queries_count() < (int) nqueries)
		return errdetail("%d of the %u saved statement entries fit in \"wal_stall.max_queries\".",
						 ws_queries_count(), nqueries);
	return 0;
}

/*
 * ws_load_figures
 *		In the postmaster, on a new shared segment: reload the figures saved
 *		at the last clean shutdown, if any, and remove the file.
 *
 * Called from the shmem startup hook right after the segment was zeroed and
 * initialized, before any other process is attached; takes no lock.  Never
 * raises an error and never waits: at worst the figures start from zero.
 */
void
ws_load_figures(void)
{
	bool		after_crash = shmem_initialized;
	WalStallFigures figures;
	uint32		format_version;
	SaveFile	file;
	int			fd;
	char	   *problem;
	char	   *hint;
	int			save_errno;
	int			nrows;
	uint32		nqueries;
	mode_t		mode;

	shmem_initialized = true;

	/* pg_upgrade's servers leave our file alone */
	if (IsBinaryUpgrade)
		return;

	/*
	 * After a crash, whether this postmaster saw it (re-initialization) or
	 * a predecessor did (no shutdown checkpoint in pg_control), the file
	 * cannot be newer than the crash: it was removed when it was read.
	 * Remove whatever is there all the same, and say why we start empty.
	 * Something that cannot be removed is reported when saving.
	 */
	if (after_crash || !cluster_shut_down_cleanly())
	{
		(void) clear_path(WS_STAT_FILE, &mode);
		ereport(LOG,
				(errmsg("wal_stall figures start from zero after a crash"),
				 errdetail("Figures are saved only at a clean shutdown.")));
		return;
	}

	if (!ws_save)
	{
		(void) clear_path(WS_STAT_FILE, &mode);
		return;
	}

	fd = open_for_load(&problem);
	if (fd < 0)
	{
		if (problem == NULL && errno == ENOENT)
			return;
		save_errno = errno;
		hint = remove_after_load();
		errno = save_errno;
		if (problem != NULL)
			ereport(WARNING,
					(errcode(ERRCODE_WRONG_OBJECT_TYPE),
					 errmsg("could not load wal_stall figures from \"%s\"",
							WS_STAT_FILE),
					 errdetail("%s", problem),
					 errhint("%s", hint)));
		else
			ereport(WARNING,
					(errcode_for_file_access(),
					 errmsg("could not load wal_stall figures from \"%s\": %m",
							WS_STAT_FILE),
					 errhint("%s", hint)));
		return;
	}

	save_file_init(&file, fd);
	problem = read_figures(&file, &figures, &format_version, &nrows, &nqueries);
	CloseTransientFile(fd);

	/*
	 * Removed right away, loaded or refused: if this server crashes later,
	 * the next start must not find figures from before the crash.  What it
	 * returns is the hint of the message if the file is not loaded.
	 */
	hint = remove_after_load();
	if (problem == NULL && format_version != WS_STAT_FORMAT_VERSION)
	{
		ereport(LOG,
				(errmsg("ignoring wal_stall figures in \"%s\" of format version %u, not this build's %u",
						WS_STAT_FILE, format_version, WS_STAT_FORMAT_VERSION),
				 errhint("%s", hint)));
		return;
	}
	if (problem != NULL || file.err != 0)
	{
		memset(ws_history, 0, mul_size(nrows, sizeof(WalStallSecond)));
		ws_queries_reset_locked();
		if (file.err != 0)
		{
			errno = file.err;
			ereport(WARNING,
					(errcode_for_file_access(),
					 errmsg("could not read file \"%s\": %m", WS_STAT_FILE),
					 errdetail("wal_stall's figures were not loaded."),
					 errhint("%s", hint)));
		}
		else
			ereport(WARNING,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("could not load wal_stall figures from \"%s\"",
							WS_STAT_FILE),
					 errdetail("%s", problem),
					 errhint("%s", hint)));
		return;
	}

	ws_assert_variable_is_of_type(ws_shared->figures, WalStallFigures);
	ws_shared->figures = figures;
	ws_shared->history_rows = nrows;
	ws_shared->history_next = ws_shared->history_size > 0 ?
		nrows % ws_shared->history_size : 0;

	ereport(LOG,
			(errmsg("loaded wal_stall figures saved at clean shutdown (since %s)",
					timestamptz_to_str(figures.reset_at)),
			 load_detail(nqueries)));
}

/*
 * ws_shmem_shutdown
 *		on_shmem_exit callback of the postmaster: save the figures at a
 *		clean shutdown.
 *
 * The postmaster runs it from proc_exit() once every child has exited, so
 * no lock is needed.  It also runs, with code 1, when the postmaster tears
 * shared memory down to recover from a crash: nothing is saved then.
 */
void
ws_shmem_shutdown(int code, Datum arg pg_attribute_unused())
{
	if (code != 0 || !ws_save || ws_shared == NULL || IsBinaryUpgrade)
		return;

	/* an immediate shutdown also exits with 0, but wrote no checkpoint */
	if (!cluster_shut_down_cleanly())
	{
		ereport(LOG,
				(errmsg("wal_stall figures were not saved"),
				 errdetail("The server stopped without a shutdown checkpoint, as in an immediate shutdown.")));
		return;
	}

	write_figures();
}
