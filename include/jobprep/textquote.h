/* Text from names (paths, file names, manifest keys, a git server's words)
 * made safe to show on a terminal, as git's quote_path does: a raw control
 * character could forge a line ("\n[pass] ...") or send the terminal a
 * command (ESC sequences: titles, clear screen). The one helper every
 * output uses, in the core and in the front ends. */
#ifndef JOBPREP_TEXTQUOTE_H
#define JOBPREP_TEXTQUOTE_H

#include <stdbool.h>

enum jp_text_quote_flags {
	/* Wrap in double quotes and escape '"' and '\\' too (for a name
	 * inside a message: "a\nb"); without it the escapes stand alone (for
	 * a whole line of text). */
	JP_TEXT_QUOTED = 1 << 0,
};

/* True when s holds what a terminal would act on: a C0 control character
 * (newline and tab too), DEL, a C1 control (U+0080..U+009F) or a byte that
 * is not UTF-8. Printable UTF-8 (CJK names) needs nothing. */
bool jp_text_needs_quoting(const char *s);
/* *out (the caller's, free()) is s itself when it needs nothing; else s
 * with C escapes (\t \n \r, others as \ooo octal, per byte), quoted per
 * flags. 0, or JP_ENOMEM (then *out is NULL). */
int jp_text_quote(char **out, const char *s, unsigned flags);

#endif
