/* Shared by the looks (probe*.c), the process boundary (helper.c) and the
 * requests it serves: the list of mounts where a helper is still stuck, and
 * the helpers left behind there. Inputs and answers as bytes are the wire
 * codec's (wire_internal.h, included here for the requests). */
#ifndef JOBPREP_PROBE_INTERNAL_H
#define JOBPREP_PROBE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "jobprep/error.h"
#include "jobprep/probe.h"
#include "wire_internal.h"

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

/* JP_ETIMEOUT "PATH: no answer: MOUNT, the mount it is on, has not
 * answered an earlier look yet" while a helper given up on a path under
 * the same mount as path is still stuck there, else 0. The one place that
 * asks: jp_helper_call and jp_helper_watch, which fail at once so instead
 * of leaving one more helper behind; their callers read JP_ETIMEOUT. */
int jp_probe_fail_hung(const char *path, struct jp_error *err);

/* fn(arg) on a thread of its own, not waited for: start it, then poll with
 * jp_probe_wait (timeout_ms 0: just look; true once fn has returned) and
 * finish with jp_probe_end, which returns arg when fn has returned (the
 * caller's again) or NULL when it has not (the thread then releases arg when
 * it returns). Every started job is ended exactly once. fn runs in this
 * process (the wizard's checks while it draws): what in it may hang goes to
 * a helper (jp_helper_call). */
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
 * mount is known hung; errno is then ETIMEDOUT, which tells it from a file
 * that was read and found wanting. jp_input_read reads this way. */
int jp_probe_read_file(char **text, size_t *len, const char *path, size_t max,
		       unsigned timeout_ms, struct jp_error *err);

#endif
