# Stall time per statement (wal_stall_queries): the statement that wraps
# the WAL ring gets the time under pg_stat_statements' query id, a read-only
# statement beside it gets none, every class sums to the summary, readers
# without pg_read_all_stats see only their own query ids, a failed
# statement leaves nothing in its process's slot, and the table's bound
# holds with evictions counted.  A utility statement's id is published
# with pg_stat_statements preloaded after wal_stall.
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use WalStallTest;

# The test compares with compute_query_id and pg_stat_activity.query_id,
# both 14+.  (On 13 query ids come from pg_stat_statements alone.)
plan skip_all => 'compute_query_id and pg_stat_activity.query_id need 14+' if $pg_major < 14;

my $node = wal_stall_node('queries',
	# pg_stat_statements after us: its utility hook runs first and sets a
	# utility statement's query id to 0 before ours sees it
	preload => 'wal_stall, pg_stat_statements',
	conf => qq{
autovacuum = off
synchronous_commit = off
wal_buffers = 32kB
max_wal_size = 1GB
wal_stall.max_queries = 5000
},
	sql => q{
	CREATE EXTENSION wal_stall;
	CREATE EXTENSION pg_stat_statements;
	CREATE TABLE bulk (id int, filler text);
	CREATE TABLE quiet AS SELECT g AS id FROM generate_series(1, 1000) g;
	-- reads a backend's statement slot: not part of the extension's SQL,
	-- in the library only when built with WS_TEST_FUNCTIONS=1, as
	-- scripts/test.sh builds it (test/test_functions.c)
	CREATE FUNCTION regress_slot_queryid(int) RETURNS bigint
	AS '$libdir/wal_stall', 'wal_stall_query_slot_for_tests' LANGUAGE C STRICT;
	-- pg_monitor has the privileges of pg_read_all_stats: a reader that
	-- has not is granted the view alone
	CREATE ROLE regress_reader LOGIN;
	GRANT EXECUTE ON FUNCTION wal_stall_queries() TO regress_reader;
	GRANT SELECT ON wal_stall_queries TO regress_reader;
	CREATE ROLE regress_all_stats LOGIN IN ROLE pg_read_all_stats;
	GRANT EXECUTE ON FUNCTION wal_stall_queries() TO regress_all_stats;
	GRANT SELECT ON wal_stall_queries TO regress_all_stats;});
is($node->safe_psql('postgres', 'SHOW compute_query_id'), 'auto',
	'compute_query_id is auto: pg_stat_statements turns it on');
ok(wait_for_collector($node), 'collector ticks');

# --- a bulk insert wraps the ring while a read-only statement runs beside it
my $select_script = $node->basedir . '/select.sql';
PostgreSQL::Test::Utils::append_to_file($select_script,
	"SELECT count(*) FROM quiet WHERE id > 10;\n");
$node->safe_psql('postgres', 'SELECT wal_stall_reset(), pg_stat_statements_reset()');
my $reader = pgbench_start($node, '-c', '2', '-T', '6', '-f', $select_script);
$node->safe_psql('postgres', q{
	INSERT INTO bulk SELECT g, repeat('x', 200) FROM generate_series(1, 400000) g;});
pgbench_wait($reader);

my ($bulk_ms, $class_ms, $bulk_id) = split /\|/, $node->safe_psql('postgres', q{
	SELECT q.total_ms, s.total_ms, q.queryid
	FROM wal_stall_queries q
	JOIN pg_stat_statements p USING (userid, dbid, queryid)
	JOIN wal_stall_summary s USING (class)
	WHERE q.class = 'wal_buffer_full' AND p.query LIKE 'INSERT INTO bulk%'});
ok(defined $bulk_id && $bulk_id ne '',
	'the bulk insert has wal_buffer_full time under the query id of pg_stat_statements');
cmp_ok($bulk_ms, '>', 0.5 * $class_ms,
	"and most of the class's time: $bulk_ms of $class_ms ms");
is( $node->safe_psql('postgres', q{
		SELECT count(*) FROM wal_stall_queries q
		JOIN pg_stat_statements p USING (userid, dbid, queryid)
		WHERE p.query LIKE 'SELECT count(*) FROM quiet%'}),
	'0', 'the read-only statement run beside it has no stall time');
cmp_ok($node->safe_psql('postgres', q{
		SELECT calls FROM pg_stat_statements WHERE query LIKE 'SELECT count(*) FROM quiet%'}),
	'>', 100, 'although it ran');

# --- every class's rows sum to the summary (read in one statement; the
# collector may close an episode between two reads, so poll until one
# reading sees no episode closed between the two views)
my $sums = q{
	SELECT bool_and(abs(coalesce(q.ms, 0) - s.total_ms) <= 1e-6 * greatest(s.total_ms, 1e-3))
	       AND count(*) = 7
	FROM wal_stall_summary s
	LEFT JOIN (SELECT class, sum(total_ms) AS ms FROM wal_stall_queries GROUP BY class) q
	USING (class)};
ok($node->poll_query_until('postgres', $sums), 'per-class sums equal the summary');
cmp_ok($node->safe_psql('postgres', q{
		SELECT count(DISTINCT class) FROM wal_stall_queries}), '>=', 2,
	'with more than one class charged');

# --- privileges as in pg_stat_statements
is( $node->safe_psql('postgres', qq{
		SET ROLE regress_reader;
		SELECT count(*) FILTER (WHERE queryid IS NOT NULL) || ' ' || count(*)
		FROM wal_stall_queries WHERE class = 'wal_buffer_full'
		  AND userid = 'postgres'::regrole}),
	'0 ' . $node->safe_psql('postgres', q{
		SELECT count(*) FROM wal_stall_queries
		WHERE class = 'wal_buffer_full' AND userid = 'postgres'::regrole}),
	'a reader without pg_read_all_stats sees the rows of others with NULL query ids');
is( $node->safe_psql('postgres', qq{
		SET ROLE regress_all_stats;
		SELECT count(*) FROM wal_stall_queries
		WHERE queryid = $bulk_id AND class = 'wal_buffer_full'}),
	'1', 'a member of pg_read_all_stats sees them');
$node->safe_psql('postgres', q{
	SET ROLE regress_reader;
	SELECT count(*) FROM wal_stall_queries;});
my ($ret, $stdout, $stderr) = $node->psql('postgres', q{
	CREATE ROLE regress_nobody LOGIN; SET ROLE regress_nobody;
	SELECT count(*) FROM wal_stall_queries;});
like($stderr, qr/permission denied/, 'others cannot read it at all');

# --- the statement slot: set while a statement runs, empty after it,
# empty after one that failed mid-way
my $session = $node->background_psql('postgres', on_error_stop => 0);
my $pid = $session->query_safe('SELECT pg_backend_pid()');
$session->query_until(qr/started/, q{
	\echo started
	SELECT pg_sleep(2), 'slot probe';
});
ok( $node->poll_query_until('postgres', qq{
		SELECT regress_slot_queryid($pid) = query_id
		FROM pg_stat_activity WHERE pid = $pid AND query LIKE '%slot probe%'}),
	'a running statement publishes the query id pg_stat_activity shows');
$session->query_safe('SELECT 1');
is($node->safe_psql('postgres', "SELECT regress_slot_queryid($pid) IS NULL"), 't',
	'the slot is empty once the statement and its transaction end');
# a utility statement, with pg_stat_statements' hook before ours
$session->query_until(qr/started/, q{
	\echo started
	DO $$BEGIN PERFORM pg_sleep(2); END$$ /* utility probe */;
});
ok( $node->poll_query_until('postgres', qq{
		SELECT regress_slot_queryid($pid) = query_id
		FROM pg_stat_activity WHERE pid = $pid AND query LIKE '%utility probe%'}),
	'a running utility statement publishes the query id pg_stat_activity shows');
$session->query_safe('SELECT 1');
$session->query(q{
	INSERT INTO bulk SELECT g, repeat('y', 200) FROM generate_series(1, 100000) g
	WHERE 1 / (g - 60000) IS NOT NULL});
like($session->{stderr}, qr/division by zero/, 'a statement fails mid-way');
$session->{stderr} = '';
is($node->safe_psql('postgres', "SELECT regress_slot_queryid($pid) IS NULL"), 't',
	'and leaves nothing in the slot');
$session->query_safe('BEGIN');
$session->query('SELECT 1 / 0');
$session->{stderr} = '';
is($node->safe_psql('postgres', "SELECT regress_slot_queryid($pid) IS NULL"), 't',
	'nor does one that fails in a transaction block');
$session->query_safe('ROLLBACK');
$session->quit;

# --- the figures survive a clean restart; reset empties them.  Every entry
# comes back with at least its episodes: the shutdown itself (its
# checkpoint's WAL writes and fsync) may add episodes and entries.  An
# entry of a process without user or database (the WAL writer, the
# checkpointer) has NULL userid and dbid, so every key column is matched
# with IS NOT DISTINCT FROM.
$node->safe_psql('postgres',
	'CREATE TABLE queries_before AS SELECT * FROM wal_stall_queries');
my $before = $node->safe_psql('postgres', 'SELECT count(*) FROM queries_before');
$node->restart;
is($node->safe_psql('postgres', q{
		SELECT count(*) FROM queries_before b
		LEFT JOIN wal_stall_queries q
		  ON q.userid IS NOT DISTINCT FROM b.userid AND q.dbid IS NOT DISTINCT FROM b.dbid
		 AND q.queryid IS NOT DISTINCT FROM b.queryid AND q.class = b.class
		WHERE q.episodes IS NULL OR q.episodes < b.episodes
		   OR q.total_ms < b.total_ms}), '0',
	"the entries survive a clean restart ($before)");
cmp_ok($before, '>', 0, 'there were entries to keep');
$node->safe_psql('postgres', 'SELECT wal_stall_reset()');
is($node->safe_psql('postgres', q{
		SELECT count(*) FROM wal_stall_queries WHERE episodes > 0 AND queryid IS NOT NULL}),
	'0', 'wal_stall_reset() empties them');

# --- the bound: many distinct stalling statements in a small table.  Only
# a statement the collector samples in a WAL wait gets an entry, so a fixed
# number of statements may leave the table short of full, and nothing
# evicted.  Keep charging new statements (each wraps the 32kB ring many
# times over, and with fsync on, which the test cluster turns off, each
# commit waits for a real WAL flush) until more distinct entries have been
# seen since the reset than the table holds: an entry leaves the table only
# by eviction (or a reset), so the evictions are at least the difference.
my $max_queries = 100;
$node->append_conf('postgresql.conf', qq{
wal_stall.max_queries = $max_queries
fsync = on
});
$node->restart;
my $tables = 0;
sub evict_tables
{
	my $n = shift;
	$node->safe_psql('postgres', join '',
		map { "CREATE TABLE evict_$_ (id int, filler text);\n" } $tables + 1 .. $tables + $n);
	$tables += $n;
}
evict_tables(200);
$node->safe_psql('postgres', 'SELECT wal_stall_reset()');
my %seen;
my ($next, $batch) = (1, 50);
my $deadline = time() + $PostgreSQL::Test::Utils::timeout_default;
while (keys %seen <= $max_queries && time() < $deadline)
{
	evict_tables($batch) if $next + $batch - 1 > $tables;
	$node->safe_psql('postgres', "SET synchronous_commit = on;\n" . join '',
		map { "INSERT INTO evict_$_ SELECT g, repeat('z', 100) FROM generate_series(1, 3000) g;\n" }
		$next .. $next + $batch - 1);
	$next += $batch;
	# a NULL key column is an empty field: the key stays unambiguous
	my @keys = split /\n/, $node->safe_psql('postgres', q{
		SELECT format('%s %s %s %s', userid, dbid, queryid, class) FROM wal_stall_queries});
	$seen{$_} = 1 for @keys;
}
my $seen = keys %seen;
my $statements = $next - 1;
cmp_ok($seen, '>', $max_queries,
	"more distinct entries charged than the table holds ($seen, after $statements statements)");
my ($entries, $evictions) = split /\|/, $node->safe_psql('postgres', q{
	SELECT (SELECT count(*) FROM wal_stall_queries), query_evictions FROM wal_stall_status()});
cmp_ok($entries, '<=', $max_queries, "at most wal_stall.max_queries entries ($entries)");
cmp_ok($evictions, '>=', $seen - $max_queries,
	"evictions are counted ($evictions, at least $seen - $max_queries)");
my $kept = $node->safe_psql('postgres', q{
	SELECT count(DISTINCT queryid) FROM wal_stall_queries q
	JOIN pg_stat_statements p USING (userid, dbid, queryid)
	WHERE p.query LIKE 'INSERT INTO evict_%'});
cmp_ok($kept, '>', 10, "the entries kept are the statements that stalled ($kept)");

$node->stop;
done_testing();
