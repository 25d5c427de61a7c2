/* Names made safe for a terminal; see jobprep/textquote.h. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "jobprep/error.h"
#include "jobprep/textquote.h"

/* The length of the valid UTF-8 sequence at s that is not a control
 * character, or 0 (a byte to escape). */
static size_t printable_len(const unsigned char *s)
{
	size_t n, i;
	unsigned cp;

	if (s[0] >= 0x20 && s[0] < 0x7f)
		return 1;
	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0; /* C0, DEL, a continuation byte, an overlong lead */
	n = s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : 4;
	cp = s[0] & (0xff >> (n + 1));
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0x80 && cp <= 0x9f))
		return 0;
	return n;
}

bool jp_text_needs_quoting(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	while (p && *p) {
		if (!(n = printable_len(p)))
			return true;
		p += n;
	}
	return false;
}

static void add_escape(struct jp_buf *b, unsigned char c)
{
	switch (c) {
	case '\t':
		jp_buf_add(b, "\\t");
		break;
	case '\n':
		jp_buf_add(b, "\\n");
		break;
	case '\r':
		jp_buf_add(b, "\\r");
		break;
	default:
		jp_buf_addf(b, "\\%03o", c);
		break;
	}
}

int jp_text_quote(char **out, const char *s, unsigned flags)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	bool quoted = flags & JP_TEXT_QUOTED;
	struct jp_buf b = JP_BUF_INIT;
	size_t n;

	if (!jp_text_needs_quoting((const char *)p)) {
		*out = strdup((const char *)p);
		return *out ? 0 : JP_ENOMEM;
	}
	if (quoted)
		jp_buf_addc(&b, '"');
	while (*p) {
		if ((n = printable_len(p)) == 0) {
			add_escape(&b, *p++);
			continue;
		}
		if (quoted && (*p == '"' || *p == '\\'))
			jp_buf_addc(&b, '\\');
		jp_buf_addn(&b, p, n);
		p += n;
	}
	if (quoted)
		jp_buf_addc(&b, '"');
	return jp_buf_take(out, &b);
}
