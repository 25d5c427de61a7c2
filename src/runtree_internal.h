/* A run's code (src/git_runtree.c): a read-only tree of exactly one commit,
 * plus the uncommitted changes the prep included, made beside the project
 * and never changed after, so a queued or restarted run runs the code its
 * manifest records whatever later preps do to the live checkout. */
#ifndef JOBPREP_RUNTREE_INTERNAL_H
#define JOBPREP_RUNTREE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "jobprep/error.h"
#include "jobprep/strv.h"

/* The stamp at the top of every run tree: "jobprep-tree 1", "commit HEX",
 * "changes DIGEST" ("-" for none), then "changed PATH" lines. */
#define JP_RUNTREE_STAMP ".jobprep-tree"
/* Beside the project P: dirname(P)/.jobprep-trees/basename(P)/KEY. */
#define JP_RUNTREE_DIR ".jobprep-trees"

struct jp_runtree {
	char *path;             /* the tree's folder */
	char *checkout;         /* the live checkout it was made from */
	char commit[41];        /* the commit it holds */
	char digest[65];        /* SHA-256 of the included changes; "" when none */
	struct jp_strv changed; /* the paths the changes touch, sorted */
	bool reused;            /* it was there already: nothing written */
	size_t files;           /* files in it */
	size_t linked;          /* ... hard links to the tree made before */
	uint64_t written;       /* bytes written for it */
	size_t untracked;       /* links made to the checkout's untracked and
				 * ignored files and folders */
};

#define JP_RUNTREE_INIT { .path = NULL, .checkout = NULL, .commit = "", .digest = "" }

/* Make (or find made already) the run tree of the checkout at `checkout`:
 * its HEAD commit, and, when `changes` is true (false: the caller knows it
 * clean), its uncommitted changes to
 * tracked files (the exec bits jobprep set on exec_pattern's files, NULL =
 * JP_GIT_EXEC_DEFAULT, are not changes). Written into a temporary beside
 * the trees, then renamed into place; a file whose blob and mode are those
 * of the tree made last is a hard link to it. The checkout's untracked
 * and ignored files and folders (data, outputs: no code) are symbolic
 * links to the checkout's where the tree has nothing there, also in a tree
 * that was made already. With parallel (above all
 * for network storage, where each file operation is a round trip), the links, the blobs
 * (jp_git_pcheckout) and the chmods are made by many threads at once, for
 * a tree no filter applies to and without submodules. Returns 0, JP_ENOENT (not a
 * git checkout, or no commit yet), JP_EIO, JP_ENOSPC, JP_ENOMEM, JP_EGIT. */
int jp_runtree_make(struct jp_runtree *out, const char *checkout, bool changes,
		    const char *exec_pattern, bool parallel, struct jp_error *err);
void jp_runtree_dispose(struct jp_runtree *t);

/* The stamp of the tree at dir: commit (41 bytes) and digest (65 bytes,
 * "" for none). 0, or -1 when there is none or it is not one. */
int jp_runtree_stamp_read(char *commit, char *digest, const char *dir);

#endif
