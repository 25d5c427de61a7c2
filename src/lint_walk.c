/* The launch lint's look at the project: does its code synchronise the
 * Workers (a barrier, torch.distributed, accelerate, deepspeed, ...)? A
 * bounded walk of the project's .py and .sh files (jp_lint_project_syncs),
 * and the bounded read of one file the lint also uses for scripts. */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobprep/input.h"
#include "input_internal.h"
#include "jobprep/probe.h"
#include "probe_internal.h"
#include "helper_internal.h"
#include "lint_internal.h"

#define SYNC_MAX_FILES 5000
#define SYNC_MAX_DEPTH 12

/* A FIFO named like a script must not block open(): jp_input_open refuses
 * anything but a regular file. */
char *jp_lint_read_head(const char *path, size_t *n)
{
	struct stat st;
	FILE *f;
	char *buf;
	int fd;

	if (jp_input_open(&fd, &st, path, NULL) != 0)
		return NULL;
	if (!(f = fdopen(fd, "rb"))) {
		close(fd);
		return NULL;
	}
	buf = malloc(SYNC_READ_BYTES + 1);
	if (buf) {
		*n = fread(buf, 1, SYNC_READ_BYTES, f);
		buf[*n] = '\0';
	}
	fclose(f);
	return buf;
}

static bool file_mentions_sync(const char *path)
{
	static const char *const marks[] = { "barrier", "torch.distributed", "accelerate",
					     "deepspeed", "init_process_group", "horovod", NULL };
	size_t n = 0;
	char *buf = jp_lint_read_head(path, &n);
	bool found = false;

	for (size_t i = 0; buf && marks[i] && !found; i++)
		if (memmem(buf, n, marks[i], strlen(marks[i])))
			found = true;
	free(buf);
	return found;
}

struct walk {
	size_t files;  /* code files looked at */
	bool found;
};

static bool code_file(const char *name)
{
	size_t n = strlen(name);
	return (n > 3 && strcmp(name + n - 3, ".py") == 0) ||
	       (n > 3 && strcmp(name + n - 3, ".sh") == 0);
}

static void walk_dir(struct walk *wk, const char *dir, int depth)
{
	DIR *d;
	struct dirent *de;

	if (depth > SYNC_MAX_DEPTH || wk->found || wk->files >= SYNC_MAX_FILES)
		return;
	d = opendir(dir);
	if (!d)
		return;
	while (!wk->found && wk->files < SYNC_MAX_FILES && (de = readdir(d))) {
		const char *nm = de->d_name;
		if (nm[0] == '.' || strcmp(nm, "__pycache__") == 0 ||
		    strcmp(nm, "node_modules") == 0 || strcmp(nm, "venv") == 0 ||
		    strcmp(nm, "site-packages") == 0)
			continue;
		char *p = NULL;
		if (asprintf(&p, "%s/%s", dir, nm) < 0)
			break;
		struct stat st;
		if (lstat(p, &st) == 0) {
			if (S_ISDIR(st.st_mode)) {
				walk_dir(wk, p, depth + 1);
			} else if (S_ISREG(st.st_mode) && code_file(nm)) {
				wk->files++;
				if (file_mentions_sync(p))
					wk->found = true;
			}
		}
		free(p);
	}
	closedir(d);
}

/* inputs: the project's folder; answer: 1 it synchronises, 0 it does not,
 * -1 unknown (not a folder, or no code file in it) */
static void syncs_serve(struct probe_bytes *in, struct probe_bytes *out)
{
	char *dir = probe_bytes_get_str(in);
	struct walk wk = { 0, false };
	struct stat st;
	int answer = -1;

	if (!in->bad && dir && stat(dir, &st) == 0 && S_ISDIR(st.st_mode)) {
		walk_dir(&wk, dir, 0);
		answer = wk.found ? 1 : wk.files > 0 ? 0 : -1;
	}
	probe_bytes_put(out, &answer, sizeof(answer));
	free(dir);
}
JP_HELPER_REQUEST(lint_syncs, syncs_serve, JP_HELPER_LOOK);

int jp_lint_project_syncs(const char *project_dir)
{
	struct probe_bytes in = {NULL, 0, 0, 0, false, false}, ans;
	int answer = -1;

	/* The whole look in bounded time, in a helper process: a hung mount
	 * (this one, or one found hung before) leaves it unknown. */
	if (!project_dir)
		return -1;
	probe_bytes_put_str(&in, project_dir);
	if (!in.bad && jp_helper_call(&ans, &jp_req_lint_syncs, &in, project_dir, 0, NULL) == 0) {
		probe_bytes_get(&ans, &answer, sizeof(answer));
		if (ans.bad)
			answer = -1;
		free(ans.p);
	}
	free(in.p);
	return answer;
}
