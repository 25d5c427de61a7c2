/* Copying a finished directory tree onto shared storage with parallel
 * writers. On a network filesystem every create is a round trip; many in
 * flight at once hide the latency that makes `git clone` or `cp -r` slow
 * there. Modes and symlinks are kept, and nothing is skipped (a .git
 * directory is copied like any other). */
#ifndef JOBPREP_TREECOPY_H
#define JOBPREP_TREECOPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "jobprep/error.h"
#include "jobprep/port.h"

struct jp_treecopy_options {
	unsigned threads;  /* parallel writers; 0 = 16, at most 64 */
	bool record_stats; /* keep each copied file's stat (for an index refresh) */
	/* Relative paths (files or whole directories) not to copy; NULL-
	 * terminated, borrowed; NULL = none. */
	const char *const *skip;
	/* dst exists already (an earlier copy filled part of it): directories
	 * already there are fine. */
	bool dst_exists;
};

#define JP_TREECOPY_OPTIONS_INIT { 0, false, NULL, false }

struct jp_treecopy_file {
	char *path;       /* relative to the tree's top, owned */
	struct stat st;   /* of the copy, taken after writing */
};

struct jp_treecopy_result {
	uint64_t files, dirs, symlinks, bytes;
	/* With record_stats: every regular file, sorted by path (strcmp). */
	struct jp_treecopy_file *copied;
	size_t n_copied;
};

#define JP_TREECOPY_RESULT_INIT { 0, 0, 0, 0, NULL, 0 }

/* Copy the tree at src to dst, which must not exist unless dst_exists (it
 * is created with src's mode). Progress (JP_PHASE_COPY: files done of total, bytes) goes to
 * port from the calling thread, which also sees the cancel. On failure or
 * cancel, dst may hold part of the tree: the caller removes it. Fills *out
 * (may be NULL); dispose with jp_treecopy_result_dispose. */
int jp_treecopy(struct jp_treecopy_result *out, const char *src, const char *dst,
		const struct jp_treecopy_options *opts, const struct jp_port *port,
		struct jp_error *err);
void jp_treecopy_result_dispose(struct jp_treecopy_result *res);

/* Remove the tree at path with parallel workers (rm -rf that never follows
 * symlinks); for trees on network storage. 0 or JP_EIO. */
int jp_treecopy_remove(const char *path, unsigned threads, struct jp_error *err);

#endif
