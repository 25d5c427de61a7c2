/* Probes: does a path exist, can the job list it, write to it, and how much
 * room is left, answered in bounded time.
 *
 * A probe runs in a helper process (jobprep started again); when it does
 * not answer within the timeout (a hung network mount), jp_probe_path
 * returns JP_ETIMEOUT and leaves the helper behind, killed, to end when the
 * mount answers; that mount counts as hung until then. */
#ifndef JOBPREP_PROBE_H
#define JOBPREP_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "jobprep/error.h"
#include "jobprep/pathclass.h"
#include "jobprep/profile.h"

enum jp_probe_flags {
	/* Create, write (4 KiB), fsync and remove a probe file, in the path or,
	 * when it does not exist yet, in its nearest existing ancestor:
	 * access(2) misses read-only exports, root squash, ACLs and quotas. */
	JP_PROBE_WRITE = 1 << 0,
	/* Also classify the path (jp_path_classify) on the probe's thread. */
	JP_PROBE_CLASSIFY = 1 << 1,
};

#define JP_PROBE_DEFAULT_TIMEOUT_MS 5000

struct jp_probe_opts {
	unsigned flags;      /* JP_PROBE_* */
	unsigned timeout_ms; /* 0: $JOBPREP_PROBE_TIMEOUT_MS, else the default */
};

#define JP_PROBE_OPTS_INIT { 0, 0 }

/* Strings owned; release with jp_probe_result_dispose. */
struct jp_probe_result {
	bool exists;        /* the path exists (symlinks followed) */
	bool is_dir;
	bool readable;      /* a directory could be listed, a file read */
	bool write_tested;  /* JP_PROBE_WRITE ran */
	bool writable;      /* the probe file was written, synced and removed */
	int exists_errno;   /* why stat failed (0 when it exists) */
	int read_errno;     /* why listing or reading failed */
	int write_errno;    /* why the probe file failed */
	char *write_dir;    /* where the probe file was written, NULL if not tested */
	bool has_space;     /* statvfs answered (for write_dir or the path) */
	uint64_t free_bytes;   /* available to unprivileged users */
	uint64_t total_bytes;
	uint64_t free_inodes;  /* available to unprivileged users */
	uint64_t total_inodes;
	struct jp_path_info info; /* filled with JP_PROBE_CLASSIFY */
};

#define JP_PROBE_RESULT_INIT { .exists = false, .info = JP_PATH_INFO_INIT }

/* Probe `path` within opts->timeout_ms (opts may be NULL). `profile` is
 * needed only with JP_PROBE_CLASSIFY (copied; may be NULL). `out` must be
 * initialised (JP_PROBE_RESULT_INIT); it is overwritten. Returns 0 when the
 * probe ran (the booleans say what it found), JP_ETIMEOUT when it did not
 * answer in time, or another negative code. */
int jp_probe_path(struct jp_probe_result *out, const struct jp_profile *profile,
		  const char *path, const struct jp_probe_opts *opts, struct jp_error *err);
void jp_probe_result_dispose(struct jp_probe_result *r);

/* For looks a person waits on at the keyboard (the wizard's defaults,
 * checks, completion, browser): 1.5 s, or JOBPREP_PROBE_TIMEOUT_MS when
 * set (whoever set it knows their mounts: shorter, or longer under
 * valgrind, where each helper is a slow process). */
#define JP_PROBE_INTERACTIVE_MS 1500
unsigned jp_probe_interactive_timeout_ms(void);

/* --- any filesystem call on a user path, in bounded time ----------------------
 *
 * Every stat, open or listing of a path a person gave (check, lint, scan,
 * the wizard) goes through here, so a hung network mount costs a timeout,
 * never a process stuck in the kernel. The call runs in a helper process
 * (jobprep itself, started again: src/helper.c); when it does not answer in
 * time, the helper is killed and left to the mount, and while it is stuck
 * there a look at a path on the same mount fails at once with JP_ETIMEOUT,
 * so a hung mount costs one timeout, not one per path. */

/* One entry of a listing: its name, and whether it is a directory (a link
 * to one counts). */
struct jp_probe_entry {
	char *name;
	bool is_dir;
};

struct jp_probe_listing {
	struct jp_probe_entry *v; /* in the order the directory gave them */
	size_t n;
	int errnum; /* why the directory could not be opened (0: it could) */
};

#define JP_PROBE_LISTING_INIT { NULL, 0, 0 }
#define JP_PROBE_LIST_DIRS (1u << 0)   /* directories only */
#define JP_PROBE_LIST_HIDDEN (1u << 1) /* names starting with '.' too */

/* The entries of dir whose names start with prefix (NULL or "": all), but
 * "." and "..", in bounded time (timeout_ms 0: the default). Returns 0 when
 * it answered (out->errnum says whether dir could be read); JP_ETIMEOUT
 * ("DIR: no answer within N s") when it did not. *out is the caller's:
 * jp_probe_listing_dispose. */
int jp_probe_list(struct jp_probe_listing *out, const char *dir, const char *prefix,
		  unsigned flags, unsigned timeout_ms, struct jp_error *err);
void jp_probe_listing_dispose(struct jp_probe_listing *l);

#define JP_PROBE_NOFOLLOW (1u << 0) /* jp_probe_stat: lstat(2) */

struct stat;
/* stat(2) (lstat(2) with JP_PROBE_NOFOLLOW) in bounded time. Returns 0 when
 * it answered: *errnum is 0 and *out (may be NULL) filled, or *errnum is
 * why it failed; JP_ETIMEOUT when it did not answer in time. */
int jp_probe_stat(struct stat *out, int *errnum, const char *path, unsigned flags,
		  unsigned timeout_ms, struct jp_error *err);

#endif
