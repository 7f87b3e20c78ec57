# Every figure of WalStallFigures survives a clean restart: the save file's
# figures are the struct itself (shared_state.h), so that a field added to it
# is saved and loaded with the others, query_evictions among them.  The
# server is restarted without a collector (max_worker_processes = 0), so
# that nothing changes the figures between the two clean stops compared:
# the second stop must save what the first one did, byte for byte, and
# then, with a value of its own planted in each figure, field by field.
# The summary shows the planted episodes counted one by one and the square
# root of their variance.  The fields are those the server's build lists
# (test/test_functions.c), checked to cover the whole struct.
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use WalStallSaveFile;
use WalStallTest qw(wait_for_collector);

my $node = PostgreSQL::Test::Cluster->new('saved_figures');
$node->init;
# pg_stat_statements gives every statement a query id (on 13 only it does;
# from 14 it turns compute_query_id on), so that distinct statements make
# distinct wal_stall_queries entries to evict.  A 4-page WAL ring and fsync
# on, which the test cluster turns off: each statement waits in WAL.
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'pg_stat_statements, wal_stall'
autovacuum = off
wal_buffers = 32kB
max_wal_size = 1GB
fsync = on
wal_stall.max_queries = 100
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION wal_stall');

my $stat_file = $node->data_dir . '/pg_stat/wal_stall.stat';

is(join("\n", save_layout_load($node)), '',
	'WalStallSaveFile.pm knows every figure the server saves')
  or BAIL_OUT('WalStallFigures changed: update WalStallSaveFile.pm');

# The fields listed cover WalStallFigures: each starts where the one before
# ends, or at most 7 bytes after (alignment), and the last ends at most 7
# bytes before the struct does.  A field added to the struct and not to the
# server's list leaves a larger gap.
my @gaps;
my $end = 0;
foreach my $name (@save_figure_names)
{
	my ($offset, undef, $size) = @{ $save_figure{$name} };
	push @gaps, "$offset - $end before $name" if $offset < $end || $offset - $end > 7;
	$end = $offset + $size;
}
push @gaps, "$save_size{figures} - $end after $save_figure_names[-1]"
  if $end > $save_size{figures} || $save_size{figures} - $end > 7;
is(join(', ', @gaps), '', 'the fields listed cover WalStallFigures, in order, with no gap')
  or BAIL_OUT('WalStallFigures has a field test/test_functions.c does not list');

# --- figures to save, evictions among them: distinct statements stalling in
# WAL until the 100-entry table has evicted some (as in test/t/010_queries.pl)
ok(wait_for_collector($node), 'the collector ticks');
my $tables = 0;
my $deadline = time() + $PostgreSQL::Test::Utils::timeout_default;
while ($node->safe_psql('postgres', 'SELECT query_evictions FROM wal_stall_status()') == 0
	&& time() < $deadline)
{
	$node->safe_psql('postgres', "SET synchronous_commit = on;\n" . join '',
		map {
			"CREATE TABLE evict_$_ (id int, filler text);\n"
			  . "INSERT INTO evict_$_ SELECT g, repeat('z', 100) FROM generate_series(1, 3000) g;\n"
		} $tables + 1 .. $tables + 50);
	$tables += 50;
}
my $evictions = $node->safe_psql('postgres', 'SELECT query_evictions FROM wal_stall_status()');
cmp_ok($evictions, '>', 0, "wal_stall_queries evicted entries ($evictions, after $tables statements)");

$node->stop;
ok(-f $stat_file, 'a clean stop writes the save file');
my $first = read_bytes($stat_file);
ok(save_layout_matches($first), 'the save file has the layout this test knows')
  or BAIL_OUT('the save file has another layout: update WalStallSaveFile.pm');
my %saved = save_figures($first);
cmp_ok($saved{query_evictions}, '>=', $evictions,
	"the file holds the evictions ($saved{query_evictions})");
cmp_ok($saved{wal_path_waits}, '>', 0, "and WAL write-path waits ($saved{wal_path_waits})");
cmp_ok($saved{reset_ticks}, '>', 0, "and ticks ($saved{reset_ticks})");
isnt($saved{classes}, "\0" x length($saved{classes}), 'and episodes');

# --- a restart without a collector: what was saved is loaded and shown
$node->append_conf('postgresql.conf', 'max_worker_processes = 0');
my $offset = -s $node->logfile;
$node->start;
ok($node->log_contains(qr/loaded wal_stall figures saved at clean shutdown/, $offset),
	'the figures are loaded');
is($node->safe_psql('postgres', 'SELECT collector_pid IS NULL FROM wal_stall_status()'),
	't', 'no collector runs');
is($node->safe_psql('postgres', 'SELECT query_evictions FROM wal_stall_status()'),
	$saved{query_evictions}, 'wal_stall_status() shows the saved query_evictions');
$node->stop;
my $second = read_bytes($stat_file);
my %again = save_figures($second);
foreach my $name (@save_figure_names)
{
	ok($again{$name} eq $saved{$name}, "$name survives a clean restart");
}
ok( substr($second, $save_size{header}, $save_size{figures}) eq
	  substr($first, $save_size{header}, $save_size{figures}),
	'the figures are saved again byte for byte, padding included');

# --- a value of its own in every figure, planted in the file: each comes
# back (the baseline and the classes as they were, and not zero; of each
# class's episodes, half counted one by one)
my @episodes = save_class_episodes($second);
my %planted = (
	reset_ticks => 1_000_003,
	reset_full_rate_ticks => 1_000_001,
	reset_full_rate_ns => 5_000_000_011,
	baseline_valid => 1,
	timing_off_seen => 1,
	wrap_writer_asleep_ns => 7_000_013,
	wal_path_waits => 50_021,
	wal_path_waits_io_first => 50_017,
	ring_rule_ns => 9_000_029,
	query_evictions => 4_243,
	episodes_counted => pack('q7', map { int($_ / 2) } @episodes),
	episodes_var => pack('q7', map { 1_000 + $_ } 0 .. 6));
my @kept = qw(reset_at hist_base_ns baseline classes interval_weighted);
is_deeply([ sort(keys %planted, @kept) ], [ sort @save_figure_names ],
	'this test plants or keeps every figure');
isnt($saved{baseline}, "\0" x length($saved{baseline}), 'the baseline is not zero');
write_bytes($stat_file, save_with_figures($second, %planted));
$offset = -s $node->logfile;
$node->start;
ok($node->log_contains(qr/loaded wal_stall figures saved at clean shutdown/, $offset),
	'the planted figures are loaded');
is($node->safe_psql('postgres', 'SELECT query_evictions FROM wal_stall_status()'),
	$planted{query_evictions}, 'wal_stall_status() shows the planted query_evictions');
$node->stop;
my %third = save_figures(read_bytes($stat_file));
# (the per-class arrays shown as numbers)
sub shown
{
	my ($name, $value) = @_;
	return $name =~ /^episodes_/ ? join(' ', unpack('q7', $value)) : $value;
}
foreach my $name (sort keys %planted)
{
	is(shown($name, $third{$name}), shown($name, $planted{$name}),
		"planted $name survives a clean restart");
}
foreach my $name (@kept)
{
	ok($third{$name} eq $saved{$name}, "$name survives again");
}

# Read the summary of a server with no collector (which warns that none
# runs): class, episodes, episodes_counted, episodes_stderr, a row a line.
sub summary_episodes
{
	return $node->safe_psql('postgres', q{
		SET client_min_messages = error;
		SELECT class, episodes, episodes_counted, episodes_stderr
		FROM wal_stall_summary});
}

# --- the summary shows the episodes counted one by one and the standard
# error of the estimate, the square root of the variance saved: each class
# of 10, 20 ... 70 episodes, 1, 2 ... 7 of them counted, variances 4, 16
# ... 196
my @classes = map { save_class_stats(10 * $_) } 1 .. 7;
my $planted_estimates = save_with_figures(read_bytes($stat_file),
	classes => join('', @classes),
	episodes_counted => pack('q7', 1 .. 7),
	episodes_var => pack('q7', map { 4 * $_ * $_ } 1 .. 7));
my @class_names = qw(wal_buffer_full wal_flush wal_insert clog wal_write wal_fsync slru_io);
my $expected = join("\n", map { "$class_names[$_ - 1]|@{[10 * $_]}|$_|@{[2 * $_]}" } 1 .. 7);
write_bytes($stat_file, $planted_estimates);
$node->start;
is(summary_episodes(), $expected,
	'the summary shows each class\'s episodes counted and the square root of its variance');
$node->stop;
%third = save_figures(read_bytes($stat_file));
is(join(' ', unpack('q7', $third{episodes_counted}), '/', unpack('q7', $third{episodes_var})),
	'1 2 3 4 5 6 7 / 4 16 36 64 100 144 196', 'and saves them again');

# --- a class whose episodes were seen and none counted (a burst cycle's
# weight 0): 5 samples, 33 ms, the longest 8 ms; its max_ms shows, its
# mean and percentiles are NULL, in both views' way
$classes[3] = pack('q q Q Q', 0, 5, 33_000_000, 8_000_000)
  . pack('q32', (0) x 32) . pack('Q32', (0) x 32);
write_bytes($stat_file, save_with_figures(read_bytes($stat_file), classes => join('', @classes),
	episodes_counted => pack('q7', 1, 2, 3, 0, 5, 6, 7),
	episodes_var => pack('q7', 4, 16, 36, 0, 100, 144, 196)));
$node->start;
is($node->safe_psql('postgres', q{
		SET client_min_messages = error;
		SELECT episodes, samples, total_ms, max_ms, mean_ms IS NULL AND p50_ms IS NULL
		       AND p95_ms IS NULL AND p99_ms IS NULL
		FROM wal_stall_summary WHERE class = 'clog'}),
	'0|5|33|8|t', 'a class seen and not counted: max_ms 8, mean and percentiles NULL');
$node->stop;

$node->start;

# --- reset with no collector: nothing sampled since, so the two are NULL
# with episodes
$node->safe_psql('postgres', 'SELECT wal_stall_reset()');
is($node->safe_psql('postgres', q{
		SET client_min_messages = error;
		SELECT count(*) FROM wal_stall_summary
		WHERE episodes IS NULL AND episodes_counted IS NULL AND episodes_stderr IS NULL}),
	'7', 'after a reset with no collector, episodes_counted and episodes_stderr are NULL with episodes');
$node->stop;

done_testing();
