/* Shared by src/treecopy*.c and src/stage*.c only. */
#ifndef JOBPREP_TREECOPY_INTERNAL_H
#define JOBPREP_TREECOPY_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* ---- one file's bytes (treecopy_file.c, a leaf) ---- */

/* Copy one regular file src_at/src_name to a new dst_at/dst_name with mode
 * (bits the umask took back restored), through buf; count bytes, give up
 * when *stop (errno ECANCELED); fill *st_out (may be NULL) from the copy.
 * 0, or -1 with errno set. */
int jp_tc_copy_file(int src_at, const char *src_name, int dst_at, const char *dst_name,
		    mode_t mode, mode_t umask_bits, char *buf, size_t bufsz,
		    atomic_uint_fast64_t *bytes, atomic_bool *stop, struct stat *st_out);
/* The process umask, read without changing it. */
mode_t jp_tc_umask(void);

/* Copy in to out from where both stand, through buf; count bytes, give up
 * when *stop. 0, or an errno value (ECANCELED when *stop). */
int jp_tc_pump(int in, int out, char *buf, size_t bufsz, atomic_uint_fast64_t *bytes,
	       atomic_bool *stop);

/* ---- staging one entry (treecopy_stage.c) ---- */

/* What jp_tc_stage_entry did. */
enum jp_tc_staged { JP_TC_WRITTEN, JP_TC_SKIPPED };

/* How jp_tc_stage_entry writes (or-ed). */
enum {
	/* Straight under the final name, no temporary and no rename: the
	 * whole tree is itself a temporary (a folder renamed when whole). */
	JP_TC_INPLACE = 1,
	/* The folder was made empty by this run: nothing of this name (nor
	 * a temporary of it) can be there, so nothing is looked up first
	 * (each look-up is a round trip on network storage). */
	JP_TC_FRESH = 2,
	/* No fsync before the rename (network storage, where it is a round
	 * trip and close already waits for the server; or INPLACE, whose
	 * tree is flushed once, whole, before its rename). */
	JP_TC_NOSYNC = 4,
	/* FUSE: a file's attributes are taken from the look-up that finds
	 * it (statx AT_STATX_DONT_SYNC), not asked for again: with caching
	 * off each ask is one more round trip. */
	JP_TC_QUICKSTAT = 8,
};

/* Stage one regular file or symlink (sst: its lstat) from src_at/src_name
 * onto dst_at/dst_name (treecopy.h's `stage`): skipped when already there
 * (size + mtime, or with verify size + XXH3 content; a symlink: the same
 * target), else written as JP_TREECOPY_TMP_PREFIX + name (or a digest of
 * the name when that is too long), flushed, timed and renamed over; with
 * JP_TC_INPLACE under the name itself. A partial copy an interrupted run
 * left (the temporary, or with INPLACE the file itself), written after the
 * source last changed and whose chunk before the cut matches the source,
 * is continued from its size less one chunk (bufsz / 2), not from zero. The
 * temporary never outlives a failure or a cancel. buf holds bufsz >= 8 KiB.
 * 0 (*what says which), or -1 with errno set (ECANCELED when *stop). */
int jp_tc_stage_entry(int src_at, const char *src_name, const struct stat *sst, int dst_at,
		      const char *dst_name, bool verify, unsigned flags, mode_t umask_bits,
		      char *buf, size_t bufsz, atomic_uint_fast64_t *bytes, atomic_bool *stop,
		      enum jp_tc_staged *what);
/* Cut n files (their sizes and relative names) into shards balanced by
 * bytes and files; out[i]: the shard of file i, 0 to shards-1. The same
 * set of files gives the same cut, in any order (treecopy_shard.c).
 * 0, or -1 out of memory. */
int jp_tc_shard_plan(size_t n, const uint64_t *sizes, const char *const *names, unsigned shards,
		     unsigned *out);
/* Is the folder open at fd on a FUSE filesystem? */
bool jp_tc_on_fuse(int fd);
/* The same modification time, b read back from storage that may keep
 * whole seconds only (nanoseconds 0, as sshfs gives back). */
bool jp_tc_same_time(const struct timespec *a, const struct timespec *b);
/* Is the folder open at fd on network storage (or FUSE, which may be)? */
bool jp_tc_on_network(int fd);
/* A symlink at rel (relative to the tree's top) whose target leads outside
 * the tree, read lexically: absolute, or more ".." than rel is deep. */
bool jp_tc_link_leaves(const char *rel, const char *target);

#endif
