/* A directory's entries in bounded time (jobprep/probe.h): the listing runs
 * in a helper process, so Tab or the folder browser on a mount that hung
 * costs a timeout, never frozen keys. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "jobprep/i18n.h"
#include "jobprep/path.h"
#include "jobprep/probe.h"
#include "helper_internal.h"
#include "probe_internal.h"

/* A directory, or a link to one (stat, not lstat). */
static bool entry_is_dir(const char *dir, const struct dirent *de)
{
	struct stat st;
	char *full;
	bool isdir;

	if (de->d_type == DT_DIR)
		return true;
	if (de->d_type != DT_LNK && de->d_type != DT_UNKNOWN)
		return false;
	if (!(full = jp_path_join(dir, de->d_name)))
		return false;
	isdir = stat(full, &st) == 0 && S_ISDIR(st.st_mode);
	free(full);
	return isdir;
}

static bool wanted(const struct dirent *de, const char *prefix, size_t plen, unsigned flags)
{
	if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
		return false;
	if (de->d_name[0] == '.' && !(flags & JP_PROBE_LIST_HIDDEN))
		return false;
	return strncmp(de->d_name, prefix, plen) == 0;
}

/* inputs: dir, prefix, flags; answer: errno of opendir, then each entry
 * as (is_dir, name), ended by a NULL name */
static void list_serve(struct probe_bytes *in, struct probe_bytes *out)
{
	char *dir = probe_bytes_get_str(in), *prefix = probe_bytes_get_str(in);
	size_t plen = prefix ? strlen(prefix) : 0;
	unsigned flags = 0;
	struct dirent *de;
	DIR *d = NULL;
	int errnum = 0;

	probe_bytes_get(in, &flags, sizeof(flags));
	if (!in->bad && dir && !(d = opendir(dir)))
		errnum = errno;
	probe_bytes_put(out, &errnum, sizeof(errnum));
	while (d && (de = readdir(d))) {
		if (!wanted(de, prefix ? prefix : "", plen, flags))
			continue;
		bool isdir = entry_is_dir(dir, de);
		if ((flags & JP_PROBE_LIST_DIRS) && !isdir)
			continue;
		probe_bytes_put(out, &isdir, sizeof(isdir));
		probe_bytes_put_str(out, de->d_name);
	}
	probe_bytes_put(out, &(bool){false}, sizeof(bool));
	probe_bytes_put_str(out, NULL);
	if (d)
		closedir(d);
	free(dir);
	free(prefix);
}
JP_HELPER_REQUEST(probe_list, list_serve, JP_HELPER_LOOK);

void jp_probe_listing_dispose(struct jp_probe_listing *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].name);
	free(l->v);
	*l = (struct jp_probe_listing)JP_PROBE_LISTING_INIT;
}

/* The entries of the answer into *l; false when the bytes are short or
 * memory ran out. */
static bool listing_get(struct jp_probe_listing *l, struct probe_bytes *ans)
{
	size_t cap = 0;

	probe_bytes_get(ans, &l->errnum, sizeof(l->errnum));
	for (;;) {
		bool isdir = false;
		char *name;

		probe_bytes_get(ans, &isdir, sizeof(isdir));
		name = probe_bytes_get_str(ans);
		if (!name)
			return !ans->bad;
		if (l->n == cap) {
			struct jp_probe_entry *nv;
			cap = cap ? cap * 2 : 32;
			if (!(nv = realloc(l->v, cap * sizeof(*nv)))) {
				free(name);
				return false;
			}
			l->v = nv;
		}
		l->v[l->n].name = name;
		l->v[l->n++].is_dir = isdir;
	}
}

int jp_probe_list(struct jp_probe_listing *out, const char *dir, const char *prefix, unsigned flags,
		  unsigned timeout_ms, struct jp_error *err)
{
	struct probe_bytes in = {NULL, 0, 0, 0, false, false}, ans;
	int rc;

	*out = (struct jp_probe_listing)JP_PROBE_LISTING_INIT;
	probe_bytes_put_str(&in, dir);
	probe_bytes_put_str(&in, prefix);
	probe_bytes_put(&in, &flags, sizeof(flags));
	rc = jp_helper_call(&ans, &jp_req_probe_list, &in, dir,
			    timeout_ms, err);
	free(in.p);
	if (rc < 0)
		return rc;
	if (!listing_get(out, &ans)) {
		jp_probe_listing_dispose(out);
		rc = ans.bad ? jp_error_set(err, JP_EINTERNAL, "%s: %s", dir,
					    _("the look at it failed"))
			     : jp_error_oom(err);
	}
	free(ans.p);
	return rc;
}
