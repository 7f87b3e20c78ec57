/*-------------------------------------------------------------------------
 *
 * control.c
 *		wal_stall_bench: starting, stopping and restarting the target server
 *		the way it is managed (a restart connects again, through sql.c).
 *
 * Every start, stop and restart goes through the server's own manager, so
 * that its logs, pid files and the manager's idea of the server stay the
 * manager's:
 *
 *	pg_ctlcluster	a Debian/Ubuntu cluster of postgresql-common, named by
 *					--cluster VERSION/NAME or found by its data directory in
 *					pg_lsclusters.  pg_ctlcluster logs where the cluster's
 *					configuration says (/var/log/postgresql/... by default)
 *					and, under systemd, goes through systemctl itself.
 *	systemd			--service UNIT, or, where systemd runs, the .service unit
 *					the running postmaster's cgroup names: systemctl.
 *	pg_ctl			the temporary cluster, and any other cluster: pg_ctl -D.
 *					The server's output goes, with -l, where the running
 *					postmaster's standard error went (its own log file, so a
 *					restart's lines land beside the rest), else to
 *					OUT/server.log, which stays with the results.
 *
 * A start or restart is judged by the server, not by the manager's exit
 * status: it is done when a new postmaster accepts connections on the
 * socket the harness uses.  pg_ctlcluster, for one, exits 1 after a
 * restart that worked when unix_socket_directories lists two directories
 * (postgresql-common parses the list itself and fails on the quotes);
 * the exit status is then said beside the server's answer.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <libpq-fe.h>

#include "engine.h"
#include "sql.h"

/*
 * The postmaster.pid of the cluster at t->pgdata: the postmaster's pid,
 * and the port and first socket directory it listens on (lines 1, 4 and
 * 5).  false when there is no such file (no server), or it is cut short
 * (a server still starting).
 */
static bool
pid_file_fields(const WsbTarget *t, pid_t *pid, int *port, char **sockdir)
{
	char	   *path = wsb_psprintf("%s/postmaster.pid", t->pgdata);
	char	   *text,
			   *line,
			   *nl;
	int			n = 0;

	*pid = 0;
	*port = 0;
	*sockdir = NULL;
	/* the owner's file: never read through a link it planted */
	text = wsb_read_file_of(path, t->uid, NULL);
	free(path);
	if (text == NULL)
		return false;
	/* line by line, empty ones counted: line 5 is empty without sockets */
	for (line = text; *line && n < 5; line = nl ? nl + 1 : line + strlen(line))
	{
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		n++;
		if (n == 1)
			*pid = (pid_t) atoi(line);
		else if (n == 4)
			*port = atoi(line);
		else if (n == 5 && line[0])
			*sockdir = wsb_xstrdup(line);
	}
	free(text);
	return *pid > 0 && n >= 5;
}

/* The running postmaster's pid, from postmaster.pid, or 0. */
pid_t
wsb_control_postmaster_pid(const WsbTarget *t)
{
	pid_t		pid;
	int			port;
	char	   *dir;

	pid_file_fields(t, &pid, &port, &dir);
	free(dir);
	return pid;
}

/*
 * The running cluster's port and socket directory (t->port, t->sockdir),
 * from postmaster.pid: the harness connects there.
 */
int
wsb_control_read_socket(WsbTarget *t, char *err, size_t errlen)
{
	pid_t		pid;

	errno = 0;
	free(t->sockdir);
	if (!pid_file_fields(t, &pid, &t->port, &t->sockdir))
	{
		snprintf(err, errlen, "cannot read the port and socket of the server at \"%s\" from its "
				 "postmaster.pid: %s", t->pgdata, errno ? strerror(errno) : "the file is incomplete");
		return -1;
	}
	if (t->port <= 0 || t->sockdir == NULL)
	{
		snprintf(err, errlen, "the cluster at \"%s\" listens on no Unix socket (unix_socket_directories is empty)", t->pgdata);
		return -1;
	}
	return 0;
}

/*
 * After a start or restart whose manager reported failure: does a
 * postmaster other than old (the one before a restart, else 0) run and
 * accept connections on the harness's socket (t->sockdir and t->port, or
 * postmaster.pid's before the harness knows them)?  Asked for up to 10 s:
 * a manager may give up before the server is ready.
 */
static bool
server_came_up(const WsbTarget *t, pid_t old, char *where, size_t len)
{
	for (int i = 0; i < 100 && !wsb_interrupted; i++)
	{
		pid_t		pid;
		int			port;
		char	   *dir;

		if (pid_file_fields(t, &pid, &port, &dir) && pid != old)
		{
			const char *keys[] = {"host", "port", "connect_timeout", NULL};
			char		portstr[16];
			const char *vals[4];

			if (t->port > 0 && t->sockdir)
			{
				port = t->port;
				free(dir);
				dir = wsb_xstrdup(t->sockdir);
			}
			snprintf(portstr, sizeof(portstr), "%d", port);
			vals[0] = dir ? dir : "";
			vals[1] = portstr;
			vals[2] = "5";
			vals[3] = NULL;
			if (PQpingParams(keys, vals, 0) == PQPING_OK)
			{
				snprintf(where, len, "\"%s\" port %d", vals[0], port);
				free(dir);
				return true;
			}
		}
		free(dir);
		usleep(100000);
	}
	return false;
}

/*
 * The cluster pg_lsclusters lists with data directory datadir (realpath),
 * or named version/name when datadir is NULL: fills ctl and, for a name,
 * datadir_out.  true if found.
 */
static bool
find_debian_cluster(WsbController *ctl, const char *datadir, const char *version,
					const char *name, char *datadir_out, size_t outlen)
{
	WsbCommand	c;
	char		prog[PATH_MAX];
	char	   *out;
	char	   *line,
			   *save = NULL;
	bool		found = false;

	if (!wsb_which("pg_lsclusters", prog, sizeof(prog)))
		return false;
	wsb_cmd_init(&c, (uid_t) -1, (gid_t) -1);
	wsb_cmd_add(&c, "%s", prog);
	wsb_cmd_add(&c, "-h");
	if (wsb_cmd_output(&c, &out) != 0)
	{
		wsb_cmd_free(&c);
		free(out);
		return false;
	}
	wsb_cmd_free(&c);
	/*
	 * "15 main 5432 online postgres /var/lib/postgresql/15/main /var/log/...":
	 * fields split on blanks, each taken whole (no width can cut a name and
	 * shift the fields after it); a field too long to keep is no match
	 */
	for (line = strtok_r(out, "\n", &save); line && !found; line = strtok_r(NULL, "\n", &save))
	{
		char	   *field[6],
				   *fsave = NULL,
					real[PATH_MAX];
		int			n = 0;

		for (char *f = strtok_r(line, " \t", &fsave); f && n < 6; f = strtok_r(NULL, " \t", &fsave))
			field[n++] = f;
		if (n < 6 || strlen(field[0]) >= sizeof(ctl->version) || strlen(field[1]) >= sizeof(ctl->name) ||
			(datadir_out && strlen(field[5]) >= outlen))
			continue;
		if (datadir)
			found = realpath(field[5], real) != NULL && strcmp(real, datadir) == 0;
		else
			found = strcmp(field[0], version) == 0 && strcmp(field[1], name) == 0;
		if (found)
		{
			ctl->kind = WSB_CTL_PG_CTLCLUSTER;
			wsb_strlcpy(ctl->version, field[0], sizeof(ctl->version));
			wsb_strlcpy(ctl->name, field[1], sizeof(ctl->name));
			if (datadir_out)
				wsb_strlcpy(datadir_out, field[5], outlen);
		}
	}
	free(out);
	return found;
}

/* The data directory of --cluster VERSION/NAME, from pg_lsclusters. */
int
wsb_control_cluster_datadir(const char *cluster, char *datadir, size_t len,
							char *err, size_t errlen)
{
	WsbController ctl;
	char		version[sizeof(ctl.version)],
				name[sizeof(ctl.name)];
	const char *slash = strchr(cluster, '/');

	/* whole: --cluster's parse (options.c) keeps to these sizes */
	snprintf(version, sizeof(version), "%.*s", (int) (slash - cluster), cluster);
	wsb_strlcpy(name, slash + 1, sizeof(name));
	if (!find_debian_cluster(&ctl, NULL, version, name, datadir, len))
	{
		snprintf(err, errlen, "--cluster %s: pg_lsclusters lists no cluster %s %s%s", cluster,
				 version, name,
				 access("/usr/bin/pg_lsclusters", X_OK) == 0 ? "" :
				 " (no pg_lsclusters: postgresql-common is not installed)");
		return -1;
	}
	return 0;
}

/*
 * The systemd unit the postmaster runs in, from its cgroup
 * (".../system.slice/postgresql@15-main.service"), where systemd runs.
 */
static bool
find_systemd_unit(pid_t postmaster, char *unit, size_t len)
{
	char		path[64];
	char	   *text,
			   *p,
			   *end;
	bool		found = false;

	if (access("/run/systemd/system", F_OK) != 0 || postmaster <= 0)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int) postmaster);
	text = wsb_read_file(path, NULL);
	if (text && (end = strstr(text, ".service")) != NULL)
	{
		for (p = end; p > text && p[-1] != '/'; p--)
			;
		/* a postgresql unit, not the user@.service of a login session */
		if (strncmp(p, "postgresql", 10) == 0 && (size_t) (end - p) + 8 < len)
		{
			snprintf(unit, len, "%.*s.service", (int) (end - p), p);
			found = true;
		}
	}
	free(text);
	return found;
}

/*
 * Where the running postmaster's standard error goes, if a regular file:
 * the log a plain pg_ctl -l gave it (/proc/PID/fd/2).
 */
static char *
postmaster_stderr_file(pid_t postmaster)
{
	char		fd[64];
	char		target[PATH_MAX];
	ssize_t		n;
	struct stat st;

	if (postmaster <= 0)
		return NULL;
	snprintf(fd, sizeof(fd), "/proc/%d/fd/2", (int) postmaster);
	n = readlink(fd, target, sizeof(target) - 1);
	if (n <= 0)
		return NULL;
	target[n] = '\0';
	if (target[0] != '/' || stat(target, &st) != 0 || !S_ISREG(st.st_mode))
		return NULL;
	return wsb_xstrdup(target);
}

/*
 * How the existing cluster at t->pgdata is managed.  postmaster: its pid
 * if running, else 0.  A plain cluster whose own log cannot be found logs
 * to PGDATA/wal_stall_bench.log while the harness starts it.
 */
void
wsb_control_find(WsbTarget *t, const WsbOptions *o, pid_t postmaster)
{
	WsbController *ctl = &t->ctl;

	memset(ctl, 0, sizeof(*ctl));
	ctl->kind = WSB_CTL_PG_CTL;
	if (o->service[0])
	{
		ctl->kind = WSB_CTL_SYSTEMD;
		wsb_strlcpy(ctl->unit, o->service, sizeof(ctl->unit));
	}
	else if (find_debian_cluster(ctl, t->pgdata, NULL, NULL, NULL, 0))
		;
	else if (find_systemd_unit(postmaster, ctl->unit, sizeof(ctl->unit)))
		ctl->kind = WSB_CTL_SYSTEMD;
	else if ((t->logfile = postmaster_stderr_file(postmaster)) == NULL)
	{
		/*
		 * pg_ctl -l opens it as the owner, and it must outlast the harness
		 * (a running server keeps writing to it): in the cluster's own
		 * directory, where only its owner writes, never in OUT.
		 */
		t->logfile = wsb_psprintf("%s/wal_stall_bench.log", t->pgdata);
	}
}

/* "pg_ctlcluster 15 main", "systemctl ... postgresql@15-main", "pg_ctl -D ...";
 * malloc'd */
char *
wsb_control_describe(const WsbTarget *t)
{
	switch (t->ctl.kind)
	{
		case WSB_CTL_PG_CTLCLUSTER:
			return wsb_psprintf("pg_ctlcluster %s %s", t->ctl.version, t->ctl.name);
		case WSB_CTL_SYSTEMD:
			return wsb_psprintf("systemctl (unit %s)", t->ctl.unit);
		default:
			return wsb_psprintf("pg_ctl -D %s", t->pgdata);
	}
}

/* The last line of text that holds marker ("FATAL:  "), cut at its end. */
static const char *
last_line_with(char *text, const char *marker)
{
	char	   *last = NULL;

	for (char *p = text; p && (p = strstr(p, marker)) != NULL; p++)
		last = p;
	if (last)
	{
		char	   *nl = strchr(last, '\n');

		if (nl)
			*nl = '\0';
	}
	return last;
}

/*
 * Start, stop or restart the server through its manager; waits until the
 * action is done (pg_ctl -w, pg_ctlcluster and systemctl wait anyway).
 * action is "start", "stop", "restart", or "immediate-stop": the last
 * resort when a stop failed, PostgreSQL's immediate shutdown (pg_ctl and
 * pg_ctlcluster -m immediate; systemd's SIGQUIT to the unit's main
 * process, the postmaster, which systemctl kill sends without waiting).
 * On failure err says why: the last FATAL line of the log or of the
 * manager's own output.
 */
int
wsb_control(WsbTarget *t, const char *action, char *err, size_t errlen)
{
	WsbCommand	c;
	char	   *out;
	char		prog[PATH_MAX];
	char	   *text;
	const char *why = NULL;
	bool		immediate = strcmp(action, "immediate-stop") == 0;
	bool		stopping = immediate || strcmp(action, "stop") == 0;
	pid_t		old = strcmp(action, "restart") == 0 ? wsb_control_postmaster_pid(t) : 0;
	char		where[PATH_MAX + 32];
	int			rc;

	if (immediate)
		action = "stop";

	/* pg_ctl runs as the owner, pg_ctlcluster and systemctl as root */
	out = wsb_psprintf("%s/%s.out",
					   t->ctl.kind == WSB_CTL_PG_CTL ? t->ownerdir : t->workdir,
					   t->ctl.kind == WSB_CTL_PG_CTL ? "pg_ctl" : "control");
	switch (t->ctl.kind)
	{
		case WSB_CTL_PG_CTLCLUSTER:
			/* it switches to the cluster's owner itself, and logs where it should */
			wsb_cmd_init(&c, (uid_t) -1, (gid_t) -1);
			wsb_cmd_add(&c, "%s", wsb_which("pg_ctlcluster", prog, sizeof(prog)) ? prog : "pg_ctlcluster");
			if (immediate)
				wsb_cmd_add(&c, "--mode=immediate");
			wsb_cmd_add(&c, "%s", t->ctl.version);
			wsb_cmd_add(&c, "%s", t->ctl.name);
			wsb_cmd_add(&c, "%s", action);
			break;
		case WSB_CTL_SYSTEMD:
			wsb_cmd_init(&c, (uid_t) -1, (gid_t) -1);
			wsb_cmd_add(&c, "%s", wsb_which("systemctl", prog, sizeof(prog)) ? prog : "systemctl");
			if (immediate)
			{
				wsb_cmd_add(&c, "kill");
				wsb_cmd_add(&c, "--kill-who=main");
				wsb_cmd_add(&c, "--signal=SIGQUIT");
			}
			else
				wsb_cmd_add(&c, "%s", action);
			wsb_cmd_add(&c, "%s", t->ctl.unit);
			break;
		default:
			wsb_cmd_init(&c, t->uid, t->gid);
			wsb_cmd_add(&c, "%s/pg_ctl", t->opts->bindir);
			wsb_cmd_add(&c, "-D");
			wsb_cmd_add(&c, "%s", t->pgdata);
			wsb_cmd_add(&c, "-w");
			wsb_cmd_add(&c, "-t");
			wsb_cmd_add(&c, "300");
			if (stopping || strcmp(action, "restart") == 0)
			{
				wsb_cmd_add(&c, "-m");
				wsb_cmd_add(&c, immediate ? "immediate" : "fast");
			}
			if (!stopping && t->logfile)
			{
				wsb_cmd_add(&c, "-l");
				wsb_cmd_add(&c, "%s", t->logfile);
			}
			wsb_cmd_add(&c, "%s", action);
			if (t->slow.active && !stopping)
				c.cgroup_procs = t->slow.cgroup_procs;
			break;
	}
	c.stdout_path = out;
	c.stdout_append = true;
	rc = wsb_cmd_run(&c);
	wsb_cmd_free(&c);
	if (rc == 0)
	{
		free(out);
		return 0;
	}
	if (!stopping && server_came_up(t, old, where, sizeof(where)))
	{
		char	   *how = wsb_control_describe(t);

		/* said even with --quiet: the manager's word was overruled */
		fprintf(stderr, "wal_stall_bench: %s %s exited %d but the server accepts connections on %s: "
				"going on\n", how, action, rc, where);
		free(how);
		free(out);
		return 0;
	}

	/* why: the server log's last FATAL, else the manager's own words */
	text = t->ctl.kind == WSB_CTL_PG_CTL && t->logfile ?
		wsb_read_file_of(t->logfile, t->uid, NULL) : NULL;
	if (text)
		why = last_line_with(text, "FATAL:  ");
	if (why == NULL)
	{
		free(text);
		text = wsb_read_file_of(out, t->uid, NULL);
		free(out);
		out = NULL;
		if (text)
		{
			why = last_line_with(text, "FATAL:  ");
			if (why == NULL && text[0])
			{
				size_t		n = strlen(text);

				while (n > 0 && text[n - 1] == '\n')
					text[--n] = '\0';
				why = strrchr(text, '\n') ? strrchr(text, '\n') + 1 : text;
			}
		}
	}
	{
		char	   *how = wsb_control_describe(t);
		bool		with_log = t->ctl.kind == WSB_CTL_PG_CTL && t->logfile;

		snprintf(err, errlen, "%s %s failed for \"%s\"%s%s%s%s%s", how,
				 action, t->pgdata, why ? ": " : "", why ? why : "",
				 with_log ? " (server log: " : "", with_log ? t->logfile : "", with_log ? ")" : "");
		free(how);
	}
	free(text);
	free(out);
	return -1;
}

/* Start the server, and remember that the harness started it. */
int
wsb_control_start(WsbTarget *t, char *err, size_t errlen)
{
	if (wsb_control(t, "start", err, errlen) != 0)
		return -1;
	t->started = true;
	return 0;
}

/*
 * Restart the server and connect again to the harness's database.  The
 * temporary cluster and a slowed one are stopped and started: the new
 * postmaster must enter the slow disk's cgroup.
 */
int
wsb_control_restart(WsbTarget *t, char *err, size_t errlen)
{
	if (t->conn)
	{
		PQfinish(t->conn);
		t->conn = NULL;
	}
	if (t->temporary || t->slow.active)
	{
		/* stop + start: the new postmaster must enter the cgroup */
		if (wsb_control(t, "stop", err, errlen) != 0)
			return -1;
		if (wsb_control_start(t, err, errlen) != 0)
			return -1;
	}
	else if (wsb_control(t, "restart", err, errlen) != 0)
		return -1;
	{
		char	   *how = wsb_control_describe(t);

		wsb_log("restarted the server (%s)", how);
		free(how);
	}
	return wsb_sql_connect(t, t->dbname, err, errlen);
}
