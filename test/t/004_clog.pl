# wal_stall_clog: effective CLOG buffers per shared_buffers (13-16) or
# transaction_buffers (17+), and CLOG misses that match pg_stat_slru exactly.
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use List::Util qw(min max);
use FindBin;
use lib $FindBin::RealBin;
use WalStallTest;

my $node = wal_stall_node('clog', conf => qq{
autovacuum = off
shared_buffers = 16MB
});
my $v17 = $pg_major >= 17;

# The CLOG row of pg_stat_slru is "Xact" before 17, "transaction" from 17.
my $slru = $v17 ? 'transaction' : 'Xact';

# CLOG buffers for shared_buffers of $mb MB (8kB pages): before 17
# Min(128, Max(4, NBuffers / 512)); from 17, with transaction_buffers = 0,
# SimpleLruAutotuneBuffers(512, 1024): NBuffers / 512 rounded down to a
# multiple of the 16-buffer bank, at least one bank, at most 1024.
sub clog_buffers
{
	my ($mb) = @_;
	my $per = $mb * 128 / 512;
	return $v17 ? min(1024, max(16, $per - $per % 16)) : min(128, max(4, $per));
}
my $want = clog_buffers(16);
is($node->safe_psql('postgres', 'SELECT buffers FROM wal_stall_clog'),
	$want, "shared_buffers = 16MB: $want CLOG buffers");

# Committed transactions over more CLOG pages (32,768 XIDs each) than there
# are CLOG buffers, plus two: one subtransaction per inserted row gives
# every row its own XID.
my $pages = $want + 2;
my $rows = $pages * 32768;
my $xid0 = $node->safe_psql('postgres', 'SELECT pg_snapshot_xmax(pg_current_snapshot())');
$node->safe_psql('postgres', qq{
	CREATE TABLE clog_rows (id int);
	DO \$\$
	BEGIN
		FOR i IN 1 .. $rows LOOP
			BEGIN
				INSERT INTO clog_rows VALUES (i);
			EXCEPTION WHEN others THEN
				RAISE;
			END;
		END LOOP;
	END
	\$\$;
});
my $xid1 = $node->safe_psql('postgres', 'SELECT pg_snapshot_xmax(pg_current_snapshot())');
cmp_ok(($xid1 - $xid0) / 32768, '>=', $want + 1,
	"the rows span more CLOG pages than the $want buffers");

# Reading rows whose hint bits are unset looks up each XID in the CLOG; with
# fewer buffers than pages the older pages have to be read back in.
# Sessions publish their counters when they exit: wait until only ours is
# left, so that nothing lands between the reset and the baseline read.
$node->poll_query_until('postgres',
	"SELECT count(*) = 1 FROM pg_stat_activity WHERE backend_type = 'client backend'");
# One transaction: between two statements outside one, the session
# publishes its own pending counts (a CLOG page its start-up read), and the
# reset's baseline and ours then differ by it (failed once so on 18).
my $before = $node->safe_psql('postgres',
	"BEGIN; SELECT wal_stall_reset(); SELECT blks_read FROM pg_stat_slru WHERE name = '$slru'; COMMIT");
$before =~ s/\s+//g;	# the reset's empty result line comes first
# the session publishes its counters when it exits (15+ also when forced)
$node->safe_psql('postgres', 'SELECT count(*) FROM clog_rows');
$node->poll_query_until('postgres',
	"SELECT blks_read > $before FROM pg_stat_slru WHERE name = '$slru'")
  or diag('pg_stat_slru saw no CLOG read');
my ($reads, $slru_delta, $hits, $ratio_ok) = split /\|/, $node->safe_psql('postgres', qq{
	SELECT c.reads, s.blks_read - $before, c.hits,
	       c.hit_ratio = c.hits::float8 / (c.hits + c.reads)
	FROM wal_stall_clog c, pg_stat_slru s WHERE s.name = '$slru'});
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

# A second setting: 128MB = 16384 buffers -> 32 on every version.
$node->append_conf('postgresql.conf', "shared_buffers = 128MB\n");
$node->restart;
$want = clog_buffers(128);
is($want, 32, 'both formulas give 32 buffers for 128MB');
is($node->safe_psql('postgres', 'SELECT buffers FROM wal_stall_clog'),
	$want, "shared_buffers = 128MB: $want CLOG buffers");

# From 17 transaction_buffers sets it outright.
if ($v17)
{
	$node->append_conf('postgresql.conf', "transaction_buffers = 48\n");
	$node->restart;
	is($node->safe_psql('postgres', 'SELECT buffers FROM wal_stall_clog'),
		'48', 'transaction_buffers = 48: 48 CLOG buffers');
}

$node->stop;
done_testing();
