/* libFuzzer target: bytes as the members of an archive, judged in order by
 * the member checks an unpack makes (jp_member_vet, src/stage_member.c).
 * One member a line: its first byte picks the type (regular, folder,
 * symlink, hard link, character/block device, FIFO, socket), the second its
 * permission bits (set-uid/set-gid among them), the rest is its name, then
 * after a TAB a symlink's or hard link's target. Checked against a model
 * of its own (the symlink members written so far), as the unpack does, up
 * to the first refusal (which refuses the whole archive):
 *   - a member written lands under the destination: its clean name is the
 *     name's own "/"-separated parts without "" and ".", none of them "..",
 *     and "/dest/" + it resolves (lexically: nothing in the way is a link)
 *     to a path strictly under /dest;
 *   - nothing is written through a symlink member written before it (no
 *     proper prefix of the clean name is one), nor is a hard link's target;
 *   - no device node, FIFO or socket is written; no set-uid/set-gid bit;
 *   - nothing is refused that is clean, not through a symlink, and (a hard
 *     link) points at a clean name not through one: refusals have reasons.
 * Build with --enable-fuzzing; replayed over its seeds by `make check`. */
#include "config.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "jobprep/path.h"
#include "path_internal.h"
#include "stage_member.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_MEMBERS 64

static const mode_t types[8] = { S_IFREG, S_IFDIR, S_IFLNK, S_IFREG,
				 S_IFCHR, S_IFBLK, S_IFIFO, S_IFSOCK };

/* The model: the clean names of the symlink members written. */
struct model {
	char *links[MAX_MEMBERS];
	size_t n;
};

/* name's parts without "" and "." into out (joined by "/"); -1 when it is
 * absolute or has "..", 1 when nothing is left, 0 else. */
static int reference_clean(const char *name, char *out, size_t n)
{
	size_t w = 0;
	char *copy = strdup(name), *save = NULL;
	int rc = 0;

	if (!copy)
		abort();
	if (name[0] == '/') {
		free(copy);
		return -1;
	}
	for (char *p = strtok_r(copy, "/", &save); p; p = strtok_r(NULL, "/", &save)) {
		if (strcmp(p, ".") == 0)
			continue;
		if (strcmp(p, "..") == 0) {
			rc = -1;
			break;
		}
		size_t k = strlen(p);
		if (w + k + 2 > n) {
			rc = -1;
			break;
		}
		if (w)
			out[w++] = '/';
		memcpy(out + w, p, k);
		w += k;
	}
	out[w] = '\0';
	free(copy);
	return rc < 0 ? rc : (w ? 0 : 1);
}

/* A symlink member of the model that is a proper prefix of clean? */
static bool through_model(const struct model *m, const char *clean)
{
	for (size_t i = 0; i < m->n; i++) {
		size_t k = strlen(m->links[i]);
		if (strncmp(clean, m->links[i], k) == 0 && clean[k] == '/')
			return true;
	}
	return false;
}

static void check_clean(const char *clean)
{
	char *full, *norm;

	if (!clean[0] || clean[0] == '/')
		abort();
	for (const char *p = clean; *p;) {
		size_t k = strcspn(p, "/");
		if (k == 0 || (k == 1 && p[0] == '.') || (k == 2 && p[0] == '.' && p[1] == '.'))
			abort();
		p += k;
		if (*p == '/')
			p++;
		if (!*p && p[-1] == '/')
			abort(); /* a trailing "/" */
	}
	full = jp_path_join("/dest", clean);
	norm = full ? jp_path_normalize(full) : NULL;
	if (!norm || !jp_path_is_under(norm, "/dest") || strcmp(norm, "/dest") == 0)
		abort();
	free(norm);
	free(full);
}

/* Judge one member; false once the archive is refused. */
static bool one(struct jp_member_set *s, struct model *mo, const char *line, size_t len)
{
	struct jp_member m;
	struct jp_member_out *out = malloc(sizeof(*out));
	char *name, *target = NULL, ref[4096], refhard[4096];
	bool go_on = true;

	if (!out || len < 2 || !(name = strndup(line + 2, len - 2)))
		abort();
	char *tab = strchr(name, '\t');
	if (tab) {
		*tab = '\0';
		target = tab + 1;
	}
	unsigned sel = (unsigned char)line[0] % 8;
	m.name = name;
	m.type = types[sel];
	m.perm = (mode_t)(((unsigned char)line[1] << 4) | 0644) & 07777;
	m.hardlink = sel == 3 ? (target ? target : "") : NULL;
	m.symlink = sel == 2 ? (target ? target : "") : NULL;

	int ref_rc = reference_clean(name, ref, sizeof(ref));
	int hard_rc = m.hardlink ? reference_clean(m.hardlink, refhard, sizeof(refhard)) : 0;
	bool device = sel >= 4;
	int v = jp_member_vet(s, &m, out);

	switch (v) {
	case JP_MEMBER_WRITE:
		check_clean(out->clean);
		if (ref_rc != 0 || strcmp(ref, out->clean) != 0 || device ||
		    through_model(mo, out->clean) || (out->perm & 06000) ||
		    out->perm_dropped != ((m.perm & 06000) != 0))
			abort();
		if (m.hardlink) {
			check_clean(out->hard);
			if (hard_rc != 0 || strcmp(refhard, out->hard) != 0 ||
			    through_model(mo, out->hard))
				abort();
		} else if (out->hard[0]) {
			abort();
		}
		if (sel == 2 && mo->n < MAX_MEMBERS && !(mo->links[mo->n++] = strdup(out->clean)))
			abort();
		break;
	case JP_MEMBER_TOP:
		if (ref_rc != 1)
			abort();
		break;
	case JP_MEMBER_LEAVE_OUT:
		if (!device || ref_rc != 0 || strcmp(ref, out->clean) != 0 ||
		    through_model(mo, out->clean))
			abort();
		break;
	case JP_MEMBER_REFUSE:
		/* a reason that holds */
		if (out->why == JP_MEMBER_OUTSIDE ? ref_rc != -1
		    : out->why == JP_MEMBER_THROUGH ? ref_rc != 0 || !through_model(mo, ref)
		    : out->why == JP_MEMBER_HARD_OUTSIDE ? !m.hardlink || hard_rc == 0
		    : out->why == JP_MEMBER_HARD_THROUGH ? !m.hardlink || hard_rc != 0 ||
							   !through_model(mo, refhard)
		    : true)
			abort();
		go_on = false;
		break;
	default:
		abort(); /* out of memory, or no verdict */
	}
	free(name);
	free(out);
	return go_on;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jp_member_set *s = jp_member_set_new();
	struct model mo = { { NULL }, 0 };
	const char *p = (const char *)data, *end = p + size;

	if (!s)
		abort();
	for (unsigned i = 0; p < end && i < MAX_MEMBERS; i++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (len >= 2 && !memchr(p, '\0', len) && !one(s, &mo, p, len))
			break;
		p += len + 1;
	}
	for (size_t i = 0; i < mo.n; i++)
		free(mo.links[i]);
	jp_member_set_free(s);
	return 0;
}
