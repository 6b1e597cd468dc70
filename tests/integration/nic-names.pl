#!/usr/bin/env perl
# The NIC models' names and drivers (guest/nicmodel.c nic_models[]) in
# string literals of harness/ sources: prints each as FILE:LINE, exits 1
# when any. Code asks the descriptor (nic_model_find, ->driver, ->kprobes,
# ->libvirt_model ...), never branches on a model's name (issue 33).
# Comments are not looked at. vm/topo.c is let through: the shipped
# topologies' default models are data there ("loop: A e1000e, B virtio-net").
# A name counts as a word of the literal, not next to a letter, digit,
# '_', '.', '-' or '='.
# Usage: nic-names.pl guest/nicmodel.c harness/*/*.[ch]
use strict;
use warnings;

my $tab = shift or die "usage: $0 NICMODEL.C FILE...\n";
open(my $t, '<', $tab) or die "$tab: $!\n";
my $src = do { local $/; <$t> };
my @names = ($src =~ /\.name = "([^"]+)"/g, $src =~ /\.driver = "([^"]+)"/g);
my %seen;
@names = grep { !$seen{$_}++ } @names;
@names or die "$tab: no model in nic_models[]\n";
print "models: @names\n";

my $bad = 0;
for my $f (@ARGV) {
	next if $f =~ m{(^|/)harness/vm/topo\.c$};
	open(my $fh, '<', $f) or die "$f: $!\n";
	my $s = do { local $/; <$fh> };
	$s =~ s{/\*.*?\*/}{ (my $c = $&) =~ s/[^\n]//g; $c }gse;
	$s =~ s{//[^\n]*}{}g;
	my $line = 0;
	for my $l (split /\n/, $s) {
		$line++;
		while ($l =~ /"((?:[^"\\]|\\.)*)"/g) {
			my $lit = $1;
			for my $n (@names) {
				next unless $lit =~ /(?<![\w.=-])\Q$n\E(?![\w.=-])/;
				print "$f:$line: \"$lit\" names NIC model or driver $n\n";
				$bad = 1;
			}
		}
	}
}
exit $bad;
