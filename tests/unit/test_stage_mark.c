/* The record of a stage that has not finished (src/stage_mark.c), on a
 * scratch folder: written at the start beside DEST, found from DEST and
 * from a path below it, told running while its process is, removed at a
 * success with the records of the runs it finished; a failure with nothing
 * at DEST removes it too; a folder with no record left is nothing; a
 * temporary beside the path (an unpack folder) is found without a record;
 * a download's stage holds its record's folder against a second one. */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "stage_mark.h"
#include "scratch.h"

static char *at(const struct scratch *s, const char *rel)
{
	static char buf[4][PATH_MAX];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", s->dir, rel);
	return buf[k];
}

static void a_running_stage_is_found_from_below_and_removed_when_done(void **state)
{
	struct scratch *s = *state;
	struct jp_stage_unfinished *u = calloc(1, sizeof(*u));
	struct jp_stage_mark *m = NULL;
	char want[PATH_MAX + 64];

	assert_non_null(u);
	assert_int_equal(mkdir(at(s, "src"), 0755), 0);
	assert_int_equal(mkdir(at(s, "ds"), 0755), 0);
	assert_int_equal(mkdir(at(s, "ds/train"), 0755), 0);
	jp_stage_unfinished_look(u, at(s, "ds/train"));
	assert_int_equal(u->kind, JP_UNFINISHED_NONE);

	jp_stage_mark_begin(&m, at(s, "src"), at(s, "ds"), NULL);
	assert_non_null(m);
	jp_stage_unfinished_look(u, at(s, "ds/train"));
	assert_int_equal(u->kind, JP_UNFINISHED_RUN);
	assert_string_equal(u->dest, at(s, "ds"));
	assert_string_equal(u->where, at(s, ".jobprep-tmp-staging-ds"));
	assert_int_equal(u->pid, (long)getpid());
	assert_int_equal(u->running, 1); /* this process */
	assert_int_equal(u->runs, 1);
	snprintf(want, sizeof(want), "jobprep stage '%s' '%s'", at(s, "src"), at(s, "ds"));
	assert_string_equal(u->command, want);

	jp_stage_mark_end(m, JP_STAGE_DONE);
	jp_stage_unfinished_look(u, at(s, "ds/train"));
	assert_int_equal(u->kind, JP_UNFINISHED_NONE);
	assert_int_equal(access(at(s, ".jobprep-tmp-staging-ds"), F_OK), -1);
	free(u);
}

static void a_killed_runs_record_is_told_stopped_and_swept_by_the_next(void **state)
{
	struct scratch *s = *state;
	struct jp_stage_unfinished *u = calloc(1, sizeof(*u));
	struct jp_stage_mark *m = NULL;
	FILE *f;

	assert_non_null(u);
	assert_int_equal(mkdir(at(s, "ds"), 0755), 0);
	assert_int_equal(mkdir(at(s, ".jobprep-tmp-staging-ds"), 0755), 0);
	/* a run of this machine whose process is gone (no such start time) */
	f = fopen(at(s, ".jobprep-tmp-staging-ds/old.json"), "w");
	assert_non_null(f);
	fprintf(f, "{\"command\": \"jobprep stage /a /b\", \"host\": \"");
	{
		char host[256] = "";
		char boot[64] = "";
		FILE *b = fopen("/proc/sys/kernel/random/boot_id", "r");

		gethostname(host, sizeof(host));
		if (b) {
			if (!fgets(boot, sizeof(boot), b))
				boot[0] = '\0';
			fclose(b);
		}
		boot[strcspn(boot, "\n")] = '\0';
		fprintf(f, "%s\", \"boot_id\": \"%s\", \"pid\": %ld, \"proc_start\": \"1\", "
			   "\"started\": \"2000-01-01T00:00:00Z\"}",
			host, boot, (long)getpid());
	}
	fclose(f);
	jp_stage_unfinished_look(u, at(s, "ds"));
	assert_int_equal(u->kind, JP_UNFINISHED_RUN);
	assert_int_equal(u->running, 0);
	assert_string_equal(u->command, "jobprep stage /a /b");
	assert_string_equal(u->started, "2000-01-01T00:00:00Z");

	/* a failed run with part of it at DEST keeps its own record */
	jp_stage_mark_begin(&m, "/a", at(s, "ds"), NULL);
	assert_non_null(m);
	jp_stage_mark_end(m, JP_STAGE_FAILED);
	jp_stage_unfinished_look(u, at(s, "ds"));
	assert_int_equal(u->runs, 2);
	/* the run that finishes it removes both */
	jp_stage_mark_begin(&m, "/a", at(s, "ds"), NULL);
	jp_stage_mark_end(m, JP_STAGE_DONE);
	jp_stage_unfinished_look(u, at(s, "ds"));
	assert_int_equal(u->kind, JP_UNFINISHED_NONE);
	free(u);
}

static void a_failure_with_nothing_at_dest_leaves_no_record(void **state)
{
	struct scratch *s = *state;
	struct jp_stage_unfinished *u = calloc(1, sizeof(*u));
	struct jp_stage_mark *m = NULL;

	assert_non_null(u);
	jp_stage_mark_begin(&m, "/a", at(s, "new"), NULL);
	assert_non_null(m);
	jp_stage_mark_end(m, JP_STAGE_FAILED);
	jp_stage_unfinished_look(u, at(s, "new"));
	assert_int_equal(u->kind, JP_UNFINISHED_NONE);
	/* an empty record folder (a run ending or starting) is nothing */
	assert_int_equal(mkdir(at(s, ".jobprep-tmp-staging-new"), 0755), 0);
	jp_stage_unfinished_look(u, at(s, "new"));
	assert_int_equal(u->kind, JP_UNFINISHED_NONE);
	free(u);
}

static void a_temporary_beside_the_path_is_found(void **state)
{
	struct scratch *s = *state;
	struct jp_stage_unfinished *u = calloc(1, sizeof(*u));

	assert_non_null(u);
	assert_int_equal(mkdir(at(s, "arch"), 0755), 0);
	assert_int_equal(mkdir(at(s, ".jobprep-tmp-unpack-arch"), 0755), 0);
	jp_stage_unfinished_look(u, at(s, "arch"));
	assert_int_equal(u->kind, JP_UNFINISHED_UNPACK);
	assert_string_equal(u->where, at(s, ".jobprep-tmp-unpack-arch"));
	assert_int_equal(mkdir(at(s, ".jobprep-tmp-stage-tree"), 0755), 0);
	jp_stage_unfinished_look(u, at(s, "tree/sub"));
	assert_int_equal(u->kind, JP_UNFINISHED_TREE);
	assert_string_equal(u->dest, at(s, "tree"));
	free(u);
}

/* A download's stage holds its record's folder: a second one of the same
 * DEST is refused, naming the first, and writes no record; once the first
 * has ended, a stage of it goes on (issue 30). */
static void a_second_download_of_one_dest_is_refused_with_no_record(void **state)
{
	struct scratch *s = *state;
	struct jp_stage_unfinished *u = calloc(1, sizeof(*u));
	struct jp_stage_mark *m = NULL, *m2 = NULL;
	struct jp_error err;
	char want[64];

	assert_non_null(u);
	err = (struct jp_error)JP_ERROR_INIT;
	assert_int_equal(jp_stage_mark_hold(&m, "http://h/x.bin", at(s, "x.bin"), NULL, true, &err), 0);
	assert_non_null(m);
	assert_int_equal(jp_stage_mark_hold(&m2, "http://h/x.bin", at(s, "x.bin"), NULL, true, &err),
			 JP_EREFUSED);
	assert_null(m2);
	assert_int_equal(err.n, 1);
	snprintf(want, sizeof(want), "(pid %ld on ", (long)getpid());
	assert_non_null(strstr(err.msgs[0], "another jobprep stage is staging it"));
	assert_non_null(strstr(err.msgs[0], want));
	jp_stage_unfinished_look(u, at(s, "x.bin"));
	assert_int_equal(u->runs, 1); /* the first's record only */
	jp_stage_mark_end(m, JP_STAGE_DONE);
	jp_error_dispose(&err);
	err = (struct jp_error)JP_ERROR_INIT;
	assert_int_equal(jp_stage_mark_hold(&m2, "http://h/x.bin", at(s, "x.bin"), NULL, true, &err), 0);
	assert_non_null(m2);
	jp_stage_mark_end(m2, JP_STAGE_DONE);
	jp_stage_unfinished_look(u, at(s, "x.bin"));
	assert_int_equal(u->kind, JP_UNFINISHED_NONE);
	jp_error_dispose(&err);
	free(u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			a_running_stage_is_found_from_below_and_removed_when_done, scratch_setup,
			scratch_teardown),
		cmocka_unit_test_setup_teardown(
			a_killed_runs_record_is_told_stopped_and_swept_by_the_next, scratch_setup,
			scratch_teardown),
		cmocka_unit_test_setup_teardown(a_failure_with_nothing_at_dest_leaves_no_record,
						scratch_setup, scratch_teardown),
		cmocka_unit_test_setup_teardown(a_temporary_beside_the_path_is_found,
						scratch_setup, scratch_teardown),
		cmocka_unit_test_setup_teardown(a_second_download_of_one_dest_is_refused_with_no_record,
						scratch_setup, scratch_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
