/* Names made safe for a terminal: what passes as is (CJK too), what is
 * escaped (C0, DEL, C1, bytes that are not UTF-8), quoted or bare. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "jobprep/textquote.h"

static void check(const char *in, unsigned flags, const char *want)
{
	char *out = NULL;

	assert_int_equal(jp_text_quote(&out, in, flags), 0);
	assert_string_equal(out, want);
	free(out);
}

static void printable_text_is_kept_as_is(void **state)
{
	(void)state;
	assert_false(jp_text_needs_quoting("/mnt/public/数据集/it's \"q\" \\ ~"));
	check("/mnt/public/数据集/a b", JP_TEXT_QUOTED, "/mnt/public/数据集/a b");
	check("", JP_TEXT_QUOTED, "");
	check("emoji 🚀", 0, "emoji 🚀");
}

static void control_characters_are_escaped(void **state)
{
	(void)state;
	assert_true(jp_text_needs_quoting("a\nb"));
	check("a\n[pass] forged", JP_TEXT_QUOTED, "\"a\\n[pass] forged\"");
	check("a\n[pass] forged", 0, "a\\n[pass] forged");
	check("\033]0;title\007\033[2J", 0, "\\033]0;title\\007\\033[2J");
	check("tab\there\r", 0, "tab\\there\\r");
	check("del\177", 0, "del\\177");
	/* once quoted, '"' and '\\' are escaped too, so it reads back */
	check("q\"\\\n", JP_TEXT_QUOTED, "\"q\\\"\\\\\\n\"");
	check("q\"\\\n", 0, "q\"\\\\n");
}

static void c1_controls_and_bad_utf8_are_escaped(void **state)
{
	(void)state;
	check("csi\xc2\x9b" "2J", 0, "csi\\302\\2332J");  /* U+009B, a CSI */
	check("raw\x9b" "2J", 0, "raw\\2332J");           /* a lone C1 byte */
	check("cut\xe6\x95", 0, "cut\\346\\225");         /* a truncated 数 */
	check("over\xc0\xaf", 0, "over\\300\\257");       /* overlong '/' */
	check("sur\xed\xa0\x80", 0, "sur\\355\\240\\200"); /* a surrogate */
	check("nbsp\xc2\xa0", 0, "nbsp\xc2\xa0");         /* U+00A0 is printable */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(printable_text_is_kept_as_is),
		cmocka_unit_test(control_characters_are_escaped),
		cmocka_unit_test(c1_controls_and_bad_utf8_are_escaped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
