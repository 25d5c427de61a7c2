/* A step's fields as a form: rows built from the flow's table. */
#include "config.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobprep/i18n.h"
#include "tui/draw.h"
#include "tui/form.h"
#include "tui/form_internal.h"
#include "tui/utf8.h"

static bool is_text(const struct jp_field *f)
{
	return f->kind == JP_FIELD_TEXT || f->kind == JP_FIELD_PATH ||
	       f->kind == JP_FIELD_INTEGER;
}

static bool focusable(const struct jp_form_row *r)
{
	return !(r->field->flags & JP_FIELD_DERIVED);
}

static void row_dispose(struct jp_form_row *r)
{
	free(r->key);
	jp_le_dispose(&r->le);
	jp_verdict_dispose(&r->verdict);
	jp_flow_check_free(r->check);
	free(r->labels);
	memset(r, 0, sizeof(*r));
}

static void rows_free(struct jp_form_row *rows, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		row_dispose(&rows[i]);
	free(rows);
}

char *jp_form_value(const struct jp_form *form, const char *key)
{
	struct jp_error err = JP_ERROR_INIT;
	char *v = NULL;

	if (jp_flow_get(&v, form->flow, key, &err) < 0)
		v = NULL;
	jp_error_dispose(&err);
	return v ? v : strdup("");
}

char *jp_form_shown_value(const struct jp_form *form, const char *key)
{
	for (size_t i = 0; i < form->n; i++) {
		const struct jp_form_row *r = &form->rows[i];

		if (r->edited && is_text(r->field) && strcmp(r->key, key) == 0)
			return strdup(jp_le_text(&r->le));
	}
	return jp_form_value(form, key);
}

/* A verdict that comes this fast is shown at once, with no "checking...". */
#define CHECK_WAIT_MS 30

/* The row's running check has answered (waiting at most wait_ms): take its
 * verdict. */
static bool poll_row(const struct jp_form *form, struct jp_form_row *r, unsigned wait_ms)
{
	struct jp_verdict v = JP_VERDICT_INIT;

	if (!r->check || !jp_flow_check_poll(&v, r->check, form->flow, wait_ms))
		return false;
	jp_flow_check_free(r->check);
	r->check = NULL;
	jp_verdict_dispose(&r->verdict);
	r->verdict = v;
	r->remote_miss = false;
	if (v.status == JP_CHECK_FAIL && strcmp(r->key, "code.repo.ref") == 0) {
		/* failed by the remote, not by the flow's own look? */
		struct jp_verdict local = JP_VERDICT_INIT;

		if (jp_flow_validate(&local, form->flow, r->key, jp_le_text(&r->le), NULL) == 0 &&
		    local.status != JP_CHECK_FAIL)
			r->remote_miss = true;
		jp_verdict_dispose(&local);
	}
	return true;
}

/* The inline check runs off this thread (a path's storage may not answer):
 * the row says "checking..." until its verdict is in. */
static void validate_row(const struct jp_form *form, struct jp_form_row *r,
			 const char *candidate)
{
	struct jp_error err = JP_ERROR_INIT;

	jp_flow_check_free(r->check);
	r->check = NULL;
	jp_verdict_dispose(&r->verdict);
	if (jp_flow_check_start(&r->check, form->flow, r->key, candidate, &err) < 0) {
		r->verdict.status = JP_CHECK_FAIL;
		r->verdict.message = strdup(jp_error_message(&err));
	} else if (!poll_row(form, r, CHECK_WAIT_MS)) {
		r->verdict.status = JP_CHECK_PASS;
		r->verdict.message = strdup(_("checking..."));
	}
	jp_error_dispose(&err);
}

/* "data[].path" with index 2 -> "data[2].path". */
char *jp_form_item_key(const char *generic, size_t index)
{
	size_t n = jp_flow_item_key(NULL, 0, generic, index);
	char *s = malloc(n + 1);

	if (s)
		jp_flow_item_key(s, n + 1, generic, index);
	return s;
}

/* Fill a new row from the flow (or take over an old row being edited). */
static int fill_row(struct jp_form *form, struct jp_form_row *r,
		    struct jp_form_row *old)
{
	const struct jp_field *f = r->field;
	char *v = NULL;
	size_t i, n;

	if (f->kind == JP_FIELD_LIST) {
		r->lb.add_label = strcmp(r->key, "data") == 0 ? _("+  add a data source (a)")
							       : _("+  add a variable (a)");
		r->lb.n = jp_flow_list_count(form->flow, r->key);
		r->lb.cursor = form->list_cursor <= r->lb.n ? form->list_cursor : r->lb.n;
		r->lb.top = old ? old->lb.top : 0;
		return 0;
	}
	if (is_text(f)) {
		if (old && old->edited) {
			r->le = old->le;
			memset(&old->le, 0, sizeof(old->le));
			r->edited = true;
			r->rejected = old->rejected;
			r->check_pending = old->check_pending;
			r->verdict = old->verdict;
			memset(&old->verdict, 0, sizeof(old->verdict));
			r->check = old->check;
			r->remote_miss = old->remote_miss;
			old->check = NULL;
			return 0;
		}
		v = jp_form_value(form, r->key);
		if (!v || jp_le_init(&r->le, v) < 0) {
			free(v);
			return JP_ENOMEM;
		}
		if (old && old->remote_miss && !old->check &&
		    strcmp(v, jp_le_text(&old->le)) == 0) {
			/* the same text the remote said it does not have: no
			 * new look (the flow's own would not ask the remote) */
			r->verdict = old->verdict;
			memset(&old->verdict, 0, sizeof(old->verdict));
			r->remote_miss = true;
			free(v);
			return 0;
		}
		free(v);
		validate_row(form, r, NULL);
		return 0;
	}
	v = jp_form_value(form, r->key);
	if (!v)
		return JP_ENOMEM;
	if (f->kind == JP_FIELD_CHOICE) {
		for (n = 0; f->choices && f->choices[n].value; n++)
			;
		r->labels = calloc(n ? n : 1, sizeof(*r->labels));
		if (!r->labels) {
			free(v);
			return JP_ENOMEM;
		}
		r->radio.labels = r->labels;
		r->radio.n = n;
		for (i = 0; i < n; i++) {
			r->labels[i] = _(f->choices[i].label);
			if (strcmp(f->choices[i].value, v) == 0)
				r->radio.selected = i;
		}
		/* The highlight stays where the person left it, unless the
		 * choice itself changed (the flow derived it from a path). */
		r->radio.cursor = old && old->radio.selected == r->radio.selected
					  ? old->radio.cursor
					  : r->radio.selected;
		if (r->radio.cursor >= n)
			r->radio.cursor = r->radio.selected;
	} else if (f->kind == JP_FIELD_BOOL) {
		r->checked = strcmp(v, "true") == 0 || strcmp(v, "yes") == 0;
	}
	free(v);
	validate_row(form, r, NULL);
	return 0;
}

static struct jp_form_row *find_row(struct jp_form_row *rows, size_t n, const char *key)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (rows[i].key && strcmp(rows[i].key, key) == 0)
			return &rows[i];
	return NULL;
}

static int push_row(struct jp_form *form, struct jp_form_row **rows, size_t *n,
		    size_t *cap, const struct jp_field *f, char *key, int depth,
		    struct jp_form_row *old, size_t n_old)
{
	struct jp_form_row *r, *nr;
	int rc;

	if (*n == *cap || !*rows) {
		*cap = *cap > *n ? *cap : *cap ? *cap * 2 : 16;
		nr = realloc(*rows, *cap * sizeof(**rows));
		if (!nr) {
			free(key);
			return JP_ENOMEM;
		}
		*rows = nr;
	}
	r = &(*rows)[(*n)++];
	memset(r, 0, sizeof(*r));
	r->key = key;
	r->field = f;
	r->depth = depth;
	rc = fill_row(form, r, find_row(old, n_old, key));
	return rc;
}

int jp_form_build(struct jp_form *form)
{
	const struct jp_field *f, *it;
	struct jp_form_row *rows = NULL, *old = form->rows;
	size_t n = 0, cap = 0, n_old = form->n, count, i;
	char *focus_key = NULL, *key;
	int rc = 0;

	if (form->focus < form->n && form->rows[form->focus].key)
		focus_key = strdup(form->rows[form->focus].key);

	for (f = jp_flow_fields(form->step); f && f->key; f++) {
		if (!jp_flow_field_active(form->flow, f->key))
			continue;
		key = strdup(f->key);
		if (!key) {
			rc = JP_ENOMEM;
			break;
		}
		rc = push_row(form, &rows, &n, &cap, f, key, 0, old, n_old);
		if (rc < 0 || f->kind != JP_FIELD_LIST)
			continue;

		count = jp_flow_list_count(form->flow, f->key);
		if (form->list_cursor > count)
			form->list_cursor = count;
		free(form->item_status);
		form->item_status = calloc(count ? count : 1, sizeof(*form->item_status));
		form->n_items = form->item_status ? count : 0;
		for (i = 0; i < form->n_items && f->items && f->items[0].key; i++) {
			struct jp_verdict v = JP_VERDICT_INIT;
			char *k0 = jp_form_item_key(f->items[0].key, i);

			if (k0 && jp_flow_validate(&v, form->flow, k0, NULL, NULL) == 0)
				form->item_status[i] = v.status;
			jp_verdict_dispose(&v);
			free(k0);
		}
		if (form->list_cursor >= count)
			continue;
		for (it = f->items; it && it->key; it++) {
			key = jp_form_item_key(it->key, form->list_cursor);
			if (!key) {
				rc = JP_ENOMEM;
				break;
			}
			if (!jp_flow_field_active(form->flow, key)) {
				free(key);
				continue;
			}
			rc = push_row(form, &rows, &n, &cap, it, key, 1, old, n_old);
			if (rc < 0)
				break;
		}
	}
	rows_free(old, n_old);
	form->rows = rows;
	form->n = n;

	/* Keep the focus on the same field, else somewhere close. */
	if (focus_key) {
		for (i = 0; i < n; i++)
			if (strcmp(rows[i].key, focus_key) == 0)
				break;
		if (i < n)
			form->focus = i;
		free(focus_key);
	}
	if (form->focus >= n)
		form->focus = n ? n - 1 : 0;
	while (form->focus < n && !focusable(&rows[form->focus]) && form->focus > 0)
		form->focus--;
	return rc;
}

int jp_form_init(struct jp_form *form, struct jp_flow *flow, enum jp_step step,
		 const struct jp_ui *ui)
{
	memset(form, 0, sizeof(*form));
	form->flow = flow;
	form->ui = ui;
	form->step = step;
	return jp_form_build(form);
}

void jp_form_dispose(struct jp_form *form)
{
	free(form->tab_done);
	form->tab_done = NULL;
	rows_free(form->rows, form->n);
	jp_completion_dispose(&form->comp);
	free(form->item_status);
	free(form->note);
	free(form->refused_key);
	free(form->refused_msg);
	memset(form, 0, sizeof(*form));
}

struct jp_form_row *jp_form_focused(struct jp_form *form)
{
	return form->focus < form->n ? &form->rows[form->focus] : NULL;
}

enum jp_keyctx jp_form_keyctx(const struct jp_form *form)
{
	if (form->focus < form->n && is_text(form->rows[form->focus].field))
		return JP_KEYCTX_TEXT;
	return JP_KEYCTX_NAV;
}

/* ---- storing values ------------------------------------------------------ */

static int store(struct jp_form *form, struct jp_form_row *r, const char *value)
{
	struct jp_error err = JP_ERROR_INIT;
	struct jp_verdict v = JP_VERDICT_INIT;
	int rc;

	rc = jp_flow_set(&v, form->flow, r->key, value, &err);
	/* The stored value's verdict supersedes a check still running; the
	 * remote's "no such ref" for this very text stays (the flow's own
	 * look does not ask the remote). */
	if (rc == 0 && r->remote_miss && !r->check && value &&
	    strcmp(value, jp_le_text(&r->le)) == 0 && v.status != JP_CHECK_FAIL) {
		jp_verdict_dispose(&v);
		jp_error_dispose(&err);
		form->changed = true;
		return rc;
	}
	jp_flow_check_free(r->check);
	r->check = NULL;
	r->remote_miss = false;
	jp_verdict_dispose(&r->verdict);
	if (rc < 0 && !v.message) {
		v.status = JP_CHECK_FAIL;
		v.message = strdup(jp_error_message(&err));
	}
	r->verdict = v;
	jp_error_dispose(&err);
	if (rc == 0)
		form->changed = true;
	return rc;
}

static int commit_row(struct jp_form *form, struct jp_form_row *r)
{
	const char *text;
	char *cur;
	int rc;

	if (!is_text(r->field) || !r->edited)
		return 0;
	text = jp_le_text(&r->le);
	cur = jp_form_value(form, r->key);
	if (cur && strcmp(cur, text) == 0 && !r->rejected) {
		free(cur);
		r->edited = false;
		return 0;
	}
	free(cur);
	/* Emptying a required field gives it back its default. */
	if (!text[0] && !(r->field->flags & JP_FIELD_OPTIONAL))
		rc = store(form, r, NULL);
	else
		rc = store(form, r, text);
	if (rc == JP_EUSAGE) {
		r->rejected = true;
		return rc;
	}
	r->edited = false;
	r->rejected = false;
	r->check_pending = false;
	return rc < 0 ? rc : 0;
}

int jp_form_commit(struct jp_form *form)
{
	size_t i;
	int rc, first = 0;
	bool any = false;

	for (i = 0; i < form->n; i++) {
		if (!form->rows[i].edited)
			continue;
		any = true;
		rc = commit_row(form, &form->rows[i]);
		if (rc < 0 && first == 0) {
			first = rc;
			form->focus = i;
		}
	}
	if (any)
		jp_form_build(form);
	return first;
}

bool jp_form_focus_key(struct jp_form *form, const char *key)
{
	const char *br = strchr(key, '[');
	size_t i;

	if (br) {
		form->list_cursor = strtoul(br + 1, NULL, 10);
		jp_form_build(form);
	}
	for (i = 0; i < form->n; i++)
		if (strcmp(form->rows[i].key, key) == 0) {
			form->focus = i;
			return true;
		}
	/* A list's key, or a check naming the list: focus the list row. */
	if (br) {
		for (i = 0; i < form->n; i++)
			if (form->rows[i].field->kind == JP_FIELD_LIST &&
			    strncmp(form->rows[i].key, key, (size_t)(br - key)) == 0) {
				form->focus = i;
				return true;
			}
	}
	return false;
}

/* Enter refused: what failed (the row's key and verdict, else key and
 * msg as the step's verdict gave them), for the wizard to say. */
static void refused(struct jp_form *form, const struct jp_form_row *r, const char *key,
		    const char *msg)
{
	form->accept_tried = true;
	if (r) {
		key = r->key;
		if (r->verdict.status == JP_CHECK_FAIL && r->verdict.message)
			msg = r->verdict.message;
	}
	form->refused_key = key ? strdup(key) : NULL;
	form->refused_msg = msg ? strdup(msg) : NULL;
}

int jp_form_accept(struct jp_form *form)
{
	struct jp_error err = JP_ERROR_INIT;
	struct jp_verdict v = JP_VERDICT_INIT;
	char *bad = NULL;
	size_t i;
	int rc;

	free(form->refused_key);
	free(form->refused_msg);
	form->refused_key = form->refused_msg = NULL;
	rc = jp_form_commit(form);
	if (rc < 0) {
		refused(form, jp_form_focused(form), NULL, NULL);
		return JP_ECHECK;
	}
	for (i = 0; i < form->n; i++) {
		const struct jp_form_row *r = &form->rows[i];

		/* refused as typed, or failed by what only the off-thread
		 * check learns (a ref the remote does not have) */
		if (r->rejected || (!r->check && r->remote_miss &&
				    r->verdict.status == JP_CHECK_FAIL &&
				    jp_flow_field_active(form->flow, r->key))) {
			form->focus = i;
			refused(form, r, NULL, NULL);
			return JP_ECHECK;
		}
	}
	rc = jp_flow_step_verdict(&v, &bad, form->flow, form->step, &err);
	if (rc == 0 && v.status == JP_CHECK_FAIL) {
		bool has_row = bad && jp_form_focus_key(form, bad);

		refused(form, has_row ? jp_form_focused(form) : NULL, bad, v.message);
		rc = JP_ECHECK;
	} else if (rc < 0) {
		refused(form, NULL, NULL, jp_error_message(&err));
		rc = JP_ECHECK;
	}
	free(bad);
	jp_verdict_dispose(&v);
	jp_error_dispose(&err);
	return rc;
}

/* ---- keys ------------------------------------------------------------------ */

static bool move_focus(struct jp_form *form, int dir)
{
	size_t i = form->focus;

	if (form->n == 0)
		return false;
	for (;;) {
		if (dir > 0) {
			if (i + 1 >= form->n)
				return false;
			i++;
		} else {
			if (i == 0)
				return false;
			i--;
		}
		if (focusable(&form->rows[i]))
			break;
	}
	form->focus = i;
	return true;
}

static int leave_field(struct jp_form *form, int dir, bool wrap)
{
	struct jp_form_row *r = jp_form_focused(form);
	char *key = r ? strdup(r->key) : NULL;
	size_t i;

	if (r && r->edited && commit_row(form, r) < 0) {
		free(key);
		return JP_EV_HANDLED | JP_EV_REDRAW; /* stay: the verdict says why */
	}
	/* The rows may change (a choice shows other fields): rebuild first. */
	jp_form_build(form);
	if (key) {
		for (i = 0; i < form->n; i++)
			if (strcmp(form->rows[i].key, key) == 0) {
				form->focus = i;
				break;
			}
		free(key);
	}
	if (!move_focus(form, dir) && wrap && form->n > 0) { /* no rows after a failed build */
		form->focus = dir > 0 ? 0 : form->n - 1;
		if (!focusable(&form->rows[form->focus]))
			move_focus(form, dir > 0 ? 1 : -1);
	}
	return JP_EV_HANDLED | JP_EV_REDRAW;
}

static bool is_edit(enum jp_act act)
{
	switch (act) {
	case JP_ACT_INSERT:
	case JP_ACT_BACKSPACE:
	case JP_ACT_DELETE_CHAR:
	case JP_ACT_KILL_START:
	case JP_ACT_KILL_END:
	case JP_ACT_KILL_WORD:
	case JP_ACT_YANK:
		return true;
	default:
		return false;
	}
}

static void set_text(struct jp_form_row *r, const char *text)
{
	jp_le_set(&r->le, text);
	r->edited = true;
	r->check_pending = true;
}

/* Tab in a path field: complete; returns IGNORED when there was nothing to
 * complete, so Tab moves on. */
/* Where F2's browser starts: the field's path (the browser goes up to the
 * nearest folder that exists), else the first shared storage root. */
static const char *browse_start(const struct jp_form *form, const struct jp_form_row *r)
{
	const struct jp_profile *p = jp_flow_profile(form->flow);
	const char *t = jp_le_text(&r->le);

	if (t[0] == '/')
		return t;
	if (p && p->shared_roots.n)
		return p->shared_roots.v[0];
	return "/";
}

static int complete(struct jp_form *form, struct jp_form_row *r)
{
	unsigned flags = strncmp(r->key, "review.", 7) == 0 ? 0 : JP_COMPLETE_DIRS;
	bool armed = form->tab_armed;

	form->tab_armed = false;
	form->comp_shown = false;
	jp_completion_dispose(&form->comp);
	/* Tab completed this very text already: the next one moves on
	 * (never down into the only subfolder there is). */
	if (form->tab_done && strcmp(form->tab_done, jp_le_text(&r->le)) == 0) {
		free(form->tab_done);
		form->tab_done = NULL;
		return JP_EV_IGNORED;
	}
	free(form->tab_done);
	form->tab_done = NULL;
	/* Paths are absolute: nothing to complete in an empty or relative one. */
	if (r->le.buf[0] != '/' && r->le.buf[0] != '~')
		return JP_EV_IGNORED;
	if (jp_complete_path(&form->comp, jp_le_text(&r->le), flags, 200) < 0)
		return JP_EV_IGNORED;
	if (form->comp.changed && form->comp.unique &&
	    strlen(form->comp.text) == r->le.len + 1 &&
	    strncmp(form->comp.text, r->le.buf, r->le.len) == 0) {
		/* The field already names the one directory there is: all Tab
		 * would add is a '/', so it moves on instead (type '/' to go
		 * into it). */
		return JP_EV_IGNORED;
	}
	if (form->comp.changed) {
		set_text(r, form->comp.text);
		/* An ambiguous completion arms the listing Tab. */
		form->tab_armed = form->comp.n > 1;
		if (form->comp.n <= 1)
			form->tab_done = strdup(jp_le_text(&r->le));
		return JP_EV_HANDLED | JP_EV_REDRAW;
	}
	if (form->comp.n > 1) {
		if (armed)
			form->comp_shown = true;
		else
			jp_term_beep();
		form->tab_armed = true;
		return JP_EV_HANDLED | JP_EV_REDRAW;
	}
	return JP_EV_IGNORED;
}

/* `list` points into form->rows, which jp_form_commit() rebuilds: what is
 * needed of it is copied first, and it is not read after. */
static int list_op(struct jp_form *form, struct jp_form_row *list, enum jp_listbox_op op)
{
	struct jp_error err = JP_ERROR_INIT;
	size_t idx = 0, i, cursor = list->lb.cursor;
	char *key = op == JP_LISTBOX_NONE ? NULL : strdup(list->key);

	if (op != JP_LISTBOX_NONE && !key)
		return JP_EV_HANDLED | JP_EV_REDRAW;
	switch (op) {
	case JP_LISTBOX_MOVED:
		jp_form_commit(form);
		form->list_cursor = cursor;
		jp_form_build(form);
		break;
	case JP_LISTBOX_ADD:
		jp_form_commit(form);
		if (jp_flow_list_add(&idx, form->flow, key, &err) == 0) {
			form->changed = true;
			form->list_cursor = idx;
			jp_form_build(form);
			/* Straight to the new item's first field. */
			for (i = 0; i < form->n; i++)
				if (form->rows[i].depth == 1) {
					form->focus = i;
					break;
				}
		}
		break;
	case JP_LISTBOX_DELETE:
		jp_form_commit(form);
		if (jp_flow_list_remove(form->flow, key, cursor, &err) == 0) {
			form->changed = true;
			form->list_cursor = cursor;
			jp_form_build(form);
			for (i = 0; i < form->n; i++)
				if (form->rows[i].field->kind == JP_FIELD_LIST)
					form->focus = i;
		}
		break;
	case JP_LISTBOX_NONE:
		break;
	}
	free(key);
	jp_error_dispose(&err);
	return JP_EV_HANDLED | JP_EV_REDRAW;
}

static struct jp_form_row *list_row(struct jp_form *form)
{
	size_t i;

	for (i = 0; i < form->n; i++)
		if (form->rows[i].field->kind == JP_FIELD_LIST)
			return &form->rows[i];
	return NULL;
}

/* Up/Down in a multi-line editor: the same column a line up or down;
 * false on its first or last line (the focus moves on instead). */
static bool line_move(struct jp_form_row *r, int dir)
{
	size_t starts[256], end;
	const char *buf = r->le.buf ? r->le.buf : "";
	int n, cl, col, to;

	n = jp_form_wrap_starts(starts, 256, buf, r->le.len, r->edit_w);
	for (cl = n - 1; cl > 0 && starts[cl] > r->le.cursor; cl--)
		;
	to = cl + dir;
	if (to < 0 || to >= n)
		return false;
	col = jp_utf8_width(buf + starts[cl], r->le.cursor - starts[cl]);
	end = to + 1 < n ? starts[to + 1] : r->le.len;
	r->le.cursor = starts[to] + jp_utf8_fit(buf + starts[to], end - starts[to], col, NULL);
	if (to + 1 < n && r->le.cursor == end)
		r->le.cursor = jp_utf8_prev(buf, end); /* stay on that line */
	return true;
}

/* A key in a text, path or integer field: completion, browsing, moving
 * between its lines, editing. */
static int text_key(struct jp_form *form, struct jp_form_row *r, enum jp_act act,
		    const struct jp_key *key)
{
	int ev;

	if (act == JP_ACT_FIELD_NEXT && r->field->kind == JP_FIELD_PATH) {
		ev = complete(form, r);
		if (ev != JP_EV_IGNORED)
			return ev;
	}
	if (act == JP_ACT_BROWSE && r->field->kind == JP_FIELD_PATH) {
		char *dir = NULL;

		if (jp_browse_dir(form->ui, browse_start(form, r), &dir) == 1 && dir)
			set_text(r, dir);
		free(dir);
		return JP_EV_HANDLED | JP_EV_REDRAW;
	}
	if ((act == JP_ACT_UP || act == JP_ACT_DOWN) && r->edit_w > 0 &&
	    line_move(r, act == JP_ACT_UP ? -1 : 1))
		return JP_EV_HANDLED | JP_EV_REDRAW;
	ev = jp_textfield_key(&r->le, act, key);
	if (ev != JP_EV_IGNORED && is_edit(act)) {
		r->edited = true;
		r->check_pending = true;
	}
	return ev;
}

/* A key for the focused row's own widget; JP_EV_IGNORED when it has no
 * use for it. */
static int field_key(struct jp_form *form, struct jp_form_row *r, enum jp_act act,
		     const struct jp_key *key)
{
	enum jp_listbox_op op;
	bool chosen;
	int ev = JP_EV_IGNORED;

	switch (r->field->kind) {
	case JP_FIELD_TEXT:
	case JP_FIELD_PATH:
	case JP_FIELD_INTEGER:
		ev = text_key(form, r, act, key);
		break;
	case JP_FIELD_CHOICE:
		if (act == JP_ACT_ACCEPT && r->radio.cursor != r->radio.selected)
			act = JP_ACT_TOGGLE; /* Enter on another choice picks it */
		ev = jp_radio_key(&r->radio, act, &chosen);
		if (chosen) {
			store(form, r, r->field->choices[r->radio.selected].value);
			jp_form_build(form);
		}
		break;
	case JP_FIELD_BOOL:
		ev = jp_checkbox_key(&r->checked, act);
		if (ev != JP_EV_IGNORED) {
			store(form, r, r->checked ? "true" : "false");
			jp_form_build(form);
		}
		break;
	case JP_FIELD_LIST:
		r->lb.cursor = form->list_cursor;
		ev = jp_listbox_key(&r->lb, act, &op);
		if (ev != JP_EV_IGNORED)
			ev = list_op(form, r, op) | ev;
		break;
	}
	return ev;
}

/* A key no field took: moving the focus. */
static int move_key(struct jp_form *form, enum jp_act act)
{
	switch (act) {
	case JP_ACT_FIELD_NEXT:
		return leave_field(form, 1, true);
	case JP_ACT_FIELD_PREV:
		return leave_field(form, -1, true);
	case JP_ACT_DOWN:
	case JP_ACT_PAGE_DOWN:
		return leave_field(form, 1, false);
	case JP_ACT_UP:
	case JP_ACT_PAGE_UP:
		return leave_field(form, -1, false);
	default:
		return JP_EV_IGNORED;
	}
}

int jp_form_key(struct jp_form *form, enum jp_act act, const struct jp_key *key)
{
	struct jp_form_row *r = jp_form_focused(form), *lr;
	enum jp_listbox_op op;
	int ev;

	if (!r)
		return JP_EV_IGNORED;
	if (act != JP_ACT_FIELD_NEXT) {
		form->tab_armed = false;
		if (form->comp_shown) {
			form->comp_shown = false;
			if (act == JP_ACT_BACK)
				return JP_EV_HANDLED | JP_EV_REDRAW;
		}
	}

	/* The list's add/delete also work from its item's fields. */
	if ((act == JP_ACT_ADD || (act == JP_ACT_DELETE && !is_text(r->field))) &&
	    (r->field->kind == JP_FIELD_LIST || r->depth == 1) && (lr = list_row(form))) {
		lr->lb.cursor = form->list_cursor;
		ev = jp_listbox_key(&lr->lb, act, &op);
		return list_op(form, lr, op) | ev;
	}

	ev = field_key(form, r, act, key);
	if (ev != JP_EV_IGNORED)
		return ev;
	return move_key(form, act);
}

int jp_form_idle(struct jp_form *form)
{
	size_t i;
	int ev = 0;

	for (i = 0; i < form->n; i++) {
		struct jp_form_row *r = &form->rows[i];

		if (r->check && poll_row(form, r, 0))
			ev |= JP_EV_REDRAW;
		if (!r->check_pending)
			continue;
		r->check_pending = false;
		validate_row(form, r, jp_le_text(&r->le));
		r->rejected = false;
		ev |= JP_EV_REDRAW;
	}
	return ev;
}
