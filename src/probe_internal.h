/* Shared by probe.c, probe_hung.c, probe_child.c, probe_file.c and probe_watch.c only: the list
 * of mounts where a bounded call is still stuck, and calls run in a child process. */
#ifndef JOBPREP_PROBE_INTERNAL_H
#define JOBPREP_PROBE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "jobprep/error.h"
#include "jobprep/probe.h"

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

/* The answer of a call in a child process, as bytes. */
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

/* fn(arg) in a forked child, which hands back what pack writes; unpack
 * reads it into arg in the parent (false: it could not). Returns 0,
 * JP_ETIMEOUT after timeout_ms (the child is killed and left to die when the
 * mount answers; path's mount counts as hung until then), or JP_EINTERNAL.
 * arg stays the caller's in every case. */
int probe_child_call(jp_probe_fn fn, void *arg, void (*pack)(struct probe_bytes *out, void *arg),
		     bool (*unpack)(struct probe_bytes *in, void *arg), const char *path,
		     unsigned timeout_ms, struct jp_error *err);
/* Reap stuck children that have died, and trust their mounts again. */
void probe_child_reap(void);
/* Kill a child that does not answer and leave it behind (reaped by
 * probe_child_reap); path's mount (path may be NULL) counts as hung until
 * it dies. */
void probe_child_abandon(pid_t pid, const char *path);
/* First thing in a child forked by parent: it ends with its parent
 * (PR_SET_PDEATHSIG; at once when the parent is gone already), never
 * spinning on alone; SIGINT, SIGTERM and SIGHUP are the parent's to act on
 * (a Ctrl-C to the process group must not turn the work into a failure),
 * SIGPIPE ends it, and no signal is blocked. */
void probe_child_enter(pid_t parent);

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

/* fn(arg) in a forked child process, on its copy of the caller's memory:
 * the first answer_size bytes of *arg (no pointers among them) are copied
 * back when it answers within timeout_ms (0: the default). A child that does
 * not answer is killed and left behind, so unlike a thread stuck in the
 * kernel it does not keep the command from exiting: use this where the
 * answer is flat. arg stays the caller's whatever the result. Returns 0,
 * JP_ETIMEOUT (also at once while path's mount is known hung), or
 * JP_EINTERNAL. jp_probe_stat and jp_probe_path work this way. */
int jp_probe_call_flat(jp_probe_fn fn, void *arg, size_t answer_size, const char *path,
		       unsigned timeout_ms, struct jp_error *err);

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
 * profile, draft) in a forked child, answered within timeout_ms (0: the
 * default). Its result, message and errno as if read here; JP_EFORMAT
 * "PATH: no answer within N s" (exit 3, unreadable) when the child does not
 * answer (it is killed and left to the mount), also at once while path's
 * mount is known hung. jp_input_read reads this way. */
int jp_probe_read_file(char **text, size_t *len, const char *path, size_t max,
		       unsigned timeout_ms, struct jp_error *err);

#endif
