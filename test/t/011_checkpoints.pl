# Checkpoints and full-page images on the timeline: a CHECKPOINT issued in
# the middle of a pgbench run is marked in the right second, full-page
# images jump right after it and decay, and the history's wal_fpi adds up
# to pg_stat_wal's.
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time usleep);
use FindBin;
use lib $FindBin::RealBin;
use WalStallTest;

# Checkpoint marks come from the redo pointers on every version; full-page
# images and the checkpoint kind from core's statistics, which the
# collector reads from 15 (docs/sampling.md).
my $stats = $pg_major >= 15;

my $node = wal_stall_node('checkpoints', conf => qq{
autovacuum = off
synchronous_commit = off
wal_buffers = 32kB
max_wal_size = 4GB
checkpoint_timeout = 1h
shared_buffers = 128MB
});
pgbench_init($node, 1);
$node->safe_psql('postgres', 'CHECKPOINT');

# A pgbench run of at most 60 s, stopped once the rows after the
# CHECKPOINT are in; once the full-page images of the checkpoint
# before it have died down (few per transaction: most pages have been
# written since), a CHECKPOINT.  How long that takes depends on the
# machine's speed, so it is polled for, not timed.  The poll waits for the
# very rows the jump is compared with later: three rows under load whose
# mean is quiet (full-page images reach the counters up to a second late,
# as backends publish them, so one quiet row alone proves nothing), and
# says which they are.
$node->safe_psql('postgres', "SELECT pg_stat_reset_shared('wal')") if $stats;
$node->safe_psql('postgres', 'SELECT wal_stall_reset()');
my $load = pgbench_start($node, pgbench_load(60));

# full-page images per transaction, for the three rows up to and including
# the one at sample_time $upto (or the latest three)
sub last_three
{
	my ($upto) = @_;
	my $where = defined $upto ? "WHERE sample_time <= timestamptz '$upto'" : '';
	return qq{(SELECT sample_time, xids, wal_fpi::float8 / nullif(xids, 0) AS per_xact
	           FROM wal_stall_history $where
	           ORDER BY sample_time DESC LIMIT 3) last_three};
}
# Quiet: below 0.03 and below a tenth of the peak after the earlier
# checkpoint, the same jump on the same machine, so that the one after the
# CHECKPOINT can be expected to reach twice the quiet mean.  (Quiet rows
# read 0.002-0.011 here, the jump 0.3-0.6; a looser 0.1 let a run compare
# 0.161 with 0.082 on a loaded machine.)
my $quiet = $stats ? q{AND count(per_xact) = 3 AND avg(per_xact) < least(0.03, 0.1 *
		(SELECT max(wal_fpi::float8 / xids) FROM wal_stall_history WHERE xids > 50))} : '';
my $quiet_until = '';
my $deadline = time() + 45;
while ($quiet_until eq '' && time() < $deadline)
{
	$quiet_until = $node->safe_psql('postgres', qq{
		SELECT max(sample_time) FROM } . last_three() . qq{
		HAVING count(*) = 3 AND bool_and(xids > 50) $quiet});
	usleep(100_000) if $quiet_until eq '';
}
isnt($quiet_until, '',
	$stats ? 'full-page images of the earlier checkpoint died down' : 'three seconds of load')
  or die 'no three quiet rows under load within 45 s';
my $before = $node->safe_psql('postgres', 'SELECT clock_timestamp()');
$node->safe_psql('postgres', 'CHECKPOINT');
my $after = $node->safe_psql('postgres', 'SELECT clock_timestamp()');
# The rows up to 8 s after the CHECKPOINT come under load; then pgbench
# may stop.
$node->poll_query_until('postgres',
	"SELECT max(sample_time) > timestamptz '$after' + interval '9 s' FROM wal_stall_history")
  or die 'no history rows after the checkpoint';
$load->signal('INT');
$load->finish;
# Every pgbench backend has gone, and so published its counters; then a
# row that read them.
ok( $node->poll_query_until('postgres', q{
		SELECT count(*) = 0 FROM pg_stat_activity WHERE application_name = 'pgbench'}),
	'the pgbench backends have exited');
my $t_end = $node->safe_psql('postgres', "SELECT now() + interval '1 second'");
$node->poll_query_until('postgres',
	"SELECT max(sample_time) > timestamptz '$t_end' FROM wal_stall_history")
  or die 'no history row';

# the checkpoint in the right second: its row ends after it began, and no
# later than a second after it ended
my ($marked, $first_mark, $kinds) = split /\|/, $node->safe_psql('postgres', qq{
	SELECT count(*) FILTER (WHERE checkpoint IS NOT NULL),
	       min(sample_time) FILTER (WHERE checkpoint IS NOT NULL),
	       string_agg(DISTINCT checkpoint_kind, ',')
	FROM wal_stall_history});
cmp_ok($marked, '>=', 1, "the checkpoint is marked ($marked rows)");
is( $node->safe_psql('postgres', qq{
		SELECT timestamptz '$first_mark' >= timestamptz '$before'
		   AND timestamptz '$first_mark' <= timestamptz '$after' + interval '1 second'}),
	't', "in the second it happened ($before .. $after: marked at $first_mark)");
is( $node->safe_psql('postgres', q{
		SELECT count(*) FROM wal_stall_history WHERE checkpoint = 'done'}),
	'1', 'one row says done');
SKIP:
{
	skip 'full-page images and checkpoint kinds from core statistics need 15+', 6 unless $stats;
	like($kinds, qr/requested/, 'core counted it as requested');

	# full-page images per transaction jump after the checkpoint and decay
	# (counts per transaction: the machine's speed varies from second to
	# second).  Before: the three quiet rows the poll above found.
	my ($fpi_before, $fpi_first, $fpi_later) = split /\|/, $node->safe_psql('postgres', qq{
		WITH h AS (SELECT wal_fpi::float8 / nullif(xids, 0) AS per_xact,
		                  extract(epoch FROM sample_time - timestamptz '$first_mark') AS t
		           FROM wal_stall_history)
		SELECT round((SELECT avg(per_xact) FROM } . last_three($quiet_until) . qq{)::numeric, 3),
		       round((SELECT max(per_xact) FROM h WHERE t BETWEEN 0 AND 2)::numeric, 3),
		       round((SELECT min(per_xact) FROM h WHERE t BETWEEN 4 AND 8)::numeric, 3)});
	diag("full-page images per transaction: before $fpi_before, right after $fpi_first, 4-8 s after $fpi_later");
	cmp_ok($fpi_first, '>', 2 * $fpi_before, 'full-page images jump after the checkpoint')
	  or diag($node->safe_psql('postgres', qq{
		SELECT sample_time, xids, wal_fpi, checkpoint FROM wal_stall_history
		WHERE sample_time BETWEEN timestamptz '$before' - interval '4 s'
		                      AND timestamptz '$first_mark' + interval '9 s'
		ORDER BY sample_time}));
	cmp_ok($fpi_later, '<', $fpi_first, 'and decay as pages are written again');

	# the sum over the run equals core's count
	my ($sum, $core) = split /\|/, $node->safe_psql('postgres',
		'SELECT (SELECT sum(wal_fpi) FROM wal_stall_history), wal_fpi FROM pg_stat_wal');
	cmp_ok($core, '>', 1000, "core counted full-page images ($core)");
	cmp_ok(abs($sum - $core), '<=', 0.01 * $core, "sum(wal_fpi) $sum = pg_stat_wal.wal_fpi $core within 1%");
}

$node->stop;
done_testing();
