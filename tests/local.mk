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
# tui: the task runner (core), the line editor and completion (ui objects linked in)
check_PROGRAMS += tests/unit/test_task
TESTS += tests/unit/test_task
tests_unit_test_task_CFLAGS = $(unit_cflags)
tests_unit_test_task_LDADD = $(unit_ldadd)
check_PROGRAMS += tests/unit/test_lineedit tests/unit/test_complete
TESTS += tests/unit/test_lineedit tests/unit/test_complete
tests_unit_test_lineedit_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/ui
tests_unit_test_lineedit_CFLAGS = $(unit_cflags)
tests_unit_test_lineedit_LDADD = $(unit_ldadd)
tests_unit_test_lineedit_SOURCES = tests/unit/test_lineedit.c \
	ui/tui/lineedit.h ui/tui/lineedit.c ui/tui/utf8.h ui/tui/utf8.c
tests_unit_test_complete_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/ui
tests_unit_test_complete_CFLAGS = $(unit_cflags)
tests_unit_test_complete_LDADD = $(unit_ldadd)
tests_unit_test_complete_SOURCES = tests/unit/test_complete.c \
	ui/tui/complete.h ui/tui/complete.c
endif

# integration tests
