/* UTF-8 text: one decoder and one encoder for the whole program (the JSON
 * pre-pass, the YAML export, the wizard's text). The front end's display
 * widths are in ui/tui/utf8.h, on top of these. */
#ifndef JOBPREP_UTF8_H
#define JOBPREP_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The character at s[0..len): its length in bytes (1-4), its code point in
 * *cp. 0 when the bytes there are not UTF-8 -- a stray or cut-short
 * sequence, an overlong form, a surrogate, a value past U+10FFFF -- or len
 * is 0; then *cp is U+FFFD. */
size_t jp_utf8_decode(uint32_t *cp, const char *s, size_t len);
/* Encode cp into buf (room for 4 bytes); its length, 0 for a surrogate or
 * a value past U+10FFFF. */
size_t jp_utf8_encode(char *buf, uint32_t cp);
/* True when the whole of s[0..len) is UTF-8. */
bool jp_utf8_valid(const char *s, size_t len);

#endif
