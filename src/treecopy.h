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
	unsigned threads;  /* parallel writers; 0 = JP_STAGE_JOBS_DEFAULT (64), at most JP_STAGE_JOBS_MAX */
	bool record_stats; /* keep each copied file's stat (for an index refresh) */
	/* Relative paths (files or whole directories) not to copy; NULL-
	 * terminated, borrowed; NULL = none. */
	const char *const *skip;
	/* Files whose name ends so are not copied either (e.g. ".lock", for
	 * a .git still in use); NULL = none. */
	const char *skip_suffix;
	/* dst exists already (an earlier copy filled part of it): directories
	 * already there are fine. */
	bool dst_exists;
	/* Files (and symlinks) already copied, sorted by path, e.g. by a
	 * stream: not copied again. Borrowed; NULL = none. */
	const struct jp_treecopy_result *done;
	/* Staging (jobprep stage): dst may exist and nothing in it is removed.
	 * A file already there with the source's size and mtime (with verify:
	 * its size and content, XXH3-64) is skipped. A dst not there yet is
	 * written whole into ".jobprep-tmp-stage-NAME" beside it (files under
	 * their own names), flushed (syncfs) and renamed to dst at the end;
	 * into an existing dst every other file is written as
	 * ".jobprep-tmp-NAME" in its own folder, flushed (fsync, not on
	 * network storage), given the source's mtime, then renamed over NAME.
	 * So no file is ever half-made under its final name; a partial copy
	 * an interrupted run left is continued when it can be trusted
	 * (treecopy_internal.h). Directories get their mtimes back;
	 * symlinks leaving the tree are kept and listed in the result. */
	bool stage;
	bool verify;
	/* With stage and shards > 1: only the files (and symlinks) of shard
	 * `shard` (0 to shards-1) of a cut balanced by bytes and files, the
	 * same in every run over the same tree; every folder is made. Several
	 * shards may run at once into one dst: each file goes through its own
	 * temporary (no whole-tree temporary). */
	unsigned shard, shards;
};

#define JP_TREECOPY_OPTIONS_INIT { .threads = 0 }

/* The temporary name a staged file is written under, in its folder. */
#define JP_TREECOPY_TMP_PREFIX ".jobprep-tmp-"

struct jp_treecopy_file {
	char *path;       /* relative to the tree's top, owned */
	struct stat st;   /* of the copy, taken after writing */
};

struct jp_treecopy_result {
	uint64_t files, dirs, symlinks, bytes;
	/* With record_stats: every file and symlink, sorted by path (strcmp). */
	struct jp_treecopy_file *copied;
	size_t n_copied;
	/* With stage: files and symlinks already complete (not rewritten),
	 * their bytes, and the symlinks whose target leaves the tree
	 * (relative paths, sorted; kept as they are). */
	uint64_t skipped, skipped_bytes;
	char **outside;
	size_t n_outside;
};

#define JP_TREECOPY_RESULT_INIT { .files = 0 }

/* Copy the tree at src to dst, which must not exist unless dst_exists (it
 * is created with src's mode). Progress (JP_PHASE_COPY: files done of total, bytes) goes to
 * port from the calling thread, which also sees the cancel. On failure or
 * cancel, dst may hold part of the tree: the caller removes it. Fills *out
 * (may be NULL); dispose with jp_treecopy_result_dispose. */
int jp_treecopy(struct jp_treecopy_result *out, const char *src, const char *dst,
		const struct jp_treecopy_options *opts, const struct jp_port *port,
		struct jp_error *err);
void jp_treecopy_result_dispose(struct jp_treecopy_result *res);

/* Streaming: copy files from src to dst as they are named, while whatever
 * makes them (a checkout) is still running; then jp_treecopy with `done`
 * copies the rest. Not cancellable by a port: abort it. */
struct jp_treecopy_stream;

/* Start `threads` writers (0 = 16); dst is created if missing. *out is the
 * caller's: end it with _finish or _abort. */
int jp_treecopy_stream_start(struct jp_treecopy_stream **out, const char *src, const char *dst,
			     unsigned threads, struct jp_error *err);
/* Queue a path relative to src (a finished file, symlink or directory);
 * its directories are made as needed. Never waits for I/O. 0 or JP_ENOMEM. */
int jp_treecopy_stream_add(struct jp_treecopy_stream *s, const char *rel);
/* Wait for everything queued; *out lists what was copied (files and
 * symlinks, sorted, with the copies' stat). Frees s. */
int jp_treecopy_stream_finish(struct jp_treecopy_stream *s, struct jp_treecopy_result *out,
			      struct jp_error *err);
/* Stop now (what was written stays for the caller to remove); frees s. */
void jp_treecopy_stream_abort(struct jp_treecopy_stream *s);

/* Remove the tree at path with parallel workers (rm -rf that never follows
 * symlinks); for trees on network storage. 0 or JP_EIO. */
int jp_treecopy_remove(const char *path, unsigned threads, struct jp_error *err);

#endif
