# Manual pages and bash completion (included by the top-level Makefile).
#
#   make doc        Documentation/*.txt (pandoc markdown) -> build/man/man1/netlab*.1,
#                   build/man/man5/netlab-scenario.5
#   make install    the pages and the bash completion under DESTDIR/PREFIX
#                   (PREFIX=/usr/local: share/man/manN, share/bash-completion/completions)
#
# One tool, pandoc (ci/deps.sh installs it); a warning of its is an error.

PANDOC      ?= pandoc
PREFIX      ?= /usr/local
MANDIR      ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
INSTALL     ?= install

# Section 5: file formats; everything else is a command (section 1).
DOC_MAN5    := netlab-scenario netlab-topology
DOC_MAN1    := $(filter-out $(DOC_MAN5),$(patsubst Documentation/%.txt,%,$(wildcard Documentation/netlab*.txt)))
DOC_PAGES   := $(DOC_MAN1:%=$(B)/man/man1/%.1) $(DOC_MAN5:%=$(B)/man/man5/%.5)
COMPLETION  := harness/cmd/netlab.bash-completion
# The date of the commit, not of the build: the same tree gives the same pages.
DOC_DATE    := $(shell git -C "$(CURDIR)" log -1 --format=%cs 2>/dev/null)
# Left-adjusted and not hyphenated: paths and option names stay whole.
DOC_FLAGS   := -f markdown-smart -t man -s --fail-if-warnings -V adjusting=l -M hyphenate=false \
	       -M footer="netlab $(NETLAB_VERSION)" -M header="netlab manual" \
	       $(if $(DOC_DATE),-M date=$(DOC_DATE))

.PHONY: doc install

doc: $(DOC_PAGES)

# Tables, for groff 1.22's tbl in man(1) from 70 columns up: pandoc 2.17
# makes every table 70 ens wide, which beside the indent and the gaps between
# columns does not fit 80 columns; scale every column to 75%. And man(1)
# renders one long page that grows only at a `.ne`: tbl warns of a text block
# that does not fit the page as it stands ("table text block will not fit on
# one page"), so each table first asks for the room its rows may take.
DOC_TBL_FIT := s/\blw\(([0-9.]+)n\)/sprintf("lw(%.1fn)", $$1 * 0.75)/ge; s/^\.TS$$/.ne 40v\n.TS/
DOC_PANDOC = @command -v $(PANDOC) >/dev/null || { \
		echo "netlab: make doc needs pandoc" >&2; \
		echo "hint: as root, run: apt-get install -y pandoc (or make deps)" >&2; exit 2; }; \
	mkdir -p $(@D) && echo "  PANDOC  $@" && \
	$(PANDOC) $(DOC_FLAGS) -o $@.tmp $< && perl -pi -e '$(DOC_TBL_FIT)' $@.tmp && mv $@.tmp $@

$(B)/man/man1/%.1: Documentation/%.txt Documentation/doc.mk
	$(DOC_PANDOC)

$(B)/man/man5/%.5: Documentation/%.txt Documentation/doc.mk
	$(DOC_PANDOC)

install: doc
	$(INSTALL) -d $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(BASHCOMPDIR)
	$(INSTALL) -m 0644 $(DOC_MAN1:%=$(B)/man/man1/%.1) $(DESTDIR)$(MANDIR)/man1/
	$(INSTALL) -m 0644 $(DOC_MAN5:%=$(B)/man/man5/%.5) $(DESTDIR)$(MANDIR)/man5/
	$(INSTALL) -m 0644 $(COMPLETION) $(DESTDIR)$(BASHCOMPDIR)/netlab
