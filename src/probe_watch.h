/* A long piece of work on user paths (staging a data set) in a forked
 * child process, watched (probe_watch.c): the bounded call of
 * probe_child.c for work that takes as long as it takes, as long as it
 * shows signs of life. Its reports (progress) reach the parent as they are
 * sent; a report that says the work moved on, or the child spending CPU,
 * is a sign of life; none for stall_ms is a hung mount: the child is
 * killed and left behind (it dies when the mount answers, and whoever
 * waits for the command stops waiting), nothing of it stays in this
 * process. A cancel is passed on to the child, which stops and cleans up;
 * one that shows no sign of life for grace_ms after it is left behind the
 * same way (what it left is what a kill -9 leaves: the next run resumes).
 * Shared by probe_watch.c and its callers (stage_bounded.c, atomic_write.c). */
#ifndef JOBPREP_PROBE_WATCH_H
#define JOBPREP_PROBE_WATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "jobprep/error.h"
#include "jobprep/probe.h"
#include "probe_internal.h"

struct jp_watch {
	/* In the parent, every 100 ms or so: true asks the child to stop. */
	bool (*cancelled)(void *payload);
	/* In the parent, for each report the child sent: < 0 asks the child
	 * to stop, 1 the work moved on (a sign of life), 0 no news. */
	int (*report)(const void *msg, size_t n, void *payload);
	void *payload;
	unsigned stall_ms; /* no sign of life this long: JP_ETIMEOUT */
	unsigned grace_ms; /* after a cancel: JP_ECANCELED, the child left behind */
	/* A child left behind keeps path's mount (may be NULL) known hung
	 * until it dies. */
	const char *path;
};

/* fn(arg) in a forked child, watched as above; pack (in the child) writes
 * the answer, unpack (in the parent) reads it into arg. Returns 0 when the
 * child answered (arg holds its answer), JP_ETIMEOUT when it stalled
 * (err NOT set: the caller knows what to name), JP_ECANCELED when it did
 * not answer within grace_ms of a cancel (err not set either), or
 * JP_EINTERNAL (err set). *cancel_sent: a cancel was passed on. */
int jp_watch_call(jp_probe_fn fn, void *arg, void (*pack)(struct probe_bytes *out, void *arg),
		  bool (*unpack)(struct probe_bytes *in, void *arg), const struct jp_watch *w,
		  bool *cancel_sent, struct jp_error *err);

/* In the child (any thread): send a report; has the parent asked to stop? */
void jp_watch_send(const void *msg, size_t n);
bool jp_watch_stop_asked(void);

#endif
