# The core library: no terminal, no printing, no exit.
noinst_LIBRARIES += libjobprep.a
libjobprep_a_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS) $(LIBGIT2_CFLAGS) $(XXHASH_CFLAGS) \
	$(LIBARCHIVE_CFLAGS) $(LIBCURL_CFLAGS) $(LIBCRYPTO_CFLAGS) $(LIBMOUNT_CFLAGS)
# One group a subsystem, named by its files' prefix: src/NAME.c, src/NAME_*.c,
# their headers (include/jobprep/NAME.h, src/NAME*.h). A file goes into the
# group its name starts with; a new subsystem is a new group.
# the core's contracts: the codes and struct jp_error, lists of strings, the
# port to a person (progress, questions, cancelling), gettext's _()
libjobprep_a_SOURCES = \
	include/jobprep/error.h src/error_internal.h src/error.c \
	include/jobprep/strv.h src/strv_internal.h src/strv.c \
	include/jobprep/port.h src/port_internal.h src/port.c \
	include/jobprep/i18n.h
# leaf helpers, one file each (HACKING.md: look here before writing one)
# path: lexical paths (normalise, join, absolute, is normal, is under)
libjobprep_a_SOURCES += include/jobprep/path.h src/path_internal.h src/path.c
# units: sizes, rates and durations for people
libjobprep_a_SOURCES += include/jobprep/units.h src/units.c
# meter: a progress report's rate (smoothed), fraction done and time to go
libjobprep_a_SOURCES += include/jobprep/meter.h src/meter_internal.h src/meter.c
# fs: mkdir -p with undo, rm -rf (no links, no mounts crossed), empty or not
libjobprep_a_SOURCES += include/jobprep/fs.h src/fs_internal.h src/fs.c
# fs_beneath: a path opened under a folder, no symlink followed (openat2)
libjobprep_a_SOURCES += src/fs_beneath.c
# str: an owned string field set to a copy (a leaf: error codes only)
libjobprep_a_SOURCES += src/str.h src/str.c
# utf8: the one UTF-8 decoder and encoder
libjobprep_a_SOURCES += include/jobprep/utf8.h src/utf8.c
# buf: a growing text with a sticky failure
libjobprep_a_SOURCES += src/buf.h src/buf.c
# url: where a URL's user info (password, token) is, for every caller
libjobprep_a_SOURCES += include/jobprep/url.h src/url_internal.h src/url.c
# "did you mean": the nearest known name (commands, answers and profile fields)
libjobprep_a_SOURCES += include/jobprep/suggest.h src/suggest_internal.h src/suggest.c
# textquote: names made safe for a terminal (git's quote_path)
libjobprep_a_SOURCES += include/jobprep/textquote.h src/textquote.c
# input: opening a file a person named (never blocks on a FIFO; regular files only)
libjobprep_a_SOURCES += include/jobprep/input.h src/input_internal.h src/input.c
# shellwords: sh splitting and quoting
libjobprep_a_SOURCES += include/jobprep/shellwords.h src/shellwords_internal.h src/shellwords.c
# atomic_write: a file replaced whole: readers see the old or the new, never a mix
libjobprep_a_SOURCES += src/atomic_write.c
# deadline: time for the bounded waits of worker.c, probe.c, scan.c and git_stream.c
libjobprep_a_SOURCES += src/deadline_internal.h
# profile: the platform profile: its storage roots, the default places
libjobprep_a_SOURCES += include/jobprep/profile.h src/profile_internal.h src/profile.c
# manifest: the job's JSON file, read and written (more files appended below by their owners)
libjobprep_a_SOURCES += include/jobprep/manifest.h src/manifest_internal.h src/manifest.c \
	src/manifest_read.c src/manifest_write.c
# valid: the small validators the manifest, the flow and the UI share
libjobprep_a_SOURCES += src/valid.c
# schema: the manifest's JSON Schema (`jobprep schema`)
libjobprep_a_SOURCES += src/schema.c
# jsonstrict: strict JSON (UTF-8, no duplicate keys, no lone surrogates)
libjobprep_a_SOURCES += src/jsonstrict.h src/jsonstrict.c
# envsh: a manifest's environment as POSIX sh export lines (env.sh)
libjobprep_a_SOURCES += include/jobprep/envsh.h src/envsh_internal.h src/envsh.c
# check: a manifest's paths and its checkout judged (`jobprep check`)
libjobprep_a_SOURCES += include/jobprep/check.h src/check_internal.h src/check.c src/check_repo.c
# (and the job's runtime as this machine sees it: python3's modules, /dev/shm, interfaces)
libjobprep_a_SOURCES += src/check_runtime.c
# worker: long work on a worker thread (the wizard's clone and scans)
libjobprep_a_SOURCES += include/jobprep/worker.h src/worker_internal.h src/worker.c
# lint: the launch command's lint
libjobprep_a_SOURCES += include/jobprep/lint.h src/lint_internal.h src/lint.c src/lint_findings.c \
	src/lint_vars.c src/lint_rules.c src/lint_walk.c src/lint_stage.c \
	src/lint_files.c src/lint_script.c src/lint_counts.c src/lint_config.c
# flow: the wizard's flow as data; where a run's files go (flow_files.c)
libjobprep_a_SOURCES += include/jobprep/flow.h src/flow_internal.h src/flow.c src/flow_fields.c \
	src/flow_defaults.c src/flow_validate.c src/flow_verdict.c src/flow_work.c src/flow_stage.c \
	src/flow_finish.c src/flow_copy.c src/flow_check.c src/flow_files.c
# demo: the --demo sandbox, a tiny platform in a folder
libjobprep_a_SOURCES += include/jobprep/demo.h src/demo.c
# git: clone onto shared storage, inspect a checkout, pin a launch-command clone
libjobprep_a_SOURCES += include/jobprep/git.h src/git_internal.h \
	src/git_global.c src/git_url.c src/git_op.c src/git_cred.c src/git_hostkey.c \
	src/git_run.c src/git_stream.c src/git_ssh.c src/git_tmp.c src/git_target.c src/git_clone.c src/git_stage.c \
	src/git_inspect.c src/git_lacks.c src/git_lfs.c src/git_remote.c src/git_update.c src/git_cache.c src/git_pcheckout.c src/git_pstatus.c
# treecopy: the parallel tree copy (a clone's last copy, a data set's stage)
libjobprep_a_SOURCES += src/treecopy.h src/treecopy_internal.h src/treecopy.c src/treecopy_file.c \
	src/treecopy_stream.c src/treecopy_stage.c src/treecopy_shard.c
# storage: the mount table (mountinfo), what a path is on (pathclass), bounded
# looks at paths that may hang (probe), data-set scans (scan)
libjobprep_a_SOURCES += src/mountinfo.h src/mountinfo.c
libjobprep_a_SOURCES += include/jobprep/pathclass.h src/pathclass_internal.h src/pathclass.c
libjobprep_a_SOURCES += include/jobprep/probe.h src/probe.c src/probe_hung.c src/probe_child.c \
	src/probe_file.c src/probe_list.c src/probe_internal.h \
	src/helper.c src/helper_port.c src/helper_internal.h src/spawn.c src/spawn_internal.h \
	src/wire.c src/wire_internal.h
libjobprep_a_SOURCES += include/jobprep/scan.h src/scan_internal.h src/scan.c src/scan_bounded.c
# export: a manifest as a Slurm batch script or a Kubeflow PyTorchJob; the
# digest line that tells an unedited export from an edited file (export_stamp.c)
libjobprep_a_SOURCES += include/jobprep/export.h src/export_internal.h src/export.c \
	src/export_slurm.c src/export_pytorchjob.c src/export_stamp.c
# preflight: the run's preflight.sh every Worker runs before the launch command;
# its fixed part is src/preflight_body.sh, made into a C string here
libjobprep_a_SOURCES += include/jobprep/preflight.h src/preflight_internal.h src/preflight.c
nodist_libjobprep_a_SOURCES = src/preflight_body.h src/preflight_runtime.h
# runs: the runs prepared for a job (`jobprep runs`)
libjobprep_a_SOURCES += include/jobprep/runs.h src/runs.c
# resuming from the last run: the lint's look for a resume, the earlier runs'
# checkpoints judged, job.resume_from in the flow
libjobprep_a_SOURCES += src/lint_resume.c src/resume.c src/resume_internal.h
libjobprep_a_SOURCES += src/flow_resume.c src/flow_resume_in.c
libjobprep_a_SOURCES += include/jobprep/jobindex.h src/jobindex_internal.h src/jobindex.c
BUILT_SOURCES = src/preflight_body.h src/preflight_runtime.h
# (BUILT_SOURCES is made for all/check/install only; `make jobprep` too)
src/libjobprep_a-preflight.$(OBJEXT): src/preflight_body.h src/preflight_runtime.h
EXTRA_DIST += src/preflight_body.sh
CLEANFILES += src/preflight_body.h
src/preflight_body.h: $(srcdir)/src/preflight_body.sh
	$(AM_V_GEN)$(MKDIR_P) src && \
	sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' \
		$(srcdir)/src/preflight_body.sh > $@-t && mv -f $@-t $@
# the job's runtime checks (preflight_runtime.sh), made the same way
EXTRA_DIST += src/preflight_runtime.sh
CLEANFILES += src/preflight_runtime.h
src/preflight_runtime.h: $(srcdir)/src/preflight_runtime.sh
	$(AM_V_GEN)$(MKDIR_P) src && \
	sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' \
		$(srcdir)/src/preflight_runtime.sh > $@-t && mv -f $@-t $@
# the launch lint's look at the Python code for Hub downloads at start (a light
# reader of Python source)
libjobprep_a_SOURCES += src/lint_hub.c src/pyscan.h src/pyscan.c src/pyscan_stdlib.c src/lint_uses.c
# stage: data onto shared storage before the job (copy, unpack, download)
libjobprep_a_SOURCES += include/jobprep/stage.h src/stage_internal.h src/stage.c src/stage_name.c \
	src/stage_archive.c src/stage_curl.c src/stage_http.c src/stage_pool.c src/stage_unpack.c \
	src/stage_http_ranges.c src/stage_slurm.c src/stage_within.c src/stage_beside.c src/stage_where.c src/stage_bounded.c \
	src/stage_member.h src/stage_member.c src/stage_resume.h src/stage_resume.c \
	src/stage_hf.h src/stage_hf.c src/stage_hf_cache.c \
	src/stage_mark.h src/stage_mark.c
# runtree: each run's own read-only copy of its code, beside the project
libjobprep_a_SOURCES += src/runtree_internal.h src/git_runtree.c src/flow_runcode.c
