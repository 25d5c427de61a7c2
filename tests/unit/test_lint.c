/* The launch-command lint: a table of commands and the exact findings each
 * gets (id and offending word), some exact messages, and the commands that
 * must not warn at all. Also the sh splitter it stands on. */
#include "config.h"

#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "jobprep/lint.h"
#include "lint_internal.h"
#include "jobprep/manifest.h"
#include "manifest_internal.h"
#include "jobprep/profile.h"
#include "profile_internal.h"
#include "jobprep/shellwords.h"
#include "shellwords_internal.h"
#include "str.h"

static char scratch[PATH_MAX - 64]; /* holds project/ and elsewhere/ */
static char project[PATH_MAX];
static char nosync[PATH_MAX];  /* a project without any barrier */
static struct jp_profile *profile;

static void write_file(const char *dir, const char *rel, const char *text, mode_t mode)
{
	char path[PATH_MAX + 64];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(chmod(path, mode), 0);
}

static void make_dir(const char *dir, const char *rel)
{
	char path[PATH_MAX + 64];
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	assert_int_equal(mkdir(path, 0755), 0);
}

static int rm_rf(const char *path)
{
	char *cmd = NULL;
	int rc;

	if (asprintf(&cmd, "rm -rf '%s'", path) < 0)
		return -1;
	rc = system(cmd);
	free(cmd);
	return rc;
}

/* The scratch tree lives in the build directory (not /tmp: the default
 * profile calls /tmp ephemeral). The profile's shared root is the scratch. */
static int setup(void **state)
{
	char tmpl[] = "lint-scratch-XXXXXX";
	struct jp_error err = JP_ERROR_INIT;

	(void)state;
	if (!mkdtemp(tmpl) || !realpath(tmpl, scratch))
		return -1;
	snprintf(project, sizeof(project), "%s/project", scratch);
	snprintf(nosync, sizeof(nosync), "%s/nosync", scratch);
	make_dir(scratch, "project");
	make_dir(project, "scripts");
	write_file(project, "scripts/train.sh", "#!/bin/sh\npython train.py\n", 0755);
	write_file(project, "scripts/prep.sh", "#!/bin/sh\necho prep\n", 0644);
	write_file(project, "train.py",
		   "import torch.distributed as dist\ndist.barrier()\n", 0644);
	write_file(project, "cfg.yaml", "num_machines: 4\n", 0644); /* accelerate's --config_file */
	make_dir(scratch, "nosync");
	write_file(nosync, "train.py", "print('hello')\n", 0644);
	make_dir(scratch, "elsewhere");

	if (jp_profile_new_default(&profile, &err) < 0)
		return -1;
	jp_strv_dispose(&profile->shared_roots);
	if (jp_strv_push(&profile->shared_roots, scratch) < 0)
		return -1;
	jp_error_dispose(&err);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	jp_profile_free(profile);
	return rm_rf(scratch) == 0 ? 0 : -1;
}

/* "id word" per finding, one a line. */
static char *summarise(const char *command, long long workers, const char *proj)
{
	struct jp_lint_context ctx = JP_LINT_CONTEXT_INIT;
	struct jp_lint_report r = JP_LINT_REPORT_INIT;
	struct jp_error err = JP_ERROR_INIT;
	char *out = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&out, &n);

	ctx.profile = profile;
	ctx.project_dir = proj;
	ctx.project_is_local = 1;
	ctx.workers = workers;
	assert_int_equal(jp_lint_command(&r, command, &ctx, &err), 0);
	for (size_t i = 0; i < r.n; i++)
		fprintf(f, "%s %s\n", r.items[i].id, r.items[i].word);
	fclose(f);
	jp_lint_report_dispose(&r);
	jp_error_dispose(&err);
	return out;
}

struct row {
	const char *command;
	long long workers;
	const char *expect; /* "id word\n" per finding, "" for none */
};

static const struct row rows[] = {
	/* must not warn */
	{ "cd \"$PROJECT_DIR\" && bash scripts/train.sh", 1, "" },
	{ "echo \"wget is a tool\"", 1, "" },
	{ "echo wget http://x; printf 'pip install %s' torch", 1, "" },
	{ "pip --version", 1, "" },
	{ "pip list && pip freeze && pip show torch", 1, "" },
	{ "python -m pip --version", 1, "" },
	{ "conda list; conda info --envs", 1, "" },
	{ "curl --version && wget --help", 1, "" },
	{ "tar tf archive.tar", 1, "" },
	{ "tar czf out.tar.gz logs", 1, "" },
	{ "git log -1 && git rev-parse HEAD", 1, "" },
	{ "grep -r wget . # wget in a comment", 1, "" },
	{ "python -c 'import wget'", 1, "" },
	{ "TMPDIR=/tmp python -V", 1, "" },
	/* train.sh runs `python train.py` from where it is started: scripts/ */
	{ "cd $PROJECT_DIR/scripts && ./train.sh", 1, "launch.script scripts/train.sh:2: train.py\n" },
	{ "cd \"$PROJECT_DIR\" && python train.py --output_dir \"$PROJECT_DIR/out\"", 1, "" },
	{ "cd \"$PROJECT_DIR\" && exec nohup bash scripts/train.sh 2>&1", 1, "" },
	{ "cd \"$PROJECT_DIR\" && torchrun --nnodes=4 --nproc_per_node 8 train.py", 4, "" },
	/* torchrun without --nnodes on 4 Workers: each runs alone (issue 13) */
	{ "cd \"$PROJECT_DIR\" && torchrun --nproc_per_node 8 train.py", 4, "launch.launcher torchrun\n" },

	/* downloads and installs */
	{ "wget https://example.com/data.tar", 1, "launch.download wget\n" },
	{ "curl -LO https://example.com/model.bin", 1, "launch.download curl\n" },
	{ "git clone https://example.com/big.git", 1, "launch.download git clone\n" },
	{ "git -C /x pull", 1, "launch.download git pull\n" },
	{ "pip install -r requirements.txt", 1, "launch.install pip install\n" },
	{ "python3 -m pip install torch", 1, "launch.install pip install\n" },
	{ "sudo apt-get install -y libaio", 1, "launch.install apt-get install\n" },
	{ "apt update", 1, "launch.install apt update\n" },
	{ "conda install -y pytorch", 1, "launch.install conda install\n" },
	{ "conda env create -f env.yml", 1, "launch.install conda create\n" },
	{ "huggingface-cli download meta/llama", 1,
	  "launch.download huggingface-cli download\n" },
	{ "hf download Qwen/Qwen2", 1, "launch.download hf download\n" },
	{ "echo $(curl -s https://x/y)", 1, "launch.download curl\n" },
	{ "bash -c 'pip3 install x'", 1, "launch.install pip3 install\n" },

	/* unpacking */
	{ "tar xzf data.tar.gz", 1, "launch.unpack tar\n" },
	{ "tar -xvf data.tar -C /mnt/x", 1, "launch.unpack tar\n" },
	{ "tar --extract -f data.tar", 1, "launch.unpack tar\n" },
	{ "unzip data.zip", 1, "launch.unpack unzip\n" },
	{ "unzip -l data.zip", 1, "" },
	{ "7z x data.7z", 1, "launch.unpack 7z x\n" },
	{ "gzip -d x.gz", 1, "launch.unpack gzip\n" },
	/* every row of the rules tables (src/lint_rules.c), each name */
	{ "aria2c https://x/y && axel https://x/z", 1, "launch.download aria2c\nlaunch.download axel\n" },
	{ "aria2c --version", 1, "" },
	{ "pip download torch && pip3.11 install x", 1,
	  "launch.install pip download\nlaunch.install pip3.11 install\n" },
	{ "uv pip install torch", 1, "launch.install uv pip install\n" },
	{ "uv run train.py", 1, "" },
	{ "mamba create -n x && micromamba update -a", 1,
	  "launch.install mamba create\nlaunch.install micromamba update\n" },
	{ "yum install x && dnf upgrade && apk add curl && apt-get dist-upgrade", 1,
	  "launch.install yum install\nlaunch.install dnf upgrade\nlaunch.install apk add\n"
	  "launch.install apt-get dist-upgrade\n" },
	{ "modelscope download q/w && hf upload x", 1, "launch.download modelscope download\n" },
	{ "accelerate config && deepspeed --help", 1, "" },
	{ "cd \"$PROJECT_DIR\" && source scripts/nothere.sh", 1, "launch.script scripts/nothere.sh\n" },
	{ "cd \"$PROJECT_DIR\" && . scripts/prep.sh", 1, "" },
	{ "bsdtar -xf a.tar && unrar x a.rar && 7za e a.7z && 7zr x b.7z", 1,
	  "launch.unpack tar\nlaunch.unpack unrar\nlaunch.unpack 7za e\nlaunch.unpack 7zr x\n" },
	{ "unrar l a.rar && 7z l a.7z && unzip -Z a.zip && unzip --help", 1, "" },
	{ "gunzip a.gz; unxz b.xz; unzstd c.zst; bunzip2 d.bz2; unlz4 e.lz4", 1,
	  "launch.unpack gunzip\nlaunch.unpack unxz\nlaunch.unpack unzstd\nlaunch.unpack bunzip2\n"
	  "launch.unpack unlz4\n" },
	{ "gunzip --version && xz -9 f && zstd f", 1, "" },
	{ "xz -dc a.xz; zstd --decompress b; bzip2 -dk c; pigz -d d; lz4 -d e", 1,
	  "launch.unpack xz\nlaunch.unpack zstd\nlaunch.unpack bzip2\nlaunch.unpack pigz\n"
	  "launch.unpack lz4\n" },
	{ "tar -x -f a.tar; tar -c1x f", 1, "launch.unpack tar\n" },
	{ "/usr/bin/tar xf a.tar", 1, "" },

	/* ephemeral outputs */
	{ "cd \"$PROJECT_DIR\" && python train.py --output_dir /tmp/out", 1,
	  "launch.ephemeral_output --output_dir /tmp/out\n" },
	{ "cd \"$PROJECT_DIR\" && python train.py --save-dir=/workspace/ckpt", 1,
	  "launch.ephemeral_output --save-dir=/workspace/ckpt\n" },
	{ "HF_HOME=/root/.cache/hf bash \"$PROJECT_DIR/scripts/train.sh\"", 1,
	  "launch.ephemeral_output HF_HOME=/root/.cache/hf\n" },
	{ "export TRANSFORMERS_CACHE=/dev/shm/tc", 1,
	  "launch.ephemeral_output TRANSFORMERS_CACHE=/dev/shm/tc\n" },
	{ "cd \"$PROJECT_DIR\" && bash scripts/train.sh > /tmp/train.log", 1,
	  "launch.ephemeral_output /tmp/train.log\n" },
	{ "env WANDB_DIR=/tmp/wandb python3 \"$PROJECT_DIR/train.py\"", 1,
	  "launch.ephemeral_output WANDB_DIR=/tmp/wandb\n" },

	/* scripts */
	{ "cd \"$PROJECT_DIR\" && bash scripts/missing.sh", 1, "launch.script scripts/missing.sh\n" },
	{ "cd \"$PROJECT_DIR\" && ./scripts/prep.sh", 1, "launch.script ./scripts/prep.sh\n" },
	{ "cd \"$PROJECT_DIR\" && bash scripts/prep.sh", 1, "" },
	{ "cd \"$PROJECT_DIR\" && python nothere.py", 1, "launch.script nothere.py\n" },
	{ "bash scripts/train.sh", 1, "launch.script scripts/train.sh\n" },
	{ "$PROJECT_DIR/scripts/train.sh", 1, "" },

	/* cd */
	{ "cd /tmp && bash train.sh", 1, "launch.cd cd /tmp\nlaunch.script train.sh\n" },

	/* syntax */
	{ "echo 'unterminated", 1, "launch.syntax \n" },
};

static void lint_table_gives_exact_findings(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char *got = summarise(rows[i].command, rows[i].workers, project);
		if (strcmp(got, rows[i].expect) != 0)
			fail_msg("command: %s\nexpected:\n%sgot:\n%s", rows[i].command,
				 rows[i].expect, got);
		free(got);
	}
}

static void multi_worker_paths_must_be_shared(void **state)
{
	char cmd[PATH_MAX * 2];
	char expect[PATH_MAX * 2];
	char *got;

	(void)state;
	snprintf(cmd, sizeof(cmd),
		 "cd \"$PROJECT_DIR\" && python train.py --data /home/me/data --cfg '%s/elsewhere/c.yaml'",
		 scratch);
	got = summarise(cmd, 2, project);
	assert_string_equal(got, "launch.launcher python\nlaunch.not_shared /home/me/data\n");
	free(got);
	/* one Worker: a local path is the check module's business, not the lint's */
	got = summarise(cmd, 1, project);
	assert_string_equal(got, "");
	free(got);
	(void)expect;
}

static void sync_hint_only_for_multi_worker_code_without_barrier(void **state)
{
	char *got;

	(void)state;
	got = summarise("cd \"$PROJECT_DIR\" && python train.py", 2, nosync);
	assert_string_equal(got, "launch.launcher python\nlaunch.sync \n");
	free(got);
	got = summarise("cd \"$PROJECT_DIR\" && python train.py", 1, nosync);
	assert_string_equal(got, "");
	free(got);
	got = summarise("cd \"$PROJECT_DIR\" && torchrun --nnodes=2 train.py", 2, project);
	assert_string_equal(got, "");
	free(got);

	/* the walk on its own, and a caller that already knows the answer */
	char empty[PATH_MAX + 16];
	snprintf(empty, sizeof(empty), "%s/elsewhere", scratch);
	assert_int_equal(jp_lint_project_syncs(project), 1);
	assert_int_equal(jp_lint_project_syncs(nosync), 0);
	assert_int_equal(jp_lint_project_syncs(empty), -1);
	struct jp_lint_context ctx = JP_LINT_CONTEXT_INIT;
	struct jp_lint_report r = JP_LINT_REPORT_INIT;
	ctx.profile = profile;
	ctx.project_dir = nosync;
	ctx.project_is_local = 1;
	ctx.workers = 2;
	ctx.syncs = 1;
	assert_int_equal(jp_lint_command(&r, "python train.py", &ctx, NULL), 0);
	for (size_t i = 0; i < r.n; i++)
		assert_int_not_equal(r.items[i].kind, JP_LINT_SYNC);
	jp_lint_report_dispose(&r);
}

static const struct jp_lint_finding *lint_one(struct jp_lint_report *r, const char *command,
					     long long workers, const char *proj)
{
	struct jp_lint_context ctx = JP_LINT_CONTEXT_INIT;

	ctx.profile = profile;
	ctx.project_dir = proj;
	ctx.project_is_local = 1;
	ctx.workers = workers;
	assert_int_equal(jp_lint_command(r, command, &ctx, NULL), 0);
	assert_int_equal(r->n, 1);
	return &r->items[0];
}

/* A download or an unpack in the job points to the `jobprep stage` line
 * that does it before the job: from the archive or URL the command names,
 * into the folder it names (-C, -d), else the first data source. */
static void download_and_unpack_point_to_the_stage_line(void **state)
{
	struct jp_lint_report r = JP_LINT_REPORT_INIT;
	struct jp_lint_context ctx = JP_LINT_CONTEXT_INIT;
	static const struct {
		const char *command, *id, *line;
	} cases[] = {
		{ "cd \"$DATA_DIR\" && tar xzf corpus.tar.gz", "launch.unpack",
		  "jobprep stage '/mnt/public/datasets/sft/corpus.tar.gz' '/mnt/public/datasets/sft'" },
		{ "tar -x -f /mnt/public/raw/c4.tar.zst -C /mnt/public/datasets/c4", "launch.unpack",
		  "jobprep stage '/mnt/public/raw/c4.tar.zst' '/mnt/public/datasets/c4'" },
		{ "unzip -q /mnt/public/raw/img.zip -d \"$DATA_DIR/img\"", "launch.unpack",
		  "jobprep stage '/mnt/public/raw/img.zip' '/mnt/public/datasets/sft/img'" },
		{ "curl -L -o x \"https://h.example/it's.tar.gz\"", "launch.download",
		  "jobprep stage 'https://h.example/it'\\''s.tar.gz' '/mnt/public/datasets/sft'" },
		{ "wget -P /mnt/public/datasets/w https://h.example/w.bin", "launch.download",
		  "jobprep stage 'https://h.example/w.bin' '/mnt/public/datasets/w'" },
	};

	struct jp_profile *dflt = NULL;

	(void)state;
	assert_int_equal(jp_profile_new_default(&dflt, NULL), 0); /* /mnt/public is shared */
	ctx.profile = dflt;
	ctx.data_dir = "/mnt/public/datasets/sft";
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		const char *end = NULL;

		assert_int_equal(jp_lint_command(&r, cases[k].command, &ctx, NULL), 0);
		for (size_t j = 0; j < r.n && !end; j++)
			if (strcmp(r.items[j].id, cases[k].id) == 0)
				end = strstr(r.items[j].message, "before submitting with: ");
		assert_non_null(end);
		assert_string_equal(end + strlen("before submitting with: "), cases[k].line);
		jp_lint_report_dispose(&r);
	}
	jp_profile_free(dflt);
}

static void messages_name_the_word_and_say_why(void **state)
{
	struct jp_lint_report r = JP_LINT_REPORT_INIT;
	const struct jp_lint_finding *f;
	char expect[PATH_MAX * 3];

	(void)state;
	/* the jobprep stage line that does it first: into {shared}/datasets/NAME */
	f = lint_one(&r, "wget -q https://example.com/x.tar", 1, project);
	snprintf(expect, sizeof(expect),
		 "'wget' downloads at job start, while the GPUs wait: stage it onto shared "
		 "storage before submitting with: jobprep stage 'https://example.com/x.tar' "
		 "'%s/datasets/x'",
		 scratch);
	assert_string_equal(f->message, expect);
	jp_lint_report_dispose(&r);
	/* nothing to name: the advice alone */
	f = lint_one(&r, "wget -q \"$URL\"", 1, project);
	assert_string_equal(f->message,
			    "'wget' downloads at job start, while the GPUs wait: fetch it onto "
			    "shared storage before submitting");
	jp_lint_report_dispose(&r);

	f = lint_one(&r, "python train.py --output_dir /tmp/out", 1, NULL);
	snprintf(expect, sizeof(expect),
		 "'--output_dir /tmp/out' writes to /tmp/out, under /tmp, which is wiped when "
		 "the job ends: write it under %s instead (e.g. \"$OUTPUT_DIR\")",
		 scratch);
	assert_string_equal(f->message, expect);
	assert_string_equal(f->path, "/tmp/out");
	jp_lint_report_dispose(&r);

	f = lint_one(&r, "cd \"$PROJECT_DIR\" && ./scripts/prep.sh", 1, project);
	snprintf(expect, sizeof(expect),
		 "'./scripts/prep.sh': %s/scripts/prep.sh is not executable: chmod +x it "
		 "before submitting, or run it with bash",
		 project);
	assert_string_equal(f->message, expect);
	jp_lint_report_dispose(&r);

	f = lint_one(&r, "cd \"$PROJECT_DIR\" && bash scripts/missing.sh", 1, project);
	snprintf(expect, sizeof(expect),
		 "'scripts/missing.sh': %s/scripts/missing.sh does not exist in the project (%s): "
		 "the job stops there; add it to the code (and commit it), or fix the name",
		 project, project);
	assert_string_equal(f->message, expect);
	jp_lint_report_dispose(&r);

	f = lint_one(&r, "cd \"$PROJECT_DIR\" && torchrun --nnodes=3 train.py", 3, nosync);
	assert_true(strncmp(f->message, "hint: ", 6) == 0);
	assert_true(f->is_hint);
	jp_lint_report_dispose(&r);
}

static void pinned_code_clone_is_not_a_download(void **state)
{
	struct jp_lint_context ctx = JP_LINT_CONTEXT_INIT;
	struct jp_lint_report r = JP_LINT_REPORT_INIT;

	(void)state;
	ctx.profile = profile;
	ctx.code_repo_url = "https://example.com/team/code.git";
	assert_int_equal(jp_lint_command(&r,
					 "git clone https://example.com/team/code /workspace/code && "
					 "git clone https://example.com/other.git",
					 &ctx, NULL),
			 0);
	assert_int_equal(r.n, 1);
	assert_string_equal(r.items[0].word, "git clone");
	jp_lint_report_dispose(&r);

	/* the fetch-by-commit line jp_git_clone_command writes */
	assert_int_equal(jp_lint_command(&r,
					 "git init -q /workspace/c && git -C /workspace/c remote add "
					 "origin https://example.com/team/code.git && { git -C "
					 "/workspace/c fetch -q --depth 1 origin 0123 || git -C "
					 "/workspace/c fetch -q origin; } && git fetch "
					 "https://example.com/other.git",
					 &ctx, NULL),
			 0);
	assert_int_equal(r.n, 1);
	assert_string_equal(r.items[0].word, "git fetch");
	jp_lint_report_dispose(&r);
}

/* --- launch_clone: the pinned clone first -------------------------------------- */

#define LC_URL "https://example.com/team/code.git"
#define LC_COMMIT "0123456789abcdef0123456789abcdef01234567"
#define LC_DIR "/workspace/code"
/* what jp_git_clone_command writes for them */
#define LC_LINE                                                                              \
	"git init -q " LC_DIR " && git -C " LC_DIR " remote add origin " LC_URL " && { git -C " \
	LC_DIR " fetch -q --depth 1 origin " LC_COMMIT " || git -C " LC_DIR                      \
	" fetch -q origin; } && git -C " LC_DIR " -c advice.detachedHead=false checkout -q "    \
	"--detach " LC_COMMIT

/* "id word fails" of the launch_clone findings only. */
static char *clone_findings(const char *command, const char *commit)
{
	struct jp_lint_context ctx = JP_LINT_CONTEXT_INIT;
	struct jp_lint_report r = JP_LINT_REPORT_INIT;
	char *out = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&out, &n);

	ctx.profile = profile;
	ctx.project_dir = LC_DIR;
	ctx.code_repo_url = LC_URL;
	ctx.code_commit = commit;
	assert_int_equal(jp_lint_command(&r, command, &ctx, NULL), 0);
	for (size_t i = 0; i < r.n; i++)
		if (r.items[i].kind == JP_LINT_CLONE_FIRST)
			fprintf(f, "%s %s %d\n", r.items[i].id, r.items[i].word, r.items[i].fails);
	fclose(f);
	jp_lint_report_dispose(&r);
	return out;
}

static void launch_clone_must_clone_the_pinned_commit_first(void **state)
{
	static const struct {
		const char *command;
		const char *expect;
	} cases[] = {
		/* the line jobprep writes, then the training */
		{ LC_LINE " && cd \"$PROJECT_DIR\" && bash scripts/train.sh", "" },
		/* clone, then checkout of the commit (full or a 7+ digit prefix) */
		{ "git clone -q " LC_URL " " LC_DIR " && git -C " LC_DIR " checkout -q " LC_COMMIT
		  " && python train.py", "" },
		{ "set -e; mkdir -p /workspace && cd /workspace && git clone " LC_URL
		  " code && cd code && git checkout 0123456 && torchrun train.py", "" },
		{ "rm -rf " LC_DIR "; git clone --no-checkout " LC_URL " " LC_DIR
		  " && git -C " LC_DIR " reset --hard " LC_COMMIT " && python train.py", "" },
		{ "git clone --revision=" LC_COMMIT " " LC_URL " " LC_DIR " && python train.py", "" },
		{ "export C=" LC_COMMIT "; git clone " LC_URL " d && git -C d switch --detach \"$C\""
		  " && python d/train.py", "" },
		{ "git init -q d && git -C d fetch " LC_URL " " LC_COMMIT " && git -C d checkout "
		  "FETCH_HEAD && python train.py", "" },
		/* the same clone inside bash -c */
		{ "bash -c '" "git clone " LC_URL " d && git -C d checkout " LC_COMMIT
		  " && python train.py'", "" },
		/* nothing cloned at all */
		{ "python train.py", "launch.clone_first python 1\n" },
		{ "cd \"$PROJECT_DIR\" && bash scripts/train.sh", "launch.clone_first bash 1\n" },
		{ "echo start", "launch.clone_first  1\n" },
		/* something runs before the clone */
		{ "pip list; " LC_LINE " && python train.py", "launch.clone_first pip 1\n" },
		{ "bash -c 'python prep.py' && " LC_LINE, "launch.clone_first python 1\n" },
		/* cloned, but the branch, not the commit; or checked out too late */
		{ "git clone -b v1 " LC_URL " d && python d/train.py", "launch.clone_first git clone 1\n" },
		{ "git clone " LC_URL " d && python d/train.py && git -C d checkout " LC_COMMIT,
		  "launch.clone_first git clone 1\n" },
		/* another commit, or another repository */
		{ "git clone " LC_URL " d && git -C d checkout fedcba9 && python train.py",
		  "launch.clone_first git clone 1\n" },
		{ "git clone https://example.com/other.git d && git -C d checkout " LC_COMMIT
		  " && python train.py", "launch.clone_first python 1\n" },
		/* a checkout before any clone of the code is no pin */
		{ "git checkout " LC_COMMIT " && python train.py", "launch.clone_first python 1\n" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = clone_findings(cases[i].command, LC_COMMIT);
		if (strcmp(got, cases[i].expect) != 0)
			fail_msg("case %zu: %s\nexpected [%s]\ngot      [%s]", i, cases[i].command,
				 cases[i].expect, got);
		free(got);
	}
	/* no commit recorded: the clone of the repository is all that is asked */
	char *got = clone_findings("git clone " LC_URL " d && python d/train.py", NULL);
	assert_string_equal(got, "");
	free(got);
	got = clone_findings("python train.py", NULL);
	assert_string_equal(got, "launch.clone_first python 1\n");
	free(got);
}

static void launch_clone_finding_gives_the_line_to_put_first(void **state)
{
	struct jp_lint_context ctx = JP_LINT_CONTEXT_INIT;
	struct jp_lint_report r = JP_LINT_REPORT_INIT;

	(void)state;
	ctx.profile = profile;
	ctx.project_dir = LC_DIR;
	ctx.code_repo_url = LC_URL;
	ctx.code_commit = LC_COMMIT;
	assert_int_equal(jp_lint_command(&r, "python train.py", &ctx, NULL), 0);
	assert_true(r.n >= 1);
	assert_string_equal(r.items[r.n - 1].id, "launch.clone_first");
	assert_string_equal(r.items[r.n - 1].message,
			    "'python' runs before the code is cloned: with code.source launch_clone "
			    "the launch command must first clone " LC_URL " (and check out the "
			    "recorded commit), or the job runs without its code. Put this line "
			    "first: " LC_LINE " &&");
	jp_lint_report_dispose(&r);

	assert_int_equal(jp_lint_command(&r, "git clone " LC_URL " " LC_DIR " && python train.py",
					 &ctx, NULL),
			 0);
	assert_true(r.n >= 1);
	assert_string_equal(r.items[r.n - 1].message,
			    "the launch command clones " LC_URL " but does not check out the "
			    "recorded commit " LC_COMMIT " before it runs anything else, so the job "
			    "runs whatever the branch holds when it starts. Put this line first "
			    "instead: " LC_LINE " &&");
	jp_lint_report_dispose(&r);

	/* the other findings stay warnings; not launch_clone: no such finding */
	ctx.code_repo_url = NULL;
	assert_int_equal(jp_lint_command(&r, "wget http://x/y && python train.py", &ctx, NULL), 0);
	for (size_t i = 0; i < r.n; i++) {
		assert_false(r.items[i].fails);
		assert_int_not_equal(r.items[i].kind, JP_LINT_CLONE_FIRST);
	}
	jp_lint_report_dispose(&r);
}

/* jp_lint_manifest: the finding is a failed check of a launch_clone manifest. */
static void launch_clone_manifest_records_a_failed_check(void **state)
{
	struct jp_manifest *m = NULL;
	struct jp_error err = JP_ERROR_INIT;

	(void)state;
	assert_int_equal(jp_manifest_new(&m), 0);
	m->code.source = JP_CODE_LAUNCH_CLONE;
	assert_int_equal(jp_set_str(&m->code.path, LC_DIR), 0);
	assert_int_equal(jp_set_str(&m->code.repo_url, LC_URL), 0);
	assert_int_equal(jp_set_str(&m->code.repo_commit, LC_COMMIT), 0);
	assert_int_equal(jp_set_str(&m->job.launch_command, "python train.py"), 0);
	assert_int_equal(jp_lint_manifest(m, profile, &err), 0);
	assert_int_equal(jp_manifest_worst(m), JP_CHECK_FAIL);
	assert_string_equal(m->checks[m->n_checks - 1].id, "launch.clone_first");

	/* the pinned line first: no failure */
	jp_manifest_free(m);
	assert_int_equal(jp_manifest_new(&m), 0);
	m->code.source = JP_CODE_LAUNCH_CLONE;
	assert_int_equal(jp_set_str(&m->code.path, LC_DIR), 0);
	assert_int_equal(jp_set_str(&m->code.repo_url, LC_URL), 0);
	assert_int_equal(jp_set_str(&m->code.repo_commit, LC_COMMIT), 0);
	assert_int_equal(jp_set_str(&m->job.launch_command, LC_LINE " && python train.py"), 0);
	assert_int_equal(jp_lint_manifest(m, profile, &err), 0);
	for (size_t i = 0; i < m->n_checks; i++)
		assert_int_not_equal(m->checks[i].status, JP_CHECK_FAIL);
	jp_manifest_free(m);
	jp_error_dispose(&err);
}

/* --- the splitter --------------------------------------------------------- */

static void split_respects_quotes_operators_and_substitutions(void **state)
{
	struct jp_sh_line l = JP_SH_LINE_INIT;

	(void)state;
	assert_int_equal(jp_sh_split(&l,
				     "A=1 B='x y' cmd \"a b\" c\\ d && e $(f g) | h; "
				     "i 2>&1 >out.log",
				     NULL),
			 0);
	assert_false(l.unbalanced);
	/* f g (inside the substitution) comes before e, which holds it */
	assert_int_equal(l.n, 5);
	assert_int_equal(l.cmds[0].n_assigns, 2);
	assert_string_equal(l.cmds[0].assigns[1].text, "B=x y");
	assert_int_equal(l.cmds[0].n_words, 3);
	assert_string_equal(l.cmds[0].words[1].text, "a b");
	assert_string_equal(l.cmds[0].words[2].text, "c d");
	assert_int_equal(l.cmds[0].sep, 'A');
	assert_string_equal(l.cmds[1].words[0].text, "f");
	assert_int_equal(l.cmds[1].depth, 1);
	assert_string_equal(l.cmds[2].words[0].text, "e");
	assert_true(l.cmds[2].words[1].has_var);
	assert_int_equal(l.cmds[2].sep, '|');
	assert_string_equal(l.cmds[3].words[0].text, "h");
	assert_int_equal(l.cmds[4].n_words, 2);
	assert_int_equal(l.cmds[4].words[1].redir, '>');
	assert_string_equal(l.cmds[4].words[1].text, "out.log");
	jp_sh_line_dispose(&l);

	assert_int_equal(jp_sh_split(&l, "echo \"$(cat 'a)b')\" `x`", NULL), 0);
	assert_false(l.unbalanced);
	assert_int_equal(l.n, 3);
	assert_string_equal(l.cmds[0].words[1].text, "a)b");
	assert_string_equal(l.cmds[1].words[0].text, "x");
	jp_sh_line_dispose(&l);

	assert_int_equal(jp_sh_split(&l, "echo \"open", NULL), 0);
	assert_true(l.unbalanced);
	jp_sh_line_dispose(&l);
}

static void quote_round_trips_single_quotes(void **state)
{
	char *q = NULL;

	(void)state;
	assert_int_equal(jp_sh_quote(&q, "it's"), 0);
	assert_string_equal(q, "'it'\\''s'");
	free(q);
}

/* --- issue 13: launchers for many Workers, outputs, job.env paths ---------- */

struct ctx_row {
	const char *command;
	const char *expect; /* "id word\n" per finding, "" for none */
};

/* The findings of `command` with the whole context: `workers` Workers of 8
 * GPUs, the run's directories under the scratch, project `proj`, job.env. */
static char *summarise_full(const char *command, long long workers, const char *proj,
			    const struct jp_env_var *env, size_t n_env)
{
	struct jp_lint_context ctx = JP_LINT_CONTEXT_INIT;
	struct jp_lint_report r = JP_LINT_REPORT_INIT;
	char out_dir[PATH_MAX], ckpt[PATH_MAX + 16], logs[PATH_MAX + 16];
	char *out = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&out, &n);

	snprintf(out_dir, sizeof(out_dir), "%s/outputs/run-001", scratch);
	snprintf(ckpt, sizeof(ckpt), "%s/checkpoints", out_dir);
	snprintf(logs, sizeof(logs), "%s/logs", out_dir);
	ctx.profile = profile;
	ctx.project_dir = proj;
	ctx.project_is_local = 1;
	ctx.workers = workers;
	ctx.gpus_per_worker = 8;
	ctx.output_dir = out_dir;
	ctx.checkpoint_dir = ckpt;
	ctx.log_dir = logs;
	ctx.env = env;
	ctx.n_env = n_env;
	assert_int_equal(jp_lint_command(&r, command, &ctx, NULL), 0);
	for (size_t i = 0; i < r.n; i++)
		fprintf(f, "%s %s\n", r.items[i].id, r.items[i].word);
	fclose(f);
	jp_lint_report_dispose(&r);
	return out;
}

static void check_rows(const struct ctx_row *rows_, size_t n, long long workers, const char *proj)
{
	for (size_t i = 0; i < n; i++) {
		char *got = summarise_full(rows_[i].command, workers, proj, NULL, 0);
		if (strcmp(got, rows_[i].expect) != 0)
			fail_msg("command (%lld Workers): %s\nexpected:\n%sgot:\n%s", workers,
				 rows_[i].command, rows_[i].expect, got);
		free(got);
	}
}

/* All of these pass $CHECKPOINT_DIR, so only the launcher is judged. */
static const struct ctx_row launcher_rows[] = {
	/* single-process launchers on 4 Workers */
	{ "cd \"$PROJECT_DIR\" && python train.py --out $CHECKPOINT_DIR", "launch.launcher python\n" },
	{ "cd \"$PROJECT_DIR\" && python3 -u train.py --out $CHECKPOINT_DIR",
	  "launch.launcher python3\n" },
	{ "cd \"$PROJECT_DIR\" && python -m torch.distributed.run --nproc_per_node 8 train.py "
	  "--out $CHECKPOINT_DIR",
	  "launch.launcher python -m torch.distributed.run\n" },
	{ "cd \"$PROJECT_DIR\" && torchrun --nproc_per_node=8 train.py --out $CHECKPOINT_DIR",
	  "launch.launcher torchrun\n" },
	{ "cd \"$PROJECT_DIR\" && torchrun --nnodes=1 train.py --out $CHECKPOINT_DIR",
	  "launch.launcher torchrun\n" },
	{ "cd \"$PROJECT_DIR\" && torchrun --standalone --nnodes=4 train.py --out $CHECKPOINT_DIR",
	  "launch.launcher torchrun\n" },
	{ "cd \"$PROJECT_DIR\" && torchrun train.py --nnodes 4 --out $CHECKPOINT_DIR",
	  "launch.launcher torchrun\n" },
	{ "cd \"$PROJECT_DIR\" && accelerate launch train.py --out $CHECKPOINT_DIR",
	  "launch.launcher accelerate launch\n" },
	{ "cd \"$PROJECT_DIR\" && deepspeed train.py --out $CHECKPOINT_DIR",
	  "launch.launcher deepspeed\n" },
	{ "cd \"$PROJECT_DIR\" && deepspeed --include localhost:0,1 train.py --out $CHECKPOINT_DIR",
	  "launch.launcher deepspeed\n" },
	{ "cd \"$PROJECT_DIR\" && accelerate launch --multi_gpu train.py --out $CHECKPOINT_DIR",
	  "launch.launcher accelerate launch\n" },
	/* and the forms that know the other Workers */
	{ "cd \"$PROJECT_DIR\" && torchrun --nnodes=\"$WORLD_SIZE\" --node_rank=\"$RANK\" "
	  "--master_addr=\"$MASTER_ADDR\" --master_port=\"$MASTER_PORT\" --nproc_per_node=8 "
	  "train.py --out $CHECKPOINT_DIR",
	  "" },
	{ "cd \"$PROJECT_DIR\" && torchrun --nnodes 4 --rdzv-endpoint h:29400 train.py "
	  "--out $CHECKPOINT_DIR",
	  "" },
	{ "cd \"$PROJECT_DIR\" && python -m torch.distributed.run --nnodes=4 train.py "
	  "--out $CHECKPOINT_DIR",
	  "" },
	{ "cd \"$PROJECT_DIR\" && accelerate launch --config_file cfg.yaml train.py "
	  "--out $CHECKPOINT_DIR",
	  "" },
	{ "cd \"$PROJECT_DIR\" && accelerate launch --num_machines 4 --machine_rank $RANK train.py "
	  "--out $CHECKPOINT_DIR",
	  "" },
	{ "cd \"$PROJECT_DIR\" && deepspeed --hostfile hosts train.py --out $CHECKPOINT_DIR", "" },
	{ "cd \"$PROJECT_DIR\" && deepspeed --num_nodes=4 --no_ssh train.py --out $CHECKPOINT_DIR",
	  "" },
	{ "cd \"$PROJECT_DIR\" && srun python train.py --out $CHECKPOINT_DIR", "" },
	{ "cd \"$PROJECT_DIR\" && mpirun -np 32 python train.py --out $CHECKPOINT_DIR", "" },
	{ "python -c 'print(1)' && echo $OUTPUT_DIR", "" },
	/* the script's own launcher is judged, at its line (issue 21) */
	{ "cd \"$PROJECT_DIR\" && bash scripts/train.sh $CHECKPOINT_DIR",
	  "launch.launcher scripts/train.sh:2: python\n" },
};

static void several_workers_need_a_launcher_that_knows_them(void **state)
{
	struct jp_lint_report r = JP_LINT_REPORT_INIT;
	struct jp_lint_context ctx = JP_LINT_CONTEXT_INIT;

	(void)state;
	check_rows(launcher_rows, sizeof(launcher_rows) / sizeof(launcher_rows[0]), 4, project);
	/* one Worker: any launcher is right, but one told of 4 nodes waits for
	 * three that never come (issue 31: launch.nodes) */
	for (size_t i = 0; i < sizeof(launcher_rows) / sizeof(launcher_rows[0]); i++) {
		char *got = summarise_full(launcher_rows[i].command, 1, project, NULL, 0);
		bool four = strstr(launcher_rows[i].command, "--nnodes=4") ||
			    strstr(launcher_rows[i].command, "--nnodes 4") ||
			    strstr(launcher_rows[i].command, "--num_machines 4") ||
			    strstr(launcher_rows[i].command, "--num_nodes=4") ||
			    strstr(launcher_rows[i].command, "--config_file cfg.yaml"); /* num_machines: 4 */
		/* --standalone is its own one node; after the script, the script's option */
		if (four && (strstr(launcher_rows[i].command, "--standalone") ||
			     strstr(launcher_rows[i].command, "train.py --nnodes")))
			four = false;
		/* and 32 processes for 8 GPUs leave 24 ranks without one */
		if (strstr(launcher_rows[i].command, "-np 32") ? strcmp(got, "launch.processes mpirun -np 32\n") != 0 :
		    four ? strncmp(got, "launch.nodes ", 13) != 0 : strcmp(got, "") != 0)
			fail_msg("one Worker: %s\ngot:\n%s", launcher_rows[i].command, got);
		free(got);
	}
	/* the message gives the form to use, with the process count */
	ctx.profile = profile;
	ctx.project_dir = project;
	ctx.project_is_local = 1;
	ctx.workers = 4;
	ctx.gpus_per_worker = 8;
	assert_int_equal(jp_lint_command(&r, "cd \"$PROJECT_DIR\" && python train.py", &ctx, NULL),
			 0);
	assert_int_equal(r.n, 1);
	assert_string_equal(r.items[0].message,
			    "'python train.py' starts one process on each of the 4 Workers, and none of "
			    "them knows the others (unless the script starts its own): run it as "
			    "torchrun --nnodes=\"$WORLD_SIZE\" --node_rank=\"$RANK\" "
			    "--master_addr=\"$MASTER_ADDR\" --master_port=\"$MASTER_PORT\" "
			    "--nproc_per_node=8 train.py");
	jp_lint_report_dispose(&r);
	assert_int_equal(jp_lint_command(&r, "cd \"$PROJECT_DIR\" && accelerate launch train.py",
					 &ctx, NULL),
			 0);
	assert_int_equal(r.n, 1);
	assert_string_equal(r.items[0].message,
			    "'accelerate launch' without its multi-node options starts the job on each "
			    "of the 4 Workers alone, and they never meet: add --num_machines "
			    "\"$WORLD_SIZE\" --machine_rank \"$RANK\" --main_process_ip \"$MASTER_ADDR\" "
			    "--main_process_port \"$MASTER_PORT\" --num_processes 32 (the platform sets "
			    "these variables on every Worker)");
	jp_lint_report_dispose(&r);
}

static void outputs_must_go_to_the_run_directories(void **state)
{
	char outproj[PATH_MAX], envproj[PATH_MAX], plain[PATH_MAX], cmd[PATH_MAX * 2];
	struct jp_lint_report r = JP_LINT_REPORT_INIT;
	struct jp_lint_context ctx = JP_LINT_CONTEXT_INIT;
	char *got;

	(void)state;
	snprintf(outproj, sizeof(outproj), "%s/nanogpt", scratch);
	snprintf(envproj, sizeof(envproj), "%s/envproj", scratch);
	snprintf(plain, sizeof(plain), "%s/plain", scratch);
	make_dir(scratch, "nanogpt");
	write_file(outproj, "train.py", "out_dir = 'out'\nimport torch.distributed\n", 0644);
	make_dir(scratch, "envproj");
	write_file(envproj, "train.py", "import os\nsave(os.environ['CHECKPOINT_DIR'])\n", 0644);
	make_dir(scratch, "plain");
	write_file(plain, "train.sh", "#!/bin/sh\necho training\n", 0755);

	/* found: nothing sends outputs to the run */
	got = summarise_full("cd \"$PROJECT_DIR\" && python train.py", 1, outproj, NULL, 0);
	assert_string_equal(got, "launch.outputs \n");
	free(got);
	got = summarise_full("cd \"$PROJECT_DIR\" && bash train.sh", 1, plain, NULL, 0);
	assert_string_equal(got, "launch.outputs \n");
	free(got);
	/* quiet: the command passes them, or the code reads them, or we cannot look */
	got = summarise_full("cd \"$PROJECT_DIR\" && python train.py --out_dir=\"$CHECKPOINT_DIR\"",
			     1, outproj, NULL, 0);
	assert_string_equal(got, "");
	free(got);
	got = summarise_full("cd \"$PROJECT_DIR\" && python train.py --log ${LOG_DIR}/x", 1, outproj,
			     NULL, 0);
	assert_string_equal(got, "");
	free(got);
	snprintf(cmd, sizeof(cmd), "cd \"$PROJECT_DIR\" && python train.py --out '%s/outputs/run-001'",
		 scratch);
	got = summarise_full(cmd, 1, outproj, NULL, 0);
	assert_string_equal(got, "");
	free(got);
	got = summarise_full("cd \"$PROJECT_DIR\" && python train.py", 1, envproj, NULL, 0);
	assert_string_equal(got, "");
	free(got);
	got = summarise_full("cd \"$PROJECT_DIR\" && python -m mypkg.train", 1, plain, NULL, 0);
	assert_string_equal(got, "");
	free(got);

	/* the message names the script, the known default and the fix */
	ctx.profile = profile;
	ctx.project_dir = outproj;
	ctx.project_is_local = 1;
	ctx.output_dir = "/run";
	assert_int_equal(jp_lint_command(&r, "cd \"$PROJECT_DIR\" && python train.py", &ctx, NULL),
			 0);
	assert_int_equal(r.n, 1);
	snprintf(cmd, sizeof(cmd),
		 "neither the launch command nor %s/train.py uses $OUTPUT_DIR, $CHECKPOINT_DIR or "
		 "$LOG_DIR (or their paths), so out/ (nanoGPT's out_dir) lands inside the project, "
		 "not in the run's folder, and the next run overwrites it: pass the run's directory "
		 "on, e.g. --out_dir=\"$CHECKPOINT_DIR\"",
		 outproj);
	assert_string_equal(r.items[0].message, cmd);
	jp_lint_report_dispose(&r);
}

/* job.env entries are the manifest's own strings: not const */
#define E(s) ((char *)(uintptr_t)(s))

static void path_valued_job_env_is_judged_like_an_output(void **state)
{
	char missing[PATH_MAX], shared[PATH_MAX], expect[PATH_MAX * 3];
	struct jp_env_var env[] = {
		{ E("HF_HOME"), E("/root/hf") },
		{ E("TORCH_HOME"), E(missing) },
		{ E("WANDB_DIR"), E(shared) },
		{ E("TMPDIR"), E("/tmp") },
		{ E("MY_CACHE"), E("/workspace/cache") },
		{ E("NCCL_DEBUG"), E("INFO") },
		{ E("LD_LIBRARY_PATH"), E("/usr/local/cuda/lib64:/usr/lib") },
		{ E("CUDA_HOME"), E("/usr/local/cuda") },
		{ E("HF_DATASETS_CACHE"), E("relative/cache") },
	};
	struct jp_lint_report r = JP_LINT_REPORT_INIT;
	struct jp_lint_context ctx = JP_LINT_CONTEXT_INIT;
	const char *cmd = "cd \"$PROJECT_DIR\" && python train.py --out \"$OUTPUT_DIR\"";
	char *got;

	(void)state;
	snprintf(missing, sizeof(missing), "%s/cache/torch", scratch);
	snprintf(shared, sizeof(shared), "%s/elsewhere", scratch);
	got = summarise_full(cmd, 1, project, env, sizeof(env) / sizeof(env[0]));
	assert_string_equal(got, "launch.env_path HF_HOME\n"
				 "launch.env_path TORCH_HOME\n"
				 "launch.env_path TMPDIR\n"
				 "launch.env_path MY_CACHE\n");
	free(got);

	ctx.profile = profile;
	ctx.project_dir = project;
	ctx.project_is_local = 1;
	ctx.env = env;
	ctx.n_env = 2;
	assert_int_equal(jp_lint_command(&r, cmd, &ctx, NULL), 0);
	assert_int_equal(r.n, 2);
	snprintf(expect, sizeof(expect),
		 "job.env HF_HOME=/root/hf is on /root, which is wiped when the job ends: what the "
		 "job keeps there is lost, and fetched again by every run: set HF_HOME to a folder "
		 "under %s (e.g. %s/cache)",
		 scratch, scratch);
	assert_string_equal(r.items[0].message, expect);
	assert_string_equal(r.items[0].path, "/root/hf");
	snprintf(expect, sizeof(expect),
		 "job.env TORCH_HOME=%s does not exist: create it before submitting (mkdir -p '%s'), "
		 "so that every Worker finds the same folder",
		 missing, missing);
	assert_string_equal(r.items[1].message, expect);
	jp_lint_report_dispose(&r);
}

/* --- issue 21: files the command names, the scripts it runs, wiped outputs --- */

/* "id word fails" per finding. */
static char *summarise_fails(const char *command, long long workers, const char *proj,
			     const struct jp_env_var *env, size_t n_env)
{
	struct jp_lint_context ctx = JP_LINT_CONTEXT_INIT;
	struct jp_lint_report r = JP_LINT_REPORT_INIT;
	char *out = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&out, &n);

	ctx.profile = profile;
	ctx.project_dir = proj;
	ctx.project_is_local = 1;
	ctx.workers = workers;
	ctx.env = env;
	ctx.n_env = n_env;
	assert_int_equal(jp_lint_command(&r, command, &ctx, NULL), 0);
	for (size_t i = 0; i < r.n; i++)
		fprintf(f, "%s %s %d\n", r.items[i].id, r.items[i].word, r.items[i].fails);
	fclose(f);
	jp_lint_report_dispose(&r);
	return out;
}

static void check_fail_rows(const struct ctx_row *rows_, size_t n, long long workers,
			    const char *proj)
{
	for (size_t i = 0; i < n; i++) {
		char *got = summarise_fails(rows_[i].command, workers, proj, NULL, 0);
		if (strcmp(got, rows_[i].expect) != 0)
			fail_msg("command: %s\nexpected:\n%sgot:\n%s", rows_[i].command, rows_[i].expect,
				 got);
		free(got);
	}
}

static const struct ctx_row wiped_rows[] = {
	{ "cd \"$PROJECT_DIR\" && python train.py --out /tmp/out",
	  "launch.ephemeral_output --out /tmp/out 1\n" },
	{ "cd \"$PROJECT_DIR\" && python train.py --save-dir=/workspace/ckpt",
	  "launch.ephemeral_output --save-dir=/workspace/ckpt 1\n" },
	{ "cd \"$PROJECT_DIR\" && bash scripts/train.sh > /root/train.log",
	  "launch.ephemeral_output /root/train.log 1\n" },
	{ "HF_HOME=/tmp/hf python \"$PROJECT_DIR/train.py\"", "launch.ephemeral_output HF_HOME=/tmp/hf 1\n" },
	/* not surely run: a warning */
	{ "cd \"$PROJECT_DIR\" && if [ -n \"$DEBUG\" ]; then python train.py --out /tmp/dbg; fi",
	  "launch.ephemeral_output --out /tmp/dbg 0\n" },
	{ "cd \"$PROJECT_DIR\" && [ -d /mnt/x ] && python train.py --out /tmp/o",
	  "launch.ephemeral_output --out /tmp/o 0\n" },
	/* scratch by design */
	{ "TMPDIR=/tmp python -V", "" },
};

static void wiped_outputs_fail_like_a_checkpoint_there(void **state)
{
	struct jp_env_var env[] = {
		{ E("HF_HOME"), E("/tmp/hf") },
		{ E("TMPDIR"), E("/tmp") },
		{ E("WANDB_DIR"), E("/workspace/wandb") },
	};
	struct jp_manifest *m = NULL;
	struct jp_error err = JP_ERROR_INIT;
	char *got;

	(void)state;
	check_fail_rows(wiped_rows, sizeof(wiped_rows) / sizeof(wiped_rows[0]), 1, project);
	got = summarise_fails("cd \"$PROJECT_DIR\" && python train.py --out \"$OUTPUT_DIR\"", 1, project,
			      env, 3);
	assert_string_equal(got, "launch.env_path HF_HOME 1\n"
				 "launch.env_path TMPDIR 0\n"
				 "launch.env_path WANDB_DIR 1\n");
	free(got);

	/* recorded as a failed check: init and the wizard write no manifest */
	assert_int_equal(jp_manifest_new(&m), 0);
	m->code.source = JP_CODE_SHARED_STORAGE;
	assert_int_equal(jp_set_str(&m->code.path, project), 0);
	assert_int_equal(jp_set_str(&m->job.launch_command,
				    "cd \"$PROJECT_DIR\" && python train.py --output_dir /tmp/out"),
			 0);
	assert_int_equal(jp_lint_manifest(m, profile, &err), 0);
	assert_int_equal(jp_manifest_worst(m), JP_CHECK_FAIL);
	assert_string_equal(m->checks[m->n_checks - 1].id, "launch.ephemeral_output");
	jp_manifest_free(m);
	jp_error_dispose(&err);
}

static const struct ctx_row file_rows[] = {
	/* the code's files are there: quiet */
	{ "cd \"$PROJECT_DIR\" && python train.py --config scripts/prep.sh", "" },
	{ "cd \"$PROJECT_DIR\" && python train.py --model meta-llama/Llama-2-7b --data nowhere/x", "" },
	{ "cd \"$PROJECT_DIR\" && python train.py --out_dir out/run1 --log=logs/x.json", "" },
	{ "cd \"$PROJECT_DIR\" && python train.py --out_dir gen && python train.py gen/cfg.json", "" },
	{ "cd \"$PROJECT_DIR\" && python train.py 'lr=0.1' +exp=base.yaml https://x/y.json", "" },
	{ "cd \"$PROJECT_DIR\" && python -m mypkg.train && python -m pkg.ok", "" },
	/* no cd: cd first, it says; the files are looked up where the exports
	 * start the job, the project */
	/* the platform's launch line starts elsewhere: train.py is not found (issue 31) */
	{ "python train.py config/nope.py", "launch.script train.py 1\nlaunch.file config/nope.py 1\n" },
	{ "python3 trian.py", "launch.script trian.py 1\n" },
	/* not in the code */
	{ "cd \"$PROJECT_DIR\" && python3 train.py config/nope.py",
	  "launch.file config/nope.py 1\n" },
	{ "cd \"$PROJECT_DIR\" && python train.py --config configs/x.yaml",
	  "launch.file configs/x.yaml 1\n" },
	{ "cd \"$PROJECT_DIR\" && python train.py --config-file=configs/y.toml -c c.cfg",
	  "launch.file configs/y.toml 1\nlaunch.file c.cfg 1\n" },
	{ "cd \"$PROJECT_DIR\" && torchrun --nproc_per_node 8 train.py --cfg configs/z.yml",
	  "launch.file configs/z.yml 1\n" },
	{ "cd \"$PROJECT_DIR\" && deepspeed train.py --deepspeed_config ds.json",
	  "launch.file ds.json 1\n" },
	{ "cd \"$PROJECT_DIR\" && accelerate launch nothere.py", "launch.script nothere.py 1\n" },
	{ "cd \"$PROJECT_DIR\" && accelerate launch --config_file acc.yaml --num_processes 8 train.py",
	  "launch.file acc.yaml 1\n" },
	{ "cd \"$PROJECT_DIR\" && accelerate launch --config_file=scripts/prep.sh train.py", "" },
	{ "cd \"$PROJECT_DIR\" && python train.py --data scripts/nothere",
	  "launch.file scripts/nothere 0\n" },
	{ "cd \"$PROJECT_DIR\" && python -m pkg.train", "launch.script pkg.train 1\n" },
	{ "cd \"$PROJECT_DIR\" && bash scripts/train.sh configs/run.yaml",
	  "launch.file configs/run.yaml 1\n" },
	{ "cd \"$PROJECT_DIR\" && test -f x.py && python x.py", "launch.script x.py 0\n" },
};

/* The scripts the command runs are read, their lines judged where they are. */
static const struct ctx_row script_rows[] = {
	{ "cd \"$PROJECT_DIR\" && bash scripts/run.sh",
	  "launch.download scripts/run.sh:4: wget 0\n"
	  "launch.script scripts/run.sh:5: gone.py 1\n"
	  "launch.script scripts/run.sh:7: maybe.py 0\n"
	  "launch.file scripts/run.sh:9: configs/x.yaml 1\n"
	  "launch.ephemeral_output scripts/run.sh:11: --output_dir /tmp/o 1\n"
	  "launch.script scripts/inner.sh:2: inner_gone.py 1\n" },
	/* run from elsewhere: its own folder, by $(dirname "$0") */
	{ "cd /tmp && sh \"$PROJECT_DIR/scripts/own_dir.sh\"",
	  "launch.cd cd /tmp 0\nlaunch.script scripts/own_dir.sh:3: own_gone.py 1\n" },
	/* a cycle ends; a here-document's body is text */
	{ "cd \"$PROJECT_DIR\" && . scripts/loop_a.sh", "" },
	/* a python script run directly is not read as sh */
	{ "cd \"$PROJECT_DIR\" && ./scripts/tool", "" },
	/* a script the shell would refuse says so, by its name */
	{ "cd \"$PROJECT_DIR\" && sh scripts/broken.sh", "launch.syntax scripts/broken.sh:  0\n" },
};

static void files_the_command_names_must_be_in_the_code(void **state)
{
	char pkg[PATH_MAX + 16];

	(void)state;
	snprintf(pkg, sizeof(pkg), "%s/pkg", project);
	make_dir(project, "pkg");
	write_file(pkg, "__init__.py", "", 0644);
	write_file(pkg, "ok.py", "print(1)\n", 0644);
	check_fail_rows(file_rows, sizeof(file_rows) / sizeof(file_rows[0]), 1, project);
	/* a project that is not on this machine: nothing is missing from it */
	{
		char gone[PATH_MAX + 16];
		snprintf(gone, sizeof(gone), "%s/not-here", scratch);
		char *got = summarise_fails("cd \"$PROJECT_DIR\" && python3 nothere.py --config c.yaml && "
					    "python3 -m gone.mod",
					    1, gone, NULL, 0);
		assert_string_equal(got, "");
		free(got);
	}

	write_file(project, "scripts/run.sh",
		   "#!/bin/bash\n"
		   "set -e\n"
		   "python train.py --config scripts/prep.sh\n"
		   "wget -q \"$URL\"\n"
		   "python gone.py\n"
		   "if [ -f maybe.py ]; then\n"
		   "  python maybe.py\n"
		   "fi\n"
		   "python train.py \\\n  --config configs/x.yaml\n"
		   "python train.py --output_dir /tmp/o\n"
		   "bash scripts/inner.sh\n",
		   0755);
	write_file(project, "scripts/inner.sh", "cd \"$PROJECT_DIR\"\npython inner_gone.py\n", 0644);
	write_file(project, "scripts/own_dir.sh",
		   "#!/bin/sh\ncd \"$(dirname \"$0\")/..\"\npython own_gone.py\npython train.py\n", 0644);
	write_file(project, "scripts/loop_a.sh",
		   "cat > x.yaml <<EOF\npython heredoc_gone.py\nEOF\n. scripts/loop_b.sh\n", 0644);
	write_file(project, "scripts/loop_b.sh", "bash scripts/loop_a.sh\n", 0644);
	write_file(project, "scripts/broken.sh", "echo 'open\n", 0644);
	write_file(project, "scripts/tool", "#!/usr/bin/env python3\nimport os; os.system('x')\n",
		   0755);
	check_fail_rows(script_rows, sizeof(script_rows) / sizeof(script_rows[0]), 1, project);
}

/* tar -C /workspace: the stage line unpacks onto shared storage instead. */
static void stage_line_never_targets_a_wiped_folder(void **state)
{
	struct jp_lint_report r = JP_LINT_REPORT_INIT;
	struct jp_lint_context ctx = JP_LINT_CONTEXT_INIT;
	struct jp_profile *dflt = NULL;
	static const struct {
		const char *command, *data_dir, *line;
	} cases[] = {
		{ "tar xzf /mnt/public/raw/c4.tar.gz -C /workspace", "/mnt/public/datasets/c4",
		  "jobprep stage '/mnt/public/raw/c4.tar.gz' '/mnt/public/datasets/c4'" },
		{ "tar xzf /mnt/public/raw/c4.tar.gz -C /workspace", NULL,
		  "jobprep stage '/mnt/public/raw/c4.tar.gz' '/mnt/public/datasets/c4'" },
		{ "unzip /mnt/public/raw/img.zip -d /tmp/img", "/infini-data/img",
		  "jobprep stage '/mnt/public/raw/img.zip' '/mnt/public/datasets/img'" },
	};

	(void)state;
	assert_int_equal(jp_profile_new_default(&dflt, NULL), 0);
	ctx.profile = dflt;
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		const char *end = NULL;

		ctx.data_dir = cases[k].data_dir;
		assert_int_equal(jp_lint_command(&r, cases[k].command, &ctx, NULL), 0);
		for (size_t j = 0; j < r.n && !end; j++)
			if (strcmp(r.items[j].id, "launch.unpack") == 0)
				end = strstr(r.items[j].message, "before submitting with: ");
		assert_non_null(end);
		assert_string_equal(end + strlen("before submitting with: "), cases[k].line);
		jp_lint_report_dispose(&r);
	}
	jp_profile_free(dflt);
}

static void split_gives_lines_compounds_and_skips_heredocs(void **state)
{
	struct jp_sh_line l = JP_SH_LINE_INIT;

	(void)state;
	assert_int_equal(jp_sh_split(&l,
				     "a\n"
				     "cat <<EOF\nnot a command\nEOF\n"
				     "if x; then\n  b \\\n c\nfi\n"
				     "\tcat <<-'E'\n\tno\n\tE\n"
				     "d $(e)\n",
				     NULL),
			 0);
	assert_int_equal(l.n, 7);
	assert_string_equal(l.cmds[0].words[0].text, "a");
	assert_int_equal(l.cmds[0].line, 1);
	assert_int_equal(l.cmds[1].line, 2); /* cat, its body skipped */
	assert_string_equal(l.cmds[2].words[0].text, "x");
	assert_int_equal(l.cmds[2].line, 5);
	assert_int_equal(l.cmds[2].compound, 1);
	assert_string_equal(l.cmds[3].words[0].text, "b");
	assert_int_equal(l.cmds[3].line, 6);
	assert_int_equal(l.cmds[3].n_words, 2);
	assert_int_equal(l.cmds[3].compound, 1);
	assert_int_equal(l.cmds[4].line, 9);
	assert_int_equal(l.cmds[4].compound, 0);
	assert_string_equal(l.cmds[5].words[0].text, "e");
	assert_int_equal(l.cmds[6].line, 12);
	jp_sh_line_dispose(&l);
}

/* On several Workers, a script's launcher is judged; its plain python lines
 * only when they surely run and no launcher is beside them. */
static void launchers_inside_scripts_on_several_workers(void **state)
{
	static const struct ctx_row rows_[] = {
		{ "cd \"$PROJECT_DIR\" && bash scripts/w_torchrun.sh",
		  "launch.launcher scripts/w_torchrun.sh:3: torchrun\n" },
		{ "cd \"$PROJECT_DIR\" && bash scripts/w_rank0.sh", "" },
		{ "cd \"$PROJECT_DIR\" && bash scripts/w_plain.sh",
		  "launch.launcher scripts/w_plain.sh:1: python3\n" },
		{ "cd \"$PROJECT_DIR\" && bash scripts/w_good.sh", "" },
	};
	struct jp_lint_report r = JP_LINT_REPORT_INIT;
	struct jp_lint_context ctx = JP_LINT_CONTEXT_INIT;

	char pkg[PATH_MAX + 16];

	(void)state;
	snprintf(pkg, sizeof(pkg), "%s/pkg", project);
	(void)mkdir(pkg, 0755); /* the files test may have made it */
	write_file(pkg, "ok.py", "print(1)\n", 0644);
	write_file(project, "scripts/w_torchrun.sh",
		   "#!/bin/sh\npython3 train.py --out \"$CHECKPOINT_DIR\"\n"
		   "torchrun --nproc_per_node 8 train.py --out \"$CHECKPOINT_DIR\"\n",
		   0644);
	write_file(project, "scripts/w_rank0.sh",
		   "if [ \"$RANK\" = 0 ]; then python3 train.py --out \"$CHECKPOINT_DIR\"; fi\n", 0644);
	write_file(project, "scripts/w_plain.sh", "python3 -m pkg.ok --out \"$CHECKPOINT_DIR\"\n", 0644);
	write_file(project, "scripts/w_good.sh",
		   "torchrun --nnodes=\"$WORLD_SIZE\" --nproc_per_node=8 train.py --out \"$CHECKPOINT_DIR\"\n",
		   0644);
	check_rows(rows_, sizeof(rows_) / sizeof(rows_[0]), 4, project);
	/* a module runs as -m NAME, in the form to use too */
	ctx.profile = profile;
	ctx.project_dir = project;
	ctx.project_is_local = 1;
	ctx.workers = 2;
	ctx.gpus_per_worker = 8;
	assert_int_equal(jp_lint_command(&r, "cd \"$PROJECT_DIR\" && python3 -m pkg.ok", &ctx, NULL), 0);
	assert_int_equal(r.n, 1);
	assert_non_null(strstr(r.items[0].message, "'python3 -m pkg.ok' starts one process"));
	assert_non_null(strstr(r.items[0].message, "--nproc_per_node=8 -m pkg.ok"));
	jp_lint_report_dispose(&r);
}

/* --- issue 31: configs read without running them, launchers' counts ------- */

static void configs_are_read_without_running_them(void **state)
{
	struct jp_lint_config c = JP_LINT_CONFIG_INIT;
	static const char py[] = "import time\n"
				 "out_dir = 'out-shakespeare' # a comment\n"
				 "wandb_log = False\n"
				 "wandb_run_name = 'ft-' + str(time.time())\n"
				 "if x:\n    init_from = 'indented'\n"
				 "init_from = \"gpt2-xl\"\n"
				 "a == b\n";
	static const char yaml[] = "trainer:\n  default_root_dir: /tmp/x  # here\n"
				   "  list: [1, 2]\n  - name: 'quoted'\nblock: |\n";
	static const char json[] = "{\"trainer\": {\"output_dir\": \"/tmp/j\", \"n\": 2}, \"b\": true}";

	(void)state;
	assert_int_equal(jp_lint_config_parse(&c, "c.py", py, strlen(py)), 0);
	assert_string_equal(jp_lint_config_get(&c, "out_dir"), "out-shakespeare");
	assert_string_equal(jp_lint_config_get(&c, "wandb_log"), "False");
	assert_string_equal(jp_lint_config_get(&c, "init_from"), "gpt2-xl");
	assert_null(jp_lint_config_get(&c, "wandb_run_name")); /* an expression */
	assert_null(jp_lint_config_get(&c, "a"));
	assert_int_equal(c.items[0].line, 2);
	jp_lint_config_dispose(&c);

	assert_int_equal(jp_lint_config_parse(&c, "c.yaml", yaml, strlen(yaml)), 0);
	assert_string_equal(jp_lint_config_get(&c, "default_root_dir"), "/tmp/x");
	assert_string_equal(jp_lint_config_get(&c, "name"), "quoted");
	assert_null(jp_lint_config_get(&c, "list"));
	assert_null(jp_lint_config_get(&c, "block"));
	assert_null(jp_lint_config_get(&c, "trainer"));
	jp_lint_config_dispose(&c);

	assert_int_equal(jp_lint_config_parse(&c, "c.json", json, strlen(json)), 0);
	assert_string_equal(jp_lint_config_get(&c, "output_dir"), "/tmp/j");
	assert_string_equal(jp_lint_config_get(&c, "b"), "true");
	jp_lint_config_dispose(&c);

	assert_int_equal(jp_lint_config_override(&c, "--out_dir=/tmp/o"), 0);
	assert_int_equal(jp_lint_config_override(&c, "trainer.max_epochs=3"), 0);
	assert_int_equal(jp_lint_config_override(&c, "not an override"), 0);
	assert_int_equal(jp_lint_config_override(&c, "--=x"), 0);
	assert_int_equal(c.n, 2);
	assert_string_equal(jp_lint_config_get(&c, "out_dir"), "/tmp/o");
	assert_string_equal(jp_lint_config_get(&c, "max_epochs"), "3");
	jp_lint_config_dispose(&c);
}

/* The count findings with their verdict ("launch.processes WORD 1"), 2 Workers of 8 GPUs. */
static char *counts_of(const char *command)
{
	struct jp_lint_context ctx = JP_LINT_CONTEXT_INIT;
	struct jp_lint_report r = JP_LINT_REPORT_INIT;
	char *out = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&out, &n);

	ctx.profile = profile;
	ctx.project_dir = project;
	ctx.project_is_local = 1;
	ctx.workers = 2;
	ctx.gpus_per_worker = 8;
	ctx.syncs = 1;
	assert_int_equal(jp_lint_command(&r, command, &ctx, NULL), 0);
	for (size_t i = 0; i < r.n; i++)
		if (r.items[i].kind == JP_LINT_PROCESSES || r.items[i].kind == JP_LINT_NODES)
			fprintf(f, "%s %s %d\n", r.items[i].id, r.items[i].word, r.items[i].fails);
	fclose(f);
	jp_lint_report_dispose(&r);
	return out;
}

static void counts_meet_the_gpus_and_the_workers(void **state)
{
	static const char *const form = "torchrun --nnodes=\"$WORLD_SIZE\" --node_rank=\"$RANK\" "
					"--master_addr=\"$MASTER_ADDR\" --master_port=\"$MASTER_PORT\" ";
	static const struct {
		const char *tail;
		const char *expect;
	} tails[] = {
		{ "--nproc_per_node=8 train.py", "" },
		{ "--nproc_per_node=auto train.py", "" },
		{ "--nproc_per_node \"$NPROC\" train.py", "" },
		{ "--nproc-per-node 2 train.py", "launch.processes torchrun --nproc-per-node=2 1\n" },
		{ "--nproc_per_node=16 train.py", "launch.processes torchrun --nproc_per_node=16 1\n" },
		/* the script's own option of that name is not the launcher's */
		{ "train.py --nproc_per_node=2", "" },
	};
	char cmd[1024];

	(void)state;
	for (size_t i = 0; i < sizeof(tails) / sizeof(tails[0]); i++) {
		snprintf(cmd, sizeof(cmd), "cd \"$PROJECT_DIR\" && %s%s", form, tails[i].tail);
		char *got = counts_of(cmd);
		if (strcmp(got, tails[i].expect) != 0)
			fail_msg("%s\nexpected:\n%sgot:\n%s", cmd, tails[i].expect, got);
		free(got);
	}
	static const struct {
		const char *command;
		const char *expect;
	} others[] = {
		{ "cd \"$PROJECT_DIR\" && torchrun --nnodes=3 --node_rank=$RANK --master_addr=h "
		  "--nproc_per_node=8 train.py",
		  "launch.nodes torchrun --nnodes=3 1\n" },
		{ "cd \"$PROJECT_DIR\" && torchrun --nnodes=1:4 --rdzv-endpoint=h:1 --nproc_per_node=8 "
		  "train.py",
		  "" },
		{ "cd \"$PROJECT_DIR\" && torchrun --nnodes=3:4 --rdzv-endpoint=h:1 --nproc_per_node=8 "
		  "train.py",
		  "launch.nodes torchrun --nnodes=3:4 1\n" },
		{ "cd \"$PROJECT_DIR\" && accelerate launch --num_machines 2 --num_processes 16 train.py",
		  "" },
		{ "cd \"$PROJECT_DIR\" && accelerate launch --num_machines 2 --num_processes 8 train.py",
		  "launch.processes accelerate --num_processes=8 1\n" },
		{ "cd \"$PROJECT_DIR\" && deepspeed --num_nodes 2 --num_gpus 4 train.py",
		  "launch.processes deepspeed --num_gpus=4 1\n" },
		{ "cd \"$PROJECT_DIR\" && mpirun -np 16 python train.py", "" },
		{ "cd \"$PROJECT_DIR\" && mpirun -np 8 python train.py", "" },
		{ "cd \"$PROJECT_DIR\" && mpirun -np 4 python train.py",
		  "launch.processes mpirun -np 4 1\n" },
		/* inside if: it may not run, a warning */
		{ "cd \"$PROJECT_DIR\" && if true; then deepspeed --num_nodes 2 --num_gpus 4 train.py; fi",
		  "launch.processes deepspeed --num_gpus=4 0\n" },
	};
	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
		char *got = counts_of(others[i].command);
		if (strcmp(got, others[i].expect) != 0)
			fail_msg("%s\nexpected:\n%sgot:\n%s", others[i].command, others[i].expect, got);
		free(got);
	}
	/* the exports' count: what the launcher starts on each Worker */
	assert_int_equal(jp_lint_command_gpus("torchrun --nproc_per_node=2 train.py", 2, 8), 2);
	assert_int_equal(jp_lint_command_gpus("accelerate launch --num_processes 8 x.py", 2, 8), 4);
	assert_int_equal(jp_lint_command_gpus("mpirun -np 16 python x.py", 2, 8), 8);
	assert_int_equal(jp_lint_command_gpus("torchrun --nproc_per_node=$N train.py", 2, 8), -1);
	assert_int_equal(jp_lint_command_gpus("python train.py", 2, 8), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lint_table_gives_exact_findings),
		cmocka_unit_test(multi_worker_paths_must_be_shared),
		cmocka_unit_test(sync_hint_only_for_multi_worker_code_without_barrier),
		cmocka_unit_test(messages_name_the_word_and_say_why),
		cmocka_unit_test(pinned_code_clone_is_not_a_download),
		cmocka_unit_test(launch_clone_must_clone_the_pinned_commit_first),
		cmocka_unit_test(launch_clone_finding_gives_the_line_to_put_first),
		cmocka_unit_test(launch_clone_manifest_records_a_failed_check),
		cmocka_unit_test(split_respects_quotes_operators_and_substitutions),
		cmocka_unit_test(quote_round_trips_single_quotes),
		cmocka_unit_test(download_and_unpack_point_to_the_stage_line),
		cmocka_unit_test(several_workers_need_a_launcher_that_knows_them),
		cmocka_unit_test(outputs_must_go_to_the_run_directories),
		cmocka_unit_test(path_valued_job_env_is_judged_like_an_output),
		cmocka_unit_test(wiped_outputs_fail_like_a_checkpoint_there),
		cmocka_unit_test(files_the_command_names_must_be_in_the_code),
		cmocka_unit_test(stage_line_never_targets_a_wiped_folder),
		cmocka_unit_test(split_gives_lines_compounds_and_skips_heredocs),
		cmocka_unit_test(launchers_inside_scripts_on_several_workers),
		cmocka_unit_test(configs_are_read_without_running_them),
		cmocka_unit_test(counts_meet_the_gpus_and_the_workers),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
