/* Probes: does a path exist, can the job list it, write to it, and how much
 * room is left, answered in bounded time.
 *
 * A probe runs on its own thread; when it does not answer within the timeout
 * (a hung network mount), jp_probe_path returns JP_ETIMEOUT and leaves the
 * thread behind, detached, holding only its own copies. */
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
 * valgrind, where each look is a fork of a slow process). */
#define JP_PROBE_INTERACTIVE_MS 1500
unsigned jp_probe_interactive_timeout_ms(void);

/* --- any filesystem call on a user path, in bounded time ----------------------
 *
 * Every stat, open or listing of a path a person gave (check, lint, scan,
 * the wizard) goes through here, so a hung network mount costs a timeout,
 * never a process stuck in the kernel. The call runs on a thread of its own;
 * when it does not answer in time, the thread is left behind, detached, and
 * frees what it holds when (if ever) the call returns. */

/* A call for jp_probe_call: it reads and writes only `arg`. */
typedef void (*jp_probe_fn)(void *arg);

/* Run fn(arg) on its own thread and wait at most timeout_ms for it (0:
 * jp_probe_default_timeout_ms()). Returns 0 when fn returned in time: arg
 * is the caller's again. JP_ETIMEOUT ("PATH: no answer within N s") when it
 * did not: arg then belongs to the thread, which passes it to release (may
 * be NULL) once fn returns; the caller must not touch it. Other negative
 * codes: fn never ran, arg is still the caller's. `path` names what fn
 * looks at, for the message, and its mount: while a call that timed out is
 * still stuck in a mount, a call on a path there fails at once with
 * JP_ETIMEOUT (arg released at once), so a hung mount costs one timeout,
 * not one per path; the mount is trusted again once that call returns. */
int jp_probe_call(jp_probe_fn fn, void *arg, void (*release)(void *arg), const char *path,
		  unsigned timeout_ms, struct jp_error *err);

#define JP_PROBE_NOFOLLOW (1u << 0) /* jp_probe_stat: lstat(2) */

struct stat;
/* stat(2) (lstat(2) with JP_PROBE_NOFOLLOW) in bounded time. Returns 0 when
 * it answered: *errnum is 0 and *out (may be NULL) filled, or *errnum is
 * why it failed; JP_ETIMEOUT when it did not answer in time. */
int jp_probe_stat(struct stat *out, int *errnum, const char *path, unsigned flags,
		  unsigned timeout_ms, struct jp_error *err);

#endif
