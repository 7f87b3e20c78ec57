--
-- wal_stall: what the regression tests share, created once.  REGRESS in the
-- Makefile runs this test first, and every test after it in the same
-- database, so they find these functions in the public schema.
--
-- Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
--

-- Wait (bounded) until a condition holds.  Core statistics are read through
-- the transaction's snapshot, as in the pg_stat views: drop it every round.
CREATE FUNCTION regress_wait_for(condition text, seconds int DEFAULT 30)
RETURNS bool LANGUAGE plpgsql AS $$
DECLARE
    ok bool;
BEGIN
    FOR i IN 1 .. seconds * 10 LOOP
        PERFORM pg_stat_clear_snapshot();
        EXECUTE 'SELECT ' || condition INTO ok;
        IF ok THEN
            RETURN true;
        END IF;
        PERFORM pg_sleep(0.1);
    END LOOP;
    RETURN false;
END
$$;
