/* The --demo sandbox: a tiny platform inside ./jobprep-demo/ so a newcomer
 * can walk the whole flow with no network and no platform mounts.
 *
 *   jobprep-demo/
 *     profile.json     "sandbox": true, shared root jobprep-demo/shared, public root
 *                      jobprep-demo/public, ephemeral roots the default
 *     repo/            a local git repository (libgit2): a small training
 *                      project, scripts/train.sh uses a torch.distributed
 *                      barrier, a README
 *     shared/datasets/demo-data/   a small team data set
 *     public/demo-corpus/          a small "public" data set
 *     answers.json     the answers for `jobprep init --demo` (every default)
 *
 * Reused when present: only what is missing is created. */
#ifndef JOBPREP_DEMO_H
#define JOBPREP_DEMO_H

#include "jobprep/error.h"
#include "jobprep/flow.h"

struct jp_demo {
	char *root;         /* absolute: {cwd}/jobprep-demo */
	char *profile_path; /* {root}/profile.json */
	char *answers_path; /* {root}/answers.json */
	char *repo_url;     /* file:// URL of the demo repository */
	char *data_path;    /* the team data set */
	char *public_path;  /* the public data set */
	char *manifest_path; /* where --demo puts the manifest by default:
			      * NULL = the flow's default (the run dir) */
};

#define JP_DEMO_INIT { .root = NULL }

/* Create (or reuse) the sandbox under `cwd` (NULL: the current directory).
 * Fills *out (caller disposes). */
int jp_demo_prepare(struct jp_demo *out, const char *cwd, struct jp_error *err);
void jp_demo_dispose(struct jp_demo *demo);

/* Put the demo's answers into a new flow: the repository URL and the data
 * sets, everything else left at its default. Used by `jobprep --demo` (the
 * wizard then starts with these) and `jobprep init --demo`. */
int jp_demo_apply(struct jp_flow *flow, const struct jp_demo *demo,
		  struct jp_error *err);

#endif
