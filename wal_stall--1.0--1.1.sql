/* wal_stall--1.0--1.1.sql */
-- Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION wal_stall UPDATE TO '1.1'" to load this file. \quit

-- 1.1: wal_stall_history gains "seconds", the real length of each row,
-- "mean_interval_ms", "wal_fpi", "checkpoint" and "checkpoint_kind";
-- wal_stall_status() gains "in_recovery",
-- "current_interval_ms", "rest_ms" and "query_evictions".  Their row types
-- change, so they are dropped and created again (a view of yours built on them makes this
-- fail: drop it first, and create it again after the update).
-- New in 1.1: wal_stall_queries, stall time per statement.

ALTER EXTENSION wal_stall DROP VIEW @extschema@.wal_stall_history;
ALTER EXTENSION wal_stall DROP FUNCTION @extschema@.wal_stall_history(timestamptz);
ALTER EXTENSION wal_stall DROP FUNCTION @extschema@.wal_stall_status();
DROP VIEW @extschema@.wal_stall_history;
DROP FUNCTION @extschema@.wal_stall_history(timestamptz);
DROP FUNCTION @extschema@.wal_stall_status();

--
-- The collector watching itself.
--
CREATE FUNCTION @extschema@.wal_stall_status(
    OUT collector_pid int,
    OUT sample_interval_ms float8,
    OUT ticks bigint,
    OUT mean_tick_us float8,
    OUT max_tick_us float8,
    OUT overruns bigint,
    OUT wal_buffers_bytes bigint,
    OUT started_at timestamptz,
    OUT reset_at timestamptz,
    OUT unobserved_ms float8,
    OUT in_recovery boolean,
    OUT current_interval_ms float8,
    OUT rest_ms float8,
    OUT query_evictions bigint)
RETURNS record
AS 'MODULE_PATHNAME', 'wal_stall_status_1_1'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

--
-- Per-second history ring.
--
CREATE FUNCTION @extschema@.wal_stall_history(
    since timestamptz DEFAULT NULL,
    OUT sample_time timestamptz,
    OUT seconds float8,
    OUT xids bigint,
    OUT wal_bytes bigint,
    OUT buffer_fill_max float8,
    OUT buffer_fill_avg float8,
    OUT wal_buffer_full_ms float8,
    OUT wal_flush_ms float8,
    OUT wal_insert_ms float8,
    OUT clog_ms float8,
    OUT wal_fsync_max_ms float8,
    OUT wal_buffers_full bigint,
    OUT wal_writes bigint,
    OUT wal_syncs bigint,
    OUT wal_sync_ms float8,
    OUT clog_hits bigint,
    OUT clog_reads bigint,
    OUT waiting_backends float8,
    OUT active_backends float8,
    OUT mean_interval_ms float8,
    OUT wal_fpi bigint,
    OUT checkpoint text,
    OUT checkpoint_kind text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'wal_stall_history_1_1'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL SAFE;

CREATE VIEW @extschema@.wal_stall_history AS
    SELECT * FROM @extschema@.wal_stall_history();

COMMENT ON COLUMN @extschema@.wal_stall_history.seconds IS
    'Real length of the row: above 1 after a gap in sampling, below 1 for the first row after a reset; divide counts by it for rates';
COMMENT ON COLUMN @extschema@.wal_stall_history.checkpoint IS
    'start, running or done: what the checkpointer did in that second, from the redo pointers of the latest checkpoint begun and of pg_control';

REVOKE ALL ON FUNCTION @extschema@.wal_stall_status() FROM PUBLIC;
REVOKE ALL ON FUNCTION @extschema@.wal_stall_history(timestamptz) FROM PUBLIC;
REVOKE ALL ON @extschema@.wal_stall_history FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.wal_stall_status() TO pg_monitor;
GRANT EXECUTE ON FUNCTION @extschema@.wal_stall_history(timestamptz) TO pg_monitor;
GRANT SELECT ON @extschema@.wal_stall_history TO pg_monitor;

--
-- Stall time per statement and class, joinable with pg_stat_statements on
-- (userid, dbid, queryid).  queryid is NULL for episodes outside any
-- statement, and for other users' statements unless the reader has the
-- privileges of pg_read_all_stats.
--
CREATE FUNCTION @extschema@.wal_stall_queries(
    OUT userid oid,
    OUT dbid oid,
    OUT queryid bigint,
    OUT class text,
    OUT episodes bigint,
    OUT total_ms float8,
    OUT max_ms float8,
    OUT p99_ms float8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'wal_stall_queries_1_1'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

CREATE VIEW @extschema@.wal_stall_queries AS
    SELECT * FROM @extschema@.wal_stall_queries();

COMMENT ON VIEW @extschema@.wal_stall_queries IS
    'Sampled stall time per (user, database, statement, class) since the last reset; join pg_stat_statements on (userid, dbid, queryid)';

REVOKE ALL ON FUNCTION @extschema@.wal_stall_queries() FROM PUBLIC;
REVOKE ALL ON @extschema@.wal_stall_queries FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.wal_stall_queries() TO pg_monitor;
GRANT SELECT ON @extschema@.wal_stall_queries TO pg_monitor;

--
-- Settings to change, with the measured evidence (new in 1.1).
--
CREATE FUNCTION @extschema@.wal_stall_advice(
    OUT setting text,
    OUT current text,
    OUT suggested text,
    OUT confidence text,
    OUT evidence text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'wal_stall_advice_1_1'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

REVOKE ALL ON FUNCTION @extschema@.wal_stall_advice() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.wal_stall_advice() TO pg_monitor;

--
-- resolution_ms leaves out the rests of an idle collector (new in 1.1).
--
COMMENT ON COLUMN @extschema@.wal_stall_summary.resolution_ms IS
    'Mean real time between two full-rate samples (rests excluded): the resolution of every sampled duration';
