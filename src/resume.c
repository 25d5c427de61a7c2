/* Resuming from an earlier run: the earlier runs' checkpoint folders
 * looked at (bounded: in a helper process), the last complete one offered
 * to a command that resumes into an empty folder, and a chosen
 * job.resume_from checked to be a complete checkpoint. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>

#include "jobprep/i18n.h"
#include "jobprep/path.h"
#include "jobprep/runs.h"
#include "fs_internal.h"
#include "helper_internal.h"
#include "manifest_internal.h"
#include "path_internal.h"
#include "probe_internal.h"
#include "resume_internal.h"

#define LOOK_MAX_ENTRIES 20000 /* entries walked in one checkpoint folder */
#define LOOK_MAX_DEPTH 8
#define SETTLE_MS 300          /* between the two looks at the sizes */
#define MAX_CANDIDATES 64      /* earlier runs looked at, latest first */

/* ---- in the helper: a checkpoint folder looked at ------------------------- */

struct look {
	uint64_t files, bytes, sig; /* sig: sizes and times, to compare two looks */
	size_t entries;
	char temp[256]; /* the first temporary's name; "" none */
};

/* A name a checkpoint writer gives a file it has not finished. */
static bool temporary_name(const char *name)
{
	static const char *const ends[] = { ".tmp", ".temp", ".partial", ".part", ".incomplete",
					    ".lock", "~", NULL };
	size_t n = strlen(name);

	if (strstr(name, "jobprep-tmp") || strstr(name, ".tmp.") || strstr(name, "-tmp-") ||
	    strncmp(name, "tmp-", 4) == 0 || strncmp(name, "tmp_", 4) == 0 ||
	    strncmp(name, ".tmp", 4) == 0)
		return true;
	for (size_t i = 0; ends[i]; i++) {
		size_t e = strlen(ends[i]);
		if (n > e && strcmp(name + n - e, ends[i]) == 0)
			return true;
	}
	return false;
}

static void count_file(struct look *lk, const struct stat *st)
{
	lk->files++;
	lk->bytes += (uint64_t)st->st_size;
	lk->sig = lk->sig * 1099511628211ULL ^ (uint64_t)st->st_size ^
		  ((uint64_t)st->st_mtim.tv_nsec << 20) ^ (uint64_t)st->st_mtim.tv_sec;
}

/* The files under dir (dir itself, when it is a checkpoint file). */
static void walk(struct look *lk, const char *dir, int depth)
{
	DIR *d;
	struct dirent *de;
	struct stat top;

	if (depth == 0 && stat(dir, &top) == 0 && S_ISREG(top.st_mode)) {
		const char *slash = strrchr(dir, '/');

		if (temporary_name(slash ? slash + 1 : dir))
			snprintf(lk->temp, sizeof(lk->temp), "%s", slash ? slash + 1 : dir);
		count_file(lk, &top);
		return;
	}
	if (!(d = opendir(dir)))
		return;
	while ((de = readdir(d)) && lk->entries < LOOK_MAX_ENTRIES) {
		struct stat st;
		char *p;

		/* the preflight's marks (.jobprep-preflight-ready) are no checkpoint */
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
		    strncmp(de->d_name, ".jobprep-preflight", 18) == 0)
			continue;
		lk->entries++;
		if (!lk->temp[0] && temporary_name(de->d_name))
			snprintf(lk->temp, sizeof(lk->temp), "%s", de->d_name);
		if (!(p = jp_path_join(dir, de->d_name)))
			break;
		if (lstat(p, &st) != 0)
			; /* gone meanwhile: the second look tells */
		else if (S_ISDIR(st.st_mode) && depth < LOOK_MAX_DEPTH)
			walk(lk, p, depth + 1);
		else if (S_ISREG(st.st_mode))
			count_file(lk, &st);
		free(p);
	}
	closedir(d);
}

static enum jp_resume_state judge_folder(const char *ckpt, unsigned settle_ms, char *temp,
					 size_t temp_len)
{
	struct look a, b;
	struct timespec ts = { (time_t)(settle_ms / 1000), (long)(settle_ms % 1000) * 1000000L };

	memset(&a, 0, sizeof(a));
	walk(&a, ckpt, 0);
	if (a.files == 0)
		return JP_RESUME_NONE;
	if (a.temp[0]) {
		snprintf(temp, temp_len, "%s", a.temp);
		return JP_RESUME_TEMPORARY;
	}
	nanosleep(&ts, NULL);
	memset(&b, 0, sizeof(b));
	walk(&b, ckpt, 0);
	if (b.temp[0]) {
		snprintf(temp, temp_len, "%s", b.temp);
		return JP_RESUME_TEMPORARY;
	}
	if (a.files != b.files || a.bytes != b.bytes || a.sig != b.sig)
		return JP_RESUME_CHANGING;
	return JP_RESUME_COMPLETE;
}

/* A run folder's checkpoint folder: its manifest's, else dir/checkpoints. */
static char *run_checkpoints(const char *run_dir)
{
	struct jp_error ignored = JP_ERROR_INIT;
	struct jp_manifest *m = NULL;
	char *path = jp_path_join(run_dir, "job.json"), *ckpt = NULL;

	if (path && jp_manifest_load(&m, path, JP_READ_ANSWERS, &ignored) == 0 &&
	    m->outputs.checkpoint_dir)
		ckpt = strdup(m->outputs.checkpoint_dir);
	else
		ckpt = jp_path_join(run_dir, "checkpoints");
	jp_manifest_free(m);
	jp_error_dispose(&ignored);
	free(path);
	return ckpt;
}

/* inputs: here (NULL: not looked), settle_ms, n, then n times run_dir and
 * ckpt (NULL: the run's); answer: here's file count, then per candidate
 * its ckpt, state and temporary (the looks stop at the first complete one,
 * and when here holds files). */
static void look_serve(struct probe_bytes *in, struct probe_bytes *out)
{
	char *here = probe_bytes_get_str(in);
	unsigned settle_ms = 0, n = 0;
	uint64_t here_files = 0;
	bool done = false;

	probe_bytes_get(in, &settle_ms, sizeof(settle_ms));
	probe_bytes_get(in, &n, sizeof(n));
	if (in->bad || n > MAX_CANDIDATES) {
		out->bad = true;
		free(here);
		return;
	}
	if (here)
		here_files = jp_fs_count_files(here, 10000);
	done = here_files > 0;
	probe_bytes_put(out, &here_files, sizeof(here_files));
	for (unsigned i = 0; i < n; i++) {
		char *dir = probe_bytes_get_str(in), *ckpt = probe_bytes_get_str(in);
		int state = JP_RESUME_UNSEEN;
		char temp[256] = "";

		if (!ckpt && dir)
			ckpt = run_checkpoints(dir);
		if (!done && ckpt)
			state = (int)judge_folder(ckpt, settle_ms, temp, sizeof(temp));
		done |= state == JP_RESUME_COMPLETE;
		probe_bytes_put_str(out, ckpt);
		probe_bytes_put(out, &state, sizeof(state));
		probe_bytes_put_str(out, temp);
		free(dir);
		free(ckpt);
	}
	free(here);
}
JP_HELPER_REQUEST(resume_look, look_serve, JP_HELPER_LOOK);

/* ---- in the caller ------------------------------------------------------- */

struct candidate {
	char *run_dir; /* NULL: a folder given as it is */
	char *ckpt;
	enum jp_resume_state state;
	char *temp;
};

struct looked {
	uint64_t here_files;
	struct candidate *c;
	size_t n;
	size_t chosen; /* index of the complete one; n: none */
};

static void looked_dispose(struct looked *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->c[i].run_dir);
		free(l->c[i].ckpt);
		free(l->c[i].temp);
	}
	free(l->c);
	memset(l, 0, sizeof(*l));
}

/* Look at here and at the candidates l->c (run_dir or ckpt set); a mount
 * that does not answer is the one of the first folder looked at. */
static int look(struct looked *l, const char *here, struct jp_error *err)
{
	struct probe_bytes in = {NULL, 0, 0, 0, false, false}, ans = {NULL, 0, 0, 0, false, false};
	unsigned settle = SETTLE_MS, n = (unsigned)l->n;
	const char *where = here ? here : l->n && l->c[0].ckpt ? l->c[0].ckpt
				      : l->n ? l->c[0].run_dir : "/";
	int rc;

	l->chosen = l->n;
	probe_bytes_put_str(&in, here);
	probe_bytes_put(&in, &settle, sizeof(settle));
	probe_bytes_put(&in, &n, sizeof(n));
	for (size_t i = 0; i < l->n; i++) {
		probe_bytes_put_str(&in, l->c[i].run_dir);
		probe_bytes_put_str(&in, l->c[i].ckpt);
	}
	rc = in.bad ? jp_error_oom(err)
		    : jp_helper_call(&ans, &jp_req_resume_look, &in, where,
				     jp_helper_deadline_ms(&jp_req_resume_look) + SETTLE_MS * 2, err);
	if (rc == 0) {
		probe_bytes_get(&ans, &l->here_files, sizeof(l->here_files));
		for (size_t i = 0; i < l->n && !ans.bad; i++) {
			int state = JP_RESUME_UNSEEN;

			free(l->c[i].ckpt);
			l->c[i].ckpt = probe_bytes_get_str(&ans);
			probe_bytes_get(&ans, &state, sizeof(state));
			l->c[i].temp = probe_bytes_get_str(&ans);
			l->c[i].state = (enum jp_resume_state)state;
			if (state == JP_RESUME_COMPLETE && l->chosen == l->n)
				l->chosen = i;
		}
		if (ans.bad)
			rc = jp_error_set(err, JP_EINTERNAL, "%s: %s", where, _("the look at it failed"));
	}
	free(in.p);
	free(ans.p);
	return rc;
}

static const char *run_name(const char *dir)
{
	const char *slash = dir ? strrchr(dir, '/') : NULL;

	return slash ? slash + 1 : dir ? dir : "";
}

/* The runs of job before output_dir (latest first) into l->c; with `only`
 * (a run folder's name), that one alone. */
static int earlier_runs(struct looked *l, const struct jp_profile *profile, const char *job,
			const char *output_dir, const char *only, struct jp_error *err)
{
	struct jp_run *runs = NULL;
	size_t n = 0, end;
	int rc = jp_runs_list(&runs, &n, profile, job, err);

	if (rc < 0)
		return rc;
	for (end = 0; end < n; end++)
		if (output_dir && (strcmp(runs[end].dir, output_dir) == 0 ||
				   jp_path_is_under(output_dir, runs[end].dir)))
			break;
	l->c = calloc(end ? end : 1, sizeof(*l->c));
	if (!l->c)
		rc = jp_error_oom(err);
	for (size_t i = end; rc == 0 && i-- > 0 && l->n < MAX_CANDIDATES;) {
		if (only && strcmp(run_name(runs[i].dir), only) != 0)
			continue;
		if (!(l->c[l->n].run_dir = strdup(runs[i].dir)))
			rc = jp_error_oom(err);
		else
			l->n++;
	}
	jp_runs_free(runs, n);
	return rc;
}

/* Why cand is not offered, into buf. */
static void why_not(char *buf, size_t len, const struct candidate *cand)
{
	const char *name = cand->run_dir ? run_name(cand->run_dir) : cand->ckpt;

	switch (cand->state) {
	case JP_RESUME_TEMPORARY:
		snprintf(buf, len, _("%s's checkpoint folder %s holds a temporary (%s): a checkpoint "
				     "being written, or left half-written"),
			 name, cand->ckpt ? cand->ckpt : "", cand->temp ? cand->temp : "");
		break;
	case JP_RESUME_CHANGING:
		snprintf(buf, len, _("the files in %s's checkpoint folder %s changed while jobprep "
				     "looked: a checkpoint still being written"),
			 name, cand->ckpt ? cand->ckpt : "");
		break;
	default:
		snprintf(buf, len, _("%s holds no checkpoint (no file in it)"),
			 cand->ckpt ? cand->ckpt : name);
		break;
	}
}

int jp_resume_resolve(char **out, const struct jp_profile *profile, const char *job,
		      const char *output_dir, const char *value, struct jp_error *err)
{
	struct looked l = { 0, NULL, 0, 0 };
	bool last = strcmp(value, "last") == 0;
	char buf[1024] = "";
	int rc;

	*out = NULL;
	if (value[0] == '/') {
		*out = jp_path_normalize(value);
		return *out ? 0 : jp_error_oom(err);
	}
	if (!profile || !job)
		return jp_error_set(err, JP_ENOENT, _("%s: no job to look for runs of"), value);
	rc = earlier_runs(&l, profile, job, output_dir, last ? NULL : value, err);
	if (rc == 0 && l.n == 0)
		rc = last ? jp_error_set(err, JP_ENOENT, _("%s has no earlier run"), job)
			  : jp_error_set(err, JP_ENOENT, _("%s is no earlier run of %s"), value, job);
	if (rc == 0)
		rc = look(&l, NULL, err);
	if (rc == 0 && l.chosen < l.n && !(*out = strdup(l.c[l.chosen].ckpt)))
		rc = jp_error_oom(err);
	else if (rc == 0 && l.chosen == l.n) {
		if (!last)
			why_not(buf, sizeof(buf), &l.c[0]);
		rc = jp_error_set(err, JP_ENOENT, "%s",
				  last ? _("no earlier run of the job left a complete checkpoint")
				       : buf);
	}
	looked_dispose(&l);
	return rc;
}

/* A chosen job.resume_from: a complete checkpoint, or a failure. */
static int check_chosen(struct jp_manifest *m, struct jp_error *err)
{
	struct looked l = { 0, NULL, 0, 0 };
	char buf[1024];
	int rc;

	if (!(l.c = calloc(1, sizeof(*l.c))) || !(l.c[0].ckpt = strdup(m->job.resume_from))) {
		free(l.c);
		return JP_ENOMEM;
	}
	l.n = 1;
	rc = look(&l, NULL, err);
	if (rc == JP_ENOMEM) {
		looked_dispose(&l);
		return rc;
	}
	if (rc < 0) {
		rc = jp_manifest_add_check(m, JP_RESUME_FROM_CHECK, JP_CHECK_FAIL, m->job.resume_from,
					   _("%s could not be looked at: %s"), m->job.resume_from,
					   jp_error_message(err));
		jp_error_clear(err);
	} else if (l.chosen == 0) {
		rc = jp_manifest_add_check(m, JP_RESUME_FROM_CHECK, JP_CHECK_PASS, m->job.resume_from,
					   _("the run resumes from %s: env.sh exports it as "
					     "RESUME_FROM"),
					   m->job.resume_from);
	} else {
		why_not(buf, sizeof(buf), &l.c[0]);
		rc = jp_manifest_add_check(m, JP_RESUME_FROM_CHECK, JP_CHECK_FAIL, m->job.resume_from,
					   _("job.resume_from: %s; choose a complete checkpoint (\"last\" "
					     "takes the last one) or none"),
					   buf);
	}
	looked_dispose(&l);
	return rc;
}

/* A chosen job.resume_from that a later earlier run has passed (the
 * manifest of run-002 taken as the answers of run-003 carries run-001's):
 * a warning naming the later one. */
static int later_checkpoint(struct jp_manifest *m, const struct jp_profile *profile)
{
	struct looked l = { 0, NULL, 0, 0 };
	struct jp_error ignored = JP_ERROR_INIT;
	int rc = 0;

	if (profile && m->job.name &&
	    earlier_runs(&l, profile, m->job.name, m->outputs.output_dir, NULL, &ignored) == 0 &&
	    l.n > 0 && look(&l, NULL, &ignored) == 0 && l.chosen < l.n &&
	    !jp_path_is_under(m->job.resume_from, l.c[l.chosen].run_dir) &&
	    !jp_path_is_under(m->job.resume_from, l.c[l.chosen].ckpt)) {
		bool older = false;

		for (size_t i = l.chosen + 1; i < l.n; i++)
			older |= jp_path_is_under(m->job.resume_from, l.c[i].run_dir) ||
				 jp_path_is_under(m->job.resume_from, l.c[i].ckpt);
		if (older)
			rc = jp_manifest_add_check(
				m, JP_RESUME_CHECK, JP_CHECK_WARN, l.c[l.chosen].ckpt,
				_("job.resume_from takes %s, but %s left a later complete checkpoint "
				  "in %s: --resume-from last (or \"last\") takes it"),
				m->job.resume_from, run_name(l.c[l.chosen].run_dir), l.c[l.chosen].ckpt);
	}
	looked_dispose(&l);
	jp_error_dispose(&ignored);
	return rc;
}

/* The offer: the command resumes, this run's folder is empty, an earlier
 * run left a complete checkpoint. */
static int offer(struct jp_manifest *m, const struct looked *l, const char *why)
{
	const struct candidate *c = &l->c[l->chosen];
	const char *name = run_name(c->run_dir);

	return jp_manifest_add_check(
		m, JP_RESUME_CHECK, JP_CHECK_FAIL, c->ckpt,
		_("the command resumes (%s) but this run's checkpoint folder %s is empty: it would "
		  "start from nothing. %s left a complete checkpoint in %s: set job.resume_from to "
		  "\"%s\" (init --resume-from %s; env.sh exports it as RESUME_FROM for the code to "
		  "read), or outputs.checkpoint_dir to %s to go on in the same folder (init "
		  "--resume-in %s)"),
		why, m->outputs.checkpoint_dir, name, c->ckpt, name, name, c->ckpt, name);
}

/* No earlier checkpoint is complete: the first one that is being written
 * (or was left half-written) is named in a warning. */
static int nothing_complete(struct jp_manifest *m, const struct looked *l, const char *why)
{
	char buf[1024];

	for (size_t i = 0; i < l->n; i++) {
		if (l->c[i].state != JP_RESUME_TEMPORARY && l->c[i].state != JP_RESUME_CHANGING)
			continue;
		why_not(buf, sizeof(buf), &l->c[i]);
		return jp_manifest_add_check(
			m, JP_RESUME_CHECK, JP_CHECK_WARN, l->c[i].ckpt,
			_("the command resumes (%s) but this run's checkpoint folder %s is empty, and "
			  "no earlier run left a complete checkpoint: %s"),
			why, m->outputs.checkpoint_dir, buf);
	}
	return 0;
}

int jp_resume_check(struct jp_manifest *m, const struct jp_profile *profile, const char *why,
		    struct jp_error *err)
{
	struct looked l = { 0, NULL, 0, 0 };
	struct jp_error ignored = JP_ERROR_INIT;
	int rc = 0;

	profile = profile ? profile : m->profile;
	if (m->job.resume_from) {
		rc = check_chosen(m, err);
		if (rc == 0 && m->n_checks && m->checks[m->n_checks - 1].status == JP_CHECK_PASS)
			rc = later_checkpoint(m, profile);
		return rc == JP_ENOMEM ? jp_error_oom(err) : 0;
	}
	if (!why || !profile || !m->job.name || !m->outputs.checkpoint_dir)
		return 0;
	rc = earlier_runs(&l, profile, m->job.name, m->outputs.output_dir, NULL, &ignored);
	if (rc == 0 && l.n > 0)
		rc = look(&l, m->outputs.checkpoint_dir, &ignored);
	if (rc == JP_ENOMEM) {
		looked_dispose(&l);
		jp_error_dispose(&ignored);
		return jp_error_oom(err);
	}
	if (rc < 0) /* a hung or unreadable storage: said, nothing offered */
		rc = jp_manifest_add_check(m, JP_RESUME_CHECK, JP_CHECK_WARN, NULL,
					   _("the command resumes (%s) but the job's earlier runs "
					     "could not be looked at for a checkpoint: %s"),
					   why, jp_error_message(&ignored));
	else if (l.n > 0 && l.here_files == 0)
		rc = l.chosen < l.n ? offer(m, &l, why) : nothing_complete(m, &l, why);
	looked_dispose(&l);
	jp_error_dispose(&ignored);
	return rc < 0 ? jp_error_oom(err) : 0;
}
