/* The flow's inline checks: one verdict (pass / warn / fail + why) per value,
 * as the user types it, and which fields apply to the current answers. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "buf.h"
#include "jobprep/i18n.h"
#include "jobprep/url.h"
#include "jobprep/lint.h"
#include "lint_internal.h"
#include "jobprep/pathclass.h"
#include "pathclass_internal.h"
#include "jobprep/probe.h"
#include "jobprep/shellwords.h"
#include "flow_internal.h"
#include "manifest_internal.h"
#include "url_internal.h"

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

bool flow_insp_current(const struct jp_flow *flow)
{
	const struct jp_manifest *m = flow->m;
	const struct inspected *in = &flow->insp;

	return in->path && m->code.path && strcmp(in->path, m->code.path) == 0 &&
	       same_str(in->req_url, flow->set[K_REPO_URL] ? m->code.repo_url : NULL) &&
	       same_str(in->req_ref, flow->set[K_REPO_REF] ? m->code.repo_ref : NULL);
}

bool flow_code_pending(const struct jp_flow *flow)
{
	const struct jp_manifest *m = flow->m;

	if (m->code.source == JP_CODE_SHARED_STORAGE && flow->checkout == CHECKOUT_CLONE)
		return !m->code.repo_commit;
	/* an existing checkout still to be brought to the ref asked for */
	if (m->code.source == JP_CODE_SHARED_STORAGE && (flow->set[K_REPO_URL] || flow->set[K_REPO_REF]))
		return !flow_insp_current(flow);
	if (m->code.source == JP_CODE_LAUNCH_CLONE)
		return !m->code.repo_commit;
	return false;
}

/* --- image references ------------------------------------------------------------ */

static bool all_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i]))
			return false;
	return true;
}

static const char *const bad_component =
	N_("repository names are lower-case letters and digits, joined by "
	   "'.', '_', '-' or '/'");
static const char *const bad_tag =
	N_("a tag is 1 to 128 characters: letters, digits, '_', '.' and '-'");

/* "@sha256:<64 lower-case hex>" at `at`. */
static const char *digest_problem(const char *at)
{
	if (strncmp(at + 1, "sha256:", 7) != 0)
		return N_("a digest is written @sha256:<64 hex digits>");
	if (strlen(at + 8) != 64 || !all_hex(at + 8, 64))
		return N_("a sha256 digest is 64 lower-case hex digits");
	return NULL;
}

/* The ":tag" of ref..*name_end, after its last '/': checked, and cut off
 * *name_end. */
static const char *tag_problem(const char *ref, const char **name_end)
{
	const char *p, *last_slash = NULL, *colon = NULL;

	for (p = ref; p < *name_end; p++)
		if (*p == '/')
			last_slash = p;
	for (p = last_slash ? last_slash + 1 : ref; p < *name_end; p++)
		if (*p == ':')
			colon = p;
	if (!colon)
		return NULL;
	size_t tl = (size_t)(*name_end - colon - 1);
	if (tl == 0 || tl > 128)
		return bad_tag;
	if (!(isalnum((unsigned char)colon[1]) || colon[1] == '_'))
		return N_("a tag starts with a letter, digit or '_'");
	for (p = colon + 1; p < *name_end; p++)
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != '.' && *p != '-')
			return bad_tag;
	*name_end = colon;
	return NULL;
}

/* Past the registry, when the first component is one (it has '.' or ':',
 * or is localhost): *path is where the repository name starts. */
static const char *registry_problem(const char *ref, const char *name_end, const char **path)
{
	const char *first_slash = memchr(ref, '/', (size_t)(name_end - ref));

	*path = ref;
	if (!first_slash)
		return NULL;
	size_t fl = (size_t)(first_slash - ref);
	if (!memchr(ref, '.', fl) && !memchr(ref, ':', fl) &&
	    !(fl == 9 && strncmp(ref, "localhost", 9) == 0))
		return NULL;
	for (const char *p = ref; p < first_slash; p++)
		if (!isalnum((unsigned char)*p) && *p != '.' && *p != '-' && *p != ':')
			return N_("the registry is a host name, optionally with :port");
	*path = first_slash + 1;
	return NULL;
}

/* Components: [a-z0-9]+ separated by . _ __ - within, / between. */
static const char *components_problem(const char *path, const char *name_end)
{
	bool start = true;

	if (path >= name_end)
		return N_("an image reference needs a repository name after the registry");
	for (const char *p = path; p < name_end; p++) {
		char c = *p;
		if (islower((unsigned char)c) || isdigit((unsigned char)c)) {
			start = false;
			continue;
		}
		if (isupper((unsigned char)c))
			return N_("repository names are lower-case");
		if (start || !strchr("/._-", c) || c == '\0')
			return bad_component;
		if (c == '/')
			start = true;
		else if (c == '_' && p + 1 < name_end && p[1] == '_')
			p++;
		else if (c == '-')
			while (p + 1 < name_end && p[1] == '-')
				p++;
		if (c != '/' && (p + 1 >= name_end || p[1] == '/'))
			return bad_component;
	}
	if (start)
		return N_("an image reference needs a repository name after the registry");
	return NULL;
}

/* [registry[:port]/]path[:tag][@sha256:<64 hex>], the Docker reference
 * grammar: path components lower-case alphanumerics joined by . _ __ or -,
 * a tag of at most 128 word characters, . and -. */
const char *flow_image_problem(const char *ref, bool *no_tag)
{
	const char *at, *name_end, *path, *why;

	*no_tag = false;
	if (!ref || !*ref)
		return N_("an image reference is required, e.g. registry.example.com/team/train:v1");
	for (const char *p = ref; *p; p++)
		if (isspace((unsigned char)*p))
			return N_("an image reference has no spaces");
	at = strchr(ref, '@');
	if (at && (why = digest_problem(at)))
		return why;
	name_end = at ? at : ref + strlen(ref);
	const char *before = name_end;
	if ((why = tag_problem(ref, &name_end)))
		return why;
	if (name_end == before && !at)
		*no_tag = true;
	if ((why = registry_problem(ref, name_end, &path)))
		return why;
	return components_problem(path, name_end);
}

/* --- paths --------------------------------------------------------------------- */

/* Where something should go instead, for messages: the default for the
 * field when there is one, else the shared root. */
static char *suggestion(const struct jp_flow *flow, enum fkey key)
{
	const struct jp_profile *p = flow->profile;
	const char *tmpl = NULL;
	char *s = NULL;

	switch (key) {
	case K_CODE_PATH: tmpl = p->project_dir; break;
	case K_OUTPUT_DIR: tmpl = p->output_dir; break;
	case K_CHECKPOINT_DIR: tmpl = p->checkpoint_dir; break;
	case K_LOG_DIR: tmpl = p->log_dir; break;
	default: break;
	}
	if (tmpl && key == K_OUTPUT_DIR && flow->run_dir)
		return strdup(flow->run_dir);
	if ((key == K_MANIFEST_PATH || key == K_ENV_PATH) && flow->m->outputs.output_dir)
		return strdup(flow->m->outputs.output_dir);
	if (tmpl)
		s = flow_expand_template(flow, tmpl,
					 flow->run_dir ? flow->run_dir : flow->m->outputs.output_dir);
	char *nnn = s ? strstr(s, "NNN") : NULL;
	if (nnn)
		memcpy(nnn, "001", 3); /* same length */
	if (!s)
		s = strdup(flow_shared_root(flow));
	return s;
}

/* A look at path that did not answer in time says so, and no more: it is
 * not a failure of the value (on a loaded machine, or a mount that is slow
 * for a moment, the same path answers the next time). */
static void verdict_no_answer(struct jp_verdict *v, const char *path)
{
	flow_verdict_set(v, JP_CHECK_WARN,
			 _("%s did not answer within %u ms: its storage may be hung; the "
			   "checks look again before anything is written"),
			 path, flow_fs_timeout_ms());
}

/* Where a path lives, and whether it exists, in bounded time. Returns 0
 * (info filled), 1 when the storage did not answer in time (verdict set),
 * or a negative code. */
static int classify(struct jp_path_info *info, bool *exists, struct jp_verdict *v,
		    const struct jp_flow *flow, const char *path)
{
	struct jp_probe_result r = JP_PROBE_RESULT_INIT;
	int rc;

	rc = flow_probe_classify(&r, flow, path);
	if (rc == JP_ETIMEOUT) {
		verdict_no_answer(v, path);
		return 1;
	}
	if (rc == JP_ENOMEM)
		return rc;
	if (rc < 0) {
		flow_verdict_set(v, JP_CHECK_WARN, _("%s: cannot tell where it is stored"), path);
		jp_probe_result_dispose(&r);
		return 1;
	}
	*exists = r.exists;
	*info = r.info;
	struct jp_path_info none = JP_PATH_INFO_INIT;
	r.info = none;
	jp_probe_result_dispose(&r);
	return 0;
}

/* A declared shared root that is only a folder here, not a mount (the
 * classification's warning): under a real profile nothing put there reaches
 * the job's Workers, so the field fails before anything is cloned or
 * written; a sandbox profile (the demo's) leaves it to the review's warning. */
static bool shared_only_here(struct jp_verdict *v, const struct jp_flow *flow,
			     const struct jp_path_info *info)
{
	if (!info->warning || (flow->profile && flow->profile->sandbox))
		return false;
	flow_verdict_set(v, JP_CHECK_FAIL,
			 _("%s (for a try-out on this machine: jobprep --demo, or a profile with "
			   "\"sandbox\": true)"),
			 info->warning);
	return true;
}

/* Storage the job can write to and that outlives it. */
static int judge_storage(struct jp_verdict *v, const struct jp_flow *flow, enum fkey key,
			 const char *path, bool writes)
{
	struct jp_path_info info = JP_PATH_INFO_INIT;
	char *better = NULL;
	bool there = false;
	int rc;

	rc = classify(&info, &there, v, flow, path);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	better = suggestion(flow, key);
	if (!better) {
		jp_path_info_dispose(&info);
		return JP_ENOMEM;
	}
	const char *root = info.declared_root ? info.declared_root
					      : (info.mount_point ? info.mount_point : "?");
	switch (info.cls) {
	case JP_STORAGE_SHARED:
		if (!shared_only_here(v, flow, &info))
			flow_verdict_set(v, JP_CHECK_PASS, NULL);
		break;
	case JP_STORAGE_EPHEMERAL:
		flow_verdict_set(v, JP_CHECK_FAIL,
				 _("%s is under %s, which is wiped when the job ends: put it under %s"),
				 path, root, better);
		break;
	case JP_STORAGE_PUBLIC:
		if (writes)
			flow_verdict_set(v, JP_CHECK_FAIL,
					 _("%s is under %s, the platform's read-only public data: put "
					   "it under %s"),
					 path, root, better);
		else
			flow_verdict_set(v, JP_CHECK_FAIL,
					 _("%s is under %s, the platform's public data: your code goes "
					   "on shared storage, e.g. %s"),
					 path, root, better);
		break;
	case JP_STORAGE_LOCAL:
		flow_verdict_set(v, JP_CHECK_FAIL,
				 _("%s is on this machine's own disk (%s at %s): a job on another "
				   "machine cannot see it; put it under %s"),
				 path, info.fstype ? info.fstype : "?", root, better);
		break;
	default:
		flow_verdict_set(v, JP_CHECK_WARN, _("%s; shared storage is under %s"),
				 info.reason ? info.reason : path, flow_shared_root(flow));
		break;
	}
	free(better);
	jp_path_info_dispose(&info);
	return 0;
}

static int judge_data_path(struct jp_verdict *v, const struct jp_flow *flow, size_t i,
			   const char *path)
{
	const struct jp_data_source *d = &flow->m->data[i];
	struct jp_path_info info = JP_PATH_INFO_INIT;
	bool there = false;
	int rc;

	rc = classify(&info, &there, v, flow, path);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	if (!there && d->origin.from) {
		flow_verdict_set(v, JP_CHECK_PASS, _("%s does not exist yet: it is staged from %s first"),
				 path, d->origin.from);
		jp_path_info_dispose(&info);
		return 0;
	}
	if (!there) {
		flow_verdict_set(v, JP_CHECK_FAIL,
				 _("%s does not exist: the data must be in place before the job "
				   "starts"),
				 path);
		jp_path_info_dispose(&info);
		return 0;
	}
	const char *root = info.declared_root ? info.declared_root
					      : (info.mount_point ? info.mount_point : "?");
	switch (info.cls) {
	case JP_STORAGE_SHARED:
		if (shared_only_here(v, flow, &info))
			break;
		if (d->kind == JP_DATA_PUBLIC && !flow->dx[i].kind_set)
			flow_verdict_set(v, JP_CHECK_PASS, NULL); /* the kind follows: team */
		else if (d->kind == JP_DATA_PUBLIC)
			flow_verdict_set(v, JP_CHECK_WARN,
					 _("%s is on shared storage, not under the public data root: "
					   "is it team data?"),
					 path);
		else
			flow_verdict_set(v, JP_CHECK_PASS, NULL);
		break;
	case JP_STORAGE_PUBLIC:
		if (d->kind == JP_DATA_TEAM && !flow->dx[i].kind_set)
			/* the kind follows the path: say what it becomes */
			flow_verdict_set(v, JP_CHECK_PASS,
					 _("%s is the platform's public data: kind set to public "
					   "(read-only); mount \"public data\" when creating the job"),
					 path);
		else if (d->kind == JP_DATA_TEAM)
			flow_verdict_set(v, JP_CHECK_WARN,
					 _("%s is the platform's public data: mount \"public data\" when "
					   "creating the job, and choose kind \"public\""),
					 path);
		else
			flow_verdict_set(v, JP_CHECK_PASS, NULL);
		break;
	case JP_STORAGE_EPHEMERAL:
		flow_verdict_set(v, JP_CHECK_FAIL,
				 _("%s is under %s, which is empty when a job starts and wiped when it "
				   "ends: put the data on shared storage (%s) before submitting"),
				 path, root, flow_shared_root(flow));
		break;
	case JP_STORAGE_LOCAL:
		flow_verdict_set(v, JP_CHECK_FAIL,
				 _("%s is on this machine's own disk (%s at %s): the job's Workers "
				   "cannot see it; copy it onto shared storage (%s)"),
				 path, info.fstype ? info.fstype : "?", root, flow_shared_root(flow));
		break;
	default:
		flow_verdict_set(v, JP_CHECK_WARN, "%s", info.reason ? info.reason : path);
		break;
	}
	jp_path_info_dispose(&info);
	return 0;
}

/* --- one field -------------------------------------------------------------------- */

static void drop_env_paths(struct jp_lint_report *r)
{
	size_t kept = 0;

	for (size_t i = 0; i < r->n; i++) {
		if (r->items[i].kind != JP_LINT_ENV_PATH) {
			r->items[kept++] = r->items[i];
			continue;
		}
		free(r->items[i].id);
		free(r->items[i].word);
		free(r->items[i].message);
		free(r->items[i].path);
	}
	r->n = kept;
}

int flow_launch_findings(struct jp_lint_report *r, const struct jp_flow *flow, const char *cmd)
{
	const struct jp_manifest *m = flow->m;
	struct jp_lint_context ctx = JP_LINT_CONTEXT_INIT;
	int rc;

	ctx.profile = flow->profile;
	ctx.project_dir = m->code.path;
	ctx.project_is_local = m->code.source == JP_CODE_SHARED_STORAGE && !flow_code_pending(flow);
	ctx.output_dir = m->outputs.output_dir;
	ctx.checkpoint_dir = m->outputs.checkpoint_dir;
	ctx.log_dir = m->outputs.log_dir;
	ctx.data_dir = m->n_data ? m->data[0].path : NULL;
	ctx.code_repo_url = m->code.source == JP_CODE_LAUNCH_CLONE ? m->code.repo_url : NULL;
	ctx.code_commit = m->code.source == JP_CODE_LAUNCH_CLONE ? m->code.repo_commit : NULL;
	ctx.workers = (long long)m->job.workers;
	ctx.gpus_per_worker = (long long)m->job.gpus_per_worker;
	if (ctx.workers > 1 && ctx.project_is_local && m->code.path) {
		struct flow_cache *c = flow->cache;
		if (!c->sync_path || strcmp(c->sync_path, m->code.path) != 0) {
			free(c->sync_path);
			c->sync_path = strdup(m->code.path);
			c->syncs = jp_lint_project_syncs(m->code.path);
		}
		if (c->sync_path)
			ctx.syncs = c->syncs;
	}
	/* job.env says where the Hub cache is and whether the job is offline
	 * (launch.hub_download); its paths have their own rows' verdicts, so
	 * launch.env_path is not repeated under the command */
	ctx.env = m->job.env;
	ctx.n_env = m->job.n_env;
	rc = jp_lint_command(r, cmd, &ctx, NULL);
	if (rc < 0)
		return rc;
	drop_env_paths(r);
	return 0;
}

enum jp_check_status flow_launch_finding_status(const struct jp_flow *flow,
						const struct jp_lint_finding *f)
{
	/* clone_first fails only once the commit to pin is known (the
	 * review's check then gives the exact line) */
	return f->fails && (f->kind != JP_LINT_CLONE_FIRST || flow->m->code.repo_commit)
		       ? JP_CHECK_FAIL
		       : JP_CHECK_WARN;
}

static int judge_launch(struct jp_verdict *v, const struct jp_flow *flow, const char *cmd)
{
	struct jp_lint_report r = JP_LINT_REPORT_INIT;
	int rc = flow_launch_findings(&r, flow, cmd);

	if (rc < 0)
		return rc;
	/* A failing finding comes first */
	size_t first = 0;
	for (size_t i = 0; i < r.n; i++)
		if (r.items[i].fails) {
			first = i;
			break;
		}
	enum jp_check_status st =
		r.n ? flow_launch_finding_status(flow, &r.items[first]) : JP_CHECK_WARN;
	if (r.n == 1) {
		flow_verdict_set(v, st, "%s", r.items[first].message);
	} else if (r.n > 1) {
		/* every finding, one a line, the failing one first: the
		 * launch command's editor shows them all under it */
		struct jp_buf all = JP_BUF_INIT;
		rc = jp_buf_add(&all, r.items[first].message);
		for (size_t i = 0; rc == 0 && i < r.n; i++)
			if (i != first && (rc = jp_buf_add(&all, "\n")) == 0)
				rc = jp_buf_add(&all, r.items[i].message);
		if (rc == 0)
			flow_verdict_set(v, st, "%s", all.s ? all.s : "");
		jp_buf_dispose(&all);
		if (rc < 0) {
			jp_lint_report_dispose(&r);
			return rc;
		}
	} else {
		flow_verdict_set(v, JP_CHECK_PASS, NULL);
	}
	jp_lint_report_dispose(&r);
	return 0;
}

/* The directory path is in: 1 there, 0 not, JP_ETIMEOUT when the look
 * did not answer in time (or could not be made). */
static int parent_exists(const char *path)
{
	char *dir = strdup(path);
	struct stat st;
	int errnum = 0, rc;

	if (!dir)
		return 0;
	char *slash = strrchr(dir, '/');
	if (slash == dir)
		slash[1] = '\0';
	else if (slash)
		*slash = '\0';
	rc = jp_probe_stat(&st, &errnum, dir, 0, flow_fs_timeout_ms(), NULL);
	free(dir);
	if (rc < 0) /* no answer, or no look at all: not "does not exist" */
		return JP_ETIMEOUT;
	return rc == 0 && !errnum && S_ISDIR(st.st_mode);
}

static bool under(const char *path, const char *root)
{
	size_t n = root ? strlen(root) : 0;
	return n && strncmp(path, root, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* An existing checkout at code.path was looked at (for any answers). */
static bool existing_looked_at(const struct jp_flow *flow)
{
	const struct jp_manifest *m = flow->m;

	return m->code.source == JP_CODE_SHARED_STORAGE && flow->checkout == CHECKOUT_EXISTING &&
	       flow->insp.path && m->code.path && strcmp(flow->insp.path, m->code.path) == 0;
}

/* Bringing the checkout to the current answers was refused, about key
 * (and no code answer was set since: then it is tried again). */
static bool refused(const struct jp_flow *flow, enum fkey key)
{
	return existing_looked_at(flow) && flow_insp_current(flow) && flow->insp.refusal &&
	       flow->insp.refusal_key == key && flow->insp.refused_gen == flow->code_gen;
}

/* --- generic checks: each sets a failing verdict and returns false -------------- */

/* A value is there; else fails with `why` (translated). */
static bool required(struct jp_verdict *v, bool empty, const char *why)
{
	if (empty)
		flow_verdict_set(v, JP_CHECK_FAIL, "%s", why);
	return !empty;
}

/* An integer within the field's min..max. */
static bool in_range(struct jp_verdict *v, const struct jp_field *f, const char *s, bool empty)
{
	char *end;
	long long n = 0;

	errno = 0;
	if (!empty)
		n = strtoll(s, &end, 10);
	if (!empty && !*end && !errno && n >= f->min && n <= f->max)
		return true;
	flow_verdict_set(v, JP_CHECK_FAIL, _("expected an integer from %lld to %lld, got \"%s\""),
			 f->min, f->max, s);
	return false;
}

/* --- one check per field ------------------------------------------------------------ */

/* Every check: the verdict starts as a pass; s is the value ("" or NULL
 * when empty). 0 or a negative code. */

static int check_job_name(struct jp_verdict *v, const struct jp_flow *flow, const struct fref *r,
			  const char *s, bool empty)
{
	(void)flow;
	(void)r;
	if (!required(v, empty,
		      _("a job name is required: lower-case letters, digits and '-', "
			"at most 63 characters")) ||
	    jp_valid_job_name(s))
		return 0;
	char low[80];
	size_t n = 0;
	for (const char *p = s; *p && n < sizeof(low) - 1; p++)
		low[n++] = *p == '_' || *p == ' ' || *p == '.' ? '-' : (char)tolower((unsigned char)*p);
	low[n] = '\0';
	if (jp_valid_job_name(low))
		flow_verdict_set(v, JP_CHECK_FAIL,
				 _("expected lower-case letters, digits and '-' (at most 63, "
				   "starting and ending with a letter or digit), got \"%s\": "
				   "try \"%s\""),
				 s, low);
	else
		flow_verdict_set(v, JP_CHECK_FAIL,
				 _("expected lower-case letters, digits and '-' (at most 63, "
				   "starting and ending with a letter or digit), got \"%s\""),
				 s);
	return 0;
}

static int check_count(struct jp_verdict *v, const struct jp_flow *flow, const struct fref *r,
		       const char *s, bool empty)
{
	(void)flow;
	in_range(v, r->field, s, empty);
	return 0;
}

static int check_code_source(struct jp_verdict *v, const struct jp_flow *flow,
			     const struct fref *r, const char *s, bool empty)
{
	(void)flow;
	(void)r;
	(void)s;
	required(v, empty, _("choose where the code comes from"));
	return 0;
}

static int check_checkout(struct jp_verdict *v, const struct jp_flow *flow, const struct fref *r,
			  const char *s, bool empty)
{
	const char *path = flow->m->code.path;
	size_t n = 0;

	(void)r;
	(void)empty;
	if (!path)
		return 0;
	bool ours = flow->cloned_path && strcmp(flow->cloned_path, path) == 0;
	if (strcmp(s, "clone") == 0 && !ours && !flow_dir_is_empty(path, &n)) {
		if (n > 0)
			flow_verdict_set(v, JP_CHECK_FAIL,
					 _("%s already holds files: choose \"use an existing "
					   "checkout\", or an empty or new directory to clone into"),
					 path);
		else if (errno == ETIMEDOUT || errno == ENOMEM) /* no look: not the value's fault */
			verdict_no_answer(v, path);
		else if (errno != ENOENT)
			flow_verdict_set(v, JP_CHECK_FAIL,
					 _("%s is not a directory jobprep can clone into"), path);
	} else if (strcmp(s, "existing") == 0) {
		struct stat st;
		int errnum = 0;
		int rc = jp_probe_stat(&st, &errnum, path, 0, flow_fs_timeout_ms(), NULL);

		if (rc < 0) /* it did not answer, or could not be looked at */
			verdict_no_answer(v, path);
		else if (rc != 0 || errnum || !S_ISDIR(st.st_mode))
			flow_verdict_set(v, JP_CHECK_FAIL,
					 _("%s is not a directory: choose \"clone it now\", or the "
					   "directory that holds the code"),
					 path);
	}
	return 0;
}

static int check_repo_url(struct jp_verdict *v, const struct jp_flow *flow, const struct fref *r,
			  const char *s, bool empty)
{
	const struct jp_manifest *m = flow->m;
	bool needed = (m->code.source == JP_CODE_SHARED_STORAGE && flow->checkout == CHECKOUT_CLONE) ||
		      m->code.source == JP_CODE_LAUNCH_CLONE;

	(void)r;
	if (empty) {
		if (needed)
			flow_verdict_set(v, JP_CHECK_FAIL,
					 _("a repository URL is required to clone the code"));
	} else if (s[0] == '-') {
		flow_verdict_set(v, JP_CHECK_FAIL, _("a URL does not start with '-'"));
	} else if (jp_url_has_credentials(s)) {
		flow_verdict_set(v, JP_CHECK_FAIL,
				 _("the URL holds a password or token: leave it out; jobprep asks "
				   "for it when cloning and never writes it down"));
	} else if (existing_looked_at(flow) && flow->insp.is_git && flow->insp.url &&
		   !jp_url_same_repo(flow->insp.url, s)) {
		flow_verdict_set(v, JP_CHECK_FAIL,
				 _("%s is a checkout of %s, not of %s: choose another path, or "
				   "leave code.repo.url out to use what is there"),
				 m->code.path, flow->insp.url, s);
	} else if (refused(flow, K_REPO_URL)) {
		flow_verdict_set(v, JP_CHECK_FAIL, "%s", flow->insp.refusal);
	}
	return 0;
}

static int check_repo_ref(struct jp_verdict *v, const struct jp_flow *flow, const struct fref *r,
			  const char *s, bool empty)
{
	(void)r;
	if (!empty && (s[0] == '-' || strpbrk(s, " \t\n~^:?*[\\")))
		flow_verdict_set(v, JP_CHECK_FAIL,
				 _("expected a branch, tag or commit name, got \"%s\""), s);
	else if (refused(flow, K_REPO_REF))
		/* the checkout could not be brought to the ref: the manifest
		 * would name one version and the job run another */
		flow_verdict_set(v, JP_CHECK_FAIL, "%s", flow->insp.refusal);
	return 0;
}

static int check_repo_commit(struct jp_verdict *v, const struct jp_flow *flow,
			     const struct fref *r, const char *s, bool empty)
{
	(void)flow;
	(void)r;
	if (!empty && !jp_valid_commit(s))
		flow_verdict_set(v, JP_CHECK_FAIL, _("expected 40 hex digits, got \"%s\""), s);
	return 0;
}

static int check_image(struct jp_verdict *v, const struct jp_flow *flow, const struct fref *r,
		       const char *s, bool empty)
{
	bool no_tag = false;
	const char *why = flow_image_problem(s, &no_tag);

	(void)flow;
	(void)r;
	(void)empty;
	if (why)
		flow_verdict_set(v, JP_CHECK_FAIL, "%s", _(why));
	else if (no_tag)
		flow_verdict_set(v, JP_CHECK_WARN,
				 _("%s has no tag, so it means :latest, which can change under the "
				   "job: pin a tag or an @sha256: digest"),
				 s);
	return 0;
}

static int check_code_path(struct jp_verdict *v, const struct jp_flow *flow, const struct fref *r,
			   const char *s, bool empty)
{
	const struct jp_manifest *m = flow->m;

	(void)r;
	if (!required(v, empty,
		      m->code.source == JP_CODE_IMAGE
			      ? _("the code directory inside the image is required")
			      : _("a project directory is required (fill in the job name for "
				  "the default)")) ||
	    !flow_check_absolute(v, s))
		return 0;
	if (m->code.source == JP_CODE_SHARED_STORAGE)
		return judge_storage(v, flow, K_CODE_PATH, s, false);
	return 0;
}

static int check_output_path(struct jp_verdict *v, const struct jp_flow *flow,
			     const struct fref *r, const char *s, bool empty)
{
	const struct jp_manifest *m = flow->m;
	int rc;

	if (!required(v, empty, _("a directory is required (fill in the job name for the default)")) ||
	    !flow_check_absolute(v, s))
		return 0;
	/* a default inside the output directory is judged with it */
	if (r->key != K_OUTPUT_DIR && !flow->set[r->key] && under(s, m->outputs.output_dir))
		return 0;
	rc = judge_storage(v, flow, r->key, s, true);
	if (rc == 0 && v->status == JP_CHECK_PASS && r->key == K_OUTPUT_DIR) {
		size_t n = 0;
		bool ours = flow->made_out && strcmp(flow->made_out, s) == 0;
		if (!ours && (n = flow_dir_files(s)) > 0)
			flow_verdict_set(v, JP_CHECK_WARN,
					 _("%s already holds files from an earlier run (%zu files): jobprep "
					   "will not write into it without asking; a new run directory "
					   "keeps runs apart"),
					 s, n);
	}
	return rc;
}

static int check_launch(struct jp_verdict *v, const struct jp_flow *flow, const struct fref *r,
			const char *s, bool empty)
{
	(void)r;
	if (empty && !flow->set[K_LAUNCH] && flow_code_pending(flow))
		flow_verdict_set(v, JP_CHECK_WARN,
				 _("the default launch command is filled in once the code is in "
				   "place"));
	else if (required(v, empty,
			  _("a launch command is required: what the job runs, e.g. "
			    "cd \"$PROJECT_DIR\" && bash scripts/train.sh")))
		return judge_launch(v, flow, s);
	return 0;
}

static int check_resume_from(struct jp_verdict *v, const struct jp_flow *flow,
			     const struct fref *r, const char *s, bool empty)
{
	(void)flow;
	(void)r;
	if (!empty)
		flow_check_absolute(v, s);
	return 0;
}

static int check_review_path(struct jp_verdict *v, const struct jp_flow *flow,
			     const struct fref *r, const char *s, bool empty)
{
	int rc;

	if (!required(v, empty, _("a file path is required")) || !flow_check_absolute(v, s))
		return 0;
	bool in_run = under(s, flow->m->outputs.output_dir);
	int there = in_run ? 1 : parent_exists(s);

	if (there == JP_ETIMEOUT) {
		verdict_no_answer(v, s);
		return 0;
	}
	if (!there) {
		flow_verdict_set(v, JP_CHECK_FAIL, _("the directory for %s does not exist"), s);
		return 0;
	}
	/* The launch line sources env.sh and reads the manifest in the run's
	 * folder on every Worker; a manifest outside it is the person's copy
	 * (-o), on whatever storage they like: only what is there matters. */
	rc = r->key == K_MANIFEST_PATH && !in_run ? 0 : judge_storage(v, flow, r->key, s, true);
	if (rc == 0 && v->status == JP_CHECK_PASS)
		rc = flow_judge_review_path(v, flow, r->key, s);
	return rc;
}

static int check_data_path(struct jp_verdict *v, const struct jp_flow *flow, const struct fref *r,
			   const char *s, bool empty)
{
	if (!required(v, empty, _("the data set's path is required")) || !flow_check_absolute(v, s))
		return 0;
	return judge_data_path(v, flow, r->index, s);
}

static int check_data_name(struct jp_verdict *v, const struct jp_flow *flow, const struct fref *r,
			   const char *s, bool empty)
{
	const struct jp_manifest *m = flow->m;

	if (!required(v, empty, _("a name is required")))
		return 0;
	for (size_t i = 0; i < m->n_data; i++)
		if (i != r->index && m->data[i].name && strcmp(m->data[i].name, s) == 0) {
			flow_verdict_set(v, JP_CHECK_FAIL,
					 _("another data source is already called \"%s\""), s);
			break;
		}
	return 0;
}

/* Where the data is staged from: an http(s) URL, an hf:// repository, or a path that exists
 * and is not the data path itself. */
static int check_data_from(struct jp_verdict *v, const struct jp_flow *flow, const struct fref *r,
			   const char *s, bool empty)
{
	const char *path = flow->m->data[r->index].path;
	struct jp_path_info info = JP_PATH_INFO_INIT;
	bool there = false;
	int rc;

	if (empty)
		return 0;
	if (jp_url_fetch_kind(s, NULL) == JP_FETCH_HTTP || strncmp(s, "hf://", 5) == 0) {
		flow_verdict_set(v, JP_CHECK_PASS, _("downloaded onto %s before the checks"),
				 path ? path : "?");
		return 0;
	}
	if (!flow_check_absolute(v, s))
		return 0;
	if (path && strcmp(path, s) == 0) {
		flow_verdict_set(v, JP_CHECK_FAIL,
				 _("%s is the data path itself: leave this empty, or give where the "
				   "data comes from"),
				 s);
		return 0;
	}
	rc = classify(&info, &there, v, flow, s);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	if (!there)
		flow_verdict_set(v, JP_CHECK_FAIL, _("%s does not exist: nothing to stage from"), s);
	else
		flow_verdict_set(v, JP_CHECK_PASS, _("staged onto %s before the checks"),
				 path ? path : "?");
	jp_path_info_dispose(&info);
	return 0;
}

static int check_data_ro(struct jp_verdict *v, const struct jp_flow *flow, const struct fref *r,
			 const char *s, bool empty)
{
	(void)empty;
	if (flow->m->data[r->index].kind == JP_DATA_PUBLIC && strcmp(s, "false") == 0)
		flow_verdict_set(v, JP_CHECK_WARN,
				 _("public data is mounted read-only: the job cannot write there"));
	return 0;
}

static const char *const reserved_env[] = { "PROJECT_DIR", "OUTPUT_DIR", "CHECKPOINT_DIR",
					    "LOG_DIR", "DATA_DIR", NULL };

static int check_env_name(struct jp_verdict *v, const struct jp_flow *flow, const struct fref *r,
			  const char *s, bool empty)
{
	const struct jp_manifest *m = flow->m;

	if (!required(v, empty, _("a variable name is required")))
		return 0;
	if (!jp_valid_env_name(s)) {
		flow_verdict_set(v, JP_CHECK_FAIL,
				 _("expected letters, digits and '_', not starting with a digit, "
				   "got \"%s\""),
				 s);
		return 0;
	}
	if (jp_env_name_special(s)) {
		flow_verdict_set(v, JP_CHECK_FAIL, _("%s is special to the shells: %s"), s,
				 _(jp_env_name_special(s)));
		return 0;
	}
	if (jp_env_name_platform(s)) {
		flow_verdict_set(v, JP_CHECK_FAIL,
				 _("%s is set by the platform for each Worker (its rank, the Worker "
				   "count, rank 0's address): the launch command reads it from there"),
				 s);
		return 0;
	}
	for (size_t i = 0; reserved_env[i]; i++)
		if (strcmp(reserved_env[i], s) == 0)
			flow_verdict_set(v, JP_CHECK_FAIL,
					 _("%s is set by env.sh from the manifest: change the field "
					   "instead"),
					 s);
	for (size_t i = 0; v->status == JP_CHECK_PASS && i < m->job.n_env; i++)
		if (i != r->index && m->job.env[i].name && strcmp(m->job.env[i].name, s) == 0)
			flow_verdict_set(v, JP_CHECK_FAIL, _("%s is already set above"), s);
	return 0;
}

static int check_env_value(struct jp_verdict *v, const struct jp_flow *flow, const struct fref *r,
			   const char *s, bool empty)
{
	const struct jp_manifest *m = flow->m;
	const char *name = m->job.env[r->index].name;
	int rc;

	if (!name || !jp_valid_env_name(name) || empty)
		return 0;
	/* NAME=value as the launch command would hold it: HF_HOME=/root/... */
	struct jp_lint_context ctx = JP_LINT_CONTEXT_INIT;
	struct jp_lint_report rep = JP_LINT_REPORT_INIT;
	char *q = NULL, *cmd = NULL;
	ctx.profile = flow->profile;
	ctx.workers = (long long)m->job.workers;
	if (jp_sh_quote(&q, s) < 0 || asprintf(&cmd, "export %s=%s", name, q) < 0) {
		free(q);
		return JP_ENOMEM;
	}
	rc = jp_lint_command(&rep, cmd, &ctx, NULL);
	if (rc == 0 && rep.n > 0)
		flow_verdict_set(v, rep.items[0].fails ? JP_CHECK_FAIL : JP_CHECK_WARN, "%s",
				 rep.items[0].message);
	jp_lint_report_dispose(&rep);
	free(q);
	free(cmd);
	return rc;
}

typedef int check_fn(struct jp_verdict *v, const struct jp_flow *flow, const struct fref *r,
		     const char *s, bool empty);

#define FIELD_CHECK(key, name, kind, check) [key] = check,
static check_fn *const checks[K_COUNT] = { FLOW_FIELDS(FIELD_CHECK) };
#undef FIELD_CHECK

int flow_validate_value(struct jp_verdict *v, const struct jp_flow *flow, const struct fref *r,
			const char *value)
{
	int rc = 0;

	flow_verdict_set(v, JP_CHECK_PASS, NULL);
	bool empty = !value || !*value;
	bool optional = r->field && (r->field->flags & JP_FIELD_OPTIONAL);

	if ((unsigned)r->key < K_COUNT && checks[r->key])
		rc = checks[r->key](v, flow, r, value, empty);
	if (rc == 0 && empty && optional && v->status == JP_CHECK_PASS)
		flow_verdict_set(v, JP_CHECK_PASS, NULL);
	return rc;
}
