/*-------------------------------------------------------------------------
 *
 * tracer.c
 *		wal_stall_bench --validate: the bpftrace process.  Before any run,
 *		whether it can run at all (root, bpftrace on PATH, the server's
 *		probes, one trial attach); per traced run, start it on the run's
 *		postmaster and wait until its probes are attached, learn the backend
 *		types of the cluster's processes, stop it and read its sums.
 *
 * What the program traces and how its sums are compared: validate.c.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "expbuffer.h"
#include "validate.h"

struct WsbTracer
{
	pid_t		pid;
	int			cleanup;
	bool		io;
	int			order;
	char	   *outpath;		/* malloc'd, as are the next two */
	char	   *errpath;
	char	   *keep;			/* OUT/trace_run_N.txt */
	WsbBackendTypes types;
};

static void
tracer_free(WsbTracer *tr)
{
	free(tr->outpath);
	free(tr->errpath);
	free(tr->keep);
	free(tr);
}

/* The last line of a file that is not one of bpftrace's harmless warnings. */
static void
last_error_line(const char *path, char *out, size_t len)
{
	char	   *text = wsb_read_file(path, NULL);

	out[0] = '\0';
	for (char *l = text ? strtok(text, "\n") : NULL; l; l = strtok(NULL, "\n"))
		if (strstr(l, "ERROR") || strstr(l, "rror:"))
		{
			if (strstr(l, "RLIMIT_MEMLOCK") || strstr(l, "failed to detach"))
				continue;
			wsb_strlcpy(out, wsb_trim(l), len);
		}
	free(text);
}

/* bpftrace -l's list names the probe: a line that ends in ":probe" */
static bool
lists_probe(const char *list, const char *probe)
{
	size_t		n = strlen(probe);

	for (const char *p = list; (p = strchr(p, ':')) != NULL; p++)
		if (strncmp(p + 1, probe, n) == 0 && (p[n + 1] == '\n' || p[n + 1] == '\0'))
			return true;
	return false;
}

/*
 * Before any run: root, bpftrace on PATH, and a postgres binary with the
 * probes and symbols the program uses, to which bpftrace can attach.
 * 0 ok, -1 with one message naming what is missing.
 */
int
wsb_validate_check(const WsbOptions *o, char *err, size_t errlen)
{
	char		bpftrace[1024],
				pg[sizeof(o->bindir) + sizeof("/postgres")],	/* holds it whole */
				tmp[] = "/tmp/wsb_validate.XXXXXX";
	const char *need[] = {
		"lwlock__wait__start", "lwlock__wait__done",
		"wal__buffer__write__dirty__start", "wal__buffer__write__dirty__done", NULL
	};
	const char *syms[] = {"XLogFlush", "XLogInsertRecord", "XLogBackgroundFlush", "PostgresMain",
	"ParallelWorkerMain", NULL};
	PQExpBufferData missing;
	WsbCommand	c;
	char	   *list = NULL;	/* a command's output */
	int			fd,
				rc;

	if (geteuid() != 0)
	{
		snprintf(err, errlen, "--validate needs root: bpftrace loads programs into the kernel (run as root)");
		return -1;
	}
	/* PATH only: the test hides bpftrace by PATH */
	if (!wsb_which_on_path("bpftrace", bpftrace, sizeof(bpftrace)))
	{
		snprintf(err, errlen, "--validate needs bpftrace, which is not on PATH (Debian: apt-get install bpftrace)");
		return -1;
	}
	snprintf(pg, sizeof(pg), "%s/postgres", o->bindir);
	if (!wsb_plain_path(pg))
	{
		snprintf(err, errlen, "--validate: the server binary \"%s\" is not a plain path (letters, digits "
				 "and \"/._+-\" only): bpftrace's probes cannot name it", pg);
		return -1;
	}
	if (access(pg, R_OK) != 0)
	{
		snprintf(err, errlen, "--validate: no server binary \"%s\" to trace", pg);
		return -1;
	}
	wsb_cmd_init(&c, (uid_t) -1, (gid_t) -1);
	c.stderr_path = "/dev/null";
	wsb_cmd_add(&c, "%s", bpftrace);
	wsb_cmd_add(&c, "-l");
	wsb_cmd_add(&c, "usdt:%s:postgresql:*", pg);
	free(list);
	wsb_cmd_output(&c, &list);
	wsb_cmd_free(&c);
	if (strstr(list, ":postgresql:") == NULL)
	{
		snprintf(err, errlen, "--validate: \"%s\" has no USDT probes (bpftrace -l 'usdt:%s:postgresql:*' "
				 "lists none); it needs a PostgreSQL built with --enable-dtrace, as Debian's packages are",
				 pg, pg);
		free(list);
		return -1;
	}
	initPQExpBuffer(&missing);
	for (int i = 0; need[i]; i++)
		if (!lists_probe(list, need[i]))
			appendPQExpBuffer(&missing, "%s%s", missing.len ? ", " : "", need[i]);
	if (wsb_buffer_text(&missing)[0])
	{
		snprintf(err, errlen, "--validate: \"%s\" lacks the USDT probes %s", pg, missing.data);
		termPQExpBuffer(&missing);
		free(list);
		return -1;
	}
	termPQExpBuffer(&missing);
	for (int i = 0; syms[i]; i++)
	{
		wsb_cmd_init(&c, (uid_t) -1, (gid_t) -1);
		c.stderr_path = "/dev/null";
		wsb_cmd_add(&c, "%s", bpftrace);
		wsb_cmd_add(&c, "-l");
		wsb_cmd_add(&c, "uprobe:%s:%s", pg, syms[i]);
		free(list);
		wsb_cmd_output(&c, &list);
		wsb_cmd_free(&c);
		if (strstr(list, syms[i]) == NULL)
		{
			snprintf(err, errlen, "--validate: \"%s\" exports no function %s for a uprobe", pg, syms[i]);
			free(list);
			return -1;
		}
	}
	/* can it attach?  (a kernel without uprobes, a locked-down BPF) */
	fd = mkstemp(tmp);
	if (fd < 0)
	{
		snprintf(err, errlen, "--validate: could not create a temporary file: %s", strerror(errno));
		free(list);
		return -1;
	}
	close(fd);
	wsb_cmd_init(&c, (uid_t) -1, (gid_t) -1);
	c.stderr_path = tmp;
	wsb_cmd_add(&c, "%s", bpftrace);
	wsb_cmd_add(&c, "-e");
	wsb_cmd_add(&c, "usdt:%s:postgresql:lwlock__wait__start { } BEGIN { printf(\"attached\\n\"); exit(); }", pg);
	free(list);
	rc = wsb_cmd_output(&c, &list);
	wsb_cmd_free(&c);
	if (strstr(list, "attached") == NULL)
	{
		char		why[512];

		last_error_line(tmp, why, sizeof(why));
		unlink(tmp);
		snprintf(err, errlen, "--validate: bpftrace could not attach a probe to \"%s\" (exit status %d)%s%s",
				 pg, rc, why[0] ? ": " : "", why);
		free(list);
		return -1;
	}
	unlink(tmp);
	free(list);
	return 0;
}

/* The parent of a process, from /proc/PID/stat; -1 if unknown. */
static int
parent_pid(int pid)
{
	char		path[64];
	char	   *text,
			   *p;
	int			ppid = -1;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	text = wsb_read_file(path, NULL);
	if (text && (p = strrchr(text, ')')) != NULL)
	{
		char		state;

		if (sscanf(p + 1, " %c %d", &state, &ppid) != 2)
			ppid = -1;
	}
	free(text);
	return ppid;
}

static void
tracer_kill(void *arg)
{
	WsbTracer  *tr = arg;

	if (tr->pid <= 0)
		return;
	wsb_proc_stop(tr->pid, SIGINT, 5.0, false);
	tr->pid = 0;
}

/*
 * Start bpftrace for the cluster of backend_pid (our own connection's
 * backend: its parent is the postmaster) and wait until its probes are
 * attached.  The tracer is stopped by wsb_tracer_stop, or by the cleanups
 * on a failure or interrupt.  NULL with a message on failure.
 */
WsbTracer *
wsb_tracer_start(const WsbOptions *o, const char *workdir, int order, int backend_pid,
				 char *err, size_t errlen)
{
	WsbTracer  *tr;
	char	   *pg,
			   *bt,
			   *path;
	char		libc[1024] = "",
				bpftrace[1024];
	char	   *program,
			   *maps;
	int			postmaster = backend_pid > 0 ? parent_pid(backend_pid) : -1;
	WsbCommand	c;
	double		start;

	if (postmaster <= 1)
	{
		snprintf(err, errlen, "--validate: could not find the postmaster (parent of backend %d)", backend_pid);
		return NULL;
	}
	if (!wsb_which_on_path("bpftrace", bpftrace, sizeof(bpftrace)))
	{
		snprintf(err, errlen, "--validate: bpftrace is no longer on PATH");
		return NULL;
	}
	path = wsb_psprintf("/proc/%d/maps", postmaster);
	maps = wsb_read_file(path, NULL);
	free(path);
	if (maps)
		wsb_maps_libc(maps, libc, sizeof(libc));
	free(maps);
	pg = wsb_psprintf("%s/postgres", o->bindir);
	program = wsb_validate_program(pg, libc);
	if (program == NULL)
	{
		snprintf(err, errlen, "--validate: the server binary \"%s\" is not a plain path", pg);
		free(pg);
		return NULL;
	}
	free(pg);
	tr = wsb_xcalloc(1, sizeof(WsbTracer));
	tr->io = libc[0] != '\0';
	tr->order = order;
	bt = wsb_psprintf("%s/validate.bt", workdir);
	if (wsb_write_file(bt, program) != 0)
	{
		free(program);
		tracer_free(tr);
		snprintf(err, errlen, "--validate: could not write \"%s\"", bt);
		free(bt);
		return NULL;
	}
	path = wsb_psprintf("%s/validate.bt", o->out);
	wsb_write_file(path, program);	/* the reader's copy */
	free(path);
	free(program);
	tr->outpath = wsb_psprintf("%s/trace_%d.out", workdir, order);
	tr->errpath = wsb_psprintf("%s/trace_%d.err", workdir, order);
	tr->keep = wsb_psprintf("%s/trace_run_%d.txt", o->out, order);

	wsb_cmd_init(&c, (uid_t) -1, (gid_t) -1);
	wsb_cmd_add(&c, "%s", bpftrace);
	wsb_cmd_add(&c, "%s", bt);
	free(bt);
	wsb_cmd_add(&c, "%d", postmaster);
	c.stdout_path = tr->outpath;
	c.stderr_path = tr->errpath;
	tr->pid = wsb_cmd_start(&c);
	wsb_cmd_free(&c);
	if (tr->pid < 0)
	{
		snprintf(err, errlen, "--validate: could not start bpftrace: %s", strerror(errno));
		tracer_free(tr);
		return NULL;
	}
	tr->cleanup = wsb_cleanup_push("bpftrace", tracer_kill, tr);

	/* attaching two dozen probes takes a few seconds */
	start = wsb_now();
	for (;;)
	{
		char	   *out = wsb_read_file(tr->outpath, NULL);
		bool		ready = out && strstr(out, WSB_TRACE_READY);
		int			status;

		free(out);
		if (ready)
			return tr;
		if (wsb_proc_wait(tr->pid, 0, &status) == 1)
		{
			char		why[512];

			tr->pid = 0;
			last_error_line(tr->errpath, why, sizeof(why));
			snprintf(err, errlen, "--validate: bpftrace exited before its probes were attached%s%s",
					 why[0] ? ": " : "", why);
			return NULL;		/* the cleanup entry stays, harmless */
		}
		if (wsb_interrupted || wsb_now() - start > 60)
		{
			tracer_kill(tr);
			snprintf(err, errlen, "%s", wsb_interrupted ? "interrupted" :
					 "--validate: bpftrace did not attach its probes within 60 s");
			return NULL;
		}
		usleep(100000);
	}
}

/* Learn the backend types of pg_stat_activity rows (pid, backend_type). */
void
wsb_tracer_note(WsbTracer *tr, const WsbRows *activity)
{
	for (int i = 0; tr && i < activity->nrows; i++)
		wsb_backends_note(&tr->types, (int) wsb_rows_double(activity, i, "pid", 0),
						  wsb_rows_get(activity, i, "backend_type"));
}

/*
 * Stop the tracer (SIGINT: bpftrace prints its maps and exits), parse its
 * output into v, keep it as OUT/trace_run_N.txt, free the tracer.  0 ok,
 * -1 with a message (also in v->error).
 */
int
wsb_tracer_stop(WsbTracer *tr, WsbValidation *v, char *err, size_t errlen)
{
	WsbTrace	trace;
	char	   *out;
	int			rc = 0;

	v->ok = false;
	v->io_traced = tr->io;
	if (tr->pid > 0)
	{
		/* printing the maps of a long run takes a while */
		wsb_proc_stop(tr->pid, SIGINT, 30.0, false);
		tr->pid = 0;
	}
	wsb_cleanup_done(tr->cleanup);
	out = wsb_read_file(tr->outpath, NULL);
	if (out)
		wsb_write_file(tr->keep, out);
	if (out == NULL || wsb_trace_parse(out, &trace) != 0)
	{
		char		why[512];

		last_error_line(tr->errpath, why, sizeof(why));
		snprintf(v->error, sizeof(v->error), "bpftrace's output ended before its end marker%s%.200s",
				 why[0] ? ": " : "", why);
		rc = -1;
	}
	else
	{
		wsb_trace_classify(&trace, &tr->types, v);
		v->ok = true;
	}
	if (out)
		wsb_trace_free(&trace);
	free(out);
	unlink(tr->outpath);
	unlink(tr->errpath);
	wsb_backends_free(&tr->types);
	tracer_free(tr);
	if (rc != 0)
		snprintf(err, errlen, "%s", v->error);
	return rc;
}
