/* The launch lint reads the sh scripts the command runs (bash X.sh, ./X.sh,
 * source X.sh) when they are in the project, as far as that can be done
 * without running them, and judges their lines like the command's own:
 * downloads, launchers, files that are not in the code, ephemeral outputs,
 * each finding naming script:line. Bounded: MAX_SCRIPT_BYTES a script,
 * MAX_SCRIPT_DEPTH scripts deep, no script twice on the way (no cycles),
 * and each read in bounded time (a forked child), counted in L->looks. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "jobprep/path.h"
#include "jobprep/probe.h"
#include "lint_internal.h"
#include "probe_internal.h"

/* A script run directly is read when it is sh: its name or its #! says so. */
static bool is_sh_text(const char *path, const char *text)
{
	size_t n = strlen(path), e;

	if (n > 3 && strcmp(path + n - 3, ".sh") == 0)
		return true;
	if (strncmp(text, "#!", 2) != 0)
		return false;
	e = strcspn(text, "\n");
	for (const char *const *sh = (const char *const[]){ "/sh", "/bash", "/dash", "/zsh", "/ksh",
							     " sh", " bash", " dash", " zsh", NULL };
	     *sh; sh++) {
		const char *hit = memmem(text, e, *sh, strlen(*sh));
		size_t after = hit ? (size_t)(hit - text) + strlen(*sh) : 0;
		if (hit && (after >= e || text[after] == ' ' || text[after] == '\n' || text[after] == '\t'))
			return true;
	}
	return false;
}

/* The script starts its processes with a launcher that knows the other
 * Workers (or may): its `python X.py` lines prepare or follow the job. */
bool jp_lint_names_launcher(const char *text)
{
	static const char *const marks[] = { "torchrun", "accelerate launch", "deepspeed", "srun",
					     "mpirun", "torch.distributed.", NULL };

	for (size_t i = 0; marks[i]; i++)
		if (strstr(text, marks[i]))
			return true;
	return false;
}

static bool reading_now(const struct lint *L, const char *path)
{
	for (size_t i = 0; i < L->reading.n; i++)
		if (strcmp(L->reading.v[i], path) == 0)
			return true;
	return false;
}

char *jp_lint_read_text(struct lint *L, const char *path, size_t max)
{
	char *text = NULL;
	size_t len = 0;

	if (L->hung || L->looks >= MAX_LOOKS)
		return NULL;
	L->looks++;
	if (jp_probe_read_file(&text, &len, path, max, 0, NULL) < 0) {
		if (errno == ETIMEDOUT) /* no answer: its mount hangs */
			L->hung = true;
		return NULL;
	}
	if (memchr(text, '\0', len)) { /* a binary, not a script */
		free(text);
		return NULL;
	}
	return text;
}

void jp_lint_script(struct lint *L, const char *path, const struct jp_sh_word *w, bool source,
		    int nesting)
{
	const struct jp_lint_context *ctx = L->ctx;
	char *text = NULL, *cwd = NULL, *where = NULL;
	size_t n_vars = L->n_vars;
	int warned = L->warned_relative;
	bool moved = L->cwd_moved;

	(void)w;
	if (L->reading.n >= MAX_SCRIPT_DEPTH || reading_now(L, path) || !ctx->project_dir)
		return;
	if (!(text = jp_lint_read_text(L, path, MAX_SCRIPT_BYTES)))
		return;
	if (!source && !is_sh_text(path, text))
		goto out;
	/* what it changes stays in it, unless it is sourced */
	if ((L->cwd && !(cwd = strdup(L->cwd))) || (L->where && !(where = strdup(L->where))) ||
	    jp_strv_push(&L->reading, path) < 0) {
		L->oom = 1;
		goto out;
	}
	const char *name = path + strlen(ctx->project_dir);
	while (*name == '/')
		name++;
	bool launches = L->script_launches;
	L->script_launches = jp_lint_names_launcher(text);
	jp_lint_line(L, text, nesting, name);
	L->script_launches = launches;
	free(L->reading.v[--L->reading.n]);
	free(L->where);
	L->where = where;
	where = NULL;
	if (!source) {
		free(L->cwd);
		L->cwd = cwd;
		L->cwd_moved = moved;
		cwd = NULL;
		while (L->n_vars > n_vars) {
			L->n_vars--;
			free(L->vars[L->n_vars].name);
			free(L->vars[L->n_vars].value);
		}
		L->warned_relative = warned;
	}
out:
	free(text);
	free(cwd);
	free(where);
}
