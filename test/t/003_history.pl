# The per-second history: a row every second during a pgbench run, WAL bytes
# and XIDs that add up, a ring that wraps, and occupancy that tells a 32kB
# ring from a 16MB one.
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

my $node = wal_stall_node('history', conf => qq{
autovacuum = off
synchronous_commit = off
shared_buffers = 64MB
max_wal_size = 1GB
});
pgbench_init($node, 5);

# Wait for the next row to close; return its sample_time.
sub next_row { return next_history_row($node); }

# The usual load for $seconds, in the background; @extra options after it.
sub pgbench
{
	my ($seconds, @extra) = @_;
	return pgbench_start($node, pgbench_load($seconds), @extra);
}

# --- rows during a run, and sums that match the server's own counters
my $t0 = next_row();
my ($lsn0, $xid0) = split /\|/, $node->safe_psql('postgres',
	'SELECT pg_current_wal_insert_lsn(), pg_snapshot_xmax(pg_current_snapshot())');
my $run = pgbench(6);
$run->finish;
my ($lsn1, $xid1) = split /\|/, $node->safe_psql('postgres',
	'SELECT pg_current_wal_insert_lsn(), pg_snapshot_xmax(pg_current_snapshot())');
my $t1 = next_row();

my ($rows, $increasing, $sum_wal, $sum_xids) = split /\|/, $node->safe_psql('postgres', qq{
	SELECT count(*),
	       bool_and(sample_time > prev) FILTER (WHERE prev IS NOT NULL),
	       sum(wal_bytes), sum(xids)
	FROM (SELECT *, lag(sample_time) OVER (ORDER BY sample_time) AS prev
	      FROM wal_stall_history WHERE sample_time > timestamptz '$t0' AND sample_time <= timestamptz '$t1') h});
cmp_ok($rows, '>=', 4, "rows closed during a 6-second run ($rows)");
is($increasing, 't', 'sample_time strictly increases');

my $wal = $node->safe_psql('postgres', "SELECT pg_wal_lsn_diff('$lsn1', '$lsn0')");
my $xids = $xid1 - $xid0;
cmp_ok($wal, '>', 1_000_000, "the run wrote WAL ($wal bytes)");
cmp_ok(abs($sum_wal - $wal), '<=', 0.01 * $wal,
	"sum(wal_bytes) $sum_wal matches the insert LSN advance $wal within 1%");
cmp_ok($xids, '>', 1000, "the run assigned XIDs ($xids)");
cmp_ok(abs($sum_xids - $xids), '<=', 0.01 * $xids,
	"sum(xids) $sum_xids matches the XID counter advance $xids within 1%");

# since: incremental polling returns only newer rows
is( $node->safe_psql('postgres',
		"SELECT count(*) = count(*) FILTER (WHERE sample_time > timestamptz '$t0')
		   FROM wal_stall_history(timestamptz '$t0')"),
	't', 'wal_stall_history(since) returns only rows after since');
is( $node->safe_psql('postgres',
		"SELECT (SELECT count(*) FROM wal_stall_history(timestamptz '$t0')) =
		        (SELECT count(*) FROM wal_stall_history WHERE sample_time > timestamptz '$t0')"),
	't', 'and all of them');

# columns that must hold figures during a run; the core counters' deltas
# only from 15, where the collector reads core's statistics (before, they
# are NULL: docs/sampling.md), in the rows that close inside the run.
my $core = $pg_major >= 15 ? 'IS NOT NULL' : 'IS NULL';
is( $node->safe_psql('postgres', qq{
		SELECT bool_and(wal_writes $core AND wal_syncs $core AND clog_hits $core
		                AND buffer_fill_avg <= buffer_fill_max
		                AND waiting_backends >= 0) AND count(*) >= 3
		FROM wal_stall_history
		WHERE sample_time > timestamptz '$t0' + interval '1 s' AND sample_time < timestamptz '$t1'}),
	't', "core counter deltas $core, mean fill within max, in the rows inside the run");

# reset clears the ring
$node->safe_psql('postgres', 'SELECT wal_stall_reset()');
is($node->safe_psql('postgres', 'SELECT count(*) FROM wal_stall_history'),
	'0', 'reset clears the history ring');

# --- 32kB ring vs 16MB ring under the same load with checkpoints
my %ring_bytes = ('32kB' => 32768, '16MB' => 16777216);

sub ring_run
{
	my ($ring) = @_;
	$node->append_conf('postgresql.conf', "wal_buffers = $ring\n");
	$node->restart;
	$node->safe_psql('postgres', 'SELECT wal_stall_reset()');
	my $start = next_row();
	my $load = pgbench(8);
	# checkpoints during the run bring full-page writes, hence big records
	for (1 .. 3)
	{
		sleep 2;
		$node->safe_psql('postgres', 'CHECKPOINT');
	}
	$load->finish;
	my $end = next_row();
	return split /\|/, $node->safe_psql('postgres', qq{
		SELECT count(*) FILTER (WHERE buffer_fill_max >= 1 - 8192.0 / $ring_bytes{$ring}),
		       count(*) FILTER (WHERE wal_buffer_full_ms > 0),
		       round(sum(wal_buffer_full_ms)::numeric, 1)
		FROM wal_stall_history WHERE sample_time > '$start' AND sample_time <= '$end'});
}
# A 16MB ring waits only when the WAL writer falls 16MB behind, which the
# setup does not rule out (a disk shared with the data files' writeback may
# hold pg_wal's writes back for a second or two): a pair in which the 16MB
# ring did not stall less is run again, three pairs at most.
my ($full32, $stalled32, $ms32, $full16, $stalled16, $ms16);
for my $attempt (1 .. 3)
{
	($full32, $stalled32, $ms32) = ring_run('32kB');
	($full16, $stalled16, $ms16) = ring_run('16MB');
	diag("attempt $attempt: 32kB: $full32 seconds at the full mark, $stalled32 with wrap-around stalls ($ms32 ms)");
	diag("attempt $attempt: 16MB: $full16 seconds at the full mark, $stalled16 with wrap-around stalls ($ms16 ms)");
	last if $ms16 < $ms32 && $stalled16 <= $stalled32;
}
cmp_ok($full32, '>', 0, '32kB ring: seconds with buffer_fill_max at the full mark');
cmp_ok($stalled32, '>', 0, '32kB ring: seconds with wal_buffer_full_ms > 0');
cmp_ok($ms16, '<', $ms32, '16MB ring: less wrap-around stall time than 32kB');
cmp_ok($stalled16, '<=', $stalled32, '16MB ring: no more stalled seconds than 32kB');

# --- the summary and the history count every sample in the same class.
# Commits that flush (synchronous_commit = on) beside commits that do not,
# through a 32kB ring, so that flushes, wrap-arounds and insertion-lock
# waits all occur.  Once no client waits on the WAL path and a row has
# closed after that, every class of the summary (finished episodes) must
# equal the sum of its history rows since the reset.
$node->append_conf('postgresql.conf', "wal_buffers = 32kB\n");
$node->restart;
$node->safe_psql('postgres', 'SELECT wal_stall_reset()');
my @mixed = (pgbench(6, '-c', '2'),
	pgbench_start($node, { init => sub { $ENV{PGOPTIONS} = '-c synchronous_commit=on' } },
		'-c', '2', '-j', '1', '-T', 6));
$_->finish for @mixed;
ok( $node->poll_query_until('postgres', q{
		SELECT count(*) = 0 FROM wal_stall_current
		WHERE class IN ('wal_buffer_full', 'wal_flush', 'wal_insert', 'clog')}),
	'no client waits after the load');
next_row();
my $agree = $node->safe_psql('postgres', qq{
	SELECT s.class, round(s.total_ms::numeric, 3), round(h.ms::numeric, 3),
	       abs(s.total_ms - h.ms) <= 0.001 * greatest(s.total_ms, 1)
	FROM wal_stall_summary s
	JOIN (SELECT 'wal_buffer_full' AS class, sum(wal_buffer_full_ms) AS ms FROM wal_stall_history
	      UNION ALL SELECT 'wal_flush', sum(wal_flush_ms) FROM wal_stall_history
	      UNION ALL SELECT 'wal_insert', sum(wal_insert_ms) FROM wal_stall_history
	      UNION ALL SELECT 'clog', sum(clog_ms) FROM wal_stall_history) h USING (class)
	ORDER BY s.class COLLATE "C"});
diag("class | summary ms | history ms | equal\n$agree");
my %agree = map { my @f = split /\|/; ($f[0] => [@f]) } split /\n/, $agree;
cmp_ok($agree{wal_flush}[1], '>', 0, 'the synchronous commits waited on flushes');
for my $class (qw(wal_buffer_full wal_flush wal_insert clog))
{
	is($agree{$class}[3], 't',
		"$class: the summary's total ($agree{$class}[1] ms) equals its history's sum ($agree{$class}[2] ms)");
}

$node->stop;

# --- a tiny ring wraps and keeps exactly its newest rows, in order
$node->append_conf('postgresql.conf', "wal_stall.history_seconds = 3\n");
$node->start;
my $start = $node->safe_psql('postgres', 'SELECT now()');
$node->poll_query_until('postgres',
	"SELECT count(*) = 3 AND min(sample_time) > '$start'::timestamptz + interval '2 seconds'
	   FROM wal_stall_history")
  or diag('ring did not wrap');
my ($count, $ordered, $fresh) = split /\|/, $node->safe_psql('postgres', q{
	SELECT count(*),
	       bool_and(sample_time > prev) FILTER (WHERE prev IS NOT NULL),
	       max(sample_time) > now() - interval '3 seconds'
	FROM (SELECT sample_time, lag(sample_time) OVER () AS prev
	      FROM wal_stall_history) h});
is($count, '3', 'a 3-row ring returns exactly 3 rows after wrapping');
is($ordered, 't', 'oldest first, strictly increasing');
is($fresh, 't', 'and they are the newest rows');

$node->stop;
done_testing();
