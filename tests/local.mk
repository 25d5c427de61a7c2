# Tests: unit (cmocka, link only the core), integration (shell), tui (tmux).
# The environment is pinned for every test: the time zone, the language,
# no home directory of the person running them (a test that needs one makes
# its own), no system git configuration, none of jobprep's own variables.
# The shell tests (*.sh) speak TAP (tests/lib/report.sh): automake's
# tap-driver.sh counts their cases, one PASS:/FAIL:/SKIP: line each; each
# ends with jp_done, and tests/lib/tap-run.sh fails one that ends without
# it (a script that cannot run here skips whole with jp_skip_all). The unit
# tests (cmocka programs, no extension) keep the plain test-driver.
TEST_EXTENSIONS = .sh
SH_LOG_DRIVER = env AM_TAP_AWK='$(AWK)' $(SHELL) $(top_srcdir)/autotools/build-aux/tap-driver.sh
SH_LOG_COMPILER = $(SHELL) $(top_srcdir)/tests/lib/tap-run.sh $(SHELL)
AM_TESTS_ENVIRONMENT = \
	JOBPREP='$(abs_top_builddir)/jobprep'; export JOBPREP; \
	TOP_SRCDIR='$(abs_top_srcdir)'; export TOP_SRCDIR; \
	TOP_BUILDDIR='$(abs_top_builddir)'; export TOP_BUILDDIR; \
	LSAN_OPTIONS="suppressions=$(abs_top_srcdir)/tests/lsan.supp:print_suppressions=0:fast_unwind_on_malloc=0$${LSAN_OPTIONS:+:$$LSAN_OPTIONS}"; \
	export LSAN_OPTIONS; \
	TZ=UTC; LC_ALL=C.UTF-8; GIT_CONFIG_NOSYSTEM=1; HOME=/nonexistent/jobprep-test-home; \
	export TZ LC_ALL GIT_CONFIG_NOSYSTEM HOME; \
	unset LANGUAGE XDG_CONFIG_HOME XDG_STATE_HOME XDG_DATA_HOME JOBPREP_PROFILE JOBPREP_SCRATCH \
		JOBPREP_GIT_TOKEN JOBPREP_GIT_USER JOBPREP_LOCALEDIR JOBPREP_PROBE_TIMEOUT_MS GIT_ASKPASS SSH_ASKPASS SSH_AUTH_SOCK \
		GIT_DIR GIT_WORK_TREE GIT_CONFIG_GLOBAL NO_COLOR;
EXTRA_DIST += tests/lib tests/data tests/lsan.supp

unit_cflags = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(CJSON_CFLAGS)
unit_ldadd = $(CORE_LIBS) $(CMOCKA_LIBS)

if HAVE_CMOCKA
# unit tests
# git: URLs and the clone line; the parallel tree copy and clone temporaries
GIT_UNIT_TESTS = tests/unit/test_git_url tests/unit/test_treecopy tests/unit/test_git_update \
	tests/unit/test_git_lacks tests/unit/test_git_ssh
check_PROGRAMS += $(GIT_UNIT_TESTS)
TESTS += $(GIT_UNIT_TESTS)
tests_unit_test_git_url_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src
tests_unit_test_git_url_CFLAGS = $(unit_cflags) $(LIBGIT2_CFLAGS)
tests_unit_test_git_url_LDADD = $(unit_ldadd)
tests_unit_test_treecopy_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src
tests_unit_test_treecopy_CFLAGS = $(unit_cflags) $(LIBGIT2_CFLAGS)
tests_unit_test_treecopy_LDADD = $(unit_ldadd)
tests_unit_test_treecopy_SOURCES = tests/unit/test_treecopy.c tests/unit/scratch.h
tests_unit_test_git_update_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src
tests_unit_test_git_update_CFLAGS = $(unit_cflags)
tests_unit_test_git_update_LDADD = $(unit_ldadd)
# what a checkout lacks: LFS pointers, submodules not cloned
tests_unit_test_git_lacks_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src
tests_unit_test_git_lacks_CFLAGS = $(unit_cflags) $(LIBGIT2_CFLAGS)
tests_unit_test_git_lacks_LDADD = $(unit_ldadd)
tests_unit_test_git_lacks_SOURCES = tests/unit/test_git_lacks.c tests/unit/scratch.h
# an ssh step's outcome crossing from its helper: every line of its error
tests_unit_test_git_ssh_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src
tests_unit_test_git_ssh_CFLAGS = $(unit_cflags) $(LIBGIT2_CFLAGS)
tests_unit_test_git_ssh_LDADD = $(unit_ldadd)
# path: lexical paths (normalise, join, absolute, is normal, is under)
check_PROGRAMS += tests/unit/test_path
TESTS += tests/unit/test_path
tests_unit_test_path_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src
tests_unit_test_path_CFLAGS = $(unit_cflags)
tests_unit_test_path_LDADD = $(unit_ldadd)
tests_unit_test_path_SOURCES = tests/unit/test_path.c tests/unit/scratch.h
# fs: mkdir -p with undo, rm -rf, dir_is_empty
check_PROGRAMS += tests/unit/test_fs
TESTS += tests/unit/test_fs
tests_unit_test_fs_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src
tests_unit_test_fs_CFLAGS = $(unit_cflags)
tests_unit_test_fs_LDADD = $(unit_ldadd)
tests_unit_test_fs_SOURCES = tests/unit/test_fs.c tests/unit/scratch.h
# suggest: "did you mean" (Damerau-Levenshtein, the nearest known name)
check_PROGRAMS += tests/unit/test_suggest
TESTS += tests/unit/test_suggest
tests_unit_test_suggest_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src
tests_unit_test_suggest_CFLAGS = $(unit_cflags)
tests_unit_test_suggest_LDADD = $(unit_ldadd)
# utf8: the one decoder (strict) and encoder
check_PROGRAMS += tests/unit/test_utf8
TESTS += tests/unit/test_utf8
tests_unit_test_utf8_CFLAGS = $(unit_cflags)
tests_unit_test_utf8_LDADD = $(unit_ldadd)
# units: sizes for people
check_PROGRAMS += tests/unit/test_units
TESTS += tests/unit/test_units
tests_unit_test_units_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src
tests_unit_test_units_CFLAGS = $(unit_cflags)
tests_unit_test_units_LDADD = $(unit_ldadd)
# textquote: names made safe for a terminal
check_PROGRAMS += tests/unit/test_textquote
TESTS += tests/unit/test_textquote
tests_unit_test_textquote_CFLAGS = $(unit_cflags)
tests_unit_test_textquote_LDADD = $(unit_ldadd)
# stage_mark: the record of a stage that has not finished
check_PROGRAMS += tests/unit/test_stage_mark
TESTS += tests/unit/test_stage_mark
tests_unit_test_stage_mark_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src
tests_unit_test_stage_mark_CFLAGS = $(unit_cflags)
tests_unit_test_stage_mark_LDADD = $(unit_ldadd)
tests_unit_test_stage_mark_SOURCES = tests/unit/test_stage_mark.c tests/unit/scratch.h
# buf: a growing text with a sticky failure
check_PROGRAMS += tests/unit/test_buf
TESTS += tests/unit/test_buf
tests_unit_test_buf_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src
tests_unit_test_buf_CFLAGS = $(unit_cflags)
tests_unit_test_buf_LDADD = $(unit_ldadd)
# flow: the launch lint and the sh splitter
check_PROGRAMS += tests/unit/test_lint
TESTS += tests/unit/test_lint
tests_unit_test_lint_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src
tests_unit_test_lint_CFLAGS = $(unit_cflags)
tests_unit_test_lint_LDADD = $(unit_ldadd)
# the lint's look for a resume (issue 29)
check_PROGRAMS += tests/unit/test_lint_resume
TESTS += tests/unit/test_lint_resume
tests_unit_test_lint_resume_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src
tests_unit_test_lint_resume_CFLAGS = $(unit_cflags)
tests_unit_test_lint_resume_LDADD = $(unit_ldadd)
# the light Python reader and launch.hub_download (issue 21)
check_PROGRAMS += tests/unit/test_pyscan
TESTS += tests/unit/test_pyscan
tests_unit_test_pyscan_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src
tests_unit_test_pyscan_CFLAGS = $(unit_cflags)
tests_unit_test_pyscan_LDADD = $(unit_ldadd)
# flow: the flow API field by field vs `jobprep init`, and the flow's rules
check_PROGRAMS += tests/unit/test_flow
TESTS += tests/unit/test_flow
tests_unit_test_flow_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src
tests_unit_test_flow_CFLAGS = $(unit_cflags)
tests_unit_test_flow_LDADD = $(unit_ldadd)
# profile: the built-in default, profile files, malformed profiles
check_PROGRAMS += tests/unit/test_profile
TESTS += tests/unit/test_profile
tests_unit_test_profile_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src
tests_unit_test_profile_CFLAGS = $(unit_cflags)
tests_unit_test_profile_LDADD = $(unit_ldadd)
tests_unit_test_profile_SOURCES = tests/unit/test_profile.c tests/unit/scratch.h
# manifest: reading, writing, atomic writes, env rendering, path checks
MANIFEST_TESTS = tests/unit/test_manifest_read tests/unit/test_manifest_write \
	tests/unit/test_atomic_write tests/unit/test_envsh tests/unit/test_check
check_PROGRAMS += $(MANIFEST_TESTS)
TESTS += $(MANIFEST_TESTS)
tests_unit_test_manifest_read_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src
tests_unit_test_manifest_read_CFLAGS = $(unit_cflags)
tests_unit_test_manifest_read_LDADD = $(unit_ldadd)
tests_unit_test_manifest_write_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src
tests_unit_test_manifest_write_CFLAGS = $(unit_cflags)
tests_unit_test_manifest_write_LDADD = $(unit_ldadd)
tests_unit_test_manifest_write_SOURCES = tests/unit/test_manifest_write.c tests/unit/scratch.h
tests_unit_test_atomic_write_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src
tests_unit_test_atomic_write_CFLAGS = $(unit_cflags)
tests_unit_test_atomic_write_LDADD = $(unit_ldadd)
tests_unit_test_atomic_write_SOURCES = tests/unit/test_atomic_write.c tests/unit/scratch.h
tests_unit_test_envsh_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src
tests_unit_test_envsh_CFLAGS = $(unit_cflags)
tests_unit_test_envsh_LDADD = $(unit_ldadd)
tests_unit_test_check_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src
tests_unit_test_check_CFLAGS = $(unit_cflags)
tests_unit_test_check_LDADD = $(unit_ldadd)
tests_unit_test_check_SOURCES = tests/unit/test_check.c tests/unit/scratch.h
# tui: the worker thread (core), the line editor and completion (ui objects linked in)
check_PROGRAMS += tests/unit/test_worker
TESTS += tests/unit/test_worker
tests_unit_test_worker_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src
tests_unit_test_worker_CFLAGS = $(unit_cflags)
tests_unit_test_worker_LDADD = $(unit_ldadd)
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
# i18n: where a line of English or Chinese may break (ui object linked in)
check_PROGRAMS += tests/unit/test_utf8_break
TESTS += tests/unit/test_utf8_break
tests_unit_test_utf8_break_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/ui
tests_unit_test_utf8_break_CFLAGS = $(unit_cflags)
tests_unit_test_utf8_break_LDADD = $(unit_ldadd)
tests_unit_test_utf8_break_SOURCES = tests/unit/test_utf8_break.c ui/tui/utf8.h ui/tui/utf8.c
# storage: mount table and path classes, probes, data-set scans
STORAGE_TESTS = tests/unit/test_mountinfo tests/unit/test_probe tests/unit/test_scan \
	tests/unit/test_helper
check_PROGRAMS += $(STORAGE_TESTS)
TESTS += $(STORAGE_TESTS)
tests_unit_test_mountinfo_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src
tests_unit_test_mountinfo_CFLAGS = $(unit_cflags)
tests_unit_test_mountinfo_LDADD = $(unit_ldadd)
tests_unit_test_probe_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src
tests_unit_test_probe_CFLAGS = $(unit_cflags)
tests_unit_test_probe_LDADD = $(unit_ldadd)
tests_unit_test_helper_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src
tests_unit_test_helper_CFLAGS = $(unit_cflags)
tests_unit_test_helper_LDADD = $(unit_ldadd)
tests_unit_test_scan_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src
tests_unit_test_scan_CFLAGS = $(unit_cflags)
tests_unit_test_scan_LDADD = $(unit_ldadd)
tests_unit_test_scan_SOURCES = tests/unit/test_scan.c tests/unit/scratch.h
# export: exact Slurm scripts and PyTorchJob YAML, quoting, refusals
check_PROGRAMS += tests/unit/test_export
TESTS += tests/unit/test_export
tests_unit_test_export_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src
tests_unit_test_export_CFLAGS = $(unit_cflags)
tests_unit_test_export_LDADD = $(unit_ldadd)
# export: the digest line that tells an unedited export from an edited file
check_PROGRAMS += tests/unit/test_export_stamp
TESTS += tests/unit/test_export_stamp
tests_unit_test_export_stamp_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src
tests_unit_test_export_stamp_CFLAGS = $(unit_cflags)
tests_unit_test_export_stamp_LDADD = $(unit_ldadd)
tests_unit_test_export_stamp_SOURCES = tests/unit/test_export_stamp.c tests/unit/scratch.h
endif

# fuzz targets: one LLVMFuzzerTestOneInput per tests/fuzz/fuzz_NAME.c, each
# with its seeds in tests/fuzz/corpus/NAME/ and a dictionary tests/fuzz/NAME.dict
# (tests/fuzz/README.md). Every build replays the seeds through the target as a
# test (tests/fuzz/replay_NAME, the target plus replay.c's main()); with
# --enable-fuzzing CC=clang the libFuzzer binaries tests/fuzz/fuzz_NAME are
# built too: tests/fuzz/run.sh tests/fuzz 10 runs each briefly.
FUZZ_NAMES = manifest profile answers mountinfo shell shquote url member resume pyscan
EXTRA_DIST += tests/fuzz/README.md tests/fuzz/run.sh tests/fuzz/ci.sh tests/fuzz/corpus \
	$(FUZZ_NAMES:%=tests/fuzz/%.dict)
FUZZ_REPLAYS = tests/fuzz/replay_manifest tests/fuzz/replay_profile \
	tests/fuzz/replay_answers tests/fuzz/replay_mountinfo tests/fuzz/replay_shell \
	tests/fuzz/replay_shquote tests/fuzz/replay_url tests/fuzz/replay_member \
	tests/fuzz/replay_resume tests/fuzz/replay_pyscan
check_PROGRAMS += $(FUZZ_REPLAYS)
TESTS += $(FUZZ_REPLAYS)
tests_fuzz_replay_manifest_SOURCES = tests/fuzz/fuzz_manifest.c tests/fuzz/replay.c
tests_fuzz_replay_manifest_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src -DJP_FUZZ_NAME='"manifest"'
tests_fuzz_replay_manifest_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS)
tests_fuzz_replay_manifest_LDADD = $(CORE_LIBS)
tests_fuzz_replay_profile_SOURCES = tests/fuzz/fuzz_profile.c tests/fuzz/replay.c
tests_fuzz_replay_profile_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src -DJP_FUZZ_NAME='"profile"'
tests_fuzz_replay_profile_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS)
tests_fuzz_replay_profile_LDADD = $(CORE_LIBS)
tests_fuzz_replay_answers_SOURCES = tests/fuzz/fuzz_answers.c tests/fuzz/replay.c
tests_fuzz_replay_answers_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src -DJP_FUZZ_NAME='"answers"'
tests_fuzz_replay_answers_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS)
tests_fuzz_replay_answers_LDADD = $(CORE_LIBS)
tests_fuzz_replay_mountinfo_SOURCES = tests/fuzz/fuzz_mountinfo.c tests/fuzz/replay.c
tests_fuzz_replay_mountinfo_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src -DJP_FUZZ_NAME='"mountinfo"'
tests_fuzz_replay_mountinfo_CFLAGS = $(AM_CFLAGS)
tests_fuzz_replay_mountinfo_LDADD = $(CORE_LIBS)
tests_fuzz_replay_shell_SOURCES = tests/fuzz/fuzz_shell.c tests/fuzz/replay.c
tests_fuzz_replay_shell_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src -DJP_FUZZ_NAME='"shell"'
tests_fuzz_replay_shell_CFLAGS = $(AM_CFLAGS)
tests_fuzz_replay_shell_LDADD = $(CORE_LIBS)
tests_fuzz_replay_shquote_SOURCES = tests/fuzz/fuzz_shquote.c tests/fuzz/replay.c
tests_fuzz_replay_shquote_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src -DJP_FUZZ_NAME='"shquote"'
tests_fuzz_replay_shquote_CFLAGS = $(AM_CFLAGS)
tests_fuzz_replay_shquote_LDADD = $(CORE_LIBS)
tests_fuzz_replay_url_SOURCES = tests/fuzz/fuzz_url.c tests/fuzz/replay.c
tests_fuzz_replay_url_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src -DJP_FUZZ_NAME='"url"'
tests_fuzz_replay_url_CFLAGS = $(AM_CFLAGS) $(LIBGIT2_CFLAGS)
tests_fuzz_replay_url_LDADD = $(CORE_LIBS)
tests_fuzz_replay_member_SOURCES = tests/fuzz/fuzz_member.c tests/fuzz/replay.c
tests_fuzz_replay_member_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src -DJP_FUZZ_NAME='"member"'
tests_fuzz_replay_member_CFLAGS = $(AM_CFLAGS)
tests_fuzz_replay_member_LDADD = $(CORE_LIBS)
tests_fuzz_replay_resume_SOURCES = tests/fuzz/fuzz_resume.c tests/fuzz/replay.c
tests_fuzz_replay_resume_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src -DJP_FUZZ_NAME='"resume"'
tests_fuzz_replay_resume_CFLAGS = $(AM_CFLAGS)
tests_fuzz_replay_resume_LDADD = $(CORE_LIBS)
tests_fuzz_replay_pyscan_SOURCES = tests/fuzz/fuzz_pyscan.c tests/fuzz/replay.c
tests_fuzz_replay_pyscan_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src -DJP_FUZZ_NAME='"pyscan"'
tests_fuzz_replay_pyscan_CFLAGS = $(AM_CFLAGS)
tests_fuzz_replay_pyscan_LDADD = $(CORE_LIBS)
if ENABLE_FUZZING
noinst_PROGRAMS += tests/fuzz/fuzz_manifest tests/fuzz/fuzz_profile tests/fuzz/fuzz_answers \
	tests/fuzz/fuzz_mountinfo tests/fuzz/fuzz_shell tests/fuzz/fuzz_shquote tests/fuzz/fuzz_url \
	tests/fuzz/fuzz_member tests/fuzz/fuzz_resume tests/fuzz/fuzz_pyscan
tests_fuzz_fuzz_manifest_SOURCES = tests/fuzz/fuzz_manifest.c
tests_fuzz_fuzz_manifest_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src
tests_fuzz_fuzz_manifest_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS)
tests_fuzz_fuzz_manifest_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_manifest_LDADD = $(CORE_LIBS)
tests_fuzz_fuzz_profile_SOURCES = tests/fuzz/fuzz_profile.c
tests_fuzz_fuzz_profile_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src
tests_fuzz_fuzz_profile_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS)
tests_fuzz_fuzz_profile_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_profile_LDADD = $(CORE_LIBS)
tests_fuzz_fuzz_answers_SOURCES = tests/fuzz/fuzz_answers.c
tests_fuzz_fuzz_answers_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src
tests_fuzz_fuzz_answers_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS)
tests_fuzz_fuzz_answers_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_answers_LDADD = $(CORE_LIBS)
tests_fuzz_fuzz_mountinfo_SOURCES = tests/fuzz/fuzz_mountinfo.c
tests_fuzz_fuzz_mountinfo_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src
tests_fuzz_fuzz_mountinfo_CFLAGS = $(AM_CFLAGS)
tests_fuzz_fuzz_mountinfo_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_mountinfo_LDADD = $(CORE_LIBS)
tests_fuzz_fuzz_shell_SOURCES = tests/fuzz/fuzz_shell.c
tests_fuzz_fuzz_shell_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src
tests_fuzz_fuzz_shell_CFLAGS = $(AM_CFLAGS)
tests_fuzz_fuzz_shell_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_shell_LDADD = $(CORE_LIBS)
tests_fuzz_fuzz_shquote_SOURCES = tests/fuzz/fuzz_shquote.c
tests_fuzz_fuzz_shquote_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src
tests_fuzz_fuzz_shquote_CFLAGS = $(AM_CFLAGS)
tests_fuzz_fuzz_shquote_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_shquote_LDADD = $(CORE_LIBS)
tests_fuzz_fuzz_url_SOURCES = tests/fuzz/fuzz_url.c
tests_fuzz_fuzz_url_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src
tests_fuzz_fuzz_url_CFLAGS = $(AM_CFLAGS) $(LIBGIT2_CFLAGS)
tests_fuzz_fuzz_url_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_url_LDADD = $(CORE_LIBS)
tests_fuzz_fuzz_member_SOURCES = tests/fuzz/fuzz_member.c
tests_fuzz_fuzz_member_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src
tests_fuzz_fuzz_member_CFLAGS = $(AM_CFLAGS)
tests_fuzz_fuzz_member_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_member_LDADD = $(CORE_LIBS)
tests_fuzz_fuzz_resume_SOURCES = tests/fuzz/fuzz_resume.c
tests_fuzz_fuzz_resume_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src
tests_fuzz_fuzz_resume_CFLAGS = $(AM_CFLAGS)
tests_fuzz_fuzz_resume_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_resume_LDADD = $(CORE_LIBS)
tests_fuzz_fuzz_pyscan_SOURCES = tests/fuzz/fuzz_pyscan.c
tests_fuzz_fuzz_pyscan_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src
tests_fuzz_fuzz_pyscan_CFLAGS = $(AM_CFLAGS)
tests_fuzz_fuzz_pyscan_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_pyscan_LDADD = $(CORE_LIBS)
endif

# integration tests
# flow: headless init (golden manifests, bad answers, interrupts, the demo)
INIT_TESTS = tests/integration/init_golden.sh tests/integration/init_errors.sh \
	tests/integration/init_interrupt.sh tests/integration/init_demo.sh \
	tests/integration/init_platform.sh tests/integration/init_files_location.sh \
	tests/integration/umask_000.sh tests/integration/init_existing_checkout.sh \
	tests/integration/init_existing_full_disk.sh tests/integration/shared_root_unmounted.sh
TESTS += $(INIT_TESTS)
EXTRA_DIST += $(INIT_TESTS) tests/lib/initscratch.sh
# what a libgit2 checkout lacks: Git LFS content (code.repo.lfs), submodules
# (code.repo.submodules)
LACKS_TESTS = tests/integration/check_lfs.sh tests/integration/check_submodules.sh \
	tests/integration/git_clone_lfs.sh tests/integration/check_lacks_hung.sh \
	tests/integration/git_clone_lfs_sshfs.sh
TESTS += $(LACKS_TESTS)
EXTRA_DIST += $(LACKS_TESTS) tests/lib/lfs.sh tests/lib/lfs_server.py
# git: clone by ref, refusals, credentials over http and ssh, interrupts, remote pin,
# a silent server (stall timeout and signals over ssh and git://), an ssh session that never answers
GIT_TESTS = tests/integration/git_clone_refs.sh tests/integration/git_clone_refused.sh \
	tests/integration/git_clone_parallel.sh \
	tests/integration/git_clone_interrupt.sh tests/integration/git_clone_http.sh \
	tests/integration/git_clone_ssh.sh tests/integration/git_remote.sh \
	tests/integration/git_silent_server.sh tests/integration/git_ssh_silent_session.sh \
	tests/integration/git_cache.sh tests/integration/cache_cmd.sh
TESTS += $(GIT_TESTS)
EXTRA_DIST += $(GIT_TESTS) tests/lib/gitserv.sh
# manifest: the schema and check agree on every sample; env read back by four shells
TESTS += tests/integration/schema.sh tests/integration/env.sh tests/integration/url_credentials.sh \
	tests/integration/input_not_regular.sh tests/integration/env_special_names.sh \
	tests/integration/control_chars_escaped.sh
EXTRA_DIST += tests/integration/schema.sh tests/integration/env.sh tests/integration/url_credentials.sh \
	tests/integration/input_not_regular.sh tests/integration/env_special_names.sh \
	tests/integration/control_chars_escaped.sh
# the harness: a script that ends before jp_done fails; jp_skip_all REASON is the skip
TESTS += tests/integration/harness_end_marker.sh
EXTRA_DIST += tests/integration/harness_end_marker.sh
# the checks that explain themselves (report.sh) and the lint that refuses a
# check chained after jp_expect or a negative grep of an unproven file
TESTS += tests/integration/assertions_judged.sh
EXTRA_DIST += tests/integration/assertions_judged.sh tests/chainlint.py
# the analysers tell the truth: circles through strings, tables and
# callbacks; layout (no build output tracked); po (the template in step)
TESTS += tests/integration/analysers_truth.sh
EXTRA_DIST += tests/integration/analysers_truth.sh
# signals: every command that works a while exits 128 + SIGINT/SIGTERM/SIGHUP, cleaned up
TESTS += tests/integration/signal_exit_codes.sh
EXTRA_DIST += tests/integration/signal_exit_codes.sh
# fault trials: each fault (signals, server killed, full disk, read-only
# remount) x each operation, at random moments, JOBPREP_FAULT_TRIALS each
TESTS += tests/integration/fault_trials.sh
EXTRA_DIST += tests/integration/fault_trials.sh
# cli: an option given without its argument is named as such
TESTS += tests/integration/option_without_argument.sh tests/integration/cli_messages.sh \
	tests/integration/completion.sh tests/integration/cli_options.sh tests/integration/man_page.sh
EXTRA_DIST += tests/integration/option_without_argument.sh tests/integration/cli_messages.sh \
	tests/integration/completion.sh tests/integration/cli_options.sh tests/integration/man_page.sh
# cli: README's examples run as printed
TESTS += tests/integration/readme_examples.sh
EXTRA_DIST += tests/integration/readme_examples.sh
# export: scripts run by a real single-node Slurm; PyTorchJob YAML read by PyYAML
# and validated against the Kubeflow training operator's CRD
EXPORT_TESTS = tests/integration/export_slurm.sh tests/integration/export_pytorchjob.sh \
	tests/integration/export_pytorchjob_crd.sh
TESTS += $(EXPORT_TESTS)
EXTRA_DIST += $(EXPORT_TESTS) tests/lib/slurm.sh tests/data/kubeflow/pytorchjobs.crd.yaml
# runs: every run in its own folder, -o a copy that replaces no other run's manifest;
# export -o replaces only an unedited export; launch_clone clones the pinned commit first
RUNS_TESTS = tests/integration/init_runs.sh tests/integration/init_late_signal.sh tests/integration/export_replace.sh \
	tests/integration/init_concurrent.sh \
	tests/integration/launch_clone_pinned.sh tests/integration/launch_files.sh \
	tests/tui/review_o_copy.sh \
	tests/integration/show_runs.sh tests/integration/init_refusal_shown.sh tests/integration/check_output.sh \
	tests/integration/init_resume.sh tests/integration/resume_hung_mount.sh
TESTS += $(RUNS_TESTS)
EXTRA_DIST += $(RUNS_TESTS)
# tui: the wizard driven in a real terminal (tmux), one behaviour per script
TUI_TESTS = tests/tui/demo_enter_only.sh tests/tui/edit_data_and_go_back.sh \
	tests/tui/tmp_output_rejected.sh tests/tui/shared_root_plain_folder.sh tests/tui/resize_mid_clone.sh \
	tests/tui/ctrl_c_mid_clone.sh tests/tui/small_terminal.sh tests/tui/no_color.sh \
	tests/tui/no_terminal.sh tests/tui/resume_draft.sh tests/tui/help_browse_cjk.sh \
	tests/tui/secret_prompt_clone.sh tests/tui/review_jumps_to_field.sh tests/tui/second_prep.sh \
	tests/tui/quit_asks.sh tests/tui/move_default_yes.sh tests/tui/fixed_field_clears.sh \
	tests/tui/secret_prompt_clone.sh tests/tui/review_jumps_to_field.sh tests/tui/launch_hub_download.sh \
	tests/tui/review_long_list.sh tests/tui/fields_tell_the_truth.sh \
	tests/tui/launch_multiline.sh tests/tui/findings_shown_whole.sh tests/tui/last_job_offered.sh tests/tui/refusal_without_row_stands.sh tests/tui/keys_behave.sh \
	tests/tui/signals_restore_terminal.sh tests/tui/review_waits_for_clone.sh \
	tests/tui/data_add_while_editing.sh tests/tui/token_not_in_argv_or_prompt.sh \
	tests/tui/draft_never_keeps_a_token.sh \
	tests/tui/hung_mount_typing.sh \
	tests/tui/refusal_outlives_scan.sh \
	tests/tui/existing_checkout.sh tests/tui/review_fill_in.sh \
	tests/tui/review_resume.sh
TESTS += $(TUI_TESTS)
EXTRA_DIST += $(TUI_TESTS) tests/tui/lib.sh
# i18n: the wizard and the CLI in Chinese (tmux); the catalogue complete and valid
TESTS += tests/tui/chinese_ui.sh tests/integration/po_complete.sh
EXTRA_DIST += tests/tui/chinese_ui.sh tests/integration/po_complete.sh
# storage: the platform's mount layout in a private namespace, sshfs over a loopback sshd;
# a hung sshfs mount costs check and scan a timeout, and SIGTERM still ends them
STORAGE_SH_TESTS = tests/integration/storage_platform.sh tests/integration/hung_mount.sh \
	tests/integration/update_sshfs.sh tests/integration/stage_hung_mount.sh \
	tests/integration/write_rename_hung.sh tests/integration/update_sshfs_direct.sh \
	tests/integration/update_sshfs_full.sh tests/integration/copy_look_unanswered.sh \
	tests/integration/scan_walk_hung.sh \
	tests/integration/check_own_disk_slow.sh tests/integration/lint_hub_hung.sh
TESTS += $(STORAGE_SH_TESTS)
EXTRA_DIST += $(STORAGE_SH_TESTS) tests/lib/ssh.sh tests/lib/platform.sh
# preflight: the run's preflight.sh as Workers run it (dash, bash, busybox sh;
# bad, unreadable and hung paths; four Workers, one with other storage)
PREFLIGHT_TESTS = tests/integration/preflight.sh tests/integration/preflight_runtime.sh
TESTS += $(PREFLIGHT_TESTS)
EXTRA_DIST += $(PREFLIGHT_TESTS)
check_PROGRAMS += tests/unit/test_preflight
TESTS += tests/unit/test_preflight
tests_unit_test_preflight_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src
tests_unit_test_preflight_CFLAGS = $(unit_cflags)
tests_unit_test_preflight_LDADD = $(unit_ldadd)
tests_unit_test_preflight_SOURCES = tests/unit/test_preflight.c tests/unit/scratch.h

# static analysis and valgrind (tests/analyse.sh): cppcheck, scan-build, the
# unit tests and fuzz replays under valgrind; not part of make check
EXTRA_DIST += tests/analyse.sh tests/lib/srccopy.sh tests/valgrind.supp tests/scan-build.known tests/cppcheck.supp \
	tests/circles.py tests/circles.known tests/public_api.sh
analyse:
	$(SHELL) $(srcdir)/tests/analyse.sh $(abs_top_builddir)
.PHONY: analyse
# stage: data onto shared storage (copy, resume after kill -9, a full disk,
# a tree bigger than a batch)
STAGE_TESTS = tests/integration/stage_copy.sh tests/integration/stage_interrupt.sh \
	tests/integration/stage_full_disk.sh tests/integration/stage_archive.sh \
	tests/integration/stage_http.sh tests/integration/stage_resume_partial.sh \
	tests/integration/stage_http_ranges.sh tests/integration/stage_shards_slurm.sh \
	tests/integration/stage_http_exact.sh tests/integration/stage_http_rerun.sh \
	tests/integration/stage_http_room.sh tests/integration/stage_http_killed.sh \
	tests/integration/stage_sshfs.sh tests/integration/stage_many_members.sh \
	tests/integration/stage_odd_names.sh tests/integration/stage_big_tree.sh \
	tests/integration/stage_read_only_dirs.sh \
	tests/integration/stage_rerun_folders.sh tests/integration/stage_unpack_folders.sh \
	tests/integration/stage_hf.sh tests/integration/init_stage_hf.sh \
	tests/integration/check_staging_sshfs.sh \
	tests/integration/stage_http_unchanged.sh tests/integration/stage_progress.sh
TESTS += $(STAGE_TESTS)
EXTRA_DIST += $(STAGE_TESTS)
# unpacking exactly (issue 30): folder modes against GNU tar, a hard link
# through a symlink in DEST, duplicate names, a truncated archive's exit
TESTS += tests/integration/stage_archive_exact.sh
EXTRA_DIST += tests/integration/stage_archive_exact.sh
# stage in the flow: the manifest records where staged data came from
STAGEFLOW_TESTS = tests/integration/manifest_origin.sh tests/integration/init_stage.sh \
	tests/integration/init_unpack_archives.sh \
	tests/tui/data_stage_offers.sh tests/tui/data_unpack_archives.sh
TESTS += $(STAGEFLOW_TESTS)
EXTRA_DIST += $(STAGEFLOW_TESTS)
# a move of an existing checkout that a killed jobprep left half-done: the
# next prep finishes it from the move's journal
TESTS += tests/integration/update_killed_move.sh
EXTRA_DIST += tests/integration/update_killed_move.sh

# What fault_trials.sh writes beside its log: the table of trials per cell.
CLEANFILES += tests/integration/fault_trials.table
# preflight: every Worker's word on storage and identity (issue 28): tmpfs
# and bind mounts at output folders, a data set emptied or still unpacking,
# the platform's variables in job.env; the table of areas
PREFLIGHT_STORAGE_TESTS = tests/integration/preflight_storage.sh
TESTS += $(PREFLIGHT_STORAGE_TESTS)
EXTRA_DIST += $(PREFLIGHT_STORAGE_TESTS)
# issue 31: the launch command's verdicts, certain waste a failure (nanoGPT-shaped projects)
LAUNCH_VERDICT_TESTS = tests/integration/launch_verdicts.sh
TESTS += $(LAUNCH_VERDICT_TESTS)
EXTRA_DIST += $(LAUNCH_VERDICT_TESTS)
# each run's own read-only copy of its code (issue 29)
RUNCODE_TESTS = tests/integration/run_code_own.sh tests/integration/run_code_moves.sh
TESTS += $(RUNCODE_TESTS)
EXTRA_DIST += $(RUNCODE_TESTS)
