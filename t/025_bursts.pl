# Counting episodes in bursts (cadence.h, docs/sampling.md): under a load
# whose commit waits are short, each episode counted in a burst stands for
# wal_stall.episode_sampling episodes, and the summary says how many were
# counted one by one and the standard error of the estimate.  The figures
# stay consistent with each other (the histogram and wal_stall_queries
# weigh the same episodes alike), and wal_stall.episode_sampling = 1 counts
# every episode again.
#
# The commit waits are made short on any disk: pg_wal lies in /dev/shm
# (memory, so its fsync takes microseconds), and commit_delay holds the
# WAL write lock a millisecond at each flush, so that the other committers
# wait about that long for it (wal_flush).  fsync must be on: commit_delay
# sleeps only then.
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
use strict;
use warnings;
use File::Path qw(rmtree);
use File::Temp qw(tempdir);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use WalStallTest;

my $waldir = tempdir('wal_stall_bursts_XXXX', DIR => '/dev/shm', CLEANUP => 0);
# initdb wants to create the directory itself
rmdir $waldir;

my $node;
# the WAL directory goes with the test, however it ends: the server first
END
{
	$node->stop('immediate') if defined $node;
	rmtree($waldir) if defined $waldir;
}

$node = wal_stall_node('bursts',
	init => { extra => [ '--waldir', $waldir ] },
	conf => qq{
autovacuum = off
fsync = on
synchronous_commit = on
commit_delay = 1000
commit_siblings = 0
wal_stall.episode_sampling = 8
});
pgbench_init($node, 2);

# The figures of one class: episodes, counted one by one, standard error.
sub class_figures
{
	my ($class) = @_;
	return split /\|/, $node->safe_psql('postgres', qq{
		SELECT episodes, episodes_counted, episodes_stderr
		FROM wal_stall_summary WHERE class = '$class'});
}

# Every class's histogram and statements weigh the summary's episodes.
sub check_consistent
{
	my ($what) = @_;
	my $bad = $node->safe_psql('postgres', q{
		SELECT string_agg(format('%s: %s in the summary, %s in the histogram',
								 s.class, s.episodes, coalesce(h.episodes, 0)), '; ')
		FROM wal_stall_summary s
		LEFT JOIN (SELECT class, sum(episodes) AS episodes
				   FROM wal_stall_histogram GROUP BY class) h USING (class)
		WHERE s.episodes <> coalesce(h.episodes, 0)});
	is($bad, '', "$what: each class's histogram holds its episodes");
	$bad = $node->safe_psql('postgres', q{
		SELECT string_agg(format('%s: %s in the summary, %s in wal_stall_queries',
								 s.class, s.episodes, coalesce(q.episodes, 0)), '; ')
		FROM wal_stall_summary s
		LEFT JOIN (SELECT class, sum(episodes) AS episodes
				   FROM wal_stall_queries GROUP BY class) q USING (class)
		WHERE s.kind = 'stall' AND s.episodes <> coalesce(q.episodes, 0)});
	is($bad, '', "$what: each stall class's statements hold its episodes");
	$bad = $node->safe_psql('postgres', q{
		SELECT string_agg(class, ', ') FROM wal_stall_summary
		WHERE episodes_counted > episodes OR episodes_stderr < 0});
	is($bad, '', "$what: no class counts more one by one than in all");
}

$node->safe_psql('postgres', 'SELECT wal_stall_reset()');
my $load = pgbench_start($node, '-c', '8', '-j', '2', '-T', '60');
# bursts begin once a second or so of short commit waits has been seen
ok( $node->poll_query_until('postgres', q{
		SELECT episodes_stderr > 0 AND episodes_counted >= 200
		FROM wal_stall_summary WHERE class = 'wal_flush'}),
	'short commit waits are counted in bursts');
$load->kill_kill;
$load->finish;

# once pgbench's sessions are gone, nothing more closes
$node->poll_query_until('postgres',
	q{SELECT count(*) = 0 FROM pg_stat_activity WHERE application_name = 'pgbench'});
my ($episodes, $counted, $stderr) = class_figures('wal_flush');
cmp_ok($counted, '<', $episodes,
	"wal_flush: $counted episodes counted one by one stand for $episodes");
# every counted episode stands for 1 or for 8: (episodes - counted) is 7
# for each of 8, the variance 56 for each, so stderr^2 = 8 (episodes - counted)
my $expected = sqrt(8 * ($episodes - $counted));
cmp_ok(abs($stderr - $expected), '<', 1e-6 * $expected + 1e-9,
	sprintf('wal_flush: stderr %.3f is sqrt(8 x %d)', $stderr, $episodes - $counted));
cmp_ok($stderr, '<', $episodes / 4,
	sprintf('wal_flush: the estimate %d +- %.0f is an estimate, not noise', $episodes, $stderr));
my ($p50, $p95) = split /\|/, $node->safe_psql('postgres',
	q{SELECT p50_ms, p95_ms FROM wal_stall_summary WHERE class = 'wal_flush'});
ok($p50 > 0 && $p95 >= $p50, "wal_flush percentiles from the counted episodes: p50 $p50, p95 $p95 ms");
check_consistent('in bursts');

# wal_stall.episode_sampling = 1: every episode counted again
$node->safe_psql('postgres', 'ALTER SYSTEM SET wal_stall.episode_sampling = 1');
$node->reload;
$node->poll_query_until('postgres', q{SELECT current_setting('wal_stall.episode_sampling') = '1'});
# the reload reaches the collector at its next tick; let it pass
sleep 1;
$node->safe_psql('postgres', 'SELECT wal_stall_reset()');
pgbench_run($node, '-c', '8', '-j', '2', '-T', '5');
my $estimated = $node->safe_psql('postgres', q{
	SELECT string_agg(class, ', ') FROM wal_stall_summary
	WHERE episodes_counted <> episodes OR episodes_stderr <> 0});
is($estimated, '', 'episode_sampling = 1: every episode counted one by one, no estimate');
($episodes) = class_figures('wal_flush');
cmp_ok($episodes, '>', 0, "episode_sampling = 1: wal_flush episodes seen ($episodes)");
check_consistent('every episode counted');

$node->stop;
rmtree($waldir);
ok(!-e $waldir, 'the WAL directory in /dev/shm is removed');
done_testing();
