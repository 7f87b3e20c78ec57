--
-- wal_stall: every SQL function called with hostile input.  Each call ends
-- in a result or in a PostgreSQL error; the line after an error-prone call
-- prints its SQLSTATE (00000: no error), so that every error's errcode is
-- visible without VERBOSITY verbose, whose LOCATION line (source file and
-- line) would differ between builds and major versions.  The calls that
-- match no function run with VERBOSITY terse: the message and its position,
-- without core's hint or detail, which 19 changed.
--
-- Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
--
SET client_min_messages = warning;
DROP EXTENSION IF EXISTS wal_stall;
CREATE EXTENSION wal_stall;
RESET client_min_messages;
\set VERBOSITY default
\set SHOW_CONTEXT never

-- The error of a statement as "SQLSTATE: message", for errors whose text
-- holds something that varies or is long (a 100000-character argument, the
-- data directory, a process id): those are replaced by fixed marks, and a
-- long message shows its two ends and its length.
CREATE FUNCTION regress_error(query text, datadir text DEFAULT NULL)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    state text;
    msg text;
BEGIN
    EXECUTE query;
    RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
    msg := replace(msg, coalesce(datadir, '?'), '$PGDATA');
    msg := replace(msg, repeat('x', 100000), 'x*100000');
    msg := regexp_replace(msg, 'fsync\.[0-9]+', 'fsync.PID', 'g');
    msg := regexp_replace(msg, '/proc/[0-9]+', '/proc/PID', 'g');
    IF length(msg) > 200 THEN
        msg := left(msg, 60) || ' ... ' || right(msg, 60)
            || ' (' || length(msg) || ' characters)';
    END IF;
    RETURN state || ': ' || msg;
END
$$;
SELECT current_setting('data_directory') AS datadir \gset

--
-- The functions without arguments: extra arguments of any type do not
-- resolve to them.
--
SELECT count(*) = 7 AS seven_classes FROM wal_stall_summary(); \echo :SQLSTATE
\set VERBOSITY terse
SELECT * FROM wal_stall_summary(NULL); \echo :SQLSTATE
SELECT * FROM wal_stall_summary(-1); \echo :SQLSTATE
SELECT * FROM wal_stall_summary('x'); \echo :SQLSTATE
SELECT count(*) = (SELECT count(DISTINCT class) FROM wal_stall_summary) AS one_row_per_class
FROM wal_stall_summary; \echo :SQLSTATE
SELECT count(*) = count(DISTINCT (class, lower_ms)) AS bucket_rows_distinct
FROM wal_stall_histogram(); \echo :SQLSTATE
SELECT * FROM wal_stall_histogram(0); \echo :SQLSTATE
SELECT * FROM wal_stall_histogram(1e308); \echo :SQLSTATE
SELECT count(*) = count(*) FILTER (WHERE pid > 0 AND waiting_ms > 0) AS current_rows_valid
FROM wal_stall_current(); \echo :SQLSTATE
SELECT * FROM wal_stall_current(9223372036854775807); \echo :SQLSTATE
SELECT * FROM wal_stall_current(''); \echo :SQLSTATE
SELECT collector_pid > 0 AS collector_runs, in_recovery = pg_is_in_recovery() AS in_recovery
FROM wal_stall_status(); \echo :SQLSTATE
SELECT * FROM wal_stall_status(NULL::timestamptz); \echo :SQLSTATE
SELECT * FROM wal_stall_status('NaN'::float8); \echo :SQLSTATE
SELECT buffers > 0 AS has_buffers, hit_ratio IS NULL OR hit_ratio BETWEEN 0 AND 1 AS ratio
FROM wal_stall_clog(); \echo :SQLSTATE
SELECT * FROM wal_stall_clog(true); \echo :SQLSTATE
SELECT * FROM wal_stall_clog('/etc'); \echo :SQLSTATE
SELECT wal_stall_reset('Infinity'); \echo :SQLSTATE
SELECT wal_stall_reset(NULL); \echo :SQLSTATE
SELECT count(*) = count(*) FILTER (WHERE class IS NOT NULL AND episodes > 0) AS queries_rows_valid
FROM wal_stall_queries(); \echo :SQLSTATE
SELECT * FROM wal_stall_queries(NULL); \echo :SQLSTATE
SELECT * FROM wal_stall_queries(0::oid); \echo :SQLSTATE
SELECT count(*) > 0 AS advice_rows, count(*) = count(evidence) AS evidence_in_every_row
FROM wal_stall_advice(); \echo :SQLSTATE
SELECT * FROM wal_stall_advice('wal_buffers'); \echo :SQLSTATE
SELECT * FROM wal_stall_advice(NULL::int); \echo :SQLSTATE
SELECT * FROM wal_stall_advice(ARRAY[ROW(1, 2)]); \echo :SQLSTATE
\set VERBOSITY default

--
-- wal_stall_advice_figures(): the figures the advice reads, one row, and
-- wal_stall_advice(figures[]): readings pooled.  A live reading first, then
-- a crafted one (30 s of a loaded server whose 32kB ring filled in 5 s),
-- alone, pooled twenty times, and with figures that are wrong.
--
SELECT readings = 1 AS one_reading,
       server_version = current_setting('server_version_num')::int AS this_server,
       wal_buffers_bytes = 32768 AS ring_is_32kb,
       wal_block_size = current_setting('wal_block_size')::int AS block_size,
       seconds >= 0 AND history_rows >= 0 AND wal_bytes >= 0 AS counts_not_negative
FROM wal_stall_advice_figures(); \echo :SQLSTATE
SELECT count(*) > 0 AS pooled_rows
FROM wal_stall_advice(ARRAY[wal_stall_advice_figures(), wal_stall_advice_figures()]); \echo :SQLSTATE
CREATE TEMP TABLE regress_reading AS
SELECT ROW(150000, 1, 30, 30, 30000, 31457280, 8388608, 5, 120, 0, 0, 0, 0, 500, 0, 0,
           1.0, 2.0, 10, 50, NULL, NULL, 0, 0, 32, 1, 32768, 2147475456, 8192, 200,
           1048576, 1024, 300, 131072, 128)::wal_stall_advice_figures AS f;
GRANT SELECT ON regress_reading TO PUBLIC;
-- the reading with one figure changed
CREATE FUNCTION regress_reading_with(figure text, value text) RETURNS wal_stall_advice_figures
LANGUAGE sql AS $$
    SELECT jsonb_populate_record(f, jsonb_build_object(figure, value)) FROM regress_reading
$$;
SELECT setting, confidence, evidence
FROM wal_stall_advice(ARRAY[(SELECT f FROM regress_reading)]); \echo :SQLSTATE
SELECT setting, current, suggested, confidence, evidence
FROM wal_stall_advice((SELECT array_fill(f, ARRAY[20]) FROM regress_reading)); \echo :SQLSTATE
SELECT count(*) AS rows FROM wal_stall_advice(NULL); \echo :SQLSTATE
SELECT * FROM wal_stall_advice('{}'::wal_stall_advice_figures[]); \echo :SQLSTATE
SELECT * FROM wal_stall_advice(ARRAY[NULL::wal_stall_advice_figures]); \echo :SQLSTATE
SELECT * FROM wal_stall_advice(ARRAY[regress_reading_with('seconds', NULL)]); \echo :SQLSTATE
SELECT * FROM wal_stall_advice(ARRAY[regress_reading_with('wrap_ms', '-1')]); \echo :SQLSTATE
SELECT * FROM wal_stall_advice(ARRAY[regress_reading_with('seconds', 'NaN')]); \echo :SQLSTATE
SELECT * FROM wal_stall_advice(ARRAY[regress_reading_with('seconds', 'Infinity')]); \echo :SQLSTATE
SELECT * FROM wal_stall_advice(ARRAY[regress_reading_with('readings', '0')]); \echo :SQLSTATE
SELECT * FROM wal_stall_advice(ARRAY[regress_reading_with('wal_buffers_bytes', '9223372036854775807')]); \echo :SQLSTATE
SELECT * FROM wal_stall_advice(ARRAY[regress_reading_with('peak_wal_bytes_per_sec', '1e300')]); \echo :SQLSTATE
SELECT * FROM wal_stall_advice(ARRAY[regress_reading_with('checkpoints', '2147483647')]); \echo :SQLSTATE
-- each in range, their sum not: refused, not wrapped around
SELECT * FROM wal_stall_advice(array_fill(regress_reading_with('seconds_ring_full', '60000000'), ARRAY[2])); \echo :SQLSTATE
SELECT * FROM wal_stall_advice(array_fill((SELECT f FROM regress_reading), ARRAY[2, 2])); \echo :SQLSTATE
SELECT * FROM wal_stall_advice(ARRAY[(SELECT f FROM regress_reading),
    regress_reading_with('wal_buffers_bytes', '1048576')]); \echo :SQLSTATE
-- an unknown tail (no fsync waited for) is no error: the write's alone counts
SELECT setting, evidence
FROM wal_stall_advice(array_fill(regress_reading_with('fsync_p99_ms', NULL), ARRAY[20])); \echo :SQLSTATE

--
-- wal_stall_history(since timestamptz): rows after since.  Wait for the
-- ring to hold a row first.
--
SELECT regress_wait_for('(SELECT count(*) > 0 FROM wal_stall_history)') AS history_has_rows;
-- NULL and -infinity: every row; no row is in the future
SELECT count(*) > 0 AS rows, count(*) FILTER (WHERE sample_time > now() + interval '1 minute') AS future
FROM wal_stall_history(NULL); \echo :SQLSTATE
SELECT count(*) > 0 AS rows FROM wal_stall_history(NULL::timestamptz); \echo :SQLSTATE
SELECT count(*) > 0 AS rows FROM wal_stall_history(since => NULL); \echo :SQLSTATE
SELECT count(*) > 0 AS rows FROM wal_stall_history(timestamptz '-infinity'); \echo :SQLSTATE
SELECT count(*) > 0 AS rows FROM wal_stall_history(timestamptz '4713-01-01 00:00:00+00 BC'); \echo :SQLSTATE
SELECT count(*) > 0 AS rows FROM wal_stall_history(timestamptz 'epoch'); \echo :SQLSTATE
SELECT count(*) > 0 AS rows FROM wal_stall_history(timestamptz '2026-01-01 00:00:00+00'); \echo :SQLSTATE
-- infinity and the future: no row
SELECT count(*) AS rows FROM wal_stall_history(timestamptz 'infinity'); \echo :SQLSTATE
SELECT count(*) AS rows FROM wal_stall_history(now() + interval '1 year'); \echo :SQLSTATE
SELECT count(*) AS rows FROM wal_stall_history(timestamptz '294276-12-31 23:59:59+00'); \echo :SQLSTATE
-- the newest row's own time: strictly after it, so not that row
SELECT count(*) FILTER (WHERE sample_time <= (SELECT max(sample_time) FROM wal_stall_history)) AS rows_at_or_before
FROM wal_stall_history((SELECT max(sample_time) FROM wal_stall_history)); \echo :SQLSTATE
-- out of timestamptz's range, malformed, wrong types
SELECT count(*) FROM wal_stall_history(timestamptz '4714-11-23 00:00:00+00 BC'); \echo :SQLSTATE
SELECT count(*) FROM wal_stall_history(timestamptz '294277-01-01 00:00:00+00'); \echo :SQLSTATE
SELECT count(*) FROM wal_stall_history('not a time'); \echo :SQLSTATE
SELECT count(*) FROM wal_stall_history(''); \echo :SQLSTATE
SELECT count(*) FROM wal_stall_history('2026-02-30'); \echo :SQLSTATE
SELECT E'2026-01-01\\x00'::timestamptz AS parsed_as; \echo :SQLSTATE
SELECT count(*) FILTER (WHERE sample_time <= E'2026-01-01\\x00'::timestamptz) AS rows_not_after
FROM wal_stall_history(E'2026-01-01\\x00'); \echo :SQLSTATE
SELECT count(*) FROM wal_stall_history(E'2026-01-01\x01'); \echo :SQLSTATE
SELECT regress_error($$SELECT count(*) FROM wal_stall_history(repeat('x', 100000)::timestamptz)$$);
\set VERBOSITY terse
SELECT count(*) FROM wal_stall_history(1); \echo :SQLSTATE
SELECT count(*) FROM wal_stall_history(1e308); \echo :SQLSTATE
SELECT count(*) FROM wal_stall_history('NaN'::float8); \echo :SQLSTATE
SELECT count(*) FROM wal_stall_history(9223372036854775807); \echo :SQLSTATE
SELECT count(*) FROM wal_stall_history('Infinity'::float8); \echo :SQLSTATE
SELECT count(*) FROM wal_stall_history(interval '1 hour'); \echo :SQLSTATE
SELECT count(*) FROM wal_stall_history(NULL, NULL); \echo :SQLSTATE
\set VERBOSITY default
SELECT count(*) FROM wal_stall_history(to_timestamp('NaN'::float8)); \echo :SQLSTATE
SELECT count(*) FROM wal_stall_history(to_timestamp(1e308)); \echo :SQLSTATE
-- a date converts implicitly
SELECT count(*) AS rows FROM wal_stall_history(date 'infinity'); \echo :SQLSTATE

--
-- Wrong contexts.
--
-- set-returning functions in the select list are fine
SELECT count(*) = 7 AS seven_classes FROM (SELECT wal_stall_summary()) s; \echo :SQLSTATE
SELECT count(*) = 1 AS one_row FROM (SELECT (wal_stall_status()).*) s; \echo :SQLSTATE
SELECT (wal_stall_status()).collector_pid > 0 AS collector_runs; \echo :SQLSTATE
SELECT (wal_stall_clog()).buffers > 0 AS has_buffers; \echo :SQLSTATE
-- (no header: the columns are not this test's subject)
\pset tuples_only on
SELECT * FROM wal_stall_status() WHERE false; \echo :SQLSTATE
\pset tuples_only off
SELECT * FROM wal_stall_summary() LIMIT 0; \echo :SQLSTATE
SELECT count(*) = 14 AS two_per_class FROM wal_stall_summary, generate_series(1, 2); \echo :SQLSTATE
-- but not where core forbids them
SELECT 1 WHERE wal_stall_summary() IS NOT NULL; \echo :SQLSTATE
SELECT sum((wal_stall_summary()).episodes); \echo :SQLSTATE
SELECT count(*) FROM wal_stall_summary() AS t(a text); \echo :SQLSTATE
SELECT wal_stall_status().ticks; \echo :SQLSTATE
-- in a parallel plan (wal_stall_summary is PARALLEL RESTRICTED, the ring
-- readers PARALLEL SAFE), in a scrollable cursor, in a read-only transaction
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT count(*) = 7 AS seven_classes FROM wal_stall_summary; \echo :SQLSTATE
SELECT count(*) > 0 AS rows FROM wal_stall_history; \echo :SQLSTATE
SELECT count(*) = 1 AS one_row FROM wal_stall_status(); \echo :SQLSTATE
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
BEGIN;
DECLARE c SCROLL CURSOR FOR SELECT class FROM wal_stall_summary;
FETCH LAST FROM c; \echo :SQLSTATE
FETCH BACKWARD 2 FROM c; \echo :SQLSTATE
FETCH FIRST FROM c; \echo :SQLSTATE
COMMIT;
BEGIN READ ONLY;
SELECT count(*) = 7 AS seven_classes FROM wal_stall_summary; \echo :SQLSTATE
SELECT count(*) AS rows FROM wal_stall_test_fsync(0.1, 'base/pgsql_tmp'); \echo :SQLSTATE
ROLLBACK;
PREPARE q(timestamptz) AS SELECT count(*) AS rows FROM wal_stall_history($1);
EXECUTE q('infinity'); \echo :SQLSTATE
EXECUTE q('bogus'); \echo :SQLSTATE
DEALLOCATE q;

--
-- wal_stall_reset(): superusers only unless granted.
--
SELECT wal_stall_reset(); \echo :SQLSTATE
BEGIN READ ONLY;
SELECT wal_stall_reset(); \echo :SQLSTATE
ROLLBACK;
CREATE ROLE regress_nobody;
CREATE ROLE regress_monitor IN ROLE pg_monitor;
SET ROLE regress_nobody;
SELECT wal_stall_reset(); \echo :SQLSTATE
SELECT count(*) FROM wal_stall_history(timestamptz 'infinity'); \echo :SQLSTATE
SELECT count(*) FROM wal_stall_history; \echo :SQLSTATE
SELECT count(*) FROM wal_stall_clog; \echo :SQLSTATE
SELECT * FROM wal_stall_histogram; \echo :SQLSTATE
SELECT count(*) FROM wal_stall_queries; \echo :SQLSTATE
SELECT count(*) FROM wal_stall_advice(); \echo :SQLSTATE
SELECT count(*) FROM wal_stall_advice_figures(); \echo :SQLSTATE
SELECT count(*) FROM wal_stall_advice(ARRAY[(SELECT f FROM regress_reading)]); \echo :SQLSTATE
RESET ROLE;
SET ROLE regress_monitor;
SELECT count(*) >= 0 AS queries_readable FROM wal_stall_queries; \echo :SQLSTATE
SELECT count(*) > 0 AS advice_readable FROM wal_stall_advice(); \echo :SQLSTATE
SELECT readings AS figures_readable FROM wal_stall_advice_figures(); \echo :SQLSTATE
SELECT count(*) AS pooled_advice_readable FROM wal_stall_advice(ARRAY[(SELECT f FROM regress_reading)]); \echo :SQLSTATE
SELECT wal_stall_reset(); \echo :SQLSTATE
SELECT count(*) AS rows FROM wal_stall_history(timestamptz 'infinity'); \echo :SQLSTATE
SELECT count(*) FROM wal_stall_history('garbage'); \echo :SQLSTATE
SELECT count(*) = 1 AS one_row FROM wal_stall_clog; \echo :SQLSTATE
SELECT count(*) FROM wal_stall_test_fsync(0.1); \echo :SQLSTATE
RESET ROLE;

--
-- wal_stall_test_fsync(seconds, directory): seconds first.
--
SELECT * FROM wal_stall_test_fsync(NULL); \echo :SQLSTATE
SELECT * FROM wal_stall_test_fsync(NULL, NULL); \echo :SQLSTATE
SELECT * FROM wal_stall_test_fsync(-1); \echo :SQLSTATE
SELECT * FROM wal_stall_test_fsync(0); \echo :SQLSTATE
SELECT * FROM wal_stall_test_fsync(-0.0); \echo :SQLSTATE
SELECT * FROM wal_stall_test_fsync(0.0999999999); \echo :SQLSTATE
SELECT * FROM wal_stall_test_fsync(60.0000001); \echo :SQLSTATE
SELECT * FROM wal_stall_test_fsync('NaN'); \echo :SQLSTATE
SELECT * FROM wal_stall_test_fsync('Infinity'); \echo :SQLSTATE
SELECT * FROM wal_stall_test_fsync('-Infinity'); \echo :SQLSTATE
SELECT * FROM wal_stall_test_fsync(1e308); \echo :SQLSTATE
SELECT * FROM wal_stall_test_fsync(-1e308); \echo :SQLSTATE
SELECT * FROM wal_stall_test_fsync(1e-308); \echo :SQLSTATE
SELECT * FROM wal_stall_test_fsync(9223372036854775807); \echo :SQLSTATE
SELECT * FROM wal_stall_test_fsync(1e309); \echo :SQLSTATE
SELECT * FROM wal_stall_test_fsync('abc'); \echo :SQLSTATE
SELECT * FROM wal_stall_test_fsync(''); \echo :SQLSTATE
\set VERBOSITY terse
SELECT * FROM wal_stall_test_fsync(interval '1 second'); \echo :SQLSTATE
SELECT * FROM wal_stall_test_fsync(seconds => '0.1', directory => 1); \echo :SQLSTATE
SELECT * FROM wal_stall_test_fsync(0.1, 'pg_wal', 'extra'); \echo :SQLSTATE
\set VERBOSITY default
SELECT * FROM wal_stall_test_fsync(directory => 'pg_wal', seconds => -1); \echo :SQLSTATE
-- a bad seconds is reported before a bad directory
SELECT * FROM wal_stall_test_fsync(-1, '/no/such'); \echo :SQLSTATE

-- Directories, as superuser.  The calls that would run use 0.1 s per test
-- and count the rows (18 tests).
SELECT count(*) AS tests FROM wal_stall_test_fsync(0.1, NULL); \echo :SQLSTATE
SELECT count(*) AS tests FROM wal_stall_test_fsync(0.1, 'pg_wal/../pg_wal'); \echo :SQLSTATE
SELECT * FROM wal_stall_test_fsync(0.1, ''); \echo :SQLSTATE
SELECT * FROM wal_stall_test_fsync(0.1, '.'); \echo :SQLSTATE
-- a superuser may test outside the data directory (here tmp_check)
-- (whether it takes O_DIRECT depends on its file system: no NOTICE here)
SET client_min_messages = warning;
SELECT count(*) AS tests FROM wal_stall_test_fsync(0.1, '..'); \echo :SQLSTATE
RESET client_min_messages;
SELECT * FROM wal_stall_test_fsync(0.1, 'pg_tblspc'); \echo :SQLSTATE
SELECT * FROM wal_stall_test_fsync(0.1, 'global'); \echo :SQLSTATE
SELECT * FROM wal_stall_test_fsync(0.1, 'base'); \echo :SQLSTATE
SELECT * FROM wal_stall_test_fsync(0.1, 'pg_xact'); \echo :SQLSTATE
SELECT * FROM wal_stall_test_fsync(0.1, 'pg_wal/archive_status'); \echo :SQLSTATE
SELECT * FROM wal_stall_test_fsync(0.1, E'pg_wal\\n'); \echo :SQLSTATE
SELECT * FROM wal_stall_test_fsync(0.1, E'pg_wal\n'); \echo :SQLSTATE
SELECT * FROM wal_stall_test_fsync(0.1, E'pg_wal\\000'); \echo :SQLSTATE
SELECT * FROM wal_stall_test_fsync(0.1, E'pg_wal\x00'); \echo :SQLSTATE
SELECT * FROM wal_stall_test_fsync(0.1, E'pg_wal\x01'); \echo :SQLSTATE
SELECT * FROM wal_stall_test_fsync(0.1, 'pg_wal"; DROP TABLE x; --'); \echo :SQLSTATE
SELECT * FROM wal_stall_test_fsync(0.1, $$pg_wal'$$); \echo :SQLSTATE
SELECT * FROM wal_stall_test_fsync(0.1, '%s%s%s%s%n'); \echo :SQLSTATE
SELECT * FROM wal_stall_test_fsync(0.1, 'pg_wal/*'); \echo :SQLSTATE
SELECT * FROM wal_stall_test_fsync(0.1, '~postgres'); \echo :SQLSTATE
SELECT * FROM wal_stall_test_fsync(0.1, '$PGDATA'); \echo :SQLSTATE
SELECT * FROM wal_stall_test_fsync(0.1, 'base/pgsql_tmp/../../global'); \echo :SQLSTATE
SELECT * FROM wal_stall_test_fsync(0.1, 'PG_VERSION'); \echo :SQLSTATE
SELECT * FROM wal_stall_test_fsync(0.1, '/no/such'); \echo :SQLSTATE
SELECT * FROM wal_stall_test_fsync(0.1, '/etc/passwd'); \echo :SQLSTATE
SELECT regress_error($$SELECT * FROM wal_stall_test_fsync(0.1, '../../../../../../../../../../../../../../../../etc')$$);
SELECT regress_error($$SELECT * FROM wal_stall_test_fsync(0.1, '/etc')$$);
SELECT regress_error($$SELECT * FROM wal_stall_test_fsync(0.1, '/')$$);
SELECT regress_error($$SELECT * FROM wal_stall_test_fsync(0.1, '//')$$);
SELECT regress_error($$SELECT * FROM wal_stall_test_fsync(0.1, '/dev/null')$$);
SELECT regress_error($$SELECT * FROM wal_stall_test_fsync(0.1, '/proc/self')$$);
SELECT regress_error($$SELECT * FROM wal_stall_test_fsync(0.1, repeat('x', 100000))$$);
SELECT regress_error($$SELECT * FROM wal_stall_test_fsync(0.1, repeat('../', 10000) || 'etc')$$);
SELECT regress_error($$SELECT * FROM wal_stall_test_fsync(0.1, repeat('/', 100000))$$);
SELECT regress_error($$SELECT * FROM wal_stall_test_fsync(0.1, repeat('pg_wal/../', 10000) || 'global')$$);
SELECT regress_error($$SELECT * FROM wal_stall_test_fsync(0.1, '$$ || :'datadir' || $$')$$, :'datadir');
SELECT regress_error($$SELECT * FROM wal_stall_test_fsync(0.1, '$$ || :'datadir' || $$/pg_xact')$$, :'datadir');

-- Directories, as a grantee who is not superuser: a path outside the data
-- directory gets one error whether or not it exists.
CREATE ROLE regress_fsync_grantee;
GRANT EXECUTE ON FUNCTION wal_stall_test_fsync(float8, text) TO regress_fsync_grantee;
SET ROLE regress_nobody;
SELECT * FROM wal_stall_test_fsync(0.1); \echo :SQLSTATE
SELECT * FROM wal_stall_test_fsync(NULL, '/etc'); \echo :SQLSTATE
RESET ROLE;
SET ROLE regress_fsync_grantee;
SELECT * FROM wal_stall_test_fsync(0.1, '/etc'); \echo :SQLSTATE
SELECT * FROM wal_stall_test_fsync(0.1, '/no/such'); \echo :SQLSTATE
SELECT * FROM wal_stall_test_fsync(0.1, '../../../../../../../../../../../../../../../../etc'); \echo :SQLSTATE
SELECT * FROM wal_stall_test_fsync(0.1, '../../../../no/such'); \echo :SQLSTATE
SELECT * FROM wal_stall_test_fsync(0.1, '/'); \echo :SQLSTATE
SELECT * FROM wal_stall_test_fsync(0.1, '..'); \echo :SQLSTATE
SELECT * FROM wal_stall_test_fsync(0.1, '.'); \echo :SQLSTATE
SELECT * FROM wal_stall_test_fsync(0.1, 'global'); \echo :SQLSTATE
SELECT * FROM wal_stall_test_fsync(0.1, 'pg_xact'); \echo :SQLSTATE
SELECT * FROM wal_stall_test_fsync(0.1, 'no_such_directory'); \echo :SQLSTATE
SELECT regress_error($$SELECT * FROM wal_stall_test_fsync(0.1, repeat('x', 100000))$$);
SELECT regress_error($$SELECT * FROM wal_stall_test_fsync(0.1, '$$ || :'datadir' || $$/global')$$, :'datadir');
SELECT count(*) AS tests FROM wal_stall_test_fsync(0.1, 'base/pgsql_tmp'); \echo :SQLSTATE
RESET ROLE;
REVOKE EXECUTE ON FUNCTION wal_stall_test_fsync(float8, text) FROM regress_fsync_grantee;
SELECT count(*) AS scratch_files_left FROM pg_ls_dir('pg_wal')
WHERE pg_ls_dir LIKE 'pgsql_tmp%';
SELECT count(*) AS scratch_files_left FROM pg_ls_dir('base/pgsql_tmp');

--
-- Settings.  wal_stall.sample_interval changes on reload: SET is refused
-- whatever the value; ALTER SYSTEM checks the value.
--
SET wal_stall.sample_interval = -1; \echo :SQLSTATE
SET wal_stall.sample_interval = 'abc'; \echo :SQLSTATE
-- Out of range: core's message states the range, with units from 18 on,
-- so only the SQLSTATE is shown.
\set VERBOSITY sqlstate
ALTER SYSTEM SET wal_stall.sample_interval = -1; \echo :SQLSTATE
ALTER SYSTEM SET wal_stall.sample_interval = 0; \echo :SQLSTATE
ALTER SYSTEM SET wal_stall.sample_interval = 'Infinity'; \echo :SQLSTATE
ALTER SYSTEM SET wal_stall.sample_interval = '1e308'; \echo :SQLSTATE
ALTER SYSTEM SET wal_stall.history_seconds = 1; \echo :SQLSTATE
ALTER SYSTEM SET wal_stall.history_seconds = 0; \echo :SQLSTATE
ALTER SYSTEM SET wal_stall.history_seconds = 86401; \echo :SQLSTATE
ALTER SYSTEM SET wal_stall.max_sample_interval = 0; \echo :SQLSTATE
ALTER SYSTEM SET wal_stall.max_sample_interval = 1001; \echo :SQLSTATE
ALTER SYSTEM SET wal_stall.max_sample_interval = 'NaN'; \echo :SQLSTATE
\set VERBOSITY default
SET wal_stall.max_sample_interval = 4; \echo :SQLSTATE
ALTER SYSTEM SET wal_stall.sample_interval = 'NaN'; \echo :SQLSTATE
ALTER SYSTEM SET wal_stall.sample_interval = 'abc'; \echo :SQLSTATE
ALTER SYSTEM SET wal_stall.sample_interval = '5 hours'; \echo :SQLSTATE
ALTER SYSTEM SET wal_stall.sample_interval = ''; \echo :SQLSTATE
ALTER SYSTEM SET wal_stall.history_seconds = 'x'; \echo :SQLSTATE
ALTER SYSTEM SET wal_stall.history_seconds = 9223372036854775807; \echo :SQLSTATE
ALTER SYSTEM SET wal_stall.history_seconds = '2 days'; \echo :SQLSTATE
SET wal_stall.history_seconds = 10; \echo :SQLSTATE
SET ROLE regress_nobody;
ALTER SYSTEM SET wal_stall.sample_interval = 2; \echo :SQLSTATE
RESET ROLE;
SELECT name, setting FROM pg_settings
WHERE name IN ('wal_stall.sample_interval', 'wal_stall.history_seconds',
               'wal_stall.max_sample_interval')
ORDER BY name COLLATE "C";

--
-- search_path: the extension's objects live in public, where a role with
-- CREATE there can add an overload.  The view and a call with a typed
-- literal are bound to the extension's function; an untyped literal
-- prefers the text overload, which is why docs/reference.md types every literal.
--
SELECT regress_wait_for('(SELECT count(*) > 0 FROM wal_stall_history)') AS history_has_rows;
CREATE ROLE regress_attacker;
GRANT CREATE ON SCHEMA public TO regress_attacker;
SET ROLE regress_attacker;
CREATE FUNCTION public.wal_stall_history(since text)
RETURNS TABLE (sample_time timestamptz) LANGUAGE plpgsql AS $$
BEGIN
    RAISE NOTICE 'hijacked';
END
$$;
RESET ROLE;
SELECT count(*) > 0 AS rows FROM wal_stall_history; \echo :SQLSTATE
SELECT count(*) > 0 AS rows FROM wal_stall_history(timestamptz '2026-01-01 00:00:00+00'); \echo :SQLSTATE
SELECT count(*) > 0 AS rows FROM wal_stall_history(); \echo :SQLSTATE
SELECT count(*) > 0 AS rows FROM wal_stall_history('2026-01-01 00:00:00+00'); \echo :SQLSTATE
SELECT count(*) > 0 AS rows FROM wal_stall_history(NULL); \echo :SQLSTATE
SET ROLE regress_attacker;
DROP FUNCTION public.wal_stall_history(text);
RESET ROLE;
REVOKE CREATE ON SCHEMA public FROM regress_attacker;

-- Nothing crashed: the collector still runs, the figures still read.
SELECT collector_pid > 0 AS collector_runs FROM wal_stall_status();
SELECT count(*) = 7 AS seven_classes FROM wal_stall_summary;

DROP FUNCTION regress_error(text, text);
DROP ROLE regress_nobody;
DROP ROLE regress_monitor;
DROP ROLE regress_fsync_grantee;
DROP ROLE regress_attacker;
DROP FUNCTION regress_reading_with(text, text);
DROP TABLE regress_reading;
DROP EXTENSION wal_stall;
