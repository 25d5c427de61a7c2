# Tests: unit (cmocka, link only the core), integration (shell), tui (tmux).
TEST_EXTENSIONS = .sh
SH_LOG_COMPILER = $(SHELL)
AM_TESTS_ENVIRONMENT = \
	JOBPREP='$(abs_top_builddir)/jobprep'; export JOBPREP; \
	TOP_SRCDIR='$(abs_top_srcdir)'; export TOP_SRCDIR; \
	TOP_BUILDDIR='$(abs_top_builddir)'; export TOP_BUILDDIR;
EXTRA_DIST += tests/lib.sh tests/data

unit_cflags = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(CJSON_CFLAGS)
unit_ldadd = $(CORE_LIBS) $(CMOCKA_LIBS)

if HAVE_CMOCKA
# unit tests
endif

# integration tests
