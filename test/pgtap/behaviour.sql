-- pgTAP: what wal_stall does for each kind of caller, and every error it
-- raises, by SQLSTATE and message.  (The objects' shapes are the
-- regression test's business: sql/wal_stall.sql.)
--
-- Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
BEGIN;
SELECT plan(60);

CREATE ROLE regress_tap_plain;
CREATE ROLE regress_tap_monitor IN ROLE pg_monitor;
CREATE ROLE regress_tap_prober;
GRANT EXECUTE ON FUNCTION wal_stall_test_fsync(float8, text) TO regress_tap_prober;

-- Privileges per role, as the catalog has them: reading is pg_monitor's,
-- reset and the fsync probe are nobody's unless granted.  The table holds
-- every function and view of the extension (the install script grants or
-- revokes on each): checked against pg_depend below, so that one added to
-- the script and not here fails the test.  (Other members, such as types,
-- take no GRANT in the script.)
CREATE TEMP TABLE regress_objects (n serial, kind text, object text, priv text);
INSERT INTO regress_objects (kind, object, priv) VALUES
    ('view', 'wal_stall_summary', 'SELECT'),
    ('view', 'wal_stall_histogram', 'SELECT'),
    ('view', 'wal_stall_current', 'SELECT'),
    ('view', 'wal_stall_history', 'SELECT'),
    ('view', 'wal_stall_clog', 'SELECT'),
    ('view', 'wal_stall_queries', 'SELECT'),
    ('function', 'wal_stall_summary()', 'EXECUTE'),
    ('function', 'wal_stall_histogram()', 'EXECUTE'),
    ('function', 'wal_stall_current()', 'EXECUTE'),
    ('function', 'wal_stall_status()', 'EXECUTE'),
    ('function', 'wal_stall_history(timestamptz)', 'EXECUTE'),
    ('function', 'wal_stall_clog()', 'EXECUTE'),
    ('function', 'wal_stall_queries()', 'EXECUTE'),
    ('function', 'wal_stall_advice()', 'EXECUTE'),
    ('function', 'wal_stall_advice_figures()', 'EXECUTE'),
    ('function', 'wal_stall_advice(wal_stall_advice_figures[])', 'EXECUTE'),
    ('function', 'wal_stall_reset()', 'EXECUTE'),
    ('function', 'wal_stall_test_fsync(float8,text)', 'EXECUTE');
GRANT SELECT ON regress_objects TO PUBLIC;
SELECT set_eq(
    $$SELECT CASE kind WHEN 'view' THEN 'pg_class'::regclass ELSE 'pg_proc'::regclass END,
             CASE kind WHEN 'view' THEN object::regclass::oid ELSE object::regprocedure::oid END
      FROM regress_objects$$,
    $$SELECT classid::regclass, objid FROM pg_depend
      WHERE refclassid = 'pg_extension'::regclass AND deptype = 'e'
        AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'wal_stall')
        AND classid IN ('pg_class'::regclass, 'pg_proc'::regclass)$$,
    'the privilege table holds every function and view of the extension, and nothing else');
-- The objects role r may use, as a query for results_eq.
CREATE FUNCTION regress_usable(r name) RETURNS text LANGUAGE sql AS $f$
    SELECT format($$SELECT object FROM regress_objects
        WHERE CASE kind WHEN 'view' THEN has_table_privilege(%1$L, object, priv)
                        ELSE has_function_privilege(%1$L, object, priv) END
        ORDER BY n$$, r)
$f$;

SELECT is_empty(regress_usable('regress_tap_plain'),
    'a plain role may use nothing');
SELECT results_eq(regress_usable('regress_tap_monitor'),
    $$VALUES ('wal_stall_summary'), ('wal_stall_histogram'), ('wal_stall_current'),
             ('wal_stall_history'), ('wal_stall_clog'), ('wal_stall_queries'),
             ('wal_stall_summary()'), ('wal_stall_histogram()'), ('wal_stall_current()'),
             ('wal_stall_status()'), ('wal_stall_history(timestamptz)'), ('wal_stall_clog()'),
             ('wal_stall_queries()'), ('wal_stall_advice()'), ('wal_stall_advice_figures()'),
             ('wal_stall_advice(wal_stall_advice_figures[])')$$,
    'pg_monitor reads every view and function, and may neither reset nor probe');
SELECT results_eq(regress_usable('regress_tap_prober'),
    $$VALUES ('wal_stall_test_fsync(float8,text)')$$,
    'EXECUTE on the probe grants the probe and nothing else');

-- ... and as the server enforces them.
SET ROLE regress_tap_plain;
SELECT throws_ok(format('SELECT * FROM %s', v), '42501',
    format('permission denied for view %s', v), 'a plain role cannot read ' || v)
FROM unnest(ARRAY['wal_stall_summary', 'wal_stall_histogram', 'wal_stall_current',
    'wal_stall_history', 'wal_stall_clog', 'wal_stall_queries']) v;
SELECT throws_ok(format('SELECT * FROM %s()', f), '42501',
    format('permission denied for function %s', f), 'a plain role cannot call ' || f)
FROM unnest(ARRAY['wal_stall_summary', 'wal_stall_histogram', 'wal_stall_current',
    'wal_stall_status', 'wal_stall_clog', 'wal_stall_queries', 'wal_stall_advice',
    'wal_stall_advice_figures', 'wal_stall_reset']) f;
SELECT throws_ok('SELECT * FROM wal_stall_history(NULL)', '42501',
    'permission denied for function wal_stall_history', 'a plain role cannot call wal_stall_history');
SELECT throws_ok('SELECT * FROM wal_stall_test_fsync(1)', '42501',
    'permission denied for function wal_stall_test_fsync', 'a plain role cannot probe');
RESET ROLE;

SET ROLE regress_tap_monitor;
SELECT results_eq('SELECT count(*) FROM wal_stall_summary', ARRAY[7::bigint],
    'pg_monitor reads all seven classes of the summary');
SELECT results_eq($$SELECT bool_and(episodes_counted BETWEEN 0 AND episodes AND episodes_stderr >= 0)
                    FROM wal_stall_summary$$, ARRAY[true],
    'pg_monitor reads the episodes counted one by one and the standard error of the count');
SELECT results_eq('SELECT collector_pid > 0 FROM wal_stall_status()', ARRAY[true],
    'pg_monitor sees the collector''s pid');
SELECT results_eq('SELECT buffers > 0 FROM wal_stall_clog', ARRAY[true],
    'pg_monitor reads the CLOG figures');
SELECT lives_ok(format('SELECT * FROM %s', v), 'pg_monitor reads ' || v)
FROM unnest(ARRAY['wal_stall_histogram', 'wal_stall_current', 'wal_stall_history',
    'wal_stall_queries']) v;
SELECT lives_ok('SELECT * FROM wal_stall_advice()', 'pg_monitor reads wal_stall_advice()');
SELECT lives_ok('SELECT * FROM wal_stall_advice(ARRAY[wal_stall_advice_figures()])',
    'pg_monitor reads the figures and pools them');
SELECT throws_ok('SELECT wal_stall_reset()', '42501',
    'permission denied for function wal_stall_reset', 'pg_monitor cannot reset');
SELECT throws_ok('SELECT * FROM wal_stall_test_fsync(1)', '42501',
    'permission denied for function wal_stall_test_fsync', 'pg_monitor cannot probe');
RESET ROLE;

-- A role granted the probe tests only the WAL and temporary-file places.
SET ROLE regress_tap_prober;
SELECT throws_ok($$SELECT * FROM wal_stall_test_fsync(1, '/tmp')$$, '42501',
    'permission denied to test directory "/tmp"',
    'outside the data directory is for superusers only');
SELECT throws_ok($$SELECT * FROM wal_stall_test_fsync(1, '/nonexistent/x')$$, '42501',
    'permission denied to test directory "/nonexistent/x"',
    'the refusal does not tell whether a path exists');
RESET ROLE;

-- The probe's arguments.
SELECT throws_ok('SELECT * FROM wal_stall_test_fsync(NULL)', '22004',
    'seconds per test must not be null', 'seconds per test NULL');
SELECT throws_ok(format('SELECT * FROM wal_stall_test_fsync(%s)', s), '22023',
    'seconds per test must be between 0.1 and 60', 'seconds per test ' || s)
FROM unnest(ARRAY['0', '0.09', '-1', '60.01', '''NaN''', '''Infinity''', '''-Infinity''']) s;
SELECT throws_ok(format('SELECT * FROM wal_stall_test_fsync(1, %L)', d), '22023',
    format('cannot test directory "%s"', d), 'data directory place ' || quote_literal(d))
FROM unnest(ARRAY['', '.', 'base', 'global', 'pg_xact', 'pg_tblspc',
    'pg_wal/archive_status']) d;

-- Settings: the interval is reloaded, the ring size needs a restart, and
-- the prefix is reserved from 15 (13 and 14 only warn at load time).
SELECT throws_ok('SET wal_stall.sample_interval = 5', '55P02',
    'parameter "wal_stall.sample_interval" cannot be changed now',
    'the sample interval is a server-wide setting');
SELECT throws_ok('SET wal_stall.history_seconds = 60', '55P02',
    'parameter "wal_stall.history_seconds" cannot be changed without restarting the server',
    'the history size needs a restart');
SELECT CASE WHEN current_setting('server_version_num')::int >= 150000 THEN
    throws_ok('SET wal_stall.no_such_setting = 1', '42602',
        'invalid configuration parameter name "wal_stall.no_such_setting"',
        'an unknown wal_stall setting is refused: the prefix is reserved')
  ELSE
    lives_ok('SET wal_stall.no_such_setting = 1',
        'before 15 an unknown wal_stall setting is a placeholder (EmitWarningsOnPlaceholders)')
  END;
SET ROLE regress_tap_plain;
SELECT throws_ok('SET wal_stall.sample_interval = 5', '55P02', NULL,
    'nor for a plain role');
RESET ROLE;

-- Input of the history's time bound.
SELECT throws_ok($$SELECT * FROM wal_stall_history('not a time')$$, '22007', NULL,
    'wal_stall_history rejects a malformed time');
SELECT throws_ok($$SELECT * FROM wal_stall_history(to_timestamp('NaN'))$$, '22008', NULL,
    'wal_stall_history rejects a NaN time');
SELECT results_eq($$SELECT count(*) FROM wal_stall_history(timestamptz 'infinity')$$, ARRAY[0::bigint],
    'nothing is newer than infinity');
SELECT results_eq($$SELECT count(*) = (SELECT count(*) FROM wal_stall_history)
                    FROM wal_stall_history(NULL)$$, ARRAY[true],
    'wal_stall_history(NULL) is the whole ring, as the view');

-- Reset: every figure zero and "since" moved, for the superuser.
SELECT lives_ok('SELECT wal_stall_reset()', 'the superuser resets');
SELECT results_eq($$SELECT bool_and(since = (SELECT reset_at FROM wal_stall_status()))
                    FROM wal_stall_summary$$, ARRAY[true],
    'every class counts from the reset');

SELECT * FROM finish();
ROLLBACK;
