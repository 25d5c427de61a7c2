/* The flow's steps and fields as data: keys, labels, kinds, help. */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobprep/i18n.h"
#include "flow_internal.h"

static const char *const step_names[JP_STEP_COUNT] = {
	N_("Job"), N_("Code"), N_("Data"), N_("Outputs"), N_("Launch"), N_("Review"),
};

const char *jp_step_name(enum jp_step step)
{
	return (unsigned)step < JP_STEP_COUNT ? step_names[step] : "";
}

static const struct jp_choice code_sources[] = {
	{ "shared_storage", N_("Shared storage"),
	  N_("The code sits on shared storage that the dev machine and every Worker mount at "
	     "the same path: for scripts you are still changing.") },
	{ "image", N_("Custom image"),
	  N_("The code and its dependencies are baked into a container image; the launch "
	     "command enters the code directory in the image.") },
	{ "launch_clone", N_("Clone in the launch command"),
	  N_("The launch command clones a pinned commit when the job starts: only for light "
	     "code on a stable network, never for large repositories, models or data.") },
	{ NULL, NULL, NULL },
};

static const struct jp_choice checkouts[] = {
	{ "clone", N_("Clone it now"),
	  N_("jobprep clones the repository into the project directory on shared storage.") },
	{ "existing", N_("Use an existing checkout"),
	  N_("The project directory already holds the code; jobprep records its commit.") },
	{ NULL, NULL, NULL },
};

static const struct jp_choice data_kinds[] = {
	{ "team", N_("Team data"),
	  N_("Your team's data on shared storage, put there before the job.") },
	{ "public", N_("Public data"),
	  N_("The platform's public models and data sets, mounted read-only; choose "
	     "\"public data\" when creating the job.") },
	{ NULL, NULL, NULL },
};

static const struct jp_field data_items[] = {
	{ "data[].path", JP_STEP_DATA, JP_FIELD_PATH, 0, N_("Path"),
	  N_("Where the data set is, as every Worker sees it: team data on shared storage, "
	     "public data under the public data root."),
	  NULL, 0, 0, NULL },
	{ "data[].from", JP_STEP_DATA, JP_FIELD_TEXT, JP_FIELD_OPTIONAL, N_("Stage from"),
	  N_("Where the data comes from: a folder or an archive on this machine, an http(s) "
	     "URL, or a Hugging Face Hub repository (hf://ORG/NAME, hf://datasets/ORG/NAME: "
	     "into the Hub's cache layout, for HF_HOME set to the path above and "
	     "HF_HUB_OFFLINE=1). jobprep copies, unpacks or downloads it onto the path above "
	     "before the checks (jobprep stage: incremental, resumable), never in the job."),
	  NULL, 0, 0, NULL },
	{ "data[].unpack_archives", JP_STEP_DATA, JP_FIELD_BOOL, JP_FIELD_OPTIONAL,
	  N_("Unpack its archives"),
	  N_("Unpack the archives this data set holds before the job, each into the folder "
	     "beside it named after it (train.tar -> train/), the archives kept (jobprep stage "
	     "--unpack-archives): the job then reads the folders and unpacks nothing."),
	  NULL, 0, 0, NULL },
	{ "data[].output", JP_STEP_DATA, JP_FIELD_BOOL, JP_FIELD_OPTIONAL,
	  N_("The job writes it"),
	  N_("The job fills this folder itself (a cache, a preprocessed copy): it may be empty "
	     "now."),
	  NULL, 0, 0, NULL },
	{ "data[].name", JP_STEP_DATA, JP_FIELD_TEXT, 0, N_("Name"),
	  N_("A short name for this data source (defaults to the directory's name)."), NULL, 0,
	  0, NULL },
	{ "data[].kind", JP_STEP_DATA, JP_FIELD_CHOICE, 0, N_("Kind"),
	  N_("Team data on shared storage, or the platform's public data (read-only)."),
	  data_kinds, 0, 0, NULL },
	{ "data[].read_only", JP_STEP_DATA, JP_FIELD_BOOL, 0, N_("Read-only"),
	  N_("The job only reads it. Public data is always read-only."), NULL, 0, 0, NULL },
	{ NULL, 0, 0, 0, NULL, NULL, NULL, 0, 0, NULL },
};

static const struct jp_field env_items[] = {
	{ "job.env[].name", JP_STEP_LAUNCH, JP_FIELD_TEXT, 0, N_("Name"),
	  N_("A variable name: letters, digits and '_', not starting with a digit."), NULL, 0, 0,
	  NULL },
	{ "job.env[].value", JP_STEP_LAUNCH, JP_FIELD_TEXT, JP_FIELD_OPTIONAL, N_("Value"),
	  N_("Its value, exactly; env.sh quotes it."), NULL, 0, 0, NULL },
	{ NULL, 0, 0, 0, NULL, NULL, NULL, 0, 0, NULL },
};

static const struct jp_field job_fields[] = {
	{ "job.name", JP_STEP_JOB, JP_FIELD_TEXT, 0, N_("Job name"),
	  N_("Lower-case letters, digits and '-', at most 63 characters: it names the job's "
	     "directories and can name a Kubernetes object."),
	  NULL, 0, 0, NULL },
	{ "job.workers", JP_STEP_JOB, JP_FIELD_INTEGER, 0, N_("Workers"),
	  N_("How many Workers (machines) the job runs on. With more than one, every path must "
	     "be on shared storage."),
	  NULL, 1, 1000000, NULL },
	{ "job.gpus_per_worker", JP_STEP_JOB, JP_FIELD_INTEGER, 0, N_("GPUs per Worker"),
	  N_("GPUs each Worker gets."), NULL, 0, 1024, NULL },
	{ NULL, 0, 0, 0, NULL, NULL, NULL, 0, 0, NULL },
};

static const struct jp_field code_fields[] = {
	{ "code.source", JP_STEP_CODE, JP_FIELD_CHOICE, 0, N_("Code source"),
	  N_("How the job gets its code: it runs only the launch command and does not sync "
	     "your local files."),
	  code_sources, 0, 0, NULL },
	{ "code.checkout", JP_STEP_CODE, JP_FIELD_CHOICE, JP_FIELD_FLOW_ONLY, N_("Checkout"),
	  N_("Clone the repository onto shared storage now, or use code already there."),
	  checkouts, 0, 0, NULL },
	{ "code.repo.url", JP_STEP_CODE, JP_FIELD_TEXT, JP_FIELD_OPTIONAL, N_("Repository URL"),
	  N_("https, ssh, git:// or file:// URL. Leave passwords out: jobprep asks for them and "
	     "never stores them."),
	  NULL, 0, 0, NULL },
	{ "code.repo.ref", JP_STEP_CODE, JP_FIELD_TEXT, JP_FIELD_OPTIONAL, N_("Branch, tag or commit"),
	  N_("Empty: the repository's default branch."), NULL, 0, 0, NULL },
	{ "code.image", JP_STEP_CODE, JP_FIELD_TEXT, 0, N_("Image"),
	  N_("The image reference: registry/name:tag, or name@sha256:<digest> to pin it exactly."),
	  NULL, 0, 0, NULL },
	{ "code.path", JP_STEP_CODE, JP_FIELD_PATH, 0, N_("Project directory"),
	  N_("Shared storage: where the code is (the same path on the dev machine and every "
	     "Worker). Image: the code directory inside the image. Launch clone: where the "
	     "launch command clones to."),
	  NULL, 0, 0, NULL },
	{ "code.repo.commit", JP_STEP_CODE, JP_FIELD_TEXT, JP_FIELD_DERIVED | JP_FIELD_OPTIONAL,
	  N_("Commit"), N_("The exact commit, recorded by jobprep."), NULL, 0, 0, NULL },
	{ NULL, 0, 0, 0, NULL, NULL, NULL, 0, 0, NULL },
};

static const struct jp_field data_fields[] = {
	{ "data", JP_STEP_DATA, JP_FIELD_LIST, JP_FIELD_OPTIONAL, N_("Data sources"),
	  N_("Zero or more data sets, each in place before the job starts: no downloading or "
	     "unpacking in the job's first step."),
	  NULL, 0, 0, data_items },
	{ NULL, 0, 0, 0, NULL, NULL, NULL, 0, 0, NULL },
};

static const struct jp_field output_fields[] = {
	{ "outputs.output_dir", JP_STEP_OUTPUTS, JP_FIELD_PATH, 0, N_("Output directory"),
	  N_("This run's directory on shared storage. The Worker's own disk is wiped when the "
	     "job ends: nothing under /tmp, /root or /workspace survives."),
	  NULL, 0, 0, NULL },
	{ "outputs.checkpoint_dir", JP_STEP_OUTPUTS, JP_FIELD_PATH, 0, N_("Checkpoints"),
	  N_("Where checkpoints go; by default inside the output directory."), NULL, 0, 0, NULL },
	{ "outputs.log_dir", JP_STEP_OUTPUTS, JP_FIELD_PATH, 0, N_("Logs"),
	  N_("TensorBoard and debug logs; by default inside the output directory."), NULL, 0, 0,
	  NULL },
	{ NULL, 0, 0, 0, NULL, NULL, NULL, 0, 0, NULL },
};

static const struct jp_field launch_fields[] = {
	{ "job.launch_command", JP_STEP_LAUNCH, JP_FIELD_TEXT, 0, N_("Launch command"),
	  N_("What the job runs. env.sh sets PROJECT_DIR, OUTPUT_DIR, CHECKPOINT_DIR, LOG_DIR and "
	     "DATA_DIR first. The job should only train: no downloads, installs or unpacking."),
	  NULL, 0, 0, NULL },
	{ "job.resume_from", JP_STEP_LAUNCH, JP_FIELD_TEXT, JP_FIELD_OPTIONAL, N_("Resume from"),
	  N_("The earlier run's checkpoint folder this run resumes from: env.sh exports it as "
	     "RESUME_FROM for the code to read. A run folder's name (run-001) or \"last\" (the "
	     "last complete checkpoint) is looked up; empty: none."),
	  NULL, 0, 0, NULL },
	{ "job.env", JP_STEP_LAUNCH, JP_FIELD_LIST, JP_FIELD_OPTIONAL, N_("Environment variables"),
	  N_("Extra variables env.sh exports for the job."), NULL, 0, 0, env_items },
	{ NULL, 0, 0, 0, NULL, NULL, NULL, 0, 0, NULL },
};

static const struct jp_field review_fields[] = {
	{ "review.manifest_path", JP_STEP_REVIEW, JP_FIELD_PATH, JP_FIELD_FLOW_ONLY,
	  N_("Manifest"),
	  N_("Where the manifest is written; by default into the run's output directory, so "
	     "every run records how it was made. A file elsewhere is a copy: the run's folder "
	     "still gets the manifest."),
	  NULL, 0, 0, NULL },
	{ "review.env_path", JP_STEP_REVIEW, JP_FIELD_PATH, JP_FIELD_FLOW_ONLY, N_("env.sh"),
	  N_("The POSIX sh file the launch command sources; always in the run's folder, so "
	     "runs never share one."),
	  NULL, 0, 0, NULL },
	{ NULL, 0, 0, 0, NULL, NULL, NULL, 0, 0, NULL },
};

static const struct jp_field *const steps[JP_STEP_COUNT] = {
	job_fields, code_fields, data_fields, output_fields, launch_fields, review_fields,
};

const struct jp_field *jp_flow_fields(enum jp_step step)
{
	return (unsigned)step < JP_STEP_COUNT ? steps[step] : review_fields + 2;
}

/* Key names and kinds in enum fkey order, from the one list (flow_internal.h). */
#define FIELD_NAME(key, name, kind, check) [key] = name,
static const char *const key_names[K_COUNT] = { FLOW_FIELDS(FIELD_NAME) };
#undef FIELD_NAME
#define FIELD_KIND(key, name, kind, check) [key] = kind,
static const enum jp_field_kind key_kinds[K_COUNT] = { FLOW_FIELDS(FIELD_KIND) };
#undef FIELD_KIND

const char *flow_key_name(enum fkey key)
{
	return (unsigned)key < K_COUNT ? key_names[key] : "";
}

size_t jp_flow_item_key(char *buf, size_t size, const char *generic, size_t index)
{
	const char *open = strstr(generic, "[]");
	int n;

	if (open)
		n = snprintf(buf, size, "%.*s[%zu]%s", (int)(open - generic), generic, index,
			     open + 2);
	else
		n = snprintf(buf, size, "%s", generic);
	return n < 0 ? 0 : (size_t)n;
}

void flow_item_key(char *buf, size_t size, enum fkey key, size_t index)
{
	jp_flow_item_key(buf, size, flow_key_name(key), index);
}

static const struct jp_field *find_in(const struct jp_field *fields, const char *generic)
{
	for (; fields && fields->key; fields++) {
		if (strcmp(fields->key, generic) == 0)
			return fields;
		const struct jp_field *sub = find_in(fields->items, generic);
		if (sub)
			return sub;
	}
	return NULL;
}

/* "data[12].path" -> "data[].path" and 12. */
int flow_parse_key(struct fref *out, const char *key)
{
	char generic[64];
	const char *open, *close;

	memset(out, 0, sizeof(*out));
	if (!key)
		return JP_EUSAGE;
	open = strchr(key, '[');
	if (open) {
		close = strchr(open, ']');
		if (!close || close == open + 1 || (size_t)(open - key) + strlen(close) + 2 > sizeof(generic))
			return JP_EUSAGE;
		size_t idx = 0;
		for (const char *p = open + 1; p < close; p++) {
			if (!isdigit((unsigned char)*p) || idx > 100000000)
				return JP_EUSAGE;
			idx = idx * 10 + (size_t)(*p - '0');
		}
		size_t head = (size_t)(open - key) + 1;
		memcpy(generic, key, head);
		strcpy(generic + head, close);
		out->index = idx;
	} else {
		if (strlen(key) >= sizeof(generic))
			return JP_EUSAGE;
		strcpy(generic, key);
	}
	for (int k = 0; k < K_COUNT; k++) {
		if (strcmp(key_names[k], generic) != 0)
			continue;
		bool item = strchr(generic, '[') != NULL;
		if (item != (open != NULL))
			return JP_EUSAGE;
		out->key = (enum fkey)k;
		for (int s = 0; s < JP_STEP_COUNT && !out->field; s++)
			out->field = find_in(steps[s], generic);
		/* a table that drifted from the list fails every use of the key */
		return out->field && out->field->kind == key_kinds[k] ? 0 : JP_EUSAGE;
	}
	return JP_EUSAGE;
}

const struct jp_field *jp_flow_field(const char *key)
{
	struct fref ref;
	return flow_parse_key(&ref, key) == 0 ? ref.field : NULL;
}

int jp_flow_check_field(char **key, enum jp_step *step, const char *check_id)
{
	enum jp_step dummy = JP_STEP_REVIEW;
	const struct jp_field *f;
	char *dot;

	*key = NULL;
	step = step ? step : &dummy;
	*step = JP_STEP_REVIEW;
	if (!check_id)
		return 0;
	/* the launch lint's findings ("launch.cd") are about the command */
	if (strncmp(check_id, "launch.", 7) == 0) {
		*step = JP_STEP_LAUNCH;
		return (*key = strdup("job.launch_command")) ? 0 : JP_ENOMEM;
	}
	if (!(*key = strdup(check_id)))
		return JP_ENOMEM;
	for (;;) {
		f = jp_flow_field(*key);
		if (f) {
			*step = f->step;
			return 0;
		}
		dot = strrchr(*key, '.');
		if (!dot)
			break;
		*dot = '\0';
	}
	free(*key);
	*key = NULL;
	return 0;
}

bool flow_active(const struct jp_flow *flow, const struct fref *r)
{
	const struct jp_manifest *m = flow->m;
	bool shared = m->code.source == JP_CODE_SHARED_STORAGE;
	bool lclone = m->code.source == JP_CODE_LAUNCH_CLONE;

	switch (r->key) {
	case K_CODE_CHECKOUT:
		return shared;
	case K_REPO_URL:
	case K_REPO_COMMIT:
		return shared || lclone;
	case K_REPO_REF:
		return shared || lclone;
	case K_IMAGE:
		return m->code.source == JP_CODE_IMAGE;
	case K_RESUME_FROM:
		/* shown once it is chosen (the review's offer sets it) */
		return m->job.resume_from != NULL;
	case K_DATA_FROM:
		/* shown once there is something to stage (an offer sets it) */
		return r->index < m->n_data && m->data[r->index].origin.from;
	case K_DATA_OUTPUT:
		/* shown when the answers mark it */
		return r->index < m->n_data && m->data[r->index].output;
	case K_DATA_UNPACK:
		/* shown once it is asked for (an offer sets it), and after */
		return r->index < m->n_data &&
		       (m->data[r->index].unpack_archives || flow->dx[r->index].unpacked_path);
	default:
		return true;
	}
}
