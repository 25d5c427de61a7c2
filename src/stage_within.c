/* The archives a data set holds (issue 14, "unpack it there?"): a folder on
 * shared storage holding train.tar and val.tar.gz would have the job unpack
 * them while its GPUs wait. Each archive jp_stage unpacks is unpacked into
 * the folder beside it named after it (train.tar -> train/), the archive
 * kept, before the job; an archive with that folder beside it is unpacked
 * already (by jobprep, which renames the folder into place only when whole,
 * or by hand). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "jobprep/i18n.h"
#include "jobprep/path.h"
#include "jobprep/probe.h"
#include "probe_internal.h"
#include "jobprep/scan.h"
#include "jobprep/stage.h"
#include "stage_internal.h"
#include "treecopy.h"

/* jp_stage_unpacked in bounded time, for the caller's own thread: 1 when
 * the folder is there, 0 when not, JP_ETIMEOUT when the mount does not
 * answer (err says which path). */
static int unpacked_bounded(const char *archive, struct jp_error *err)
{
	char *dir = jp_stage_beside(archive);
	struct stat sb;
	int e = 0, rc;

	if (!dir)
		return 0;
	rc = jp_probe_stat(&sb, &e, dir, JP_PROBE_NOFOLLOW, 0, err);
	free(dir);
	if (rc < 0)
		return rc;
	return e == 0 && S_ISDIR(sb.st_mode);
}

void jp_stage_packed_dispose(struct jp_stage_packed *p)
{
	jp_strv_dispose(&p->archives);
	*p = (struct jp_stage_packed)JP_STAGE_PACKED_INIT;
}

struct finder {
	struct jp_stage_packed *out;
	int rc;
};

/* A temporary of a killed run (its unpack folder) is no part of the data. */
static bool in_temporary(const char *path)
{
	const char *p = strstr(path, "/" JP_TREECOPY_TMP_PREFIX);
	return p != NULL || strncmp(path, JP_TREECOPY_TMP_PREFIX, strlen(JP_TREECOPY_TMP_PREFIX)) == 0;
}

static int on_item(const struct jp_scan_item *it, void *payload)
{
	struct finder *f = payload;
	char *dir;

	if (it->kind != JP_SCAN_ITEM_ARCHIVE || in_temporary(it->path) ||
	    !(dir = jp_stage_beside(it->path)))
		return 0;
	free(dir);
	/* (one not looked at counts as packed: jp_stage_within looks again,
	 * bounded, before it unpacks) */
	if (it->unpacked == 1) {
		f->out->unpacked++;
		return 0;
	}
	f->out->bytes += it->size;
	if (jp_strv_push(&f->out->archives, it->path) < 0) {
		f->rc = JP_ENOMEM;
		return -1;
	}
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int jp_stage_find_packed(struct jp_stage_packed *out, const char *dir, bool quick,
			 struct jp_error *err)
{
	struct jp_scan_opts o = JP_SCAN_OPTS_INIT;
	struct jp_scan_result r;
	struct finder f = { out, 0 };
	struct jp_scan_output so = { on_item, &f };
	int rc;

	*out = (struct jp_stage_packed)JP_STAGE_PACKED_INIT;
	o.mode = quick ? JP_SCAN_QUICK : JP_SCAN_FULL;
	rc = jp_scan(&r, dir, &o, &so, NULL, err);
	if (f.rc < 0)
		rc = jp_error_oom(err);
	if (rc < 0) {
		jp_stage_packed_dispose(out);
		return rc;
	}
	/* in name order, whatever order the scan's threads met them in */
	if (out->archives.n > 1)
		qsort(out->archives.v, out->archives.n, sizeof(*out->archives.v), by_name);
	out->complete = r.complete;
	return 0;
}

static void add_counts(struct jp_stage_result *sum, const struct jp_stage_result *one)
{
	sum->files += one->files;
	sum->dirs += one->dirs;
	sum->symlinks += one->symlinks;
	sum->written += one->written;
	sum->bytes_written += one->bytes_written;
	sum->skipped += one->skipped;
	sum->bytes_skipped += one->bytes_skipped;
	sum->bytes_downloaded += one->bytes_downloaded;
}

/* The notes of one archive's unpacking, each prefixed by the archive. */
static int take_notes(struct jp_stage_result *sum, const struct jp_stage_result *one,
		      const char *archive)
{
	for (size_t k = 0; k < one->n_notes; k++) {
		char *line = NULL, **nv;

		if (asprintf(&line, "%s: %s", archive, one->notes[k]) < 0)
			return JP_ENOMEM;
		nv = realloc(sum->notes, (sum->n_notes + 1) * sizeof(*nv));
		if (!nv) {
			free(line);
			return JP_ENOMEM;
		}
		sum->notes = nv;
		sum->notes[sum->n_notes++] = line;
	}
	return 0;
}

int jp_stage_unpack_within(struct jp_stage_result *out, const char *dir,
			   const struct jp_stage_options *opts, const struct jp_port *port,
			   struct jp_error *err)
{
	struct jp_stage_result sum = JP_STAGE_RESULT_INIT;
	struct jp_stage_packed p = JP_STAGE_PACKED_INIT;
	struct jp_stage_options o = JP_STAGE_OPTIONS_INIT;
	struct stat sb;
	int rc, e = 0;

	*out = sum;
	if (!dir || !dir[0])
		return jp_error_set(err, JP_EUSAGE, "%s", _("stage: a folder is needed"));
	/* a bounded look: the folder may be on a mount that stopped answering */
	if ((rc = jp_probe_stat(&sb, &e, dir, 0, 0, err)) < 0)
		return rc;
	if (e != 0 || !S_ISDIR(sb.st_mode))
		return jp_error_set(err, e == ENOENT ? JP_ENOENT : JP_EUSAGE,
				    _("%s: --unpack-archives is for a folder holding archives"), dir);
	if (opts)
		o = *opts;
	o.no_unpack = false;
	o.sha256 = NULL;
	o.shards = o.shard = 0;
	sum.kind = JP_STAGE_ARCHIVE;
	rc = jp_stage_find_packed(&p, dir, false, err);
	for (size_t i = 0; rc == 0 && i < p.archives.n; i++) {
		struct jp_stage_result one = JP_STAGE_RESULT_INIT;
		char *dest = jp_stage_beside(p.archives.v[i]);

		if (!dest) {
			rc = jp_error_oom(err);
			break;
		}
		/* train.tar and train.zip: the folder the first made is the second's */
		int there = unpacked_bounded(p.archives.v[i], err);

		if (there < 0) {
			rc = there;
			free(dest);
			break;
		}
		if (there) {
			p.unpacked++;
			free(dest);
			continue;
		}
		rc = jp_stage(&one, p.archives.v[i], dest, &o, port, err);
		free(dest);
		if (rc == 0) {
			add_counts(&sum, &one);
			sum.archives++;
			if (take_notes(&sum, &one, p.archives.v[i]) < 0)
				rc = jp_error_oom(err);
		}
		jp_stage_result_dispose(&one);
	}
	sum.already = p.unpacked;
	jp_stage_packed_dispose(&p);
	if (rc == 0 && !(sum.dest = strdup(dir)))
		rc = jp_error_oom(err);
	if (rc < 0) {
		jp_stage_result_dispose(&sum);
		return rc;
	}
	*out = sum;
	return 0;
}
