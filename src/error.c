/* Errors: the status codes' descriptions and the message list. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JP_ERROR_SET_DEFINITION /* the analyser model in error.h is not for here */
#include "jobprep/error.h"
#include "error_internal.h"
#include "jobprep/i18n.h"

void jp_error_init(struct jp_error *err)
{
	err->code = 0;
	err->msgs = NULL;
	err->n = 0;
}

void jp_error_clear(struct jp_error *err)
{
	for (size_t i = 0; i < err->n; i++)
		free(err->msgs[i]);
	free(err->msgs);
	jp_error_init(err);
}

void jp_error_dispose(struct jp_error *err)
{
	if (err)
		jp_error_clear(err);
}

int jp_error_set(struct jp_error *err, int code, const char *fmt, ...)
{
	if (!err)
		return code;
	if (err->code == 0)
		err->code = code;

	va_list ap;
	va_start(ap, fmt);
	char *msg = NULL;
	int len = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (len < 0)
		return code; /* out of memory: keep the code, drop the text */

	char **grown = realloc(err->msgs, (err->n + 1) * sizeof(*grown));
	if (!grown) {
		free(msg);
		return code;
	}
	err->msgs = grown;
	err->msgs[err->n++] = msg;
	return code;
}

int jp_error_oom(struct jp_error *err)
{
	return jp_error_set(err, JP_ENOMEM, "%s", _("out of memory"));
}

const char *jp_error_message(const struct jp_error *err)
{
	if (err && err->n > 0)
		return err->msgs[err->n - 1];
	return jp_strerror(err ? err->code : 0);
}

char *jp_error_take_last(struct jp_error *err)
{
	if (!err || err->n == 0)
		return NULL;
	return err->msgs[--err->n];
}

const char *jp_strerror(int code)
{
	switch (code) {
#define JP_ERROR_DESC(name, value, exit_code, desc)                            \
	case value:                                                            \
		return _(desc);
		JP_ERRORS(JP_ERROR_DESC)
#undef JP_ERROR_DESC
	}
	return _("unknown error");
}

int jp_exit_code(int code)
{
	switch (code) {
#define JP_ERROR_EXIT(name, value, exit_code, desc)                            \
	case value:                                                            \
		return exit_code;
		JP_ERRORS(JP_ERROR_EXIT)
#undef JP_ERROR_EXIT
	}
	return 1;
}
