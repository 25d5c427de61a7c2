/* Data-set scans: how many files and bytes, and what would trouble a job
 * (unreadable entries, symlinks leaving the tree, archives to unpack).
 *
 * Two modes. A full scan walks everything with many threads (on network
 * storage the work is waiting, not CPU), in memory that does not grow with
 * the number of files. A quick look answers in bounded time whatever the
 * size: the top-level listing, then as much of the tree, breadth first, as
 * its budget allows.
 *
 * Like ncdu's scanner, jp_scan reports through callbacks: progress through
 * the port (from the calling thread, several times a second), notable
 * entries through a struct jp_scan_output. */
#ifndef JOBPREP_SCAN_H
#define JOBPREP_SCAN_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "jobprep/error.h"
#include "jobprep/manifest.h"
#include "jobprep/port.h"

enum jp_scan_mode {
	JP_SCAN_FULL = 0,
	JP_SCAN_QUICK,
};

struct jp_scan_opts {
	enum jp_scan_mode mode;
	unsigned threads;       /* 0: automatic (many on network storage) */
	unsigned progress_ms;   /* between progress calls; 0: 200 */
	unsigned quick_ms;      /* a quick look's time budget; 0: 150 */
	uint64_t quick_entries; /* a quick look's entry budget; 0: 50000 */
	/* Set to non-zero (from any thread, or a signal handler) to cancel.
	 * May be NULL. jp_scan returns within about 100 ms of a cancel (or of
	 * a quick look's budget), even on a hung mount: every file-system call
	 * runs in a helper process (the walk on its threads), and one stuck
	 * there is given up and left behind, touching nothing of the
	 * caller's. */
	atomic_int *cancel;
};

#define JP_SCAN_OPTS_INIT { .mode = JP_SCAN_FULL }

struct jp_scan_result {
	/* The manifest's names: regular files, their apparent size (st_size,
	 * the bytes a job reads; hard links counted per name), archives. */
	struct jp_data_stats stats;
	uint64_t dirs;             /* directories, the top one included */
	uint64_t symlinks;         /* not followed */
	uint64_t symlinks_outside; /* resolving outside the scanned tree */
	uint64_t symlinks_dangling;/* pointing at nothing */
	uint64_t unreadable;       /* directories that cannot be listed, entries
				      that cannot be examined, files whose
				      permission bits deny reading */
	uint64_t others;           /* fifos, sockets, devices */
	uint64_t archive_bytes;
	uint64_t top_entries;      /* entries directly in the scanned directory */
	/* Entries named ".jobprep-tmp-*": the temporaries of a stage (or a
	 * clone) still running, or killed half-way. */
	uint64_t temporaries;
	/* The files' median size, to within a fifth (counted in buckets, four
	 * per power of two: the smallest size of the median's bucket), and how
	 * many are smaller than JP_SCAN_SMALL_BYTES (exact). */
	uint64_t median_bytes;
	uint64_t small_files;
	bool complete;             /* every entry was counted; false after a
				      quick look that ran out of budget or a
				      cancelled scan (counts are then lower bounds) */
	unsigned threads;          /* threads used */
	double seconds;            /* wall time */
};

enum jp_scan_item_kind {
	JP_SCAN_ITEM_UNREADABLE = 0,
	JP_SCAN_ITEM_ARCHIVE,
	JP_SCAN_ITEM_LINK_OUTSIDE,
	JP_SCAN_ITEM_LINK_DANGLING,
	JP_SCAN_ITEM_TEMPORARY, /* a ".jobprep-tmp-*" entry (file or folder) */
};

/* A "small" file, for jp_scan_result.small_files: below 64 KiB. */
#define JP_SCAN_SMALL_BYTES (64ULL * 1024)

/* A notable entry. Strings are borrowed for the duration of the call. */
struct jp_scan_item {
	enum jp_scan_item_kind kind;
	const char *path;   /* as reached from the path given to jp_scan */
	const char *target; /* LINK_OUTSIDE: where it resolves; else NULL */
	uint64_t size;      /* ARCHIVE: its size */
	int errnum;         /* UNREADABLE: the errno (EACCES when the
			       permission bits deny reading) */
	/* ARCHIVE: 1 when the folder it unpacks into is beside it (jobprep
	 * stage --unpack-archives made it), 0 when not, -1 not looked at
	 * (after the scan's first JP_SCAN_UNPACKED_LOOKUPS archives). The look
	 * is the scan's, in bounded time. */
	int unpacked;
};

#define JP_SCAN_UNPACKED_LOOKUPS 1000

struct jp_scan_output {
	/* Called once per notable entry, on the thread that called jp_scan
	 * (the walk runs in a helper process) or, inside a helper, on the
	 * scan's threads, never two at once. Return < 0 to cancel the scan.
	 * May be NULL. */
	int (*item)(const struct jp_scan_item *item, void *payload);
	void *payload;
};

#define JP_SCAN_OUTPUT_INIT { NULL, NULL }

/* Scan `path` (a directory, or a single file). opts, output and port may be
 * NULL. *out is always filled with what was counted. Returns 0 (also when a
 * quick look ran out of budget: see out->complete), JP_ECANCELED when
 * cancelled through opts->cancel, a progress or an item callback, JP_ENOENT
 * when path does not exist, or another negative code. */
int jp_scan(struct jp_scan_result *out, const char *path, const struct jp_scan_opts *opts,
	    const struct jp_scan_output *output, const struct jp_port *port,
	    struct jp_error *err);

#endif
