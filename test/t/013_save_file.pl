# The save file pg_stat/wal_stall.stat against odd things at its path and
# odd values in it: a FIFO, a directory, a symbolic link, a stale temporary
# file never make the postmaster wait or stop saving for good, and a file
# whose checksum is right but one of whose values the collector cannot have
# written (an enum code, a count, a timestamp, a float, a class used as an
# index; NaN, +-Inf, negative, INT64_MAX and UINT64_MAX among them) is
# refused as a whole, with a detail naming the value.  A count loaded at
# the bound the loader accepts stays there as the collector adds to it.  A
# file of another format version is set aside with a LOG line, not a
# WARNING.
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use POSIX qw(mkfifo);
use FindBin;
use lib $FindBin::RealBin;
use WalStallSaveFile;

my $node = PostgreSQL::Test::Cluster->new('save_file');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'wal_stall'
autovacuum = off
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION wal_stall');

my $stat_file = $node->data_dir . '/pg_stat/wal_stall.stat';
my $tmp_file = "$stat_file.tmp";
my $dbid = $node->safe_psql('postgres',
	"SELECT oid FROM pg_database WHERE datname = 'postgres'");

# Offsets in the save file (WalStallSaveFile has the sizes and the fields
# of the figures, from the server's build).
is(join("\n", save_layout_load($node)), '',
	'WalStallSaveFile.pm knows every figure the server saves')
  or BAIL_OUT('WalStallFigures changed: update WalStallSaveFile.pm');
my $figures = $save_size{header};
my $classes = $figures + $save_figure{classes}[0];
my $rows = $figures + $save_size{figures};
sub figure_at { return $figures + $save_figure{ $_[0] }[0]; }

# --- a save file with history rows, and a statement entry of ours
ok( $node->poll_query_until('postgres',
		'SELECT count(*) >= 2 FROM wal_stall_history'),
	'the history has rows to save');
$node->stop;
ok(-f $stat_file, 'a clean stop writes the file');
my $saved = read_bytes($stat_file);
ok(save_layout_matches($saved), 'the structures have the sizes this test knows')
  or BAIL_OUT('the save file has another layout: update WalStallSaveFile.pm');
my $nhistory = (unpack('L11', $saved))[8];
cmp_ok($nhistory, '>=', 1, "the file has history rows ($nhistory)");
is(save_crc32c(substr($saved, 0, -4)), unpack('L', substr($saved, -4)),
	'this test computes the server\'s checksum');

# the file's statement entries replaced by one of ours
my $entry = save_statement_entry(4242, 10, $dbid, 0);
is(length($entry), $save_size{entry}, 'the statement entry has its size');
my $good = save_with_entries($saved, $entry, 1);
my $entry_at = $rows + $nhistory * $save_size{row};

# Start with the file given, and return the log of that start.
sub start_with
{
	my ($bytes) = @_;
	write_bytes($stat_file, $bytes) if defined $bytes;
	my $offset = -s $node->logfile;
	$node->start;
	return slurp_file($node->logfile, $offset);
}

my $log = start_with($good);
like($log, qr/loaded wal_stall figures saved at clean shutdown/,
	'the file with the added entry loads');
is($node->safe_psql('postgres',
		'SELECT class, episodes FROM wal_stall_queries WHERE queryid = 4242'),
	'wal_buffer_full|1', 'and the added entry is in wal_stall_queries');

# --- a file of another format version (a later one, 4, an earlier one, 2,
# and 0) is set aside as pg_stat_statements does: one LOG line naming its
# version and ours, no WARNING, the file removed, nothing of it shown
$node->stop;
foreach my $version (4, 2, 0)
{
	$log = start_with(save_as_format_version(save_with_figures($good, query_evictions => 7), $version));
	like($log,
		qr/LOG:  ignoring wal_stall figures in "pg_stat\/wal_stall.stat" of format version $version, not this build's 1\n.*HINT:  wal_stall starts from zero; the file was removed./,
		"format version $version: a LOG line names its version and ours");
	unlike($log, qr/WARNING:/, "format version $version: no WARNING");
	unlike($log, qr/loaded wal_stall figures/, "format version $version: not loaded");
	ok(!-e $stat_file, "format version $version: the file is removed");
	is( $node->safe_psql('postgres', q{
			SELECT (SELECT query_evictions FROM wal_stall_status()) || '/' ||
			       (SELECT count(*) FROM wal_stall_queries WHERE queryid = 4242) || '/' ||
			       (SELECT count(*) FROM wal_stall_history
			        WHERE sample_time < pg_postmaster_start_time())}),
		'0/0/0', "format version $version: the figures start from zero");
	$node->stop;
	is(unpack('x4 L', read_bytes($stat_file)), 1,
		"format version $version: the next stop saves format version 1");
}
$node->start;

# --- one value out of range, the checksum right: refused as a whole
# (counts and sums at most 2^62, WS_FIGURE_MAX; every float finite)
my $figure_max = 4611686018427387904;
my $clog_episodes = (save_class_episodes($good))[3];
# class 3's time, and what its interval sum may reach: the longest interval
my $clog_total_ns = unpack('Q', substr($good, $classes + 3 * $save_size{class} + 16, 8));
my $clog_interval_max = sprintf('%g', $clog_total_ns * 1e9);
my $clog_interval_bad = sprintf('%g', $clog_total_ns * 2e9 + 1e12);
my $clog_counted = $clog_episodes + 1;
sub field
{
	my ($offset, $template, $value) = @_;
	return sub {
		my $bytes = $good;
		substr($bytes, $offset, length(pack($template, 0))) = pack($template, $value);
		return save_with_checksum($bytes);
	};
}
my @cases = (
	# enum codes, some of them array indices
	[ 'a checkpoint code past the last', field($rows + 168, 'C', 200),
		qr/history row 0, checkpoint is 200; it must be between 0 and 3/ ],
	[ 'a checkpoint kind beyond its bits', field($rows + 169, 'c', 9),
		qr/history row 0, checkpoint_kind is 9; it must be between -1 and 3/ ],
	[ 'a stall class past the last', field($entry_at + 16, 'l', 7),
		qr/statement entry 0, cls is 7; it must be between 0 and 6/ ],
	[ 'a bool that is neither', field(figure_at('baseline_valid'), 'C', 2),
		qr/the figures, baseline_valid is 2; it must be between 0 and 1/ ],
	# counts
	[ 'a negative episode count', field($classes + 2 * $save_size{class}, 'q', -5),
		qr/class 2, episodes is -5; it must be between 0 and $figure_max/ ],
	[ 'a histogram that does not hold every episode', field($entry_at + 32, 'q', 3),
		qr/statement entry 0, the histogram's sum is 1; it must be the episode count, 3/ ],
	[ 'more full-rate ticks than ticks', field(figure_at('reset_full_rate_ticks'), 'q', 1 << 40),
		qr/the figures, reset_full_rate_ticks is 1099511627776; it must be at most reset_ticks/ ],
	[ 'a row count below unknown', field($rows + 16, 'q', -2),
		qr/history row 0, xids is -2; it must be between -1 and $figure_max/ ],
	[ 'a negative eviction count', field(figure_at('query_evictions'), 'q', -1),
		qr/the figures, query_evictions is -1; it must be between 0 and $figure_max/ ],
	[ 'more waits begun in WAL I/O than waits', field(figure_at('wal_path_waits_io_first'), 'q', 1 << 40),
		qr/the figures, wal_path_waits_io_first is 1099511627776; it must be at most wal_path_waits/ ],
	[ 'a negative count of episodes counted', field(figure_at('episodes_counted') + 2 * 8, 'q', -1),
		qr/class 2, episodes_counted is -1; it must be between 0 and $figure_max/ ],
	[ 'more episodes counted than episodes',
		field(figure_at('episodes_counted') + 3 * 8, 'q', $clog_counted),
		qr/class 3, episodes_counted is $clog_counted; it must be at most episodes, $clog_episodes/ ],
	[ 'a negative variance of the episode count', field(figure_at('episodes_var') + 4 * 8, 'q', -3),
		qr/class 4, episodes_var is -3; it must be between 0 and $figure_max/ ],
	# timestamps
	[ 'an infinite reset time', field(figure_at('reset_at'), 'q', 9223372036854775807),
		qr/the figures, reset_at is 9223372036854775807 microseconds after 2000-01-01/ ],
	[ 'a sample time past timestamptz', field($rows, 'q', 9223372036854775000),
		qr/history row 0, sample_time is 9223372036854775000 microseconds/ ],
	# floating point
	[ 'a NaN fill', field($rows + 40, 'd', 'NaN'),
		qr/history row 0, buffer_fill_avg is NaN; it must be a finite number/ ],
	[ 'an infinite stall time', field($rows + 48, 'd', 'Inf'),
		qr/history row 0, stall_ms is Infinity; it must be a finite number between -1 and/ ],
	[ 'a stall time of minus infinity', field($rows + 48, 'd', '-Inf'),
		qr/history row 0, stall_ms is -Infinity; it must be a finite number between -1 and/ ],
	[ 'a NaN resolution', field($rows + 176, 'd', 'NaN'),
		qr/history row 0, resolution_ms is NaN; it must be a finite number between -1 and 1000/ ],
	[ 'an infinite resolution', field($rows + 176, 'd', 'Inf'),
		qr/history row 0, resolution_ms is Infinity; it must be a finite number between -1 and 1000/ ],
	[ 'a resolution longer than the longest interval', field($rows + 176, 'd', 5000),
		qr/history row 0, resolution_ms is 5000; it must be a finite number between -1 and 1000/ ],
	[ 'a resolution of minus infinity', field($rows + 176, 'd', '-Inf'),
		qr/history row 0, resolution_ms is -Infinity; it must be a finite number between -1 and 1000/ ],
	[ 'a NaN interval sum', field(figure_at('interval_weighted'), 'd', 'NaN'),
		qr/class 0, interval_weighted is NaN; it must be a finite number between 0 and total_ns times/ ],
	[ 'an infinite interval sum', field(figure_at('interval_weighted') + 8, 'd', 'Inf'),
		qr/class 1, interval_weighted is Infinity; it must be a finite number between 0 and total_ns times/ ],
	[ 'an interval sum of minus infinity', field(figure_at('interval_weighted') + 8, 'd', '-Inf'),
		qr/class 1, interval_weighted is -Infinity; it must be a finite number between 0 and/ ],
	[ 'a negative interval sum', field(figure_at('interval_weighted') + 16, 'd', -1),
		qr/class 2, interval_weighted is -1; it must be a finite number between 0 and/ ],
	[ 'an interval sum beyond its time at the longest interval',
		field(figure_at('interval_weighted') + 24, 'd', $clog_interval_bad),
		qr/class 3, interval_weighted is \Q$clog_interval_bad\E; it must be a finite number between 0 and total_ns times the longest sample interval, \Q$clog_interval_max\E/ ],
	[ 'an infinite baseline timing', field(figure_at('baseline') + 80, 'd', 'Inf'),
		qr/the figures, baseline.wal_write_time_ms is Infinity; it must be a finite number between -1 and/ ],
	# counts and sums at INT64_MAX, UINT64_MAX, one past the bound: the
	# collector would wrap them
	[ 'an episode count at INT64_MAX', field($classes, 'q', 9223372036854775807),
		qr/class 0, episodes is 9223372036854775807; it must be between 0 and $figure_max/ ],
	[ 'a tick count at INT64_MAX', field(figure_at('reset_ticks'), 'q', 9223372036854775807),
		qr/the figures, reset_ticks is 9223372036854775807; it must be between 0 and $figure_max/ ],
	[ 'a tick count one past the bound', field(figure_at('reset_ticks'), 'q', $figure_max + 1),
		qr/the figures, reset_ticks is @{[$figure_max + 1]}; it must be between 0 and $figure_max/ ],
	[ 'a baseline counter at INT64_MAX', field(figure_at('baseline') + 32, 'q', 9223372036854775807),
		qr/the figures, baseline.wal_fpi is 9223372036854775807; it must be between -1 and $figure_max/ ],
	[ 'an eviction count at INT64_MAX', field(figure_at('query_evictions'), 'q', 9223372036854775807),
		qr/the figures, query_evictions is 9223372036854775807; it must be between 0 and $figure_max/ ],
	[ 'a class time at UINT64_MAX', field($classes + $save_size{class} + 16, 'Q', 18446744073709551615),
		qr/class 1, total_ns is 18446744073709551615; it must be at most $figure_max/ ],
	[ 'a time of the writer asleep at INT64_MAX', field(figure_at('wrap_writer_asleep_ns'), 'Q', 9223372036854775807),
		qr/the figures, wrap_writer_asleep_ns is 9223372036854775807; it must be at most $figure_max/ ],
	[ 'a row count at INT64_MAX', field($rows + 24, 'q', 9223372036854775807),
		qr/history row 0, wal_bytes is 9223372036854775807; it must be between -1 and $figure_max/ ],
	[ 'a recency clock at UINT64_MAX', field($entry_at + 24, 'Q', 18446744073709551615),
		qr/statement entry 0, last_charge is 18446744073709551615; it must be at most $figure_max/ ],
	[ 'a statement bucket time at UINT64_MAX', field($entry_at + 32 + 32 + 8 * 32, 'Q', 18446744073709551615),
		qr/statement entry 0, a histogram bucket's time is 18446744073709551615; it must be at most $figure_max/ ],
	# the histogram's base
	[ 'a histogram base above the longest interval', field(figure_at('hist_base_ns'), 'Q', 10**12),
		qr/the figures, hist_base_ns is 1000000000000; it must be at most the longest sample interval/ ]);

foreach my $case (@cases)
{
	my ($what, $make, $detail) = @$case;
	$node->stop;
	$log = start_with($make->());
	is($node->safe_psql('postgres', 'SELECT 1'), '1', "$what: the server starts");
	my @warnings = ($log =~ /WARNING:/g);
	is(scalar(@warnings), 1, "$what: exactly one WARNING");
	like($log,
		qr/WARNING:  could not load wal_stall figures from "pg_stat\/wal_stall.stat"\n.*DETAIL:  In $detail/,
		"$what: the detail names the value");
	ok(!-e $stat_file, "$what: the file is removed");
	is( $node->safe_psql('postgres', q{
			SELECT (SELECT count(*) FROM wal_stall_queries WHERE queryid = 4242) || '/' ||
			       (SELECT count(*) FROM wal_stall_history
			        WHERE sample_time < pg_postmaster_start_time())}),
		'0/0', "$what: nothing of the file is shown");
}

# --- a count loaded at the bound stops there: the collector's ticks do not
# carry it past what the next start accepts
$node->stop;
$log = start_with(save_with_figures($good,
		reset_ticks => $figure_max, reset_full_rate_ticks => $figure_max));
like($log, qr/loaded wal_stall figures saved at clean shutdown/,
	'a file with a tick count at the bound loads');
ok($node->poll_query_until('postgres', 'SELECT ticks >= 3 FROM wal_stall_status()'),
	'the collector ticks after the load');
$node->stop;
my %saturated = save_figures(read_bytes($stat_file));
is($saturated{reset_ticks}, $figure_max, 'the tick count stays at the bound');
$log = start_with(undef);
like($log, qr/loaded wal_stall figures saved at clean shutdown/,
	'and the file saved with it loads again');

# --- odd things at the path: never waited on, reported as what they are
# A FIFO at the file's path when the server starts.
$node->stop;
unlink($stat_file);
mkfifo($stat_file, 0600) or die "mkfifo: $!";
$log = start_with(undef);
like($log,
	qr/WARNING:  could not load wal_stall figures from "pg_stat\/wal_stall.stat"\n.*DETAIL:  "pg_stat\/wal_stall.stat" is a FIFO, not a regular file.\n.*HINT:  wal_stall starts from zero; it was removed./,
	'a FIFO at the path: the server starts and says what it found');
ok(!-e $stat_file, 'the FIFO is removed');

# A FIFO at the temporary file's path when the server stops.
mkfifo($tmp_file, 0600) or die "mkfifo: $!";
my $offset = -s $node->logfile;
$node->stop;
ok($node->log_contains(
		qr/LOG:  removed "pg_stat\/wal_stall.stat.tmp" to save wal_stall figures there\n.*DETAIL:  "pg_stat\/wal_stall.stat.tmp" is a FIFO/,
		$offset),
	'a FIFO at the temporary path: the server stops and says it removed it');
ok(-f $stat_file && !-e $tmp_file, 'and the figures are saved');

# A FIFO at the file's own path when the server stops.
$node->start;
mkfifo($stat_file, 0600) or die "mkfifo: $!";
$offset = -s $node->logfile;
$node->stop;
ok($node->log_contains(
		qr/LOG:  removed "pg_stat\/wal_stall.stat" to save wal_stall figures there\n.*DETAIL:  "pg_stat\/wal_stall.stat" is a FIFO/,
		$offset),
	'a FIFO at the path at shutdown: the server says it removed it');
ok(-f $stat_file, 'and saves the figures there');

# A symbolic link to a good save file: not followed, the target left alone.
my $elsewhere = $node->basedir . '/elsewhere.stat';
write_bytes($elsewhere, $good);
unlink($stat_file);
symlink($elsewhere, $stat_file) or die "symlink: $!";
$log = start_with(undef);
like($log, qr/DETAIL:  "pg_stat\/wal_stall.stat" is a symbolic link, not a regular file./,
	'a symbolic link at the path is refused');
unlike($log, qr/loaded wal_stall figures/, 'and not loaded through');
ok(!-e $stat_file && -f $elsewhere, 'the link is removed, not what it points to');

# An empty directory: removed, and the figures are saved at the next stop.
$node->stop;
unlink($stat_file);
mkdir($stat_file) or die "mkdir: $!";
$log = start_with(undef);
like($log,
	qr/DETAIL:  "pg_stat\/wal_stall.stat" is a directory, not a regular file.\n.*HINT:  wal_stall starts from zero; it was removed./,
	'an empty directory at the path is reported as a directory, and removed');
ok(!-e $stat_file, 'it is gone');
$node->stop;
ok(-f $stat_file, 'the next clean stop saves the figures');

# A directory with something in it: left alone, and said so at start and
# at every stop; saved again once it is removed.
unlink($stat_file);
mkdir($stat_file) or die "mkdir: $!";
write_bytes("$stat_file/keep", 'not ours');
$log = start_with(undef);
like($log,
	qr/DETAIL:  "pg_stat\/wal_stall.stat" is a directory, not a regular file.\n.*HINT:  wal_stall starts from zero; the directory could not be removed \(Directory not empty\), and the figures cannot be saved until it is./,
	'a directory with files in it: the start says it stays and what that means');
ok(-f "$stat_file/keep", 'what it holds is left alone');
$offset = -s $node->logfile;
$node->stop;
ok($node->log_contains(
		qr/LOG:  could not remove "pg_stat\/wal_stall.stat": Directory not empty\n.*DETAIL:  "pg_stat\/wal_stall.stat" is a directory, not a regular file. wal_stall's figures were not saved.\n.*HINT:  Remove it: the figures will be saved at the next clean shutdown./,
		$offset),
	'the stop says the figures were not saved, and why');
unlink("$stat_file/keep");
rmdir($stat_file) or die "rmdir: $!";
$node->start;
$node->stop;
ok(-f $stat_file, 'once the directory is removed, the figures are saved again');

# A temporary file left by a postmaster killed while it saved: the start
# does not read it, the next save replaces it.
write_bytes($tmp_file, substr($good, 0, 100));
$log = start_with(undef);
like($log, qr/loaded wal_stall figures saved at clean shutdown/,
	'a stale temporary file does not keep the file from loading');
$node->stop;
ok(-f $stat_file && !-e $tmp_file, 'and the next save replaces it');

$node->start;
$node->stop;
done_testing();
