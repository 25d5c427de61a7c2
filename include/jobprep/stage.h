/* Staging data onto shared storage before a job (issue 14): a directory or
 * a file on this machine is copied with parallel writers, incrementally
 * (what is already complete is skipped, nothing at the destination is
 * deleted), and no file ever appears half-made under its final name: every
 * one is written under a temporary name in its folder, flushed and renamed.
 * An interrupted run (a signal, kill -9, a full disk) is finished by the
 * next one, which skips the complete files and writes the rest again. */
#ifndef JOBPREP_STAGE_H
#define JOBPREP_STAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "jobprep/error.h"
#include "jobprep/pathclass.h"
#include "jobprep/profile.h"
#include "jobprep/port.h"
#include "jobprep/strv.h"

/* Parallel writers of a copy or an unpack. On network storage each file
 * is a few round trips (create, set its time, close): 64 in flight copied
 * 4,000 small files onto sshfs in 3.1-3.3 s where 16 took 4.5-4.9 s (and
 * on local ext4 0.87 s against 1.1-1.3 s), for the same peak memory. */
#define JP_STAGE_JOBS_DEFAULT 64
#define JP_STAGE_JOBS_MAX 64
/* A download's time bound (--timeout, as clone's): a server that does not
 * connect within it, or sends less than JP_STAGE_LOW_SPEED bytes a second
 * for that long (nothing at all, or a trickle), fails the download (what
 * was received is kept for the next run). */
#define JP_STAGE_TIMEOUT_DEFAULT 120
#define JP_STAGE_LOW_SPEED 1024

struct jp_stage_options {
	unsigned jobs; /* parallel writers; 0 = JP_STAGE_JOBS_DEFAULT */
	/* A file already at the destination is complete when its size and
	 * content (XXH3-64) match, not merely its size and mtime. */
	bool verify;
	/* A URL's download must have this SHA-256 (64 hex digits), else it
	 * is removed and JP_ECHECK; NULL = not checked. */
	const char *sha256;
	/* An archive (or a URL naming one) is copied as it is, not unpacked. */
	bool no_unpack;
	/* shards > 1: a directory source's shard `shard` (0 to shards-1) only,
	 * cut by bytes and files the same way in every run (treecopy.h);
	 * several shards may run at once, on several machines. */
	unsigned shard, shards;
	/* A download's Bearer token instead of $JOBPREP_HTTP_TOKEN ("" none;
	 * NULL: that variable): hf:// sends $HF_TOKEN this way. */
	const char *bearer;
	/* A URL's size when the caller knows it already (expect_known): a
	 * small one is fetched at once, without the HEAD that asks whether
	 * ranges would pay (hf:// knows each file's size from the Hub). */
	bool expect_known;
	uint64_t expect_size;
	/* A download's time bound in seconds (0: JP_STAGE_TIMEOUT_DEFAULT). */
	unsigned timeout_s;
	/* What a download leaves free on its filesystem (the profile's
	 * stage_reserve_bytes); when not has_reserve, 1% of it, at most
	 * 1 GiB. */
	uint64_t reserve_bytes;
	bool has_reserve;
};

#define JP_STAGE_OPTIONS_INIT { .jobs = 0 }

enum jp_stage_kind {
	JP_STAGE_DIR,  /* a directory tree */
	JP_STAGE_FILE, /* one regular file */
	JP_STAGE_ARCHIVE, /* an archive, unpacked */
	JP_STAGE_HUB,  /* a Hugging Face Hub repository, into its cache layout */
};

struct jp_stage_result {
	enum jp_stage_kind kind;
	char *dest;    /* where the data is now (a file source into a folder:
			  the folder/name), owned */
	uint64_t files, dirs, symlinks;
	uint64_t written, bytes_written;  /* files (and symlinks) written, bytes */
	uint64_t skipped, bytes_skipped;  /* already complete */
	/* a URL's (or a Hub's) bytes received by this run; an archive's
	 * download, apart from bytes_written (its unpacked data) */
	uint64_t bytes_downloaded;
	/* symlinks whose target leaves the tree: kept, listed (relative) */
	char **outside;
	size_t n_outside;
	/* what an archive's unpacking changed or left out, one line each
	 * (a device node skipped, a set-uid bit dropped) */
	char **notes;
	size_t n_notes;
	/* jp_stage_unpack_within: archives unpacked, and those found
	 * unpacked already (left as they are) */
	uint64_t archives, already;
	/* hf://: the commit staged (40 hex), owned; else NULL */
	char *revision;
};

#define JP_STAGE_RESULT_INIT { .kind = JP_STAGE_DIR }

/* Stage source onto dest. An archive (by its name: .tar, .tar.gz, .tgz,
 * .tar.zst, .tar.xz, .txz, .tar.bz2, .tbz2, .zip; through libarchive) is
 * unpacked into dest: into the folder ".jobprep-tmp-unpack-NAME" beside
 * dest first, flushed (syncfs), then renamed to dest when dest does not
 * exist, else moved into it file by file (each rename replaces one file
 * whole). A member named absolute or with "..", or reached through a
 * symlink member, refuses the whole archive (JP_EREFUSED, nothing written
 * outside that folder, which is removed); device nodes and FIFOs are left
 * out and set-uid/set-gid bits dropped, each with a note. A hard link
 * whose target is reached through a symlink (one already in dest too:
 * looked up with no symlink followed) refuses it too. Folders get the
 * archive's modes where it lists them, else a person's mkdir's (the
 * umask's); an existing dest keeps its own mode, times and owner. A name
 * held twice ends as its last member (GNU tar's rule). An unreadable or
 * truncated archive is JP_EARCHIVE. Members already
 * complete in dest (or in the unpack folder a killed run left) are not
 * written again. A directory becomes dest (created if missing,
 * else filled in: like `rsync -a SOURCE/ DEST/`); a file becomes dest/NAME
 * when dest is a folder (or ends in '/': made when missing), else dest
 * itself (its folder must exist). A URL's file there already with the size
 * and time (and the ETag it kept) the server gives is left as it is
 * (skipped), unless opts->verify. Progress (JP_PHASE_COPY: entries done of
 * total, bytes done of their total, rate) goes to port from the calling
 * thread; its progress returning < 0 or its
 * cancelled() cancels (JP_ECANCELED) with no temporary left. */
int jp_stage(struct jp_stage_result *out, const char *source, const char *dest,
	     const struct jp_stage_options *opts, const struct jp_port *port,
	     struct jp_error *err);
void jp_stage_result_dispose(struct jp_stage_result *res);

/* Where dest lives (stage_where.c), for a warning before staging there:
 * its class and the reason, in jp_path_classify's words (those `jobprep
 * scan` shows), looked at in bounded time (jp_probe_path) under profile.
 * 0 and *out filled (initialised by the caller, JP_PATH_INFO_INIT); 1 not
 * looked at, as the mount table puts dest on network storage (shared, by
 * all signs; a look at a hung mount would wait); < 0 the look failed or
 * timed out. */
int jp_stage_where(struct jp_path_info *out, const struct jp_profile *profile, const char *dest,
		   struct jp_error *err);

/* --- The archives a data set holds (stage_within.c) ----------------------
 * A data set on shared storage holding archives (train.tar, val.tar.gz)
 * would have the job unpack them while its GPUs wait. Each archive
 * jp_stage unpacks (by its name) is unpacked into the folder beside it
 * named after it (train.tar -> train/), the archive kept; one with that
 * folder beside it is unpacked already. */

/* The folder archive is unpacked into: its path without the suffix
 * ("/d/train.tar.gz" -> "/d/train"); NULL when it names no archive jp_stage
 * unpacks (or one with nothing before the suffix), or out of memory. The
 * caller frees it. */
char *jp_stage_beside(const char *archive);

struct jp_stage_packed {
	struct jp_strv archives; /* not unpacked yet, as reached from dir, sorted */
	uint64_t bytes;          /* their sizes */
	uint64_t unpacked;       /* archives found unpacked already */
	bool complete;           /* the whole tree was looked at */
};

#define JP_STAGE_PACKED_INIT { JP_STRV_INIT, 0, 0, false }

/* Unpack every archive under dir still to unpack into the folder beside
 * it, one jp_stage each (so each folder appears whole, a killed run's
 * unpack folder is gone on from, progress and cancel through port); out's
 * counts are the sums, out->archives how many were unpacked, out->already
 * how many were found unpacked, out->notes prefixed by their archive. */
int jp_stage_unpack_within(struct jp_stage_result *out, const char *dir,
			   const struct jp_stage_options *opts, const struct jp_port *port,
			   struct jp_error *err);

/* The script `jobprep stage --shards N --emit slurm` writes (stage_slurm.c):
 * run with sh, it submits a Slurm array of `shards` tasks, task i running
 * `EXE stage --shard i/N SOURCE DEST` (with opts' --jobs and --verify),
 * then a last job, once every task has succeeded (afterok), running
 * `EXE stage SOURCE DEST` over the whole: it checks every file (size and
 * mtime; content with --verify), writes whatever is missing and gives the
 * folders their times; it prints the two job ids. Its arguments go to
 * both sbatch calls. exe, source and dest absolute. *out is the caller's
 * (free). 0, JP_EUSAGE (a newline in a path), JP_ENOMEM. */
int jp_stage_slurm_script(char **out, const char *exe, const char *source, const char *dest,
			  unsigned shards, const struct jp_stage_options *opts,
			  struct jp_error *err);

#endif
