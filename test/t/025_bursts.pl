# Counting episodes in bursts (cadence.h, docs/sampling.md): under a load
# whose commit waits are short, each episode counted in a burst stands for
# wal_stall.episode_sampling episodes, and the summary says how many were
# counted one by one and the standard error of the estimate.  The figures
# stay consistent with each other (the histogram and wal_stall_queries
# weigh the same episodes alike), the estimate agrees with a count of
# every episode under the same load, and wal_stall.episode_sampling = 1
# counts every episode again.
#
# The commit waits are made short on any disk: pg_wal lies in /dev/shm
# (memory, so its fsync takes microseconds), and commit_delay holds the
# WAL write lock a millisecond at each flush, so that the other committers
# wait about that long for it (wal_flush).  fsync must be on: commit_delay
# sleeps only then.  The WAL is kept small (1 MB segments, max_wal_size
# 32 MB), so that a small /dev/shm holds it.
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

on_one_major_only();

# a tmpfs with room for the WAL, or the waits are not short by setup
my ($fs, $blocks, $bsize) = split ' ', (`stat -f -c '%T %a %S' /dev/shm 2>/dev/null` // '');
my $free_mb = ($blocks // 0) * ($bsize // 0) / (1024 * 1024);
plan skip_all => sprintf('/dev/shm is not a tmpfs with 256 MB free (%s, %.0f MB)', $fs // 'none', $free_mb)
  unless defined $fs && $fs eq 'tmpfs' && $free_mb >= 256;

my $waldir = tempdir('wal_stall_bursts_XXXX', DIR => '/dev/shm', CLEANUP => 0);
# initdb wants to create the directory itself
rmdir $waldir;

my $node;
# the WAL directory goes with the test, however it ends: the server first
END
{
	eval { $node->stop('immediate') if defined $node; };
	rmtree($waldir) if defined $waldir;
}

$node = wal_stall_node('bursts',
	init => { extra => [ '--waldir', $waldir, '--wal-segsize', '1' ] },
	conf => qq{
autovacuum = off
fsync = on
synchronous_commit = on
commit_delay = 1000
commit_siblings = 0
min_wal_size = 4MB
max_wal_size = 32MB
});
pgbench_init($node, 2);

# the default, which the first load runs at
my $n = $node->safe_psql('postgres', 'SHOW wal_stall.episode_sampling');
is($n, '16', 'wal_stall.episode_sampling is 16 by default');

# The figures of wal_flush, and the transactions pgbench made since the
# last reset (tpcb-like inserts one pgbench_history row each).
sub flush_figures
{
	return split /\|/, $node->safe_psql('postgres', q{
		SELECT episodes, episodes_counted, episodes_stderr, p50_ms,
			   (SELECT count(*) FROM pgbench_history)
		FROM wal_stall_summary WHERE class = 'wal_flush'});
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

# A load of 8 clients for 10 s, from a reset, once the collector has
# applied wal_stall.episode_sampling = $ratio.
sub run_load
{
	my ($ratio) = @_;
	$node->safe_psql('postgres', "ALTER SYSTEM SET wal_stall.episode_sampling = $ratio");
	$node->reload;
	ok( $node->poll_query_until('postgres',
			"SELECT current_setting('wal_stall.episode_sampling') = '$ratio'"),
		"wal_stall.episode_sampling = $ratio");
	# the collector reads the reload at its next tick, within a rest
	sleep 1;
	$node->safe_psql('postgres', 'TRUNCATE pgbench_history; SELECT wal_stall_reset()');
	pgbench_run($node, '-c', '8', '-j', '2', '-T', '10');
	# once pgbench's sessions are gone, nothing more closes
	ok( $node->poll_query_until('postgres',
			q{SELECT count(*) = 0 FROM pg_stat_activity WHERE application_name = 'pgbench'}),
		'pgbench has gone');
}

run_load($n);
my ($episodes, $counted, $stderr, $p50, $xacts) = flush_figures();
# each episode counted in a burst stands for n: (episodes - counted) is
# n - 1 for each of them
my $in_bursts = ($episodes - $counted) / ($n - 1);
cmp_ok($in_bursts, '>=', 25,
	"short commit waits counted in bursts: $in_bursts of $counted episodes, each as $n ($episodes)");
ok($stderr > 0 && $stderr < $episodes / 4,
	sprintf('wal_flush: the estimate %d has a standard error, %.0f', $episodes, $stderr));
check_consistent('in bursts');

run_load(1);
my ($all, $all_counted, $all_stderr, $all_p50, $all_xacts) = flush_figures();
is("$all_counted $all_stderr", "$all 0",
	"episode_sampling = 1: every episode counted one by one ($all), no estimate");
my $estimated = $node->safe_psql('postgres', q{
	SELECT string_agg(class, ', ') FROM wal_stall_summary
	WHERE episodes_counted <> episodes OR episodes_stderr <> 0});
is($estimated, '', 'episode_sampling = 1: no class has an estimate');
check_consistent('every episode counted');

# The same load, estimated and counted: per transaction, the two agree
# (loosely: two runs of a load differ), and so do the commit waits' p50.
my $per_xact = $episodes / $xacts;
my $all_per_xact = $all / $all_xacts;
cmp_ok(abs($per_xact / $all_per_xact - 1), '<', 0.5,
	sprintf('wal_flush episodes a transaction: %.3f estimated, %.3f counted', $per_xact, $all_per_xact));
cmp_ok(abs($p50 / $all_p50 - 1), '<', 0.5,
	sprintf('wal_flush p50: %.3f ms estimated, %.3f ms counted', $p50, $all_p50));

$node->stop;
rmtree($waldir);
ok(!-e $waldir, 'the WAL directory in /dev/shm is removed');
done_testing();
