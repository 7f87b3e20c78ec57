# The figures survive a clean restart, and only that: after an immediate
# stop, from a damaged or foreign file, or with wal_stall.save off, they start
# from zero, and the server always starts.
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);
use FindBin;
use lib $FindBin::RealBin;
use WalStallSaveFile;
use WalStallTest qw(wait_for_connections);

# the server's major version (the framework's pg_version is 15+ only)
my ($major) = `pg_config --version` =~ /(\d+)/;

my $node = PostgreSQL::Test::Cluster->new('persist');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'wal_stall'
# a 4-page WAL ring, so that a bulk insert wraps it around
wal_buffers = 32kB
autovacuum = off
max_wal_size = 1GB
# the test framework turns crash restarts off; one case is about them
restart_after_crash = on
});
$node->start;
$node->safe_psql('postgres', q{
CREATE EXTENSION wal_stall;
CREATE TABLE bulk (id int, filler text);
CREATE FUNCTION wrap_around(batches int) RETURNS bool
LANGUAGE plpgsql AS $$
BEGIN
    FOR i IN 1 .. batches LOOP
        INSERT INTO bulk SELECT g, repeat('x', 200) FROM generate_series(1, 20000) g;
        IF (SELECT episodes > 0 FROM wal_stall_summary WHERE class = 'wal_buffer_full') THEN
            RETURN true;
        END IF;
    END LOOP;
    RETURN false;
END
$$;
});

my $stat_file = $node->data_dir . '/pg_stat/wal_stall.stat';

# wal_buffer_full episodes: a bulk insert after a checkpoint (full-page
# writes) wraps the 4-page ring again and again.
sub make_episodes
{
	my ($what) = @_;
	$node->safe_psql('postgres', 'TRUNCATE bulk; CHECKPOINT');
	is($node->safe_psql('postgres', 'SELECT wrap_around(100)'),
		't', "$what: the bulk insert made wal_buffer_full episodes");
}

# The wal_buffer_full row, its histogram and the history up to now, in one
# string; read twice until it stays the same (the last episode has closed).
sub figures
{
	my $query = q{
		SELECT (SELECT format('episodes=%s samples=%s total_ms=%s max_ms=%s since=%s',
		                      episodes, samples, total_ms, max_ms, since)
		        FROM wal_stall_summary WHERE class = 'wal_buffer_full')
		    || ' histogram=' ||
		       (SELECT string_agg(format('%s:%s', lower_ms, episodes), ',' ORDER BY lower_ms)
		        FROM wal_stall_histogram WHERE class = 'wal_buffer_full')};
	my $before = $node->safe_psql('postgres', $query);
	for (1 .. 50)
	{
		usleep(100_000);
		my $now = $node->safe_psql('postgres', $query);
		return $now if $now eq $before;
		$before = $now;
	}
	die 'wal_stall figures keep changing';
}

sub episodes
{
	return $node->safe_psql('postgres',
		"SELECT episodes FROM wal_stall_summary WHERE class = 'wal_buffer_full'");
}

# --- a clean restart keeps everything accumulated since the last reset
make_episodes('clean restart');
# CLOG: reading the new rows looks their XIDs up (hint bits), so core's
# SLRU counters have hits to keep.  Read before the figures are taken: with
# data checksums (initdb's default from 18) each hint bit logs a full page
# image, and that WAL can wrap the 32kB ring once more.
$node->safe_psql('postgres', 'SELECT count(*) FROM bulk');
my $before = figures();
like($before, qr/episodes=[1-9]/, "figures before the restart: $before");
# a history row closed after the bulk insert
my $done = $node->safe_psql('postgres', 'SELECT now()');
ok($node->poll_query_until('postgres',
		"SELECT max(sample_time) > '$done' FROM wal_stall_history"),
	'a history row closed after the bulk insert');
my $last_row = $node->safe_psql('postgres',
	'SELECT max(sample_time) FROM wal_stall_history');
my $history_query = "SELECT count(*) || ' rows, ' || sum(wal_bytes) || ' bytes'
	FROM wal_stall_history WHERE sample_time <= '$last_row'";
my $history_before = $node->safe_psql('postgres', $history_query);
like($history_before, qr/^[1-9]\d* rows, [1-9]\d* bytes$/,
	"history before the restart: $history_before");
my $clog_query = q{SELECT format('lock_episodes=%s lock_ms=%s since=%s',
	lock_episodes, lock_ms, since) FROM wal_stall_clog};
my $clog_before = $node->safe_psql('postgres', $clog_query);
my $clog_hits_before = $node->safe_psql('postgres',
	'SELECT coalesce(hits, -1) FROM wal_stall_clog');

$node->stop;
ok(-f $stat_file, 'a clean shutdown writes pg_stat/wal_stall.stat');
my $good_file = read_bytes($stat_file);
my $offset = -s $node->logfile;
$node->start;
ok(!-e $stat_file, 'the file is removed once loaded');
ok($node->log_contains(
		qr/loaded wal_stall figures saved at clean shutdown \(since /, $offset),
	'the log says the figures were loaded');
is(figures(), $before, 'summary, histogram and since are the same after the restart');
is($node->safe_psql('postgres', $history_query), $history_before,
	'the history rows from before the restart are kept');
is($node->safe_psql('postgres', $clog_query), $clog_before,
	'the CLOG view\'s sampled lock figures and since are the same');
SKIP:
{
	# before 15 the collector leaves core's statistics alone (docs/sampling.md)
	skip 'CLOG hits come from core from 15', 2 if $major < 15;
	cmp_ok($clog_hits_before, '>', 0, "CLOG hits before the restart ($clog_hits_before)");
	# counted from the saved baseline: a baseline taken afresh at start would
	# show only what came after it
	my $clog_hits_after = $node->safe_psql('postgres', 'SELECT hits FROM wal_stall_clog');
	cmp_ok($clog_hits_after, '>=', $clog_hits_before,
		"CLOG hits keep counting from before the restart ($clog_hits_after)");
}

# --- an immediate stop is a crash to the server: nothing saved or loaded
make_episodes('immediate stop');
my $since = $node->safe_psql('postgres',
	"SELECT since FROM wal_stall_summary WHERE class = 'wal_buffer_full'");
$offset = -s $node->logfile;
$node->stop('immediate');
ok(!-e $stat_file, 'an immediate stop writes no file');
ok($node->log_contains(qr/wal_stall figures were not saved/, $offset),
	'the log says the figures were not saved at the immediate stop');
$offset = -s $node->logfile;
$node->start;
ok($node->log_contains(qr/wal_stall figures start from zero after a crash/, $offset),
	'the log says why the figures start from zero');
is(episodes(), '0', 'no wal_buffer_full episodes after the crash');
is( $node->safe_psql('postgres',
		"SELECT since > '$since' FROM wal_stall_summary WHERE class = 'wal_buffer_full'"),
	't', 'since moves to the new start');
is($node->safe_psql('postgres', "SELECT count(*) FROM wal_stall_history WHERE sample_time <= '$last_row'"),
	'0', 'no history from before the crash');

# --- a backend crash: the postmaster re-creates shared memory, loads nothing,
# and says so; the clean stop after it saves again
make_episodes('backend crash');
my $victim = $node->background_psql('postgres');
my $victim_pid = $victim->query_safe('SELECT pg_backend_pid()');
$offset = -s $node->logfile;
kill 'KILL', $victim_pid;
eval { $victim->quit; };
# Poll the log first: until the postmaster has seen its child die, the
# server still answers with the old shared memory.
my $said_why = 0;
foreach my $try (1 .. 10 * $PostgreSQL::Test::Utils::timeout_default)
{
	$said_why = $node->log_contains(qr/wal_stall figures start from zero after a crash/, $offset)
	  and last;
	usleep(100_000);
}
ok($said_why, 'the log says why the figures start from zero after crash recovery');
ok(wait_for_connections($node),
	'the server is back after the backend crash');
is(episodes(), '0', 'no wal_buffer_full episodes after crash recovery');
make_episodes('after crash recovery');
$before = figures();
$node->stop;
ok(-f $stat_file, 'a clean stop after crash recovery writes the file');
$node->start;
is(figures(), $before, 'and the figures come back');

# --- a damaged or foreign file: one WARNING, figures from zero, a server
# that starts all the same (a file of another format version of wal_stall
# is only set aside, with a LOG line: test/t/013_save_file.pl)
my %bad = (
	'flipped bytes' => sub {
		my $bytes = $good_file;
		my $at = int(length($bytes) / 2);
		substr($bytes, $at, 4) = ~substr($bytes, $at, 4);
		return $bytes;
	},
	'a truncated file' => sub {
		return substr($good_file, 0, int(length($good_file) / 2));
	},
	'another magic number' => sub {
		my $bytes = $good_file;
		substr($bytes, 0, 4) = pack('L', 0x12345678);
		return $bytes;
	},
	'an empty file' => sub { return ''; });
my %detail = (
	'flipped bytes' => qr/checksum does not match/,
	'a truncated file' => qr/The file ends/,
	'another magic number' => qr/does not start with the wal_stall magic number \(12345678 instead of 57534631\)/,
	'an empty file' => qr/shorter than its header/);

foreach my $case (sort keys %bad)
{
	$node->stop;
	write_bytes($stat_file, $bad{$case}->());
	$offset = -s $node->logfile;
	$node->start;
	is($node->safe_psql('postgres', 'SELECT 1'), '1', "$case: the server starts");
	my $log = slurp_file($node->logfile, $offset);
	my @warnings = ($log =~ /WARNING:/g);
	is(scalar(@warnings), 1, "$case: exactly one WARNING");
	like($log,
		qr/WARNING:  could not load wal_stall figures from "pg_stat\/wal_stall.stat"/,
		"$case: it names the file");
	like($log, $detail{$case}, "$case: the detail says what was wrong");
	ok(!-e $stat_file, "$case: the file is removed");
	is(episodes(), '0', "$case: the figures start from zero");
}

# --- wal_stall.save = off: nothing saved, and a file found is not loaded
make_episodes('save off');
$node->safe_psql('postgres', 'ALTER SYSTEM SET wal_stall.save = off');
$node->reload;
ok($node->poll_query_until('postgres', 'SHOW wal_stall.save', 'off'),
	'wal_stall.save is off');
$node->stop;
ok(!-e $stat_file, 'with wal_stall.save off a clean shutdown writes no file');
$node->start;
is(episodes(), '0', 'with wal_stall.save off the figures start from zero');

$node->stop;
write_bytes($stat_file, $good_file);
$node->start;
is(episodes(), '0', 'with wal_stall.save off a file left behind is not loaded');
ok(!-e $stat_file, 'but it is removed');

$node->stop;
done_testing();
