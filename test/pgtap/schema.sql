-- pgTAP: the objects of wal_stall, their columns and types, function
-- volatility, and who may use them.
BEGIN;
SELECT plan(97);

-- views
SELECT has_view(v) FROM unnest(ARRAY['wal_stall_summary', 'wal_stall_histogram',
    'wal_stall_current', 'wal_stall_history', 'wal_stall_clog']) v;

-- functions
SELECT has_function('wal_stall_summary', ARRAY[]::name[]);
SELECT has_function('wal_stall_histogram', ARRAY[]::name[]);
SELECT has_function('wal_stall_current', ARRAY[]::name[]);
SELECT has_function('wal_stall_status', ARRAY[]::name[]);
SELECT has_function('wal_stall_history', ARRAY['timestamp with time zone']);
SELECT has_function('wal_stall_clog', ARRAY[]::name[]);
SELECT has_function('wal_stall_reset', ARRAY[]::name[]);
SELECT has_function('wal_stall_test_fsync', ARRAY['double precision', 'text']);
SELECT volatility_is('wal_stall_test_fsync', ARRAY['double precision', 'text'], 'volatile');
SELECT isnt_strict('wal_stall_test_fsync', ARRAY['double precision', 'text'],
    'a NULL directory means the WAL directory, so it is not strict');
SELECT function_returns('wal_stall_reset', ARRAY[]::name[], 'void');
SELECT function_returns('wal_stall_summary', ARRAY[]::name[], 'setof record');
SELECT function_returns('wal_stall_status', ARRAY[]::name[], 'record');

-- every function reads changing state: volatile, written in C
SELECT volatility_is(f, ARRAY[]::name[], 'volatile')
FROM unnest(ARRAY['wal_stall_summary', 'wal_stall_histogram', 'wal_stall_current',
    'wal_stall_status', 'wal_stall_clog', 'wal_stall_reset']) f;
SELECT volatility_is('wal_stall_history', ARRAY['timestamp with time zone'], 'volatile');
SELECT function_lang_is('wal_stall_summary', ARRAY[]::name[], 'c');
SELECT isnt_strict('wal_stall_history', ARRAY['timestamp with time zone'],
    'wal_stall_history(NULL) means every row, so it is not strict');

-- columns and types
SELECT col_type_is('wal_stall_summary', c, t) FROM (VALUES
    ('class', 'text'), ('kind', 'text'), ('episodes', 'bigint'), ('samples', 'bigint'),
    ('total_ms', 'double precision'), ('mean_ms', 'double precision'),
    ('p50_ms', 'double precision'), ('p95_ms', 'double precision'),
    ('p99_ms', 'double precision'), ('max_ms', 'double precision'),
    ('exact_count', 'bigint'), ('exact_total_ms', 'double precision'),
    ('since', 'timestamp with time zone'), ('resolution_ms', 'double precision')) AS x(c, t);
SELECT col_type_is('wal_stall_histogram', c, t) FROM (VALUES
    ('class', 'text'), ('lower_ms', 'double precision'),
    ('upper_ms', 'double precision'), ('episodes', 'bigint')) AS x(c, t);
SELECT col_type_is('wal_stall_current', c, t) FROM (VALUES
    ('pid', 'integer'), ('backend_type', 'text'), ('class', 'text'),
    ('wait_event_type', 'text'), ('wait_event', 'text'),
    ('waiting_ms', 'double precision')) AS x(c, t);
SELECT col_type_is('wal_stall_history', c, t) FROM (VALUES
    ('sample_time', 'timestamp with time zone'), ('xids', 'bigint'), ('wal_bytes', 'bigint'),
    ('buffer_fill_max', 'double precision'), ('buffer_fill_avg', 'double precision'),
    ('wal_buffer_full_ms', 'double precision'), ('wal_flush_ms', 'double precision'),
    ('wal_insert_ms', 'double precision'), ('clog_ms', 'double precision'),
    ('wal_fsync_max_ms', 'double precision'), ('wal_buffers_full', 'bigint'),
    ('wal_writes', 'bigint'), ('wal_syncs', 'bigint'), ('wal_sync_ms', 'double precision'),
    ('clog_hits', 'bigint'), ('clog_reads', 'bigint'),
    ('waiting_backends', 'double precision')) AS x(c, t);
SELECT col_type_is('wal_stall_clog', c, t) FROM (VALUES
    ('buffers', 'integer'), ('hits', 'bigint'), ('reads', 'bigint'),
    ('hit_ratio', 'double precision'), ('zeroed', 'bigint'), ('written', 'bigint'),
    ('flushes', 'bigint'), ('lock_episodes', 'bigint'), ('lock_ms', 'double precision'),
    ('lock_p99_ms', 'double precision'), ('io_ms', 'double precision'),
    ('since', 'timestamp with time zone')) AS x(c, t);
SELECT columns_are('wal_stall_summary', ARRAY['class', 'kind', 'episodes', 'samples',
    'total_ms', 'mean_ms', 'p50_ms', 'p95_ms', 'p99_ms', 'max_ms', 'exact_count',
    'exact_total_ms', 'since', 'resolution_ms']);

-- privileges: pg_monitor reads, PUBLIC gets nothing, reset is not granted
SELECT table_privs_are(v, 'pg_monitor', ARRAY['SELECT'])
FROM unnest(ARRAY['wal_stall_summary', 'wal_stall_histogram', 'wal_stall_current',
    'wal_stall_history', 'wal_stall_clog']) v;
SELECT table_privs_are(v, 'public', ARRAY[]::text[])
FROM unnest(ARRAY['wal_stall_summary', 'wal_stall_histogram', 'wal_stall_current',
    'wal_stall_history', 'wal_stall_clog']) v;
SELECT function_privs_are('wal_stall_status', ARRAY[]::text[], 'pg_monitor', ARRAY['EXECUTE']);
SELECT function_privs_are('wal_stall_status', ARRAY[]::text[], 'public', ARRAY[]::text[]);
SELECT function_privs_are('wal_stall_reset', ARRAY[]::text[], 'pg_monitor', ARRAY[]::text[]);
SELECT function_privs_are('wal_stall_reset', ARRAY[]::text[], 'public', ARRAY[]::text[]);
SELECT function_privs_are('wal_stall_test_fsync', ARRAY['double precision', 'text'], 'public', ARRAY[]::text[]);
SELECT function_privs_are('wal_stall_test_fsync', ARRAY['double precision', 'text'], 'pg_monitor', ARRAY[]::text[]);

SELECT * FROM finish();
ROLLBACK;
