/* The runs prepared for a job: list the folders the profile's output
 * template names for it, and read each one's manifest. The looks run in a
 * helper process in bounded time (jobprep/probe.h): a hung mount under the
 * shared root costs one timeout, never a `jobprep runs` stuck for good. */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "jobprep/fs.h"
#include "fs_internal.h"
#include "jobprep/i18n.h"
#include "jobprep/manifest.h"
#include "jobprep/path.h"
#include "path_internal.h"
#include "jobprep/probe.h"
#include "probe_internal.h"
#include "helper_internal.h"
#include "jobprep/runs.h"

/* tmpl with {shared} and {job} replaced; NULL when out of memory. */
static char *expand(const char *tmpl, const char *shared, const char *job)
{
	size_t cap = strlen(tmpl) + 1, n = 0;
	char *out;

	for (const char *p = tmpl; *p; p++)
		if (*p == '{')
			cap += strlen(shared) + strlen(job);
	out = malloc(cap);
	if (!out)
		return NULL;
	for (const char *p = tmpl; *p;) {
		if (strncmp(p, "{shared}", 8) == 0) {
			n += (size_t)sprintf(out + n, "%s", shared);
			p += 8;
		} else if (strncmp(p, "{job}", 5) == 0) {
			n += (size_t)sprintf(out + n, "%s", job);
			p += 5;
		} else {
			out[n++] = *p++;
		}
	}
	out[n] = '\0';
	return out;
}

/* name is prefix + digits + suffix: its number in *num. */
static int run_number(unsigned long *num, const char *name, const char *prefix, size_t lp,
		      const char *suffix, size_t ls)
{
	size_t ln = strlen(name);
	unsigned long v = 0;

	if (ln <= lp + ls || strncmp(name, prefix, lp) != 0 || strcmp(name + ln - ls, suffix) != 0)
		return -1;
	for (size_t k = lp; k < ln - ls; k++) {
		if (!isdigit((unsigned char)name[k]) || v > 100000000UL)
			return -1;
		v = v * 10 + (unsigned long)(name[k] - '0');
	}
	*num = v;
	return 0;
}

/* What the run folder's manifest says; a missing or unreadable one leaves
 * the fields NULL (the run is still listed). */
static int read_run(struct jp_run *r)
{
	struct jp_error ignored = JP_ERROR_INIT;
	struct jp_manifest *m = NULL;
	struct stat st;
	char *path = jp_path_join(r->dir, "job.json");

	if (!path)
		return JP_ENOMEM;
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
		free(path);
		r->empty = jp_fs_count_files(r->dir, 10000) == 0;
		if (r->empty) { /* a prep working in it right now holds it */
			int fd = jp_fs_lock_dir(r->dir);

			if (fd >= 0)
				close(fd);
			else if (errno == EWOULDBLOCK)
				r->empty = false;
		}
		return 0;
	}
	r->manifest = path;
	if (jp_manifest_load(&m, path, JP_READ_MANIFEST, &ignored) == 0) {
		if ((m->created_at && !(r->created_at = strdup(m->created_at))) ||
		    (m->code.repo_commit && !(r->commit = strdup(m->code.repo_commit))) ||
		    (m->job.resume_from && !(r->resume_from = strdup(m->job.resume_from))) ||
		    (m->outputs.checkpoint_dir &&
		     !(r->checkpoint_dir = strdup(m->outputs.checkpoint_dir)))) {
			jp_manifest_free(m);
			jp_error_dispose(&ignored);
			return JP_ENOMEM;
		}
	}
	jp_manifest_free(m);
	jp_error_dispose(&ignored);
	return 0;
}

static int by_number(const void *a, const void *b)
{
	const struct jp_run *x = a, *y = b;

	return x->number < y->number ? -1 : x->number > y->number;
}

static int add_run(struct jp_run **runs, size_t *n, const char *dir, unsigned long number)
{
	struct jp_run *g = realloc(*runs, (*n + 1) * sizeof(**runs));

	if (!g)
		return JP_ENOMEM;
	*runs = g;
	memset(&g[*n], 0, sizeof(g[*n]));
	g[*n].number = number;
	g[*n].dir = strdup(dir);
	if (!g[*n].dir)
		return JP_ENOMEM;
	(*n)++;
	return read_run(&g[*n - 1]);
}

/* Every prefix<digits>suffix folder in base. */
static int list_base(struct jp_run **runs, size_t *n, const char *base, const char *prefix,
		     const char *suffix, struct jp_error *err)
{
	size_t lp = strlen(prefix), ls = strlen(suffix);
	DIR *d = opendir(base);
	struct dirent *de;
	int rc = 0;

	if (!d) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		return jp_error_set(err, JP_EIO, _("%s: cannot list the runs: %s"), base,
				    strerror(errno));
	}
	while (rc == 0 && (de = readdir(d))) {
		unsigned long num;
		struct stat st;
		char *dir;

		if (run_number(&num, de->d_name, prefix, lp, suffix, ls) < 0)
			continue;
		dir = jp_path_join(base, de->d_name);
		if (!dir) {
			rc = JP_ENOMEM;
			break;
		}
		if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
			rc = add_run(runs, n, dir, num);
		free(dir);
	}
	closedir(d);
	if (rc == JP_ENOMEM)
		jp_error_oom(err);
	return rc;
}

static int runs_list_now(struct jp_run **out, size_t *n, const struct jp_profile *profile,
			 const char *job, struct jp_error *err)
{
	const char *tmpl = profile->output_dir ? profile->output_dir : "";
	char *expanded = NULL, *base = NULL, *prefix = NULL;
	struct jp_run *runs = NULL;
	size_t count = 0;
	const char *nnn, *slash;
	int rc = 0;

	*out = NULL;
	*n = 0;
	if (strstr(tmpl, "{shared}") && profile->shared_roots.n == 0)
		return jp_error_set(err, JP_EUSAGE, "%s",
				    _("the profile names no shared root for its output template"));
	expanded = expand(tmpl, profile->shared_roots.n ? profile->shared_roots.v[0] : "", job);
	if (!expanded)
		return jp_error_oom(err);
	nnn = strstr(expanded, "NNN");
	if (!nnn) {
		struct stat st;

		if (stat(expanded, &st) == 0 && S_ISDIR(st.st_mode))
			rc = add_run(&runs, &count, expanded, 0);
		goto out;
	}
	slash = strrchr(expanded, '/');
	if (!slash || slash > nnn) {
		rc = jp_error_set(err, JP_EUSAGE,
				  _("the profile's output template %s has NNN outside its last component"),
				  tmpl);
		goto out;
	}
	base = strndup(expanded, (size_t)(slash - expanded));
	prefix = strndup(slash + 1, (size_t)(nnn - slash - 1));
	if (!base || !prefix) {
		rc = JP_ENOMEM;
		goto out;
	}
	rc = list_base(&runs, &count, *base ? base : "/", prefix, nnn + 3, err);
out:
	if (rc == JP_ENOMEM && err && err->n == 0)
		jp_error_oom(err);
	free(expanded);
	free(base);
	free(prefix);
	if (rc < 0) {
		jp_runs_free(runs, count);
		return rc;
	}
	if (count > 1)
		qsort(runs, count, sizeof(*runs), by_number);
	*out = runs;
	*n = count;
	return 0;
}

void jp_runs_free(struct jp_run *runs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(runs[i].dir);
		free(runs[i].manifest);
		free(runs[i].created_at);
		free(runs[i].commit);
		free(runs[i].resume_from);
		free(runs[i].checkpoint_dir);
	}
	free(runs);
}

const struct jp_run *jp_runs_holding(const struct jp_run *runs, size_t before, const char *path)
{
	for (size_t i = before; path && i-- > 0;)
		if (jp_path_is_under(path, runs[i].dir))
			return &runs[i];
	return NULL;
}

/* ---- bounded: the listing in a helper process, handed back as text ------- */

#define RUNS_TEXT_MAX (128 * 1024)
#define FS '\x1f' /* between a run's fields */
#define RS '\x1e' /* after each run */

/* The listing as text: number FS dir FS manifest FS created FS commit FS
 * resume_from FS checkpoint_dir FS empty ("e" or "") RS ... */
struct runs_text {
	size_t len;
	char text[RUNS_TEXT_MAX];
};

static void put_field(struct runs_text *t, const char *s, char end)
{
	size_t n = s ? strlen(s) : 0;

	if (t->len + n + 1 >= RUNS_TEXT_MAX) {
		t->len = RUNS_TEXT_MAX; /* marks it full */
		return;
	}
	memcpy(t->text + t->len, s ? s : "", n);
	t->len += n;
	t->text[t->len++] = end;
}

/* The runs as text in t (NUL-terminated): 0, or < 0 with err set. */
static int runs_text_now(struct runs_text *t, const struct jp_profile *profile, const char *job,
			 struct jp_error *err)
{
	struct jp_run *runs = NULL;
	size_t n = 0;
	char num[32];
	int rc = runs_list_now(&runs, &n, profile, job, err);

	for (size_t i = 0; rc == 0 && i < n && t->len < RUNS_TEXT_MAX; i++) {
		snprintf(num, sizeof(num), "%lu", runs[i].number);
		put_field(t, num, FS);
		put_field(t, runs[i].dir, FS);
		put_field(t, runs[i].manifest, FS);
		put_field(t, runs[i].created_at, FS);
		put_field(t, runs[i].commit, FS);
		put_field(t, runs[i].resume_from, FS);
		put_field(t, runs[i].checkpoint_dir, FS);
		put_field(t, runs[i].empty ? "e" : NULL, RS);
	}
	if (rc == 0 && t->len >= RUNS_TEXT_MAX)
		rc = jp_error_set(err, JP_ENOMEM, "%s", _("too many runs to list"));
	else if (rc == 0)
		t->text[t->len] = '\0';
	jp_runs_free(runs, n);
	return rc;
}

/* inputs: the profile, the job; answer: rc, its message, the text */
static void runs_serve(struct probe_bytes *in, struct probe_bytes *out)
{
	struct jp_error e = JP_ERROR_INIT;
	struct jp_profile *profile = NULL;
	struct runs_text *t = calloc(1, sizeof(*t));
	int rc = probe_bytes_get_profile(&profile, in, &e);
	char *job = probe_bytes_get_str(in);

	if (rc == 0 && (!t || in->bad || !profile))
		out->bad = true; /* the caller reads it as a failed look */
	else if (rc == 0)
		rc = runs_text_now(t, profile, job, &e);
	if (!out->bad) {
		probe_bytes_put(out, &rc, sizeof(rc));
		probe_bytes_put_error(out, rc < 0 ? &e : NULL);
		probe_bytes_put_str(out, rc == 0 ? t->text : NULL);
	}
	jp_error_dispose(&e);
	jp_profile_free(profile);
	free(job);
	free(t);
}
JP_HELPER_REQUEST(runs_list, runs_serve, JP_HELPER_LOOK);

/* The next field of the flat text, a copy (NULL for an empty one). */
static int take_field(char **out, const char **p, const char *end)
{
	const char *q = *p;

	while (q < end && *q != FS && *q != RS)
		q++;
	*out = NULL;
	if (q > *p && !(*out = strndup(*p, (size_t)(q - *p))))
		return JP_ENOMEM;
	*p = q < end ? q + 1 : q;
	return 0;
}

static int unpack(struct jp_run **out, size_t *n, const char *text)
{
	const char *p = text, *end = text + strlen(text);
	struct jp_run *runs = NULL, *g;
	size_t count = 0;
	char *num = NULL;
	int rc = 0;

	while (rc == 0 && p < end) {
		if (!(g = realloc(runs, (count + 1) * sizeof(*runs)))) {
			rc = JP_ENOMEM;
			break;
		}
		runs = g;
		memset(&runs[count], 0, sizeof(runs[count]));
		count++;
		rc = take_field(&num, &p, end);
		if (rc == 0) {
			runs[count - 1].number = num ? strtoul(num, NULL, 10) : 0;
			free(num);
			num = NULL;
			rc = take_field(&runs[count - 1].dir, &p, end);
		}
		if (rc == 0)
			rc = take_field(&runs[count - 1].manifest, &p, end);
		if (rc == 0)
			rc = take_field(&runs[count - 1].created_at, &p, end);
		if (rc == 0)
			rc = take_field(&runs[count - 1].commit, &p, end);
		if (rc == 0)
			rc = take_field(&runs[count - 1].resume_from, &p, end);
		if (rc == 0)
			rc = take_field(&runs[count - 1].checkpoint_dir, &p, end);
		if (rc == 0 && (rc = take_field(&num, &p, end)) == 0) {
			runs[count - 1].empty = num != NULL;
			free(num);
			num = NULL;
		}
	}
	if (rc < 0) {
		jp_runs_free(runs, count);
		return rc;
	}
	*out = runs;
	*n = count;
	return 0;
}

int jp_runs_list(struct jp_run **out, size_t *n, const struct jp_profile *profile,
		 const char *job, struct jp_error *err)
{
	struct probe_bytes in = {NULL, 0, 0, 0, false, false}, ans = {NULL, 0, 0, 0, false, false};
	const char *where = profile->shared_roots.n ? profile->shared_roots.v[0] : "/";
	char *text = NULL;
	int rc, child_rc = 0;

	*out = NULL;
	*n = 0;
	probe_bytes_put_profile(&in, profile);
	probe_bytes_put_str(&in, job);
	rc = in.bad ? jp_error_oom(err)
		    : jp_helper_call(&ans, &jp_req_runs_list, &in, where,
				     0, err);
	if (rc == 0) {
		probe_bytes_get(&ans, &child_rc, sizeof(child_rc));
		probe_bytes_get_error(&ans, child_rc < 0 ? err : NULL, child_rc);
		text = probe_bytes_get_str(&ans);
		if (ans.bad || (child_rc == 0 && !text))
			rc = jp_error_set(err, JP_EINTERNAL, "%s: %s", where,
					  _("the look at it failed"));
		else if (child_rc < 0)
			rc = child_rc;
		else if (unpack(out, n, text) < 0)
			rc = jp_error_oom(err);
	}
	free(in.p);
	free(ans.p);
	free(text);
	return rc;
}
