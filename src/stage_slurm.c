/* jobprep stage --shards N --emit slurm: a shell script that submits the
 * staging of a large tree as a Slurm array (one shard per task, each
 * resumable on its own) and a last job over the whole, after them. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "jobprep/i18n.h"
#include "jobprep/shellwords.h"
#include "jobprep/stage.h"

/* The options both steps share, then "-- SOURCE DEST", quoted. */
static int add_args(struct jp_buf *b, const char *source, const char *dest,
		    const struct jp_stage_options *opts)
{
	char *qs = NULL, *qd = NULL;
	int rc = 0;

	if (opts && opts->verify)
		rc = jp_buf_add(b, " --verify");
	if (rc == 0 && opts && opts->jobs)
		rc = jp_buf_addf(b, " --jobs %u", opts->jobs);
	if (rc == 0 && (jp_sh_quote(&qs, source) != 0 || jp_sh_quote(&qd, dest) != 0))
		rc = JP_ENOMEM;
	if (rc == 0)
		rc = jp_buf_addf(b, " -- %s %s\n", qs, qd);
	free(qs);
	free(qd);
	return rc;
}

int jp_stage_slurm_script(char **out, const char *exe, const char *source, const char *dest,
			  unsigned shards, const struct jp_stage_options *opts,
			  struct jp_error *err)
{
	struct jp_buf b = JP_BUF_INIT;
	char *qe = NULL;
	int rc;

	*out = NULL;
	if (strchr(source, '\n') || strchr(dest, '\n') || strchr(exe, '\n'))
		return jp_error_set(err, JP_EUSAGE, "%s",
				    _("--emit slurm: a path with a newline cannot go into the script"));
	if (jp_sh_quote(&qe, exe) != 0)
		return jp_error_oom(err);
	rc = jp_buf_addf(&b,
			 "#!/bin/sh\n"
			 "# Written by `jobprep stage --shards %u --emit slurm`. Run it with sh\n"
			 "# (its arguments go to sbatch, e.g. --partition=P): it submits a Slurm\n"
			 "# array of %u tasks, task i staging shard i/%u of the tree (cut by bytes\n"
			 "# and files, each resumable on its own: submit again to go on), then,\n"
			 "# once every task has succeeded, one job over the whole that checks\n"
			 "# every file, writes what is missing and gives the folders their times.\n"
			 "# It prints the two job ids.\n"
			 "set -eu\n"
			 "array=$(sbatch --parsable --job-name=jobprep-stage --array=0-%u \\\n"
			 "\t--output=jobprep-stage-%%A_%%a.out \"$@\" <<'JOBPREP_SHARD'\n"
			 "#!/bin/sh\n"
			 "exec %s stage --no-progress --shard \"$SLURM_ARRAY_TASK_ID/%u\"",
			 shards, shards, shards, shards - 1, qe, shards);
	if (rc == 0)
		rc = add_args(&b, source, dest, opts);
	if (rc == 0)
		rc = jp_buf_addf(&b,
				 "JOBPREP_SHARD\n"
				 ")\n"
				 "array=${array%%%%;*}\n"
				 "whole=$(sbatch --parsable --job-name=jobprep-stage-whole \\\n"
				 "\t--dependency=afterok:\"$array\" --output=jobprep-stage-whole-%%j.out \"$@\" <<'JOBPREP_WHOLE'\n"
				 "#!/bin/sh\n"
				 "exec %s stage --no-progress",
				 qe);
	if (rc == 0)
		rc = add_args(&b, source, dest, opts);
	if (rc == 0)
		rc = jp_buf_add(&b, "JOBPREP_WHOLE\n"
				    ")\n"
				    "echo \"$array ${whole%%;*}\"\n");
	free(qe);
	if (rc == 0)
		rc = jp_buf_take(out, &b);
	jp_buf_dispose(&b);
	if (rc != 0)
		return jp_error_oom(err);
	return 0;
}
