/*-------------------------------------------------------------------------
 *
 * validate.c
 *		wal_stall_bench --validate: kernel-traced truth beside wal_stall's
 *		sampled figures, and the error between them.
 *
 * For a traced run the harness starts bpftrace on the server's postgres
 * binary before pgbench and stops it after the run's last figures are in
 * (SIGINT: bpftrace prints its maps and exits).  The program keeps per
 * process sums, in nanoseconds, for the processes whose parent is the
 * run's postmaster (other clusters of the same binary are not counted):
 *
 *	 lock	USDT lwlock__wait__start/done on the tranches WALWrite,
 *			WALBufMapping and WALInsert (arg0 is the tranche name), when
 *			not inside one of the two below
 *	 flush	uprobe/uretprobe on XLogFlush, the outermost call: a commit's
 *			or a buffer eviction's flush, its lock waits, write() and
 *			fsync() included
 *	 dirty	USDT wal__buffer__write__dirty__start/done: the wrap-around
 *			write of AdvanceXLInsertBuffer, done under WALWriteLock
 *	 write	libc pwrite/pwritev called inside XLogFlush, XLogBackgroundFlush
 *			(the WAL writer) or a dirty write: WAL writes
 *	 sync	libc fdatasync/fsync called inside them: WAL fsyncs
 *	 insert	uprobe/uretprobe on XLogInsertRecord, calls of WSB_TRACE_WAIT_US
 *			or more: the insert side (insertion-lock waits, wrap-arounds)
 *	 flushw	the XLogFlush calls of as long: the flush side
 *
 * The three first never overlap in one process, so their sum is the time
 * the process spent on the WAL path, which wal_stall's stall classes
 * wal_buffer_full + wal_flush + wal_insert estimate by sampling wait events
 * for client backends.  Which pid is a client: the harness polls
 * pg_stat_activity each second of the run and classifies by backend_type;
 * a process that started and ended between two polls (pgbench's own
 * VACUUM connection, a connection of pgbench -C) is a client when the
 * program saw it enter PostgresMain or ParallelWorkerMain (uprobes, once
 * per process); any other is counted apart as unclassified (an autovacuum
 * worker, which wal_stall's stall kind does not count either).  write and sync are for every process, as
 * wal_stall's io classes are.  The two sides (insert, flushw) are checked
 * class by class for client backends: wal_buffer_full + wal_insert against
 * the insert side, wal_flush against the flush side, from the summary and
 * from the history rows of the run; both are exported functions, so the
 * check needs no USDT probe of its own.  Not traced: the WAL segment pre-allocation
 * of the checkpointer (outside those functions), and a write or fsync of a
 * WAL segment made outside them.
 *
 * Which runs are traced: with --runs >= 2, whole rounds, the odd ones
 * (1, 3, ...); the even rounds go without the tracer, so that its cost is
 * measured on the same configurations in the same shuffled order, traced
 * and untraced rounds alternate through the session, and the untraced
 * rounds are complete: the verdict by rounds pairs only untraced runs (the
 * tracer moves tps), so tracing every other run of each configuration
 * would leave it almost no pair.  With --runs 1 every run is traced and
 * the cost is not measured.
 *
 * The bpftrace process itself (requirements, start, stop): tracer.c.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "expbuffer.h"
#include "figures.h"
#include "validate.h"

/* ---------------------------------------------------------------------
 * The program
 * --------------------------------------------------------------------- */

/* Whether the run of this configuration and repeat (its round, 1..) is
 * traced (see the file header): the odd rounds. */
bool
wsb_validate_traced(const WsbOptions *o, int config, int repeat)
{
	(void) config;
	return o->validate && (o->runs < 2 || repeat % 2 == 1);
}

/*
 * Whether path may stand in a bpftrace probe as it is: absolute, of
 * letters, digits and "/._+-" only, with no ".." component.  A probe's
 * path is not a string bpftrace unquotes: a ':', a blank, a '{' or a
 * newline in it would end the probe and begin program text, run as root.
 * The libc path comes from /proc/PID/maps, which the cluster's owner
 * shapes (a shared_preload_libraries path), so every path is checked.
 */
bool
wsb_plain_path(const char *path)
{
	if (path == NULL || path[0] != '/')
		return false;
	for (const char *p = path; *p; p++)
		if (!isalnum((unsigned char) *p) && strchr("/._+-", *p) == NULL)
			return false;
	for (const char *p = path; (p = strstr(p, "..")) != NULL; p++)
		if (p[-1] == '/' && (p[2] == '/' || p[2] == '\0'))
			return false;
	return true;
}

/*
 * The bpftrace program for a postgres binary and the libc it maps ("" to
 * leave write/fsync out); $1 is the postmaster's pid.  malloc'd; NULL when
 * the binary's path is not plain (wsb_plain_path).  A libc that is not is
 * left out, as an unknown one.
 */
char *
wsb_validate_program(const char *pg, const char *libc)
{
	PQExpBufferData buf;

	if (!wsb_plain_path(pg))
		return NULL;
	if (libc && *libc && !wsb_plain_path(libc))
		libc = "";
	initPQExpBuffer(&buf);
	appendPQExpBuffer(&buf,
					  "/* wal_stall_bench --validate: WAL-path time per process of one cluster\n"
					  " * ($1: its postmaster's pid), printed at exit in ns and counts */\n"
					  "BEGIN { printf(\"" WSB_TRACE_READY "\\n\"); }\n"
					  "usdt:%s:postgresql:lwlock__wait__start\n"
					  "/curtask->real_parent->tgid == $1 && @in_wal[tid] == 0/\n"
					  "{\n"
					  "\t$t = str(arg0);\n"
					  "\tif ($t == \"WALWrite\" || $t == \"WALBufMapping\" || $t == \"WALInsert\") {\n"
					  "\t\t@lw_t0[tid] = nsecs;\n"
					  "\t}\n"
					  "}\n"
					  "usdt:%s:postgresql:lwlock__wait__done\n"
					  "/@lw_t0[tid]/\n"
					  "{\n"
					  "\t@lock_ns[pid] = sum(nsecs - @lw_t0[tid]);\n"
					  "\t@lock_n[pid] = count();\n"
					  "\tdelete(@lw_t0[tid]);\n"
					  "}\n"
					  "usdt:%s:postgresql:wal__buffer__write__dirty__start\n"
					  "/curtask->real_parent->tgid == $1 && @in_wal[tid] == 0/\n"
					  "{ @in_wal[tid] = 1; @dw_t0[tid] = nsecs; }\n"
					  "usdt:%s:postgresql:wal__buffer__write__dirty__done\n"
					  "/@dw_t0[tid]/\n"
					  "{\n"
					  "\t@dirty_ns[pid] = sum(nsecs - @dw_t0[tid]);\n"
					  "\t@dirty_n[pid] = count();\n"
					  "\tdelete(@dw_t0[tid]);\n"
					  "\tdelete(@in_wal[tid]);\n"
					  "}\n"
					  "uprobe:%s:PostgresMain, uprobe:%s:ParallelWorkerMain\n"
					  "/curtask->real_parent->tgid == $1/\n"
					  "{ @client[pid] = 1; }\n"
					  "uprobe:%s:XLogFlush\n"
					  "/curtask->real_parent->tgid == $1 && @in_wal[tid] == 0/\n"
					  "{ @in_wal[tid] = 2; @fl_t0[tid] = nsecs; }\n"
					  "uretprobe:%s:XLogFlush\n"
					  "/@fl_t0[tid]/\n"
					  "{\n"
					  "\t$d = nsecs - @fl_t0[tid];\n"
					  "\t@flush_ns[pid] = sum($d);\n"
					  "\t@flush_n[pid] = count();\n"
					  "\tif ($d >= %d) { @flushw_ns[pid] = sum($d); @flushw_n[pid] = count(); }\n"
					  "\tdelete(@fl_t0[tid]);\n"
					  "\tdelete(@in_wal[tid]);\n"
					  "}\n"
					  "uprobe:%s:XLogInsertRecord\n"
					  "/curtask->real_parent->tgid == $1/\n"
					  "{ @ins_t0[tid] = nsecs; }\n"
					  "uretprobe:%s:XLogInsertRecord\n"
					  "/@ins_t0[tid]/\n"
					  "{\n"
					  "\t$d = nsecs - @ins_t0[tid];\n"
					  "\tif ($d >= %d) { @insert_ns[pid] = sum($d); @insert_n[pid] = count(); }\n"
					  "\tdelete(@ins_t0[tid]);\n"
						  "}\n",
					  pg, pg, pg, pg, pg, pg, pg, pg, WSB_TRACE_WAIT_US * 1000,
					  pg, pg, WSB_TRACE_WAIT_US * 1000);
	if (libc && *libc)
	{
		appendPQExpBuffer(&buf,
						  "uprobe:%s:XLogBackgroundFlush\n"
						  "/curtask->real_parent->tgid == $1 && @in_wal[tid] == 0/\n"
						  "{ @in_wal[tid] = 3; @bg[tid] = 1; }\n"
						  "uretprobe:%s:XLogBackgroundFlush\n"
						  "/@bg[tid]/\n"
						  "{ delete(@bg[tid]); delete(@in_wal[tid]); }\n"
						  "uprobe:%s:pwrite64, uprobe:%s:pwritev64\n"
						  "/@in_wal[tid]/\n"
						  "{ @wr_t0[tid] = nsecs; }\n"
						  "uretprobe:%s:pwrite64, uretprobe:%s:pwritev64\n"
						  "/@wr_t0[tid]/\n"
						  "{\n"
						  "\t@write_ns[pid] = sum(nsecs - @wr_t0[tid]);\n"
						  "\t@write_n[pid] = count();\n"
						  "\tdelete(@wr_t0[tid]);\n"
						  "}\n"
						  "uprobe:%s:fdatasync, uprobe:%s:fsync\n"
						  "/@in_wal[tid]/\n"
						  "{ @sy_t0[tid] = nsecs; }\n"
						  "uretprobe:%s:fdatasync, uretprobe:%s:fsync\n"
						  "/@sy_t0[tid]/\n"
						  "{\n"
						  "\t@sync_ns[pid] = sum(nsecs - @sy_t0[tid]);\n"
						  "\t@sync_n[pid] = count();\n"
						  "\tdelete(@sy_t0[tid]);\n"
						  "}\n",
						  pg, pg, libc, libc, libc, libc, libc, libc, libc, libc);
	}
	appendPQExpBuffer(&buf,
					  "END\n"
					  "{\n"
					  "\tclear(@lw_t0); clear(@dw_t0); clear(@fl_t0); clear(@in_wal); clear(@ins_t0);\n"
					  "%s"
					  "\tprintf(\"" WSB_TRACE_END "\\n\");\n"
					  "}\n",
					  libc && *libc ? "\tclear(@bg); clear(@wr_t0); clear(@sy_t0);\n" : "");
	wsb_buffer_text(&buf);		/* out of memory: exits */
	return buf.data;
}

/* The path of the libc a process maps, from its /proc/PID/maps text. */
bool
wsb_maps_libc(const char *maps, char *path, size_t len)
{
	for (const char *line = maps; line && *line;)
	{
		const char *end = strchr(line, '\n');
		const char *slash;
		size_t		l = end ? (size_t) (end - line) : strlen(line);
		char		buf[1024];

		snprintf(buf, sizeof(buf), "%.*s", (int) (l < sizeof(buf) ? l : sizeof(buf) - 1), line);
		slash = strchr(buf, '/');
		/* a line or path too long for its buffer is passed over, not cut,
		 * and so is one that is no plain path (" (deleted)", a newline) */
		if (l < sizeof(buf) && slash && strlen(slash) < len &&
			(strstr(slash, "/libc.so") || strstr(slash, "/libc-")) && wsb_plain_path(slash))
		{
			wsb_strlcpy(path, slash, len);
			return true;
		}
		line = end ? end + 1 : NULL;
	}
	return false;
}

/* ---------------------------------------------------------------------
 * bpftrace's output
 * --------------------------------------------------------------------- */

static WsbTracePid *
trace_pid(WsbTrace *t, int pid)
{
	for (int i = 0; i < t->npids; i++)
		if (t->pids[i].pid == pid)
			return &t->pids[i];
	if (t->npids == t->cap)
	{
		int			cap = t->cap ? t->cap * 2 : 64;
		WsbTracePid *p = realloc(t->pids, sizeof(WsbTracePid) * cap);

		if (p == NULL)
			return NULL;
		t->pids = p;
		t->cap = cap;
	}
	memset(&t->pids[t->npids], 0, sizeof(WsbTracePid));
	t->pids[t->npids].pid = pid;
	return &t->pids[t->npids++];
}

/*
 * Parse what the program printed: "@name[pid]: value" lines of its maps,
 * and the end marker.  Other lines ("Attaching 22 probes...", the ready
 * marker, blank lines) are skipped; a map line that does not parse counts
 * in bad_lines.  Returns 0 when the end marker was seen, -1 otherwise.
 */
int
wsb_trace_parse(const char *text, WsbTrace *t)
{
	static const char *const names[] = {
		"lock_ns", "lock_n", "flush_ns", "flush_n", "dirty_ns", "dirty_n",
		"write_ns", "write_n", "sync_ns", "sync_n", "client",
		"insert_ns", "insert_n", "flushw_ns", "flushw_n"
	};

	memset(t, 0, sizeof(*t));
	for (const char *line = text; line && *line;)
	{
		const char *end = strchr(line, '\n');
		size_t		l = end ? (size_t) (end - line) : strlen(line);
		char		buf[256];
		char	   *br,
				   *close,
				   *p;
		long		pid;
		long long	value;
		int			k;

		snprintf(buf, sizeof(buf), "%.*s", (int) (l < sizeof(buf) ? l : sizeof(buf) - 1), line);
		line = end ? end + 1 : NULL;
		if (strcmp(wsb_trim(buf), WSB_TRACE_END) == 0)
		{
			t->ended = true;
			continue;
		}
		if (buf[0] != '@')
			continue;
		br = strchr(buf, '[');
		close = br ? strchr(br, ']') : NULL;
		if (br == NULL || close == NULL || close[1] != ':')
		{
			t->bad_lines++;
			continue;
		}
		*br = '\0';
		for (k = 0; k < (int) (sizeof(names) / sizeof(names[0])); k++)
			if (strcmp(buf + 1, names[k]) == 0)
				break;
		errno = 0;
		pid = strtol(br + 1, &p, 10);
		if (k == (int) (sizeof(names) / sizeof(names[0])) || p != close || pid <= 0)
		{
			t->bad_lines++;
			continue;
		}
		value = strtoll(close + 2, &p, 10);
		if (p == close + 2 || errno != 0 || *wsb_trim(p) != '\0' || value < 0)
		{
			t->bad_lines++;
			continue;
		}
		{
			WsbTracePid *tp = trace_pid(t, (int) pid);
			int64_t    *fields[] = {
				&tp->lock_ns, &tp->lock_n, &tp->flush_ns, &tp->flush_n,
				&tp->dirty_ns, &tp->dirty_n, &tp->write_ns, &tp->write_n,
				&tp->sync_ns, &tp->sync_n, &tp->client,
				&tp->insert_ns, &tp->insert_n, &tp->flushw_ns, &tp->flushw_n
			};

			if (tp == NULL)
				return -1;
			*fields[k] += value;
		}
	}
	return t->ended ? 0 : -1;
}

void
wsb_trace_free(WsbTrace *t)
{
	free(t->pids);
	memset(t, 0, sizeof(*t));
}

/* Remember a pid's backend_type (the newest wins: pids are not reused
 * within a run on any real machine, but a pid's type is what it last was). */
void
wsb_backends_note(WsbBackendTypes *bt, int pid, const char *type)
{
	int			i;

	if (pid <= 0 || type == NULL)
		return;
	for (i = 0; i < bt->n; i++)
		if (bt->pids[i] == pid)
			break;
	if (i == bt->n)
	{
		if (bt->n == bt->cap)
		{
			int			cap = bt->cap ? bt->cap * 2 : 64;
			int		   *p = realloc(bt->pids, sizeof(int) * cap);
			char	  (*ty)[40];

			if (p == NULL)
				return;
			bt->pids = p;
			ty = realloc(bt->types, sizeof(*ty) * cap);
			if (ty == NULL)
				return;
			bt->types = ty;
			bt->cap = cap;
		}
		bt->pids[bt->n++] = pid;
	}
	wsb_strlcpy(bt->types[i], type, sizeof(bt->types[i]));
}

const char *
wsb_backends_type(const WsbBackendTypes *bt, int pid)
{
	for (int i = 0; i < bt->n; i++)
		if (bt->pids[i] == pid)
			return bt->types[i];
	return NULL;
}

void
wsb_backends_free(WsbBackendTypes *bt)
{
	free(bt->pids);
	free(bt->types);
	memset(bt, 0, sizeof(*bt));
}

/* What wal_stall's stall kind counts: client backends and parallel workers. */
static bool
is_client(const char *type)
{
	return strcmp(type, "client backend") == 0 || strcmp(type, "parallel worker") == 0;
}

/* The traced sums of a run, by kind of process, into v. */
void
wsb_trace_classify(const WsbTrace *t, const WsbBackendTypes *bt, WsbValidation *v)
{
	v->client_pids = v->other_pids = v->unclassified_pids = 0;
	v->client_lock_wait_ms = v->client_flush_ms = v->client_dirty_write_ms = 0;
	v->other_wal_path_ms = v->unclassified_ms = 0;
	v->dirty_writes = v->client_dirty_writes = 0;
	v->wal_write_ms = v->wal_fsync_ms = 0;
	v->wal_writes = v->wal_fsyncs = 0;
	v->client_insert_side_ms = v->client_flush_side_ms = 0;
	v->client_insert_waits = v->client_flush_waits = 0;
	for (int i = 0; i < t->npids; i++)
	{
		const WsbTracePid *p = &t->pids[i];
		const char *type = wsb_backends_type(bt, p->pid);
		double		path_ms = (p->lock_ns + p->flush_ns + p->dirty_ns) / 1e6;

		v->dirty_writes += p->dirty_n;
		v->wal_write_ms += p->write_ns / 1e6;
		v->wal_writes += p->write_n;
		v->wal_fsync_ms += p->sync_ns / 1e6;
		v->wal_fsyncs += p->sync_n;
		if (type == NULL && p->client)
			type = "client backend";	/* started and ended between two polls */
		if (type == NULL)
		{
			v->unclassified_pids++;
			v->unclassified_ms += path_ms;
		}
		else if (is_client(type))
		{
			v->client_pids++;
			v->client_lock_wait_ms += p->lock_ns / 1e6;
			v->client_flush_ms += p->flush_ns / 1e6;
			v->client_dirty_write_ms += p->dirty_ns / 1e6;
			v->client_dirty_writes += p->dirty_n;
			v->client_insert_side_ms += p->insert_ns / 1e6;
			v->client_insert_waits += p->insert_n;
			v->client_flush_side_ms += p->flushw_ns / 1e6;
			v->client_flush_waits += p->flushw_n;
		}
		else
		{
			v->other_pids++;
			v->other_wal_path_ms += path_ms;
		}
	}
	v->client_traced_ms = v->client_lock_wait_ms + v->client_flush_ms + v->client_dirty_write_ms;
}

/* sampled / traced for one side; NAN when nothing was traced on it. */
double
wsb_validate_side_ratio(double sampled_ms, double traced_ms)
{
	return traced_ms > 0 && !isnan(sampled_ms) ? sampled_ms / traced_ms : NAN;
}

/*
 * wal_stall's and core's figures beside the traced ones, and the ratio;
 * per side, from the summary and from the run's history rows.
 */
void
wsb_validate_compare(WsbValidation *v, const WsbRows *summary, const WsbRows *wal,
					 const WsbRows *history)
{
	double		ec = wsb_summary_rows_value(summary, "wal_buffer_full", "exact_count");
	double		bf = wal && wal->nrows > 0 ? wsb_rows_double(wal, 0, "wal_buffers_full", NAN) : NAN;

	v->client_sampled_ms = wsb_summary_rows_value(summary, "wal_buffer_full", "total_ms") +
		wsb_summary_rows_value(summary, "wal_flush", "total_ms") +
		wsb_summary_rows_value(summary, "wal_insert", "total_ms");
	v->ratio = v->client_traced_ms > 0 ? v->client_sampled_ms / v->client_traced_ms : NAN;
	v->sampled_wal_write_ms = wsb_summary_rows_value(summary, "wal_write", "total_ms");
	v->sampled_wal_fsync_ms = wsb_summary_rows_value(summary, "wal_fsync", "total_ms");
	v->exact_count = isnan(ec) ? -1 : (int64_t) ec;
	v->wal_buffers_full = isnan(bf) ? -1 : (int64_t) bf;
	v->summary_insert_side_ms = wsb_summary_rows_value(summary, "wal_buffer_full", "total_ms") +
		wsb_summary_rows_value(summary, "wal_insert", "total_ms");
	v->summary_flush_side_ms = wsb_summary_rows_value(summary, "wal_flush", "total_ms");
	v->history_insert_side_ms = wsb_rows_sum(history, "wal_buffer_full_ms") +
		wsb_rows_sum(history, "wal_insert_ms");
	v->history_flush_side_ms = wsb_rows_sum(history, "wal_flush_ms");
}

/*
 * The traced runs of one configuration, summed into *sum (ratio of the
 * sums), and the mean tps of its successful traced and untraced runs (NAN
 * when none).  Returns the number of traced runs summed.
 */
int
wsb_validate_config(const WsbRun *runs, int nruns, int config, WsbValidation *sum,
					double *tps_traced, double *tps_untraced)
{
	int			n = 0,
				nt = 0,
				nu = 0;
	double		st = 0,
				su = 0;
	bool		counts = true;

	memset(sum, 0, sizeof(*sum));
	sum->wal_buffers_full = sum->exact_count = 0;
	for (int i = 0; i < nruns; i++)
	{
		const WsbRun *r = &runs[i];
		const WsbValidation *v = &r->validation;

		if (r->config != config || !r->ok)
			continue;
		if (v->traced)
			st += r->tps, nt++;
		else
			su += r->tps, nu++;
		if (!v->traced || !v->ok)
			continue;
		n++;
		sum->io_traced = v->io_traced;
		sum->client_pids += v->client_pids;
		sum->client_lock_wait_ms += v->client_lock_wait_ms;
		sum->client_flush_ms += v->client_flush_ms;
		sum->client_dirty_write_ms += v->client_dirty_write_ms;
		sum->client_traced_ms += v->client_traced_ms;
		sum->client_sampled_ms += v->client_sampled_ms;
		sum->dirty_writes += v->dirty_writes;
		sum->client_dirty_writes += v->client_dirty_writes;
		sum->other_wal_path_ms += v->other_wal_path_ms;
		sum->unclassified_ms += v->unclassified_ms;
		sum->unclassified_pids += v->unclassified_pids;
		sum->wal_write_ms += v->wal_write_ms;
		sum->wal_writes += v->wal_writes;
		sum->wal_fsync_ms += v->wal_fsync_ms;
		sum->wal_fsyncs += v->wal_fsyncs;
		sum->sampled_wal_write_ms += v->sampled_wal_write_ms;
		sum->sampled_wal_fsync_ms += v->sampled_wal_fsync_ms;
		sum->client_insert_side_ms += v->client_insert_side_ms;
		sum->client_insert_waits += v->client_insert_waits;
		sum->client_flush_side_ms += v->client_flush_side_ms;
		sum->client_flush_waits += v->client_flush_waits;
		sum->summary_insert_side_ms += v->summary_insert_side_ms;
		sum->summary_flush_side_ms += v->summary_flush_side_ms;
		sum->history_insert_side_ms += v->history_insert_side_ms;
		sum->history_flush_side_ms += v->history_flush_side_ms;
		if (v->wal_buffers_full < 0 || v->exact_count < 0)
			counts = false;
		sum->wal_buffers_full += v->wal_buffers_full;
		sum->exact_count += v->exact_count;
	}
	if (!counts || n == 0)
		sum->wal_buffers_full = sum->exact_count = -1;
	sum->traced = n > 0;
	sum->ok = n > 0;
	sum->ratio = sum->client_traced_ms > 0 ? sum->client_sampled_ms / sum->client_traced_ms : NAN;
	*tps_traced = nt ? st / nt : NAN;
	*tps_untraced = nu ? su / nu : NAN;
	return n;
}

/*
 * The tracer's cost in percent of tps: per configuration, mean tps of the
 * traced runs against the untraced ones, averaged over the configurations
 * that have both (each weighs the same).  NAN when none has both.
 */
double
wsb_validate_overall_cost(const WsbPlan *plan, const WsbRun *runs, int nruns)
{
	double		sum = 0;
	int			n = 0;

	for (int c = 0; c < plan->nconfigs; c++)
	{
		WsbValidation s;
		double		tt,
					tu;

		wsb_validate_config(runs, nruns, c, &s, &tt, &tu);
		if (!isnan(tt) && !isnan(tu) && tu > 0)
		{
			sum += 100.0 * (tt / tu - 1.0);
			n++;
		}
	}
	return n ? sum / n : NAN;
}

bool
wsb_validate_any(const WsbRun *runs, int nruns)
{
	for (int i = 0; i < nruns; i++)
		if (runs[i].validation.requested)
			return true;
	return false;
}
