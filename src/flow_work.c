/* The flow's actions: clone, inspect, resolve, scan, create the output
 * directories, check. Each is a snapshot taken on the flow's thread, work
 * that touches only the snapshot (any thread), and a result applied back. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "jobprep/check.h"
#include "error_internal.h"
#include "jobprep/fs.h"
#include "fs_internal.h"
#include "jobprep/git.h"
#include "git_internal.h"
#include "jobprep/i18n.h"
#include "jobprep/lint.h"
#include "jobprep/probe.h"
#include "jobprep/scan.h"
#include "jobprep/stage.h"
#include "flow_internal.h"
#include "manifest_internal.h"

struct jp_flow_work {
	enum jp_action action;
	size_t index;
	bool deep;
	unsigned long gen;
	bool done;

	/* snapshot */
	char *url, *ref, *path;
	char *out, *ckpt, *log;
	char *asked_out, *asked_ckpt, *asked_log; /* OUTPUTS: as the answers had them */
	char *run_tmpl; /* OUTPUTS: the run folder's template (with NNN): the
			 * folder is claimed, the next number taken when it exists */
	int run_lock;   /* OUTPUTS: holds the claimed run folder's lock; -1 none */
	bool run_reuse; /* OUTPUTS: run_tmpl's folder out was left empty by a prep
			 * that stopped before writing: it is taken again */
	bool out_ours; /* the output dir was made by this flow */
	bool sync;     /* INSPECT: bring the checkout to url/ref */
	bool ask;      /* ... asking port->confirm before moving it */
	bool no_cache; /* CLONE, INSPECT: the server only, not the mirror cache */
	struct jp_profile *profile;
	struct jp_manifest *m; /* JP_ACTION_CHECK: the draft, checked in place */
	struct inspected insp; /* JP_ACTION_CHECK: notes; INSPECT: the result */
	struct data_extra *dx; /* JP_ACTION_CHECK: scan notes per data source */

	/* results */
	struct jp_git_clone_result clone;
	struct jp_git_remote_info remote;
	struct jp_scan_result scan;
	struct jp_stage_result stage;
	struct jp_strv created;
	/* STAGE: from as given (secret: credentials and all), as the draft
	 * shows it, and the SHA-256 the download must have */
	char *from, *from_shown, *sha256;
	char staged_at[32];
	/* STAGE: also unpack the archives path holds (unpack_archives), the
	 * count that did */
	bool unpack;
	struct jp_stage_result within;
	struct jp_git_fill_result fill; /* FILL_IN */
};

static bool str_eq(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

void jp_flow_work_free(struct jp_flow_work *t)
{
	if (!t)
		return;
	if (t->run_lock >= 0)
		close(t->run_lock);
	free(t->url);
	free(t->ref);
	free(t->path);
	free(t->out);
	free(t->ckpt);
	free(t->log);
	free(t->asked_out);
	free(t->asked_ckpt);
	free(t->asked_log);
	free(t->run_tmpl);
	jp_profile_free(t->profile);
	jp_manifest_free(t->m);
	flow_inspected_dispose(&t->insp);
	free(t->dx);
	jp_git_clone_result_dispose(&t->clone);
	jp_git_remote_info_dispose(&t->remote);
	jp_stage_result_dispose(&t->stage);
	jp_stage_result_dispose(&t->within);
	jp_strv_dispose(&t->created);
	if (t->from)
		explicit_bzero(t->from, strlen(t->from));
	free(t->from);
	free(t->from_shown);
	free(t->sha256);
	free(t);
}

/* The checkout, and the repository and ref the answers name: it is brought
 * there when they name one. */
static int snapshot_inspect(struct jp_flow_work *t, const struct jp_flow *flow)
{
	const struct jp_manifest *m = flow->m;

	if (jp_set_str(&t->path, m->code.path) < 0 ||
	    jp_set_str(&t->url, flow->set[K_REPO_URL] ? m->code.repo_url : NULL) < 0 ||
	    jp_set_str(&t->ref, flow->set[K_REPO_REF] ? m->code.repo_ref : NULL) < 0)
		return JP_ENOMEM;
	t->sync = t->url || t->ref;
	t->ask = !(flow->options & JP_FLOW_MOVE_CHECKOUT);
	return 0;
}

/* Under dir (dir itself or below it). */
static bool under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return path && strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* The output directories as asked, and whether the run folder is the
 * profile's next free run-NNN (then it is claimed, not just made): only
 * when the person named none of the folders inside it. */
static int snapshot_outputs(struct jp_flow_work *t, const struct jp_flow *flow)
{
	t->out_ours = flow->made_out && strcmp(flow->made_out, t->out) == 0;
	for (size_t i = 0; !t->out_ours && i < flow->created.n; i++)
		if (strcmp(flow->created.v[i], t->out) == 0)
			t->out_ours = true;
	if (jp_set_str(&t->asked_out, t->out) < 0 || jp_set_str(&t->asked_ckpt, t->ckpt) < 0 ||
	    jp_set_str(&t->asked_log, t->log) < 0)
		return JP_ENOMEM;
	if (t->out_ours || flow->set[K_OUTPUT_DIR] || !flow->run_base || !flow->run_dir ||
	    !strstr(flow->run_base, "NNN") || !str_eq(flow->run_dir, t->out) ||
	    (flow->set[K_CHECKPOINT_DIR] && under(t->ckpt, t->out)) ||
	    (flow->set[K_LOG_DIR] && under(t->log, t->out)))
		return 0;
	t->run_reuse = flow->run_reuse;
	return jp_set_str(&t->run_tmpl, flow->run_base);
}

/* What a scan of data[index] needs: its path; staging it also where from
 * (credentials and all) and the SHA-256 a download must have. */
static int snapshot_data(struct jp_flow_work *t, const struct jp_flow *flow, size_t index,
			 struct jp_error *err)
{
	const struct jp_manifest *m = flow->m;
	const struct data_extra *x;

	if (t->action == JP_ACTION_SCAN) {
		if (index >= m->n_data || !m->data[index].path)
			return jp_error_set(err, JP_EUSAGE, _("data[%zu]: no data source to scan"),
					    index);
		return jp_set_str(&t->path, m->data[index].path) < 0 ? JP_ENOMEM : 0;
	}
	if (index >= m->n_data || !m->data[index].path ||
	    (!m->data[index].origin.from && !m->data[index].unpack_archives))
		return jp_error_set(err, JP_EUSAGE, _("data[%zu]: nothing to stage"), index);
	x = &flow->dx[index];
	t->unpack = !flow_stage_unpack_done(flow, index);
	if (jp_set_str(&t->path, m->data[index].path) < 0 ||
	    jp_set_str(&t->from_shown, m->data[index].origin.from) < 0)
		return JP_ENOMEM; /* the caller says so */
	/* staged from there already (a download is not fetched again) */
	if (t->unpack && flow_stage_from_done(flow, index))
		return 0;
	if (jp_set_str(&t->from, x->from_secret ? x->from_secret : m->data[index].origin.from) < 0 ||
	    jp_set_str(&t->sha256, x->want_sha256) < 0)
		return JP_ENOMEM;
	return 0;
}

/* The snapshot of a clone: the URL, the ref if one was given, the project
 * directory. JP_ENOMEM is for the caller to report. */
static int snapshot_clone(struct jp_flow_work *t, const struct jp_flow *flow,
			  struct jp_error *err)
{
	const struct jp_manifest *m = flow->m;

	if (m->code.source != JP_CODE_SHARED_STORAGE || flow->checkout != CHECKOUT_CLONE ||
	    !m->code.repo_url || !m->code.path)
		return jp_error_set(err, JP_EUSAGE, "%s",
				    _("a clone needs code on shared storage, a repository URL and "
				      "a project directory"));
	if (jp_set_str(&t->url, m->code.repo_url) < 0 ||
	    jp_set_str(&t->ref, flow->set[K_REPO_REF] ? m->code.repo_ref : NULL) < 0 ||
	    jp_set_str(&t->path, m->code.path) < 0)
		return JP_ENOMEM;
	return 0;
}

/* The snapshot of a resolve: the URL and the ref if one was given. */
static int snapshot_resolve(struct jp_flow_work *t, const struct jp_flow *flow,
			    struct jp_error *err)
{
	const struct jp_manifest *m = flow->m;

	if (m->code.source != JP_CODE_LAUNCH_CLONE || !m->code.repo_url)
		return jp_error_set(err, JP_EUSAGE, "%s",
				    _("resolving needs a launch-command clone and its URL"));
	if (jp_set_str(&t->url, m->code.repo_url) < 0 ||
	    jp_set_str(&t->ref, flow->set[K_REPO_REF] ? m->code.repo_ref : NULL) < 0)
		return JP_ENOMEM;
	return 0;
}

/* The snapshot of an outputs check: the three directories and their notes. */
static int snapshot_outputs_task(struct jp_flow_work *t, const struct jp_flow *flow,
				 struct jp_error *err)
{
	const struct jp_manifest *m = flow->m;

	if (!m->outputs.output_dir)
		return jp_error_set(err, JP_EUSAGE, "%s", _("no output directory yet"));
	if (jp_set_str(&t->out, m->outputs.output_dir) < 0 ||
	    jp_set_str(&t->ckpt, m->outputs.checkpoint_dir) < 0 ||
	    jp_set_str(&t->log, m->outputs.log_dir) < 0)
		return JP_ENOMEM;
	if (snapshot_outputs(t, flow) < 0)
		return JP_ENOMEM;
	return 0;
}

/* The snapshot of a check: a copy of the manifest, of the inspection notes
 * and of the data notes (no string of the flow's shared). */
static int snapshot_check(struct jp_flow_work *t, const struct jp_flow *flow)
{
	const struct jp_manifest *m = flow->m;

	if (flow_manifest_copy(&t->m, m) < 0 || flow_inspected_copy(&t->insp, &flow->insp) < 0)
		return JP_ENOMEM;
	if (m->n_data) {
		t->dx = calloc(m->n_data, sizeof(*t->dx));
		if (!t->dx)
			return JP_ENOMEM;
		for (size_t i = 0; i < m->n_data; i++) {
			t->dx[i] = flow->dx[i];
			/* the notes only: no string of the flow's is shared */
			t->dx[i].scanned_path = t->dx[i].from_secret = NULL;
			t->dx[i].want_sha256 = t->dx[i].staged_from = t->dx[i].staged_path = NULL;
			t->dx[i].unpacked_path = NULL;
			/* only a scan of the path as it is now counts */
			t->dx[i].complete = str_eq(flow->dx[i].scanned_path, m->data[i].path);
		}
	}
	if (!(m->code.source == JP_CODE_SHARED_STORAGE && flow->checkout == CHECKOUT_EXISTING &&
	      flow_insp_current(flow))) {
		free(t->insp.path);
		t->insp.path = NULL;
	}
	return 0;
}

int jp_flow_work_new(struct jp_flow_work **out, const struct jp_flow *flow, enum jp_action kind,
		     size_t index, bool deep, struct jp_error *err)
{
	const struct jp_manifest *m = flow->m;
	struct jp_flow_work *t = calloc(1, sizeof(*t));
	int rc = JP_ENOMEM;

	*out = NULL;
	if (!t)
		return jp_error_oom(err);
	t->run_lock = -1;
	struct jp_git_clone_result cr = JP_GIT_CLONE_RESULT_INIT;
	struct jp_git_remote_info ri = JP_GIT_REMOTE_INFO_INIT;
	t->clone = cr;
	t->remote = ri;
	t->action = kind;
	t->no_cache = flow->options & JP_FLOW_NO_CACHE;
	t->index = index;
	t->deep = deep;
	t->gen = flow->gen;
	if (jp_profile_copy(&t->profile, flow->profile) < 0)
		goto fail; /* rc is still JP_ENOMEM */

	switch (kind) {
	case JP_ACTION_CLONE:
		rc = snapshot_clone(t, flow, err);
		break;
	case JP_ACTION_INSPECT:
		if (m->code.source != JP_CODE_SHARED_STORAGE || !m->code.path)
			rc = jp_error_set(err, JP_EUSAGE, "%s",
					  _("only code on shared storage can be inspected"));
		else
			rc = snapshot_inspect(t, flow) < 0 ? JP_ENOMEM : 0;
		break;
	case JP_ACTION_RESOLVE:
		rc = snapshot_resolve(t, flow, err);
		break;
	case JP_ACTION_SCAN:
	case JP_ACTION_STAGE:
		rc = snapshot_data(t, flow, index, err);
		break;
	case JP_ACTION_OUTPUTS:
		rc = snapshot_outputs_task(t, flow, err);
		break;
	case JP_ACTION_CHECK:
		rc = snapshot_check(t, flow);
		break;
	case JP_ACTION_FILL_IN:
		if (m->code.source != JP_CODE_SHARED_STORAGE || !m->code.path)
			rc = jp_error_set(err, JP_EUSAGE, "%s",
					  _("only code on shared storage can be filled in"));
		else
			rc = jp_set_str(&t->path, m->code.path) < 0 ? JP_ENOMEM : 0;
		break;
	default:
		rc = jp_error_set(err, JP_EUSAGE, "%s", _("no such action"));
		break;
	}
	if (rc < 0)
		goto fail;
	*out = t;
	return 0;
fail:
	if (rc == JP_ENOMEM)
		jp_error_oom(err);
	jp_flow_work_free(t);
	return rc;
}

/* --- the work ------------------------------------------------------------------ */

/* What the checkout is, into the snapshot's notes. */
static int note_info(struct jp_flow_work *t, const struct jp_git_repo_info *info)
{
	t->insp.is_git = true;
	memcpy(t->insp.commit, info->commit, sizeof(t->insp.commit));
	t->insp.dirty = info->dirty;
	t->insp.untracked = info->untracked;
	t->insp.unpushed = info->unpushed;
	free(t->insp.url);
	free(t->insp.branch);
	free(t->insp.dirty_paths);
	t->insp.url = t->insp.branch = t->insp.dirty_paths = NULL;
	if (jp_set_str(&t->insp.url, info->url) < 0 || jp_set_str(&t->insp.branch, info->branch) < 0 ||
	    jp_set_str(&t->insp.dirty_paths, info->dirty_paths) < 0)
		return JP_ENOMEM;
	return 0;
}

static int look(struct jp_flow_work *t, struct jp_error *err)
{
	struct jp_git_repo_info info = JP_GIT_REPO_INFO_INIT;
	struct jp_error quiet = JP_ERROR_INIT;
	int rc;

	rc = jp_git_inspect(&info, t->path, NULL, &quiet);
	if (rc == JP_ENOENT) {
		/* code that is not a git checkout: allowed, noted */
		t->insp.is_git = false;
		rc = jp_set_str(&t->insp.problem, jp_error_message(&quiet));
		jp_error_dispose(&quiet);
		return rc < 0 ? jp_error_oom(err) : 0;
	}
	if (rc < 0) {
		for (size_t i = 0; i < quiet.n; i++)
			jp_error_set(err, rc, "%s", quiet.msgs[i]);
		if (quiet.n == 0)
			jp_error_set(err, rc, _("%s: cannot inspect the checkout"), t->path);
		jp_error_dispose(&quiet);
		return rc;
	}
	jp_error_dispose(&quiet);
	rc = note_info(t, &info);
	jp_git_repo_info_dispose(&info);
	return rc < 0 ? jp_error_oom(err) : 0;
}

/* Bring the checkout to the ref asked for: a refusal is the answer's
 * problem (a failed check), not the task's. */
static int sync_checkout(struct jp_flow_work *t, const struct jp_port *port, struct jp_error *err)
{
	struct jp_git_update_options o = JP_GIT_UPDATE_OPTIONS_INIT;
	struct jp_git_update_result res = JP_GIT_UPDATE_RESULT_INIT;
	struct jp_error why = JP_ERROR_INIT;
	int rc;

	t->insp.synced = true;
	if (jp_set_str(&t->insp.req_url, t->url) < 0 || jp_set_str(&t->insp.req_ref, t->ref) < 0)
		return jp_error_oom(err);
	o.url = t->url ? t->url : t->insp.url;
	o.path = t->path;
	o.ref = t->ref;
	o.ask = t->ask;
	o.no_cache = t->no_cache;
	if (!o.url) {
		rc = jp_error_set(&why, JP_EREFUSED,
				  _("%s has no remote to fetch %s from: give code.repo.url, or leave "
				    "the ref out to use what is there"),
				  t->path, t->ref);
	} else {
		rc = jp_git_update(&res, &o, port, &why);
	}
	/* what the checkout is now, as the update saw it */
	if (res.checkout.workdir && note_info(t, &res.checkout) < 0)
		rc = JP_ENOMEM;
	else if (!res.checkout.workdir && o.url)
		t->insp.is_git = false;
	if (rc == JP_EREFUSED) {
		bool other = !t->insp.is_git || (t->url && !jp_url_same_repo(t->insp.url, t->url));
		t->insp.refusal_key = other ? K_REPO_URL : K_REPO_REF;
		rc = jp_set_str(&t->insp.refusal, jp_error_message(&why));
	} else if (rc < 0 && rc != JP_ENOMEM) {
		for (size_t i = 0; i < why.n; i++)
			jp_error_set(err, rc, "%s", why.msgs[i]);
	} else if (rc == 0) {
		rc = jp_set_str(&t->insp.note, res.summary);
		if (res.moved && (!res.ref || strlen(res.ref) < sizeof(t->insp.moved_ref))) {
			/* what a refused prep needs to take it back */
			t->insp.moved = (struct jp_git_update_result)JP_GIT_UPDATE_RESULT_INIT;
			t->insp.moved.moved = true;
			t->insp.moved.ref_kind = res.ref_kind;
			t->insp.moved.carried = res.carried;
			memcpy(t->insp.moved.from, res.from, sizeof(res.from));
			memcpy(t->insp.moved.to, res.to, sizeof(res.to));
			memcpy(t->insp.moved.head_was, res.head_was, sizeof(res.head_was));
			memcpy(t->insp.moved.branch_was, res.branch_was, sizeof(res.branch_was));
			snprintf(t->insp.moved_ref, sizeof(t->insp.moved_ref), "%s",
				 res.ref ? res.ref : "");
		}
	}
	if (rc == JP_ENOMEM)
		jp_error_oom(err);
	jp_error_dispose(&why);
	jp_git_update_result_dispose(&res);
	return rc;
}

static int run_inspect(struct jp_flow_work *t, const struct jp_port *port, struct jp_error *err)
{
	if (jp_set_str(&t->insp.path, t->path) < 0)
		return jp_error_oom(err);
	/* with a URL, the update looks at the checkout itself (one status of
	 * every file, not three) */
	if (!t->sync)
		return look(t, err);
	if (!t->url) {
		int rc = look(t, err);
		if (rc != 0 || !t->insp.is_git)
			return rc;
	}
	return sync_checkout(t, port, err);
}

/* *path with its leading `from` replaced by `to` (when it is under it). */
static int move_under(char **path, const char *from, const char *to)
{
	char *moved = NULL;

	if (!under(*path, from))
		return 0;
	if (asprintf(&moved, "%s%s", to, *path + strlen(from)) < 0)
		return JP_ENOMEM;
	free(*path);
	*path = moved;
	return 0;
}

/* The run folder NNN names in tmpl, at least three digits. */
static char *run_name(const char *tmpl, unsigned long num)
{
	const char *nnn = strstr(tmpl, "NNN");
	char *out = NULL;

	if (asprintf(&out, "%.*s%03lu%s", (int)(nnn - tmpl), tmpl, num, nnn + 3) < 0)
		return NULL;
	return out;
}

/* Claim the run folder with mkdir(2) of the folder itself: two jobprep
 * that picked the same next number at once cannot both get it; the loser
 * takes the next free one, and its checkpoints and logs move with it. */
static int claim_run(struct jp_flow_work *t, struct jp_error *err)
{
	const char *nnn = strstr(t->run_tmpl, "NNN");
	const char *slash = strrchr(t->run_tmpl, '/');
	unsigned long num = strtoul(t->out + (nnn - t->run_tmpl), NULL, 10);
	char *parent;
	int rc;

	if (!slash || slash == t->run_tmpl || slash > nnn)
		return jp_fs_mkdir_p(&t->created, t->out, 0755, err);
	if (!(parent = strndup(t->run_tmpl, (size_t)(slash - t->run_tmpl))))
		return jp_error_oom(err);
	rc = jp_fs_mkdir_p(&t->created, parent, 0755, err);
	free(parent);
	for (int tries = 0; rc == 0 && tries < 10000; tries++) {
		char *next;

		if (mkdir(t->out, 0755) == 0) {
			/* held until the flow ends: no other prep takes it as one
			 * left behind while this one works in it */
			t->run_lock = jp_fs_lock_dir(t->out);
			return jp_strv_push(&t->created, t->out) < 0
				       ? jp_error_oom(err)
				       : 0;
		}
		if (errno != EEXIST)
			return jp_error_set(err, errno == ENOSPC ? JP_ENOSPC : JP_EIO,
					    _("%s: cannot create the directory: %s"), t->out,
					    strerror(errno));
		/* the folder a stopped prep left empty, still empty: ours now */
		if (tries == 0 && t->run_reuse) {
			int fd = jp_fs_lock_dir(t->out);

			errno = 0;
			if ((fd >= 0 || errno != EWOULDBLOCK) && flow_dir_files(t->out) == 0 &&
			    errno != ETIMEDOUT && errno != ENOMEM) {
				t->run_lock = fd;
				return 0;
			}
			if (fd >= 0)
				close(fd);
		}
		if (!(next = run_name(t->run_tmpl, ++num)) ||
		    move_under(&t->ckpt, t->out, next) < 0 || move_under(&t->log, t->out, next) < 0) {
			free(next);
			return jp_error_oom(err);
		}
		free(t->out);
		t->out = next;
	}
	return rc;
}

static int run_outputs(struct jp_flow_work *t, const struct jp_port *port, struct jp_error *err)
{
	size_t n = 0;
	int rc;

	if (t->run_tmpl) {
		rc = claim_run(t, err);
		if (rc < 0) {
			jp_fs_unmake(&t->created);
			jp_strv_dispose(&t->created);
			return rc;
		}
	} else if (!t->out_ours && (n = flow_dir_files(t->out)) > 0) {
		char *q = NULL;
		int yes = 0;
		if (asprintf(&q, _("%s already holds files from an earlier run (%zu files). Write this run "
				   "into it anyway?"),
			     t->out, n) < 0)
			return jp_error_oom(err);
		if (port && port->confirm)
			yes = port->confirm(q, port->payload) == 1;
		free(q);
		if (!yes)
			return jp_error_set(err, JP_EREFUSED,
					    _("%s already holds files from an earlier run (%zu files): "
					      "choose a new run directory (jobprep never reuses one "
					      "without asking)"),
					    t->out, n);
	}
	const char *dirs[] = { t->out, t->ckpt, t->log };
	for (size_t i = 0; i < 3; i++) {
		if (!dirs[i])
			continue;
		/* 0755, not 0777: a run's folder holds env.sh, which every
		 * Worker sources; no umask makes it writable by others. */
		rc = jp_fs_mkdir_p(&t->created, dirs[i], 0755, err);
		if (rc < 0) {
			jp_fs_unmake(&t->created);
			return rc;
		}
	}
	return 0;
}

/* What only the flow knows: what bringing the checkout to the ref did or
 * refused. */
static int add_code_notes(struct jp_flow_work *t)
{
	const struct inspected *in = &t->insp;
	struct jp_manifest *m = t->m;
	int rc = 0;

	if (!in->path)
		return 0;
	if (in->refusal)
		return jp_manifest_add_check(m, flow_key_name(in->refusal_key), JP_CHECK_FAIL, in->path,
					     "%s", in->refusal);
	/* is it a checkout, clean, pushed: the check module's (jp_check_repo),
	 * the same set `jobprep check` reports */
	if (in->is_git && in->note)
		rc = jp_manifest_add_check(m, "code.repo.ref.update", JP_CHECK_PASS, in->path, "%s",
					   in->note);
	return rc;
}

/* What the scans found that a job would trip over. */
static int add_data_notes(struct jp_flow_work *t)
{
	struct jp_manifest *m = t->m;
	char id[96];
	int rc = 0;

	for (size_t i = 0; rc == 0 && t->dx && i < m->n_data; i++) {
		const struct data_extra *x = &t->dx[i];
		const char *path = m->data[i].path;
		if (!x->complete) /* here: "a scan of this path exists" */
			continue;
		/* the check module may judge the contents itself */
		snprintf(id, sizeof(id), "data[%zu].path.contents", i);
		bool judged = false;
		for (size_t k = 0; k < m->n_checks && !judged; k++)
			judged = m->checks[k].id && strcmp(m->checks[k].id, id) == 0;
		if (judged)
			continue;
		snprintf(id, sizeof(id), "data[%zu].archives", i);
		if (x->stats.archives > 0)
			rc = jp_manifest_add_check(m, id, JP_CHECK_WARN, path,
						   _("%llu archive(s) under %s: unpack them before "
						     "submitting, not in the job's first step while the "
						     "GPUs wait"),
						   (unsigned long long)x->stats.archives, path);
		snprintf(id, sizeof(id), "data[%zu].unreadable", i);
		if (rc == 0 && x->unreadable > 0)
			rc = jp_manifest_add_check(m, id, JP_CHECK_WARN, path,
						   _("%llu entry(ies) under %s cannot be read: fix their "
						     "permissions so the job's user can read them"),
						   (unsigned long long)x->unreadable, path);
		snprintf(id, sizeof(id), "data[%zu].links", i);
		if (rc == 0 && x->links_outside > 0)
			rc = jp_manifest_add_check(m, id, JP_CHECK_WARN, path,
						   _("%llu symbolic link(s) under %s point outside it: the "
						     "job sees their targets only if those are mounted too"),
						   (unsigned long long)x->links_outside, path);
	}
	return rc;
}

/* mkdir -p of path's parent ({shared}/projects or {shared}/datasets may
 * not exist yet on a fresh platform), each folder made recorded in t. A
 * bounded look at it first: on a hung mount "PATH: no answer within N s"
 * (and the mount known hung, so the clone or stage after fails at once),
 * not a mkdir that waits for the mount. */
static int make_parent(struct jp_flow_work *t, const char *path, struct jp_error *err)
{
	char *parent = strdup(path), *slash = parent ? strrchr(parent, '/') : NULL;
	struct stat st;
	int rc = 0, errnum = 0;

	if (!parent)
		return jp_error_oom(err);
	if (slash && slash != parent) {
		*slash = '\0';
		rc = jp_probe_stat(&st, &errnum, parent, 0, 0, err);
		if (rc == 0)
			rc = jp_fs_mkdir_p(&t->created, parent, 0755, err);
	}
	free(parent);
	return rc;
}

/* Copy, unpack or download from onto path ({shared}/datasets may not
 * exist yet), then unpack the archives it holds when asked; a failure says
 * which data source it was. */
static int run_stage(struct jp_flow_work *t, const struct jp_port *port, struct jp_error *err)
{
	struct jp_stage_options o = JP_STAGE_OPTIONS_INIT;
	time_t now;
	struct tm tm;
	char *why;
	int rc = t->from ? make_parent(t, t->path, err) : 0;

	if (rc < 0)
		return rc;
	o.sha256 = t->sha256;
	if (t->profile) {
		o.reserve_bytes = t->profile->stage_reserve_bytes;
		o.has_reserve = t->profile->has_stage_reserve;
	}
	if (t->from && (rc = jp_stage(&t->stage, t->from, t->path, &o, port, err)) < 0) {
		jp_fs_unmake(&t->created);
		if (rc != JP_ECANCELED) {
			why = jp_error_take_last(err);
			jp_error_set(err, rc, _("data[%zu]: staging %s onto %s failed: %s (nothing "
						"half-made is left under its name; a re-run goes on "
						"from there)"),
				     t->index, t->from_shown, t->path, why ? why : jp_strerror(rc));
			free(why);
		}
		return rc;
	}
	if (t->unpack && (rc = jp_stage_unpack_within(&t->within, t->path, NULL, port, err)) < 0) {
		if (rc != JP_ECANCELED) {
			why = jp_error_take_last(err);
			jp_error_set(err, rc, _("data[%zu]: unpacking the archives %s holds failed: "
						"%s (nothing half-made is left under its name; a "
						"re-run goes on from there)"),
				     t->index, t->path, why ? why : jp_strerror(rc));
			free(why);
		}
		return rc;
	}
	now = time(NULL);
	gmtime_r(&now, &tm);
	strftime(t->staged_at, sizeof(t->staged_at), "%Y-%m-%dT%H:%M:%SZ", &tm);
	return 0;
}

static int run_check(struct jp_flow_work *t, struct jp_error *err)
{
	int rc;

	rc = jp_check_manifest(t->m, t->profile, t->deep ? JP_CHECK_DEEP : 0, err);
	if (rc < 0)
		return rc;
	if (add_code_notes(t) < 0 || add_data_notes(t) < 0)
		return jp_error_oom(err);
	return 0;
}

int jp_flow_work_run(struct jp_flow_work *t, const struct jp_port *port, struct jp_error *err)
{
	int rc = 0;

	switch (t->action) {
	case JP_ACTION_CLONE: {
		struct jp_git_clone_options o = JP_GIT_CLONE_OPTIONS_INIT;
		rc = make_parent(t, t->path, err);
		if (rc < 0)
			break;
		o.url = t->url;
		o.target = t->path;
		o.ref = t->ref;
		o.profile = t->profile;
		o.no_cache = t->no_cache;
		rc = jp_git_clone(&t->clone, &o, port, err);
		if (rc < 0)
			jp_fs_unmake(&t->created);
		break;
	}
	case JP_ACTION_INSPECT:
		rc = run_inspect(t, port, err);
		break;
	case JP_ACTION_RESOLVE:
		rc = jp_git_remote_check(&t->remote, t->url, t->ref, 0, port, err);
		break;
	case JP_ACTION_SCAN: {
		struct jp_scan_opts o = JP_SCAN_OPTS_INIT;
		o.mode = t->deep ? JP_SCAN_FULL : JP_SCAN_QUICK;
		rc = jp_scan(&t->scan, t->path, &o, NULL, port, err);
		break;
	}
	case JP_ACTION_OUTPUTS:
		rc = run_outputs(t, port, err);
		break;
	case JP_ACTION_CHECK:
		rc = run_check(t, err);
		break;
	case JP_ACTION_STAGE:
		rc = run_stage(t, port, err);
		break;
	case JP_ACTION_FILL_IN:
		rc = jp_git_fill_in(&t->fill, t->path, port, err);
		break;
	}
	t->done = rc == 0;
	return rc;
}

/* --- results back into the flow ----------------------------------------------- */

static int stale(struct jp_error *err, const char *what)
{
	return jp_error_set(err, JP_EREFUSED,
			    _("the answers changed while %s ran: its result was set aside"), what);
}

/* The staging is the data source's origin; its earlier scan is of other
 * contents. */
static int apply_stage(struct jp_flow *flow, const struct jp_flow_work *t, struct jp_error *err)
{
	struct jp_data_source *d;
	struct data_extra *x;
	static const enum jp_origin_kind kinds[] = {
		[JP_STAGE_DIR] = JP_ORIGIN_DIR,
		[JP_STAGE_FILE] = JP_ORIGIN_FILE,
		[JP_STAGE_ARCHIVE] = JP_ORIGIN_ARCHIVE,
		[JP_STAGE_HUB] = JP_ORIGIN_HUB,
	};
	const char *algorithm, *digest;

	for (size_t i = 0; i < t->created.n; i++)
		if (jp_strv_push(&flow->created, t->created.v[i]) < 0)
			return JP_ENOMEM;
	if (t->index >= flow->m->n_data || !str_eq(flow->m->data[t->index].path, t->path) ||
	    !str_eq(flow->m->data[t->index].origin.from, t->from_shown))
		return stale(err, _("the staging"));
	d = &flow->m->data[t->index];
	x = &flow->dx[t->index];
	if (t->unpack && d->unpack_archives) {
		if (jp_set_str(&x->unpacked_path, t->path) < 0)
			return JP_ENOMEM;
		x->unpacked_n = t->within.archives + t->within.already;
		free(x->scanned_path);
		x->scanned_path = NULL;
	}
	if (!t->from)
		return 0;
	d->origin.kind = strncasecmp(t->from_shown, "http", 4) == 0 ? JP_ORIGIN_URL
								   : kinds[t->stage.kind];
	/* a Hub repository: the commit staged pins it */
	algorithm = t->stage.revision ? "git-commit" : t->sha256 ? "sha256" : NULL;
	digest = t->stage.revision ? t->stage.revision : t->sha256;
	if (jp_set_str(&d->origin.staged_at, t->staged_at) < 0 ||
	    jp_set_str(&d->origin.digest_algorithm, algorithm) < 0 ||
	    jp_set_str(&d->origin.digest, digest) < 0 ||
	    jp_set_str(&x->staged_from, t->from_shown) < 0 || jp_set_str(&x->staged_path, t->path) < 0)
		return JP_ENOMEM;
	if (d->origin.digest)
		for (char *p = d->origin.digest; *p; p++)
			*p = (char)tolower((unsigned char)*p);
	free(x->scanned_path);
	x->scanned_path = NULL;
	return 0;
}

/* The helpers below take one finished task's result into the flow. Each
 * returns 0, JP_ENOMEM (for the caller to report) or stale()'s error. */

static int apply_clone(struct jp_flow *flow, const struct jp_flow_work *t, struct jp_error *err)
{
	const struct jp_manifest *m = flow->m;

	for (size_t i = 0; i < t->created.n; i++)
		if (jp_strv_push(&flow->created, t->created.v[i]) < 0)
			return JP_ENOMEM;
	/* The directory is made whatever the answers say now: remember it. */
	if (jp_set_str(&flow->cloned_url, t->url) < 0 ||
	    jp_set_str(&flow->cloned_req_ref, t->ref) < 0 ||
	    jp_set_str(&flow->cloned_path, t->path) < 0 ||
	    jp_set_str(&flow->cloned_ref, t->clone.ref) < 0)
		return JP_ENOMEM;
	memcpy(flow->cloned_commit, t->clone.commit, sizeof(flow->cloned_commit));
	if (!str_eq(m->code.path, t->path) || !jp_url_same_repo(m->code.repo_url, t->url))
		return stale(err, _("the clone"));
	return 0;
}

static int apply_inspect(struct jp_flow *flow, const struct jp_flow_work *t,
			 struct jp_error *err)
{
	if (!str_eq(flow->m->code.path, t->path))
		return stale(err, _("the inspection"));
	flow_inspected_dispose(&flow->insp);
	if (flow_inspected_copy(&flow->insp, &t->insp) < 0)
		return JP_ENOMEM;
	flow->moves += flow->insp.moved.moved;
	/* tried again once a code answer is set again */
	flow->insp.refused_gen = flow->code_gen;
	return 0;
}

static int apply_resolve(struct jp_flow *flow, const struct jp_flow_work *t,
			 struct jp_error *err)
{
	const struct jp_manifest *m = flow->m;

	if (!jp_url_same_repo(m->code.repo_url, t->url) ||
	    !str_eq(flow->set[K_REPO_REF] ? m->code.repo_ref : NULL, t->ref))
		return stale(err, _("the lookup of the repository"));
	if (jp_set_str(&flow->resolved_url, t->url) < 0 ||
	    jp_set_str(&flow->resolved_req_ref, t->ref) < 0 ||
	    jp_set_str(&flow->resolved_ref, t->remote.ref_name) < 0)
		return JP_ENOMEM;
	memcpy(flow->resolved_commit, t->remote.commit, sizeof(flow->resolved_commit));
	flow->resolved_unverified = t->remote.commit_unverified;
	return 0;
}

static int apply_scan(struct jp_flow *flow, const struct jp_flow_work *t, struct jp_error *err)
{
	const struct jp_manifest *m = flow->m;

	if (t->index >= m->n_data || !str_eq(m->data[t->index].path, t->path))
		return stale(err, _("the scan"));
	struct data_extra *x = &flow->dx[t->index];
	if (jp_set_str(&x->scanned_path, t->path) < 0)
		return JP_ENOMEM;
	x->scanned_deep = t->deep;
	x->complete = t->scan.complete;
	x->stats = t->scan.stats;
	x->unreadable = t->scan.unreadable;
	x->links_outside = t->scan.symlinks_outside;
	x->archive_bytes = t->scan.archive_bytes;
	return 0;
}

static int apply_outputs(struct jp_flow *flow, const struct jp_flow_work *t,
			 struct jp_error *err)
{
	const struct jp_manifest *m = flow->m;

	for (size_t i = 0; i < t->created.n; i++)
		if (jp_strv_push(&flow->created, t->created.v[i]) < 0)
			return JP_ENOMEM;
	if (!str_eq(m->outputs.output_dir, t->asked_out) ||
	    !str_eq(m->outputs.checkpoint_dir, t->asked_ckpt) ||
	    !str_eq(m->outputs.log_dir, t->asked_log))
		return stale(err, _("creating the output directories"));
	/* Another run took the number first: the defaults follow the
	 * folder claimed (recomputed below). */
	if (!str_eq(t->out, t->asked_out) && jp_set_str(&flow->run_dir, t->out) < 0)
		return JP_ENOMEM;
	if (jp_set_str(&flow->made_out, t->out) < 0 || jp_set_str(&flow->made_ckpt, t->ckpt) < 0 ||
	    jp_set_str(&flow->made_log, t->log) < 0)
		return JP_ENOMEM;
	/* the run folder's lock, for as long as the flow lives (a dup shares it) */
	if (t->run_lock >= 0) {
		if (flow->run_lock >= 0)
			close(flow->run_lock);
		flow->run_lock = fcntl(t->run_lock, F_DUPFD_CLOEXEC, 0);
	}
	return 0;
}

static int apply_check(struct jp_flow *flow, const struct jp_flow_work *t, struct jp_error *err)
{
	struct jp_manifest *m = flow->m;

	if (t->gen != flow->gen)
		return stale(err, _("the checks"));
	jp_manifest_clear_checks(m);
	for (size_t i = 0; i < t->m->n_checks; i++) {
		const struct jp_check *c = &t->m->checks[i];
		if (jp_manifest_add_check(m, c->id, c->status, c->path, "%s", c->message) < 0)
			return JP_ENOMEM;
	}
	/* where the checks found the paths: what the Workers compare with; what
	 * the lint read of the code's needs of python3 */
	if (flow_storage_copy(m, t->m) < 0)
		return JP_ENOMEM;
	return jp_code_python_copy(&m->code.python, &t->m->code.python);
}

int jp_flow_work_apply(struct jp_flow *flow, const struct jp_flow_work *t, struct jp_error *err)
{
	int rc = 0;

	if (!t->done)
		return jp_error_set(err, JP_EUSAGE, "%s", _("the action has not finished"));
	/* code may have arrived: what the inline checks learnt about it is old */
	if (t->action == JP_ACTION_CLONE || t->action == JP_ACTION_INSPECT) {
		free(flow->cache->sync_path);
		flow->cache->sync_path = NULL;
	}
	switch (t->action) {
	case JP_ACTION_CLONE:
		rc = apply_clone(flow, t, err);
		break;
	case JP_ACTION_INSPECT:
		rc = apply_inspect(flow, t, err);
		break;
	case JP_ACTION_RESOLVE:
		rc = apply_resolve(flow, t, err);
		break;
	case JP_ACTION_SCAN:
		rc = apply_scan(flow, t, err);
		break;
	case JP_ACTION_STAGE:
		rc = apply_stage(flow, t, err);
		break;
	case JP_ACTION_OUTPUTS:
		rc = apply_outputs(flow, t, err);
		break;
	case JP_ACTION_CHECK:
		rc = apply_check(flow, t, err);
		if (rc == JP_ENOMEM)
			return jp_error_oom(err);
		/* the checks do not change any answer: keep gen as it is */
		return rc;
	case JP_ACTION_FILL_IN:
		/* the checkout changed under the checks: they run again */
		if (!str_eq(flow->m->code.path, t->path))
			return stale(err, _("filling in the checkout"));
		break;
	}
	if (rc == JP_ENOMEM)
		return jp_error_oom(err);
	if (rc < 0)
		return rc;
	flow->gen++;
	return flow_recompute(flow, err);
}

/* --- what is still to do --------------------------------------------------------- */

static bool scan_done(const struct jp_flow *flow, size_t i, bool deep)
{
	const struct data_extra *x = &flow->dx[i];
	return x->scanned_path && str_eq(x->scanned_path, flow->m->data[i].path) &&
	       (x->scanned_deep || !deep);
}

static bool outputs_done(const struct jp_flow *flow)
{
	const struct jp_manifest *m = flow->m;
	return flow->made_out && str_eq(flow->made_out, m->outputs.output_dir) &&
	       str_eq(flow->made_ckpt, m->outputs.checkpoint_dir) &&
	       str_eq(flow->made_log, m->outputs.log_dir);
}

int flow_pending_deep(enum jp_action **kinds, size_t **indices, size_t *n,
		      const struct jp_flow *flow, bool deep, struct jp_error *err)
{
	const struct jp_manifest *m = flow->m;
	size_t cap = 4 + 2 * m->n_data, k = 0;
	enum jp_action *a = calloc(cap, sizeof(*a));
	size_t *ix = calloc(cap, sizeof(*ix));

	*kinds = NULL;
	*indices = NULL;
	*n = 0;
	if (!a || !ix) {
		free(a);
		free(ix);
		return jp_error_oom(err);
	}
	if (m->code.source == JP_CODE_SHARED_STORAGE && m->code.path) {
		if (flow->checkout == CHECKOUT_CLONE && !m->code.repo_commit)
			a[k++] = JP_ACTION_CLONE;
		else if (flow->checkout == CHECKOUT_EXISTING &&
			 (!flow_insp_current(flow) ||
			  (flow->insp.refusal && flow->insp.refused_gen != flow->code_gen)))
			a[k++] = JP_ACTION_INSPECT;
	} else if (m->code.source == JP_CODE_LAUNCH_CLONE && !m->code.repo_commit) {
		a[k++] = JP_ACTION_RESOLVE;
	}
	/* what is staged comes first, and is scanned once it is there */
	for (size_t i = 0; i < m->n_data; i++) {
		if (m->data[i].path && !flow_stage_done(flow, i)) {
			ix[k] = i;
			a[k++] = JP_ACTION_STAGE;
		}
	}
	for (size_t i = 0; i < m->n_data; i++) {
		if (m->data[i].path && flow_stage_done(flow, i) && !scan_done(flow, i, deep)) {
			ix[k] = i;
			a[k++] = JP_ACTION_SCAN;
		}
	}
	if (m->outputs.output_dir && !outputs_done(flow))
		a[k++] = JP_ACTION_OUTPUTS;
	a[k++] = JP_ACTION_CHECK;
	*kinds = a;
	*indices = ix;
	*n = k;
	return 0;
}

int jp_flow_pending(enum jp_action **kinds, size_t **indices, size_t *n,
		    const struct jp_flow *flow, struct jp_error *err)
{
	return flow_pending_deep(kinds, indices, n, flow, false, err);
}

int jp_flow_run(struct jp_flow *flow, enum jp_action kind, size_t index, bool deep,
		const struct jp_port *port, struct jp_error *err)
{
	struct jp_flow_work *t = NULL;
	int rc;

	rc = jp_flow_work_new(&t, flow, kind, index, deep, err);
	if (rc == 0)
		rc = jp_flow_work_run(t, port, err);
	if (rc == 0)
		rc = jp_flow_work_apply(flow, t, err);
	jp_flow_work_free(t);
	return rc;
}
