# Checkpoints and full-page images on the timeline: a CHECKPOINT issued in
# the middle of a pgbench run is marked in the right second, full-page
# images jump right after it and decay, and the history's wal_fpi adds up
# to pg_stat_wal's.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use Time::HiRes qw(time usleep);

my $node = PostgreSQL::Test::Cluster->new('checkpoints');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'wal_stall'
autovacuum = off
synchronous_commit = off
wal_buffers = 32kB
max_wal_size = 4GB
checkpoint_timeout = 1h
shared_buffers = 128MB
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION wal_stall');
$node->command_ok(
	[ 'pgbench', '-i', '-q', '-s', '1', '-h', $node->host, '-p', $node->port, 'postgres' ],
	'pgbench -i');
$node->safe_psql('postgres', 'CHECKPOINT');

# A run of 12 s: 5 s to let the full-page images of the checkpoint after
# pgbench -i die down, a CHECKPOINT, 7 s after it.
$node->safe_psql('postgres', "SELECT pg_stat_reset_shared('wal')");
$node->safe_psql('postgres', 'SELECT wal_stall_reset()');
my $load = IPC::Run::start(
	[ 'pgbench', '-n', '-c', '4', '-j', '2', '-T', '12',
	  '-h', $node->host, '-p', $node->port, 'postgres' ],
	'>', \my $out, '2>', \my $err);
sleep 5;
my $before = $node->safe_psql('postgres', 'SELECT clock_timestamp()');
$node->safe_psql('postgres', 'CHECKPOINT');
my $after = $node->safe_psql('postgres', 'SELECT clock_timestamp()');
$load->finish;
sleep 2;	# backends publish their counters when idle
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
like($kinds, qr/requested/, 'core counted it as requested');

# full-page images jump after the checkpoint and decay
my ($fpi_before, $fpi_first, $fpi_later) = split /\|/, $node->safe_psql('postgres', qq{
	WITH h AS (SELECT sample_time, wal_fpi,
	                  extract(epoch FROM sample_time - timestamptz '$first_mark') AS t
	           FROM wal_stall_history)
	SELECT (SELECT max(wal_fpi) FROM h WHERE t BETWEEN -3 AND -1),
	       (SELECT max(wal_fpi) FROM h WHERE t BETWEEN 0 AND 2),
	       (SELECT min(wal_fpi) FROM h WHERE t BETWEEN 4 AND 6)});
diag("wal_fpi per second: before $fpi_before, right after $fpi_first, 4-6 s after $fpi_later");
cmp_ok($fpi_first, '>', 2 * $fpi_before, 'full-page images jump after the checkpoint');
cmp_ok($fpi_later, '<', $fpi_first, 'and decay as pages are written again');

# the sum over the run equals core's count
my ($sum, $core) = split /\|/, $node->safe_psql('postgres',
	'SELECT (SELECT sum(wal_fpi) FROM wal_stall_history), wal_fpi FROM pg_stat_wal');
cmp_ok($core, '>', 1000, "core counted full-page images ($core)");
cmp_ok(abs($sum - $core), '<=', 0.01 * $core, "sum(wal_fpi) $sum = pg_stat_wal.wal_fpi $core within 1%");

$node->stop;
done_testing();
