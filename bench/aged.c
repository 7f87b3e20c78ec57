/*-------------------------------------------------------------------------
 *
 * aged.c
 *		wal_stall_bench: the aged table (--aged-pages), so that the CLOG
 *		misses.
 *
 * A tuple's xmin is looked up in the CLOG (pg_xact) until its hint bit is
 * set, which the first visibility check after the commit does.  pgbench's
 * own tables are hinted as soon as they are loaded, and a short run only
 * asks about its own recent transactions, whose pages are always cached: so
 * nothing misses.  The aged table is made instead of rows whose xmins are
 * spread over N CLOG pages (32,768 transactions each) and never read:
 * each run's first touch of a row asks the CLOG about an old transaction.
 *
 * The build: database wal_stall_aged, an unlogged table aged (id, v, a
 * filler that puts two rows on a heap page) with
 * autovacuum off (a reloption, copied with it), filled by a procedure that
 * inserts a row and commits, then commits k - 1 transactions that only take
 * an xid (pg_current_xact_id()), so that k = 32,768 / rows-per-page xids
 * lie between two rows; synchronous_commit is off, and two sessions fill
 * half each at once (about 100,000 commits a second here).  Not one
 * transaction of many subtransactions: a subtransaction's xid lock is held
 * until the top transaction ends, and that many locks exhaust the lock
 * table.  The index exists before the rows go in: CREATE INDEX would read
 * (and hint) every row.
 *
 * The template is never read.  Its span is checked in a throwaway copy
 * (wal_stall_aged_check): the rows, their xmin range and the number of
 * distinct CLOG pages of their xmins.  Each run gets a fresh copy,
 * wal_stall_aged_run (CREATE DATABASE ... TEMPLATE, STRATEGY FILE_COPY on
 * 15+, a file copy by default before), dropped after it, so that every run
 * starts from the same unhinted state.  The three databases are dropped
 * on success, failure and Ctrl-C (a cleanup action).
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <unistd.h>
#include <libpq-fe.h>

#include "aged.h"
#include "expbuffer.h"
#include "sql.h"

#define BUILDERS 2

static WsbTarget *cleanup_target;	/* whose databases the cleanup drops */

long long
wsb_aged_rows(const WsbOptions *o)
{
	return (long long) o->aged_pages * o->aged_rows_per_page;
}

/* the xids each row stands for: the row's own and k - 1 taken alone */
static int
xids_per_row(const WsbOptions *o)
{
	return WSB_AGED_XIDS_PER_PAGE / o->aged_rows_per_page;
}

/* "CREATE DATABASE name TEMPLATE wal_stall_aged", a file copy on every
 * version: 0, or -1 with err */
static int
create_copy(WsbTarget *t, const char *name, char *err, size_t errlen)
{
	PQExpBufferData sql;
	int			rc;

	initPQExpBuffer(&sql);
	appendPQExpBuffer(&sql, "CREATE DATABASE %s TEMPLATE " WSB_AGED_TEMPLATE "%s", name,
					  t->server_version >= 150000 ? " STRATEGY FILE_COPY" : "");
	rc = wsb_sql_exec(t->conn, wsb_buffer_text(&sql), err, errlen);
	termPQExpBuffer(&sql);
	return rc;
}

static void
drop_database(WsbTarget *t, const char *name)
{
	PQExpBufferData sql;
	char		msg[512];

	initPQExpBuffer(&sql);
	appendPQExpBuffer(&sql, "DROP DATABASE IF EXISTS %s WITH (FORCE)", name);
	if (t->conn && PQstatus(t->conn) == CONNECTION_OK &&
		wsb_sql_exec(t->conn, wsb_buffer_text(&sql), msg, sizeof(msg)) != 0)
		wsb_error("could not drop database %s: %s", name, msg);
	termPQExpBuffer(&sql);
}

/* The cleanup action: the run's copy, the check's copy, the template. */
static void
drop_aged_databases(void *arg)
{
	WsbTarget  *t = arg;

	drop_database(t, WSB_AGED_RUN_DB);
	drop_database(t, WSB_AGED_CHECK_DB);
	drop_database(t, WSB_AGED_TEMPLATE);
}

/* A second connection to the target's server, to database db: the target
 * copied with its own connection.  NULL with err. */
static WsbTarget *
connect_helper(const WsbTarget *t, const char *db, char *err, size_t errlen)
{
	WsbTarget  *h = malloc(sizeof(WsbTarget));

	if (h == NULL)
	{
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	memcpy(h, t, sizeof(WsbTarget));
	h->conn = NULL;
	if (wsb_sql_connect(h, db, err, errlen) != 0)
	{
		free(h);
		return NULL;
	}
	return h;
}

static void
close_helper(WsbTarget *h)
{
	if (h == NULL)
		return;
	PQfinish(h->conn);
	free(h);
}

/* Refuse names the harness did not make: on --pgdata they are the user's. */
static int
refuse_existing(WsbTarget *t, char *err, size_t errlen)
{
	char		found[256] = "";

	if (wsb_sql_value(t->conn,
					  "SELECT pg_catalog.string_agg(datname, ', ') FROM pg_catalog.pg_database "
					  "WHERE datname IN ('" WSB_AGED_TEMPLATE "', '" WSB_AGED_RUN_DB "', '"
					  WSB_AGED_CHECK_DB "')", NULL, found, sizeof(found), err, errlen) != 0)
		return -1;
	if (found[0])
	{
		snprintf(err, errlen, "database %s already exists: --aged-pages makes and drops "
				 WSB_AGED_TEMPLATE ", " WSB_AGED_RUN_DB " and " WSB_AGED_CHECK_DB
				 "; drop them first if a killed run left them", found);
		return -1;
	}
	return 0;
}

/*
 * Two rows to a heap page (a 3,000-byte filler, stored plain: neither
 * compressed nor moved out of line).  The first read of a heap page after
 * an update on it prunes it, which checks, and hints, every tuple there;
 * rows inserted one after the other share a CLOG page, so a heap page of
 * many narrow rows would cost one CLOG lookup for all of them.  Two to a
 * page, nearly every first touch of a row is a lookup of its own.
 */
static const char table_sql[] =
"CREATE UNLOGGED TABLE public.aged (id int PRIMARY KEY, v int NOT NULL DEFAULT 0, "
"filler char(3000) NOT NULL DEFAULT '') "
"WITH (autovacuum_enabled = off, toast.autovacuum_enabled = off)";

static const char plain_sql[] =
"ALTER TABLE public.aged ALTER COLUMN filler SET STORAGE PLAIN";

/* per row: the row in its own transaction, then k - 1 that only take an xid */
static const char fill_sql[] =
"CREATE PROCEDURE public.aged_fill(first_id int, last_id int, k int) LANGUAGE plpgsql AS $$\n"
"BEGIN\n"
"  FOR i IN first_id .. last_id LOOP\n"
"    INSERT INTO public.aged (id) VALUES (i);\n"
"    COMMIT;\n"
"    FOR j IN 2 .. k LOOP\n"
"      PERFORM pg_catalog.pg_current_xact_id();\n"
"      COMMIT;\n"
"    END LOOP;\n"
"  END LOOP;\n"
"END\n"
"$$";

/* Wait for the builders' CALLs; on Ctrl-C cancel them.  0, or -1 with err. */
static int
wait_builders(WsbTarget *h[BUILDERS], char *err, size_t errlen)
{
	bool		busy[BUILDERS];
	int			left = BUILDERS;
	int			rc = 0;

	for (int i = 0; i < BUILDERS; i++)
		busy[i] = true;
	while (left > 0)
	{
		fd_set		fds;
		int			maxfd = -1;
		struct timeval tv = {0, 100000};

		if (wsb_interrupted)
		{
			for (int i = 0; i < BUILDERS; i++)
				if (busy[i])
				{
					PGcancel   *c = PQgetCancel(h[i]->conn);
					char		buf[256];

					if (c)
					{
						PQcancel(c, buf, sizeof(buf));
						PQfreeCancel(c);
					}
				}
			snprintf(err, errlen, "interrupted while building the aged table");
			return -1;
		}
		FD_ZERO(&fds);
		for (int i = 0; i < BUILDERS; i++)
			if (busy[i])
			{
				FD_SET(PQsocket(h[i]->conn), &fds);
				if (PQsocket(h[i]->conn) > maxfd)
					maxfd = PQsocket(h[i]->conn);
			}
		if (select(maxfd + 1, &fds, NULL, NULL, &tv) < 0 && errno != EINTR)
		{
			snprintf(err, errlen, "select: %s", strerror(errno));
			return -1;
		}
		for (int i = 0; i < BUILDERS; i++)
		{
			PGresult   *res;

			if (!busy[i] || !PQconsumeInput(h[i]->conn) || PQisBusy(h[i]->conn))
			{
				if (busy[i] && PQstatus(h[i]->conn) != CONNECTION_OK)
				{
					snprintf(err, errlen, "building the aged table: %s", PQerrorMessage(h[i]->conn));
					return -1;
				}
				continue;
			}
			while ((res = PQgetResult(h[i]->conn)) != NULL)
			{
				if (PQresultStatus(res) != PGRES_COMMAND_OK && rc == 0)
				{
					snprintf(err, errlen, "building the aged table: %s", PQresultErrorMessage(res));
					rc = -1;
				}
				PQclear(res);
			}
			busy[i] = false;
			left--;
		}
	}
	return rc;
}

/* Two sessions fill half the rows each, at once. */
static int
fill(WsbTarget *t, const WsbOptions *o, char *err, size_t errlen)
{
	WsbTarget  *h[BUILDERS] = {NULL};
	long long	rows = wsb_aged_rows(o);
	int			rc = 0;

	for (int i = 0; i < BUILDERS && rc == 0; i++)
	{
		PQExpBufferData sql;
		long long	first = rows * i / BUILDERS + 1,
					last = rows * (i + 1) / BUILDERS;

		if ((h[i] = connect_helper(t, WSB_AGED_TEMPLATE, err, errlen)) == NULL ||
			wsb_sql_exec(h[i]->conn, "SET synchronous_commit = off", err, errlen) != 0)
		{
			rc = -1;
			break;
		}
		initPQExpBuffer(&sql);
		appendPQExpBuffer(&sql, "CALL public.aged_fill(%lld, %lld, %d)", first, last, xids_per_row(o));
		if (!PQsendQuery(h[i]->conn, wsb_buffer_text(&sql)))
		{
			snprintf(err, errlen, "could not send the fill: %s", PQerrorMessage(h[i]->conn));
			rc = -1;
		}
		termPQExpBuffer(&sql);
	}
	if (rc == 0)
		rc = wait_builders(h, err, errlen);
	for (int i = 0; i < BUILDERS; i++)
		close_helper(h[i]);
	return rc;
}

/*
 * The span, read in a throwaway copy (reading the template would hint it):
 * the rows, their xmins' range and distinct CLOG pages.
 */
static int
check_span(WsbTarget *t, const WsbOptions *o, WsbAgedSpan *span, char *err, size_t errlen)
{
	PQExpBufferData sql;
	WsbTarget  *h;
	WsbRows		rows = {0};
	int			rc;

	if (create_copy(t, WSB_AGED_CHECK_DB, err, errlen) != 0)
		return -1;
	if ((h = connect_helper(t, WSB_AGED_CHECK_DB, err, errlen)) == NULL)
		return -1;
	initPQExpBuffer(&sql);
	appendPQExpBuffer(&sql,
					  "SELECT pg_catalog.count(*) AS rows, pg_catalog.min(x) AS first, "
					  "pg_catalog.max(x) AS last, pg_catalog.count(DISTINCT x / %d) AS pages "
					  "FROM (SELECT xmin::pg_catalog.text::pg_catalog.int8 AS x FROM public.aged) s",
					  WSB_AGED_XIDS_PER_PAGE);
	rc = wsb_sql_rows(h->conn, wsb_buffer_text(&sql), 0, NULL, &rows, err, errlen);
	termPQExpBuffer(&sql);
	close_helper(h);
	drop_database(t, WSB_AGED_CHECK_DB);
	if (rc != 0)
		return -1;
	span->rows = (long long) wsb_rows_double(&rows, 0, "rows", 0);
	span->first_xid = (long long) wsb_rows_double(&rows, 0, "first", 0);
	span->last_xid = (long long) wsb_rows_double(&rows, 0, "last", 0);
	span->pages = (int) wsb_rows_double(&rows, 0, "pages", 0);
	wsb_rows_free(&rows);
	if (span->rows != wsb_aged_rows(o) || span->pages < o->aged_pages)
	{
		snprintf(err, errlen, "the aged table has %lld rows over %d CLOG pages (xmin %lld to %lld), "
				 "not the %lld rows over %d pages asked for", span->rows, span->pages,
				 span->first_xid, span->last_xid, wsb_aged_rows(o), o->aged_pages);
		return -1;
	}
	return 0;
}

int
wsb_aged_build(WsbTarget *t, const WsbOptions *o, WsbAgedSpan *span, char *err, size_t errlen)
{
	WsbTarget  *h;
	double		start = wsb_now();
	int			rc;

	memset(span, 0, sizeof(*span));
	if (refuse_existing(t, err, errlen) != 0)
		return -1;
	if (wsb_sql_exec(t->conn, "CREATE DATABASE " WSB_AGED_TEMPLATE " TEMPLATE template0",
					 err, errlen) != 0)
		return -1;
	if (cleanup_target == NULL)
		wsb_cleanup_push("aged databases", drop_aged_databases, t);
	cleanup_target = t;
	wsb_note("aged table: %lld rows, a row every %d transactions, over %d CLOG pages",
			 wsb_aged_rows(o), xids_per_row(o), o->aged_pages);
	if ((h = connect_helper(t, WSB_AGED_TEMPLATE, err, errlen)) == NULL)
		return -1;
	rc = wsb_sql_exec(h->conn, table_sql, err, errlen);
	if (rc == 0)
		rc = wsb_sql_exec(h->conn, plain_sql, err, errlen);
	if (rc == 0)
		rc = wsb_sql_exec(h->conn, fill_sql, err, errlen);
	close_helper(h);
	if (rc != 0 || fill(t, o, err, errlen) != 0)
		return -1;
	/* the procedure would be copied into every run's database: gone first */
	if ((h = connect_helper(t, WSB_AGED_TEMPLATE, err, errlen)) == NULL)
		return -1;
	rc = wsb_sql_exec(h->conn, "DROP PROCEDURE public.aged_fill(int, int, int)", err, errlen);
	close_helper(h);
	if (rc != 0)
		return -1;
	span->build_seconds = wsb_now() - start;
	if (check_span(t, o, span, err, errlen) != 0)
		return -1;
	printf("aged table: %lld rows, xmin %lld to %lld: %d CLOG pages (%d asked for), built in %.0f s\n",
		   span->rows, span->first_xid, span->last_xid, span->pages, o->aged_pages,
		   span->build_seconds);
	return 0;
}

int
wsb_aged_copy(WsbTarget *t, char *err, size_t errlen)
{
	if (wsb_sql_exec(t->conn, "DROP DATABASE IF EXISTS " WSB_AGED_RUN_DB " WITH (FORCE)",
					 err, errlen) != 0)
		return -1;
	return create_copy(t, WSB_AGED_RUN_DB, err, errlen);
}

int
wsb_aged_drop_copy(WsbTarget *t, char *err, size_t errlen)
{
	return wsb_sql_exec(t->conn, "DROP DATABASE IF EXISTS " WSB_AGED_RUN_DB " WITH (FORCE)",
						err, errlen);
}

/*
 * The aged workload, for pgbench (-D aged_rows=N): in one transaction a
 * random row read and another updated, each first touch of a row asking
 * the CLOG about an old transaction.
 */
static const char aged_script[] =
"-- wal_stall_bench --aged-pages: read one random row of the aged table, update another\n"
"\\set a random(1, :aged_rows)\n"
"\\set b random(1, :aged_rows)\n"
"BEGIN;\n"
"SELECT v FROM public.aged WHERE id = :a;\n"
"UPDATE public.aged SET v = v + 1 WHERE id = :b;\n"
"END;\n";

int
wsb_aged_write_script(const WsbTarget *t)
{
	char	   *path = wsb_psprintf("%s/script.sql", t->workdir);
	FILE	   *f = wsb_create_file(path, 0640);
	int			rc = 0;

	free(path);
	if (f == NULL)
		return -1;
	if (fchown(fileno(f), (uid_t) -1, t->gid) != 0 || fchmod(fileno(f), 0640) != 0)
		rc = -1;
	fputs(aged_script, f);
	return wsb_close_written(f, rc);
}
