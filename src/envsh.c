/* Rendering a manifest's environment as POSIX sh export lines. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobprep/buf.h"
#include "jobprep/envsh.h"
#include "jobprep/i18n.h"
#include "jobprep/shellwords.h"

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
		return jp_error_set(err, JP_ENOMEM, "%s", _("out of memory"));
	jp_buf_add(b, "export ");
	jp_buf_add(b, name);
	jp_buf_addc(b, '=');
	jp_buf_add(b, quoted);
	jp_buf_addc(b, '\n');
	free(quoted);
	if (b->rc < 0)
		return jp_error_set(err, b->rc, "%s", _("out of memory"));
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
			     err)) < 0)
		goto out;
	for (size_t i = 0; i < m->job.n_env; i++) {
		char field[64];
		const struct jp_env_var *v = &m->job.env[i];

		snprintf(field, sizeof(field), "job.env[%zu]", i);
		rc = add_export(&b, field, v->name ? v->name : "", v->value ? v->value : "", err);
		if (rc < 0)
			goto out;
	}
	if (jp_buf_take(out, &b) < 0)
		rc = jp_error_set(err, JP_ENOMEM, "%s", _("out of memory"));
out:
	jp_buf_dispose(&b);
	return rc;
}
