# Benchmarks: run by hand (`make bench`, or `make bench BENCH=scan`), never by
# `make check`. Each bench/bench_*.sh measures jobprep side by side with the
# tool a user would otherwise run and prints the ratio.
EXTRA_DIST += bench/README.md bench/lib.sh
bench_list =
EXTRA_DIST += $(bench_list)
# tui: startup to the first screen, key-to-echo during a clone (vs dialog)
bench_list += bench/bench_tui.sh
# scan: 500,000 files on local disk and 20,000 on uncached sshfs, vs du -s
bench_list += bench/bench_scan.sh
noinst_PROGRAMS += bench/mktree

# git: onto an sshfs mount and a large local clone, vs git clone and bare libgit2
bench_list += bench/bench_clone.sh
noinst_PROGRAMS += bench/git2clone
bench_git2clone_CFLAGS = $(AM_CFLAGS) $(LIBGIT2_CFLAGS)
bench_git2clone_LDADD = $(LIBGIT2_LIBS)

# lacks: the looks of code.repo.lfs and code.repo.submodules on a few thousand
# files, local and on uncached sshfs, vs git lfs ls-files + git submodule status
bench_list += bench/bench_lacks.sh
noinst_PROGRAMS += bench/lackslook
bench_lackslook_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src
bench_lackslook_CFLAGS = $(AM_CFLAGS) $(LIBGIT2_CFLAGS)
bench_lackslook_LDADD = $(CORE_LIBS)

# update: the same answers again, and one release tag to the next, vs git fetch && git checkout
bench_list += bench/bench_update.sh
# stage: a tree, a no-op re-run and an unpack onto uncached sshfs, vs rsync -a, cp -a, tar xzf
bench_list += bench/bench_stage.sh
# stage_http: a 1 GiB download resumed after kill -9; an unchanged archive re-run (one HEAD)
bench_list += bench/bench_stage_http.sh
# hf: stage hf:// vs curl of the same files; the code scan's cost in init
bench_list += bench/bench_hf.sh

bench: all
	@set -e; for b in $(bench_list); do \
	  case "$$b" in *"$(BENCH)"*) ;; *) continue ;; esac; \
	  echo "== $$b"; \
	  JOBPREP='$(abs_top_builddir)/jobprep' TOP_SRCDIR='$(abs_top_srcdir)' \
	  TOP_BUILDDIR='$(abs_top_builddir)' $(SHELL) '$(srcdir)'/$$b; \
	done
.PHONY: bench

# look: what one bounded look costs (a request to a kept helper process),
# beside the stat(2) it bounds and a fork per look, on local disk and on
# uncached sshfs; the wizard's key echo while a stage runs
bench_list += bench/bench_look.sh
noinst_PROGRAMS += bench/lookcost
bench_lookcost_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src
bench_lookcost_LDADD = $(CORE_LIBS)

# preflight: the run's preflight.sh on healthy storage (rank 0, a data set of
# 5,000 files counted), under dash, bash and busybox sh; goal under 1 s
bench_list += bench/bench_preflight.sh
# runcode: what a run's own read-only copy of its code costs (the first, the
# same commit again, the next release), vs a fresh git clone of the repository
bench_list += bench/bench_runcode.sh
noinst_PROGRAMS += bench/runtreecost
bench_runtreecost_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src
bench_runtreecost_LDADD = $(CORE_LIBS)
