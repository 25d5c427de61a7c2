/* UTF-8: decoding (strict: RFC 3629) and encoding. */
#include "config.h"

#include "jobprep/utf8.h"

size_t jp_utf8_decode(uint32_t *cp, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	uint32_t c, min;
	size_t n;

	*cp = 0xFFFD;
	if (len == 0)
		return 0;
	c = s[0];
	if (c < 0x80) {
		*cp = c;
		return 1;
	} else if ((c & 0xE0) == 0xC0) {
		n = 2, c &= 0x1F, min = 0x80;
	} else if ((c & 0xF0) == 0xE0) {
		n = 3, c &= 0x0F, min = 0x800;
	} else if ((c & 0xF8) == 0xF0) {
		n = 4, c &= 0x07, min = 0x10000;
	} else {
		return 0;
	}
	if (n > len)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3F);
	}
	/* Overlong forms, surrogates and values past U+10FFFF are not UTF-8. */
	if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
		return 0;
	*cp = c;
	return n;
}

size_t jp_utf8_encode(char *buf, uint32_t cp)
{
	if (cp < 0x80) {
		buf[0] = (char)cp;
		return 1;
	} else if (cp < 0x800) {
		buf[0] = (char)(0xC0 | (cp >> 6));
		buf[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	} else if (cp >= 0xD800 && cp <= 0xDFFF) {
		return 0;
	} else if (cp < 0x10000) {
		buf[0] = (char)(0xE0 | (cp >> 12));
		buf[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		buf[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	} else if (cp <= 0x10FFFF) {
		buf[0] = (char)(0xF0 | (cp >> 18));
		buf[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
		buf[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
		buf[3] = (char)(0x80 | (cp & 0x3F));
		return 4;
	}
	return 0;
}

bool jp_utf8_valid(const char *s, size_t len)
{
	size_t i = 0, n;
	uint32_t cp;

	while (i < len) {
		if ((n = jp_utf8_decode(&cp, s + i, len - i)) == 0)
			return false;
		i += n;
	}
	return true;
}
