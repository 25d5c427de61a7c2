/* Where a stage's destination lives, for the warning before staging onto
 * storage a job does not see (jp_stage_where, stage.h). */
#include "config.h"

#include <stdlib.h>

#include "jobprep/path.h"
#include "jobprep/probe.h"
#include "jobprep/stage.h"
#include "mountinfo.h"
#include "pathclass_internal.h"

/* The mount table's word, without a look at dest itself: is the mount its
 * absolute path (as written) lies on network storage? Reading the table
 * never waits on a mount; a look at a hung one would, and would mark it
 * hung for the stage that follows, which then could not say itself which
 * path did not answer. */
static bool on_network(const char *dest)
{
	struct jp_mount_table table = JP_MOUNT_TABLE_INIT;
	const struct jp_mount *m;
	char *abs = jp_path_absolute(dest), *norm = abs ? jp_path_normalize(abs) : NULL;
	bool net = false;

	if (norm && jp_mount_table_load(&table, NULL, NULL) == 0 &&
	    (m = jp_mount_table_find(&table, norm)) != NULL)
		net = jp_fs_kind_of(m->fstype) == JP_FS_NETWORK;
	jp_mount_table_dispose(&table);
	free(abs);
	free(norm);
	return net;
}

int jp_stage_where(struct jp_path_info *out, const struct jp_profile *profile, const char *dest,
		   struct jp_error *err)
{
	struct jp_probe_result probe = JP_PROBE_RESULT_INIT;
	struct jp_probe_opts opts = JP_PROBE_OPTS_INIT;
	int rc;

	if (on_network(dest))
		return 1;
	opts.flags = JP_PROBE_CLASSIFY;
	rc = jp_probe_path(&probe, profile, dest, &opts, err);
	if (rc == 0) {
		jp_path_info_dispose(out);
		*out = probe.info;
		probe.info = (struct jp_path_info)JP_PATH_INFO_INIT;
	}
	jp_probe_result_dispose(&probe);
	return rc;
}
