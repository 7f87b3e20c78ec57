# The layout of wal_stall's save file, pg_stat/wal_stall.stat (persist.c,
# wal_stall.h), for the TAP tests that write one by hand: offsets, a packer
# for statement entries, and the CRC-32C the server checks.
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
package WalStallSaveFile;

use strict;
use warnings;
use Exporter 'import';

our @EXPORT = qw(%save_size save_layout_matches save_crc32c save_with_checksum
  save_statement_entry save_with_entries read_bytes write_bytes);

# Sizes of the structures, as the header of a file states them: a header of
# eleven uint32, WalStallSavedFigures, WalStallClassStats, WalStallSecond,
# WalStallQueryStats.  Offsets inside them are in the tests that use them.
our %save_size = (
	header => 44,
	figures => 4032,
	class => 544,
	row => 176,
	entry => 576);

# True if a file's header states the sizes above (else the offsets of the
# tests are wrong, not the server).
sub save_layout_matches
{
	my ($bytes) = @_;
	my (undef, undef, undef, $figures, $class, undef, undef, $row, undef, $entry) =
	  unpack('L11', $bytes);
	return $figures == $save_size{figures}
	  && $class == $save_size{class}
	  && $row == $save_size{row}
	  && $entry == $save_size{entry};
}

sub read_bytes
{
	my ($file) = @_;
	open(my $fh, '<:raw', $file) or die "could not read \"$file\": $!";
	local $/;
	my $bytes = <$fh>;
	close($fh);
	return $bytes;
}

sub write_bytes
{
	my ($file, $bytes) = @_;
	open(my $fh, '>:raw', $file) or die "could not write \"$file\": $!";
	print $fh $bytes;
	close($fh) or die "could not write \"$file\": $!";
}

# CRC-32C (Castagnoli), as the server's pg_crc32c computes it.
my @crc_table;
for my $i (0 .. 255)
{
	my $c = $i;
	$c = ($c & 1) ? (($c >> 1) ^ 0x82F63B78) : ($c >> 1) for 1 .. 8;
	$crc_table[$i] = $c;
}

sub save_crc32c
{
	my ($bytes) = @_;
	my $crc = 0xFFFFFFFF;
	for (my $at = 0; $at < length($bytes); $at += 65536)
	{
		$crc = $crc_table[ ($crc ^ $_) & 0xFF ] ^ ($crc >> 8)
		  for unpack('C*', substr($bytes, $at, 65536));
	}
	return $crc ^ 0xFFFFFFFF;
}

# The file with its last four bytes replaced by the checksum of the rest.
sub save_with_checksum
{
	my ($bytes) = @_;
	my $payload = substr($bytes, 0, length($bytes) - 4);
	return $payload . pack('L', save_crc32c($payload));
}

# A statement entry (WalStallQueryStats) of one episode of 1 ms, in the
# first histogram bucket.
sub save_statement_entry
{
	my ($queryid, $userid, $dbid, $class) = @_;
	return pack('Q L L l x4 Q q q Q Q', $queryid, $userid, $dbid, $class, 1, 1, 1,
		1000000, 1000000)
	  . pack('q32', 1, (0) x 31)
	  . pack('Q32', 1000000, (0) x 31);
}

# A file written by the server with its statement entries replaced by the
# given ones (a string of packed entries, $count of them), checksummed.
sub save_with_entries
{
	my ($bytes, $entries, $count) = @_;
	my $nhistory = (unpack('L11', $bytes))[8];
	my $rows_end = $save_size{header} + $save_size{figures} + $nhistory * $save_size{row};
	my $file = substr($bytes, 0, $rows_end) . $entries . pack('L', 0);
	substr($file, 40, 4) = pack('L', $count);
	return save_with_checksum($file);
}

1;
