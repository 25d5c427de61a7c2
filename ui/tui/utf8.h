/* UTF-8 text as the terminal shows it: characters, columns, clipping.
 *
 * Pure functions, no curses. Text is always UTF-8 inside the wizard; a byte
 * that is not valid UTF-8 counts as one character one column wide (drawn as
 * '?'). Widths come from wcwidth(), so the process must run in a UTF-8
 * locale for CJK to take two columns. */
#ifndef JOBPREP_TUI_UTF8_H
#define JOBPREP_TUI_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "jobprep/utf8.h" /* jp_utf8_decode, jp_utf8_encode, jp_utf8_valid */

/* The character at s[0..len) as the wizard steps over it: its length in
 * bytes (>= 1 when len > 0) and its code point in *cp, U+FFFD (one byte)
 * for a byte that is not UTF-8 (jp_utf8_decode). */
size_t jp_utf8_step(uint32_t *cp, const char *s, size_t len);
/* Columns one code point takes: 0 (combining), 1 or 2; non-printables 1. */
int jp_utf8_cp_width(uint32_t cp);
/* Columns of s[0..len). */
int jp_utf8_width(const char *s, size_t len);
/* Columns of a NUL-terminated string. */
int jp_utf8_swidth(const char *s);
/* How many bytes of s[0..len) fit in `cols` columns, whole characters only;
 * *used (may be NULL) gets the columns they take. */
size_t jp_utf8_fit(const char *s, size_t len, int cols, int *used);
/* Offset of the character before byte offset `pos` (0 at the start). */
size_t jp_utf8_prev(const char *s, size_t pos);
/* Offset of the character after byte offset `pos` in s[0..len). */
size_t jp_utf8_next(const char *s, size_t len, size_t pos);
/* Where to end a line of s[0..len) of which only the first `fit` bytes fit
 * (see jp_utf8_fit): at a newline before that, else at the last break
 * opportunity at or before fit -- a space (the line ends before it, the
 * caller skips it) or beside a wide (CJK) character, though never before
 * closing punctuation (，。）) nor after opening punctuation (（「) -- else
 * fit itself (a hard break). */
size_t jp_utf8_line_break(const char *s, size_t len, size_t fit);

#endif
