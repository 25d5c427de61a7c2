/* The --demo sandbox: a platform in a folder, made (or completed) on demand. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <git2.h>

#include "jobprep/demo.h"
#include "jobprep/fs.h"
#include "jobprep/git.h"
#include "git_internal.h"
#include "jobprep/i18n.h"
#include "jobprep/manifest.h"
#include "jobprep/path.h"
#include "profile_internal.h"

#define DEMO_DIR "jobprep-demo"
#define DEMO_JOB "demo"
/* A fixed author and time: the demo's commit is the same everywhere. */
#define DEMO_AUTHOR "jobprep demo"
#define DEMO_EMAIL "demo@jobprep.invalid"
#define DEMO_TIME 1704067200 /* 2024-01-01T00:00:00Z */

struct demo_file {
	const char *path;
	unsigned mode;
	const char *text;
};

static const struct demo_file repo_files[] = {
	{ "README.md", 0644,
	  "# demo-train\n"
	  "\n"
	  "A tiny training project for the jobprep demo.\n"
	  "\n"
	  "`scripts/train.sh` runs `train.py` with the directories jobprep's env.sh\n"
	  "exports. On several Workers, rank 0 prepares the shared data and the others\n"
	  "wait for it at a torch.distributed barrier before they read it.\n" },
	{ "scripts/train.sh", 0755,
	  "#!/bin/sh\n"
	  "# Train on $DATA_DIR; checkpoints and logs go under $OUTPUT_DIR (see env.sh).\n"
	  "set -eu\n"
	  "cd \"$(dirname \"$0\")/..\"\n"
	  "exec python3 train.py --data \"${DATA_DIR:?}\" \\\n"
	  "\t--checkpoints \"${CHECKPOINT_DIR:?}\" --logs \"${LOG_DIR:?}\"\n" },
	{ "train.py", 0644,
	  "\"\"\"A stand-in training loop: rank 0 prepares shared data, the others wait.\"\"\"\n"
	  "import argparse\n"
	  "import os\n"
	  "\n"
	  "\n"
	  "def validate_dataset_readable(path):\n"
	  "    names = sorted(os.listdir(path))\n"
	  "    if not names:\n"
	  "        raise SystemExit(f\"{path} is empty\")\n"
	  "    return names\n"
	  "\n"
	  "\n"
	  "def main():\n"
	  "    p = argparse.ArgumentParser()\n"
	  "    p.add_argument(\"--data\", required=True)\n"
	  "    p.add_argument(\"--checkpoints\", required=True)\n"
	  "    p.add_argument(\"--logs\", required=True)\n"
	  "    args = p.parse_args()\n"
	  "\n"
	  "    world = int(os.environ.get(\"WORLD_SIZE\", \"1\"))\n"
	  "    rank = int(os.environ.get(\"RANK\", \"0\"))\n"
	  "    if world > 1:\n"
	  "        import torch.distributed as dist\n"
	  "        dist.init_process_group(\"nccl\")\n"
	  "    if rank == 0:\n"
	  "        os.makedirs(args.checkpoints, exist_ok=True)\n"
	  "    if world > 1:\n"
	  "        dist.barrier()  # nobody reads what rank 0 has not finished\n"
	  "    names = validate_dataset_readable(args.data)\n"
	  "    with open(os.path.join(args.logs, f\"rank{rank}.log\"), \"w\") as log:\n"
	  "        log.write(f\"read {len(names)} files\\n\")\n"
	  "\n"
	  "\n"
	  "if __name__ == \"__main__\":\n"
	  "    main()\n" },
};

static const struct demo_file data_files[] = {
	{ "shared/datasets/demo-data/train.jsonl", 0644,
	  "{\"text\": \"the quick brown fox\"}\n"
	  "{\"text\": \"jumps over the lazy dog\"}\n"
	  "{\"text\": \"prepare data before the job starts\"}\n" },
	{ "shared/datasets/demo-data/valid.jsonl", 0644, "{\"text\": \"checkpoints go to shared storage\"}\n" },
	{ "public/demo-corpus/corpus-000.txt", 0644,
	  "Public data sets are mounted read-only under the public data root.\n" },
	{ "public/demo-corpus/corpus-001.txt", 0644,
	  "Every Worker sees the same path.\n" },
};

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

void jp_demo_dispose(struct jp_demo *d)
{
	if (!d)
		return;
	free(d->root);
	free(d->profile_path);
	free(d->answers_path);
	free(d->repo_url);
	free(d->data_path);
	free(d->public_path);
	free(d->manifest_path);
	memset(d, 0, sizeof(*d));
}

/* Write a file unless it is there already. */
static int put_file(const char *root, const struct demo_file *f, struct jp_error *err)
{
	char *path = jp_path_join(root, f->path);
	struct stat st;
	int rc = 0;

	if (!path)
		return jp_error_oom(err);
	if (stat(path, &st) == 0)
		goto out;
	char *slash = strrchr(path, '/');
	*slash = '\0';
	rc = jp_fs_mkdir_p(NULL, path, 0755, err);
	*slash = '/';
	if (rc == 0)
		rc = jp_file_write_atomic(path, f->text, strlen(f->text), f->mode, err);
out:
	free(path);
	return rc;
}

static int git_fail(struct jp_error *err, const char *what)
{
	const git_error *e = git_error_last();
	return jp_error_set(err, JP_EGIT, _("demo repository: %s: %s"), what,
			    e && e->message ? e->message : "?");
}

/* The demo repository: one commit with every file, on branch main. */
static int make_repo(const char *dir, struct jp_error *err)
{
	git_repository *repo = NULL;
	git_index *index = NULL;
	git_tree *tree = NULL;
	git_signature *sig = NULL;
	git_oid tree_id, commit_id;
	git_repository_init_options opts;
	int rc;

	rc = jp_git_global_init(err);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < N_OF(repo_files); i++) {
		rc = put_file(dir, &repo_files[i], err);
		if (rc < 0)
			return rc;
	}
	git_repository_init_options_init(&opts, GIT_REPOSITORY_INIT_OPTIONS_VERSION);
	opts.flags = GIT_REPOSITORY_INIT_MKPATH;
	opts.initial_head = "main";
	if (git_repository_init_ext(&repo, dir, &opts) < 0) {
		rc = git_fail(err, _("init"));
		goto out;
	}
	if (!git_repository_head_unborn(repo)) {
		rc = 0; /* made before */
		goto out;
	}
	if (git_repository_index(&index, repo) < 0) {
		rc = git_fail(err, _("index"));
		goto out;
	}
	for (size_t i = 0; i < N_OF(repo_files); i++) {
		if (git_index_add_bypath(index, repo_files[i].path) < 0) {
			rc = git_fail(err, repo_files[i].path);
			goto out;
		}
	}
	if (git_index_write(index) < 0 || git_index_write_tree(&tree_id, index) < 0 ||
	    git_tree_lookup(&tree, repo, &tree_id) < 0 ||
	    git_signature_new(&sig, DEMO_AUTHOR, DEMO_EMAIL, DEMO_TIME, 0) < 0 ||
	    git_commit_create_v(&commit_id, repo, "HEAD", sig, sig, NULL,
				"A small training project for the jobprep demo\n", tree, 0) < 0) {
		rc = git_fail(err, _("commit"));
		goto out;
	}
	rc = 0;
out:
	git_signature_free(sig);
	git_tree_free(tree);
	git_index_free(index);
	git_repository_free(repo);
	return rc;
}

/* Write `json` pretty-printed, with a final newline, atomically. */
static int write_json(const char *path, const cJSON *json, struct jp_error *err)
{
	char *printed = json ? cJSON_Print(json) : NULL;
	char *text = NULL;
	int rc;

	if (!printed || asprintf(&text, "%s\n", printed) < 0)
		rc = jp_error_oom(err);
	else
		rc = jp_file_write_atomic(path, text, strlen(text), 0644, err);
	cJSON_free(printed);
	free(text);
	return rc;
}

/* The demo's platform: shared and public roots inside the sandbox, and
 * "sandbox": true. */
static int make_profile(const struct jp_demo *d, struct jp_error *err)
{
	struct jp_profile *p = NULL;
	cJSON *json = NULL;
	char *shared = NULL, *pub = NULL;
	struct stat st;
	int rc;

	if (stat(d->profile_path, &st) == 0) {
		/* one an older jobprep made: marked a sandbox, the rest kept */
		if ((rc = jp_profile_load(&p, d->profile_path, err)) < 0 || p->sandbox) {
			jp_profile_free(p);
			return rc;
		}
		p->sandbox = true;
		if (!(json = jp_profile_to_json(p)))
			rc = jp_error_oom(err);
		else
			rc = write_json(d->profile_path, json, err);
		cJSON_Delete(json);
		jp_profile_free(p);
		return rc;
	}
	rc = jp_profile_new_default(&p, err);
	if (rc < 0)
		return rc;
	/* its shared root is a folder of the sandbox, not a mount: warnings */
	p->sandbox = true;
	shared = jp_path_join(d->root, "shared");
	pub = jp_path_join(d->root, "public");
	jp_strv_dispose(&p->shared_roots);
	jp_strv_dispose(&p->public_roots);
	if (!shared || !pub || jp_strv_push(&p->shared_roots, shared) < 0 ||
	    jp_strv_push(&p->public_roots, pub) < 0 || !(json = jp_profile_to_json(p)))
		rc = jp_error_oom(err);
	else
		rc = write_json(d->profile_path, json, err);
	free(shared);
	free(pub);
	cJSON_Delete(json);
	jp_profile_free(p);
	return rc;
}

/* What `jobprep init --demo` answers: the same as jp_demo_apply. */
static int make_answers(const struct jp_demo *d, struct jp_error *err)
{
	cJSON *root, *job, *code, *repo, *data, *item;
	const char *paths[] = { d->data_path, d->public_path };
	struct stat st;
	bool ok;
	int rc;

	if (stat(d->answers_path, &st) == 0)
		return 0;
	root = cJSON_CreateObject();
	ok = root && (job = cJSON_AddObjectToObject(root, "job")) &&
	     cJSON_AddStringToObject(job, "name", DEMO_JOB) &&
	     (code = cJSON_AddObjectToObject(root, "code")) &&
	     cJSON_AddStringToObject(code, "source", "shared_storage") &&
	     (repo = cJSON_AddObjectToObject(code, "repo")) &&
	     cJSON_AddStringToObject(repo, "url", d->repo_url) &&
	     (data = cJSON_AddArrayToObject(root, "data"));
	for (size_t i = 0; ok && i < 2; i++) {
		item = cJSON_CreateObject();
		ok = item && cJSON_AddItemToArray(data, item);
		if (!ok)
			cJSON_Delete(item);
		ok = ok && cJSON_AddStringToObject(item, "path", paths[i]);
	}
	if (ok)
		rc = write_json(d->answers_path, root, err);
	else
		rc = jp_error_oom(err);
	cJSON_Delete(root);
	return rc;
}

int jp_demo_prepare(struct jp_demo *out, const char *cwd, struct jp_error *err)
{
	char here[PATH_MAX];
	char *repo = NULL;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (!cwd ? !getcwd(here, sizeof(here)) : !realpath(cwd, here))
		return jp_error_set(err, JP_EIO, _("%s: cannot tell where it is: %s"),
				    cwd ? cwd : ".", strerror(errno));
	out->root = jp_path_join(here, DEMO_DIR);
	if (out->root) {
		out->profile_path = jp_path_join(out->root, "profile.json");
		out->answers_path = jp_path_join(out->root, "answers.json");
		repo = jp_path_join(out->root, "repo");
		out->data_path = jp_path_join(out->root, "shared/datasets/demo-data");
		out->public_path = jp_path_join(out->root, "public/demo-corpus");
	}
	if (!out->root || !out->profile_path || !out->answers_path || !repo ||
	    !out->data_path || !out->public_path ||
	    asprintf(&out->repo_url, "file://%s", repo) < 0) {
		out->repo_url = NULL;
		rc = jp_error_oom(err);
	}
	if (rc == 0)
		rc = jp_fs_mkdir_p(NULL, out->root, 0755, err);
	if (rc == 0)
		rc = make_repo(repo, err);
	for (size_t i = 0; rc == 0 && i < N_OF(data_files); i++)
		rc = put_file(out->root, &data_files[i], err);
	if (rc == 0)
		rc = make_profile(out, err);
	if (rc == 0)
		rc = make_answers(out, err);
	free(repo);
	if (rc < 0)
		jp_demo_dispose(out);
	return rc;
}

int jp_demo_apply(struct jp_flow *flow, const struct jp_demo *demo, struct jp_error *err)
{
	struct jp_manifest *ans = NULL;
	int rc;

	rc = jp_manifest_load(&ans, demo->answers_path, JP_READ_ANSWERS, err);
	if (rc == 0)
		rc = jp_flow_apply_answers(flow, ans, demo->answers_path, err);
	jp_manifest_free(ans);
	return rc;
}
