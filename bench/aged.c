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
 * on success, failure and Ctrl-C (a cleanup action), and restore.sql
 * drops them after a kill.
 *
 * On a --pgdata cluster they are the harness's, like its own database
 * (target.c, create_own_database): each is created closed to connections,
 * CONNECT and TEMP are revoked from PUBLIC before it opens, and the
 * template's public schema is closed to PUBLIC's CREATE (13 and 14 grant
 * it), which every copy inherits: no other role can connect to one or put
 * a function where pgbench, a superuser, would call it.  Once built, the
 * template is closed to connections for good; a superuser who connected
 * while it was open is named in a refusal, since CREATE DATABASE ...
 * TEMPLATE cannot copy a database in use.  The build takes aged_pages x
 * 32,768 transaction IDs of the cluster: refused without --yes when that
 * would bring the oldest database's age(datfrozenxid) past half of
 * autovacuum_freeze_max_age.
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
#define MAX_TEMPLATE_SESSIONS 8

/* the share of autovacuum_freeze_max_age the build may bring the age to */
#define AGE_SHARE_PERCENT 50

static WsbTarget *cleanup_target;	/* whose databases the cleanup drops */

/* the harness's own sessions in the template: backends maybe still leaving */
static int	template_sessions[MAX_TEMPLATE_SESSIONS];
static int	ntemplate_sessions;

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

/* Run one statement built from fmt and a database name: 0, or -1 with err. */
static int
exec_on(WsbTarget *t, const char *fmt, const char *name, char *err, size_t errlen)
{
	PQExpBufferData sql;
	int			rc;

	initPQExpBuffer(&sql);
	appendPQExpBuffer(&sql, fmt, name);
	rc = wsb_sql_exec(t->conn, wsb_buffer_text(&sql), err, errlen);
	termPQExpBuffer(&sql);
	return rc;
}

/*
 * Open a database the harness has just created closed (ALLOW_CONNECTIONS
 * false) to the harness alone: PUBLIC's CONNECT and TEMP revoked first,
 * so that no other role was ever able to get in.  0, or -1 with err.
 */
static int
open_to_harness(WsbTarget *t, const char *name, char *err, size_t errlen)
{
	if (exec_on(t, "REVOKE ALL ON DATABASE %s FROM PUBLIC", name, err, errlen) != 0 ||
		exec_on(t, "ALTER DATABASE %s ALLOW_CONNECTIONS true", name, err, errlen) != 0)
		return -1;
	return 0;
}

/*
 * Other sessions in the template: CREATE DATABASE ... TEMPLATE waits 5 s
 * for them to leave, then fails without naming them.  The harness's own
 * builders, which may still be leaving, are not counted (CREATE DATABASE
 * waits for them).  Once built the template is closed to connections, so
 * none can come in after this look.  0, or -1 with err naming each.
 */
static int
refuse_template_users(WsbTarget *t, char *err, size_t errlen)
{
	PQExpBufferData own;
	const char *params[1];
	WsbRows		r;
	const char *who;
	int			rc = 0;

	initPQExpBuffer(&own);
	appendPQExpBufferStr(&own, "{");
	for (int i = 0; i < ntemplate_sessions; i++)
		appendPQExpBuffer(&own, "%s%d", i ? "," : "", template_sessions[i]);
	appendPQExpBufferStr(&own, "}");
	params[0] = wsb_buffer_text(&own);
	if (wsb_sql_rows(t->conn,
					 "SELECT pg_catalog.string_agg(pg_catalog.format('role \"%s\" (pid %s)', "
					 "COALESCE(usename::pg_catalog.text, '?'), pid), ', ' ORDER BY pid) AS who "
					 "FROM pg_catalog.pg_stat_activity "
					 "WHERE datname = '" WSB_AGED_TEMPLATE "'::pg_catalog.name "
					 "AND backend_type = 'client backend' AND pid <> pg_catalog.pg_backend_pid() "
					 "AND pid <> ALL ($1::pg_catalog.int4[])",
					 1, params, &r, err, errlen) != 0)
	{
		termPQExpBuffer(&own);
		return -1;
	}
	termPQExpBuffer(&own);
	if ((who = wsb_rows_get(&r, 0, "who")) != NULL && who[0])
	{
		snprintf(err, errlen, "database \"" WSB_AGED_TEMPLATE "\" is in use by %s: a run's copy "
				 "of it needs it to itself; end that session (pg_terminate_backend) and start "
				 "the harness again", who);
		rc = -1;
	}
	wsb_rows_free(&r);
	return rc;
}

/*
 * A copy of the template, a file copy on every version, created closed
 * and opened to the harness alone (open_to_harness); its public schema is
 * the template's, closed to PUBLIC's CREATE.  0, or -1 with err.
 */
static int
create_copy(WsbTarget *t, const char *name, char *err, size_t errlen)
{
	PQExpBufferData sql;
	int			rc;

	if (refuse_template_users(t, err, errlen) != 0)
		return -1;
	initPQExpBuffer(&sql);
	appendPQExpBuffer(&sql, "CREATE DATABASE %s TEMPLATE " WSB_AGED_TEMPLATE "%s ALLOW_CONNECTIONS false",
					  name, t->server_version >= 150000 ? " STRATEGY FILE_COPY" : "");
	rc = wsb_sql_exec(t->conn, wsb_buffer_text(&sql), err, errlen);
	termPQExpBuffer(&sql);
	if (rc != 0)
		return -1;
	return open_to_harness(t, name, err, errlen);
}

/* DROP DATABASE IF EXISTS, its error said: 0 dropped or absent, -1 not. */
static int
drop_database(WsbTarget *t, const char *name)
{
	char		msg[512];

	if (t->conn == NULL || PQstatus(t->conn) != CONNECTION_OK)
		return -1;
	if (exec_on(t, "DROP DATABASE IF EXISTS %s WITH (FORCE)", name, msg, sizeof(msg)) != 0)
	{
		wsb_error("could not drop database %s: %s", name, msg);
		return -1;
	}
	return 0;
}

/*
 * The cleanup action: the run's copy, the check's copy, the template.
 * Only once all three are gone does restore.sql stop naming them.
 */
static void
drop_aged_databases(void *arg)
{
	WsbTarget  *t = arg;
	int			failed = 0;

	failed |= drop_database(t, WSB_AGED_RUN_DB);
	failed |= drop_database(t, WSB_AGED_CHECK_DB);
	failed |= drop_database(t, WSB_AGED_TEMPLATE);
	if (failed == 0)
		t->aged_databases[0] = NULL;
}

/*
 * Name the three databases in restore.sql before the first exists, so
 * that a killed build leaves what drops them.  0, or -1 with err.
 */
static int
journal_aged_databases(WsbTarget *t, char *err, size_t errlen)
{
	t->aged_databases[0] = WSB_AGED_RUN_DB;
	t->aged_databases[1] = WSB_AGED_CHECK_DB;
	t->aged_databases[2] = WSB_AGED_TEMPLATE;
	t->aged_databases[3] = NULL;
	if (wsb_settings_journal(t) != 0)
	{
		snprintf(err, errlen, "could not write the restore journal \"%s\": %s", t->journal,
				 strerror(errno));
		t->aged_databases[0] = NULL;
		return -1;
	}
	return 0;
}

/*
 * The transaction IDs the build takes, against the cluster's room before
 * anti-wraparound autovacuum: refused unless --yes when the oldest
 * database's age(datfrozenxid) would pass AGE_SHARE_PERCENT of
 * autovacuum_freeze_max_age.  0, or -1 with err.
 */
static int
check_xid_age(WsbTarget *t, const WsbOptions *o, char *err, size_t errlen)
{
	WsbRows		r;
	long long	age,
				freeze_max,
				need = wsb_aged_rows(o) * xids_per_row(o),
				limit;

	if (wsb_sql_rows(t->conn,
					 "SELECT pg_catalog.max(pg_catalog.age(datfrozenxid))::pg_catalog.int8 AS age, "
					 "pg_catalog.current_setting('autovacuum_freeze_max_age'::pg_catalog.text)"
					 "::pg_catalog.int8 AS freeze_max FROM pg_catalog.pg_database",
					 0, NULL, &r, err, errlen) != 0)
		return -1;
	age = (long long) wsb_rows_double(&r, 0, "age", 0);
	freeze_max = (long long) wsb_rows_double(&r, 0, "freeze_max", 0);
	wsb_rows_free(&r);
	limit = freeze_max * AGE_SHARE_PERCENT / 100;
	if (age + need <= limit)
		return 0;
	if (o->yes)
	{
		wsb_note("the aged table takes %lld transaction IDs: the oldest age(datfrozenxid) goes from "
				 "%lld to about %lld, past %d%% of autovacuum_freeze_max_age (%lld); going on (--yes)",
				 need, age, age + need, AGE_SHARE_PERCENT, freeze_max);
		return 0;
	}
	snprintf(err, errlen, "the aged table would take %lld transaction IDs and bring the oldest "
			 "age(datfrozenxid) of the cluster at \"%s\" from %lld to about %lld, past %d%% of "
			 "autovacuum_freeze_max_age (%lld), nearer anti-wraparound vacuums of every database; "
			 "vacuum first, ask for fewer --aged-pages, or pass --yes to go ahead anyway",
			 need, t->pgdata, age, age + need, AGE_SHARE_PERCENT, freeze_max);
	return -1;
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
	if (strcmp(db, WSB_AGED_TEMPLATE) == 0 && ntemplate_sessions < MAX_TEMPLATE_SESSIONS)
		template_sessions[ntemplate_sessions++] = PQbackendPID(h->conn);
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
	if (check_xid_age(t, o, err, errlen) != 0 || refuse_existing(t, err, errlen) != 0 ||
		journal_aged_databases(t, err, errlen) != 0)
		return -1;
	if (cleanup_target == NULL)
		wsb_cleanup_push("aged databases", drop_aged_databases, t);
	cleanup_target = t;
	if (wsb_sql_exec(t->conn, "CREATE DATABASE " WSB_AGED_TEMPLATE " TEMPLATE template0 "
					 "ALLOW_CONNECTIONS false", err, errlen) != 0 ||
		open_to_harness(t, WSB_AGED_TEMPLATE, err, errlen) != 0)
		return -1;
	wsb_note("aged table: %lld rows, a row every %d transactions, over %d CLOG pages",
			 wsb_aged_rows(o), xids_per_row(o), o->aged_pages);
	if ((h = connect_helper(t, WSB_AGED_TEMPLATE, err, errlen)) == NULL)
		return -1;
	rc = wsb_sql_exec(h->conn, "REVOKE CREATE ON SCHEMA public FROM PUBLIC", err, errlen);
	if (rc == 0)
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
	/* built: nobody connects to the template again, the harness included */
	if (rc != 0 ||
		wsb_sql_exec(t->conn, "ALTER DATABASE " WSB_AGED_TEMPLATE " ALLOW_CONNECTIONS false",
					 err, errlen) != 0)
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
