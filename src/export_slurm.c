/* A manifest as a Slurm batch script (sbatch). */
#include "config.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "jobprep/export.h"
#include "jobprep/i18n.h"
#include "jobprep/profile.h"
#include "jobprep/shellwords.h"
#include "export_internal.h"
#include "profile_internal.h"

/* Text for inside an #SBATCH argument's double quotes. sbatch reads these
 * lines itself, not through a shell: double quotes group, and inside them a
 * backslash takes the next character literally. In --output/--error names
 * '%' starts a pattern, so a literal one is written "%%". */
static void sbatch_escaped(struct jp_buf *b, const char *s, bool pattern)
{
	for (const char *p = s; *p; p++) {
		if (*p == '"' || *p == '\\')
			jp_buf_addn(b, "\\", 1);
		else if (pattern && *p == '%')
			jp_buf_addn(b, "%", 1);
		jp_buf_addn(b, p, 1);
	}
}

/* What Slurm cannot take, refused with the field named. */
static int refuse_unrepresentable(const struct jp_manifest *m, const char *origin,
				  struct jp_error *err)
{
	const char *workdir = export_workdir(m);
	const char *workdir_field =
		m->code.source == JP_CODE_LAUNCH_CLONE ? "outputs.output_dir" : "code.path";

	if (m->code.source == JP_CODE_IMAGE)
		return export_error(err, JP_EREFUSED, origin,
				    _("code.source: expected code a Slurm node can reach "
				      "(\"shared_storage\" or \"launch_clone\"), got \"image\": "
				      "export it with --to pytorchjob"));
	if (workdir && strchr(workdir, '\n'))
		return export_error(err, JP_EREFUSED, origin,
				    _("%s: expected a directory without line breaks for "
				      "#SBATCH --chdir (an #SBATCH line cannot hold one)"),
				    workdir_field);
	if (m->outputs.log_dir && strpbrk(m->outputs.log_dir, "\n\\"))
		return export_error(err, JP_EREFUSED, origin,
				    _("outputs.log_dir: expected a directory without line breaks "
				      "or backslashes for #SBATCH --output (Slurm expands no %%j "
				      "in a name with a backslash)"));
	return 0;
}

/* fill's value when given, else the profile's (either may be none) */
static const char *sched_value(const char *given, const char *profiles)
{
	return given && given[0] ? given : profiles;
}

static void directives(struct jp_buf *b, const struct jp_manifest *m,
		       const struct jp_export_fill *fill)
{
	const char *workdir = export_workdir(m);
	const struct jp_profile *p = m->profile;

	jp_buf_addf(b, "#SBATCH --job-name=%s\n", m->job.name);
	jp_buf_addf(b, "#SBATCH --nodes=%" PRId64 "\n", m->job.workers);
	jp_buf_add(b, "#SBATCH --ntasks-per-node=1\n");
	if (export_gpus(m) > 0)
		jp_buf_addf(b, "#SBATCH --gpus-per-node=%" PRId64 "\n", export_gpus(m));
	/* the platform's scheduling options: the person's (--partition ...,
	 * or kept from the script replaced), else the profile's the manifest
	 * records; one word each (the readers see to that) */
	{
		const char *const sched[][2] = {
			{ EXPORT_KEY_PARTITION, sched_value(fill ? fill->partition : NULL,
							    p ? p->slurm_partition : NULL) },
			{ EXPORT_KEY_TIME, sched_value(fill ? fill->time : NULL,
						       p ? p->slurm_time : NULL) },
			{ EXPORT_KEY_ACCOUNT, sched_value(fill ? fill->account : NULL,
							  p ? p->slurm_account : NULL) },
			{ EXPORT_KEY_QOS, sched_value(fill ? fill->qos : NULL, p ? p->slurm_qos : NULL) },
		};

		for (size_t i = 0; i < sizeof(sched) / sizeof(sched[0]); i++)
			if (sched[i][1])
				jp_buf_addf(b, "%s%s\n", sched[i][0], sched[i][1]);
	}
	if (m->outputs.log_dir) {
		static const char *const streams[][2] = {
			{ "--output", "%x-%j.out" },
			{ "--error", "%x-%j.err" },
		};

		for (size_t i = 0; i < 2; i++) {
			jp_buf_addf(b, "#SBATCH %s=\"", streams[i][0]);
			sbatch_escaped(b, m->outputs.log_dir, true);
			jp_buf_addf(b, "/%s\"\n", streams[i][1]);
		}
	}
	if (workdir) {
		jp_buf_add(b, "#SBATCH --chdir=\"");
		sbatch_escaped(b, workdir, false);
		jp_buf_add(b, "\"\n");
	}
}

/* The person's values, each one word an #SBATCH line can hold. */
static int refuse_bad_fill(const struct jp_export_fill *fill, struct jp_error *err)
{
	const struct {
		const char *what, *value;
	} given[] = {
		{ "--partition", fill ? fill->partition : "" },
		{ "--account", fill ? fill->account : "" },
		{ "--qos", fill ? fill->qos : "" },
		{ "--time", fill ? fill->time : "" },
	};

	for (size_t i = 0; i < sizeof(given) / sizeof(given[0]); i++)
		if (given[i].value[0] && !jp_profile_sbatch_word(given[i].value))
			return jp_error_set(err, JP_EUSAGE,
					    _("%s: expected one word for sbatch (no spaces, quotes, "
					      "backslashes or '#'), got %s"),
					    given[i].what, given[i].value);
	return 0;
}

int jp_export_slurm(char **out, const struct jp_manifest *m, const struct jp_export_fill *fill,
		    const char *origin, struct jp_error *err)
{
	struct jp_buf b = JP_BUF_INIT;
	char *prelude = NULL, *launch = NULL;
	int rc;

	*out = NULL;
	rc = refuse_bad_fill(fill, err);
	if (rc == 0)
		rc = refuse_unrepresentable(m, origin, err);
	if (rc < 0)
		goto out;
	rc = export_prelude(&prelude, m, err);
	if (rc < 0)
		goto out;
	rc = jp_sh_quote(&launch, m->job.launch_command ? m->job.launch_command : "");
	if (rc < 0) {
		rc = jp_error_oom(err);
		goto out;
	}

	jp_buf_add(&b, "#!/bin/bash\n");
	jp_buf_addf(&b,
			"# Slurm batch script for the job \"%s\", made by jobprep %s from its\n"
			"# manifest (created %s). Submit it with: sbatch FILE\n"
			"# The log directory must exist when the job starts: Slurm opens the\n"
			"# output files there before this script runs (jobprep init made it).\n"
			"# Yours, kept when jobprep export -o replaces this file: the values of\n"
			"# the #SBATCH lines --partition, --time, --account and --qos (or give\n"
			"# them with those options). Every other line is jobprep's, made from\n"
			"# the manifest: change the manifest, not the script.\n",
			m->job.name, PACKAGE_VERSION, m->created_at ? m->created_at : "-");
	directives(&b, m, fill);
	jp_buf_add(&b,
		       "\n"
		       "# Where the Workers meet, named as Kubeflow's PyTorchJob names it, so one\n"
		       "# launch command runs on both (job.env below may override these).\n"
		       "export MASTER_ADDR=\"$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n 1)\"\n"
		       "export MASTER_PORT=29500\n"
		       "export WORLD_SIZE=\"$SLURM_JOB_NUM_NODES\"\n"
		       "\n"
		       "# The job's paths and environment, as `jobprep env` prints them.\n");
	jp_buf_add(&b, prelude);
	jp_buf_add(&b, "\n");
	if (m->job.workers <= 1) {
		jp_buf_add(&b,
			       "# One Worker: the run's preflight.sh checks the paths as this node sees\n"
			       "# them; then the launch command runs right here in the batch step, with\n"
			       "# bash; one node needs no srun step.\n"
			       "export RANK=0\n");
		jp_buf_add(&b, export_preflight_line());
		jp_buf_add(&b, "exec bash -c ");
	} else {
		jp_buf_addf(&b,
				"# %" PRId64 " Workers: srun runs, once on every node of the allocation, the\n"
				"# run's preflight.sh (each node checks the paths as it sees them, and\n"
				"# all meet in the output directory), then the launch command, with\n"
				"# bash, RANK set to the node's index; one Worker that fails stops the\n"
				"# others.\n"
				"exec srun --ntasks-per-node=1 --kill-on-bad-exit=1 \\\n"
				"\tbash -c 'export RANK=\"$SLURM_NODEID\"; sh \"$OUTPUT_DIR/preflight.sh\" "
				"|| exit 1; exec bash -c \"$1\"' jobprep-launch ",
				m->job.workers);
	}
	jp_buf_add(&b, launch);
	jp_buf_add(&b, "\n");
	rc = export_buf_finish(out, &b, err);
out:
	jp_buf_dispose(&b);
	free(launch);
	free(prelude);
	return rc;
}
