--
-- wal_stall_test_fsync(): the in-server fsync probe
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS wal_stall;
RESET client_min_messages;

-- Bad arguments: each has its own error.
SELECT * FROM wal_stall_test_fsync(-1);
SELECT * FROM wal_stall_test_fsync(61);
SELECT * FROM wal_stall_test_fsync('NaN');
SELECT * FROM wal_stall_test_fsync(NULL);
SELECT * FROM wal_stall_test_fsync(0.1, 'no_such_directory');
SELECT * FROM wal_stall_test_fsync(0.1, 'PG_VERSION');

-- A short run: every test has a row, in pg_test_fsync's order, with figures
-- wherever the platform has the method (fsync_writethrough: not on Linux),
-- and each of the 16 tests that run takes its 0.1 s.
SELECT clock_timestamp() AS started \gset
CREATE TEMP TABLE probe AS
    SELECT * FROM wal_stall_test_fsync(seconds => 0.1) WITH ORDINALITY;
SELECT clock_timestamp() - :'started'::timestamptz >= interval '1.6 s' AS took_seconds_per_test;
SELECT test, method, write_kb, writes_per_op,
       num_nulls(ops_per_sec, usecs_per_op, p50_us, p99_us, max_us) AS nulls,
       ops_per_sec > 0 AND usecs_per_op > 0 AND p50_us > 0 AS positive,
       p50_us <= p99_us AND p99_us <= max_us AS ordered,
       abs(ops_per_sec * usecs_per_op - 1e6) < 1e-3 AS consistent
FROM probe ORDER BY ordinality;

-- No scratch file is left behind, after a run or after a cancel.
SELECT count(*) FROM pg_ls_dir('pg_wal') WHERE pg_ls_dir LIKE 'wal_stall_fsync%';
SET statement_timeout = '300ms';
SELECT count(*) FROM wal_stall_test_fsync(seconds => 5);
RESET statement_timeout;
SELECT count(*) FROM pg_ls_dir('pg_wal') WHERE pg_ls_dir LIKE 'wal_stall_fsync%';

-- Privileges: nobody but superusers unless granted, and a grantee who is
-- not superuser stays inside the data and WAL directories.
CREATE ROLE regress_fsync_user;
CREATE ROLE regress_fsync_other;
GRANT EXECUTE ON FUNCTION wal_stall_test_fsync(float8, text) TO regress_fsync_user;
SET ROLE regress_fsync_other;
SELECT * FROM wal_stall_test_fsync(0.1);
RESET ROLE;
SET ROLE regress_fsync_user;
SELECT * FROM wal_stall_test_fsync(0.1, '/tmp');
SELECT * FROM wal_stall_test_fsync(0.1, 'pg_wal/../..');
SELECT * FROM wal_stall_test_fsync(0.1, '/no/such/directory');
-- inside: passes the privilege check, fails the next one
SELECT * FROM wal_stall_test_fsync(0.1, 'pg_wal/../no_such_directory');
SELECT * FROM wal_stall_test_fsync(0.1, 'pg_wal/../PG_VERSION');
-- a relative directory, resolved from the data directory
SELECT count(*) AS tests, count(ops_per_sec) AS with_figures
FROM wal_stall_test_fsync(0.1, 'base');
RESET ROLE;
SELECT count(*) FROM pg_ls_dir('base') WHERE pg_ls_dir LIKE 'wal_stall_fsync%';
REVOKE EXECUTE ON FUNCTION wal_stall_test_fsync(float8, text) FROM regress_fsync_user;
DROP ROLE regress_fsync_user;
DROP ROLE regress_fsync_other;
