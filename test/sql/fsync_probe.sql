--
-- wal_stall_test_fsync(): the in-server fsync probe
--
-- Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS wal_stall;
RESET client_min_messages;

-- Bad arguments: each has its own error, and the value is shown as given.
SELECT * FROM wal_stall_test_fsync(-1);
SELECT * FROM wal_stall_test_fsync(61);
SELECT * FROM wal_stall_test_fsync('NaN');
SELECT * FROM wal_stall_test_fsync('Infinity');
SELECT * FROM wal_stall_test_fsync('-Infinity');
SELECT * FROM wal_stall_test_fsync(1e308);
SELECT * FROM wal_stall_test_fsync(0.0999999999);
SELECT * FROM wal_stall_test_fsync(60.000000001);
SELECT * FROM wal_stall_test_fsync(NULL);

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
SELECT count(*) FROM pg_ls_dir('pg_wal') WHERE pg_ls_dir LIKE 'pgsql_tmp_wal_stall_fsync%';
SET statement_timeout = '300ms';
SELECT count(*) FROM wal_stall_test_fsync(seconds => 5);
RESET statement_timeout;
SELECT count(*) FROM pg_ls_dir('pg_wal') WHERE pg_ls_dir LIKE 'pgsql_tmp_wal_stall_fsync%';

-- A run removes the scratch file a dead process left (no pid reaches 2^31-1).
SELECT current_setting('data_directory') AS datadir \gset
\set stale :datadir '/pg_wal/pgsql_tmp_wal_stall_fsync.2147483647'
COPY (SELECT) TO :'stale';
SELECT count(*) FROM pg_ls_dir('pg_wal') WHERE pg_ls_dir LIKE 'pgsql_tmp_wal_stall_fsync%';
SELECT count(*) FROM wal_stall_test_fsync(0.1);
SELECT count(*) FROM pg_ls_dir('pg_wal') WHERE pg_ls_dir LIKE 'pgsql_tmp_wal_stall_fsync%';

-- Where the scratch file may go.  The error of a call, as text, with the
-- data directory's path replaced.
CREATE FUNCTION regress_probe_error(dir text, datadir text DEFAULT NULL)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    msg text;
BEGIN
    PERFORM count(*) FROM wal_stall_test_fsync(0.1, dir);
    RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT;
    RETURN SQLSTATE || ': ' || replace(msg, coalesce(datadir, '?'), '$PGDATA');
END
$$;
-- Every other directory of the data directory is refused, to superusers
-- too: a file a crash left there could stop the server from starting
-- (pg_tblspc, the SLRU directories) or be copied by base backups.  The
-- decision is on the path's text, so whether it exists does not matter.
CREATE TEMP TABLE refused (dir text);
INSERT INTO refused VALUES ('.'), (''), ('base'), ('base/1'), ('global'),
    ('pg_tblspc'), ('pg_xact'), ('pg_multixact/offsets'),
    ('pg_multixact/members'), ('pg_subtrans'), ('pg_commit_ts'),
    ('pg_serial'), ('pg_notify'), ('pg_snapshots'), ('pg_replslot'),
    ('pg_logical'), ('pg_stat'), ('pg_stat_tmp'), ('pg_twophase'),
    ('pg_dynshmem'), ('pg_wal/archive_status'), ('pg_wal/..'),
    ('base/pgsql_tmp/..'), ('base/pgsql_tmp/x'), ('pg_tblspc/1663'),
    ('PG_VERSION'), ('no_such_directory'), ('etclink/passwd');
SELECT dir, regress_probe_error(dir) FROM refused ORDER BY dir COLLATE "C";
SELECT * FROM wal_stall_test_fsync(0.1, 'pg_tblspc');
-- the same through an absolute path, or one that leaves and comes back
SELECT regress_probe_error(:'datadir', :'datadir');
SELECT regress_probe_error(:'datadir' || '/global', :'datadir');
SELECT regress_probe_error(:'datadir' || '/base/pgsql_tmp/../1', :'datadir');
SELECT split_part(regress_probe_error('../' || regexp_replace(:'datadir', '^.*/', '') || '/pg_xact'), ':', 1);

-- Allowed: the WAL directory and base/pgsql_tmp, which is created when
-- missing (the server removes pgsql_tmp* files there at every start).
SELECT count(*) AS tests, count(ops_per_sec) AS with_figures
FROM wal_stall_test_fsync(0.1, 'base/pgsql_tmp');
SELECT count(*) FROM pg_ls_dir('base') WHERE pg_ls_dir = 'pgsql_tmp';
SELECT count(*) FROM pg_ls_dir('base/pgsql_tmp');
SELECT regress_probe_error(:'datadir' || '/pg_wal/', :'datadir');
SELECT regress_probe_error(:'datadir' || '/./base//pgsql_tmp', :'datadir');
-- and, for superusers, a directory outside the data directory (whether it
-- takes O_DIRECT depends on its file system: no NOTICE here)
SET client_min_messages = warning;
SELECT count(*) AS tests FROM wal_stall_test_fsync(0.1, '/tmp');
RESET client_min_messages;
SELECT count(*) FROM pg_ls_dir('/tmp') WHERE pg_ls_dir LIKE 'pgsql_tmp_wal_stall_fsync%';
SELECT * FROM wal_stall_test_fsync(0.1, '/no/such/directory');

-- Privileges: nobody but superusers unless granted.
CREATE ROLE regress_fsync_user;
CREATE ROLE regress_fsync_other;
GRANT EXECUTE ON FUNCTION wal_stall_test_fsync(float8, text) TO regress_fsync_user;
SET ROLE regress_fsync_other;
SELECT * FROM wal_stall_test_fsync(0.1);
RESET ROLE;
CREATE TEMP TABLE outside (dir text);
INSERT INTO outside VALUES ('/etc'), ('/etc/passwd'), ('/no/such'), ('/tmp'),
    ('/'), ('..'), ('../..'), ('pg_wal/../..'), ('base/../../etc'),
    ('../no/such');
INSERT INTO outside VALUES (:'datadir' || '/..'), (:'datadir' || '/../etc');
GRANT SELECT ON refused, outside TO regress_fsync_user;
-- A grantee who is not superuser gets the allowed directories only; a path
-- outside the data directory is refused on its text alone, whether it
-- exists or not, so the error tells nothing about what is there.
SET ROLE regress_fsync_user;
SELECT * FROM wal_stall_test_fsync(0.1, '/etc');
SELECT * FROM wal_stall_test_fsync(0.1, '/no/such');
SELECT count(*) AS paths,
       count(DISTINCT regexp_replace(regress_probe_error(dir), '"[^"]*"', '"..."')) AS distinct_errors,
       min(regexp_replace(regress_probe_error(dir), '"[^"]*"', '"..."')) AS error
FROM outside;
SELECT count(*) AS paths,
       count(DISTINCT regexp_replace(regress_probe_error(dir), '"[^"]*"', '"..."')) AS distinct_errors,
       min(regexp_replace(regress_probe_error(dir), '"[^"]*"', '"..."')) AS error
FROM refused;
SELECT regress_probe_error(:'datadir' || '/global', :'datadir');
-- the allowed directories, named in any way the text allows
SELECT count(*) AS tests, count(ops_per_sec) AS with_figures
FROM wal_stall_test_fsync(0.1);
SELECT count(*) AS tests, count(ops_per_sec) AS with_figures
FROM wal_stall_test_fsync(0.1, 'pg_wal/../base/./pgsql_tmp/');
SELECT regress_probe_error(:'datadir' || '/base/pgsql_tmp', :'datadir');
RESET ROLE;
SELECT count(*) FROM pg_ls_dir('base/pgsql_tmp');
SELECT count(*) FROM pg_ls_dir('pg_wal') WHERE pg_ls_dir LIKE 'pgsql_tmp_wal_stall_fsync%';
DROP FUNCTION regress_probe_error(text, text);
DROP TABLE refused, outside;
REVOKE EXECUTE ON FUNCTION wal_stall_test_fsync(float8, text) FROM regress_fsync_user;
DROP ROLE regress_fsync_user;
DROP ROLE regress_fsync_other;
