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
 * The file is a header, the figures, the history rows oldest first, the
 * wal_stall_queries entries, and a CRC-32C of all that.  Anything unexpected in it (another format, another
 * server version or build, a short file, a bad checksum) gives one WARNING
 * and the file is removed; the server always starts.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <unistd.h>

#include "access/xlog_internal.h"
#include "catalog/pg_control.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "port/pg_crc32c.h"
#include "storage/fd.h"
#include "utils/timestamp.h"

#include "wal_stall.h"

#define WS_STAT_FILE		PGSTAT_STAT_PERMANENT_DIRECTORY "/wal_stall.stat"
#define WS_STAT_TMP_FILE	WS_STAT_FILE ".tmp"

/*
 * Bump the version whenever what is saved changes in a way the sizes in the
 * header may not show: fields reordered or retyped in WalStallSavedFigures,
 * WalStallCounters, WalStallClassStats, WalStallSecond or WalStallQueryStats.
 * Version 2 added the wal_stall_queries entries.
 */
#define WS_STAT_MAGIC			0x57534631	/* "WSF1" */
#define WS_STAT_FORMAT_VERSION	3

/*
 * The file's header.  Every size that shapes the payload is in it, so that
 * a file written by a build with other structs is refused, not misread.
 */
typedef struct WalStallFileHeader
{
	uint32		magic;
	uint32		format_version;
	uint32		pg_version_num; /* PG_VERSION_NUM of the writer */
	uint32		figures_size;	/* sizeof(WalStallSavedFigures) */
	uint32		class_stats_size;	/* sizeof(WalStallClassStats) */
	uint32		nclasses;		/* WS_NUM_CLASSES */
	uint32		hist_buckets;	/* WS_HIST_BUCKETS */
	uint32		second_size;	/* sizeof(WalStallSecond) */
	uint32		nhistory;		/* history rows after the figures */
	uint32		query_stats_size;	/* sizeof(WalStallQueryStats) */
	uint32		nqueries;		/* wal_stall_queries entries after the rows */
} WalStallFileHeader;

/*
 * What is saved of WalStallShared: everything accumulated since the last
 * reset.  The collector's own status (pid, ticks, started_at, overruns) and
 * the per-process episodes describe the run that ended, and are not saved.
 */
typedef struct WalStallSavedFigures
{
	TimestampTz reset_at;
	uint64		hist_base_ns;
	int64		reset_ticks;
	int64		reset_full_rate_ticks;
	uint64		reset_full_rate_ns;
	bool		baseline_valid;
	bool		timing_off_seen;
	uint64		wrap_writer_asleep_ns;
	WalStallCounters baseline;
	WalStallClassStats classes[WS_NUM_CLASSES];
} WalStallSavedFigures;

/*
 * Set once the postmaster has initialized our shared memory: when it does
 * so again, it is re-initializing after a crash.
 */
static bool shmem_initialized = false;

/* Write len bytes, adding them to the running checksum. */
static bool
write_chunk(FILE *file, const void *data, size_t len, pg_crc32c *crc)
{
	COMP_CRC32C(*crc, data, len);
	return fwrite(data, 1, len, file) == len;
}

/* Read len bytes, adding them to the running checksum. */
static bool
read_chunk(FILE *file, void *data, size_t len, pg_crc32c *crc)
{
	if (fread(data, 1, len, file) != len)
		return false;
	COMP_CRC32C(*crc, data, len);
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
 *		Write the file: a temporary sibling first, then durable_rename(),
 *		which fsyncs it before the rename and the directory after.  Failures
 *		are logged, never raised: this runs as the postmaster exits.
 */
static void
write_figures(void)
{
	FILE	   *file;
	WalStallFileHeader header;
	WalStallSavedFigures figures;
	pg_crc32c	crc;
	int			size = ws_shared->history_size;
	int			nhistory;
	int			first;

	nhistory = (int) Min(ws_shared->history_rows, (int64) size);
	first = (nhistory < size) ? 0 : ws_shared->history_next;

	memset(&header, 0, sizeof(header));
	header.magic = WS_STAT_MAGIC;
	header.format_version = WS_STAT_FORMAT_VERSION;
	header.pg_version_num = PG_VERSION_NUM;
	header.figures_size = sizeof(WalStallSavedFigures);
	header.class_stats_size = sizeof(WalStallClassStats);
	header.nclasses = WS_NUM_CLASSES;
	header.hist_buckets = WS_HIST_BUCKETS;
	header.second_size = sizeof(WalStallSecond);
	header.nhistory = nhistory;
	header.query_stats_size = sizeof(WalStallQueryStats);
	header.nqueries = ws_queries_count();

	/* zeroed first, so that padding bytes are not left undefined */
	memset(&figures, 0, sizeof(figures));
	figures.reset_at = ws_shared->reset_at;
	figures.hist_base_ns = ws_shared->hist_base_ns;
	figures.reset_ticks = ws_shared->reset_ticks;
	figures.reset_full_rate_ticks = ws_shared->reset_full_rate_ticks;
	figures.reset_full_rate_ns = ws_shared->reset_full_rate_ns;
	figures.baseline_valid = ws_shared->baseline_valid;
	figures.timing_off_seen = ws_shared->timing_off_seen;
	figures.wrap_writer_asleep_ns = ws_shared->wrap_writer_asleep_ns;
	figures.baseline = ws_shared->baseline;
	memcpy(figures.classes, ws_shared->classes, sizeof(figures.classes));

	file = AllocateFile(WS_STAT_TMP_FILE, PG_BINARY_W);
	if (file == NULL)
		goto error;

	INIT_CRC32C(crc);
	if (!write_chunk(file, &header, sizeof(header), &crc) ||
		!write_chunk(file, &figures, sizeof(figures), &crc))
		goto error;
	for (int i = 0; i < nhistory; i++)
	{
		if (!write_chunk(file, &ws_history[(first + i) % size],
						 sizeof(WalStallSecond), &crc))
			goto error;
	}
	for (uint32 i = 0; i < header.nqueries; i++)
	{
		if (!write_chunk(file, ws_queries_entry(i), sizeof(WalStallQueryStats), &crc))
			goto error;
	}
	FIN_CRC32C(crc);
	if (fwrite(&crc, 1, sizeof(crc), file) != sizeof(crc))
		goto error;

	if (FreeFile(file) != 0)
	{
		file = NULL;
		goto error;
	}

	/* logs its own failure */
	if (durable_rename(WS_STAT_TMP_FILE, WS_STAT_FILE, LOG) != 0)
		unlink(WS_STAT_TMP_FILE);
	return;

error:
	ereport(LOG,
			(errcode_for_file_access(),
			 errmsg("could not write file \"%s\": %m", WS_STAT_TMP_FILE),
			 errdetail("wal_stall's figures were not saved.")));
	if (file != NULL)
		FreeFile(file);
	unlink(WS_STAT_TMP_FILE);
}

/*
 * check_header
 *		NULL if the header describes a file this build can read, else what
 *		is wrong with it, for the WARNING's detail.
 */
static char *
check_header(const WalStallFileHeader *header)
{
	if (header->magic != WS_STAT_MAGIC)
		return psprintf("The file does not start with the wal_stall magic number (%08X instead of %08X).",
						header->magic, WS_STAT_MAGIC);
	if (header->format_version != WS_STAT_FORMAT_VERSION)
		return psprintf("The file has format version %u; this wal_stall reads version %u.",
						header->format_version, WS_STAT_FORMAT_VERSION);
	if (header->pg_version_num != PG_VERSION_NUM)
		return psprintf("The file was written by PostgreSQL version number %u; this server is %u.",
						header->pg_version_num, PG_VERSION_NUM);
	if (header->figures_size != sizeof(WalStallSavedFigures) ||
		header->class_stats_size != sizeof(WalStallClassStats) ||
		header->nclasses != WS_NUM_CLASSES ||
		header->hist_buckets != WS_HIST_BUCKETS ||
		header->second_size != sizeof(WalStallSecond) ||
		header->query_stats_size != sizeof(WalStallQueryStats))
		return psprintf("The file was written by a build of wal_stall with other structures.");
	return NULL;
}

/*
 * read_figures
 *		Read and check the whole file into figures and the history ring.
 *		Returns NULL on success, else what was wrong.  Rows go straight to
 *		ws_history[0 .. *nrows - 1], the newest that fit, oldest first; on
 *		failure the caller zeroes them again.  wal_stall_queries entries go
 *		straight into its table, as many as wal_stall.max_queries takes now;
 *		*nqueries is how many were in the file.
 */
static char *
read_figures(FILE *file, WalStallSavedFigures *figures, int *nrows, uint32 *nqueries)
{
	WalStallFileHeader header;
	WalStallSecond skipped;
	pg_crc32c	crc;
	pg_crc32c	stored_crc;
	char	   *problem;
	uint32		nskip;

	*nrows = 0;
	*nqueries = 0;
	INIT_CRC32C(crc);
	if (!read_chunk(file, &header, sizeof(header), &crc))
		return psprintf("The file is shorter than its header.");
	if ((problem = check_header(&header)) != NULL)
		return problem;
	if (!read_chunk(file, figures, sizeof(*figures), &crc))
		return psprintf("The file ends before its figures do.");

	/* a shorter history ring now keeps the newest rows */
	nskip = header.nhistory > (uint32) ws_shared->history_size ?
		header.nhistory - (uint32) ws_shared->history_size : 0;
	for (uint32 i = 0; i < header.nhistory; i++)
	{
		WalStallSecond *row = (i < nskip) ? &skipped : &ws_history[i - nskip];

		if (!read_chunk(file, row, sizeof(WalStallSecond), &crc))
			return psprintf("The file ends after %u of its %u history rows.",
							i, header.nhistory);
		if (i >= nskip)
			*nrows = i - nskip + 1;
	}
	for (uint32 i = 0; i < header.nqueries; i++)
	{
		WalStallQueryStats entry;

		if (!read_chunk(file, &entry, sizeof(entry), &crc))
			return psprintf("The file ends after %u of its %u statement entries.",
							i, header.nqueries);
		(void) ws_queries_restore(&entry);
	}
	*nqueries = header.nqueries;
	FIN_CRC32C(crc);

	if (fread(&stored_crc, 1, sizeof(stored_crc), file) != sizeof(stored_crc))
		return psprintf("The file ends before its checksum.");
	if (!EQ_CRC32C(crc, stored_crc))
		return psprintf("The checksum does not match the contents (%08X computed, %08X stored).",
						crc, stored_crc);
	if (fgetc(file) != EOF)
		return psprintf("The file goes on after its checksum.");
	return NULL;
}

/*
 * ws_load_figures
 *		In the postmaster, on a new shared segment: reload the figures saved
 *		at the last clean shutdown, if any, and remove the file.
 *
 * Called from the shmem startup hook right after the segment was zeroed and
 * initialized, before any other process is attached; takes no lock.  Never
 * raises an error: at worst the figures start from zero.
 */
void
ws_load_figures(void)
{
	bool		after_crash = shmem_initialized;
	WalStallSavedFigures figures;
	FILE	   *file;
	char	   *problem;
	int			nrows;
	uint32		nqueries;

	shmem_initialized = true;

	/* pg_upgrade's servers leave our file alone */
	if (IsBinaryUpgrade)
		return;

	/*
	 * After a crash, whether this postmaster saw it (re-initialization) or
	 * a predecessor did (no shutdown checkpoint in pg_control), the file
	 * cannot be newer than the crash: it was removed when it was read.
	 * Remove whatever is there all the same, and say why we start empty.
	 */
	if (after_crash || !cluster_shut_down_cleanly())
	{
		unlink(WS_STAT_FILE);
		ereport(LOG,
				(errmsg("wal_stall figures start from zero after a crash"),
				 errdetail("Figures are saved only at a clean shutdown.")));
		return;
	}

	if (!ws_save)
	{
		unlink(WS_STAT_FILE);
		return;
	}

	file = AllocateFile(WS_STAT_FILE, PG_BINARY_R);
	if (file == NULL)
	{
		if (errno != ENOENT)
		{
			ereport(WARNING,
					(errcode_for_file_access(),
					 errmsg("could not load wal_stall figures from \"%s\": %m",
							WS_STAT_FILE),
					 errhint("wal_stall starts from zero; the file was removed.")));
			unlink(WS_STAT_FILE);
		}
		return;
	}

	problem = read_figures(file, &figures, &nrows, &nqueries);
	if (problem == NULL && ferror(file))
		problem = psprintf("The file could not be read.");
	FreeFile(file);

	/*
	 * Removed right away: if this server crashes later, the next start must
	 * not find figures from before the crash.
	 */
	unlink(WS_STAT_FILE);

	if (problem != NULL)
	{
		memset(ws_history, 0, mul_size(nrows, sizeof(WalStallSecond)));
		ws_queries_reset_locked();
		ereport(WARNING,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("could not load wal_stall figures from \"%s\"",
						WS_STAT_FILE),
				 errdetail("%s", problem),
				 errhint("wal_stall starts from zero; the file was removed.")));
		return;
	}

	ws_shared->reset_at = figures.reset_at;
	ws_shared->hist_base_ns = figures.hist_base_ns;
	ws_shared->reset_ticks = figures.reset_ticks;
	ws_shared->reset_full_rate_ticks = figures.reset_full_rate_ticks;
	ws_shared->reset_full_rate_ns = figures.reset_full_rate_ns;
	ws_shared->baseline_valid = figures.baseline_valid;
	ws_shared->timing_off_seen = figures.timing_off_seen;
	ws_shared->wrap_writer_asleep_ns = figures.wrap_writer_asleep_ns;
	ws_shared->baseline = figures.baseline;
	memcpy(ws_shared->classes, figures.classes, sizeof(figures.classes));
	ws_shared->history_rows = nrows;
	ws_shared->history_next = ws_shared->history_size > 0 ?
		nrows % ws_shared->history_size : 0;

	ereport(LOG,
			(errmsg("wal_stall: loaded figures saved at clean shutdown (since %s)",
					timestamptz_to_str(figures.reset_at)),
			 ws_queries_count() < (int) nqueries ?
			 errdetail("%d of the %u saved statement entries fit in \"wal_stall.max_queries\".",
					   ws_queries_count(), nqueries) : 0));
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
