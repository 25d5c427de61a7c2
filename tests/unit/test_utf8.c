/* The one UTF-8 decoder: what RFC 3629 calls UTF-8 and nothing else. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "jobprep/utf8.h"

static size_t dec(uint32_t *cp, const char *s)
{
	return jp_utf8_decode(cp, s, strlen(s));
}

static void each_length_decodes_to_its_code_point(void **state)
{
	uint32_t cp;

	(void)state;
	assert_int_equal(dec(&cp, "a"), 1);
	assert_int_equal(cp, 'a');
	assert_int_equal(dec(&cp, "\xc3\xa9"), 2); /* é */
	assert_int_equal(cp, 0xE9);
	assert_int_equal(dec(&cp, "\xe4\xb8\xad"), 3); /* 中 */
	assert_int_equal(cp, 0x4E2D);
	assert_int_equal(dec(&cp, "\xf0\x9f\x98\x80"), 4); /* 😀 */
	assert_int_equal(cp, 0x1F600);
	assert_int_equal(dec(&cp, "\xf4\x8f\xbf\xbf"), 4);
	assert_int_equal(cp, 0x10FFFF);
}

static void what_is_not_utf8_decodes_to_nothing(void **state)
{
	uint32_t cp;

	(void)state;
	assert_int_equal(dec(&cp, "\x80"), 0); /* a stray continuation byte */
	assert_int_equal(cp, 0xFFFD);
	assert_int_equal(dec(&cp, "\xc0\xaf"), 0);         /* overlong '/' */
	assert_int_equal(dec(&cp, "\xe0\x80\xaf"), 0);     /* overlong, 3 bytes */
	assert_int_equal(dec(&cp, "\xed\xa0\x80"), 0);     /* a surrogate, U+D800 */
	assert_int_equal(dec(&cp, "\xf4\x90\x80\x80"), 0); /* past U+10FFFF */
	assert_int_equal(dec(&cp, "\xf8\x88\x80\x80\x80"), 0);
	assert_int_equal(dec(&cp, "\xe4\xb8"), 0);         /* cut short */
	assert_int_equal(jp_utf8_decode(&cp, "\xe4\xb8\xad", 2), 0); /* cut by len */
	assert_int_equal(dec(&cp, "\xe4" "a" "\xad"), 0); /* not a continuation */
	assert_int_equal(jp_utf8_decode(&cp, "", 0), 0);
}

static void encode_is_the_inverse_and_refuses_what_cannot_be_utf8(void **state)
{
	const uint32_t cps[] = { 0, 0x7F, 0x80, 0x7FF, 0x800, 0xFFFD, 0x10000, 0x10FFFF };
	char buf[4];
	uint32_t back;

	(void)state;
	for (size_t i = 0; i < sizeof(cps) / sizeof(cps[0]); i++) {
		size_t n = jp_utf8_encode(buf, cps[i]);
		assert_true(n >= 1 && n <= 4);
		assert_int_equal(jp_utf8_decode(&back, buf, n), n);
		assert_int_equal(back, cps[i]);
	}
	assert_int_equal(jp_utf8_encode(buf, 0xD800), 0);
	assert_int_equal(jp_utf8_encode(buf, 0x110000), 0);
}

static void valid_judges_the_whole_text(void **state)
{
	(void)state;
	assert_true(jp_utf8_valid("", 0));
	assert_true(jp_utf8_valid("a\xe4\xb8\xad" "b", 5));
	assert_true(jp_utf8_valid("\xef\xbf\xbd", 3)); /* U+FFFD itself is text */
	assert_false(jp_utf8_valid("ab\xff", 3));
	assert_false(jp_utf8_valid("a\xe4\xb8", 3));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(each_length_decodes_to_its_code_point),
		cmocka_unit_test(what_is_not_utf8_decodes_to_nothing),
		cmocka_unit_test(encode_is_the_inverse_and_refuses_what_cannot_be_utf8),
		cmocka_unit_test(valid_judges_the_whole_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
