# wal_stall_clog: effective CLOG buffers per shared_buffers, and CLOG misses
# that match pg_stat_slru exactly.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('clog');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'wal_stall'
autovacuum = off
shared_buffers = 16MB
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION wal_stall');

# Min(128, Max(4, NBuffers / 512)) on 13-16: 16MB = 2048 buffers -> 4.
is($node->safe_psql('postgres', 'SELECT buffers FROM wal_stall_clog'),
	'4', 'shared_buffers = 16MB: 4 CLOG buffers');

# Committed transactions over many CLOG pages (32,768 XIDs each): one
# subtransaction per inserted row gives every row its own XID.
my $xid0 = $node->safe_psql('postgres', 'SELECT pg_snapshot_xmax(pg_current_snapshot())');
$node->safe_psql('postgres', q{
	CREATE TABLE clog_rows (id int);
	DO $$
	BEGIN
		FOR i IN 1 .. 200000 LOOP
			BEGIN
				INSERT INTO clog_rows VALUES (i);
			EXCEPTION WHEN others THEN
				RAISE;
			END;
		END LOOP;
	END
	$$;
});
my $xid1 = $node->safe_psql('postgres', 'SELECT pg_snapshot_xmax(pg_current_snapshot())');
cmp_ok(($xid1 - $xid0) / 32768, '>=', 5, 'the rows span more than five CLOG pages');

# Reading rows whose hint bits are unset looks up each XID in the CLOG; with
# four buffers the older pages have to be read back in.
# Sessions publish their counters when they exit: wait until only ours is
# left, so that nothing lands between the reset and the baseline read.
$node->poll_query_until('postgres',
	"SELECT count(*) = 1 FROM pg_stat_activity WHERE backend_type = 'client backend'");
my $before = $node->safe_psql('postgres',
	"SELECT wal_stall_reset(); SELECT blks_read FROM pg_stat_slru WHERE name = 'Xact'");
$before =~ s/\s+//g;	# the reset's empty result line comes first
$node->safe_psql('postgres',
	'SELECT count(*) FROM clog_rows; SELECT pg_stat_force_next_flush()');
$node->poll_query_until('postgres',
	"SELECT blks_read > $before FROM pg_stat_slru WHERE name = 'Xact'")
  or diag('pg_stat_slru saw no CLOG read');
my ($reads, $slru_delta, $hits, $ratio_ok) = split /\|/, $node->safe_psql('postgres', qq{
	SELECT c.reads, s.blks_read - $before, c.hits,
	       c.hit_ratio = c.hits::float8 / (c.hits + c.reads)
	FROM wal_stall_clog c, pg_stat_slru s WHERE s.name = 'Xact'});
cmp_ok($reads, '>', 0, "CLOG misses counted ($reads)");
is($reads, $slru_delta, 'reads equal the pg_stat_slru delta over the same interval');
cmp_ok($hits, '>', 0, 'CLOG hits counted');
is($ratio_ok, 't', 'hit_ratio = hits / (hits + reads)');

my ($episodes_ok, $since_ok) = split /\|/, $node->safe_psql('postgres', q{
	SELECT c.lock_episodes = s.episodes AND c.lock_ms = s.total_ms,
	       c.since = (SELECT reset_at FROM wal_stall_status())
	FROM wal_stall_clog c, wal_stall_summary s WHERE s.class = 'clog'});
is($episodes_ok, 't', 'lock figures are those of the clog stall class');
is($since_ok, 't', 'since is the last reset');

# A second setting: 64MB = 8192 buffers -> 16.
$node->append_conf('postgresql.conf', "shared_buffers = 64MB\n");
$node->restart;
is($node->safe_psql('postgres', 'SELECT buffers FROM wal_stall_clog'),
	'16', 'shared_buffers = 64MB: 16 CLOG buffers');

$node->stop;
done_testing();
