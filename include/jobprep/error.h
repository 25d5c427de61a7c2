/* Errors: codes returned by every core function, and the messages behind them.
 *
 * Core functions return 0 on success or a negative JP_E* code, and put the
 * human-readable details into a struct jp_error the caller owns. There is no
 * global error state. A jp_error may collect several messages (validation
 * reports every problem it finds, not just the first). */
#ifndef JOBPREP_ERROR_H
#define JOBPREP_ERROR_H

#include <stddef.h>

/* X(name, value, exit_code, description) -- the one list of status codes.
 * exit_code is what a command-line front end returns for it, the same for
 * every command: 0 ok (warnings allowed), 1 a check or the work failed,
 * 2 usage, 3 unreadable/invalid file, 130 interrupted. */
#define JP_ERRORS(X)                                                           \
	X(JP_OK, 0, 0, "success")                                              \
	X(JP_EUSAGE, -1, 2, "invalid argument")                                \
	X(JP_EFORMAT, -2, 3, "invalid file")                                   \
	X(JP_EIO, -3, 1, "input/output error")                                 \
	X(JP_ENOMEM, -4, 1, "out of memory")                                   \
	X(JP_ECANCELED, -5, 130, "canceled")                                   \
	X(JP_ECHECK, -6, 1, "a check failed")                                  \
	X(JP_EEXIST, -7, 1, "already exists")                                  \
	X(JP_ENOENT, -8, 1, "not found")                                       \
	X(JP_EAUTH, -9, 1, "authentication failed")                            \
	X(JP_ENET, -10, 1, "network error")                                    \
	X(JP_ENOSPC, -11, 1, "no space left")                                  \
	X(JP_ETIMEOUT, -12, 1, "timed out")                                    \
	X(JP_EREFUSED, -13, 1, "refused")                                      \
	X(JP_EGIT, -14, 1, "git error")                                        \
	X(JP_ENEEDUSER, -15, 1, "needs an answer from a person")               \
	X(JP_EINTERNAL, -16, 1, "internal error")                              \
	X(JP_EARCHIVE, -17, 1, "unreadable archive")

enum jp_status {
#define JP_ERROR_ENUM(name, value, exit_code, desc) name = (value),
	JP_ERRORS(JP_ERROR_ENUM)
#undef JP_ERROR_ENUM
};

/* A caller-owned error: initialise with jp_error_init (or JP_ERROR_INIT),
 * release with jp_error_dispose. */
struct jp_error {
	int code;     /* the first non-zero code recorded, 0 if none */
	char **msgs;  /* each a full line, without trailing newline */
	size_t n;
};

#define JP_ERROR_INIT { 0, NULL, 0 }

void jp_error_dispose(struct jp_error *err);
/* Forget recorded messages, keep the object usable. */
void jp_error_clear(struct jp_error *err);

/* Record a message with printf-style formatting; returns code, so callers can
 * write `return jp_error_set(err, JP_EIO, "...")`. err may be NULL. */
int jp_error_set(struct jp_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
#if defined(__clang_analyzer__) && !defined(JP_ERROR_SET_DEFINITION)
/* For clang's static analyser (scan-build) only: it cannot see into error.c
 * from another file, so it takes `return jp_error_set(...)` for a success
 * that may be 0 and follows paths that cannot happen (a NULL result used
 * after a failure was returned). Tell it the contract: the result is code. */
#define jp_error_set(err, code, ...) (jp_error_set((err), (code), __VA_ARGS__), (code))
#endif

/* The one out-of-memory message: records "out of memory" and returns
 * JP_ENOMEM, for `return jp_error_oom(err)`. err may be NULL. */
int jp_error_oom(struct jp_error *err);
#if defined(__clang_analyzer__) && !defined(JP_ERROR_SET_DEFINITION)
#define jp_error_oom(err) (jp_error_oom(err), JP_ENOMEM)
#endif

/* The last message recorded, or the code's description if there is none.
 * Borrowed: valid until err changes. */
const char *jp_error_message(const struct jp_error *err);

/* Description of a status code, translated (gettext); borrowed, static.
 * The descriptions in JP_ERRORS are extracted by ui/po/mkpot.sh. */
const char *jp_strerror(int code);
/* The exit code a command should return for a status code. */
int jp_exit_code(int code);

#endif
