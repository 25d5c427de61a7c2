/* The "pull the code in the launch command" source: check the URL and ref
 * are reachable (ls-remote), pin the commit, and write the clone line the
 * launch command runs. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobprep/i18n.h"
#include "jobprep/shellwords.h"
#include "git_internal.h"

const char *jp_git_ref_kind_name(enum jp_git_ref_kind kind)
{
	switch (kind) {
	case JP_GIT_REF_BRANCH:
		return "branch";
	case JP_GIT_REF_TAG:
		return "tag";
	case JP_GIT_REF_COMMIT:
		break;
	}
	return "commit";
}

void jp_git_remote_info_dispose(struct jp_git_remote_info *info)
{
	if (!info)
		return;
	free(info->url);
	free(info->ref_name);
	*info = (struct jp_git_remote_info)JP_GIT_REMOTE_INFO_INIT;
}

static bool all_hex(const char *s, size_t min, size_t max)
{
	size_t n = strlen(s);

	return n >= min && n <= max && strspn(s, "0123456789abcdefABCDEF") == n;
}

static const git_remote_head *find_head(const git_remote_head **heads, size_t n,
					const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(heads[i]->name, name) == 0)
			return heads[i];
	return NULL;
}

/* "https://host/karpathy/nanoGPT.git" -> "nanoGPT" (into buf). */
static const char *repo_name(char *buf, size_t len, const char *url)
{
	const char *end = url + strlen(url), *start;

	while (end > url && end[-1] == '/')
		end--;
	if (end - url > 4 && strncmp(end - 4, ".git", 4) == 0)
		end -= 4;
	start = end;
	while (start > url && start[-1] != '/' && start[-1] != ':')
		start--;
	if (start == end)
		return url;
	snprintf(buf, len, "%.*s", (int)(end - start), start);
	return buf;
}

/* The branch HEAD names on the server: its symref, else the branch at the
 * same commit; NULL when neither says. */
static const char *default_branch(const git_remote_head **heads, size_t n)
{
	const git_remote_head *h = find_head(heads, n, "HEAD");

	if (!h)
		return NULL;
	if (h->symref_target && strncmp(h->symref_target, "refs/heads/", 11) == 0)
		return h->symref_target + 11;
	for (size_t i = 0; i < n; i++)
		if (strncmp(heads[i]->name, "refs/heads/", 11) == 0 &&
		    git_oid_equal(&heads[i]->oid, &h->oid))
			return heads[i]->name + 11;
	return NULL;
}

/* No such branch or tag: say which branch the repository does have. */
static int not_found(const git_remote_head **heads, size_t n, const char *ref,
		     const char *shown, struct jp_error *err)
{
	const char *def = default_branch(heads, n);
	char name[256];

	repo_name(name, sizeof(name), shown);
	if (def && strcmp(def, ref) != 0)
		return jp_error_set(err, JP_ENOENT,
				  _("%s has no branch or tag '%s'; its default branch is '%s'"),
				  name, ref, def);
	return jp_error_set(err, JP_ENOENT, _("%s has no branch or tag named '%s'"), name, ref);
}

int jp_git_remote_resolve(struct jp_git_remote_info *info, const git_remote_head **heads,
			  size_t n, const char *ref, const char *shown, struct jp_error *err)
{
	const git_remote_head *h = NULL;
	char name[1024];

	if (!ref) {
		h = find_head(heads, n, "HEAD");
		if (!h)
			return jp_error_set(err, JP_ENOENT, _("%s: the repository is empty"), shown);
		info->ref_kind = JP_GIT_REF_BRANCH;
		if (!(info->ref_name = strdup(h->symref_target ? h->symref_target : "HEAD")))
			goto nomem;
		goto found;
	}
	/* A branch. */
	snprintf(name, sizeof(name), "%s%s", strncmp(ref, "refs/", 5) ? "refs/heads/" : "", ref);
	if ((h = find_head(heads, n, name)) != NULL && strncmp(name, "refs/tags/", 10) != 0) {
		info->ref_kind = JP_GIT_REF_BRANCH;
		if (!(info->ref_name = strdup(name)))
			goto nomem;
		goto found;
	}
	/* A tag: the peeled entry names the commit of an annotated tag. */
	snprintf(name, sizeof(name), "%s%s^{}", strncmp(ref, "refs/tags/", 10) ? "refs/tags/" : "",
		 ref);
	h = find_head(heads, n, name);
	name[strlen(name) - 3] = '\0';
	if (!h)
		h = find_head(heads, n, name);
	if (h) {
		info->ref_kind = JP_GIT_REF_TAG;
		if (!(info->ref_name = strdup(name)))
			goto nomem;
		goto found;
	}
	/* A commit: confirmed when some ref points at it. */
	if (all_hex(ref, 4, 40)) {
		const git_remote_head *match = NULL;
		size_t len = strlen(ref);
		bool ambiguous = false;

		for (size_t i = 0; i < n; i++) {
			char hex[GIT_OID_HEXSZ + 1];

			git_oid_tostr(hex, sizeof(hex), &heads[i]->oid);
			if (strncasecmp(hex, ref, len) != 0)
				continue;
			if (match && !git_oid_equal(&match->oid, &heads[i]->oid))
				ambiguous = true;
			match = heads[i];
		}
		info->ref_kind = JP_GIT_REF_COMMIT;
		if (match && !ambiguous) {
			h = match;
			goto found;
		}
		if (len == 40) {
			/* Servers do not list every commit; it may well exist. */
			for (size_t i = 0; i < 40; i++)
				info->commit[i] = (char)(ref[i] | 0x20);
			info->commit[40] = '\0';
			info->commit_unverified = true;
			return 0;
		}
		return jp_error_set(err, JP_ENOENT,
				  _("%s: '%s' is not the start of any branch or tag tip; give the "
				    "full 40-character commit id"),
				  shown, ref);
	}
	return not_found(heads, n, ref, shown, err);
found:
	git_oid_tostr(info->commit, sizeof(info->commit), &h->oid);
	return 0;
nomem:
	return jp_error_oom(err);
}

int jp_git_remote_check(struct jp_git_remote_info *out, const char *url_text, const char *ref,
			unsigned stall_timeout_s, const struct jp_port *port, struct jp_error *err)
{
	struct jp_git_remote_info info = JP_GIT_REMOTE_INFO_INIT;
	struct jp_git_url url = JP_GIT_URL_INIT;
	git_remote_connect_options co;
	const git_remote_head **heads = NULL;
	git_remote *remote = NULL;
	struct jp_git_ssh_heads sheads = { NULL, NULL, 0 };
	struct jp_git_op op;
	size_t n = 0;
	int gerr, rc;

	*out = info;
	jp_git_op_init(&op, port);
	op.stall_timeout_s = stall_timeout_s ? stall_timeout_s : JP_GIT_STALL_TIMEOUT_S;
	if ((rc = jp_git_global_init(err)) != 0)
		return rc;
	if ((rc = jp_git_url_parse(&url, url_text, err)) != 0)
		return rc;
	if (ref && (!*ref || ref[0] == '-')) {
		rc = jp_error_set(err, JP_EUSAGE,
				  _("refusing ref '%s': empty, or beginning with '-'"), ref);
		goto out;
	}
	if (jp_git_creds_new(&op.creds, &url, port) != 0)
		goto nomem;
	if (url.kind == JP_URL_SSH) {
		op.ssh_host = url.host;
		op.ssh_port = url.port;
	}
	jp_git_op_enter(&op);
	if (!(info.url = strdup(url.clean)))
		goto nomem;
	git_remote_connect_options_init(&co, GIT_REMOTE_CONNECT_OPTIONS_VERSION);
	jp_git_op_remote_callbacks(&co.callbacks, &op);
	co.follow_redirects = GIT_REMOTE_REDIRECT_NONE;
	op.what = url.clean;
	if (jp_git_op_progress(&op, JP_PHASE_CONNECT, 0, 0, 0, true) < 0) {
		rc = jp_error_set(err, JP_ECANCELED, _("%s: canceled"), url.clean);
		goto out;
	}
	if (jp_git_op_ssh(&op)) {
		gerr = jp_git_ssh_ls(&sheads, &op, NULL, NULL, url.clean);
		heads = sheads.p;
		n = sheads.n;
	} else if ((gerr = git_remote_create_detached(&remote, url.clean)) == 0 &&
		   (gerr = git_remote_connect_ext(remote, GIT_DIRECTION_FETCH, &co)) == 0) {
		gerr = git_remote_ls(&heads, &n, remote);
	}
	if (gerr != 0) {
		rc = jp_git_op_error(&op, gerr, NULL, err, url.clean);
		goto out;
	}

	rc = jp_git_remote_resolve(&info, heads, n, ref, url.clean, err);
	if (rc != 0)
		goto out;
	*out = info;
	info = (struct jp_git_remote_info)JP_GIT_REMOTE_INFO_INIT;
	goto out;
nomem:
	rc = jp_error_oom(err);
out:
	jp_git_op_leave(&op);
	if (remote) {
		git_remote_disconnect(remote);
		git_remote_free(remote);
	}
	jp_git_ssh_heads_dispose(&sheads);
	jp_git_creds_free(op.creds);
	jp_git_url_dispose(&url);
	jp_git_remote_info_dispose(&info);
	return rc;
}

/* Quote for POSIX sh only when needed: plain words stay readable. */
static char *sh_word(const char *s)
{
	size_t n = strlen(s);
	char *out;

	if (n > 0 && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			       "0123456789-_./:@%+=,") == n)
		return strdup(s);
	return jp_sh_quote(&out, s) == 0 ? out : NULL;
}

int jp_git_clone_command(char **out, const char *url, const char *commit, const char *dir,
			 unsigned flags, struct jp_error *err)
{
	char *clean = NULL, *qurl = NULL, *qdir = NULL;
	int rc = 0;

	*out = NULL;
	if (!url || !*url || url[0] == '-')
		return jp_error_set(err, JP_EUSAGE, "%s",
				    _("the repository URL is empty or begins with '-'"));
	if (!dir || !*dir || dir[0] == '-')
		return jp_error_set(err, JP_EUSAGE, "%s",
				    _("the clone directory is empty or begins with '-'"));
	if (!commit || !all_hex(commit, 40, 40))
		return jp_error_set(err, JP_EUSAGE, _("'%s' is not a 40-character commit id"),
				    commit ? commit : "");
	if (!(clean = jp_git_url_redact(url)) || !(qurl = sh_word(clean)) || !(qdir = sh_word(dir)))
		goto nomem;
	/* One commit where the server allows fetching by id (GitHub, GitLab,
	 * git >= 2.x over protocol v2); the whole history otherwise. Either
	 * way the job runs exactly `commit`. */
	if (asprintf(out,
		     "git init -q %s && git -C %s remote add origin %s && "
		     "{ git -C %s fetch -q --depth 1 origin %s || git -C %s fetch -q origin; } && "
		     "git -C %s -c advice.detachedHead=false checkout -q --detach %s%s%s",
		     qdir, qdir, qurl, qdir, commit, qdir, qdir, commit,
		     (flags & JP_GIT_CMD_SUBMODULES) ? " && git -C " : "",
		     (flags & JP_GIT_CMD_SUBMODULES) ? qdir : "") < 0) {
		*out = NULL;
		goto nomem;
	}
	if (flags & JP_GIT_CMD_SUBMODULES) {
		char *full = NULL;

		if (asprintf(&full, "%s submodule update -q --init --recursive", *out) < 0) {
			full = NULL;
			goto nomem;
		}
		free(*out);
		*out = full;
	}
	goto out;
nomem:
	free(*out);
	*out = NULL;
	rc = jp_error_oom(err);
out:
	free(clean);
	free(qurl);
	free(qdir);
	return rc;
}
