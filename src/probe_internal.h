/* Shared by the looks (probe*.c), the process boundary (helper.c) and the
 * requests it serves: the list of mounts where a helper is still stuck,
 * helpers left behind, and inputs and answers as bytes. */
#ifndef JOBPREP_PROBE_INTERNAL_H
#define JOBPREP_PROBE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "jobprep/error.h"
#include "jobprep/probe.h"

/* Work for a thread of jp_probe_start: it reads and writes only `arg`. */
typedef void (*jp_probe_fn)(void *arg);

/* --- mounts known hung (probe_hung.c, a leaf: probe.c and probe_child.c use it) --- */

/* The mount point holding path (from the mount table); NULL when unknown or
 * the root. The caller frees it. */
char *probe_mount_of(const char *path);
/* One more (or one fewer) call stuck in mount_point. */
void probe_hung_add(const char *mount_point);
void probe_hung_remove(const char *mount_point);
/* The hung mount absolute path is under, copied into buf; false when none.
 * It does not reap dead children first (probe.c does). */
bool probe_hung_find(const char *path, char *buf, size_t len);

/* A request's inputs or its answer, as bytes (helper.c). */
struct probe_bytes {
	char *p;
	size_t n, cap;
	size_t off; /* reading */
	bool bad;   /* out of memory, or read past the end */
};

void probe_bytes_put(struct probe_bytes *b, const void *data, size_t n);
void probe_bytes_put_str(struct probe_bytes *b, const char *s);
void probe_bytes_get(struct probe_bytes *b, void *out, size_t n);
char *probe_bytes_get_str(struct probe_bytes *b); /* malloc'd; NULL for NULL */
/* A profile (NULL: none) as its JSON text; read back into *out (NULL for
 * none), the caller's to free; < 0 when the bytes do not hold one. */
struct jp_profile;
void probe_bytes_put_profile(struct probe_bytes *b, const struct jp_profile *profile);
int probe_bytes_get_profile(struct jp_profile **out, struct probe_bytes *b, struct jp_error *err);

/* Reap stuck children that have died, and trust their mounts again. */
void probe_child_reap(void);
/* End a child (jp_child_finish, killed): reaped before this returns, unless
 * a thread of it is stuck in the kernel on a hung mount: then it is left
 * behind (reaped by probe_child_reap) and path's mount (path may be NULL)
 * counts as hung until it dies. */
struct jp_child;
void probe_child_finish(struct jp_child *c, const char *path);

/* ---- of jobprep/probe.h, what no front end calls ---- */

/* The timeout jp_probe_path uses for opts->timeout_ms == 0. */
unsigned jp_probe_default_timeout_ms(void);

/* True while a call on a path under the same mount as `path` has timed out
 * and is still stuck there (so jp_probe_call on path would fail at once);
 * the mount point is copied into mount (len bytes; may be NULL). */
bool jp_probe_mount_hung(const char *path, char *mount, size_t len);
/* JP_ETIMEOUT "PATH: no answer: MOUNT, the mount it is on, has not
 * answered an earlier look yet" while path's mount is known hung (a call
 * there fails at once instead of leaving one more helper behind), else 0. */
int jp_probe_fail_hung(const char *path, struct jp_error *err);

/* jp_probe_call without waiting: start fn(arg), then poll with jp_probe_wait
 * (timeout_ms 0: just look; true once fn has returned) and finish with
 * jp_probe_end, which returns arg when fn has returned (the caller's again)
 * or NULL when it has not (the thread then releases arg when it returns).
 * Every started job is ended exactly once. */
struct jp_probe_job;
int jp_probe_start(struct jp_probe_job **out, jp_probe_fn fn, void *arg,
		   void (*release)(void *arg), struct jp_error *err);
bool jp_probe_wait(struct jp_probe_job *job, unsigned timeout_ms);
void *jp_probe_end(struct jp_probe_job *job);

/* jp_input_read_now (a whole file a person named: manifest, answers,
 * profile, draft) in a helper process, answered within timeout_ms (0: the
 * default). Its result, message and errno as if read here; JP_EFORMAT
 * "PATH: no answer within N s" (exit 3, unreadable) when the child does not
 * answer (it is killed and left to the mount), also at once while path's
 * mount is known hung. jp_input_read reads this way. */
int jp_probe_read_file(char **text, size_t *len, const char *path, size_t max,
		       unsigned timeout_ms, struct jp_error *err);

#endif
