/* wal_stall--1.2--1.3.sql */
-- Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION wal_stall UPDATE TO '1.3'" to load this file. \quit

-- 1.3: wal_stall_summary gains "episodes_counted" and "episodes_stderr".
-- Under a load of short waits the collector can count episodes in bursts,
-- each episode counted standing for several, so that "episodes" becomes an
-- estimate: these say how many episodes it was estimated from and how
-- precise it is.  The row type changes, so the function and its view are
-- dropped and created again (a view of yours built on them makes this
-- fail: drop it first, and create it again after the update).

ALTER EXTENSION wal_stall DROP VIEW @extschema@.wal_stall_summary;
ALTER EXTENSION wal_stall DROP FUNCTION @extschema@.wal_stall_summary();
DROP VIEW @extschema@.wal_stall_summary;
DROP FUNCTION @extschema@.wal_stall_summary();

--
-- Episodes per stall class since the last reset, beside core's exact
-- counters where core has one.
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
AS 'MODULE_PATHNAME', 'wal_stall_summary_1_3'
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
    'Sampling period of the class''s samples, weighted by their time (for a class not sampled, the mean real time between two samples that did not end a rest): the resolution of its sampled durations';
COMMENT ON COLUMN @extschema@.wal_stall_summary.episodes_counted IS
    'Episodes counted one by one, from which episodes estimates all that ended: equal to episodes while every episode is counted';
COMMENT ON COLUMN @extschema@.wal_stall_summary.episodes_stderr IS
    'Standard error of episodes as an estimate of all episodes: 0 when every episode that began was counted';

REVOKE ALL ON FUNCTION @extschema@.wal_stall_summary() FROM PUBLIC;
REVOKE ALL ON @extschema@.wal_stall_summary FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.wal_stall_summary() TO pg_monitor;
GRANT SELECT ON @extschema@.wal_stall_summary TO pg_monitor;
