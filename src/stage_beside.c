/* The folder an archive is unpacked into, beside it (train.tar.gz ->
 * train/), and whether it is there: named here once, for the stage's
 * --unpack-archives and for the scan's items. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "jobprep/stage.h"
#include "stage_internal.h"

char *jp_stage_beside(const char *archive)
{
	const char *suffix = archive ? jp_stage_archive_suffix(archive) : NULL;
	const char *slash = archive ? strrchr(archive, '/') : NULL;
	const char *base = slash ? slash + 1 : archive;

	/* ".tar" alone, or a hidden "..tar.gz": no name to give the folder */
	if (!suffix || suffix == base || base[0] == '.')
		return NULL;
	return strndup(archive, (size_t)(suffix - archive));
}

bool jp_stage_unpacked(const char *archive)
{
	char *dir = jp_stage_beside(archive);
	struct stat sb;
	bool there = dir && lstat(dir, &sb) == 0 && S_ISDIR(sb.st_mode);

	free(dir);
	return there;
}
