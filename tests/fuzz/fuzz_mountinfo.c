/* libFuzzer target: any bytes as /proc/self/mountinfo. Whatever parses
 * holds complete mounts (every field set, mount points absolute), the mount
 * found for a path covers that path, and paths classify under the default
 * profile with the table as the whole truth. Build with --enable-fuzzing; replayed over its seeds by
 * `make check` otherwise. */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mountinfo.h"
#include "jobprep/path.h"
#include "path_internal.h"
#include "jobprep/pathclass.h"
#include "pathclass_internal.h"
#include "jobprep/profile.h"
#include "profile_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const probes[] = {
	"/", "/mnt/public/projects/job", "/infini-data/set", "/tmp/x", "/workspace",
	"/data2/x",
};

static void check_table(const struct jp_mount_table *t, const struct jp_profile *profile)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct jp_mount *m = &t->v[i];

		if (!m->root || !m->mount_point || !m->options || !m->optional || !m->fstype ||
		    !m->source || !m->super_options || m->mount_point[0] != '/')
			abort();
		/* a mount point of the table is found, and covers itself */
		const struct jp_mount *f = jp_mount_table_find(t, m->mount_point);
		if (f && !jp_path_is_under(m->mount_point, f->mount_point))
			abort();
	}
	for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
		const struct jp_mount *f = jp_mount_table_find(t, probes[i]);
		struct jp_path_info info = JP_PATH_INFO_INIT;
		struct jp_error err = JP_ERROR_INIT;

		if (f && !jp_path_is_under(probes[i], f->mount_point))
			abort();
		if (jp_path_classify_in(&info, profile, t, probes[i], &err) == JP_ENOMEM)
			abort();
		jp_path_info_dispose(&info);
		jp_error_dispose(&err);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct jp_profile *profile;
	struct jp_mount_table t = JP_MOUNT_TABLE_INIT;
	struct jp_error err = JP_ERROR_INIT;

	if (!profile && jp_profile_new_default(&profile, &err) < 0)
		abort();
	if (jp_mount_table_parse(&t, (const char *)data, size, "fuzz", &err) == 0)
		check_table(&t, profile);
	else if (t.n != 0 || t.v != NULL)
		abort(); /* on failure the table is left empty */
	jp_mount_table_dispose(&t);
	jp_error_dispose(&err);
	return 0;
}
