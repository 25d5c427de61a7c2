/* The run's preflight.sh, rendered from a manifest: the values of this run
 * (paths, roots, Workers, messages in the current language), the fixed
 * checks of src/preflight_body.sh, then one line per path to check. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "jobprep/check.h"
#include "check_internal.h"
#include "jobprep/i18n.h"
#include "jobprep/preflight.h"
#include "preflight_internal.h"
#include "jobprep/profile.h"
#include "profile_internal.h"
#include "jobprep/shellwords.h"
#include "manifest_internal.h"

/* src/preflight_body.sh as a C string, made by the build. */
static const char body[] =
#include "src/preflight_body.h"
	;
/* src/preflight_runtime.sh, the job's runtime checks, likewise. */
static const char runtime_body[] =
#include "src/preflight_runtime.h"
	;

/* The messages the script prints: sh variable, printf format. The
 * arguments are given in the order the formats name them. */
static const struct message {
	const char *var;
	const char *fmt;
} messages[] = {
	{ "jp_m_missing", N_("%s does not exist on this Worker (%s)") },
	{ "jp_m_notdir", N_("%s is not a directory on this Worker (%s)") },
	{ "jp_m_public",
	  N_("%s is under the public data root %s, which is read-only in the job: the job "
	     "cannot write its outputs there") },
	{ "jp_m_declared",
	  N_("%s is under a shared storage root, but here it is on %s at %s (%s), which is "
	     "wiped when the job ends: is the shared storage mounted on this Worker?") },
	{ "jp_m_wiped",
	  N_("%s is under %s, which is wiped when the job ends: nothing the job needs may "
	     "live there") },
	{ "jp_m_wiped_fs",
	  N_("%s is on %s at %s on this Worker (%s), which is wiped when the job ends: "
	     "nothing the job needs may live there") },
	{ "jp_m_unreadable", N_("%s cannot be read on this Worker (%s)") },
	{ "jp_m_staging",
	  N_("%s is not completely staged on this Worker (%s): %s says a `jobprep stage` of it "
	     "has not finished (still running, or stopped half-way); run the same stage again "
	     "before the job") },
	{ "jp_m_unwritable",
	  N_("%s cannot be written on this Worker (%s): creating a file there failed") },
	{ "jp_m_full",
	  N_("%s has only %s KiB free on this Worker (%s), and the job needs at least %s KiB "
	     "there: its writes will fail") },
	{ "jp_m_hung",
	  N_("%s did not answer within %s s on this Worker (%s): the storage it is on seems "
	     "hung") },
	{ "jp_m_norank",
	  N_("Worker %s cannot tell its rank: none of JOBPREP_RANK, PET_NODE_RANK, NODE_RANK, "
	     "GROUP_RANK, SLURM_NODEID, RANK, SLURM_PROCID is a number, and the job has %s "
	     "Workers") },
	{ "jp_m_noattempt",
	  N_("Worker %s cannot tell this attempt from an earlier one: set JOBPREP_ATTEMPT to "
	     "one value on every Worker (SLURM_JOB_ID, TORCHELASTIC_RUN_ID or MASTER_ADDR "
	     "serve when set)") },
	{ "jp_m_nomark",
	  N_("Worker %s could not write %s, the mark the other Workers wait for") },
	{ "jp_m_unmet",
	  N_("Worker %s did not see rank 0's mark %s for this attempt within %s s: its "
	     "output directory is not the storage rank 0 writes to (a different or missing "
	     "mount on this Worker?)") },
	{ "jp_m_no_python",
	  N_("there is no python3 on this Worker (%s): the checks of the Python modules, its "
	     "version and the meeting at MASTER_ADDR were skipped; install python3 in the image "
	     "to have them") },
	{ "jp_m_py_hung",
	  N_("python3 did not answer within %s s on this Worker (%s) when asked for the "
	     "modules the code imports: is its environment on a hung mount?") },
	{ "jp_m_py_version",
	  N_("the code needs Python %s or newer (its syntax), but python3 on this Worker is "
	     "%s (%s): use an image with a newer Python") },
	{ "jp_m_py_modules",
	  N_("python3 on this Worker cannot find the modules the code imports: %s (%s): install "
	     "the packages that provide them in the image, or point PYTHONPATH at them in "
	     "job.env") },
	{ "jp_m_shm",
	  N_("/dev/shm has %s MiB on this Worker (%s), and the code starts DataLoader workers, "
	     "which pass their batches through it: give the job at least %s MiB there (docker "
	     "--shm-size, a memory emptyDir at /dev/shm on Kubernetes), or set num_workers=0") },
	{ "jp_m_nofile",
	  N_("the open-files limit (ulimit -n) is %s on this Worker (%s), and the code starts "
	     "DataLoader workers, which share tensors as open files: raise it to at least %s "
	     "(ulimit -n %s in the launch line, or the platform's limit)") },
	{ "jp_m_if_missing",
	  N_("%s names the network interface %s, which this Worker (%s) does not have (it has: "
	     "%s): NCCL or gloo would wait until its timeout; name one it has, or unset it") },
	{ "jp_m_hca_missing",
	  N_("%s names the InfiniBand adapter %s, which this Worker (%s) does not have under "
	     "/sys/class/infiniband (it has: %s): NCCL would fail or fall back; name one it has, "
	     "or unset it") },
	{ "jp_m_if_down",
	  N_("%s names the network interface %s, which is down on this Worker (%s): bring it "
	     "up, or name another") },
	{ "jp_m_master_addr",
	  N_("MASTER_ADDR=%s does not resolve on this Worker (%s): set it to rank 0's host "
	     "name or address") },
	{ "jp_m_master_port",
	  N_("MASTER_PORT %s cannot be listened on at rank 0 (%s): another program holds it, "
	     "so the rendezvous would not start; choose a free port or stop that program") },
	{ "jp_m_unheard",
	  N_("Worker %s did not hear within %s s on port %s from the Workers of rank %s: "
	     "they cannot reach it (MASTER_ADDR, a firewall, or they did not start)") },
	{ "jp_m_unreached",
	  N_("Worker %s could not reach rank 0 at %s:%s within %s s: is MASTER_ADDR rank 0's "
	     "address, and is the port open between the Workers?") },
	{ "jp_m_gpus",
	  N_("this Worker (%s) sees %s NVIDIA GPUs, and the job asks for %s per Worker: fix "
	     "job.gpus_per_worker, or the GPUs the platform gives the job") },
	{ "jp_m_gpus_visible",
	  N_("this Worker (%s) lets the job see %s NVIDIA GPUs (CUDA_VISIBLE_DEVICES=%s, of the %s "
	     "here), and the job asks for %s per Worker: fix job.gpus_per_worker, or the GPUs "
	     "the platform gives the job") },
	{ "jp_m_stdin",
	  N_("standard input is a terminal on this Worker (%s): a prompt in the job (a login, "
	     "input(), a password) would wait for a keyboard; close it in the launch line "
	     "(exec </dev/null, as jobprep prints it)") },
	{ "jp_m_failed", N_("Worker %s: the launch command was not started (problems found: %s)") },
	{ "jp_m_passed", N_("every check passed on Worker %s") },
	{ "jp_m_moved",
	  N_("%s is on %s at %s on this Worker (%s), but where the job was prepared it was on "
	     "%s at %s: this Worker does not see the storage the job was prepared on; mount the "
	     "shared storage here as it is mounted there") },
	{ "jp_m_inner_tmp",
	  N_("%s is not completely staged on this Worker (%s): %s, a temporary of a `jobprep "
	     "stage` or of an unpack (still running, or stopped half-way), is inside it; run the "
	     "same stage again to finish it, or remove the temporary if that stage was given up") },
	{ "jp_m_empty",
	  N_("%s holds no files on this Worker (%s): the data set is empty or not there; put "
	     "the data back (stage it again) or correct the path in the manifest") },
	{ "jp_m_fewer",
	  N_("%s holds %s files on this Worker (%s), fewer than the %s the manifest recorded: "
	     "part of the data set is missing; stage it again, or make the job again if the "
	     "data set changed on purpose") },
	{ "jp_m_uncounted",
	  N_("%s: its files could not be counted within %s s on this Worker (%s); the count "
	     "was not checked (JOBPREP_PREFLIGHT_TIMEOUT gives the look more time)") },
	{ "jp_m_unmet_dir",
	  N_("Worker %s did not see rank 0's mark %s for this attempt within %s s: %s is not "
	     "the storage rank 0 writes to (a node-local folder or another mount there on this "
	     "Worker?); remove that mount so the folder is the shared one") },
	{ "jp_m_env_identity",
	  N_("Worker %s: the manifest's job.env sets %s, which the platform sets for each "
	     "Worker (rank, Worker count, rank 0's address); env.sh leaves them to the "
	     "platform: remove them from job.env and make the job again") },
	{ "jp_m_counted", N_("warnings: %s; the checks: %s") },
	{ "jp_m_warned",
	  N_("Worker %s: the launch command starts, but %s checks warned: %s") },
	{ "jp_m_tree",
	  N_("%s holds the code of %s, but the run's manifest records %s (on %s): the run's own "
	     "copy of its code is not the one it was prepared with; prepare the run again") },
};

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static const char *const code_checks[] = { "exists", "storage", "readable", NULL };
static const char *const output_checks[] = { "exists", "storage", "writable", "space", NULL };

const char *const *jp_preflight_checks(unsigned role)
{
	return role == JP_CHECK_ROLE_OUTPUT ? output_checks : code_checks;
}

static void add_quoted(struct jp_buf *b, const char *s)
{
	char *q = NULL;

	if (jp_sh_quote(&q, s) < 0) {
		b->rc = JP_ENOMEM;
		return;
	}
	jp_buf_add(b, q);
	free(q);
}

static void add_var(struct jp_buf *b, const char *name, const char *value)
{
	jp_buf_add(b, name);
	jp_buf_addc(b, '=');
	add_quoted(b, value);
	jp_buf_addc(b, '\n');
}

/* roots one a line (a root with a line break in it could not be told from
 * two, and no platform mounts one: left out) */
static void add_roots(struct jp_buf *b, const char *name, const struct jp_strv *roots)
{
	struct jp_buf list = JP_BUF_INIT;
	char *text = NULL;

	for (size_t i = 0; i < roots->n; i++) {
		if (strchr(roots->v[i], '\n'))
			continue;
		if (list.len)
			jp_buf_addc(&list, '\n');
		jp_buf_add(&list, roots->v[i]);
	}
	if (list.rc < 0 || jp_buf_take(&text, &list) < 0) {
		b->rc = JP_ENOMEM;
	} else {
		add_var(b, name, text ? text : "");
	}
	free(text);
	jp_buf_dispose(&list);
}

static void header(struct jp_buf *b, const struct jp_manifest *m)
{
	jp_buf_add(b, "#!/bin/sh\n");
	jp_buf_addf(b,
		    "# preflight.sh of a run of the job \"%s\", made by jobprep %s from the\n"
		    "# run's manifest (created %s). Every Worker runs it before the launch\n"
		    "# command:  exec </dev/null && . env.sh && sh preflight.sh && LAUNCH COMMAND\n"
		    "# It checks the paths `jobprep check` checks, as this Worker sees them,\n"
		    "# and with several Workers that all of them share the output directory.\n"
		    "# One line per problem on stderr; exit 0 when nothing failed, else 1.\n"
		    "# JOBPREP_PREFLIGHT_TIMEOUT: seconds one path may take (default 10).\n"
		    "# JOBPREP_PREFLIGHT_WAIT: seconds a Worker waits for rank 0 (default 60).\n"
		    "# JOBPREP_RANK, JOBPREP_ATTEMPT: this Worker's rank, this attempt's id,\n"
		    "# when the platform's variables (RANK, SLURM_JOB_ID ...) do not tell.\n",
		    m->job.name ? m->job.name : "?", PACKAGE_VERSION,
		    m->created_at ? m->created_at : "-");
	jp_buf_add(b, "\n# --- this run ---\n");
}

/* jp_env_identity: the names job.env sets that the platform sets for
 * each Worker (jp_env_name_platform), space-separated. */
static void identity_names(struct jp_buf *b, const struct jp_manifest *m)
{
	struct jp_buf list = JP_BUF_INIT;
	char *text = NULL;

	for (size_t i = 0; i < m->job.n_env; i++) {
		const char *name = m->job.env[i].name;

		if (!name || !jp_valid_env_name(name) || !jp_env_name_platform(name))
			continue;
		if (list.len)
			jp_buf_addc(&list, ' ');
		jp_buf_add(&list, name);
	}
	if (list.rc < 0 || jp_buf_take(&text, &list) < 0)
		b->rc = JP_ENOMEM;
	else
		add_var(b, "jp_env_identity", text ? text : "");
	free(text);
	jp_buf_dispose(&list);
}

/* What the runtime checks (preflight_runtime.sh) need: the code's Python
 * modules and version, its DataLoader workers, the floors, the GPUs. */
static void runtime_values(struct jp_buf *b, const struct jp_manifest *m)
{
	const struct jp_code_python *py = &m->code.python;
	struct jp_buf mods = JP_BUF_INIT;
	char *text = NULL;

	for (size_t i = 0; i < py->n_modules; i++)
		if (jp_valid_module_name(py->modules[i])) {
			if (mods.len)
				jp_buf_addc(&mods, ' ');
			jp_buf_add(&mods, py->modules[i]);
		}
	if (mods.rc < 0 || jp_buf_take(&text, &mods) < 0)
		b->rc = JP_ENOMEM;
	jp_buf_addf(b, "jp_py_code=%d\n", py->recorded ? 1 : 0);
	add_var(b, "jp_py_modules", text ? text : "");
	add_var(b, "jp_py_min",
		py->min_version && jp_valid_python_version(py->min_version) ? py->min_version : "");
	add_var(b, "jp_code_dir", m->code.source == JP_CODE_SHARED_STORAGE && m->code.path
					  ? m->code.path : "");
	jp_buf_addf(b, "jp_loader_workers=%d\n", py->dataloader_workers ? 1 : 0);
	jp_buf_addf(b, "jp_shm_min_kb=%llu\n", (unsigned long long)(JP_RUNTIME_SHM_MIN_BYTES >> 10));
	jp_buf_addf(b, "jp_nofile_min=%d\n", JP_RUNTIME_NOFILE_MIN);
	jp_buf_addf(b, "jp_gpus=%" PRId64 "\n", m->job.gpus_per_worker > 0 ? m->job.gpus_per_worker : 0);
	free(text);
	jp_buf_dispose(&mods);
}

static void values(struct jp_buf *b, const struct jp_manifest *m, const struct jp_profile *p)
{
	add_var(b, "jp_run", m->outputs.output_dir);
	add_var(b, "jp_out", m->outputs.output_dir);
	jp_buf_addf(b, "jp_workers=%" PRId64 "\n", m->job.workers > 0 ? m->job.workers : 1);
	jp_buf_addf(b, "jp_min_free_kb=%llu\n", (unsigned long long)(JP_CHECK_SPACE_FAIL_BYTES >> 10));
	add_roots(b, "jp_shared", &p->shared_roots);
	add_roots(b, "jp_public", &p->public_roots);
	add_roots(b, "jp_ephemeral", &p->ephemeral_roots);
	add_var(b, "jp_meet_id", JP_PREFLIGHT_MEET_ID);
	jp_buf_addf(b, "jp_sandbox=%d\n", p->sandbox ? 1 : 0);
	identity_names(b, m);
	runtime_values(b, m);
	/* the run's own copy of its code, and what its stamp must say */
	if (m->code.checkout && m->code.path && m->code.repo_commit) {
		add_var(b, "jp_tree_dir", m->code.path);
		add_var(b, "jp_tree_commit", m->code.repo_commit);
		add_var(b, "jp_tree_changes", m->code.changes_digest ? m->code.changes_digest : "-");
	}
	for (size_t i = 0; i < N_OF(messages); i++)
		add_var(b, messages[i].var, _(messages[i].fmt));
	jp_buf_add(b, "\n");
}

static const char *role_word(enum jp_check_role role)
{
	switch (role) {
	case JP_CHECK_ROLE_CODE:
		return "code";
	case JP_CHECK_ROLE_DATA:
		return "data";
	case JP_CHECK_ROLE_OUTPUT:
		break;
	}
	return "output";
}

/* What the manifest recorded of a path: " FILES FSTYPE MOUNTPOINT" (each
 * '' when unknown), or nothing when nothing is. A data set's FILES is the
 * count recorded, "?" when none was (a quick look that did not finish: it
 * must still hold files), '' for one the job fills itself (output). */
static void recorded(struct jp_buf *b, const struct jp_manifest *m, const struct jp_check_path *p)
{
	const struct jp_storage_record *r = jp_manifest_storage_record(m, p->field, p->path);
	const struct jp_data_source *d = p->role == JP_CHECK_ROLE_DATA ? &m->data[p->data_index] : NULL;
	char files[32] = "";

	if (d && d->output)
		files[0] = '\0';
	else if (d && d->has_stats)
		snprintf(files, sizeof(files), "%" PRIu64, d->stats.files);
	else if (d)
		snprintf(files, sizeof(files), "?");
	if (!files[0] && !r)
		return;
	jp_buf_addc(b, ' ');
	add_quoted(b, files);
	if (!r)
		return;
	jp_buf_addc(b, ' ');
	add_quoted(b, r->fstype);
	jp_buf_addc(b, ' ');
	add_quoted(b, r->mount_point);
}

/* The path-valued job.env entries under a shared root: where they live. */
static void env_checks(struct jp_buf *b, const struct jp_manifest *m, const struct jp_profile *p)
{
	for (size_t i = 0; i < m->job.n_env; i++) {
		char field[64];
		const char *path = jp_check_env_path(field, m, p, i);
		const struct jp_storage_record *r;

		if (!path)
			continue;
		jp_buf_add(b, "jp_check_env ");
		add_quoted(b, field);
		jp_buf_addc(b, ' ');
		add_quoted(b, path);
		if ((r = jp_manifest_storage_record(m, field, path))) {
			jp_buf_addc(b, ' ');
			add_quoted(b, r->fstype);
			jp_buf_addc(b, ' ');
			add_quoted(b, r->mount_point);
		}
		jp_buf_addc(b, '\n');
	}
}

static int checks(struct jp_buf *b, const struct jp_manifest *m, const struct jp_profile *profile)
{
	struct jp_check_path *paths = NULL;
	size_t n = 0;
	int rc = jp_check_paths(&paths, &n, m);

	if (rc < 0)
		return rc;
	jp_buf_add(b, "\n# --- this run's paths, as `jobprep check` names them ---\n");
	for (size_t i = 0; i < n; i++) {
		jp_buf_add(b, "jp_check ");
		add_quoted(b, paths[i].field);
		jp_buf_addf(b, " %s ", role_word(paths[i].role));
		add_quoted(b, paths[i].path);
		recorded(b, m, &paths[i]);
		jp_buf_addc(b, '\n');
	}
	env_checks(b, m, profile);
	if (m->code.checkout && m->code.path && m->code.repo_commit)
		jp_buf_add(b, "jp_code_tree\n");
	jp_buf_add(b, "jp_meet\n"
		      "jp_runtime\n"
		      "jp_finish\n");
	free(paths);
	return 0;
}

int jp_preflight_render(char **out, const struct jp_manifest *m, struct jp_error *err)
{
	struct jp_buf b = JP_BUF_INIT;
	struct jp_profile *own = NULL;
	const struct jp_profile *profile = m->profile;
	int rc = 0;

	*out = NULL;
	if (!m->outputs.output_dir)
		return jp_error_set(err, JP_EFORMAT, "%s",
				    _("outputs.output_dir: expected the run's folder, got none"));
	if (!profile) {
		rc = jp_profile_new_default(&own, err);
		if (rc < 0)
			return rc;
		profile = own;
	}
	header(&b, m);
	values(&b, m, profile);
	jp_buf_add(&b, body);
	jp_buf_add(&b, runtime_body);
	rc = checks(&b, m, profile);
	if (rc == 0 && b.rc < 0)
		rc = b.rc;
	if (rc == 0)
		rc = jp_buf_take(out, &b);
	if (rc < 0)
		rc = jp_error_oom(err);
	jp_buf_dispose(&b);
	jp_profile_free(own);
	return rc;
}
