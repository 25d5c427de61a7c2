/* Rendering a manifest's environment as POSIX sh export lines. */
#include "config.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "jobprep/envsh.h"
#include "envsh_internal.h"
#include "jobprep/i18n.h"
#include "jobprep/shellwords.h"
#include "manifest_internal.h"

static int add_export(struct jp_buf *b, const char *field, const char *name, const char *value,
		      struct jp_error *err)
{
	char *quoted = NULL;

	if (!value)
		return 0;
	if (!jp_valid_env_name(name))
		return jp_error_set(err, JP_EFORMAT,
				    _("%s: expected a variable name of letters, digits and '_', not "
				      "starting with a digit, got \"%s\""),
				    field, name);
	if (jp_env_name_special(name))
		return jp_error_set(err, JP_EFORMAT, _("%s: %s is special to the shells: %s"), field,
				    name, _(jp_env_name_special(name)));
	if (jp_sh_quote(&quoted, value) < 0)
		return jp_error_oom(err);
	jp_buf_add(b, "export ");
	jp_buf_add(b, name);
	jp_buf_addc(b, '=');
	jp_buf_add(b, quoted);
	jp_buf_addc(b, '\n');
	free(quoted);
	if (b->rc < 0)
		return jp_error_oom(err);
	return 0;
}

/* DATA_DIR_ + the name in upper case, other than letters and digits as '_';
 * a name with no letter or digit, or (dedupe) one that an earlier source's
 * name also gives, gets the source's index instead (DATA_DIR_2). */
static void data_var_name(char *buf, size_t len, const struct jp_manifest *m, size_t i,
			  bool dedupe)
{
	const char *name = m->data[i].name ? m->data[i].name : "";
	size_t k = snprintf(buf, len, "DATA_DIR_");
	bool any = false;

	for (const char *p = name; *p && k + 1 < len; p++) {
		unsigned char c = (unsigned char)*p;

		any |= isalnum(c) && c < 0x80;
		buf[k++] = (isalnum(c) && c < 0x80) ? (char)toupper(c) : '_';
	}
	buf[k] = '\0';
	if (!any) {
		snprintf(buf, len, "DATA_DIR_%zu", i);
		return;
	}
	for (size_t j = 0; dedupe && j < i; j++) {
		char other[JP_ENVSH_NAME_MAX];

		data_var_name(other, sizeof(other), m, j, false);
		if (strcmp(other, buf) == 0) {
			snprintf(buf, len, "DATA_DIR_%zu", i);
			return;
		}
	}
}

void jp_envsh_data_var(char buf[JP_ENVSH_NAME_MAX], const struct jp_manifest *m, size_t i)
{
	data_var_name(buf, JP_ENVSH_NAME_MAX, m, i, true);
}

static int add_data_exports(struct jp_buf *b, const struct jp_manifest *m, struct jp_error *err)
{
	for (size_t i = 0; i < m->n_data; i++) {
		char field[64], name[JP_ENVSH_NAME_MAX];
		int rc;

		snprintf(field, sizeof(field), "data[%zu].path", i);
		jp_envsh_data_var(name, m, i);
		rc = add_export(b, field, name, m->data[i].path, err);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int jp_envsh_render(char **out, const struct jp_manifest *m, struct jp_error *err)
{
	struct jp_buf b = JP_BUF_INIT;
	int rc;

	*out = NULL;
	if ((rc = add_export(&b, "code.path", "PROJECT_DIR", m->code.path, err)) < 0 ||
	    (rc = add_export(&b, "outputs.output_dir", "OUTPUT_DIR", m->outputs.output_dir, err)) < 0 ||
	    (rc = add_export(&b, "outputs.checkpoint_dir", "CHECKPOINT_DIR",
			     m->outputs.checkpoint_dir, err)) < 0 ||
	    (rc = add_export(&b, "outputs.log_dir", "LOG_DIR", m->outputs.log_dir, err)) < 0 ||
	    (rc = add_export(&b, "data[0].path", "DATA_DIR", m->n_data ? m->data[0].path : NULL,
			     err)) < 0 ||
	    (rc = add_data_exports(&b, m, err)) < 0 ||
	    (rc = add_export(&b, "job.resume_from", "RESUME_FROM", m->job.resume_from, err)) < 0)
		goto out;
	for (size_t i = 0; i < m->job.n_env; i++) {
		char field[64];
		const struct jp_env_var *v = &m->job.env[i];

		snprintf(field, sizeof(field), "job.env[%zu]", i);
		/* what the platform sets for each Worker stays the platform's
		 * (`check` fails job.env.identity) */
		if (v->name && jp_env_name_platform(v->name)) {
			jp_buf_addf(&b, "# %s: the platform sets it for each Worker; job.env's value is "
					"not used\n",
				    v->name);
			continue;
		}
		rc = add_export(&b, field, v->name ? v->name : "", v->value ? v->value : "", err);
		if (rc < 0)
			goto out;
	}
	if (jp_buf_take(out, &b) < 0)
		rc = jp_error_oom(err);
out:
	jp_buf_dispose(&b);
	return rc;
}
