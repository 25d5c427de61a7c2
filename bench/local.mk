# Benchmarks: run by hand (`make bench`, or `make bench BENCH=scan`), never by
# `make check`. Each bench/bench_*.sh measures jobprep side by side with the
# tool a user would otherwise run and prints the ratio.
EXTRA_DIST += bench/README.md
bench_list =
EXTRA_DIST += $(bench_list)
# tui: startup to the first screen, key-to-echo during a clone (vs dialog)
bench_list += bench/bench_tui.sh

bench: all
	@set -e; for b in $(bench_list); do \
	  case "$$b" in *"$(BENCH)"*) ;; *) continue ;; esac; \
	  echo "== $$b"; \
	  JOBPREP='$(abs_top_builddir)/jobprep' TOP_SRCDIR='$(abs_top_srcdir)' \
	  TOP_BUILDDIR='$(abs_top_builddir)' $(SHELL) '$(srcdir)'/$$b; \
	done
.PHONY: bench
