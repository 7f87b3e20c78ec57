--
-- The extension: objects, a wrap-around workload, reset, privileges, bad input.
-- The temporary instance runs with wal_buffers = 32kB (wal_stall.conf).
--
-- Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
--
CREATE EXTENSION wal_stall;

-- Objects the extension owns, and their columns.
SELECT pg_describe_object(classid, objid, 0) COLLATE "C" AS object
FROM pg_depend
WHERE refclassid = 'pg_extension'::regclass
  AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'wal_stall')
  AND deptype = 'e'
  -- 18 also lists the views' row types (and their array types) as members
  AND NOT (classid = 'pg_type'::regclass AND objid IN
           (SELECT oid FROM pg_type WHERE typrelid <> 0 OR typelem IN
              (SELECT oid FROM pg_type WHERE typrelid <> 0)))
ORDER BY 1;

SELECT attrelid::regclass AS view, attnum, attname, format_type(atttypid, atttypmod) AS type
FROM pg_attribute
WHERE attrelid IN ('wal_stall_summary'::regclass, 'wal_stall_histogram'::regclass,
                   'wal_stall_current'::regclass)
  AND attnum > 0
ORDER BY attrelid::regclass::text COLLATE "C", attnum;

-- One row per class, always all seven, in a fixed order.
SELECT class, kind FROM wal_stall_summary;

SELECT regress_wait_for('(SELECT ticks > 10 FROM wal_stall_status())') AS collector_ticks;

SELECT collector_pid > 0 AS has_pid,
       sample_interval_ms = 1 AS default_interval,
       wal_buffers_bytes = 32768 AS ring_is_32kb,
       mean_tick_us > 0 AND max_tick_us >= mean_tick_us AS tick_cost_measured,
       overruns >= 0 AND overruns < ticks AS overruns_bounded,
       started_at <= now() AS started
FROM wal_stall_status();

-- A 4-page WAL ring and a bulk insert after a checkpoint (full-page
-- writes): the inserting backend wraps the ring around again and again.
-- Insert in batches until the collector has seen a wrap-around episode.
SELECT wal_stall_reset();
CREATE TABLE regress_bulk (id int, filler text);
CHECKPOINT;
CREATE FUNCTION regress_wrap_around(batches int) RETURNS bool
LANGUAGE plpgsql AS $$
BEGIN
    FOR i IN 1 .. batches LOOP
        INSERT INTO regress_bulk
            SELECT g, repeat('x', 200) FROM generate_series(1, 20000) g;
        IF (SELECT episodes > 0 FROM wal_stall_summary WHERE class = 'wal_buffer_full') THEN
            RETURN true;
        END IF;
    END LOOP;
    RETURN false;
END
$$;
SELECT regress_wrap_around(100) AS wrap_around_seen;
-- core publishes this backend's counters when it next goes idle (15+: at
-- most once a second unless forced); 13 has no pg_stat_wal, and there
-- exact_count stays NULL (docs/reference.md).
DO $$
BEGIN
    IF current_setting('server_version_num')::int >= 150000 THEN
        PERFORM pg_stat_force_next_flush();
    END IF;
END
$$;
SELECT regress_wait_for($$(SELECT CASE WHEN current_setting('server_version_num')::int >= 140000
                                THEN exact_count > 0 ELSE exact_count IS NULL END
                           FROM wal_stall_summary
                           WHERE class = 'wal_buffer_full')$$) AS core_counted_wrap_around;

SELECT class,
       episodes > 0 AS episodes,
       samples >= episodes AS samples,
       total_ms > 0 AS total,
       mean_ms > 0 AND p50_ms > 0 AND p50_ms <= p95_ms AND p95_ms <= p99_ms
           AND p99_ms <= max_ms AS percentiles_ordered,
       abs(mean_ms * episodes - total_ms) < 1e-6 * total_ms + 1e-9 AS mean_is_total_over_episodes,
       resolution_ms > 0.5 AND resolution_ms < 5 AS resolution
FROM wal_stall_summary WHERE class = 'wal_buffer_full';

-- The episodes counted one by one are some of the episodes (all of them
-- while every one is counted), and the standard error of the count as an
-- estimate is a number: NULL only where the count is.
SELECT bool_and(episodes_counted BETWEEN 0 AND episodes) AS counted_within_episodes,
       bool_and(episodes_stderr >= 0) AS stderr_known
FROM wal_stall_summary;

-- The histogram holds every episode, in buckets of 1, 2, 3-4, 5-8 ...
-- samples: edges at (2^k + 0.5) intervals (1 ms here).
SELECT h.total = s.episodes AS histogram_holds_every_episode,
       h.edges_ok AS buckets_are_powers_of_two_samples
FROM (SELECT sum(episodes) AS total,
             bool_and(abs(log(2, (upper_ms - 0.5)::numeric) - round(log(2, (upper_ms - 0.5)::numeric))) < 1e-9
                      AND (lower_ms = 0 OR abs((upper_ms - 0.5) / (lower_ms - 0.5) - 2) < 1e-9)) AS edges_ok
      FROM wal_stall_histogram WHERE class = 'wal_buffer_full') h,
     wal_stall_summary s
WHERE s.class = 'wal_buffer_full';

-- Exact counters are NULL exactly where core has none.
SELECT class, exact_count IS NOT NULL AS has_exact_count,
       exact_total_ms IS NOT NULL AS has_exact_time
FROM wal_stall_summary;

-- wal_stall_current lists only tracked classes (nothing may be waiting now:
-- t/020_current_wait.pl makes a backend wait and checks its row).
SELECT count(*) = count(*) FILTER (WHERE class IN ('wal_buffer_full', 'wal_flush',
        'wal_insert', 'clog', 'wal_write', 'wal_fsync', 'slru_io')
        AND waiting_ms > 0 AND pid > 0) AS current_rows_valid
FROM wal_stall_current;

-- Reset zeroes every figure and moves "since".
CREATE FUNCTION regress_reset_and_read(OUT episodes bigint, OUT samples bigint,
                                       OUT total_ms float8, OUT buckets bigint,
                                       OUT since_moved bool, OUT wrap_exact bigint,
                                       OUT counted bigint, OUT stderr float8)
LANGUAGE plpgsql AS $$
DECLARE
    before timestamptz := (SELECT reset_at FROM wal_stall_status());
BEGIN
    PERFORM wal_stall_reset();
    SELECT sum(s.episodes), sum(s.samples), sum(s.total_ms),
           bool_and(s.since > before),
           max(s.exact_count) FILTER (WHERE s.class = 'wal_buffer_full'),
           sum(s.episodes_counted), max(s.episodes_stderr)
      INTO episodes, samples, total_ms, since_moved, wrap_exact, counted, stderr
      FROM wal_stall_summary s;
    SELECT count(*) INTO buckets FROM wal_stall_histogram;
END
$$;
SELECT * FROM regress_reset_and_read();
SELECT since = (SELECT reset_at FROM wal_stall_status()) AS since_is_reset_at
FROM wal_stall_summary LIMIT 1;

-- Privileges: reading needs pg_monitor; reset stays with superusers.
CREATE ROLE regress_plain;
CREATE ROLE regress_monitor IN ROLE pg_monitor;
SET ROLE regress_plain;
SELECT count(*) FROM wal_stall_summary;
SELECT * FROM wal_stall_summary();
SELECT count(*) FROM wal_stall_current;
SELECT * FROM wal_stall_status();
RESET ROLE;
SET ROLE regress_monitor;
SELECT count(*) FROM wal_stall_summary;
-- (an error here is the failure; what the rows hold is checked above)
SELECT class, lower_ms, upper_ms, episodes FROM wal_stall_histogram LIMIT 0;
SELECT pid, class, waiting_ms FROM wal_stall_current LIMIT 0;
SELECT has_function_privilege('wal_stall_reset()', 'EXECUTE') AS may_reset,
       has_function_privilege('wal_stall_test_fsync(float8, text)', 'EXECUTE') AS may_probe;
SELECT collector_pid IS NOT NULL AS readable FROM wal_stall_status();
SELECT wal_stall_reset();
RESET ROLE;
DROP ROLE regress_plain;
DROP ROLE regress_monitor;

-- Bad settings get clear errors.
SET wal_stall.sample_interval = 5;
-- (core states the range, with units from 18 on: only the SQLSTATE is shown)
\set VERBOSITY sqlstate
ALTER SYSTEM SET wal_stall.sample_interval = 0.01;
ALTER SYSTEM SET wal_stall.sample_interval = 5000;
ALTER SYSTEM SET wal_stall.history_seconds = 1;
\set VERBOSITY default
SET wal_stall.no_such_setting = 1;
SELECT * FROM wal_stall_history('not a time');

DROP TABLE regress_bulk;
DROP FUNCTION regress_wrap_around(int);
DROP FUNCTION regress_reset_and_read();
DROP EXTENSION wal_stall;
