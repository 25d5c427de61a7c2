/* The record of a stage that has not finished (issue 21): every run of
 * jp_stage writes one beside its destination when it starts and removes it
 * when it has finished, so a data set still being staged, or whose stage
 * was killed half-way, can be told from a complete one (src/check.c's
 * data[i].path.staging, each Worker's preflight.sh).
 *
 * DIR/NAME is staged: the folder DIR/.jobprep-tmp-staging-NAME holds one
 * file per run (HOST-PID-RANDOM.json, so shards staging into one folder at
 * once keep theirs apart): the command that finishes it, host, pid, start.
 * The last run to finish removes the folder. Shared by src/stage*.c and
 * src/check.c only. */
#ifndef JOBPREP_STAGE_MARK_H
#define JOBPREP_STAGE_MARK_H

#include <limits.h>
#include <stdbool.h>

#include "jobprep/stage.h"
#include "treecopy.h"

#define JP_STAGE_MARK_PREFIX JP_TREECOPY_TMP_PREFIX "staging-"

struct jp_stage_mark;

/* This run's record for dest, written now; best effort: *out NULL when it
 * could not be written (a folder that cannot be written to: the stage then
 * fails or goes on as it would have). */
void jp_stage_mark_begin(struct jp_stage_mark **out, const char *source, const char *dest,
			 const struct jp_stage_options *opts);
/* The same, 0; alone (a download: its temporaries are one per DEST): the
 * records' folder is held (flock, let go by jp_stage_mark_end or the
 * process's end) and, when another run holds it, JP_EREFUSED (err says
 * which run) with no record written. */
int jp_stage_mark_hold(struct jp_stage_mark **out, const char *source, const char *dest,
		       const struct jp_stage_options *opts, bool alone, struct jp_error *err);
/* How a run ended, for its record. */
enum jp_stage_end {
	JP_STAGE_FAILED,      /* dest may hold part of it */
	JP_STAGE_DONE,        /* finished */
	JP_STAGE_LEFT_AS_WAS, /* failed before anything was put at dest (an
				 archive refused, unreadable or canceled
				 before its unpack folder was put in place) */
};
/* The run has ended: its record removed when it finished, when it left
 * dest as it was, or when it failed and there is no dest (a temporary
 * left beside dest is found there). Frees m (may be NULL). */
void jp_stage_mark_end(struct jp_stage_mark *m, enum jp_stage_end how);

enum jp_unfinished_kind {
	JP_UNFINISHED_NONE = 0,
	JP_UNFINISHED_RUN,    /* a run's record */
	JP_UNFINISHED_TREE,   /* .jobprep-tmp-stage-NAME: a new folder not renamed yet */
	JP_UNFINISHED_UNPACK, /* .jobprep-tmp-unpack-NAME: an archive being unpacked */
	JP_UNFINISHED_FILE,   /* .jobprep-tmp-NAME: a file not renamed yet */
};

/* What a look finds; flat (it comes back from a probe's child process). */
struct jp_stage_unfinished {
	enum jp_unfinished_kind kind;
	char dest[PATH_MAX];  /* what is being staged: the path, or a folder above it */
	char where[PATH_MAX]; /* the record, or the temporary */
	char command[4096];   /* RUN: the stage that finishes it ("" not known) */
	char host[256];       /* RUN: where it ran, its pid, when it started */
	long pid;
	char started[40];
	int running;          /* RUN: 1 running, 0 not running (this machine), -1 cannot tell */
	unsigned runs;        /* RUN: records found (shards running at once) */
};

/* Look for an unfinished stage of path (absolute) or of a folder above it:
 * a run's record, or a temporary beside it. Looks at the file system
 * without a bound: call it where a hung mount cannot hold the caller (a
 * probe's child). */
void jp_stage_unfinished_look(struct jp_stage_unfinished *out, const char *path);

#endif
