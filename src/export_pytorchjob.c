/* A manifest as a Kubeflow PyTorchJob (kubeflow.org/v1), in YAML written
 * here: block style, every string a double-quoted scalar. */
#include "config.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobprep/export.h"
#include "jobprep/i18n.h"
#include "jobprep/profile.h"
#include "profile_internal.h"
#include "jobprep/utf8.h"
#include "export_internal.h"

/* Characters a YAML double-quoted scalar must not carry raw: C0 and C1
 * controls and DEL (not printable in YAML), and those a YAML 1.1 reader
 * (PyYAML, go-yaml) takes as line breaks or a byte-order mark. */
static bool yaml_needs_escape(uint32_t c)
{
	return c < 0x20 || c == 0x7f || (c >= 0x80 && c <= 0x9f) || c == 0x2028 || c == 0x2029 ||
	       c == 0xfeff || c == 0xfffe || c == 0xffff;
}

/* s as a double-quoted YAML scalar, read back to the same bytes by any
 * YAML 1.1 or 1.2 reader. `field` names s in the error for bytes that are
 * not UTF-8 (a YAML text cannot carry them). */
static int yaml_quoted(struct jp_buf *b, const char *s, const char *field, const char *origin,
		       struct jp_error *err)
{
	const char *p = s, *end = s + strlen(s);

	jp_buf_add(b, "\"");
	while (*p) {
		uint32_t c;
		size_t n = jp_utf8_decode(&c, p, (size_t)(end - p));

		if (n == 0)
			return export_error(err, JP_EFORMAT, origin, _("%s: expected UTF-8 text"),
					    field);
		if (c == '"' || c == '\\') {
			jp_buf_add(b, c == '"' ? "\\\"" : "\\\\");
		} else if (c == '\n') {
			jp_buf_add(b, "\\n");
		} else if (c == '\t') {
			jp_buf_add(b, "\\t");
		} else if (c == '\r') {
			jp_buf_add(b, "\\r");
		} else if (yaml_needs_escape(c)) {
			if (c <= 0xff)
				jp_buf_addf(b, "\\x%02X", (unsigned)c);
			else
				jp_buf_addf(b, "\\u%04X", (unsigned)c);
		} else {
			jp_buf_addn(b, (const char *)p, n);
		}
		p += n;
	}
	jp_buf_add(b, "\"");
	return 0;
}

struct volume {
	char name[32];
	const char *path; /* borrowed from the profile or the manifest */
	bool read_only;
};

struct volumes {
	struct volume *v;
	size_t n;
};

static bool path_under(const char *path, const char *root)
{
	size_t n = strlen(root);

	if (strcmp(root, "/") == 0)
		return true;
	return strncmp(path, root, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* Add a volume for path unless one already covers it. */
static int volume_add(struct volumes *vs, const char *prefix, size_t index, const char *path,
		      bool read_only, bool skip_covered)
{
	struct volume *grown;

	if (!path)
		return 0;
	for (size_t i = 0; skip_covered && i < vs->n; i++)
		if (path_under(path, vs->v[i].path))
			return 0;
	grown = realloc(vs->v, (vs->n + 1) * sizeof(*vs->v));
	if (!grown)
		return JP_ENOMEM;
	vs->v = grown;
	snprintf(vs->v[vs->n].name, sizeof(vs->v[vs->n].name), "%s-%zu", prefix, index);
	vs->v[vs->n].path = path;
	vs->v[vs->n].read_only = read_only;
	vs->n++;
	return 0;
}

/* The profile's shared roots (read-write) and public roots (read-only),
 * then every path of the manifest outside them: the code on shared storage,
 * the data (read-only when marked so), the output directories. */
static int collect_volumes(struct volumes *vs, const struct jp_manifest *m,
			   const struct jp_profile *profile)
{
	const char *outs[] = { m->outputs.output_dir, m->outputs.checkpoint_dir, m->outputs.log_dir };
	size_t n_roots;
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < profile->shared_roots.n; i++)
		rc = volume_add(vs, "shared", i, profile->shared_roots.v[i], false, false);
	for (size_t i = 0; rc == 0 && i < profile->public_roots.n; i++)
		rc = volume_add(vs, "public", i, profile->public_roots.v[i], true, false);
	n_roots = vs->n;
	if (rc == 0 && m->code.source == JP_CODE_SHARED_STORAGE)
		rc = volume_add(vs, "path", vs->n - n_roots, m->code.path, false, true);
	for (size_t i = 0; rc == 0 && i < m->n_data; i++)
		rc = volume_add(vs, "path", vs->n - n_roots, m->data[i].path, m->data[i].read_only,
				true);
	for (size_t i = 0; rc == 0 && i < sizeof(outs) / sizeof(outs[0]); i++)
		rc = volume_add(vs, "path", vs->n - n_roots, outs[i], false, true);
	return rc;
}

struct pod {
	const char *image;
	const char *priority_class; /* NULL: none */
	bool placeholder;
	const char *workdir;
	const char *command; /* the sh -c script */
	int64_t gpus;
	const struct volumes *volumes;
};

static int replica(struct jp_buf *b, const char *role, int64_t replicas, const struct pod *pod,
		   const char *origin, struct jp_error *err)
{
	int rc = 0;

	jp_buf_addf(b,
			"    %s:\n"
			"      replicas: %" PRId64 "\n"
			"      restartPolicy: OnFailure\n"
			"      template:\n"
			"        spec:\n",
			role, replicas);
	if (pod->priority_class) {
		jp_buf_add(b, "          " EXPORT_KEY_PRIORITY);
		rc = yaml_quoted(b, pod->priority_class, "--priority-class", origin, err);
		jp_buf_add(b, "\n");
	}
	jp_buf_add(b, "          containers:\n"
			  "            - name: pytorch\n"
			  "              " EXPORT_KEY_IMAGE);
	if (rc == 0)
		rc = yaml_quoted(b, pod->image, "code.image", origin, err);
	if (pod->placeholder)
		jp_buf_add(b, "  # FILL IN: the image the job runs in");
	jp_buf_add(b, "\n");
	if (rc == 0 && pod->workdir) {
		jp_buf_add(b, "              workingDir: ");
		rc = yaml_quoted(b, pod->workdir, "code.path", origin, err);
		jp_buf_add(b, "\n");
	}
	jp_buf_add(b, "              command:\n"
			  "                - \"/bin/sh\"\n"
			  "                - \"-c\"\n"
			  "                - ");
	if (rc == 0)
		rc = yaml_quoted(b, pod->command, "job.launch_command", origin, err);
	jp_buf_add(b, "\n");
	if (pod->gpus > 0)
		jp_buf_addf(b,
				"              resources:\n"
				"                limits:\n"
				"                  nvidia.com/gpu: %" PRId64 "\n",
				pod->gpus);
	if (pod->volumes->n > 0)
		jp_buf_add(b, "              volumeMounts:\n");
	for (size_t i = 0; rc == 0 && i < pod->volumes->n; i++) {
		const struct volume *v = &pod->volumes->v[i];

		jp_buf_addf(b, "                - name: %s\n", v->name);
		jp_buf_add(b, "                  mountPath: ");
		rc = yaml_quoted(b, v->path, "path", origin, err);
		jp_buf_add(b, "\n");
		if (v->read_only)
			jp_buf_add(b, "                  readOnly: true\n");
	}
	if (pod->volumes->n > 0)
		jp_buf_add(b, "          volumes:\n");
	for (size_t i = 0; rc == 0 && i < pod->volumes->n; i++) {
		const struct volume *v = &pod->volumes->v[i];

		jp_buf_addf(b,
				"            - name: %s\n"
				"              hostPath:\n"
				"                path: ",
				v->name);
		rc = yaml_quoted(b, v->path, "path", origin, err);
		jp_buf_add(b, "\n"
				  "                type: Directory\n");
	}
	return rc;
}

/* metadata: the name, and what the person gave (namespace, queue label) */
static int metadata(struct jp_buf *b, const struct jp_manifest *m, const struct jp_export_fill *fill,
		    const char *origin, struct jp_error *err)
{
	int rc;

	jp_buf_add(b, "metadata:\n"
			  "  name: ");
	rc = yaml_quoted(b, m->job.name, "job.name", origin, err);
	jp_buf_add(b, "\n");
	if (rc == 0 && fill && fill->k8s_namespace[0]) {
		jp_buf_add(b, "  " EXPORT_KEY_NAMESPACE);
		rc = yaml_quoted(b, fill->k8s_namespace, "--namespace", origin, err);
		jp_buf_add(b, "\n");
	}
	if (rc == 0 && fill && fill->queue[0]) {
		jp_buf_add(b, "  labels:\n"
				  "    " EXPORT_KEY_QUEUE);
		rc = yaml_quoted(b, fill->queue, "--queue", origin, err);
		jp_buf_add(b, "\n");
	}
	return rc;
}

int jp_export_pytorchjob(char **out, unsigned *notes, const struct jp_manifest *m,
			 const struct jp_export_fill *fill, const char *origin,
			 struct jp_error *err)
{
	struct jp_buf b = JP_BUF_INIT;
	struct jp_profile *own_profile = NULL;
	const struct jp_profile *profile = m->profile;
	struct volumes vs = { NULL, 0 };
	char *prelude = NULL, *command = NULL;
	struct pod pod;
	int rc;

	*out = NULL;
	if (notes)
		*notes = 0;
	/* A manifest without a profile was judged under the built-in one */
	if (!profile) {
		rc = jp_profile_new_default(&own_profile, err);
		if (rc < 0)
			goto out;
		profile = own_profile;
	}
	if (collect_volumes(&vs, m, profile) < 0) {
		rc = jp_error_oom(err);
		goto out;
	}
	rc = export_prelude(&prelude, m, err);
	if (rc < 0)
		goto out;
	if (asprintf(&command, "%s%s%s", prelude, export_preflight_line(),
		     m->job.launch_command ? m->job.launch_command : "") < 0) {
		command = NULL;
		rc = jp_error_oom(err);
		goto out;
	}

	/* An image recorded beside code on shared storage is the runtime too;
	 * the one given (--image, or kept from the file replaced) comes first */
	pod.image = fill && fill->image[0] ? fill->image : m->code.image;
	pod.placeholder = !pod.image;
	if (pod.placeholder)
		pod.image = JP_EXPORT_IMAGE_PLACEHOLDER;
	pod.priority_class = fill && fill->priority_class[0] ? fill->priority_class : NULL;
	pod.workdir = export_workdir(m);
	pod.command = command;
	pod.gpus = export_gpus(m);
	pod.volumes = &vs;

	jp_buf_addf(&b,
			"# Kubeflow PyTorchJob for the job \"%s\", made by jobprep %s from its\n"
			"# manifest (created %s). Submit it with: kubectl create -f FILE\n"
			"# (the Kubeflow training operator runs it; RANK, WORLD_SIZE, MASTER_ADDR\n"
			"# and MASTER_PORT are set in every Pod).\n"
			"# Volumes: hostPath mounts each node's own directory at the same path,\n"
			"# so the manifest's paths hold in the Pods. Where the cluster reaches\n"
			"# shared storage through a PVC or a CSI driver, put that volume here\n"
			"# with the same mountPath. Type Directory fails a Pod on a node without\n"
			"# the mount, rather than let it write into a local folder that is lost.\n",
			m->job.name, PACKAGE_VERSION, m->created_at ? m->created_at : "-");
	if (m->code.image) /* the manifest's own, then */
		jp_buf_add(&b, "# Yours, kept when jobprep export -o replaces this file: the values of\n"
			       "# namespace, priorityClassName and kueue.x-k8s.io/queue-name\n"
			       "# (--namespace, --priority-class, --queue); the image is the manifest's\n"
			       "# code.image (or --image). Every other line is jobprep's, made from the\n"
			       "# manifest: change the manifest, not the file.\n");
	else
		jp_buf_add(&b, "# Yours, kept when jobprep export -o replaces this file: the values of\n"
			       "# image, namespace, priorityClassName and kueue.x-k8s.io/queue-name\n"
			       "# (--image, --namespace, --priority-class, --queue). Every other line is\n"
			       "# jobprep's, made from the manifest: change the manifest, not the file.\n");
	if (pod.placeholder)
		jp_buf_addf(&b,
				EXPORT_FILL_IN_COMMENT " the image: the manifest names none (its code is %s).\n"
				EXPORT_FILL_IN_COMMENT ": \"" JP_EXPORT_IMAGE_PLACEHOLDER "\" is not a "
				"valid image, so a job submitted with it fails (or export with --image).\n",
				m->code.source == JP_CODE_LAUNCH_CLONE
					? "cloned by the launch command"
					: "on shared storage");
	jp_buf_add(&b, "apiVersion: kubeflow.org/v1\n"
			   "kind: PyTorchJob\n");
	rc = metadata(&b, m, fill, origin, err);
	jp_buf_add(&b, "spec:\n"
			   "  pytorchReplicaSpecs:\n");
	if (rc == 0)
		rc = replica(&b, "Master", 1, &pod, origin, err);
	if (rc == 0 && m->job.workers > 1)
		rc = replica(&b, "Worker", m->job.workers - 1, &pod, origin, err);
	if (rc < 0)
		goto out;
	rc = export_buf_finish(out, &b, err);
	if (rc == 0 && notes && pod.placeholder)
		*notes |= JP_EXPORT_NOTE_IMAGE_PLACEHOLDER;
out:
	jp_buf_dispose(&b);
	free(vs.v);
	free(command);
	free(prelude);
	jp_profile_free(own_profile);
	return rc;
}
