# wal_stall_test_fsync() and crashes: whatever moment a run is stopped at
# (immediate shutdown, kill -9 of the probing backend, a base backup taken
# meanwhile), the scratch file it leaves stops neither the primary nor a
# standby from starting, and base backups never carry it.  Symlinks inside
# the data directory lead a grantee nowhere, and tell nothing.
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
use strict;
use warnings;
use File::Find;
use POSIX ();
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);
use FindBin;
use lib $FindBin::RealBin;
use WalStallTest;

# the probe needs no preloading; the test framework turns crash restarts
# off, and this test is about them
my $node = wal_stall_node('probe_crash',
	init => { allows_streaming => 1 },
	preload => '',
	conf => "restart_after_crash = on\n",
	sql => q{
	CREATE EXTENSION wal_stall;
	CREATE ROLE regress_prober;
	GRANT EXECUTE ON FUNCTION wal_stall_test_fsync(float8, text) TO regress_prober;
});
my $pgdata = $node->data_dir;

# Wait, boundedly, until a file exists or, with $gone, no longer does.
sub wait_for_file
{
	my ($path, $gone) = @_;
	for (my $i = 0; $i < 10 * $PostgreSQL::Test::Utils::timeout_default; $i++)
	{
		return 1 if ($gone xor -e $path);
		usleep(100_000);
	}
	return 0;
}

# Start a long probe run in a background session, as $role (undef: the
# superuser), on $dir (undef: the WAL directory); return once its scratch
# file exists.
sub start_probe
{
	my ($role, $dir, $what) = @_;
	my $session = $node->background_psql('postgres', on_error_stop => 0);
	$session->query_safe("SET ROLE $role") if defined $role;
	my $pid = $session->query_safe('SELECT pg_backend_pid()');
	my $arg = defined $dir ? "'$dir'" : 'NULL';
	$session->query_until(qr/probing/,
		"\\echo probing\nSELECT count(*) FROM wal_stall_test_fsync(5, $arg);\n");
	my $file = ($dir // 'pg_wal') . "/pgsql_tmp_wal_stall_fsync.$pid";
	ok(wait_for_file("$pgdata/$file"), "$what: scratch file $file created");
	return { session => $session, pid => $pid, file => $file };
}

# End a background session whose server or backend may be gone.
sub end_probe
{
	my ($probe) = @_;
	eval { $probe->{session}->quit; };
	return;
}

# A probe run as the grantee, returning its result or error.
sub grantee_probe
{
	my ($dir) = @_;
	my ($ret, $stdout, $stderr) = $node->psql('postgres',
		"SET ROLE regress_prober; SELECT count(*) FROM wal_stall_test_fsync(0.1, '$dir')");
	return $ret == 0 ? $stdout : $stderr;
}

# Every scratch file under a directory tree.
sub scratch_files_under
{
	my ($top) = @_;
	my @found;
	find(sub { push @found, $File::Find::name if /^pgsql_tmp_wal_stall_fsync/ },
		$top);
	return @found;
}

# 1. Immediate shutdown during a grantee's run on the WAL directory and a
# superuser's on base/pgsql_tmp: the server starts again, and removes the
# base/pgsql_tmp file itself; the next run removes the pg_wal one.
my $wal = start_probe('regress_prober', undef, 'grantee on pg_wal');
my $tmp = start_probe(undef, 'base/pgsql_tmp', 'superuser on base/pgsql_tmp');
$node->stop('immediate');
end_probe($_) for ($wal, $tmp);
ok(-e "$pgdata/$wal->{file}", 'immediate shutdown leaves the pg_wal file');
ok(-e "$pgdata/$tmp->{file}", 'immediate shutdown leaves the base/pgsql_tmp file');
is($node->start(fail_ok => 1), 1, 'server starts after immediate shutdown during runs');
ok(!-e "$pgdata/$tmp->{file}", 'startup removed the base/pgsql_tmp scratch file');
is( $node->safe_psql('postgres',
		'SET ROLE regress_prober; SELECT count(*) FROM wal_stall_test_fsync(0.1)'),
	'18', 'next run on pg_wal works');
ok(!-e "$pgdata/$wal->{file}", 'next run removed the dead process\'s file from pg_wal');
ok( $node->log_contains(
		qr/removed file "pg_wal\/pgsql_tmp_wal_stall_fsync\.$wal->{pid}" left by/),
	'the removal is logged');

# 2. A base backup taken during runs does not carry the scratch files, and
# a standby made from it starts.
$wal = start_probe('regress_prober', undef, 'grantee on pg_wal, backup');
$tmp = start_probe(undef, 'base/pgsql_tmp', 'superuser on base/pgsql_tmp, backup');
$node->backup('during_probe');
my $backup = $node->backup_dir . '/during_probe';
ok(-f "$backup/PG_VERSION", 'backup taken during the runs');
is_deeply([ scratch_files_under($backup) ], [], 'the backup has no scratch file');
$node->safe_psql('postgres',
	"SELECT pg_cancel_backend(pid) FROM (VALUES ($wal->{pid}), ($tmp->{pid})) AS p(pid)");
end_probe($_) for ($wal, $tmp);
ok(wait_for_file("$pgdata/$wal->{file}", 1) && wait_for_file("$pgdata/$tmp->{file}", 1),
	'cancelled runs removed their scratch files');

my $standby = PostgreSQL::Test::Cluster->new('probe_standby');
$standby->init_from_backup($node, 'during_probe', has_streaming => 1);
is($standby->start(fail_ok => 1), 1, 'standby from the backup starts');
ok($standby->poll_query_until('postgres', 'SELECT pg_is_in_recovery()'),
	'standby is in recovery');
$standby->stop;

# 3. kill -9 of a probing backend: crash recovery removes the base/pgsql_tmp
# file; the pg_wal file of another run, killed with it, stops no restart.
$tmp = start_probe(undef, 'base/pgsql_tmp', 'superuser on base/pgsql_tmp, kill -9');
$wal = start_probe('regress_prober', undef, 'grantee on pg_wal, kill -9');
kill 'KILL', $tmp->{pid};
end_probe($_) for ($wal, $tmp);
ok(wait_for_connections($node),
	'server accepts connections after the crash');
# remove_temp_files_after_crash (14+, on by default); 13 keeps temporary
# files across crash recovery and removes them at the next postmaster start.
if ($pg_major >= 14)
{
	ok(wait_for_file("$pgdata/$tmp->{file}", 1),
		'crash recovery removed the base/pgsql_tmp scratch file');
}
else
{
	ok(-e "$pgdata/$tmp->{file}", '13: crash recovery keeps the base/pgsql_tmp scratch file');
}
ok(-e "$pgdata/$wal->{file}", 'the killed run on pg_wal left its file');
$node->restart;
ok(!-e "$pgdata/$tmp->{file}", 'a restart removes the base/pgsql_tmp scratch file')
  if $pg_major < 14;
is($node->safe_psql('postgres', 'SELECT pg_is_in_recovery()'),
	'f', 'server restarts with the file in pg_wal');
is($node->safe_psql('postgres', 'SELECT count(*) FROM wal_stall_test_fsync(0.1)'),
	'18', 'next run works');
ok(!-e "$pgdata/$wal->{file}", 'and removed the file of the killed run');

# 4. Symlinks inside the data directory.  A grantee's path is judged on its
# text: one through a link to /etc gets the same error whether the target
# exists or not, and nothing is looked up.
symlink('/etc', "$pgdata/etclink") or die "symlink: $!";
my $exists = grantee_probe('etclink/passwd');
my $missing = grantee_probe('etclink/nonexistent');
like($exists, qr/ERROR:  cannot test directory "etclink\/passwd"/,
	'grantee: a path through a link to /etc is refused');
$exists =~ s/"[^"]*"/"..."/g;
$missing =~ s/"[^"]*"/"..."/g;
is($exists, $missing, 'grantee: same error for an existing and a missing target');
my $outside = grantee_probe('/etc');
my $nowhere = grantee_probe('/no/such');
like($outside, qr/ERROR:  permission denied to test directory "\/etc"/,
	'grantee: a directory outside is refused');
$outside =~ s/"[^"]*"/"..."/g;
$nowhere =~ s/"[^"]*"/"..."/g;
is($outside, $nowhere, 'grantee: same error for an existing and a missing path outside');

# base/pgsql_tmp swapped for a symlink to a directory outside: it is not
# followed, so no file lands outside.
my $elsewhere = PostgreSQL::Test::Utils::tempdir();
rename("$pgdata/base/pgsql_tmp", "$pgdata/base/pgsql_tmp.real") or die "rename: $!";
symlink($elsewhere, "$pgdata/base/pgsql_tmp") or die "symlink: $!";
like(grantee_probe('base/pgsql_tmp'),
	qr/ERROR:  could not open directory "base\/pgsql_tmp": Not a directory/,
	'grantee: base/pgsql_tmp as a symlink is not followed');
my ($ret, $stdout, $stderr) = $node->psql('postgres',
	"SELECT count(*) FROM wal_stall_test_fsync(0.1, 'base/pgsql_tmp')");
like($stderr, qr/could not open directory "base\/pgsql_tmp": Not a directory/,
	'superuser: nor for a superuser');
is_deeply([ scratch_files_under($elsewhere) ], [], 'no file was created outside');
unlink("$pgdata/base/pgsql_tmp") or die "unlink: $!";
rename("$pgdata/base/pgsql_tmp.real", "$pgdata/base/pgsql_tmp") or die "rename: $!";
unlink("$pgdata/etclink") or die "unlink: $!";
is(grantee_probe('base/pgsql_tmp'), '18', 'grantee: base/pgsql_tmp works again');

# 5. The same swap made while runs go on.  One child exchanges
# base/pgsql_tmp with a symlink to a directory outside, again and again
# (renameat2 with RENAME_EXCHANGE: the name always exists), while the
# grantee probes base/pgsql_tmp and another child watches the directory
# outside.  A run opens the directory once, without following links, and
# works relative to what it opened: it either meets the symlink and stops,
# or works in the real directory whatever its name by then; nothing ever
# appears outside.
SKIP:
{
	my $arch = `uname -m`;
	chomp $arch;
	# renameat2(2) has no Perl wrapper: called by its x86_64 number
	skip 'renameat2 is called by its x86_64 system call number', 5 if $arch ne 'x86_64';
	my $real = "$pgdata/base/pgsql_tmp";
	my $link = "$pgdata/base/pgsql_tmp_swap";
	my $target = PostgreSQL::Test::Utils::tempdir();
	my $work = PostgreSQL::Test::Utils::tempdir();
	my $exchange = sub { syscall(316, -100, $real, -100, $link, 2) == 0 };
	symlink($target, $link) or die "symlink: $!";
	$exchange->() && $exchange->() or die "renameat2: $!";

	my $swapper = fork() // die "fork: $!";
	if ($swapper == 0)
	{
		my $swaps = 0;
		# a few thousand exchanges a second, leaving the server some CPU
		until (-e "$work/stop")
		{
			$swaps += $exchange->();
			usleep(200);
		}
		open(my $fh, '>', "$work/swaps") or POSIX::_exit(1);
		print $fh $swaps;
		close($fh);
		POSIX::_exit(0);
	}
	my $watcher = fork() // die "fork: $!";
	if ($watcher == 0)
	{
		my %seen;
		until (-e "$work/stop")
		{
			opendir(my $dh, $target) or next;
			$seen{$_} = 1 for grep { !/^\.\.?$/ } readdir($dh);
			closedir($dh);
			usleep(1000);	# a scratch file lives for 0.1 s at least
		}
		open(my $fh, '>', "$work/seen") or POSIX::_exit(1);
		print $fh join(' ', sort keys %seen);
		close($fh);
		POSIX::_exit(0);
	}

	# the watcher must see a file that lives 0.1 s: this one proves it does
	open(my $marker, '>', "$target/marker") or die "marker: $!";
	close($marker);
	usleep(100_000);
	unlink("$target/marker") or die "unlink: $!";

	my ($done, $refused, @other) = (0, 0);
	for (1 .. 20)
	{
		my $result = grantee_probe('base/pgsql_tmp');
		if ($result eq '18') { $done++ }
		elsif ($result =~ /could not open directory "base\/pgsql_tmp": Not a directory/) { $refused++ }
		else { push @other, $result }
	}
	open(my $stop, '>', "$work/stop") or die;
	close($stop);
	waitpid($swapper, 0);
	waitpid($watcher, 0);
	$exchange->() if -l $real;	# the real directory back under its name
	unlink($link) or die "unlink: $!";

	my $swaps = slurp_file("$work/swaps");
	cmp_ok($swaps, '>', 100, "the names were exchanged $swaps times during the runs");
	cmp_ok($done, '>', 0, "runs that opened the real directory finished ($done of 20)");
	is_deeply(\@other, [], "every other run met the symlink and was refused ($refused)");
	is(slurp_file("$work/seen"), 'marker',
		'nothing appeared in the directory outside but the marker the test put there');
	ok(-d $real && !-l $real, 'base/pgsql_tmp is the real directory again');
}

$node->stop;
done_testing();
