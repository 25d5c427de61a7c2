/* Is an archive member safe to unpack (stage_member.c)? The checks on its
 * name and type alone, no file system touched: shared by stage_archive.c
 * and the fuzzer tests/fuzz/fuzz_member.c. A member is written only at a
 * clean name (no "/" at the start, no "..", no "." or empty parts) under
 * the destination, never through a symlink member seen before it (nor is
 * a hard link's target), never as a device node, FIFO or socket, and
 * never with a set-uid or set-gid bit. */
#ifndef JOBPREP_STAGE_MEMBER_H
#define JOBPREP_STAGE_MEMBER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct jp_member {
	const char *name;     /* as in the archive; NULL: none */
	mode_t type;          /* S_IFREG, S_IFDIR, S_IFLNK, S_IFCHR ... (AE_IF* are the same) */
	mode_t perm;          /* 07777 */
	const char *hardlink; /* a hard link's target as in the archive, or NULL */
	const char *symlink;  /* a symlink's target, or NULL */
};

enum jp_member_verdict {
	JP_MEMBER_WRITE,    /* write it at clean (a hard link to hard when hard[0]) */
	JP_MEMBER_TOP,      /* it names the top itself ("./"): nothing to write */
	JP_MEMBER_LEAVE_OUT, /* a device node, FIFO or socket: left out (a note) */
	JP_MEMBER_REFUSE,   /* the whole archive is refused (why) */
};

enum jp_member_why {
	JP_MEMBER_OK,
	JP_MEMBER_OUTSIDE,      /* named absolute or with "..": outside the destination */
	JP_MEMBER_THROUGH,      /* written through the symlink member `through` */
	JP_MEMBER_HARD_OUTSIDE, /* a hard link to a name outside the destination */
	JP_MEMBER_HARD_THROUGH, /* a hard link through a symlink member */
};

struct jp_member_out {
	char clean[4096];       /* the clean name (WRITE, LEAVE_OUT) */
	char hard[4096];        /* a hard link's clean target, "" when not one */
	mode_t perm;            /* perm without set-uid/set-gid */
	bool perm_dropped;      /* a set-uid/set-gid bit was dropped (a note) */
	bool link_leaves;       /* a symlink whose target leaves the tree (listed) */
	enum jp_member_why why; /* REFUSE: why */
	const char *through;    /* THROUGH: the symlink member, borrowed from the set */
};

/* The symlink members seen so far, in archive order. */
struct jp_member_set;
struct jp_member_set *jp_member_set_new(void);
void jp_member_set_free(struct jp_member_set *s);
/* A set of clean names of its own (an unpack's folder members): path
 * added (0 or JP_ENOMEM); is path in it? */
int jp_member_set_add(struct jp_member_set *s, const char *path);
bool jp_member_set_has(const struct jp_member_set *s, const char *path);

/* Judge m, the next member of the archive whose symlink members so far s
 * holds (a symlink member written is added). A verdict, or JP_ENOMEM. */
int jp_member_vet(struct jp_member_set *s, const struct jp_member *m, struct jp_member_out *out);

#endif
