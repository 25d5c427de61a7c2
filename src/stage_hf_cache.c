/* The Hugging Face Hub's cache layout, as huggingface_hub reads it offline
 * (HF_HUB_OFFLINE=1; its file_download.py: repo_folder_name,
 * _create_symlink, _cache_commit_hash_for_specific_revision):
 *
 *   HF_HOME/hub/                            HF_HUB_CACHE's default
 *     models--ORG--NAME/                    datasets--ORG--NAME for a data set
 *       blobs/ETAG                          the bytes; ETAG the sha256 of an
 *                                           LFS file, else its git blob id
 *       snapshots/COMMIT/PATH/IN/REPO       symlink, relative, to ../../blobs/ETAG
 *                                           (one more ../ per folder in the name)
 *       refs/REVISION                       COMMIT, no newline (read as is)
 *
 * A blob appears only complete and checked (jp_stage_http renames it in
 * place); a snapshot's link only once its blob is there; refs/REVISION
 * last, once every file of the commit is, so an offline load that finds
 * the ref finds the whole snapshot. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobprep/fs.h"
#include "jobprep/i18n.h"
#include "stage_hf.h"
#include "treecopy.h"

bool jp_hf_name_ok(const char *s, bool slashes)
{
	const char *p = s;

	if (!s || !s[0] || s[0] == '/' || strlen(s) > 1024)
		return false;
	while (*p) {
		size_t n = strcspn(p, "/");

		/* no empty, "." or ".." component; nothing a shell or a terminal
		 * reads specially */
		if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		for (size_t i = 0; i < n; i++)
			if ((unsigned char)p[i] < 0x20 || p[i] == 0x7f || p[i] == '\\')
				return false;
		p += n;
		if (*p == '/') {
			if (!slashes || !p[1])
				return false;
			p++;
		}
	}
	return true;
}

bool jp_hf_etag_ok(const char *s)
{
	size_t n = strlen(s);

	if (n != 40 && n != 64)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

int jp_hf_mkdirs(const char *path, struct jp_error *err)
{
	return jp_fs_mkdir_p(NULL, path, 0755, err);
}

int jp_hf_blob_path(char *out, size_t n, const char *repo_dir, const char *etag)
{
	return snprintf(out, n, "%s/blobs/%s", repo_dir, etag) < (int)n ? 0 : -1;
}

/* The link's target: "../" twice, once more per folder in the name. */
static int link_target(char *out, size_t n, const char *rfilename, const char *etag)
{
	size_t len = 0;

	out[0] = '\0';
	for (const char *p = rfilename; *p; p++)
		if (*p == '/' && len + 4 < n) {
			memcpy(out + len, "../", 4);
			len += 3;
		}
	return snprintf(out + len, n - len, "../../blobs/%s", etag) < (int)(n - len) ? 0 : -1;
}

int jp_hf_link(const char *repo_dir, const char *commit, const char *rfilename, const char *etag,
	       struct jp_error *err)
{
	char link[PATH_MAX], target[PATH_MAX], have[PATH_MAX], tmp[PATH_MAX + 64];
	const char *slash;
	ssize_t k;

	if (snprintf(link, sizeof(link), "%s/snapshots/%s/%s", repo_dir, commit, rfilename) >=
		    (int)sizeof(link) ||
	    link_target(target, sizeof(target), rfilename, etag) != 0)
		return jp_error_set(err, JP_EUSAGE, _("%s: path too long"), rfilename);
	k = readlink(link, have, sizeof(have) - 1);
	if (k >= 0) {
		have[k] = '\0';
		if (strcmp(have, target) == 0)
			return 0;
	}
	slash = strrchr(link, '/');
	{
		char dir[PATH_MAX];
		int rc;

		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - link), link);
		if ((rc = jp_hf_mkdirs(dir, err)) != 0)
			return rc;
		snprintf(tmp, sizeof(tmp), "%s/%slink-%s", dir, JP_TREECOPY_TMP_PREFIX, slash + 1);
	}
	/* a new link replaces the old one whole */
	unlink(tmp);
	if (symlink(target, tmp) != 0 || rename(tmp, link) != 0) {
		int e = errno;

		unlink(tmp);
		return jp_error_set(err, e == ENOSPC || e == EDQUOT ? JP_ENOSPC : JP_EIO,
				    _("%s: cannot create: %s"), link, strerror(e));
	}
	return 0;
}

bool jp_hf_linked(const char *repo_dir, const char *commit, const char *rfilename)
{
	char link[PATH_MAX];
	struct stat st;

	/* the link and the blob it leads to: a complete file (blobs appear
	 * whole) */
	return snprintf(link, sizeof(link), "%s/snapshots/%s/%s", repo_dir, commit, rfilename) <
		       (int)sizeof(link) &&
	       lstat(link, &st) == 0 && S_ISLNK(st.st_mode) && stat(link, &st) == 0 &&
	       S_ISREG(st.st_mode);
}

int jp_hf_write_ref(const char *repo_dir, const char *revision, const char *commit,
		    struct jp_error *err)
{
	char ref[PATH_MAX], tmp[PATH_MAX + 64], dir[PATH_MAX], have[64] = "";
	const char *slash;
	int fd, e = 0, rc;
	ssize_t k;

	if (strcmp(revision, commit) == 0)
		return 0; /* a commit asked for: no ref to keep */
	if (snprintf(ref, sizeof(ref), "%s/refs/%s", repo_dir, revision) >= (int)sizeof(ref))
		return jp_error_set(err, JP_EUSAGE, _("%s: path too long"), revision);
	if ((fd = open(ref, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) >= 0) {
		k = read(fd, have, sizeof(have) - 1);
		close(fd);
		if (k == 40 && memcmp(have, commit, 40) == 0)
			return 0;
	}
	slash = strrchr(ref, '/');
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - ref), ref);
	if ((rc = jp_hf_mkdirs(dir, err)) != 0)
		return rc;
	snprintf(tmp, sizeof(tmp), "%s/%sref-%s", dir, JP_TREECOPY_TMP_PREFIX, slash + 1);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, commit, 40) != 40 || fsync(fd) != 0)
		e = errno ? errno : EIO;
	if (fd >= 0 && close(fd) != 0 && !e)
		e = errno;
	if (!e && rename(tmp, ref) != 0)
		e = errno;
	if (e) {
		unlink(tmp);
		return jp_error_set(err, e == ENOSPC || e == EDQUOT ? JP_ENOSPC : JP_EIO,
				    _("%s: cannot create: %s"), ref, strerror(e));
	}
	return 0;
}
