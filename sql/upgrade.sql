--
-- wal_stall: the upgrade path from 1.0 to 1.1, 1.2 and 1.3.  The library
-- keeps the 1.0, 1.1 and 1.2 C entry points, so their SQL works with it
-- until the update.
--
-- Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
--
SET client_min_messages = warning;
DROP EXTENSION IF EXISTS wal_stall;
RESET client_min_messages;
\set VERBOSITY default
\set SHOW_CONTEXT never

SELECT source, target, path FROM pg_extension_update_paths('wal_stall')
ORDER BY source COLLATE "C", target COLLATE "C";

-- Every member object with what defines it: kind, identity, signature and
-- result, C symbol and attributes of functions, columns and definition of
-- views, comments, privileges.
CREATE FUNCTION regress_members(OUT object text, OUT definition text)
RETURNS SETOF record LANGUAGE sql AS $$
    SELECT pg_describe_object(d.classid, d.objid, 0),
           concat_ws(' | ',
               'acl ' || coalesce(p.proacl::text, c.relacl::text, '-'),
               'comment ' || coalesce(obj_description(d.objid, d.classid::regclass::name), '-'),
               'function ' || pg_get_function_arguments(p.oid) || ' -> '
                   || pg_get_function_result(p.oid) || ' = ' || p.prosrc
                   || ' volatile ' || p.provolatile::text || ' parallel ' || p.proparallel::text
                   || ' strict ' || p.proisstrict::text || ' rows ' || p.prorows::text,
               'view ' || pg_get_viewdef(c.oid))
    FROM pg_depend d
    LEFT JOIN pg_proc p ON d.classid = 'pg_proc'::regclass AND p.oid = d.objid
    LEFT JOIN pg_class c ON d.classid = 'pg_class'::regclass AND c.oid = d.objid
    WHERE d.refclassid = 'pg_extension'::regclass
      AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'wal_stall')
      AND d.deptype = 'e'
    UNION ALL
    SELECT 'column ' || a.attrelid::regclass || '.' || a.attname,
           format_type(a.atttypid, a.atttypmod) || ' | comment '
               || coalesce(col_description(a.attrelid, a.attnum), '-')
    FROM pg_depend d
    JOIN pg_attribute a ON a.attrelid = d.objid AND a.attnum > 0
    WHERE d.classid = 'pg_class'::regclass
      AND d.refclassid = 'pg_extension'::regclass
      AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'wal_stall')
      AND d.deptype = 'e'
$$;

--
-- 1.0
--
CREATE EXTENSION wal_stall VERSION '1.0';
SELECT extversion FROM pg_extension WHERE extname = 'wal_stall';
SELECT count(*) AS history_columns,
       count(*) FILTER (WHERE attname = 'seconds') AS has_seconds
FROM pg_attribute WHERE attrelid = 'wal_stall_history'::regclass AND attnum > 0;
SELECT 'in_recovery' = ANY (proargnames) AS status_has_in_recovery, pronargs AS in_args,
       array_length(proargnames, 1) AS out_columns
FROM pg_proc WHERE oid = 'wal_stall_status()'::regprocedure;
-- 1.0's columns, to find them all again after the update
CREATE TEMP TABLE columns_1_0 AS
    SELECT 'wal_stall_history' AS object, attname::text AS name,
           format_type(atttypid, atttypmod) AS type
    FROM pg_attribute WHERE attrelid = 'wal_stall_history'::regclass AND attnum > 0
    UNION ALL
    SELECT 'wal_stall_status()', a.name, format_type(a.type, NULL)
    FROM pg_proc p, unnest(p.proargnames, p.proallargtypes) AS a(name, type)
    WHERE p.oid = 'wal_stall_status()'::regprocedure;
SELECT prosrc FROM pg_proc
WHERE oid IN ('wal_stall_status()'::regprocedure, 'wal_stall_history(timestamptz)'::regprocedure)
ORDER BY prosrc COLLATE "C";
-- the 1.0 functions work with the new library
SELECT collector_pid > 0 AS collector_runs, ticks > 0 AS ticking,
       wal_buffers_bytes = 32768 AS ring_is_32kb
FROM wal_stall_status();
SELECT (wal_stall_status()).in_recovery;
SELECT regress_wait_for('(SELECT count(*) > 0 FROM wal_stall_history)') AS history_has_rows;
SELECT count(*) > 0 AS rows,
       bool_and(wal_bytes >= 0 AND xids >= 0 AND buffer_fill_max >= buffer_fill_avg
                AND buffer_fill_avg >= 0 AND waiting_backends >= 0) AS sane
FROM wal_stall_history;
SELECT count(*) AS rows FROM wal_stall_history(timestamptz 'infinity');
SELECT count(*) = 7 AS seven_classes FROM wal_stall_summary;

-- A view of the user's on wal_stall_history stops the update, which then
-- leaves 1.0 as it was; dropped, the update goes through.
CREATE VIEW regress_user_view AS SELECT sample_time, wal_bytes FROM wal_stall_history;
ALTER EXTENSION wal_stall UPDATE TO '1.1';
SELECT extversion FROM pg_extension WHERE extname = 'wal_stall';
DROP VIEW regress_user_view;

--
-- 1.0 -> 1.1
--
ALTER EXTENSION wal_stall UPDATE TO '1.1';
SELECT extversion FROM pg_extension WHERE extname = 'wal_stall';
-- every 1.0 column is still there with its type; "seconds" (second
-- column of the history) and "in_recovery" (after 1.0's last column of
-- the status) are new
CREATE TEMP TABLE columns_1_1 AS
    SELECT 'wal_stall_history' AS object, attname::text AS name,
           format_type(atttypid, atttypmod) AS type, attnum::int AS position
    FROM pg_attribute WHERE attrelid = 'wal_stall_history'::regclass AND attnum > 0
    UNION ALL
    SELECT 'wal_stall_status()', a.name, format_type(a.type, NULL), a.position::int
    FROM pg_proc p, unnest(p.proargnames, p.proallargtypes) WITH ORDINALITY AS a(name, type, position)
    WHERE p.oid = 'wal_stall_status()'::regprocedure;
SELECT object, name, type FROM columns_1_0
EXCEPT SELECT object, name, type FROM columns_1_1;
SELECT object, name, type, position FROM columns_1_1
WHERE (object, name) IN (('wal_stall_history', 'seconds'), ('wal_stall_status()', 'in_recovery'))
ORDER BY object COLLATE "C";
SELECT prosrc FROM pg_proc
WHERE oid IN ('wal_stall_status()'::regprocedure, 'wal_stall_history(timestamptz)'::regprocedure)
ORDER BY prosrc COLLATE "C";
-- the new columns work
SELECT collector_pid > 0 AS collector_runs, in_recovery = pg_is_in_recovery() AS in_recovery_right
FROM wal_stall_status();
SELECT regress_wait_for('(SELECT count(*) > 0 FROM wal_stall_history)') AS history_has_rows;
SELECT count(*) > 0 AS rows,
       bool_and(seconds > 0) AS seconds_positive,
       bool_and(wal_bytes >= 0 AND xids >= 0) AS sane
FROM wal_stall_history;
SELECT count(*) AS rows FROM wal_stall_history(timestamptz 'infinity');

-- Privileges after the update: pg_monitor reads, PUBLIC does not.
SELECT has_function_privilege('pg_monitor', 'wal_stall_status()', 'EXECUTE') AS monitor_status,
       has_function_privilege('pg_monitor', 'wal_stall_history(timestamptz)', 'EXECUTE') AS monitor_history_function,
       has_table_privilege('pg_monitor', 'wal_stall_history', 'SELECT') AS monitor_history_view,
       has_function_privilege('public', 'wal_stall_status()', 'EXECUTE') AS public_status,
       has_function_privilege('public', 'wal_stall_history(timestamptz)', 'EXECUTE') AS public_history_function,
       has_table_privilege('public', 'wal_stall_history', 'SELECT') AS public_history_view,
       has_function_privilege('pg_monitor', 'wal_stall_reset()', 'EXECUTE') AS monitor_reset;
CREATE ROLE regress_upgrade_plain;
CREATE ROLE regress_upgrade_monitor IN ROLE pg_monitor;
SET ROLE regress_upgrade_plain;
SELECT count(*) FROM wal_stall_history;
SELECT * FROM wal_stall_status();
SELECT count(*) FROM wal_stall_history(timestamptz 'infinity');
RESET ROLE;
SET ROLE regress_upgrade_monitor;
SELECT count(*) > 0 AS rows FROM wal_stall_history;
SELECT collector_pid > 0 AS collector_runs FROM wal_stall_status();
SELECT count(*) AS rows FROM wal_stall_history(timestamptz 'infinity');
RESET ROLE;
DROP ROLE regress_upgrade_plain;
DROP ROLE regress_upgrade_monitor;

--
-- 1.1 -> 1.2
--
-- 1.1's history works with the new library: no resolution_ms
SELECT count(*) FILTER (WHERE attname = 'resolution_ms') AS has_resolution
FROM pg_attribute WHERE attrelid = 'wal_stall_history'::regclass AND attnum > 0;
CREATE VIEW regress_user_view AS SELECT sample_time, wal_bytes FROM wal_stall_history;
ALTER EXTENSION wal_stall UPDATE TO '1.2';
SELECT extversion FROM pg_extension WHERE extname = 'wal_stall';
DROP VIEW regress_user_view;
ALTER EXTENSION wal_stall UPDATE TO '1.2';
SELECT extversion FROM pg_extension WHERE extname = 'wal_stall';
-- every 1.1 column is still there, in its place; resolution_ms comes last
CREATE TEMP TABLE columns_1_2 AS
    SELECT 'wal_stall_history' AS object, attname::text AS name,
           format_type(atttypid, atttypmod) AS type, attnum::int AS position
    FROM pg_attribute WHERE attrelid = 'wal_stall_history'::regclass AND attnum > 0
    UNION ALL
    SELECT 'wal_stall_status()', a.name, format_type(a.type, NULL), a.position::int
    FROM pg_proc p, unnest(p.proargnames, p.proallargtypes) WITH ORDINALITY AS a(name, type, position)
    WHERE p.oid = 'wal_stall_status()'::regprocedure;
SELECT * FROM columns_1_1 EXCEPT SELECT * FROM columns_1_2;
SELECT * FROM columns_1_2 EXCEPT SELECT * FROM columns_1_1;
SELECT prosrc FROM pg_proc
WHERE oid IN ('wal_stall_status()'::regprocedure, 'wal_stall_history(timestamptz)'::regprocedure)
ORDER BY prosrc COLLATE "C";
-- the new column works: a history row has a resolution exactly when it
-- has stall samples, and it is at least the sampling interval
SELECT regress_wait_for('(SELECT count(*) > 0 FROM wal_stall_history)') AS history_has_rows;
SELECT count(*) > 0 AS rows,
       bool_and((resolution_ms IS NULL) =
                (wal_buffer_full_ms + wal_flush_ms + wal_insert_ms + clog_ms = 0))
           AS resolution_with_stalls_only,
       bool_and(resolution_ms IS NULL OR resolution_ms >= 1) AS resolution_sane
FROM wal_stall_history;
SELECT has_function_privilege('pg_monitor', 'wal_stall_history(timestamptz)', 'EXECUTE') AS monitor_history_function,
       has_table_privilege('pg_monitor', 'wal_stall_history', 'SELECT') AS monitor_history_view,
       has_function_privilege('public', 'wal_stall_history(timestamptz)', 'EXECUTE') AS public_history_function,
       has_table_privilege('public', 'wal_stall_history', 'SELECT') AS public_history_view;

--
-- 1.2 -> 1.3
--
-- 1.2's summary works with the new library: its 14 columns, from 1.0's
-- entry point
CREATE TEMP TABLE summary_1_2 AS
    SELECT attname::text AS name, format_type(atttypid, atttypmod) AS type,
           attnum::int AS position
    FROM pg_attribute WHERE attrelid = 'wal_stall_summary'::regclass AND attnum > 0;
SELECT count(*) AS summary_columns FROM summary_1_2;
SELECT prosrc FROM pg_proc WHERE oid = 'wal_stall_summary()'::regprocedure;
SELECT count(*) AS rows, bool_and(episodes >= 0 AND samples >= 0) AS sane
FROM wal_stall_summary;
CREATE VIEW regress_user_view AS SELECT class, episodes FROM wal_stall_summary;
ALTER EXTENSION wal_stall UPDATE TO '1.3';
SELECT extversion FROM pg_extension WHERE extname = 'wal_stall';
DROP VIEW regress_user_view;
ALTER EXTENSION wal_stall UPDATE TO '1.3';
SELECT extversion FROM pg_extension WHERE extname = 'wal_stall';
-- every 1.2 column of the summary is still there, in its place;
-- episodes_counted and episodes_stderr come last
CREATE TEMP TABLE summary_1_3 AS
    SELECT attname::text AS name, format_type(atttypid, atttypmod) AS type,
           attnum::int AS position
    FROM pg_attribute WHERE attrelid = 'wal_stall_summary'::regclass AND attnum > 0;
SELECT * FROM summary_1_2 EXCEPT SELECT * FROM summary_1_3;
SELECT * FROM summary_1_3 EXCEPT SELECT * FROM summary_1_2 ORDER BY position;
SELECT prosrc FROM pg_proc WHERE oid = 'wal_stall_summary()'::regprocedure;
-- the new columns work: no more episodes counted one by one than
-- episodes, a standard error that is a number
SELECT count(*) AS rows,
       bool_and(episodes_counted >= 0 AND episodes_counted <= episodes) AS counted_within_episodes,
       bool_and(episodes_stderr >= 0) AS stderr_sane
FROM wal_stall_summary;
SELECT has_function_privilege('pg_monitor', 'wal_stall_summary()', 'EXECUTE') AS monitor_summary_function,
       has_table_privilege('pg_monitor', 'wal_stall_summary', 'SELECT') AS monitor_summary_view,
       has_function_privilege('public', 'wal_stall_summary()', 'EXECUTE') AS public_summary_function,
       has_table_privilege('public', 'wal_stall_summary', 'SELECT') AS public_summary_view;

-- The updated extension has the same members, defined the same way, as a
-- fresh install of 1.3.
CREATE TEMP TABLE updated AS SELECT * FROM regress_members();
-- (18 also counts the views' row types as members: left out of the count,
-- compared below like every other member)
SELECT count(*) AS objects FROM updated
WHERE object NOT LIKE 'column %' AND object NOT LIKE 'type %';
DROP EXTENSION wal_stall;
CREATE EXTENSION wal_stall;
SELECT extversion FROM pg_extension WHERE extname = 'wal_stall';
CREATE TEMP TABLE fresh AS SELECT * FROM regress_members();
SELECT * FROM (
    SELECT 'only after update' AS side, * FROM (TABLE updated EXCEPT TABLE fresh) u
    UNION ALL
    SELECT 'only fresh', * FROM (TABLE fresh EXCEPT TABLE updated) f) d
ORDER BY side, object COLLATE "C", definition COLLATE "C";
SELECT (SELECT count(*) FROM updated) = (SELECT count(*) FROM fresh) AS same_count;

-- The whole chain in one update, 1.0 to the default version, ends the same.
DROP EXTENSION wal_stall;
CREATE EXTENSION wal_stall VERSION '1.0';
ALTER EXTENSION wal_stall UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'wal_stall';
CREATE TEMP TABLE chain AS SELECT * FROM regress_members();
SELECT * FROM (
    SELECT 'only after update' AS side, * FROM (TABLE chain EXCEPT TABLE fresh) u
    UNION ALL
    SELECT 'only fresh', * FROM (TABLE fresh EXCEPT TABLE chain) f) d
ORDER BY side, object COLLATE "C", definition COLLATE "C";
SELECT (SELECT count(*) FROM chain) = (SELECT count(*) FROM fresh) AS same_count;

DROP TABLE updated, fresh, chain, columns_1_0, columns_1_1, columns_1_2,
    summary_1_2, summary_1_3;
DROP FUNCTION regress_members();
DROP EXTENSION wal_stall;
