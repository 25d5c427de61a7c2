/* What a checkout lacks (git_lacks.c), the core API: LFS pointers found by
 * content (the spec line, an oid line, a size line; the old hawser spec;
 * extension lines; under 1 KiB) and not mistaken (no oid, a bad size, 1 KiB
 * or more, a pointer whose content is in the work tree); the bounded look
 * answering the same; submodules declared but not cloned, and cloned. The
 * repositories are made by the real git, with no LFS filter: the pointers
 * are plain files, as libgit2 checks them out. */
#include "config.h"

#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "jobprep/git.h"
#include "buf.h"
#include "scratch.h"
#include "git_internal.h"

#define ID "-c user.name=t -c user.email=t@t.invalid"
#define SPEC "version https://git-lfs.github.com/spec/v1\n"
#define OID "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n"

static int run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int run(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	rc = system(cmd);
	return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static void put(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* A repository with the pointers and look-alikes below, committed. */
static void lfs_repo(const char *w)
{
	char big[1200];

	assert_int_equal(run("git init -q -b main '%s'", w), 0);
	put(w, ".gitattributes", "*.bin filter=lfs diff=lfs merge=lfs -text\n");
	put(w, "good.bin", SPEC OID "size 12345\n");
	put(w, "hawser.bin", "version https://hawser.github.com/spec/v1\n" OID "size 7\n");
	put(w, "ext.dat", SPEC "ext-0-foo sha256:" "4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n"
			   OID "size 2048\n");
	put(w, "fetched.bin", SPEC OID "size 5000\n");
	put(w, "nooid.txt", SPEC "size 12345\nwords enough to make it as long as a pointer is, so that it is read: more than 120 bytes\n");
	put(w, "badsize.txt", SPEC OID "size twelve\n");
	memset(big, 'x', sizeof(big));
	snprintf(big, sizeof(big), SPEC OID "size 1\n");
	big[strlen(big)] = 'x';
	big[sizeof(big) - 1] = '\0';
	put(w, "big.txt", big);
	put(w, "train.py", "print('hi')\n");
	assert_int_equal(run("git -C '%s' add -A && git " ID " -C '%s' commit -qm lfs", w, w), 0);
	/* the content of one is there: the pointer stays in git */
	assert_int_equal(run("head -c 5000 /dev/zero >'%s/fetched.bin'", w), 0);
}

static void finds_pointers_by_content(void **state)
{
	struct scratch *s = *state;
	struct jp_git_lfs_report r = JP_GIT_LFS_REPORT_INIT;
	struct jp_error err = JP_ERROR_INIT;
	char w[PATH_MAX];

	snprintf(w, sizeof(w), "%s/w", s->dir);
	lfs_repo(w);
	assert_int_equal(jp_git_lfs_find(&r, w, &err), 0);
	assert_string_equal(r.workdir, w);
	assert_int_equal(r.n, 3);
	assert_int_equal(r.listed, 3);
	/* in the index's order */
	assert_string_equal(r.v[0].path, "ext.dat");
	assert_true(r.v[0].size == 2048);
	assert_string_equal(r.v[1].path, "good.bin");
	assert_true(r.v[1].size == 12345);
	assert_string_equal(r.v[2].path, "hawser.bin");
	assert_true(r.v[2].size == 7);
	assert_true(r.bytes == 2048 + 12345 + 7);
	/* ext.dat is a pointer by content alone: no attribute names it */
	assert_false(r.v[0].named);
	assert_true(r.v[1].named);
	assert_true(r.v[2].named);
	assert_int_equal(r.unnamed, 1);
	/* fetched.bin is stored with LFS too, its content is there */
	assert_int_equal(r.tracked, 4);
	assert_false(r.unfinished);
	jp_git_lfs_report_dispose(&r);
	jp_error_dispose(&err);
}

static void bounded_look_answers_the_same(void **state)
{
	struct scratch *s = *state;
	struct jp_git_lfs_report r = JP_GIT_LFS_REPORT_INIT;
	struct jp_error err = JP_ERROR_INIT;
	char w[PATH_MAX];

	snprintf(w, sizeof(w), "%s/w", s->dir);
	lfs_repo(w);
	assert_int_equal(jp_git_lfs_check(&r, w, &err), 0);
	assert_int_equal(r.n, 3);
	assert_int_equal(r.listed, 3);
	assert_string_equal(r.v[1].path, "good.bin");
	assert_true(r.v[1].size == 12345);
	assert_false(r.v[0].named);
	assert_true(r.v[1].named);
	assert_int_equal(r.unnamed, 1);
	assert_int_equal(r.tracked, 4);
	assert_true(r.bytes == 2048 + 12345 + 7);
	jp_git_lfs_report_dispose(&r);
	jp_error_dispose(&err);
}

/* The pattern jp_git_lfs_attr_pattern makes names its file, and only it,
 * for git (check-attr) and for libgit2 (the look's `named`). */
static void attr_pattern_names_only_its_file(void **state)
{
	struct scratch *s = *state;
	struct jp_git_lfs_report r = JP_GIT_LFS_REPORT_INIT;
	struct jp_error err = JP_ERROR_INIT;
	struct jp_buf b = JP_BUF_INIT;
	const char *odd = "sub dir/a [1]#*?!.pt";
	char w[PATH_MAX], path[PATH_MAX + 32];
	FILE *f;

	snprintf(w, sizeof(w), "%s/w", s->dir);
	assert_int_equal(run("git init -q -b main '%s' && mkdir -p '%s/sub dir'", w, w), 0);
	put(w, odd, SPEC OID "size 10\n");
	put(w, "sub dir/a 1.pt", SPEC OID "size 20\n");
	assert_int_equal(run("git -C '%s' add -A && git " ID " -C '%s' commit -qm p", w, w), 0);
	jp_git_lfs_attr_pattern(&b, odd);
	assert_int_equal(b.rc, 0);
	assert_string_equal(b.s, "/sub[[:space:]]dir/a[[:space:]]\\[1\\]\\#\\*\\?\\!.pt");
	snprintf(path, sizeof(path), "%s/.git/info/attributes", w);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%s " JP_GIT_LFS_ATTRS "\n", b.s);
	fclose(f);
	assert_int_equal(run("test \"$(git -C '%s' check-attr filter -- '%s')\" = '%s: filter: lfs'",
			     w, odd, odd), 0);
	assert_int_equal(run("test \"$(git -C '%s' check-attr filter -- 'sub dir/a 1.pt')\" = "
			     "'sub dir/a 1.pt: filter: unspecified'", w), 0);
	assert_int_equal(jp_git_lfs_find(&r, w, &err), 0);
	assert_int_equal(r.n, 2);
	assert_string_equal(r.v[0].path, "sub dir/a 1.pt");
	assert_false(r.v[0].named);
	assert_string_equal(r.v[1].path, odd);
	assert_true(r.v[1].named);
	assert_int_equal(r.unnamed, 1);
	jp_git_lfs_report_dispose(&r);
	jp_error_dispose(&err);
	jp_buf_dispose(&b);
}

static void no_checkout_is_enoent(void **state)
{
	struct scratch *s = *state;
	struct jp_git_lfs_report r = JP_GIT_LFS_REPORT_INIT;
	struct jp_git_sm_report m = JP_GIT_SM_REPORT_INIT;
	struct jp_error err = JP_ERROR_INIT;

	assert_int_equal(jp_git_lfs_find(&r, s->dir, &err), JP_ENOENT);
	assert_int_equal(jp_git_submodules_find(&m, s->dir, &err), JP_ENOENT);
	jp_error_dispose(&err);
}

static void submodules_declared_not_cloned(void **state)
{
	struct scratch *s = *state;
	struct jp_git_sm_report m = JP_GIT_SM_REPORT_INIT;
	struct jp_error err = JP_ERROR_INIT;
	char w[PATH_MAX], lib[PATH_MAX];

	snprintf(w, sizeof(w), "%s/super", s->dir);
	snprintf(lib, sizeof(lib), "%s/lib", s->dir);
	assert_int_equal(run("git init -q -b main '%s' && echo x >'%s/x' && git -C '%s' add x && "
			     "git " ID " -C '%s' commit -qm lib",
			     lib, lib, lib, lib),
			 0);
	assert_int_equal(run("git init -q -b main '%s' && git -C '%s' -c protocol.file.allow=always "
			     "submodule add -q '%s' vendor/lib 2>/dev/null && git " ID
			     " -C '%s' commit -qm super && git -C '%s' submodule deinit -q -f vendor/lib "
			     ">/dev/null 2>&1",
			     w, w, lib, w, w),
			 0);
	assert_int_equal(jp_git_submodules_find(&m, w, &err), 0);
	assert_int_equal(m.declared, 1);
	assert_int_equal(m.n_missing, 1);
	assert_string_equal(m.missing.v[0], "vendor/lib");
	jp_git_sm_report_dispose(&m);
	assert_int_equal(jp_git_submodules_check(&m, w, &err), 0);
	assert_int_equal(m.n_missing, 1);
	assert_string_equal(m.missing.v[0], "vendor/lib");
	jp_git_sm_report_dispose(&m);
	/* cloned again: nothing missing */
	assert_int_equal(run("git -C '%s' -c protocol.file.allow=always submodule update -q --init "
			     ">/dev/null 2>&1",
			     w),
			 0);
	assert_int_equal(jp_git_submodules_check(&m, w, &err), 0);
	assert_int_equal(m.declared, 1);
	assert_int_equal(m.n_missing, 0);
	jp_git_sm_report_dispose(&m);
	jp_error_dispose(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(finds_pointers_by_content, scratch_setup,
						scratch_teardown),
		cmocka_unit_test_setup_teardown(bounded_look_answers_the_same, scratch_setup,
						scratch_teardown),
		cmocka_unit_test_setup_teardown(attr_pattern_names_only_its_file, scratch_setup,
						scratch_teardown),
		cmocka_unit_test_setup_teardown(no_checkout_is_enoent, scratch_setup,
						scratch_teardown),
		cmocka_unit_test_setup_teardown(submodules_declared_not_cloned, scratch_setup,
						scratch_teardown),
	};

	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
