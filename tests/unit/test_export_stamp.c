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
	assert_int_equal(jp_export_may_replace(path, false, NULL, &err), 0); /* nothing there */
	write_file(path, s);
	assert_int_equal(jp_export_may_replace(path, false, NULL, &err), 0); /* unedited */

	write_file(path, SCRIPT); /* no digest line: someone else's */
	assert_int_equal(jp_export_may_replace(path, false, NULL, &err), JP_EREFUSED);
	assert_non_null(strstr(jp_error_message(&err), path));
	jp_error_dispose(&err);

	s[strlen(s) - 2] = 'X'; /* edited */
	write_file(path, s);
	assert_int_equal(jp_export_may_replace(path, false, NULL, &err), JP_EREFUSED);
	jp_error_dispose(&err);

	assert_int_equal(symlink(path, link), 0);
	assert_int_equal(jp_export_may_replace(link, false, NULL, &err), JP_EREFUSED);
	assert_non_null(strstr(jp_error_message(&err), "symbolic link"));
	jp_error_dispose(&err);

	assert_int_equal(jp_export_may_replace(sc->dir, false, NULL, &err), JP_EREFUSED);
	jp_error_dispose(&err);
	free(s);
}

/* replace the first `from` in s by `to` (s is big enough), in place */
static void edit(char *s, const char *from, const char *to)
{
	char *at = strstr(s, from);

	assert_non_null(at);
	memmove(at + strlen(to), at + strlen(from), strlen(at + strlen(from)) + 1);
	memcpy(at, to, strlen(to));
}

#define POD "kind: PyTorchJob\nmetadata:\n  name: \"j\"\n  namespace: \"a\"\n" \
	    "# FILL IN the image\n" \
	    "spec:\n          priorityClassName: \"p\"\n" \
	    "              image: \"FILL-IN-IMAGE\"  # FILL IN: the image the job runs in\n"

static void the_persons_lines_are_no_edit_and_read_back(void **state)
{
	char buf[1024], *y = stamp(POD);
	struct jp_export_fill fill;

	(void)state;
	snprintf(buf, sizeof(buf), "%s", y);
	jp_export_read_fill(&fill, buf, strlen(buf));
	assert_string_equal(fill.image, ""); /* the placeholder is no image */
	assert_string_equal(fill.k8s_namespace, "a");
	assert_string_equal(fill.priority_class, "p");
	/* their values changed, quoted or not, a comment after; the FILL IN
	 * comment gone: still unedited in jobprep's lines */
	edit(buf, "\"FILL-IN-IMAGE\"  # FILL IN: the image the job runs in", "reg/i:1  # mine");
	edit(buf, "namespace: \"a\"", "namespace: 'b'");
	edit(buf, "# FILL IN the image\n", "");
	assert_true(jp_export_is_unedited(buf, strlen(buf)));
	jp_export_read_fill(&fill, buf, strlen(buf));
	assert_string_equal(fill.image, "reg/i:1");
	assert_string_equal(fill.k8s_namespace, "b");
	/* a line of jobprep's is an edit; the key of one of yours too */
	edit(buf, "name: \"j\"", "name: \"k\"");
	assert_false(jp_export_is_unedited(buf, strlen(buf)));
	edit(buf, "name: \"k\"", "name: \"j\"");
	assert_true(jp_export_is_unedited(buf, strlen(buf)));
	edit(buf, "priorityClassName:", "priorityClass:");
	assert_false(jp_export_is_unedited(buf, strlen(buf)));
	free(y);
}

static void a_scripts_own_are_its_sbatch_header_lines(void **state)
{
	char buf[512], *s = stamp("#!/bin/bash\n# comment\n#SBATCH --nodes=1\n"
				  "#SBATCH --partition=gpu\n\ncat <<EOF\n  image: \"a\"\n"
				  "#SBATCH --qos=x\nEOF\n");
	struct jp_export_fill fill;

	(void)state;
	snprintf(buf, sizeof(buf), "%s", s);
	jp_export_read_fill(&fill, buf, strlen(buf));
	assert_string_equal(fill.partition, "gpu");
	assert_string_equal(fill.qos, ""); /* past the header: the launch command's */
	edit(buf, "--partition=gpu", "--partition=a100");
	assert_true(jp_export_is_unedited(buf, strlen(buf)));
	edit(buf, "image: \"a\"", "image: \"b\"");
	assert_false(jp_export_is_unedited(buf, strlen(buf))); /* a launch command's line */
	edit(buf, "image: \"b\"", "image: \"a\"");
	edit(buf, "--qos=x", "--qos=y");
	assert_false(jp_export_is_unedited(buf, strlen(buf)));
	edit(buf, "--qos=y", "--qos=x");
	edit(buf, "--nodes=1", "--nodes=2");
	assert_false(jp_export_is_unedited(buf, strlen(buf)));
	jp_export_read_fill(&fill, buf, strlen(buf));
	assert_string_equal(fill.image, "");
	assert_string_equal(fill.partition, "a100");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(digest_line_goes_after_the_shebang_else_first),
		cmocka_unit_test(any_edit_breaks_the_digest),
		cmocka_unit_test(the_persons_lines_are_no_edit_and_read_back),
		cmocka_unit_test(a_scripts_own_are_its_sbatch_header_lines),
		cmocka_unit_test_setup_teardown(may_replace_only_nothing_or_an_unedited_export,
						scratch_setup, scratch_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
