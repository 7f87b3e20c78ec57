/*-------------------------------------------------------------------------
 *
 * target.c
 *		wal_stall_bench: the cluster the runs go to: opened, described for
 *		the report, and left as it was found.
 *
 * Temporary cluster (default): initdb as the postgres user in a fresh
 * /tmp/wal_stall_bench.XXXXXX (/dev/shm with --in-memory, so that a run
 * meets no disk but a throttled one), reachable only over a Unix socket in
 * that directory; its postgresql.conf gets one line, include =
 * 'wal_stall_bench.conf', a file holding the harness's fixed settings
 * (wal_stall preloaded, track_wal_io_timing = on, the preset's conf lines).
 * Removed at the end.
 *
 * --pgdata: an existing local cluster, running or stopped (then started,
 * and stopped again at the end).  The runs use a database of their own,
 * wal_stall_bench, created and dropped by the harness.
 *
 * Settings change and are restored in settings.c; the server is started,
 * stopped and restarted in control.c; every query goes through sql.c.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <pwd.h>
#include <stdlib.h>
#include <poll.h>
#include <string.h>
#include <sys/file.h>
#include <sys/pidfd.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <libpq-fe.h>

#include "engine.h"
#include "expbuffer.h"
#include "experiment.h"
#include "sql.h"

/* ---------- opening and closing ---------- */

/* nftw: remove one entry, never following a link (FTW_PHYS) */
static int
rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void) sb;
	(void) flag;
	if (ftw->level > 0)
		remove(path);
	return 0;
}

/* Run as the cluster's owner: empty its directory (which stays). */
static int
empty_owner_dir(void *arg)
{
	const char *dir = arg;

	return nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

/*
 * Remove the work directory.  The owner's directory is emptied by a child
 * that is the owner: a tree another account can change under us is never
 * walked with root's rights (a directory swapped for a link between a
 * look and a remove would lead root elsewhere).  Root then removes its own
 * entries, which nobody else can change, one level deep: files, the
 * unmounted slow disk's mount point, the emptied owner's directory.
 */
static void
remove_workdir(void *arg)
{
	WsbTarget  *t = arg;
	DIR		   *d;
	int			fd;
	struct dirent *e;

	if (t->workdir[0] == '\0')
		return;
	if (t->ownerdir && wsb_run_as_user(t->uid, t->gid, empty_owner_dir, t->ownerdir) != 0)
		wsb_error("could not empty \"%s\" as its owner", t->ownerdir);
	fd = open(t->workdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	d = fd >= 0 ? fdopendir(fd) : NULL;
	if (d == NULL)
	{
		if (fd >= 0)
			close(fd);
		wsb_error("could not open the work directory \"%s\": %s", t->workdir, strerror(errno));
		return;
	}
	while ((e = readdir(d)) != NULL)
	{
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (unlinkat(fd, e->d_name, 0) != 0 &&
			(errno != EISDIR || unlinkat(fd, e->d_name, AT_REMOVEDIR) != 0))
			wsb_error("could not remove \"%s/%s\": %s", t->workdir, e->d_name, strerror(errno));
	}
	closedir(d);
	if (rmdir(t->workdir) != 0)
		wsb_error("could not remove the work directory \"%s\": %s", t->workdir, strerror(errno));
}

/*
 * The work directory is root's; the cluster's owner may search it through
 * its group (0710: reach its own directory, read script.sql) but neither
 * list nor change it.  What the owner writes (a temporary cluster's data
 * and socket, the logs of initdb, pg_ctl and pgbench) lives in workdir/owner,
 * the owner's; root reads files there only through wsb_read_file_of and
 * never writes there.  Run as the owner itself, the harness owns both.
 */
static int
make_owner_dir(WsbTarget *t, char *err, size_t errlen)
{
	char	   *dir = wsb_psprintf("%s/owner", t->workdir);

	if (mkdir(dir, 0700) != 0)
	{
		snprintf(err, errlen, "could not create \"%s\": %s", dir, strerror(errno));
		free(dir);
		return -1;
	}
	t->ownerdir = dir;
	if (t->uid == geteuid())
		return 0;
	if (chown(t->ownerdir, t->uid, t->gid) != 0 ||
		chown(t->workdir, geteuid(), t->gid) != 0 || chmod(t->workdir, 0710) != 0)
	{
		snprintf(err, errlen, "could not give \"%s\" to the cluster's owner: %s", t->ownerdir, strerror(errno));
		return -1;
	}
	return 0;
}

static int
unlink_path(void *path)
{
	return unlink(path);
}

/*
 * wal_stall's save file, when the harness preloaded wal_stall only for the
 * experiment: the last shutdown with wal_stall loaded wrote it, and a
 * server without wal_stall would keep it for good.  Only once the server
 * runs without wal_stall (restarted after the restore) or is stopped.
 */
static void
remove_save_file(WsbTarget *t)
{
	char	   *path;

	if (t->temporary || !t->added_wal_stall || !t->restore_ok)
		return;				/* still loaded, or another process's file */
	/* in the owner's directory: unlinked by the owner */
	path = wsb_psprintf("%s/pg_stat/wal_stall.stat", t->pgdata);
	if (access(path, F_OK) == 0 && wsb_run_as_user(t->uid, t->gid, unlink_path, path) == 0)
		wsb_note("removed \"%s\", written by wal_stall while the harness had it loaded", path);
	free(path);
}

/*
 * Restore settings, drop our database, stop the server if we started it.
 * Registered in the cleanup list before the first thing it undoes exists;
 * runs once, on every exit path.
 */
void
wsb_target_close(void *arg)
{
	WsbTarget  *t = arg;
	char		err[512];

	if (!t->temporary && (t->nchanged > 0 || t->created_db))
	{
		bool		undone = true;	/* everything the journal says is done */
		bool		said = false;	/* a message already named the journal */

		if ((t->conn == NULL || PQstatus(t->conn) != CONNECTION_OK) &&
			wsb_sql_connect(t, "postgres", err, sizeof(err)) != 0)
		{
			wsb_error("cannot restore the settings: %s", err);
			undone = false;
		}
		if (t->conn && t->nchanged > 0)
		{
			if (wsb_settings_restore(t, err, sizeof(err)) != 0)
			{
				wsb_error("%s; the statements in \"%s\" undo the changes", err, t->journal);
				undone = false;
				said = true;
			}
			else
				wsb_note("restored the settings of \"%s\"", t->pgdata);
		}
		if (t->conn && t->created_db)
		{
			if (strcmp(PQdb(t->conn), "postgres") != 0)
				wsb_sql_connect(t, "postgres", err, sizeof(err));
			if (t->conn == NULL ||
				wsb_sql_exec(t->conn, "DROP DATABASE IF EXISTS " WSB_DATABASE " WITH (FORCE)",
							 err, sizeof(err)) != 0)
			{
				wsb_error("could not drop database " WSB_DATABASE ": %s", err);
				undone = false;
			}
		}
		/* aged databases the cleanup could not drop: the journal names them */
		if (t->aged_databases[0] != NULL)
			undone = false;
		t->restore_ok = undone;
		/* the journal stays where its message pointed until it is done */
		if (undone && t->journal)
			unlink(t->journal);
		else if (t->journal && !said)
			wsb_error("to finish undoing the harness's changes, run the statements in \"%s\" "
					  "as its first lines say", t->journal);
	}
	if (t->conn)
	{
		PQfinish(t->conn);
		t->conn = NULL;
	}
	if (t->started && (t->temporary || !t->was_running))
	{
		/* a stop that failed is tried once more, in immediate mode */
		if (wsb_control(t, "stop", err, sizeof(err)) != 0)
			wsb_control(t, "immediate-stop", err, sizeof(err));
		t->started = false;
	}
	remove_save_file(t);
}

static int
run_as_owner(WsbTarget *t, const char *what, const char *log, char *err, size_t errlen,
			 WsbCommand *c)
{
	int			rc;

	c->stdout_path = log;
	c->stdout_append = true;
	rc = wsb_cmd_run(c);
	wsb_cmd_free(c);
	if (rc != 0)
	{
		/*
		 * The log goes with the work directory: its last line says why,
		 * but for what initdb and pgbench print after their error.
		 */
		static const char *const after_error[] = {"initdb: removing", "initdb: hint:",
		"pgbench: hint:", NULL};
		char	   *text = wsb_read_file_of(log, t->uid, NULL);
		char	   *line = text ? wsb_last_line(text, after_error) : NULL;

		snprintf(err, errlen, "%s failed (exit status %d)%s%s", what, rc,
				 line ? ": " : "", line ? line : "");
		free(text);
		return -1;
	}
	return 0;
}

static int
pgbench_init(WsbTarget *t, const WsbOptions *o, char *err, size_t errlen)
{
	WsbCommand	c;
	char	   *log;
	char		port[16];
	int			rc;

	snprintf(port, sizeof(port), "%d", t->port);
	wsb_cmd_init(&c, t->uid, t->gid);
	wsb_cmd_add(&c, "%s/pgbench", o->bindir);
	wsb_cmd_add(&c, "-i");
	wsb_cmd_add(&c, "-q");
	wsb_cmd_add(&c, "-s");
	wsb_cmd_add(&c, "%d", o->scale);
	if (o->pgbench_init_args[0])
	{
		char		buf[256];
		char	   *save = NULL;

		wsb_strlcpy(buf, o->pgbench_init_args, sizeof(buf));
		for (char *a = strtok_r(buf, " \t", &save); a; a = strtok_r(NULL, " \t", &save))
			wsb_cmd_add(&c, "%s", a);
	}
	wsb_cmd_add(&c, "-h");
	wsb_cmd_add(&c, "%s", t->sockdir);
	wsb_cmd_add(&c, "-p");
	wsb_cmd_add(&c, "%s", port);
	wsb_cmd_add(&c, "-U");
	wsb_cmd_add(&c, "%s", getenv("PGUSER") && *getenv("PGUSER") ? getenv("PGUSER") : t->owner);
	wsb_cmd_add(&c, "%s", t->dbname);
	wsb_note("pgbench -i -s %d", o->scale);
	log = wsb_psprintf("%s/pgbench_init.log", t->ownerdir);
	rc = run_as_owner(t, "pgbench -i", log, err, errlen, &c);
	free(log);
	return rc;
}

/*
 * Before the disk is slowed, pg_wal gets the segments a run on it may
 * need (wsb_wal_segments_ahead): each pg_switch_wal() after a commit
 * record moves to a new segment, created at full speed, and the CHECKPOINT
 * then recycles the passed ones under future names, which min_wal_size
 * (written with the cluster's settings) keeps.  Said with the count found.
 */
static int
make_wal_ahead(WsbTarget *t, const WsbOptions *o, char *err, size_t errlen)
{
	int			n = wsb_wal_segments_ahead(o);
	char		count[32];

	if (n == 0)
		return 0;
	for (int i = 0; i < n; i++)
		if (wsb_sql_exec(t->conn, "SELECT pg_catalog.txid_current()", err, errlen) != 0 ||
			wsb_sql_exec(t->conn, "SELECT pg_catalog.pg_switch_wal()", err, errlen) != 0)
			return -1;
	if (wsb_sql_exec(t->conn, "CHECKPOINT", err, errlen) != 0 ||
		wsb_sql_value(t->conn, "SELECT pg_catalog.count(*) FROM pg_catalog.pg_ls_waldir() "
					  "WHERE name OPERATOR(pg_catalog.~) '^[0-9A-F]{24}$'::pg_catalog.text",
					  NULL, count, sizeof(count), err, errlen) != 0)
		return -1;
	wsb_note("pg_wal: %s segments of %d MB before the disk is slowed (%d made ahead, min_wal_size "
			 "%d MB): runs recycle them instead of zero-filling new ones on the slow disk",
			 count, WSB_WAL_SEGMENT_MB, n, n * WSB_WAL_SEGMENT_MB);
	return 0;
}

/* The harness's fixed settings: wal_stall loaded, WAL I/O timed, preset. */
static int
base_settings(WsbTarget *t, const WsbOptions *o, char names[][WSB_NAME_LEN],
			  char values[][WSB_VALUE_LEN], char *err, size_t errlen)
{
	int			n = 0;
	char		spl[WSB_VALUE_LEN] = "";
	char	   *conf = wsb_xstrdup(o->extra_conf),
			   *line,
			   *save = NULL;

	if (!t->temporary)
	{
		if (wsb_target_preload_libraries(t, spl, sizeof(spl), err, errlen) != 0)
		{
			free(conf);
			return -1;
		}
		if (strstr(spl, "wal_stall") == NULL)
		{
			strcpy(names[n], "shared_preload_libraries");
			snprintf(values[n++], WSB_VALUE_LEN, "%s%swal_stall", spl, *spl ? "," : "");
		}
		strcpy(names[n], "track_wal_io_timing");
		strcpy(values[n++], "on");
	}
	for (line = strtok_r(conf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
	{
		char	   *eq = strchr(line, '='),
				   *v;

		if (eq == NULL || n >= WSB_MAX_SETS)
			continue;
		*eq = '\0';
		v = wsb_trim(eq + 1);
		if (*v == '\'' && strlen(v) >= 2 && v[strlen(v) - 1] == '\'')
		{
			v[strlen(v) - 1] = '\0';
			v++;
		}
		wsb_strlcpy(names[n], wsb_trim(line), WSB_NAME_LEN);
		wsb_strlcpy(values[n], v, WSB_VALUE_LEN);
		/* a preset conf line replaces our default of the same name */
		for (int j = 0; j < n; j++)
			if (strcasecmp(names[j], names[n]) == 0)
			{
				memmove(values[j], values[n], WSB_VALUE_LEN);
				n--;
				break;
			}
		n++;
	}
	free(conf);
	return n;
}

/* What write_as_owner's child writes: text into path, appended or anew. */
typedef struct OwnerWrite
{
	const char *path;
	const char *text;
	bool		append;
} OwnerWrite;

static int
owner_write(void *arg)
{
	const OwnerWrite *w = arg;
	int			fd = open(w->path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC |
						  (w->append ? O_APPEND : O_TRUNC), 0600);
	size_t		len = strlen(w->text);

	if (fd < 0)
		return -1;
	if (write(fd, w->text, len) != (ssize_t) len)
	{
		close(fd);
		return -1;
	}
	return close(fd);
}

/*
 * Write a file in the cluster's directory, which is its owner's: as the
 * owner, so that nothing planted there makes root write elsewhere.  0, or
 * -1 with err.
 */
static int
write_in_pgdata(const WsbTarget *t, const char *name, const char *text, bool append,
				char *err, size_t errlen)
{
	char	   *path = wsb_psprintf("%s/%s", t->pgdata, name);
	OwnerWrite	w;
	int			rc = 0;

	w.path = path;
	w.text = text;
	w.append = append;
	if (wsb_run_as_user(t->uid, t->gid, owner_write, &w) != 0)
	{
		snprintf(err, errlen, "could not write \"%s\" as user \"%s\"", path, t->owner);
		rc = -1;
	}
	free(path);
	return rc;
}

static int
open_temporary(WsbTarget *t, const WsbOptions *o, char *err, size_t errlen)
{
	struct passwd *pw;
	WsbCommand	c;
	char	   *log;
	int			rc;

	t->temporary = true;
	if (geteuid() == 0)
	{
		pw = getpwnam("postgres");
		if (pw == NULL)
		{
			snprintf(err, errlen, "no user \"postgres\" to run the temporary cluster as (initdb refuses root)");
			return -1;
		}
	}
	else
		pw = getpwuid(geteuid());
	t->uid = pw->pw_uid;
	t->gid = pw->pw_gid;
	wsb_strlcpy(t->owner, pw->pw_name, sizeof(t->owner));
	if (make_owner_dir(t, err, errlen) != 0)
		return -1;

	if (wsb_slowdisk_setup(&t->slow, o, t->workdir, t->uid, t->gid, err, errlen) != 0)
		return -1;
	/* registered after the slow disk's cleanups, so it runs before them */
	t->cleanup_handle = wsb_cleanup_push("server", wsb_target_close, t);

	t->pgdata = wsb_psprintf("%s/data",
							 t->slow.active && o->slow_disk_iops ? t->slow.mountpoint : t->ownerdir);
	t->sockdir = wsb_xstrdup(t->ownerdir);
	t->port = 5432;				/* the socket is in our own directory */
	strcpy(t->dbname, "postgres");

	wsb_cmd_init(&c, t->uid, t->gid);
	wsb_cmd_add(&c, "%s/initdb", o->bindir);
	wsb_cmd_add(&c, "-D");
	wsb_cmd_add(&c, "%s", t->pgdata);
	wsb_cmd_add(&c, "-A");
	wsb_cmd_add(&c, "trust");
	wsb_cmd_add(&c, "-N");		/* the cluster is thrown away */
	if (t->slow.active && o->slow_wal_iops)
	{
		wsb_cmd_add(&c, "-X");
		wsb_cmd_add(&c, "%s/pg_wal", t->slow.mountpoint);
	}
	wsb_note("initdb in %s", t->workdir);
	log = wsb_psprintf("%s/initdb.log", t->ownerdir);
	rc = run_as_owner(t, "initdb", log, err, errlen, &c);
	free(log);
	if (rc != 0)
		return -1;

	{
		bool		varied = false;
		char	   *conf;
		int			rc;

		/* a --set of it decides alone, so that '' can mean empty */
		for (int i = 0; i < o->nsets; i++)
			varied |= strcasecmp(o->sets[i].name, "shared_preload_libraries") == 0;
		char		min_wal[64] = "";
		int			ahead = wsb_wal_segments_ahead(o);

		/* keeps the segments made ahead for recycling (make_wal_ahead) */
		if (ahead > 0)
			snprintf(min_wal, sizeof(min_wal), "min_wal_size = %dMB\n", ahead * WSB_WAL_SEGMENT_MB);
		if (asprintf(&conf, "# written by wal_stall_bench for this temporary cluster\n"
					 "port = %d\nlisten_addresses = ''\nunix_socket_directories = '%s'\n"
					 "%strack_wal_io_timing = on\nmax_wal_size = 4GB\n%s%s",
					 t->port, t->sockdir,
					 varied ? "" : "shared_preload_libraries = 'wal_stall'\n", min_wal,
					 o->extra_conf) < 0)
		{
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		rc = write_in_pgdata(t, "wal_stall_bench.conf", conf, false, err, errlen);
		free(conf);
		if (rc != 0 ||
			write_in_pgdata(t, "postgresql.conf", "\ninclude = 'wal_stall_bench.conf'\n", true,
							err, errlen) != 0)
			return -1;
	}

	t->logfile = wsb_psprintf("%s/server.log", t->ownerdir);
	if (wsb_control_start(t, err, errlen) != 0)
		return -1;
	if (wsb_sql_connect(t, t->dbname, err, errlen) != 0)
		return -1;
	if (pgbench_init(t, o, err, errlen) != 0)
		return -1;
	if (wsb_sql_exec(t->conn, "CREATE EXTENSION IF NOT EXISTS wal_stall SCHEMA public", err, errlen) != 0 ||
		make_wal_ahead(t, o, err, errlen) != 0)
		return -1;
	/* pgbench -i ran at full speed, and so did make_wal_ahead; from here on the disk is slow */
	return wsb_slowdisk_throttle(&t->slow, o, err, errlen);
}

/*
 * The database the runs use on a --pgdata cluster: wal_stall_bench, made
 * by the harness now, so that pgbench -i touches none of the user's tables
 * and the harness, a superuser, runs only among objects it made itself.
 *
 * A database of that name that is already there is refused, whoever owns
 * it: any role with CREATEDB can make one and put in it a function that a
 * superuser's call would run (an overload in public that matches a literal
 * better than wal_stall's own).  The new one is copied from template0,
 * which nobody can change, and nobody else may connect to it: it is created
 * closed to connections, CONNECT and TEMP are revoked from PUBLIC, and only
 * then is it opened, so there is no moment at which another role could get
 * in.  Before PostgreSQL 15 everybody may create in public: revoked too.
 */
static int
create_own_database(WsbTarget *t, char *err, size_t errlen)
{
	WsbRows		r;

	if (wsb_sql_rows(t->conn,
					 "SELECT pg_catalog.pg_get_userbyid(datdba) AS owner FROM pg_catalog.pg_database "
					 "WHERE datname = '" WSB_DATABASE "'::pg_catalog.name",
					 0, NULL, &r, err, errlen) != 0)
		return -1;
	if (r.nrows > 0)
	{
		snprintf(err, errlen,
				 "database \"" WSB_DATABASE "\" already exists in the cluster at \"%s\" (owner \"%s\"); "
				 "the harness runs as a superuser only in a database it creates itself, and another "
				 "role's objects there could run with its privileges.  If a killed run left it, "
				 "run that run's restore.sql, or drop it: DROP DATABASE " WSB_DATABASE,
				 t->pgdata, wsb_rows_get(&r, 0, "owner") ? wsb_rows_get(&r, 0, "owner") : "?");
		wsb_rows_free(&r);
		return -1;
	}
	wsb_rows_free(&r);

	t->created_db = true;		/* before: the journal then says to drop it */
	if (wsb_settings_journal(t) != 0)
	{
		snprintf(err, errlen, "could not write the restore journal \"%s\": %s", t->journal, strerror(errno));
		t->created_db = false;
		return -1;
	}
	if (wsb_sql_exec(t->conn, "CREATE DATABASE " WSB_DATABASE " TEMPLATE template0 ALLOW_CONNECTIONS false",
					 err, errlen) != 0)
	{
		t->created_db = false;
		return -1;
	}
	if (wsb_sql_exec(t->conn, "REVOKE ALL ON DATABASE " WSB_DATABASE " FROM PUBLIC", err, errlen) != 0 ||
		wsb_sql_exec(t->conn, "ALTER DATABASE " WSB_DATABASE " ALLOW_CONNECTIONS true", err, errlen) != 0)
		return -1;
	strcpy(t->dbname, WSB_DATABASE);
	if (wsb_sql_connect(t, t->dbname, err, errlen) != 0)
		return -1;
	if (wsb_sql_exec(t->conn, "REVOKE CREATE ON SCHEMA public FROM PUBLIC", err, errlen) != 0 ||
		wsb_sql_exec(t->conn, "CREATE EXTENSION wal_stall SCHEMA public", err, errlen) != 0)
		return -1;
	return 0;
}

/*
 * Other clients on the server: the harness restarts it and resets its WAL
 * statistics and wal_stall's figures, which they would notice.  Refused
 * unless --yes, with who they are.
 */
static int
other_clients(WsbTarget *t, char *err, size_t errlen)
{
	WsbRows		r;

	if (wsb_sql_rows(t->conn,
					 "SELECT pg_catalog.count(*) AS n, "
					 "pg_catalog.string_agg(DISTINCT COALESCE(usename::pg_catalog.text, '?') "
					 "|| '@' || COALESCE(datname::pg_catalog.text, '?'), ', ') AS who "
					 "FROM pg_catalog.pg_stat_activity "
					 "WHERE backend_type = 'client backend' AND pid <> pg_catalog.pg_backend_pid()",
					 0, NULL, &r, err, errlen) != 0)
		return -1;
	if (wsb_rows_double(&r, 0, "n", 0) > 0)
	{
		snprintf(err, errlen, "the cluster at \"%s\" has %.0f other client connection(s) (%s): the "
				 "harness restarts the server when a setting needs it and resets pg_stat_wal and "
				 "wal_stall's figures before every run; pass --yes to go ahead anyway",
				 t->pgdata, wsb_rows_double(&r, 0, "n", 0),
				 wsb_rows_get(&r, 0, "who") ? wsb_rows_get(&r, 0, "who") : "");
		wsb_rows_free(&r);
		return -1;
	}
	wsb_rows_free(&r);
	return 0;
}

/*
 * The names restore.sql prints in its comment lines and in the command
 * that root pastes into a shell: one with a control character (the
 * owner names the socket directory) is refused before any change.
 */
static int
refuse_unprintable(const WsbTarget *t, char *err, size_t errlen)
{
	const char *what[] = {"data directory", "socket directory", "owner", "user", "OUT directory"};
	const char *name[] = {t->pgdata, t->sockdir, t->owner, PQuser(t->conn), t->journal};

	for (int i = 0; i < 5; i++)
		if (!wsb_journal_printable(name[i]))
		{
			snprintf(err, errlen, "cannot use the cluster at \"%s\": the name of its %s holds a "
					 "control character, which restore.sql could not print safely", t->pgdata, what[i]);
			return -1;
		}
	return 0;
}

/* Before the first change: what the harness will do to this server. */
static void
say_plan(const WsbTarget *t, const WsbOptions *o)
{
	char	   *how = wsb_control_describe(t);
	PQExpBufferData list;
	const char *names;

	initPQExpBuffer(&list);
	for (int i = 0; i < o->nsets; i++)
		appendPQExpBuffer(&list, "%s%s", i ? ", " : "", o->sets[i].name);
	names = wsb_buffer_text(&list);
	wsb_note("on the cluster at \"%s\": database " WSB_DATABASE " created and dropped; "
			 "pg_stat_wal and wal_stall's figures reset before every run; settings changed with "
			 "ALTER SYSTEM only (%strack_wal_io_timing%s%s) and restored at the end; restarts "
			 "through %s where a setting needs one%s; left %s as found", t->pgdata,
			 t->added_wal_stall ? "shared_preload_libraries, " : "", *names ? ", " : "", names,
			 how,
			 t->added_wal_stall ? "; wal_stall preloaded for the experiment only (its save file "
			 "removed at the end)" : "", t->was_running ? "running" : "stopped");
	if (t->journal)
		wsb_note("should this harness be killed, %s undoes its changes (its first lines say how)",
				 t->journal);
	termPQExpBuffer(&list);
	free(how);
}

static int
open_existing(WsbTarget *t, const WsbOptions *o, char *err, size_t errlen)
{
	struct stat st;
	struct passwd *pw;
	WsbCommand	c;
	char		names[WSB_MAX_SETS][WSB_NAME_LEN];
	char		values[WSB_MAX_SETS][WSB_VALUE_LEN];
	char		v[64];
	int			n,
				rc;

	t->temporary = false;
	stat(t->pgdata, &st);
	t->uid = st.st_uid;
	t->gid = st.st_gid;
	pw = getpwuid(st.st_uid);
	wsb_strlcpy(t->owner, pw ? pw->pw_name : "postgres", sizeof(t->owner));
	if (make_owner_dir(t, err, errlen) != 0)
		return -1;
	t->cleanup_handle = wsb_cleanup_push("server", wsb_target_close, t);

	/* pg_ctl status: 0 running, 3 not running */
	wsb_cmd_init(&c, t->uid, t->gid);
	wsb_cmd_add(&c, "%s/pg_ctl", o->bindir);
	wsb_cmd_add(&c, "-D");
	wsb_cmd_add(&c, "%s", t->pgdata);
	wsb_cmd_add(&c, "status");
	rc = wsb_cmd_run(&c);
	wsb_cmd_free(&c);
	if (rc != 0 && rc != 3)
	{
		snprintf(err, errlen, "pg_ctl status failed for \"%s\" (exit status %d)", t->pgdata, rc);
		return -1;
	}
	t->was_running = rc == 0;
	wsb_control_find(t, o, t->was_running ? wsb_control_postmaster_pid(t) : 0);
	if (!t->was_running)
	{
		char	   *how = wsb_control_describe(t);

		wsb_note("starting the stopped cluster at \"%s\" with %s (stopped again at the end)",
				 t->pgdata, how);
		free(how);
		if (wsb_control_start(t, err, errlen) != 0)
			return -1;
	}
	if (wsb_control_read_socket(t, err, errlen) != 0)
		return -1;
	if (wsb_sql_connect(t, "postgres", err, errlen) != 0)
		return -1;
	if (!o->yes && other_clients(t, err, errlen) != 0)
		return -1;
	if (wsb_sql_value(t->conn, "SELECT rolsuper::pg_catalog.text FROM pg_catalog.pg_roles "
					  "WHERE rolname = CURRENT_USER",
					  NULL, v, sizeof(v), err, errlen) != 0 || strcmp(v, "true") != 0)
	{
		snprintf(err, errlen, "user \"%s\" of the cluster at \"%s\" is not a superuser (set PGUSER)",
				 PQuser(t->conn), t->pgdata);
		return -1;
	}
	t->journal = wsb_psprintf("%s/restore.sql", o->out);
	if (refuse_unprintable(t, err, errlen) != 0)
		return -1;
	if (wsb_settings_read_auto_conf(t, err, errlen) != 0)
		return -1;
	n = base_settings(t, o, names, values, err, errlen);
	if (n < 0 || wsb_settings_check_restorable(t, n, names, err, errlen) != 0)
		return -1;

	if (create_own_database(t, err, errlen) != 0)
		return -1;
	for (int i = 0; i < n; i++)
		t->added_wal_stall |= strcasecmp(names[i], "shared_preload_libraries") == 0;
	say_plan(t, o);
	if (wsb_settings_apply(t, n, names, values, err, errlen) != 0)
		return -1;
	return pgbench_init(t, o, err, errlen);
}

/* ---------- what a killed harness left ---------- */

/*
 * Does the process behind pidfd (pid when it was opened) belong to owner
 * and have dir as its working directory?  Read after the pidfd is open, so
 * that a pid reused since names a process the pidfd does not signal.
 */
static bool
process_runs_in(pid_t pid, uid_t owner, const char *dir)
{
	char	   *proc = wsb_psprintf("/proc/%d", (int) pid);
	char	   *cwd = wsb_psprintf("/proc/%d/cwd", (int) pid);
	char		target[PATH_MAX];
	char	   *real = realpath(dir, NULL);
	ssize_t		n = readlink(cwd, target, sizeof(target) - 1);
	struct stat st;
	bool		same = false;

	if (n > 0 && real != NULL && stat(proc, &st) == 0 && st.st_uid == owner)
	{
		target[n] = '\0';
		same = strcmp(target, real) == 0;
	}
	free(real);
	free(proc);
	free(cwd);
	return same;
}

/* Wait up to seconds for the process behind pidfd to end: true if it did. */
static bool
wait_pidfd(int pidfd, double seconds)
{
	struct pollfd p = {.fd = pidfd,.events = POLLIN};

	return poll(&p, 1, (int) (seconds * 1000)) == 1;
}

/*
 * Stop the server a killed harness left running on the data directory
 * data.  The pid in its postmaster.pid (read as a file of its owner's) is
 * opened as a pidfd, then checked to be the owner's process working in
 * that directory, as a postmaster does, and only that process is signalled:
 * SIGQUIT, an immediate shutdown, and SIGKILL if it lives 10 s later.
 * 0: no server there, 1: stopped, -1: one is there and would not stop.
 */
static int
stop_left_server(const char *data, uid_t owner)
{
	char	   *pidfile = wsb_psprintf("%s/postmaster.pid", data);
	char	   *text = wsb_read_file_of(pidfile, owner, NULL);
	pid_t		pid = text ? (pid_t) atol(text) : 0;
	int			pidfd = pid > 1 ? pidfd_open(pid, 0) : -1;
	int			rc = 0;

	free(pidfile);
	free(text);
	if (pidfd < 0)
		return 0;
	if (process_runs_in(pid, owner, data))
	{
		rc = 1;
		if (pidfd_send_signal(pidfd, SIGQUIT, NULL, 0) == 0 && !wait_pidfd(pidfd, 10) &&
			(pidfd_send_signal(pidfd, SIGKILL, NULL, 0) != 0 || !wait_pidfd(pidfd, 5)))
			rc = -1;
	}
	close(pidfd);
	return rc;
}

/*
 * Undo what the killed harness left in its work directory w, as its
 * cleanups would have: the server, the slow disk, then the directory and
 * its harness.pid, unless the server or the slow disk would not go (then
 * the directory stays, for a later start or for hand).  The caller holds
 * harness.pid's lock; pid, the dead harness's, is for the message.
 */
static void
sweep_workdir(const char *w, const char *pid)
{
	WsbTarget	t;
	PQExpBufferData done;
	struct stat st;
	char	   *ownerdir = wsb_psprintf("%s/owner", w);
	bool		ok = true;

	memset(&t, 0, sizeof(t));
	initPQExpBuffer(&done);
	wsb_strlcpy(t.workdir, w, sizeof(t.workdir));
	if (lstat(ownerdir, &st) == 0 && S_ISDIR(st.st_mode))
	{
		/* the data directory: the owner's, or on the slow disk (--slow-disk) */
		char	   *datadirs[2];

		datadirs[0] = wsb_psprintf("%s/data", ownerdir);
		datadirs[1] = wsb_psprintf("%s/slow_disk/data", w);
		t.ownerdir = ownerdir;
		t.uid = st.st_uid;
		t.gid = st.st_gid;
		for (int i = 0; i < 2; i++)
		{
			int			stopped = stop_left_server(datadirs[i], t.uid);

			if (stopped > 0)
				appendPQExpBuffer(&done, ", the server on %s stopped", datadirs[i]);
			ok &= stopped >= 0;
			free(datadirs[i]);
		}
	}
	ok = ok && wsb_slowdisk_sweep(w, &done);
	/* said even with --quiet: root changed the machine */
	if (ok)
	{
		remove_workdir(&t);
		fprintf(stderr, "wal_stall_bench: wal_stall_bench %s was killed and left %s: undone%s, "
				"the directory removed\n", pid, w, done.data);
	}
	else
		fprintf(stderr, "wal_stall_bench: wal_stall_bench %s was killed and left %s: undone%s; "
				"its server or slow disk would not go, so the directory stays\n", pid, w, done.data);
	termPQExpBuffer(&done);
	free(ownerdir);
}

/*
 * At the start, before making anything: the work directories of harnesses
 * that were killed (SIGKILL, a crash) on a temporary cluster and could not
 * clean up.  A live harness holds an exclusive lock on its harness.pid for
 * as long as it runs, which no child inherits and which its death releases,
 * so the lock, not the pid, tells a dead harness's directory (and keeps two
 * starts from sweeping one).  Swept only when it is a real directory of
 * ours that nobody else may write in, and its harness.pid a regular file
 * of ours whose lock we get.  A --pgdata harness's directory has no
 * harness.pid: its restore.sql undoes what it did, and names the directory.
 */
/*
 * A parent of work directories that no other account can rename in: a
 * directory (not a link) of root's, sticky or not writable by others, as
 * mkdtemp and the sweep need it.
 */
static bool
parent_is_safe(const char *parent, struct stat *st)
{
	return lstat(parent, st) == 0 && S_ISDIR(st->st_mode) && st->st_uid == 0 &&
		(!(st->st_mode & (S_IWGRP | S_IWOTH)) || (st->st_mode & S_ISVTX));
}

static void
sweep_killed_harnesses_in(const char *parent)
{
	struct stat pst;
	DIR		   *tmp = parent_is_safe(parent, &pst) ? opendir(parent) : NULL;
	struct dirent *e;

	while (tmp && (e = readdir(tmp)) != NULL)
	{
		char	   *w;
		char	   *pidfile;
		char		pid[32] = "";
		struct stat st;
		int			fd = -1;

		if (strncmp(e->d_name, "wal_stall_bench.", 16) != 0 || strlen(e->d_name) != 22)
			continue;
		w = wsb_psprintf("%s/%s", parent, e->d_name);
		pidfile = wsb_psprintf("%s/harness.pid", w);
		if (lstat(w, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
			(st.st_mode & 022) == 0)
			fd = open(pidfile, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
			flock(fd, LOCK_EX | LOCK_NB) == 0)
		{
			ssize_t		n = read(fd, pid, sizeof(pid) - 1);

			pid[n > 0 ? n : 0] = '\0';
			pid[strcspn(pid, " \n")] = '\0';
			sweep_workdir(w, pid);
		}
		if (fd >= 0)
			close(fd);
		free(pidfile);
		free(w);
	}
	if (tmp)
		closedir(tmp);
}

/* Where a work directory may be: /tmp, or /dev/shm with --in-memory. */
static const char *const workdir_parents[] = {"/tmp", "/dev/shm"};

static void
sweep_killed_harnesses(void)
{
	for (size_t i = 0; i < sizeof(workdir_parents) / sizeof(workdir_parents[0]); i++)
		sweep_killed_harnesses_in(workdir_parents[i]);
}

/*
 * /dev/shm for --in-memory, checked as mkdtemp needs it: a directory (not
 * a link) of root's that others may not rename in (sticky, or not
 * writable by them), with room for the cluster: pgbench's tables at about
 * 16 MB per unit of scale, and a gigabyte for WAL, the catalogs and the
 * loop devices' files (sparse: filled as their file systems are written).
 */
static int
check_memory_parent(const WsbOptions *o, char *err, size_t errlen)
{
	const char *parent = workdir_parents[1];
	struct stat st;
	struct statvfs vfs;
	unsigned long long need = (1024ULL + 16ULL * o->scale) << 20;
	unsigned long long avail;

	if (!parent_is_safe(parent, &st))
	{
		snprintf(err, errlen, "--in-memory: \"%s\" is not a directory of root's that others may "
				 "not rename in (it needs the sticky bit, as /tmp has)", parent);
		return -1;
	}
	if (statvfs(parent, &vfs) != 0)
	{
		snprintf(err, errlen, "--in-memory: could not read the free space of \"%s\": %s", parent,
				 strerror(errno));
		return -1;
	}
	avail = (unsigned long long) vfs.f_bavail * vfs.f_frsize;
	if (avail < need)
	{
		snprintf(err, errlen, "--in-memory: \"%s\" has %llu MB free, and a cluster at scale %d "
				 "needs about %llu MB", parent, avail >> 20, o->scale, need >> 20);
		return -1;
	}
	return 0;
}

/*
 * A fresh work directory in parent whose name no directory in the other
 * parent has: the cgroup of --slow-wal is named as it, and the sweep finds
 * a cgroup by that name alone.
 */
static int
make_workdir(WsbTarget *t, const char *parent, char *err, size_t errlen)
{
	for (int attempt = 0; attempt < 10; attempt++)
	{
		bool		twin = false;
		struct stat st;

		snprintf(t->workdir, sizeof(t->workdir), "%s/wal_stall_bench.XXXXXX", parent);
		if (mkdtemp(t->workdir) == NULL)
		{
			snprintf(err, errlen, "could not create a work directory in %s: %s", parent, strerror(errno));
			t->workdir[0] = '\0';
			return -1;
		}
		for (size_t i = 0; i < sizeof(workdir_parents) / sizeof(workdir_parents[0]); i++)
		{
			char	   *other = wsb_psprintf("%s/%s", workdir_parents[i], strrchr(t->workdir, '/') + 1);

			twin |= strcmp(other, t->workdir) != 0 && lstat(other, &st) == 0;
			free(other);
		}
		if (!twin)
			return 0;
		rmdir(t->workdir);
	}
	snprintf(err, errlen, "could not create a work directory in %s whose name is not taken in the other", parent);
	t->workdir[0] = '\0';
	return -1;
}

/*
 * harness.pid in the work directory: our pid, under an exclusive lock held
 * until we exit (the descriptor is never closed, and not inherited).
 */
static int
write_harness_pid(const char *workdir, char *err, size_t errlen)
{
	char	   *path = wsb_psprintf("%s/harness.pid", workdir);
	int			fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	char		line[32];
	int			len = snprintf(line, sizeof(line), "%d\n", (int) getpid());

	if (fd < 0 || flock(fd, LOCK_EX) != 0 || write(fd, line, len) != len)
	{
		snprintf(err, errlen, "could not write \"%s\": %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		free(path);
		return -1;
	}
	free(path);
	return 0;
}

/*
 * Open the target: checks, then the work directory, then the cluster.
 * Every resource is in the cleanup list before it is made.
 */
int
wsb_target_open(WsbTarget *t, const WsbOptions *o, WsbEnvironment *env, char *err, size_t errlen)
{
	char		datadir[PATH_MAX];

	memset(t, 0, sizeof(*t));
	t->opts = o;
	wsb_strlcpy(datadir, o->pgdata, sizeof(datadir));
	if (o->cluster[0] &&
		wsb_control_cluster_datadir(o->cluster, datadir, sizeof(datadir), err, errlen) != 0)
		return -1;
	if (datadir[0])
	{
		char	   *pv;
		bool		found;
		struct stat st;

		errno = 0;
		if ((t->pgdata = realpath(datadir, NULL)) == NULL || stat(t->pgdata, &st) != 0 || !S_ISDIR(st.st_mode))
		{
			snprintf(err, errlen, "cannot use --pgdata \"%s\": %s", datadir,
					 errno ? strerror(errno) : "not a directory");
			return -1;
		}
		pv = wsb_psprintf("%s/PG_VERSION", t->pgdata);
		found = access(pv, R_OK) == 0;
		free(pv);
		if (!found)
		{
			pv = wsb_psprintf("%s/postgresql.conf", t->pgdata);
			found = access(pv, R_OK) == 0;
			free(pv);
			if (found && strncmp(t->pgdata, "/etc/postgresql/", 16) == 0)
				snprintf(err, errlen, "cannot use --pgdata \"%s\": it holds a Debian cluster's "
						 "configuration, not its data (pg_lsclusters lists the data directory); "
						 "name the cluster with --cluster VERSION/NAME, e.g. --cluster %.60s",
						 datadir, t->pgdata + 16);
			else
				snprintf(err, errlen, "cannot use --pgdata \"%s\": not a PostgreSQL data directory (no PG_VERSION)", datadir);
			return -1;
		}
		if (geteuid() != 0 && geteuid() != st.st_uid)
		{
			snprintf(err, errlen, "cannot use --pgdata \"%s\": owned by another user (run as root or as its owner)", o->pgdata);
			return -1;
		}
	}

	sweep_killed_harnesses();
	if (o->in_memory && check_memory_parent(o, err, errlen) != 0)
		return -1;
	if (make_workdir(t, workdir_parents[o->in_memory ? 1 : 0], err, errlen) != 0)
		return -1;
	wsb_cleanup_push("work directory", remove_workdir, t);
	/* a --pgdata cluster's is left to restore.sql's command */
	if (!datadir[0] && write_harness_pid(t->workdir, err, errlen) != 0)
		return -1;

	if (datadir[0] ? open_existing(t, o, err, errlen) : open_temporary(t, o, err, errlen))
		return -1;

	wsb_slowdisk_describe(&t->slow, o, env->wal_device, sizeof(env->wal_device));
	return 0;
}

/*
 * shared_preload_libraries as the server runs now (a configuration may
 * change it): every reader of it asks here.  0, or -1 with err.
 */
int
wsb_target_preload_libraries(WsbTarget *t, char *out, size_t len, char *err, size_t errlen)
{
	return wsb_sql_value(t->conn,
						 "SELECT pg_catalog.current_setting('shared_preload_libraries'::pg_catalog.text)",
						 NULL, out, len, err, errlen);
}

/* Is wal_stall loaded now (shared_preload_libraries may vary by config)? */
static bool
loaded_now(WsbTarget *t)
{
	char		v[WSB_VALUE_LEN],
				err[256];

	if (wsb_target_preload_libraries(t, v, sizeof(v), err, sizeof(err)) != 0)
		return false;
	return strstr(v, "wal_stall") != NULL;
}

/*
 * The names of the settings a role without pg_read_all_settings sees in
 * pg_settings, as an array literal: a superuser-only setting
 * (GUC_SUPERUSER_ONLY, which pg_settings does not expose) is a row such a
 * role cannot see.  Read as pg_signal_backend, a predefined role that is
 * given no such privilege, in a transaction rolled back.  "{}" (every
 * setting taken for superuser-only) when that cannot be known: the role
 * was given pg_read_all_settings, or a statement failed.  malloc'd.
 */
static char *
settings_others_see(WsbTarget *t)
{
	WsbRows		r = {0};
	char		err[512];
	const char *v = NULL;
	char	   *names;

	if (wsb_sql_exec(t->conn, "BEGIN", err, sizeof(err)) != 0)
		return wsb_xstrdup("{}");
	if (wsb_sql_exec(t->conn, "SET LOCAL ROLE pg_signal_backend", err, sizeof(err)) == 0 &&
		wsb_sql_rows(t->conn,
					 "SELECT CASE WHEN pg_catalog.pg_has_role('pg_read_all_settings'::pg_catalog.name, "
					 "'USAGE'::pg_catalog.text) THEN '{}' ELSE "
					 "pg_catalog.array_agg(name)::pg_catalog.text END AS names "
					 "FROM pg_catalog.pg_settings",
					 0, NULL, &r, err, sizeof(err)) == 0)
		v = wsb_rows_get(&r, 0, "names");
	names = wsb_xstrdup(v ? v : "{}");
	wsb_rows_free(&r);
	wsb_sql_exec(t->conn, "ROLLBACK", err, sizeof(err));
	return names;
}

/*
 * Every non-default setting, "name = value" a line, for the report, the
 * value as SHOW gives it (with its unit: "shared_buffers = 128MB", not
 * 16384 pages).  A value is shown as "(hidden)" when the setting is superuser-only
 * (settings_others_see) or its name is of the usual secret kinds:
 * *conninfo* (primary_conninfo holds a replication password),
 * *password*, ssl_*key*.
 */
static void
settings_for_report(WsbTarget *t, WsbEnvironment *env)
{
	char	   *visible = settings_others_see(t);
	const char *params[1] = {visible};
	char		err[512];
	WsbRows		r;
	PQExpBufferData text;

	initPQExpBuffer(&text);
	if (visible != NULL &&
		wsb_sql_rows(t->conn,
					 "SELECT name, CASE WHEN name = ANY ($1::pg_catalog.text[]) "
					 "THEN pg_catalog.current_setting(name) END AS setting, "
					 "(name <> ALL ($1::pg_catalog.text[]) "
					 "OR name ILIKE '%conninfo%' OR name ILIKE '%password%' "
					 "OR name ILIKE 'ssl\\_%key%')::pg_catalog.text AS hidden "
					 "FROM pg_catalog.pg_settings "
					 "WHERE source NOT IN ('default', 'override') ORDER BY name",
					 1, params, &r, err, sizeof(err)) == 0)
	{
		for (int i = 0; i < r.nrows; i++)
		{
			const char *hidden = wsb_rows_get(&r, i, "hidden");
			const char *value = wsb_rows_get(&r, i, "setting");

			appendPQExpBuffer(&text, "%s = %s\n", wsb_rows_get(&r, i, "name"),
							  hidden == NULL || strcmp(hidden, "false") != 0 ? "(hidden)" : value ? value : "");
		}
		wsb_rows_free(&r);
	}
	else if (visible != NULL)
		wsb_note("could not read the server's settings for the report: %s", err);
	free(visible);
	free(env->settings);
	env->settings = wsb_xstrdup(wsb_buffer_text(&text));
	termPQExpBuffer(&text);
}

/*
 * pg_test_fsync's three rates of the WAL directory, by wal_stall_test_fsync()
 * in the server (so through the server's cgroup and its throttle), seconds
 * a test.  0, or -1 with err.
 */
static int
measure_sync_rates(WsbTarget *t, double seconds, WsbSyncRates *rates, char *err, size_t errlen)
{
	WsbRows		r;
	char		secs[32];
	const char *params[1] = {secs};

	rates->fdatasync_one = rates->fdatasync_two = rates->fsync_one = -1;
	snprintf(secs, sizeof(secs), "%g", seconds);
	/* NULL: the server's own WAL directory, pg_wal followed if a link */
	if (wsb_sql_rows(t->conn,
					 "SELECT test, method, ops_per_sec "
					 "FROM public.wal_stall_test_fsync($1::pg_catalog.float8, NULL::pg_catalog.text) "
					 "WHERE method IN ('fdatasync', 'fsync') "
					 "AND test IN ('one 8kB write', 'two 8kB writes')",
					 1, params, &r, err, errlen) != 0)
		return -1;
	for (int i = 0; i < r.nrows; i++)
	{
		const char *test = wsb_rows_get(&r, i, "test");
		const char *method = wsb_rows_get(&r, i, "method");
		double		ops = wsb_rows_double(&r, i, "ops_per_sec", -1);
		bool		one = test && strcmp(test, "one 8kB write") == 0;

		if (method == NULL)
			continue;
		if (strcmp(method, "fdatasync") == 0)
			*(one ? &rates->fdatasync_one : &rates->fdatasync_two) = ops;
		else if (one)
			rates->fsync_one = ops;
	}
	wsb_rows_free(&r);
	return 0;
}

/* The throttle into the options and the cgroup.  0, or -1 with err. */
static int
set_throttle(WsbTarget *t, WsbOptions *o, const WsbThrottle *th, char *err, size_t errlen)
{
	o->slow_wal_iops = th->iops;
	o->slow_wal_kbps = th->kbps;
	o->slow_journal_kbps = th->journal_kbps;
	return wsb_slowdisk_throttle(&t->slow, o, err, errlen);
}

/*
 * --wal-disk: measure the throttle the options hold, and correct it by the
 * profile's rules until the three rates (fdatasync after one and two
 * writes, fsync) are close to the seed's or the probes are spent.  A probe's rates vary by several percent from one
 * to the next, so the corrections can overshoot: the throttle kept, which
 * the runs use and the report names, is the probe's that came closest.
 * 0, or -1 with err.
 */
int
wsb_target_calibrate_wal_disk(WsbTarget *t, WsbOptions *o, WsbDiskCalibration *c,
							  char *err, size_t errlen)
{
	WsbThrottle tried;
	WsbDiskCalibration best;

	memset(c, 0, sizeof(*c));
	if (!o->wal_disk[0])
		return 0;
	c->profile = wsb_disk_profile(o->wal_disk);
	tried.iops = o->slow_wal_iops;
	tried.kbps = o->slow_wal_kbps;
	tried.journal_kbps = o->slow_journal_kbps;
	/* a journal the throttle cannot reach (slowdisk.c said why): no cap, fsync shown only */
	if (!t->slow.journal_throttled && tried.journal_kbps > 0)
	{
		tried.journal_kbps = 0;
		if (set_throttle(t, o, &tried, err, errlen) != 0)
			return -1;
	}
	best = *c;
	for (;;)
	{
		WsbSyncRates rates;

		wsb_note("calibrating pg_wal to %s: %d write IOPS, %d kB/s, the journal %d kB/s (0: no cap), "
				 "wal_stall_test_fsync 0.5 s a test", c->profile->name, tried.iops, tried.kbps,
				 tried.journal_kbps);
		if (measure_sync_rates(t, 0.5, &rates, err, errlen) != 0)
			return -1;
		c->probes++;
		wsb_note("probe %d: fdatasync %.1f/s after one 8kB write (seed %.1f), %.1f/s after two (%.1f), "
				 "fsync %.1f/s (%.1f)", c->probes, rates.fdatasync_one, c->profile->seed.fdatasync_one,
				 rates.fdatasync_two, c->profile->seed.fdatasync_two, rates.fsync_one,
				 c->profile->seed.fsync_one);
		if (best.probes == 0 ||
			wsb_disk_miss(c->profile, &rates, t->slow.journal_throttled) <
			wsb_disk_miss(c->profile, &best.measured, t->slow.journal_throttled))
		{
			best.throttle = tried;
			best.measured = rates;
			best.probes = 1;
		}
		if (wsb_interrupted || c->probes >= WSB_DISK_MAX_PROBES ||
			!wsb_disk_next_throttle(c->profile, &rates, &tried))
			break;
		if (set_throttle(t, o, &tried, err, errlen) != 0)
			return -1;
	}
	c->throttle = best.throttle;
	c->measured = best.measured;
	if (tried.iops == best.throttle.iops && tried.kbps == best.throttle.kbps &&
		tried.journal_kbps == best.throttle.journal_kbps)
		return 0;
	return set_throttle(t, o, &best.throttle, err, errlen);
}

/* Fill in what the report says about the machine and the server. */
int
wsb_target_environment(WsbTarget *t, const WsbOptions *o, WsbEnvironment *env)
{
	char		err[512];
	char	   *mem = wsb_read_file("/proc/meminfo", NULL);
	char	   *p;

	(void) o;
	env->cores = (int) sysconf(_SC_NPROCESSORS_ONLN);
	if (mem && (p = strstr(mem, "MemTotal:")) != NULL)
		env->memory_gb = strtod(p + 9, NULL) / 1048576.0;
	free(mem);
	wsb_sql_value(t->conn, "SELECT pg_catalog.version()", NULL, env->pg_version, sizeof(env->pg_version), err, sizeof(err));
	/* a --wal-disk calibration measured it already, through the same throttle */
	if (env->wal_disk.probes > 0)
		env->fdatasync_per_sec = env->wal_disk.measured.fdatasync_one;
	else
	{
		WsbSyncRates rates;

		wsb_note("measuring the WAL directory's fdatasync rate (wal_stall_test_fsync, 0.25 s a test)");
		if (measure_sync_rates(t, 0.25, &rates, err, sizeof(err)) == 0)
			env->fdatasync_per_sec = rates.fdatasync_one;
		else
		{
			env->fdatasync_per_sec = -1;
			wsb_note("could not measure the fdatasync rate: %s", err);
		}
	}
	settings_for_report(t, env);
	t->wal_stall_loaded = loaded_now(t);
	return 0;
}

bool
wsb_target_wal_stall_loaded(WsbTarget *t)
{
	return loaded_now(t);
}
