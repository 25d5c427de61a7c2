/* The digest line of an exported file: where it goes, that any edit of the
 * rest (or of the line) is seen, and what jp_export_may_replace lets an
 * export replace: nothing there, or an unedited export; not an edited file,
 * another file, a symbolic link or a directory. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "jobprep/export.h"
#include "export_internal.h"
#include "scratch.h"

#define SCRIPT "#!/bin/bash\n#SBATCH --nodes=1\nexec bash -c 'python train.py'\n"
#define YAML "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\n"

static char *stamp(const char *text)
{
	char *out = NULL;

	assert_int_equal(jp_export_stamp(&out, text, NULL), 0);
	return out;
}

static void digest_line_goes_after_the_shebang_else_first(void **state)
{
	char *s = stamp(SCRIPT), *y = stamp(YAML);
	const char *nl;

	(void)state;
	assert_int_equal(strncmp(s, "#!/bin/bash\n# jobprep-export-digest: xxh3-64=", 45), 0);
	nl = strchr(s + 12, '\n');
	assert_non_null(nl);
	assert_string_equal(nl + 1, SCRIPT + 12); /* the rest as it was */
	assert_int_equal(strncmp(y, "# jobprep-export-digest: xxh3-64=", 33), 0);
	nl = strchr(y, '\n');
	assert_non_null(nl);
	assert_string_equal(nl + 1, YAML);
	/* the same text, the same line: exports are reproducible */
	char *again = stamp(SCRIPT);
	assert_string_equal(again, s);
	free(again);
	free(s);
	free(y);
}

static void any_edit_breaks_the_digest(void **state)
{
	char *s = stamp(SCRIPT);
	size_t n = strlen(s);

	(void)state;
	assert_true(jp_export_is_unedited(s, n));
	/* every single byte changed, anywhere (the digest line included) */
	for (size_t i = 0; i < n; i++) {
		char keep = s[i];
		s[i] = keep == 'x' ? 'y' : 'x';
		if (jp_export_is_unedited(s, n))
			fail_msg("an edit at byte %zu went unseen", i);
		s[i] = keep;
	}
	/* a line added at the end, or the text cut short */
	char *longer = NULL;
	assert_true(asprintf(&longer, "%s# mine\n", s) > 0);
	assert_false(jp_export_is_unedited(longer, strlen(longer)));
	assert_false(jp_export_is_unedited(s, n - 1));
	/* a file without the line is no export */
	assert_false(jp_export_is_unedited(SCRIPT, strlen(SCRIPT)));
	assert_false(jp_export_is_unedited("", 0));
	free(longer);
	free(s);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void may_replace_only_nothing_or_an_unedited_export(void **state)
{
	struct scratch *sc = *state;
	struct jp_error err = JP_ERROR_INIT;
	char path[PATH_MAX], link[PATH_MAX];
	char *s = stamp(SCRIPT);

	snprintf(path, sizeof(path), "%s/job.sbatch", sc->dir);
	snprintf(link, sizeof(link), "%s/link.sbatch", sc->dir);
	assert_int_equal(jp_export_may_replace(path, &err), 0); /* nothing there */
	write_file(path, s);
	assert_int_equal(jp_export_may_replace(path, &err), 0); /* unedited */

	write_file(path, SCRIPT); /* no digest line: someone else's */
	assert_int_equal(jp_export_may_replace(path, &err), JP_EREFUSED);
	assert_non_null(strstr(jp_error_message(&err), path));
	jp_error_dispose(&err);

	s[strlen(s) - 2] = 'X'; /* edited */
	write_file(path, s);
	assert_int_equal(jp_export_may_replace(path, &err), JP_EREFUSED);
	jp_error_dispose(&err);

	assert_int_equal(symlink(path, link), 0);
	assert_int_equal(jp_export_may_replace(link, &err), JP_EREFUSED);
	assert_non_null(strstr(jp_error_message(&err), "symbolic link"));
	jp_error_dispose(&err);

	assert_int_equal(jp_export_may_replace(sc->dir, &err), JP_EREFUSED);
	jp_error_dispose(&err);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(digest_line_goes_after_the_shebang_else_first),
		cmocka_unit_test(any_edit_breaks_the_digest),
		cmocka_unit_test_setup_teardown(may_replace_only_nothing_or_an_unedited_export,
						scratch_setup, scratch_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
