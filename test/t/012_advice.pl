# wal_stall_advice() on live figures: a 32kB ring that wraps under pgbench
# gets a larger wal_buffers suggested; a 16MB ring under the same load is
# told to keep it; too little history gives one row that says so.
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

on_one_major_only();

my %nodes;
foreach my $ring ('32kB', '16MB')
{
	my $node = wal_stall_node("advice_$ring", conf => qq{
autovacuum = off
synchronous_commit = off
wal_buffers = $ring
max_wal_size = 2GB
checkpoint_timeout = 1h
});
	pgbench_init($node, 2, "pgbench -i ($ring)");
	$node->safe_psql('postgres', 'CHECKPOINT');
	$node->safe_psql('postgres', 'SELECT wal_stall_reset()');
	$nodes{$ring} = $node;
}

my ($setting, $confidence, $evidence) = split /\|/, $nodes{'32kB'}->safe_psql('postgres',
	'SELECT setting, confidence, evidence FROM wal_stall_advice()');
is($confidence, 'none', 'right after a reset: no advice');
like($evidence, qr/too little evidence: \d+ s of history/, 'and it says why');

# The same load on both servers at once, then history until 60 s are covered.
my @runs;
foreach my $ring (keys %nodes)
{
	push @runs, pgbench_start($nodes{$ring}, pgbench_load(8));
}
$_->finish foreach @runs;
foreach my $ring (keys %nodes)
{
	ok( $nodes{$ring}->poll_query_until('postgres',
			'SELECT sum(seconds) >= 62 FROM wal_stall_history', 't', 100),
		"$ring: 60 s of history");
}

my ($cur, $sug, $conf, $ev) = split /\|/, $nodes{'32kB'}->safe_psql('postgres',
	q{SELECT current, suggested, confidence, evidence FROM wal_stall_advice() WHERE setting = 'wal_buffers'});
diag("32kB: $cur -> $sug ($conf): $ev");
is($cur, '32kB', '32kB: current is the ring in force');
like($sug, qr/^\d+(kB|MB|GB)$/, '32kB: a size is suggested');
my %unit = (kB => 1024, MB => 1024 * 1024, GB => 1024 * 1024 * 1024);
my ($num, $u) = $sug =~ /^(\d+)(kB|MB|GB)$/;
cmp_ok($num * $unit{$u}, '>', 32768, '32kB: the suggestion is larger');
like($ev, qr/ring full in \d+ of \d+ s; clients lost [\d.]+ s to wrap-around/,
	'32kB: the evidence gives the figures');

($cur, $sug, $conf, $ev) = split /\|/, $nodes{'16MB'}->safe_psql('postgres',
	q{SELECT current, suggested, confidence, evidence FROM wal_stall_advice() WHERE setting = 'wal_buffers'});
diag("16MB: $cur -> $sug ($conf): $ev");
is($sug, '16MB', '16MB under the same load: keep it');
like($ev, qr/^keep: the ring never filled/, '16MB: because the ring never filled');

# pg_monitor may read the advice; PUBLIC may not.
my $node = $nodes{'16MB'};
$node->safe_psql('postgres',
	'CREATE ROLE regress_monitor LOGIN IN ROLE pg_monitor; CREATE ROLE regress_plain LOGIN');
is($node->safe_psql('postgres', 'SELECT count(*) > 0 FROM wal_stall_advice()',
		extra_params => [ '-U', 'regress_monitor' ]), 't', 'pg_monitor reads the advice');
my ($ret, $stdout, $stderr) = $node->psql('postgres', 'SELECT * FROM wal_stall_advice()',
	extra_params => [ '-U', 'regress_plain' ]);
like($stderr, qr/permission denied for function wal_stall_advice/, 'a plain role may not');

$_->stop foreach values %nodes;
done_testing();
