/*-------------------------------------------------------------------------
 *
 * sql.c
 *		wal_stall_bench: the connection to the target server and the
 *		helpers every query goes through.
 *
 * The harness connects over the cluster's Unix socket as the cluster's
 * owner (or PGUSER), with a search_path that trusts nothing a
 * non-superuser may have created; a result set comes back as WsbRows, its
 * cells as text, and an error as the server's primary message on one line.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libpq-fe.h>

#include "sql.h"

static void
pq_message(PGresult *res, PGconn *conn, char *err, size_t errlen)
{
	const char *m = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;

	if (m == NULL)
		m = PQerrorMessage(conn);
	wsb_strlcpy(err, m, errlen);
	/* one line */
	for (char *p = err; *p; p++)
		if (*p == '\n')
		{
			*p = '\0';
			break;
		}
}

int
wsb_sql_rows(PGconn *conn, const char *sql, int nparams, const char *const *params,
			 WsbRows *out, char *err, size_t errlen)
{
	PGresult   *res = PQexecParams(conn, sql, nparams, NULL, params, NULL, NULL, 0);

	memset(out, 0, sizeof(*out));
	if (PQresultStatus(res) != PGRES_TUPLES_OK)
	{
		pq_message(res, conn, err, errlen);
		PQclear(res);
		return -1;
	}
	out->ncols = PQnfields(res);
	out->nrows = PQntuples(res);
	out->names = wsb_xcalloc(out->ncols ? out->ncols : 1, sizeof(char *));
	for (int c = 0; c < out->ncols; c++)
		out->names[c] = wsb_xstrdup(PQfname(res, c));
	out->cells = wsb_xcalloc(out->nrows ? out->nrows : 1, sizeof(char **));
	for (int r = 0; r < out->nrows; r++)
	{
		out->cells[r] = wsb_xcalloc(out->ncols ? out->ncols : 1, sizeof(char *));
		for (int c = 0; c < out->ncols; c++)
			if (!PQgetisnull(res, r, c))
				out->cells[r][c] = wsb_xstrdup(PQgetvalue(res, r, c));
	}
	PQclear(res);
	return 0;
}

int
wsb_sql_exec(PGconn *conn, const char *sql, char *err, size_t errlen)
{
	PGresult   *res = PQexec(conn, sql);
	ExecStatusType st = PQresultStatus(res);

	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
	{
		pq_message(res, conn, err, errlen);
		PQclear(res);
		return -1;
	}
	PQclear(res);
	return 0;
}

/* The first cell of a one-value query, or -1. */
int
wsb_sql_value(PGconn *conn, const char *sql, const char *param, char *out, size_t len,
		  char *err, size_t errlen)
{
	WsbRows		r;
	const char *params[1] = {param};

	if (wsb_sql_rows(conn, sql, param ? 1 : 0, params, &r, err, errlen) != 0)
		return -1;
	if (r.nrows < 1 || r.ncols < 1)
	{
		snprintf(err, errlen, "no rows from: %s", sql);
		wsb_rows_free(&r);
		return -1;
	}
	wsb_strlcpy(out, r.cells[0][0] ? r.cells[0][0] : "", len);
	wsb_rows_free(&r);
	return 0;
}

/* A notice processor that drops server notices (libpq ignores NULL). */
static void
ignore_notice(void *arg, const char *message)
{
	(void) arg;
	(void) message;
}

/*
 * Every session reads times in one format, whatever the server's defaults:
 * the history's "since" goes back as the text it came as, and the reports
 * and timeline.csv show sample_time as DateStyle ISO prints it.  A server
 * with DateStyle = 'SQL, DMY' would otherwise print 01/12/2026.
 */
#define WSB_SESSION_STYLES "-c DateStyle=ISO -c IntervalStyle=postgres"

/*
 * The session's options (libpq's "options"): the styles above, and the
 * search_path, set when it starts: pg_catalog, then the
 * schema wal_stall lives in only in a database that is the harness's own
 * (the temporary cluster's, or wal_stall_bench that it created with no
 * CONNECT for anyone else), and pg_temp last.  In any other database, such
 * as "postgres" of a --pgdata cluster, nothing a non-superuser may have
 * created is on the path: the harness runs there as a superuser.  Every
 * statement names its schema as well; the path is the second wall.
 */
static const char *
session_options(const WsbTarget *t, const char *db)
{
	bool		own = t->temporary || (t->created_db && strcmp(db, WSB_DATABASE) == 0);

	return own ? "-c search_path=pg_catalog,public,pg_temp " WSB_SESSION_STYLES
		: "-c search_path=pg_catalog,pg_temp " WSB_SESSION_STYLES;
}

/*
 * Connect as the cluster's owner.  Run as root, the harness takes the
 * owner's identity for the connect() alone (effective uid and gid; the
 * real and saved ones stay root's): peer authentication, Debian's default
 * for local connections, then sees the owner, and the process keeps root
 * for the cgroups, loop devices and tracer it sets up.
 */
static PGconn *
connect_as_owner(const WsbTarget *t, const char *const *keys, const char *const *vals)
{
	bool		become = geteuid() == 0 && t->uid != 0;
	PGconn	   *conn;

	if (become && (setegid(t->gid) != 0 || seteuid(t->uid) != 0))
		become = false;			/* connect as root: the error then says why */
	conn = PQconnectdbParams(keys, vals, 0);
	if (become && (seteuid(0) != 0 || setegid(0) != 0))
	{
		wsb_error("could not return to root after connecting: %s", strerror(errno));
		exit(WSB_EXIT_FAILURE);
	}
	return conn;
}

int
wsb_sql_connect(WsbTarget *t, const char *db, char *err, size_t errlen)
{
	const char *keys[] = {"host", "port", "dbname", "user", "application_name", "connect_timeout",
	"options", NULL};
	char		port[16];
	const char *user = getenv("PGUSER");
	const char *vals[8];

	if (t->conn)
		PQfinish(t->conn);
	snprintf(port, sizeof(port), "%d", t->port);
	vals[0] = t->sockdir ? t->sockdir : "";	/* NULL until read: libpq's default */
	vals[1] = port;
	vals[2] = db;
	vals[3] = user && *user ? user : t->owner;
	vals[4] = "wal_stall_bench";
	vals[5] = "10";
	vals[6] = session_options(t, db);
	vals[7] = NULL;
	t->conn = connect_as_owner(t, keys, vals);
	if (PQstatus(t->conn) != CONNECTION_OK)
	{
		/* NULL only when libpq had no memory for the connection */
		const char *m = t->conn ? PQerrorMessage(t->conn) : "out of memory";
		bool		refused = strstr(m, "authentication failed") || strstr(m, "pg_hba.conf");

		snprintf(err, errlen, "could not connect to the cluster at \"%s\" port %d as user \"%s\": %s%s",
				 vals[0], t->port, vals[3], m,
				 refused ? " (the server's pg_hba.conf, SHOW hba_file, must let this user connect "
				 "over the local socket: a \"local all <user> peer\" line for the cluster's owner, "
				 "as Debian's default has for postgres)" : "");
		for (char *p = err; *p; p++)
			if (*p == '\n')
				*p = ' ';
		PQfinish(t->conn);
		t->conn = NULL;
		return -1;
	}
	/* the harness's own SQL says nothing worth a user's attention */
	PQsetNoticeProcessor(t->conn, ignore_notice, NULL);
	t->server_version = PQserverVersion(t->conn);
	return 0;
}
