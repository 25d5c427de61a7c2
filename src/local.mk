# The core library: no terminal, no printing, no exit.
noinst_LIBRARIES += libjobprep.a
libjobprep_a_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS) $(LIBGIT2_CFLAGS) $(XXHASH_CFLAGS) \
	$(LIBARCHIVE_CFLAGS) $(LIBCURL_CFLAGS) $(LIBCRYPTO_CFLAGS) $(LIBMOUNT_CFLAGS)
libjobprep_a_SOURCES = \
	include/jobprep/error.h src/error.c \
	include/jobprep/strv.h src/strv.c \
	include/jobprep/port.h src/port.c \
	include/jobprep/i18n.h \
	include/jobprep/profile.h src/profile.c \
	include/jobprep/manifest.h src/manifest.c
# path: lexical paths (normalise, join, absolute, is normal, is under)
libjobprep_a_SOURCES += include/jobprep/path.h src/path.c
# units: sizes, rates and durations for people
libjobprep_a_SOURCES += include/jobprep/units.h src/units.c
# meter: a progress report's rate (smoothed), fraction done and time to go
libjobprep_a_SOURCES += include/jobprep/meter.h src/meter.c
# fs: mkdir -p with undo, rm -rf (no links, no mounts crossed), empty or not
libjobprep_a_SOURCES += include/jobprep/fs.h src/fs.c
# str: an owned string field set to a copy (a leaf: error codes only)
libjobprep_a_SOURCES += src/str.h src/str.c
# utf8: the one UTF-8 decoder and encoder
libjobprep_a_SOURCES += include/jobprep/utf8.h src/utf8.c
# buf: a growing text with a sticky failure
libjobprep_a_SOURCES += src/buf.h src/buf.c
# url: where a URL's user info (password, token) is, for every caller
libjobprep_a_SOURCES += include/jobprep/url.h src/url.c
# textquote: names made safe for a terminal (git's quote_path)
libjobprep_a_SOURCES += include/jobprep/textquote.h src/textquote.c
# input: opening a file a person named (never blocks on a FIFO; regular files only)
libjobprep_a_SOURCES += include/jobprep/input.h src/input.c
# manifest: more files appended below by their owners
libjobprep_a_SOURCES += src/valid.c src/manifest_read.c src/manifest_write.c \
	src/atomic_write.c src/schema.c \
	src/jsonstrict.h src/jsonstrict.c \
	include/jobprep/envsh.h src/envsh.c \
	include/jobprep/check.h src/check.c src/check_repo.c
# worker: long work on a worker thread (the wizard's clone and scans)
libjobprep_a_SOURCES += include/jobprep/worker.h src/worker.c
# deadlines for the bounded waits of worker.c, probe.c and scan.c
libjobprep_a_SOURCES += src/deadline_internal.h
# flow: the wizard's flow as data, the launch lint, sh splitting, the demo
libjobprep_a_SOURCES += include/jobprep/shellwords.h src/shellwords.c \
	include/jobprep/lint.h src/lint_internal.h src/lint.c src/lint_findings.c src/lint_vars.c \
	src/lint_rules.c src/lint_walk.c src/lint_stage.c \
	include/jobprep/flow.h src/flow_internal.h src/flow.c src/flow_fields.c \
	src/flow_defaults.c src/flow_validate.c src/flow_verdict.c src/flow_work.c src/flow_stage.c src/flow_finish.c \
	src/flow_copy.c src/flow_check.c \
	include/jobprep/demo.h src/demo.c
# git: clone onto shared storage, inspect a checkout, pin a launch-command clone
libjobprep_a_SOURCES += include/jobprep/git.h src/git_internal.h \
	src/git_global.c src/git_url.c src/git_op.c src/git_cred.c src/git_hostkey.c \
	src/git_run.c src/git_stream.c src/git_tmp.c src/git_target.c src/git_clone.c src/git_stage.c \
	src/git_inspect.c src/git_remote.c src/git_update.c src/git_cache.c src/git_pcheckout.c src/git_pstatus.c \
	src/treecopy.h src/treecopy_internal.h src/treecopy.c src/treecopy_file.c src/treecopy_stream.c \
	src/treecopy_stage.c src/treecopy_shard.c
# storage: mount table, path classes, bounded probes, data-set scans
libjobprep_a_SOURCES += src/mountinfo.h src/mountinfo.c \
	include/jobprep/pathclass.h src/pathclass.c \
	include/jobprep/probe.h src/probe.c src/probe_hung.c src/probe_child.c src/probe_file.c src/probe_internal.h \
	src/probe_watch.h src/probe_watch.c \
	include/jobprep/scan.h src/scan.c
# export: a manifest as a Slurm batch script or a Kubeflow PyTorchJob
libjobprep_a_SOURCES += include/jobprep/export.h src/export_internal.h src/export.c \
	src/export_slurm.c src/export_pytorchjob.c
# runs: where a run's files go (and whether a copy may replace what is there);
# the digest line that tells an unedited export from an edited file
libjobprep_a_SOURCES += src/flow_files.c src/export_stamp.c
# preflight: the run's preflight.sh every Worker runs before the launch command;
# its fixed part is src/preflight_body.sh, made into a C string here
libjobprep_a_SOURCES += include/jobprep/preflight.h src/preflight.c
nodist_libjobprep_a_SOURCES = src/preflight_body.h
# the runs prepared for a job (`jobprep runs`)
libjobprep_a_SOURCES += include/jobprep/runs.h src/runs.c
BUILT_SOURCES = src/preflight_body.h
# (BUILT_SOURCES is made for all/check/install only; `make jobprep` too)
src/libjobprep_a-preflight.$(OBJEXT): src/preflight_body.h
EXTRA_DIST += src/preflight_body.sh
CLEANFILES += src/preflight_body.h
src/preflight_body.h: $(srcdir)/src/preflight_body.sh
	$(AM_V_GEN)$(MKDIR_P) src && \
	sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' \
		$(srcdir)/src/preflight_body.sh > $@-t && mv -f $@-t $@
# stage: data onto shared storage before the job (copy, unpack, download)
libjobprep_a_SOURCES += include/jobprep/stage.h src/stage_internal.h src/stage.c src/stage_name.c \
	src/stage_archive.c src/stage_curl.c src/stage_http.c src/stage_pool.c src/stage_unpack.c \
	src/stage_http_ranges.c src/stage_slurm.c src/stage_within.c src/stage_where.c src/stage_bounded.c \
	src/stage_member.h src/stage_member.c src/stage_resume.h src/stage_resume.c
