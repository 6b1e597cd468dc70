#!/usr/bin/env perl
# The traffic generators' names (traffic/generators.c tgen_all[]) in string
# literals of harness/ sources outside the generator descriptors
# (harness/scenario/scngen.c): prints each as FILE:LINE, exits 1 when any.
# Everything else must ask a descriptor, not branch on a name (issue 33).
# Comments are not looked at: they may name a generator to explain.
# A name counts as a word of the literal, not next to a letter, digit, '_',
# '.', '-' or '=': "rr.tps" is a metric of rr's, not its name, and
# "rr=%s,rrfile=" is QEMU's record/replay option.
# Usage: gen-names.pl traffic/generators.c harness/*/*.[ch]
use strict;
use warnings;

my $gens = shift or die "usage: $0 GENERATORS.C FILE...\n";
open(my $g, '<', $gens) or die "$gens: $!\n";
my $tab = do { local $/; <$g> };
$tab =~ /^const struct tgen tgen_all\[\] = \{(.*?)^\};/ms or die "$gens: no tgen_all[]\n";
my @names = $1 =~ /\{ \.name = "([^"]+)"/g;
@names or die "$gens: no generator in tgen_all[]\n";
print "generators: @names\n";

my $bad = 0;
for my $f (@ARGV) {
	next if $f =~ m{(^|/)harness/scenario/scngen\.c$};
	open(my $fh, '<', $f) or die "$f: $!\n";
	my $src = do { local $/; <$fh> };
	# Comments out, their newlines kept so that line numbers stay right.
	$src =~ s{/\*.*?\*/}{ (my $c = $&) =~ s/[^\n]//g; $c }gse;
	$src =~ s{//[^\n]*}{}g;
	my $line = 0;
	for my $l (split /\n/, $src) {
		$line++;
		while ($l =~ /"((?:[^"\\]|\\.)*)"/g) {
			my $s = $1;
			for my $n (@names) {
				next unless $s =~ /(?<![\w.=-])\Q$n\E(?![\w.=-])/;
				print "$f:$line: \"$s\" names generator $n\n";
				$bad = 1;
			}
		}
	}
}
exit $bad;
