/* The parallel tree copy used to put a finished clone onto shared storage:
 * contents, modes, symlinks and empty directories arrive intact, the copied
 * files' stat data is recorded for the index refresh, a cancel stops it, and
 * the parallel removal empties a tree. Also the clone temporaries: a dead
 * owner's is removed, a live one's is kept. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "treecopy.h"
#include "git_internal.h"
#include "scratch.h"

static void put(const char *dir, const char *rel, const char *text, mode_t mode)
{
	char path[2 * PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(chmod(path, mode), 0);
}

static void make_tree(const char *src)
{
	char path[2 * PATH_MAX];
	FILE *f;

	assert_int_equal(mkdir(src, 0755), 0);
	snprintf(path, sizeof(path), "%s/.git", src);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/.git/objects", src);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/scripts", src);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/private", src);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/empty", src);
	assert_int_equal(mkdir(path, 0750), 0);
	put(src, ".git/HEAD", "ref: refs/heads/main\n", 0644);
	put(src, ".git/objects/pack", "packdata", 0444);
	put(src, "scripts/train.sh", "#!/bin/sh\necho hi\n", 0755);
	put(src, "private/key", "secret-ish", 0600);
	put(src, "README", "hello\n", 0644);
	snprintf(path, sizeof(path), "%s/link", src);
	assert_int_equal(symlink("scripts/train.sh", path), 0);
	snprintf(path, sizeof(path), "%s/big.bin", src);
	f = fopen(path, "w");
	assert_non_null(f);
	for (int i = 0; i < 3 * 1024 * 1024 / 64; i++)
		fprintf(f, "%063d\n", i);
	fclose(f);
	/* ensure the 0700 directory mode survives even after its file is written */
	snprintf(path, sizeof(path), "%s/private", src);
	assert_int_equal(chmod(path, 0700), 0);
}

static mode_t mode_of(const char *dir, const char *rel)
{
	char path[2 * PATH_MAX];
	struct stat sb;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	assert_int_equal(lstat(path, &sb), 0);
	return sb.st_mode;
}

static int same_file(const char *a, const char *b)
{
	char cmd[5 * PATH_MAX];

	snprintf(cmd, sizeof(cmd), "cmp -s '%s' '%s'", a, b);
	return system(cmd) == 0;
}

static int strcmp_path(const void *key, const void *elem)
{
	return strcmp(key, ((const struct jp_treecopy_file *)elem)->path);
}

static void copy_keeps_contents_modes_symlinks_and_empty_dirs(void **state)
{
	struct scratch *s = *state;
	struct jp_treecopy_options o = JP_TREECOPY_OPTIONS_INIT;
	struct jp_treecopy_result r = JP_TREECOPY_RESULT_INIT;
	struct jp_error err = JP_ERROR_INIT;
	char src[PATH_MAX], dst[PATH_MAX], a[2 * PATH_MAX], b[2 * PATH_MAX], link[64];
	ssize_t n;

	snprintf(src, sizeof(src), "%s/src", s->dir);
	snprintf(dst, sizeof(dst), "%s/dst", s->dir);
	make_tree(src);
	o.threads = 4;
	o.record_stats = true;
	assert_int_equal(jp_treecopy(&r, src, dst, &o, NULL, &err), 0);
	assert_int_equal(r.files, 6);
	assert_int_equal(r.symlinks, 1);
	assert_int_equal(r.dirs, 5);
	assert_int_equal(mode_of(dst, "scripts/train.sh") & 07777, 0755);
	assert_int_equal(mode_of(dst, "private/key") & 07777, 0600);
	assert_int_equal(mode_of(dst, ".git/objects/pack") & 07777, 0444);
	assert_int_equal(mode_of(dst, "private") & 07777, 0700);
	assert_int_equal(mode_of(dst, "empty") & 07777, 0750);
	assert_true(S_ISDIR(mode_of(dst, "empty")));
	assert_true(S_ISLNK(mode_of(dst, "link")));
	snprintf(a, sizeof(a), "%s/link", dst);
	n = readlink(a, link, sizeof(link) - 1);
	assert_true(n > 0);
	link[n] = '\0';
	assert_string_equal(link, "scripts/train.sh");
	snprintf(a, sizeof(a), "%s/big.bin", src);
	snprintf(b, sizeof(b), "%s/big.bin", dst);
	assert_true(same_file(a, b));
	snprintf(a, sizeof(a), "%s/.git/HEAD", src);
	snprintf(b, sizeof(b), "%s/.git/HEAD", dst);
	assert_true(same_file(a, b));

	/* Stats of the copies, sorted by path, for the index refresh. */
	assert_int_equal(r.n_copied, 7); /* 6 files and the symlink */
	for (size_t i = 1; i < r.n_copied; i++)
		assert_true(strcmp(r.copied[i - 1].path, r.copied[i].path) < 0);
	for (size_t i = 0; i < r.n_copied; i++) {
		struct stat sb;

		snprintf(b, sizeof(b), "%s/%s", dst, r.copied[i].path);
		assert_int_equal(lstat(b, &sb), 0);
		assert_int_equal(sb.st_ino, r.copied[i].st.st_ino);
		assert_int_equal(sb.st_size, r.copied[i].st.st_size);
	}
	jp_treecopy_result_dispose(&r);

	/* The destination must not exist. */
	assert_int_equal(jp_treecopy(NULL, src, dst, &o, NULL, &err), JP_EIO);
	jp_error_dispose(&err);
}

static void stream_copies_as_named_and_the_rest_follows(void **state)
{
	struct scratch *s = *state;
	struct jp_treecopy_stream *st = NULL;
	struct jp_treecopy_result streamed = JP_TREECOPY_RESULT_INIT;
	struct jp_treecopy_result rest = JP_TREECOPY_RESULT_INIT;
	struct jp_treecopy_options o = JP_TREECOPY_OPTIONS_INIT;
	struct jp_error err = JP_ERROR_INIT;
	char src[PATH_MAX], dst[PATH_MAX], a[2 * PATH_MAX], b[2 * PATH_MAX];

	snprintf(src, sizeof(src), "%s/src", s->dir);
	snprintf(dst, sizeof(dst), "%s/dst", s->dir);
	make_tree(src);
	assert_int_equal(jp_treecopy_stream_start(&st, src, dst, 4, &err), 0);
	/* Named as a checkout would: files deep in directories not made yet. */
	assert_int_equal(jp_treecopy_stream_add(st, "scripts/train.sh"), 0);
	assert_int_equal(jp_treecopy_stream_add(st, "private/key"), 0);
	assert_int_equal(jp_treecopy_stream_add(st, "link"), 0);
	assert_int_equal(jp_treecopy_stream_add(st, "empty"), 0);
	assert_int_equal(jp_treecopy_stream_finish(st, &streamed, &err), 0);
	assert_int_equal(streamed.n_copied, 3);
	assert_string_equal(streamed.copied[0].path, "link");
	assert_string_equal(streamed.copied[1].path, "private/key");
	assert_int_equal(mode_of(dst, "scripts/train.sh") & 07777, 0755);
	assert_true(S_ISLNK(mode_of(dst, "link")));

	/* The rest: everything not streamed, once. */
	o.threads = 4;
	o.record_stats = true;
	o.dst_exists = true;
	o.done = &streamed;
	assert_int_equal(jp_treecopy(&rest, src, dst, &o, NULL, &err), 0);
	assert_int_equal(rest.files + rest.symlinks, 4); /* README big.bin HEAD pack */
	for (size_t i = 0; i < rest.n_copied; i++)
		assert_null(bsearch(rest.copied[i].path, streamed.copied, streamed.n_copied,
				    sizeof(*streamed.copied), strcmp_path));
	snprintf(a, sizeof(a), "%s/big.bin", src);
	snprintf(b, sizeof(b), "%s/big.bin", dst);
	assert_true(same_file(a, b));
	assert_int_equal(mode_of(dst, "private") & 07777, 0700);
	assert_int_equal(mode_of(dst, "empty") & 07777, 0750);
	jp_treecopy_result_dispose(&streamed);
	jp_treecopy_result_dispose(&rest);
	jp_error_dispose(&err);
}

static int cancel_at_once(const struct jp_progress *p, void *payload)
{
	(void)p;
	(void)payload;
	return -1;
}

static void cancel_stops_the_copy(void **state)
{
	struct scratch *s = *state;
	struct jp_port port = JP_PORT_INIT;
	struct jp_error err = JP_ERROR_INIT;
	char src[PATH_MAX], dst[PATH_MAX];

	snprintf(src, sizeof(src), "%s/src", s->dir);
	snprintf(dst, sizeof(dst), "%s/dst", s->dir);
	make_tree(src);
	port.progress = cancel_at_once;
	assert_int_equal(jp_treecopy(NULL, src, dst, NULL, &port, &err), JP_ECANCELED);
	jp_error_dispose(&err);
	/* What was written is the caller's to remove: the parallel remover. */
	assert_int_equal(jp_treecopy_remove(dst, 8, &err), 0);
	assert_int_equal(access(dst, F_OK), -1);
	assert_int_equal(jp_treecopy_remove(src, 8, &err), 0);
	assert_int_equal(access(src, F_OK), -1);
}

static void temporaries_of_dead_owners_are_removed_live_ones_kept(void **state)
{
	struct scratch *s = *state;
	struct jp_git_tmp t = JP_GIT_TMP_INIT;
	char dead[PATH_MAX], owner[2 * PATH_MAX], text[256];
	unsigned live = 0;
	pid_t pid;
	FILE *f;

	/* Ours: the owner is this process, alive. */
	assert_int_equal(jp_git_tmp_create(&t, s->dir, ".proj.jobprep-tmp-", NULL), 0);
	snprintf(owner, sizeof(owner), "%s/owner", t.dir);
	f = fopen(owner, "r");
	assert_non_null(f);
	assert_non_null(fgets(text, sizeof(text), f));
	fclose(f);
	assert_string_equal(text, "jobprep clone temporary\n");

	/* A dead process's: fork one that exits at once. */
	pid = fork();
	if (pid == 0)
		_exit(0);
	assert_true(pid > 0);
	waitpid(pid, NULL, 0);
	snprintf(dead, sizeof(dead), "%s/.proj.jobprep-tmp-%d-deadbeef", s->dir, (int)pid);
	assert_int_equal(mkdir(dead, 0700), 0);
	snprintf(owner, sizeof(owner), "%s/tree", dead);
	assert_int_equal(mkdir(owner, 0700), 0);
	snprintf(owner, sizeof(owner), "%s/owner", dead);
	gethostname(text, sizeof(text));
	f = fopen(owner, "w");
	assert_non_null(f);
	fprintf(f, "jobprep clone temporary\nhost %s\npid %d\nstart 1\n", text, (int)pid);
	fclose(f);

	assert_int_equal(jp_git_tmp_clean_stale(s->dir, ".proj.jobprep-tmp-", &live, NULL, 0), 0);
	assert_int_equal(live, 1);
	assert_int_equal(access(dead, F_OK), -1);
	assert_int_equal(access(t.dir, F_OK), 0);
	assert_int_equal(jp_git_tmp_remove(&t), 0);
	assert_null(t.dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(copy_keeps_contents_modes_symlinks_and_empty_dirs,
						scratch_setup, scratch_teardown),
		cmocka_unit_test_setup_teardown(stream_copies_as_named_and_the_rest_follows,
						scratch_setup, scratch_teardown),
		cmocka_unit_test_setup_teardown(cancel_stops_the_copy, scratch_setup,
						scratch_teardown),
		cmocka_unit_test_setup_teardown(temporaries_of_dead_owners_are_removed_live_ones_kept,
						scratch_setup, scratch_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
