/* sql/wal_stall.sql: the install script, copied to wal_stall--VERSION.sql by the Makefile */
-- Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION wal_stall" to load this file. \quit

-- Every reference below is qualified with the extension's schema, so that
-- nothing depends on the search_path of whoever runs CREATE EXTENSION.

--
-- Episodes per stall class since the last reset, beside core's exact
-- counters where core has one.  Functions that read core statistics or
-- backend status are PARALLEL RESTRICTED, like the pg_stat functions: they
-- use the leader's statistics snapshot.
--
CREATE FUNCTION @extschema@.wal_stall_summary(
    OUT class text,
    OUT kind text,
    OUT episodes bigint,
    OUT samples bigint,
    OUT total_ms float8,
    OUT mean_ms float8,
    OUT p50_ms float8,
    OUT p95_ms float8,
    OUT p99_ms float8,
    OUT max_ms float8,
    OUT exact_count bigint,
    OUT exact_total_ms float8,
    OUT since timestamptz,
    OUT resolution_ms float8,
    OUT episodes_counted bigint,
    OUT episodes_stderr float8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'wal_stall_summary'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED ROWS 7;

CREATE VIEW @extschema@.wal_stall_summary AS
    SELECT * FROM @extschema@.wal_stall_summary();

COMMENT ON VIEW @extschema@.wal_stall_summary IS
    'Sampled wait episodes per stall class since the last reset, beside core''s exact counters';
COMMENT ON COLUMN @extschema@.wal_stall_summary.episodes IS
    'Finished episodes seen by sampling; when the collector counts them in bursts, an estimate from the episodes_counted it counted, each standing for several (its standard error: episodes_stderr)';
COMMENT ON COLUMN @extschema@.wal_stall_summary.total_ms IS
    'Estimated: sum of the sampled episodes'' durations, each within one resolution_ms of the truth';
COMMENT ON COLUMN @extschema@.wal_stall_summary.p50_ms IS
    'Estimated from power-of-two histogram buckets';
COMMENT ON COLUMN @extschema@.wal_stall_summary.exact_count IS
    'Exact: delta of the matching core counter since the last reset, NULL where core has none';
COMMENT ON COLUMN @extschema@.wal_stall_summary.resolution_ms IS
    'Sampling interval of the class''s samples, weighted by their time (for a class not sampled, the mean real time between two samples that did not end a rest): the resolution of its sampled durations';
COMMENT ON COLUMN @extschema@.wal_stall_summary.episodes_counted IS
    'Episodes counted one by one, from which episodes estimates all that ended: equal to episodes while every episode is counted';
COMMENT ON COLUMN @extschema@.wal_stall_summary.episodes_stderr IS
    'Standard error of episodes as an estimate of all episodes: 0 when every episode that began was counted';

--
-- Episode-length histogram: power-of-two buckets starting at one sample.
--
CREATE FUNCTION @extschema@.wal_stall_histogram(
    OUT class text,
    OUT lower_ms float8,
    OUT upper_ms float8,
    OUT episodes bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'wal_stall_histogram'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

CREATE VIEW @extschema@.wal_stall_histogram AS
    SELECT * FROM @extschema@.wal_stall_histogram();

--
-- Processes in a tracked wait right now.
--
CREATE FUNCTION @extschema@.wal_stall_current(
    OUT pid int,
    OUT backend_type text,
    OUT class text,
    OUT wait_event_type text,
    OUT wait_event text,
    OUT waiting_ms float8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'wal_stall_current'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

CREATE VIEW @extschema@.wal_stall_current AS
    SELECT * FROM @extschema@.wal_stall_current();

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
AS 'MODULE_PATHNAME', 'wal_stall_status'
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
    OUT checkpoint_kind text,
    OUT resolution_ms float8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'wal_stall_history'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL SAFE;

CREATE VIEW @extschema@.wal_stall_history AS
    SELECT * FROM @extschema@.wal_stall_history();

COMMENT ON COLUMN @extschema@.wal_stall_history.seconds IS
    'Real length of the row: above 1 after a gap in sampling, below 1 for the first row after a reset; divide counts by it for rates';
COMMENT ON COLUMN @extschema@.wal_stall_history.checkpoint IS
    'start, running or done: what the checkpointer did in that second, from the redo pointers of the latest checkpoint begun and of pg_control';
COMMENT ON COLUMN @extschema@.wal_stall_history.resolution_ms IS
    'Sampling interval of the row''s stall samples, weighted by their time: its stall times are sums of samples this far apart (NULL when it has none)';

--
-- The CLOG: buffers, exact SLRU counters, sampled lock and I/O waits.
--
CREATE FUNCTION @extschema@.wal_stall_clog(
    OUT buffers int,
    OUT hits bigint,
    OUT reads bigint,
    OUT hit_ratio float8,
    OUT zeroed bigint,
    OUT written bigint,
    OUT flushes bigint,
    OUT lock_episodes bigint,
    OUT lock_ms float8,
    OUT lock_p99_ms float8,
    OUT io_ms float8,
    OUT since timestamptz)
RETURNS record
AS 'MODULE_PATHNAME', 'wal_stall_clog'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

CREATE VIEW @extschema@.wal_stall_clog AS
    SELECT * FROM @extschema@.wal_stall_clog();

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
AS 'MODULE_PATHNAME', 'wal_stall_queries'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

CREATE VIEW @extschema@.wal_stall_queries AS
    SELECT * FROM @extschema@.wal_stall_queries();

COMMENT ON VIEW @extschema@.wal_stall_queries IS
    'Sampled stall time per (user, database, statement, class) since the last reset; join pg_stat_statements on (userid, dbid, queryid)';

--
-- Reset every figure (superuser unless granted).
--
CREATE FUNCTION @extschema@.wal_stall_reset()
RETURNS void
AS 'MODULE_PATHNAME', 'wal_stall_reset'
LANGUAGE C STRICT VOLATILE PARALLEL UNSAFE;

--
-- Privileges: reading is for pg_monitor, resetting for superusers.
--
REVOKE ALL ON FUNCTION @extschema@.wal_stall_summary() FROM PUBLIC;
REVOKE ALL ON FUNCTION @extschema@.wal_stall_histogram() FROM PUBLIC;
REVOKE ALL ON FUNCTION @extschema@.wal_stall_current() FROM PUBLIC;
REVOKE ALL ON FUNCTION @extschema@.wal_stall_status() FROM PUBLIC;
REVOKE ALL ON FUNCTION @extschema@.wal_stall_history(timestamptz) FROM PUBLIC;
REVOKE ALL ON FUNCTION @extschema@.wal_stall_clog() FROM PUBLIC;
REVOKE ALL ON FUNCTION @extschema@.wal_stall_reset() FROM PUBLIC;
REVOKE ALL ON @extschema@.wal_stall_summary, @extschema@.wal_stall_histogram,
    @extschema@.wal_stall_current, @extschema@.wal_stall_history, @extschema@.wal_stall_clog FROM PUBLIC;

GRANT EXECUTE ON FUNCTION @extschema@.wal_stall_summary() TO pg_monitor;
GRANT EXECUTE ON FUNCTION @extschema@.wal_stall_histogram() TO pg_monitor;
GRANT EXECUTE ON FUNCTION @extschema@.wal_stall_current() TO pg_monitor;
GRANT EXECUTE ON FUNCTION @extschema@.wal_stall_status() TO pg_monitor;
GRANT EXECUTE ON FUNCTION @extschema@.wal_stall_history(timestamptz) TO pg_monitor;
GRANT EXECUTE ON FUNCTION @extschema@.wal_stall_clog() TO pg_monitor;
GRANT SELECT ON @extschema@.wal_stall_summary, @extschema@.wal_stall_histogram,
    @extschema@.wal_stall_current, @extschema@.wal_stall_history, @extschema@.wal_stall_clog TO pg_monitor;

REVOKE ALL ON FUNCTION @extschema@.wal_stall_queries() FROM PUBLIC;
REVOKE ALL ON @extschema@.wal_stall_queries FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.wal_stall_queries() TO pg_monitor;
GRANT SELECT ON @extschema@.wal_stall_queries TO pg_monitor;

-- In-server fsync probe
--
-- pg_test_fsync's tests, run by the server on a scratch file in its WAL
-- directory (or in directory), seconds per test, with per-op latencies.
-- Needs no shared memory, so it works without preloading the library.
-- Superuser-only unless granted: it writes and syncs files.
--
CREATE FUNCTION @extschema@.wal_stall_test_fsync(
    seconds float8 DEFAULT 2,
    directory text DEFAULT NULL,
    OUT test text,
    OUT method text,
    OUT write_kb int,
    OUT writes_per_op int,
    OUT ops_per_sec float8,
    OUT usecs_per_op float8,
    OUT p50_us float8,
    OUT p99_us float8,
    OUT max_us float8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'wal_stall_test_fsync'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL UNSAFE
ROWS 18;

REVOKE ALL ON FUNCTION @extschema@.wal_stall_test_fsync(float8, text) FROM PUBLIC;

--
-- Settings to change, with the measured evidence.
--
CREATE FUNCTION @extschema@.wal_stall_advice(
    OUT setting text,
    OUT current text,
    OUT suggested text,
    OUT confidence text,
    OUT evidence text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'wal_stall_advice'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

REVOKE ALL ON FUNCTION @extschema@.wal_stall_advice() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.wal_stall_advice() TO pg_monitor;

--
-- The figures the advice reads, as one row, and the advice on several such
-- readings pooled (the runs of one configuration, each too short alone).
-- The columns are advice.c's figures in order: the library checks them.
--
CREATE TYPE @extschema@.wal_stall_advice_figures AS (
    server_version integer,
    readings integer,
    seconds float8,
    history_rows integer,
    xids bigint,
    wal_bytes bigint,
    peak_wal_bytes_per_sec float8,
    seconds_ring_full integer,
    client_seconds float8,
    checkpoints integer,
    checkpoints_timed integer,
    wrap_ms_after_checkpoint float8,
    seconds_after_checkpoint float8,
    wrap_ms float8,
    flush_ms float8,
    wrap_ms_writer_asleep float8,
    write_p99_ms float8,
    fsync_p99_ms float8,
    write_ms float8,
    fsync_ms float8,
    clog_hits bigint,
    clog_reads bigint,
    clog_lock_ms float8,
    clog_slru_io_ms float8,
    clog_buffers integer,
    clog_span_pages integer,
    wal_buffers_bytes bigint,
    wal_buffers_max_bytes bigint,
    wal_block_size integer,
    wal_writer_delay_ms integer,
    wal_writer_flush_after_bytes bigint,
    max_wal_size_mb integer,
    checkpoint_timeout_s integer,
    shared_buffers_kb bigint,
    clog_buffers_max integer);

CREATE FUNCTION @extschema@.wal_stall_advice_figures()
RETURNS @extschema@.wal_stall_advice_figures
AS 'MODULE_PATHNAME', 'wal_stall_advice_figures'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

REVOKE ALL ON FUNCTION @extschema@.wal_stall_advice_figures() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.wal_stall_advice_figures() TO pg_monitor;

CREATE FUNCTION @extschema@.wal_stall_advice(
    figures @extschema@.wal_stall_advice_figures[],
    OUT setting text,
    OUT current text,
    OUT suggested text,
    OUT confidence text,
    OUT evidence text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'wal_stall_advice_pooled'
LANGUAGE C STRICT IMMUTABLE PARALLEL SAFE;

REVOKE ALL ON FUNCTION @extschema@.wal_stall_advice(@extschema@.wal_stall_advice_figures[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.wal_stall_advice(@extschema@.wal_stall_advice_figures[]) TO pg_monitor;
