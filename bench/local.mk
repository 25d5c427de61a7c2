# Benchmarks: run by hand (`make bench`), never by `make check`.
EXTRA_DIST += bench/README.md
