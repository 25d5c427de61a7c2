/* Exporting a manifest: the choice of engine, and what the engines share. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobprep/envsh.h"
#include "jobprep/export.h"
#include "jobprep/i18n.h"
#include "export_internal.h"
#include "manifest_internal.h"
#include "lint_internal.h"

static const char *const target_names[] = {
	[JP_EXPORT_SLURM] = "slurm",
	[JP_EXPORT_PYTORCHJOB] = "pytorchjob",
};

const char *jp_export_target_name(enum jp_export_target target)
{
	if ((size_t)target >= sizeof(target_names) / sizeof(target_names[0]))
		return NULL;
	return target_names[target];
}

int jp_export_target_from_name(enum jp_export_target *out, const char *name)
{
	for (size_t i = 0; i < sizeof(target_names) / sizeof(target_names[0]); i++) {
		if (name && strcmp(name, target_names[i]) == 0) {
			*out = (enum jp_export_target)i;
			return 0;
		}
	}
	return JP_EUSAGE;
}

unsigned jp_export_file_mode(enum jp_export_target target)
{
	return target == JP_EXPORT_SLURM ? 0755 : 0644;
}

int jp_export_render(char **out, unsigned *notes, const struct jp_manifest *m,
		     enum jp_export_target target, const struct jp_export_fill *fill,
		     const char *origin, struct jp_error *err)
{
	int rc;

	*out = NULL;
	if (notes)
		*notes = 0;
	rc = jp_manifest_validate(m, origin ? origin : "manifest", err);
	if (rc < 0)
		return rc;
	switch (target) {
	case JP_EXPORT_SLURM:
		if (fill && (fill->image[0] || fill->k8s_namespace[0] || fill->priority_class[0] ||
			     fill->queue[0]))
			return jp_error_set(err, JP_EUSAGE, "%s",
					    _("the image, namespace, priority class and queue are "
					      "a PyTorchJob's; a Slurm script has none of them"));
		return jp_export_slurm(out, m, fill, origin, err);
	case JP_EXPORT_PYTORCHJOB:
		if (fill && (fill->partition[0] || fill->account[0] || fill->qos[0] || fill->time[0]))
			return jp_error_set(err, JP_EUSAGE, "%s",
					    _("the partition, account, QoS and time are a Slurm "
					      "script's; a PyTorchJob has none of them"));
		return jp_export_pytorchjob(out, notes, m, fill, origin, err);
	}
	return jp_error_set(err, JP_EUSAGE, _("unknown export target %d"), (int)target);
}

int64_t export_gpus(const struct jp_manifest *m)
{
	long long used = jp_lint_command_gpus(m->job.launch_command, (long long)m->job.workers,
					      (long long)m->job.gpus_per_worker);

	/* the job asks for what its launcher uses: never GPUs it leaves idle */
	if (used > 0 && m->job.gpus_per_worker > 0)
		return (int64_t)used;
	return m->job.gpus_per_worker > 0 ? m->job.gpus_per_worker : 0;
}

int export_error(struct jp_error *err, int code, const char *origin, const char *fmt, ...)
{
	va_list ap;
	char *msg = NULL;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n < 0)
		return jp_error_oom(err);
	jp_error_set(err, code, "%s: %s", origin ? origin : "manifest", msg);
	free(msg);
	return code;
}

int export_buf_finish(char **out, struct jp_buf *b, struct jp_error *err)
{
	int rc = jp_buf_take(out, b);

	if (rc < 0)
		return jp_error_oom(err);
	return 0;
}

int export_prelude(char **out, const struct jp_manifest *m, struct jp_error *err)
{
	struct jp_buf b = JP_BUF_INIT;
	char *env = NULL;
	int rc;

	*out = NULL;
	rc = jp_envsh_render(&env, m, err);
	if (rc < 0)
		return rc;
	jp_buf_add(&b, env);
	/* A new run's directories may not exist yet; a job that cannot make
	 * them stops before it trains, not when it first saves. */
	jp_buf_add(&b, "mkdir -p \"$CHECKPOINT_DIR\" \"$LOG_DIR\" || exit 1\n");
	free(env);
	return export_buf_finish(out, &b, err);
}

const char *export_preflight_line(void)
{
	/* A run prepared before jobprep wrote preflight.sh has none: say how
	 * to make it, rather than sh's bare "cannot open". */
	return "[ -f \"$OUTPUT_DIR/preflight.sh\" ] || { echo \"jobprep: $OUTPUT_DIR/preflight.sh "
	       "is missing: make it with: jobprep preflight MANIFEST > $OUTPUT_DIR/preflight.sh\" "
	       ">&2; exit 1; }\n"
	       "sh \"$OUTPUT_DIR/preflight.sh\" || exit 1\n";
}

const char *export_workdir(const struct jp_manifest *m)
{
	if (m->code.source == JP_CODE_LAUNCH_CLONE)
		return m->outputs.output_dir;
	return m->code.path;
}
