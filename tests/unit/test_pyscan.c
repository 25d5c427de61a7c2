/* The light Python reader (pyscan.c) and the lint rule on it
 * (launch.hub_download, lint_hub.c): which calls download from the Hugging
 * Face Hub at job start, in the scripts the command runs and the project
 * modules they import, and when job.env makes that safe. */
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
#include "jobprep/profile.h"
#include "pyscan.h"
#include "lint_internal.h"
#include "profile_internal.h"

static char scratch[PATH_MAX - 128];
static char project[PATH_MAX];
static struct jp_profile *profile;

static void put(const char *rel, const char *text)
{
	char path[PATH_MAX + 64], cmd[PATH_MAX + 128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", scratch, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	assert_int_equal(system(cmd), 0);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	char tmpl[] = "pyscan-scratch-XXXXXX";
	struct jp_error err = JP_ERROR_INIT;

	(void)state;
	if (!mkdtemp(tmpl) || !realpath(tmpl, scratch))
		return -1;
	snprintf(project, sizeof(project), "%s/p", scratch);
	put("p/train.py",
	    "\"\"\"Train.  from_pretrained(\"doc/string\") is not a call.\"\"\"\n"
	    "import os, sys\n"
	    "import utils.data as d\n"
	    "from models.net import build\n"
	    "from transformers import AutoModel\n"
	    "# AutoModel.from_pretrained(\"comment/out\")\n"
	    "s = 'from_pretrained(\"in/string\")'\n"
	    "m = AutoModel.from_pretrained(\n"
	    "    \"acme/llama-7b\",\n"
	    "    torch_dtype='auto')\n"
	    "f = AutoModel.from_pretrained(f\"acme/{name}\")\n"
	    "v = AutoModel.from_pretrained(name)\n"
	    "c = AutoModel.from_pretrained('checkpoints/best')\n");
	put("p/checkpoints/best/config.json", "{}\n");
	put("p/utils/__init__.py", "");
	put("p/utils/data.py",
	    "from datasets import load_dataset\n"
	    "a = load_dataset(\"json\", data_files=\"x.json\")\n"
	    "b = load_dataset('imdb')\n"
	    "try: import helpers\n"
	    "except ImportError: pass\n");
	put("p/utils/helpers.py", "from huggingface_hub import snapshot_download\n"
				  "snapshot_download(repo_id=\"acme/tok\", repo_type=\"dataset\")\n");
	put("p/models/__init__.py", "from .layers import Block\n");
	put("p/models/layers.py", "from . import net\nhf_hub_download(\"acme/extra\", 'w.bin')\n");
	put("p/models/net.py", "from ..models import layers\nimport models.net\n");
	put("p/unused.py", "from_pretrained(\"never/imported\")\n");
	/* a module reached only through `from . import` */
	put("p/rel.py", "import relpkg\n");
	put("p/relpkg/__init__.py", "from . import only\n");
	put("p/relpkg/only.py", "from_pretrained(\"acme/only\")\n");
	put("elsewhere/lib.py", "from_pretrained(\"out/side\")\n");

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
	char cmd[PATH_MAX + 16];

	(void)state;
	jp_profile_free(profile);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", scratch);
	return system(cmd) == 0 ? 0 : -1;
}

/* "file:line call repo [dataset] [staged]" a line, files relative to p/ */
static char *hits(const char *script, const char *cache)
{
	char path[PATH_MAX + 16], *out = NULL;
	const char *scripts[1] = { path };
	struct jp_pyscan_result *r = malloc(sizeof(*r));
	size_t n = 0;
	FILE *f = open_memstream(&out, &n);

	assert_non_null(r);
	snprintf(path, sizeof(path), "%s/%s", project, script);
	jp_pyscan_run(r, scripts, 1, project, cache);
	for (size_t i = 0; i < r->n_hits; i++)
		fprintf(f, "%s:%u %s %s%s%s\n", r->hits[i].file + strlen(project) + 1, r->hits[i].line,
			r->hits[i].call, r->hits[i].repo, r->hits[i].dataset ? " dataset" : "",
			r->hits[i].staged ? " staged" : "");
	fclose(f);
	free(r);
	return out;
}

static void calls_found_through_imports(void **state)
{
	char *got = hits("train.py", NULL);

	(void)state;
	/* the order files are read in: the script, then what it imports,
	 * breadth first (helpers.py from data.py's `try: import`, layers.py
	 * from models/__init__.py's relative import) */
	assert_string_equal(got, "train.py:8 from_pretrained acme/llama-7b\n"
				 "utils/data.py:3 load_dataset imdb dataset\n"
				 "utils/helpers.py:2 snapshot_download acme/tok dataset\n"
				 "models/layers.py:2 hf_hub_download acme/extra\n");
	free(got);
}

static void from_dot_import_names_a_module(void **state)
{
	char *got = hits("rel.py", NULL);

	(void)state;
	assert_string_equal(got, "relpkg/only.py:1 from_pretrained acme/only\n");
	free(got);
}

static void staged_copy_is_seen(void **state)
{
	char cache[PATH_MAX + 16], *got;

	(void)state;
	put("hf/hub/models--acme--llama-7b/refs/main", "0123456789012345678901234567890123456789");
	snprintf(cache, sizeof(cache), "%s/hf/hub", scratch);
	got = hits("models/layers.py", cache);
	assert_string_equal(got, "models/layers.py:2 hf_hub_download acme/extra\n");
	free(got);
	got = hits("train.py", cache);
	assert_non_null(strstr(got, "train.py:8 from_pretrained acme/llama-7b staged\n"));
	assert_non_null(strstr(got, "imdb dataset\n")); /* not staged */
	free(got);
}

static void hub_ids(void **state)
{
	static const char *const yes[] = { "gpt2", "acme/llama-7b", "a/b.c", "Org_1/x-y", NULL };
	static const char *const no[] = { "", "/abs", "./rel", "../up", "a/b/c", "a--b", "a/..",
					  "-x", "x.", "a b", "a/", "~/m", NULL };

	(void)state;
	for (size_t i = 0; yes[i]; i++)
		assert_true(jp_pyscan_is_hub_id(yes[i]));
	for (size_t i = 0; no[i]; i++)
		assert_false(jp_pyscan_is_hub_id(no[i]));
}

/* the findings of the lint for `python train.py` with job.env env[] */
static char *lint(const struct jp_env_var *env, size_t n_env)
{
	struct jp_lint_context ctx = JP_LINT_CONTEXT_INIT;
	struct jp_lint_report r = JP_LINT_REPORT_INIT;
	struct jp_error err = JP_ERROR_INIT;
	char *out = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&out, &n);

	ctx.profile = profile;
	ctx.project_dir = project;
	ctx.project_is_local = 1;
	ctx.env = env;
	ctx.n_env = n_env;
	assert_int_equal(jp_lint_command(&r, "cd \"$PROJECT_DIR\" && python train.py --out \"$OUTPUT_DIR\"", &ctx, &err), 0);
	for (size_t i = 0; i < r.n; i++)
		if (strcmp(r.items[i].id, "launch.hub_download") == 0)
			fprintf(f, "%s | %s\n", r.items[i].word, r.items[i].message);
	fclose(f);
	jp_lint_report_dispose(&r);
	jp_error_dispose(&err);
	return out;
}

static void lint_names_files_lines_and_the_fix(void **state)
{
	char *got = lint(NULL, 0), expect[4 * PATH_MAX];

	(void)state;
	snprintf(expect, sizeof(expect),
		 "acme/llama-7b | train.py:8: from_pretrained(\"acme/llama-7b\") downloads acme/llama-7b "
		 "from the Hugging Face Hub when the job starts, on every rank at once into one "
		 "cache (job.env sets no HF_HOME, so each Worker downloads into its own cache): "
		 "stage it before the job, jobprep stage 'hf://acme/llama-7b' '%s/hf', and set "
		 "HF_HOME='%s/hf' and HF_HUB_OFFLINE=1 in job.env\n",
		 scratch, scratch);
	assert_non_null(strstr(got, expect));
	assert_non_null(strstr(got, "datasets/imdb | utils/data.py:3: load_dataset(\"imdb\")"));
	assert_non_null(strstr(got, "jobprep stage 'hf://datasets/acme/tok'"));
	assert_null(strstr(got, "never/imported"));
	assert_null(strstr(got, "out/side"));
	free(got);
}

static void lint_quiet_when_staged_and_offline(void **state)
{
	char home[PATH_MAX + 16], tmp[] = "/tmp/hf", hf_home[] = "HF_HOME", offline[] = "HF_HUB_OFFLINE",
	     one[] = "1", zero[] = "0", *got;
	struct jp_env_var env[2] = { { hf_home, home }, { offline, one } };

	(void)state;
	snprintf(home, sizeof(home), "%s/hf", scratch);
	put("hf/hub/models--acme--llama-7b/refs/main", "0123456789012345678901234567890123456789");
	put("hf/hub/models--acme--extra/refs/main", "0123456789012345678901234567890123456789");
	put("hf/hub/datasets--imdb/refs/main", "0123456789012345678901234567890123456789");
	got = lint(env, 2);
	/* only the one not staged there */
	assert_non_null(strstr(got, "datasets/acme/tok | utils/helpers.py:2: "));
	assert_non_null(strstr(got, "HF_HUB_OFFLINE=1 is set, but "));
	assert_null(strstr(got, "llama"));
	assert_null(strstr(got, "imdb"));
	free(got);
	/* not offline: every rank still asks the Hub */
	env[1].value = zero;
	got = lint(env, 2);
	assert_non_null(strstr(got, "HF_HUB_OFFLINE=1 is not set"));
	free(got);
	/* a cache every Worker has its own of */
	env[0].value = tmp;
	env[1].value = one;
	got = lint(env, 2);
	assert_non_null(strstr(got, "HF_HOME=/tmp/hf is not on shared storage"));
	free(got);
}

/* What the code needs of a Worker's python3: the third-party modules its
 * top-level imports name (not the project's, not the standard library's,
 * not an import under try/if), through the project's modules. */
static void runtime_modules_through_imports(void **state)
{
	char path[PATH_MAX + 16];
	const char *scripts[1] = { path };
	struct jp_pyscan_result *r = malloc(sizeof(*r));
	char got[512] = "";

	(void)state;
	assert_non_null(r);
	snprintf(path, sizeof(path), "%s/train.py", project);
	jp_pyscan_run(r, scripts, 1, project, NULL);
	for (size_t i = 0; i < r->n_modules; i++)
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s", i ? " " : "",
			 r->modules[i]);
	assert_string_equal(got, "datasets huggingface_hub transformers");
	assert_int_equal(r->min_minor, 0);
	assert_false(r->loader_workers);
	free(r);
}

static struct jp_pyscan_result *text(const char *src)
{
	static struct jp_pyscan_result r;

	jp_pyscan_text(&r, "/nonexistent/t.py", src, strlen(src));
	return &r;
}

/* The Python version the syntax needs; DataLoader workers unless literally 0. */
static void runtime_syntax_and_workers(void **state)
{
	(void)state;
	assert_int_equal(text("import re\nm = re.match(a, b)\nmatch(x)\nx: int = 3\n")->min_minor, 0);
	assert_int_equal(text("if (n := len(a)) > 2:\n    pass\n")->min_minor, 8);
	assert_int_equal(text("def f(c):\n    match c:\n        case 1:\n            pass\n")->min_minor, 10);
	assert_int_equal(text("match (a, b):\n    case _:\n        pass\n")->min_minor, 10);
	assert_int_equal(text("try:\n    f()\nexcept* ValueError:\n    pass\n")->min_minor, 11);
	assert_false(text("DataLoader(ds, num_workers=0)\n")->loader_workers);
	assert_false(text("DataLoader(ds, num_workers=0, batch_size=2)\nnum_workers = 4\n")->loader_workers);
	assert_true(text("DataLoader(ds, num_workers=4)\n")->loader_workers);
	assert_true(text("DataLoader(ds, batch_size=2, num_workers=args.workers)\n")->loader_workers);
	assert_true(text("DataLoader(ds,\n    num_workers=0 if debug else 8)\n")->loader_workers);
	assert_int_equal(text("import numpy as np, os\nif x:\n    import wandb\n")->n_modules, 1);
	assert_string_equal(text("from . import a\nfrom PIL.Image import open\n")->modules[0], "PIL");
}

/* Issue 31: values followed through the configs, and the uses the job makes
 * at start with the `if` around them. */
static void uses_and_values_through_configs(void **state)
{
	char path[PATH_MAX + 16], *out = NULL;
	const char *scripts[1] = { path };
	const char *vars[] = { "dataset=shakespeare_char", "init_from=gpt2-xl", "wandb_log=False" };
	struct jp_pyscan_result *r = malloc(sizeof(*r));
	size_t n = 0;
	FILE *f = open_memstream(&out, &n);

	(void)state;
	assert_non_null(r);
	put("p/nano.py",
	    "import os\nimport numpy as np\n"
	    "dataset = 'openwebtext'\ninit_from = 'scratch'\nwandb_log = True\n"
	    "data_dir = os.path.join('data', dataset)\n"
	    "url = 'https://example.com/' + 'x.txt'\n"
	    "def get_batch():\n"
	    "    return np.memmap(os.path.join(data_dir, 'train.bin'), dtype=np.uint16)\n"
	    "model = GPT.from_pretrained(init_from, {})\n"
	    "if wandb_log and master:\n"
	    "    wandb.init(project='x')\n"
	    "name = input('who? ')\n"
	    "x.input('not this')\n"
	    "def input(a):\n    pass\n"
	    "text = requests.get(url).text\n"
	    "if os.path.exists(p):\n    getpass.getpass()\n"
	    "if __name__ == '__main__':\n    input()\n");
	snprintf(path, sizeof(path), "%s/nano.py", project);
	jp_pyscan_run_vars(r, scripts, 1, project, NULL, vars, 3);
	for (size_t i = 0; i < r->n_hits; i++)
		fprintf(f, "hit %u %s %s\n", r->hits[i].line, r->hits[i].call, r->hits[i].repo);
	for (size_t i = 0; i < r->n_uses; i++)
		fprintf(f, "use %u %s '%s' %s%s %d %s%s\n", r->uses[i].line, r->uses[i].call,
			r->uses[i].arg, r->uses[i].guarded ? "guarded " : "", r->uses[i].guard,
			r->uses[i].guard_value, r->uses[i].script ? "script" : "module",
			r->uses[i].exists ? " exists" : "");
	fclose(f);
	assert_string_equal(out, "hit 10 from_pretrained gpt2-xl\n"
				 "use 9 np.memmap 'data/shakespeare_char/train.bin' guarded  -1 script\n"
				 "use 12 wandb.init '' guarded wandb_log 0 script\n"
				 "use 13 input ''  -1 script\n"
				 "use 17 requests.get 'https://example.com/x.txt'  -1 script\n"
				 "use 19 getpass '' guarded os -1 script\n"
				 "use 21 input ''  -1 script\n");
	free(out);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(calls_found_through_imports),
		cmocka_unit_test(from_dot_import_names_a_module),
		cmocka_unit_test(staged_copy_is_seen),
		cmocka_unit_test(hub_ids),
		cmocka_unit_test(lint_names_files_lines_and_the_fix),
		cmocka_unit_test(lint_quiet_when_staged_and_offline),
		cmocka_unit_test(runtime_modules_through_imports),
		cmocka_unit_test(runtime_syntax_and_workers),
		cmocka_unit_test(uses_and_values_through_configs),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
