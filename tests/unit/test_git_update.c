/* jp_git_update, the core API: a checkout of a local repository (file://)
 * brought to a tag, a branch, a commit; what the result says (from, to,
 * names, commits and files counted, what the checkout is afterwards); the
 * question asked through the port and a "no" that touches nothing; the
 * refusals before any network use (another repository, no checkout). */
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
#include "git_internal.h"

static char top[PATH_MAX];
static char url[PATH_MAX + 16];
static char co[PATH_MAX + 16];

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

/* "HEAD" of the checkout, or a rev of the source repository */
static void rev(char out[41], const char *dir, const char *what)
{
	char cmd[PATH_MAX + 128];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "git -C '%s' rev-parse '%s'", dir, what);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_non_null(fgets(out, 41, p));
	pclose(p);
}

#define ID "-c user.name=t -c user.email=t@t.invalid"

static int setup(void **state)
{
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";

	(void)state;
	snprintf(top, sizeof(top), "%s/jobprep-update-XXXXXX", tmp);
	if (!mkdtemp(top))
		return -1;
	snprintf(url, sizeof(url), "%s/src", top);
	snprintf(co, sizeof(co), "%s/co", top);
	/* v1 (annotated), then two commits on main, and v2 at the tip */
	return run("export GIT_CONFIG_NOSYSTEM=1 HOME='%s'; cd '%s' && git init -q -b main src && "
		   "cd src && echo one >a && git add a && git " ID " commit -qm one && "
		   "git " ID " tag -a -m v1 v1 && echo two >b && git add b && "
		   "git " ID " commit -qm two && echo three >>a && git " ID " commit -qam three && "
		   "git tag v2 && git clone -q '%s' '%s' && git -C '%s' -c advice.detachedHead=false "
		   "checkout -q v1",
		   top, top, url, co, co);
}

static int teardown(void **state)
{
	(void)state;
	return run("rm -rf '%s'", top);
}

static int answer_yes(const char *q, void *payload)
{
	int *asked = payload;

	(*asked)++;
	return strstr(q, "from v1 (") && strstr(q, "to   v2 (") &&
	       strstr(q, "2 commit(s) forward, 2 file(s) changed");
}

static int answer_no(const char *q, void *payload)
{
	(void)q;
	(*(int *)payload)++;
	return 0;
}

static void a_no_touches_nothing_a_yes_moves(void **state)
{
	struct jp_git_update_options o = JP_GIT_UPDATE_OPTIONS_INIT;
	struct jp_git_update_result res = JP_GIT_UPDATE_RESULT_INIT;
	struct jp_error err = JP_ERROR_INIT;
	struct jp_port port = JP_PORT_INIT;
	char v1[41], v2[41], head[41];
	int asked = 0;

	(void)state;
	rev(v1, url, "v1^{commit}");
	rev(v2, url, "v2");
	o.url = url;
	o.path = co;
	o.ref = "v2";
	o.ask = true;
	port.confirm = answer_no;
	port.payload = &asked;
	assert_int_equal(jp_git_update(&res, &o, &port, &err), JP_EREFUSED);
	assert_int_equal(asked, 1);
	assert_non_null(strstr(jp_error_message(&err), "was declined"));
	rev(head, co, "HEAD");
	assert_string_equal(head, v1);
	assert_false(res.moved);
	jp_git_update_result_dispose(&res);
	jp_error_dispose(&err);

	port.confirm = answer_yes;
	asked = 0;
	assert_int_equal(jp_git_update(&res, &o, &port, &err), 0);
	assert_int_equal(asked, 1);
	assert_true(res.moved);
	assert_string_equal(res.from, v1);
	assert_string_equal(res.to, v2);
	assert_string_equal(res.from_name, "v1");
	assert_string_equal(res.ref, "v2");
	assert_int_equal(res.ref_kind, JP_GIT_REF_TAG);
	assert_int_equal(res.ahead, 2);
	assert_int_equal(res.back, 0);
	assert_int_equal(res.files, 2);
	/* what the checkout is now */
	assert_string_equal(res.checkout.commit, v2);
	assert_true(res.checkout.detached);
	assert_int_equal(res.checkout.dirty, 0);
	rev(head, co, "HEAD");
	assert_string_equal(head, v2);
	jp_git_update_result_dispose(&res);
	jp_error_dispose(&err);

	/* again: already there, nothing asked */
	asked = 0;
	assert_int_equal(jp_git_update(&res, &o, &port, &err), 0);
	assert_int_equal(asked, 0);
	assert_false(res.moved);
	assert_non_null(strstr(res.summary, "already at v2 ("));
	jp_git_update_result_dispose(&res);

	/* back to v1 by commit id, without asking: two commits back */
	o.ref = v1;
	o.ask = false;
	assert_int_equal(jp_git_update(&res, &o, NULL, &err), 0);
	assert_true(res.moved);
	assert_int_equal(res.ref_kind, JP_GIT_REF_COMMIT);
	assert_null(res.ref);
	assert_int_equal(res.ahead, 0);
	assert_int_equal(res.back, 2);
	rev(head, co, "HEAD");
	assert_string_equal(head, v1);
	jp_git_update_result_dispose(&res);

	/* the branch: main made and fast-forwarded, HEAD on it */
	o.ref = "main";
	assert_int_equal(jp_git_update(&res, &o, NULL, &err), 0);
	assert_int_equal(res.ref_kind, JP_GIT_REF_BRANCH);
	assert_string_equal(res.checkout.branch, "main");
	assert_int_equal(run("test \"$(git -C '%s' rev-parse --abbrev-ref HEAD)\" = main", co), 0);
	jp_git_update_result_dispose(&res);
	jp_error_dispose(&err);
}

static void refusals_touch_nothing(void **state)
{
	struct jp_git_update_options o = JP_GIT_UPDATE_OPTIONS_INIT;
	struct jp_git_update_result res = JP_GIT_UPDATE_RESULT_INIT;
	struct jp_error err = JP_ERROR_INIT;
	char other[PATH_MAX + 32], plain[PATH_MAX + 32];

	(void)state;
	snprintf(other, sizeof(other), "%s/elsewhere.git", top);
	o.url = other;
	o.path = co;
	assert_int_equal(jp_git_update(&res, &o, NULL, &err), JP_EREFUSED);
	assert_non_null(strstr(jp_error_message(&err), "is a checkout of "));
	assert_non_null(strstr(jp_error_message(&err), "leave code.repo.url out"));
	jp_git_update_result_dispose(&res);
	jp_error_dispose(&err);

	snprintf(plain, sizeof(plain), "%s/plain", top);
	assert_int_equal(run("mkdir -p '%s' && echo x >'%s/x'", plain, plain), 0);
	o.url = url;
	o.path = plain;
	assert_int_equal(jp_git_update(&res, &o, NULL, &err), JP_EREFUSED);
	assert_non_null(strstr(jp_error_message(&err), "is not a git checkout"));
	assert_null(res.checkout.workdir);
	assert_int_equal(run("test \"$(ls -A '%s')\" = x", plain), 0);
	jp_git_update_result_dispose(&res);
	jp_error_dispose(&err);

	o.path = co;
	o.ref = "-x";
	assert_int_equal(jp_git_update(&res, &o, NULL, &err), JP_EUSAGE);
	jp_git_update_result_dispose(&res);
	jp_error_dispose(&err);
}

/* As onto network storage: the new files written on local disk, copied
 * with parallel writers; a deleted file goes, the index matches, git status
 * is clean, and back again. */
static void parallel_writers_move_the_checkout(void **state)
{
	struct jp_git_update_options o = JP_GIT_UPDATE_OPTIONS_INIT;
	struct jp_git_update_result res = JP_GIT_UPDATE_RESULT_INIT;
	struct jp_error err = JP_ERROR_INIT;
	char v1[41], v2[41], head[41];

	(void)state;
	rev(v1, url, "v1^{commit}");
	rev(v2, url, "v2");
	o.url = url;
	o.path = co;
	o.net_writers = true;
	o.ref = "v1";
	assert_int_equal(jp_git_update(&res, &o, NULL, &err), 0);
	assert_true(res.moved);
	assert_true(res.parallel);
	rev(head, co, "HEAD");
	assert_string_equal(head, v1);
	assert_int_equal(run("cd '%s' && test ! -e b && grep -qx one a && "
			     "git status --porcelain | wc -c | grep -qx 0",
			     co),
			 0);
	assert_int_equal(res.checkout.dirty, 0);
	jp_git_update_result_dispose(&res);

	o.ref = "v2";
	assert_int_equal(jp_git_update(&res, &o, NULL, &err), 0);
	assert_true(res.parallel);
	rev(head, co, "HEAD");
	assert_string_equal(head, v2);
	assert_int_equal(run("cd '%s' && grep -qx two b && grep -qx three a && "
			     "git status --porcelain | wc -c | grep -qx 0 && "
			     "git diff-files --name-only | wc -c | grep -qx 0",
			     co),
			 0);
	jp_git_update_result_dispose(&res);
	jp_error_dispose(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_no_touches_nothing_a_yes_moves),
		cmocka_unit_test(refusals_touch_nothing),
		cmocka_unit_test(parallel_writers_move_the_checkout),
	};
	int rc = cmocka_run_group_tests(tests, setup, teardown);

	jp_git_global_shutdown();
	return rc;
}
