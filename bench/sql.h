/*-------------------------------------------------------------------------
 *
 * sql.h
 *		wal_stall_bench: the connection to the target server and the query
 *		helpers (sql.c).
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WSB_SQL_H
#define WSB_SQL_H

#include "engine.h"

/* Connect t->conn to database db as the cluster's owner (or PGUSER). */
extern int	wsb_sql_connect(WsbTarget *t, const char *db, char *err, size_t errlen);
/* Every row of a query with text parameters ($1 ...), kept as text. */
extern int	wsb_sql_rows(PGconn *conn, const char *sql, int nparams, const char *const *params,
						 WsbRows *out, char *err, size_t errlen);
/* A statement whose result is not needed. */
extern int	wsb_sql_exec(PGconn *conn, const char *sql, char *err, size_t errlen);
/* The first cell of a one-value query, with at most one parameter. */
extern int	wsb_sql_value(PGconn *conn, const char *sql, const char *param, char *out, size_t len,
						  char *err, size_t errlen);

#endif							/* WSB_SQL_H */
