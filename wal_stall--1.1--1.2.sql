/* wal_stall--1.1--1.2.sql */
-- Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION wal_stall UPDATE TO '1.2'" to load this file. \quit

-- 1.2: wal_stall_history gains "resolution_ms", the sampling period its
-- stall figures were measured at (the collector's period now adapts: see
-- wal_stall.max_sample_interval).  The row type changes, so the function
-- and its view are dropped and created again (a view of yours built on
-- them makes this fail: drop it first, and create it again after the
-- update).  wal_stall_summary's resolution_ms is now per class.

ALTER EXTENSION wal_stall DROP VIEW @extschema@.wal_stall_history;
ALTER EXTENSION wal_stall DROP FUNCTION @extschema@.wal_stall_history(timestamptz);
DROP VIEW @extschema@.wal_stall_history;
DROP FUNCTION @extschema@.wal_stall_history(timestamptz);

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
    OUT checkpoint_kind text,
    OUT resolution_ms float8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'wal_stall_history_1_2'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL SAFE;

CREATE VIEW @extschema@.wal_stall_history AS
    SELECT * FROM @extschema@.wal_stall_history();

COMMENT ON COLUMN @extschema@.wal_stall_history.seconds IS
    'Real length of the row: above 1 after a gap in sampling, below 1 for the first row after a reset; divide counts by it for rates';
COMMENT ON COLUMN @extschema@.wal_stall_history.checkpoint IS
    'start, running or done: what the checkpointer did in that second, from the redo pointers of the latest checkpoint begun and of pg_control';
COMMENT ON COLUMN @extschema@.wal_stall_history.resolution_ms IS
    'Sampling period of the row''s stall samples, weighted by their time: its stall times are sums of samples this far apart (NULL when it has none)';

REVOKE ALL ON FUNCTION @extschema@.wal_stall_history(timestamptz) FROM PUBLIC;
REVOKE ALL ON @extschema@.wal_stall_history FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.wal_stall_history(timestamptz) TO pg_monitor;
GRANT SELECT ON @extschema@.wal_stall_history TO pg_monitor;
