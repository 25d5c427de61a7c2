/* A form's drawing: its rows (label, widget, verdict mark and message), the
 * list box of the step's list, the scroll marks, and the bottom area (the
 * note, the focused field's help or the completion candidates). The keys
 * and the rows' building are in form.c. */
#include "config.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobprep/i18n.h"
#include "jobprep/strv.h"
#include "tui/draw.h"
#include "tui/form.h"
#include "tui/form_internal.h"
#include "tui/utf8.h"

#define LIST_MAX_ROWS 6

struct clip;

static const char *status_glyph(enum jp_check_status st)
{
	const struct jp_glyphs *g = jp_term_glyphs();

	return st == JP_CHECK_FAIL ? g->fail : st == JP_CHECK_WARN ? g->warn : g->ok;
}

static enum jp_style status_style(enum jp_check_status st)
{
	return st == JP_CHECK_FAIL ? JP_STYLE_FAIL : st == JP_CHECK_WARN ? JP_STYLE_WARN
									 : JP_STYLE_OK;
}

/* An empty text field nobody typed in, on a step not yet refused: it shows
 * no verdict (no ✗ before anything was typed). */
static bool untouched_empty(const struct jp_form *form, const struct jp_form_row *r)
{
	const char *t;

	if (r->field->kind != JP_FIELD_TEXT && r->field->kind != JP_FIELD_PATH &&
	    r->field->kind != JP_FIELD_INTEGER)
		return false;
	t = jp_le_text(&r->le);
	return !t[0] && !r->edited && !form->accept_tried;
}

/* The launch command is edited over several lines, word-wrapped, with
 * every lint finding under it. */
#define EDIT_MAX_LINES 5
#define EDIT_MAX_WRAP 256

static bool is_multiline(const struct jp_form_row *r)
{
	return strcmp(r->key, "job.launch_command") == 0;
}

static int verdict_max(const struct jp_form_row *r)
{
	/* the launch command's findings whole: the form scrolls, F1 shows
	 * what still does not fit */
	return is_multiline(r) ? 60 : 3;
}

int jp_form_wrap_starts(size_t *starts, size_t max, const char *s, size_t len, int width)
{
	size_t n = 0, i = 0, fit, brk;

	if (width < 2)
		width = 2;
	starts[n++] = 0;
	while (i < len && n < max) {
		/* one column kept for the cursor after the last character */
		fit = jp_utf8_fit(s + i, len - i, width - 1, NULL);
		if (fit == 0)
			fit = jp_utf8_next(s, len, i) - i;
		if (i + fit >= len)
			break;
		brk = jp_utf8_line_break(s + i, len - i, fit);
		if (brk < fit && s[i + brk] == ' ')
			brk++; /* the space ends this line */
		if (brk == 0)
			brk = fit;
		i += brk;
		starts[n++] = i;
	}
	return (int)n;
}

/* Lines the editor takes for the row's text. */
static int edit_lines(const struct jp_form_row *r, int width)
{
	size_t starts[EDIT_MAX_WRAP];
	int n;

	if (!is_multiline(r))
		return 1;
	n = jp_form_wrap_starts(starts, EDIT_MAX_WRAP, r->le.buf ? r->le.buf : "", r->le.len,
				width);
	return n > EDIT_MAX_LINES ? EDIT_MAX_LINES : n;
}

/* The line of the wrapped text that holds the cursor. */
static int cursor_line(const size_t *starts, int n, size_t cursor)
{
	int k = n - 1;

	while (k > 0 && starts[k] > cursor)
		k--;
	return k;
}

/* Draw the text wrapped over `lines` lines from (y, vx); returns the
 * cursor's column and sets *cy. */
static int draw_multiline(struct jp_form_row *r, const struct clip *c, int y, int x, int width,
			  bool focused, int *cy);

static void launch_lines(struct jp_strv *out, struct jp_strv *firsts, const struct jp_form *form,
			 const struct jp_form_row *r, int width);

/* Lines the verdict message takes under a value. */
static int verdict_lines(const struct jp_form *form, const struct jp_form_row *r, int width)
{
	if (!r->verdict.message || !r->verdict.message[0] || untouched_empty(form, r))
		return 0;
	width -= 2;
	if (width < 8)
		return 0;
	{
		int n = jp_draw_wrap(0, 0, width, 0, JP_STYLE_NORMAL, r->verdict.message);

		if (is_multiline(r)) { /* every finding, wrapped while they fit */
			struct jp_strv lines = JP_STRV_INIT;

			launch_lines(&lines, NULL, form, r, width);
			n = (int)lines.n;
			jp_strv_dispose(&lines);
		}
		return n > verdict_max(r) ? verdict_max(r) : n;
	}
}

/* Where line k of text wrapped by jp_wrap_lines starts in text: its lines
 * are text's own bytes, in order, with the spaces at their breaks left out. */
static const char *wrapped_line_start(const char *text, const struct jp_strv *lines, size_t k)
{
	const char *p = text;
	size_t j;

	for (j = 0; j < k && p; j++) {
		p = strstr(p, lines->v[j]);
		if (p)
			p += strlen(lines->v[j]);
	}
	return p ? strstr(p, lines->v[k]) : NULL;
}

/* The launch command's findings (one a line of text), each wrapped whole
 * to width: *out the lines, *firsts (when asked) "1" for a line that
 * starts a finding, "" for one that goes on with it. */
static void finding_lines(struct jp_strv *out, struct jp_strv *firsts, const char *text,
			  int width)
{
	const char *p = text, *nl;
	char *one;

	while (p) {
		struct jp_strv wrapped = JP_STRV_INIT;

		nl = strchr(p, '\n');
		one = nl ? strndup(p, (size_t)(nl - p)) : strdup(p);
		if (!one)
			return;
		if (width > 0)
			jp_wrap_lines(&wrapped, one, width);
		else if (jp_strv_push(&wrapped, one) < 0)
			wrapped.n = 0;
		free(one);
		for (size_t k = 0; k < wrapped.n; k++)
			if (jp_strv_push(out, wrapped.v[k]) < 0 ||
			    (firsts && jp_strv_push(firsts, k == 0 ? "1" : "") < 0))
				break;
		jp_strv_dispose(&wrapped);
		p = nl ? nl + 1 : NULL;
	}
}

/* The launch command's findings as drawn: each wrapped whole while they
 * all fit beside the editor in the rows' area (width 0: one line each,
 * cut; F1 shows them whole). */
static void launch_lines(struct jp_strv *out, struct jp_strv *firsts, const struct jp_form *form,
			 const struct jp_form_row *r, int width)
{
	int room = form->rows_room - edit_lines(r, width + 2 - 3) - 1;

	finding_lines(out, firsts, r->verdict.message, width);
	if (form->rows_room <= 0 || (int)out->n <= room)
		return;
	jp_strv_dispose(out);
	if (firsts)
		jp_strv_dispose(firsts);
	finding_lines(out, firsts, r->verdict.message, 0);
}

static int row_height(const struct jp_form *form, const struct jp_form_row *r, int valw)
{
	switch (r->field->kind) {
	case JP_FIELD_CHOICE:
		return (int)r->radio.n + verdict_lines(form, r, valw);
	case JP_FIELD_LIST: {
		int rows = (int)r->lb.n + 1;

		return 1 + (rows > LIST_MAX_ROWS ? LIST_MAX_ROWS : rows);
	}
	default:
		return edit_lines(r, valw - 3) + verdict_lines(form, r, valw);
	}
}

struct clip {
	int top, bottom; /* screen lines inside the form's rows area */
};

static bool in_clip(const struct clip *c, int y)
{
	return y >= c->top && y < c->bottom;
}

static void draw_default_item(struct jp_form *form, const char *list_key, size_t i,
			      int y, int x, int width, bool selected)
{
	const struct jp_field *f = jp_flow_field(list_key);
	enum jp_style st = selected ? JP_STYLE_SELECTED : JP_STYLE_NORMAL;
	char line[512], *a = NULL, *b = NULL, *ka, *kb;

	if (!f || !f->items || !f->items[0].key)
		return;
	ka = jp_form_item_key(f->items[0].key, i);
	kb = f->items[1].key ? jp_form_item_key(f->items[1].key, i) : NULL;
	if (ka)
		a = jp_form_shown_value(form, ka);
	if (kb)
		b = jp_form_shown_value(form, kb);
	snprintf(line, sizeof(line), "%2zu  %s%s%s", i + 1, a ? a : "", b ? "=" : "", b ? b : "");
	jp_draw_text(y, x, width, st, line);
	free(a);
	free(b);
	free(ka);
	free(kb);
}

static void draw_list_item(void *arg, size_t i, int y, int x, int width, bool selected)
{
	struct jp_form *form = arg;
	const char *key = NULL;
	size_t k;

	for (k = 0; k < form->n; k++)
		if (form->rows[k].field->kind == JP_FIELD_LIST)
			key = form->rows[k].key;
	if (!key)
		return;
	if (form->draw_item)
		form->draw_item(form->item_arg, key, i, y, x, width, selected);
	else
		draw_default_item(form, key, i, y, x, width, selected);
}

/* A text, path or integer field's value: its editor (one line scrolling
 * sideways, or the launch command's lines), the verdict mark, the cursor. */
static void draw_text_value(struct jp_form *form, struct jp_form_row *r, bool focused,
			    const struct clip *c, int y, int vx, int vw)
{
	int cy = y, cx;

	if (!in_clip(c, y))
		return;
	if (r->field->flags & JP_FIELD_DERIVED) {
		const char *t = jp_le_text(&r->le);

		jp_draw_text(y, vx, vw, JP_STYLE_DIM, t[0] ? t : _("(recorded after the clone)"));
		return;
	}
	if (is_multiline(r))
		cx = draw_multiline(r, c, y, vx, vw - 3, focused, &cy);
	else
		cx = jp_textfield_draw(&r->le, y, vx, vw - 3, focused, false);
	if ((!r->check_pending || r->verdict.status != JP_CHECK_PASS) && !r->check &&
	    !untouched_empty(form, r))
		jp_draw_text(y, vx + vw - 2, 2, status_style(r->verdict.status),
			     status_glyph(r->verdict.status));
	if (focused && in_clip(c, cy)) {
		form->cursor_on = true;
		form->cursor_y = cy;
		form->cursor_x = cx;
	}
}

static void draw_row(struct jp_form *form, struct jp_form_row *r, bool focused,
		     const struct clip *c, int y, int x, int labw, int w)
{
	const struct jp_field *f = r->field;
	int vx = x + labw + 2, vw = w - labw - 2, line = 0, i;
	enum jp_style lst = focused ? JP_STYLE_FOCUS : JP_STYLE_LABEL;
	char buf[256];

	if (in_clip(c, y)) {
		if (focused)
			jp_draw_text(y, x, 1, JP_STYLE_FOCUS, jp_term_glyphs()->unicode ? "\xe2\x96\xb8" : ">");
		jp_draw_text(y, x + 2 + 2 * r->depth, labw - 2 - 2 * r->depth, lst, _(f->label));
	}

	switch (f->kind) {
	case JP_FIELD_TEXT:
	case JP_FIELD_PATH:
	case JP_FIELD_INTEGER:
		draw_text_value(form, r, focused, c, y, vx, vw);
		line = edit_lines(r, vw - 3);
		break;
	case JP_FIELD_CHOICE:
		for (i = 0; i < (int)r->radio.n; i++) {
			if (!in_clip(c, y + i))
				continue;
			{
				struct jp_radio one = r->radio;
				const char *lab = r->labels[i];

				/* Draw choice i alone so clipping works line by line. */
				one.labels = &lab;
				one.n = 1;
				one.cursor = r->radio.cursor == (size_t)i ? 0 : 1;
				one.selected = r->radio.selected == (size_t)i ? 0 : 1;
				jp_radio_draw(&one, y + i, vx, vw, focused);
			}
		}
		line = (int)r->radio.n;
		break;
	case JP_FIELD_BOOL:
		if (in_clip(c, y))
			jp_checkbox_draw(y, vx, vw, NULL, r->checked, focused);
		line = 1;
		break;
	case JP_FIELD_LIST: {
		int lh = row_height(form, r, vw) - 1, top = y + 1, skip = 0;

		if (in_clip(c, y)) {
			snprintf(buf, sizeof(buf), "(%zu)", r->lb.n);
			jp_draw_text(y, vx, vw, JP_STYLE_DIM, buf);
		}
		/* Clip the list box to the visible lines. */
		if (top < c->top) {
			skip = c->top - top;
			top = c->top;
			lh -= skip;
		}
		if (top + lh > c->bottom)
			lh = c->bottom - top;
		r->lb.cursor = form->list_cursor;
		if (lh > 0)
			jp_listbox_draw(&r->lb, top, x + 2, w - 2, lh, focused, draw_list_item,
					form);
		return;
	}
	}

	/* The verdict under the value, in its colour. */
	if (r->verdict.message && r->verdict.message[0] && !(f->flags & JP_FIELD_DERIVED) &&
	    !untouched_empty(form, r)) {
		struct jp_strv lines = JP_STRV_INIT, firsts = JP_STRV_INIT;
		size_t k;

		if (is_multiline(r))
			launch_lines(&lines, &firsts, form, r, vw - 2);
		else
			jp_wrap_lines(&lines, r->verdict.message, vw - 2);
		for (k = 0; k < lines.n && k < (size_t)verdict_max(r); k++) {
			int ly = y + line + (int)k;
			bool first = is_multiline(r) ? k < firsts.n && firsts.v[k][0] : k == 0;

			if (!in_clip(c, ly))
				continue;
			if (first && !r->check)
				jp_draw_text(ly, vx, 2, status_style(r->verdict.status),
					     status_glyph(r->verdict.status));
			if (k + 1 == (size_t)verdict_max(r) && lines.n > k + 1) {
				/* More lines than room: the last says so. A wrapped
				 * line goes on with the message itself (a path
				 * broken after a CJK character gets no space); the
				 * launch command's findings are all in F1's help. */
				char *more = NULL;
				const char *rest = is_multiline(r)
							   ? _("… F1 shows every finding whole")
							   : wrapped_line_start(r->verdict.message,
										&lines, k);

				if (!rest &&
				    asprintf(&more, "%s %s", lines.v[k], lines.v[k + 1]) < 0)
					more = NULL;
				jp_draw_text_fit(ly, vx + 2, vw - 2,
						 r->verdict.status == JP_CHECK_PASS
							 ? JP_STYLE_DIM
							 : status_style(r->verdict.status),
						 rest ? rest : more ? more : lines.v[k]);
				free(more);
				continue;
			}
			jp_draw_text_fit(ly, vx + 2, vw - 2,
					 r->verdict.status == JP_CHECK_PASS
						 ? JP_STYLE_DIM
						 : status_style(r->verdict.status),
					 lines.v[k]);
		}
		jp_strv_dispose(&lines);
		jp_strv_dispose(&firsts);
	}
}

static int draw_multiline(struct jp_form_row *r, const struct clip *c, int y, int x, int width,
			  bool focused, int *cy)
{
	const struct jp_glyphs *g = jp_term_glyphs();
	enum jp_style st = focused ? JP_STYLE_INPUT_FOCUS : JP_STYLE_INPUT;
	const char *buf = r->le.buf ? r->le.buf : "";
	size_t starts[EDIT_MAX_WRAP], end;
	int n, cl, top, k, shown, col;

	r->edit_w = width;
	n = jp_form_wrap_starts(starts, EDIT_MAX_WRAP, buf, r->le.len, width);
	cl = cursor_line(starts, n, r->le.cursor);
	shown = n > EDIT_MAX_LINES ? EDIT_MAX_LINES : n;
	top = cl >= shown ? cl - shown + 1 : 0;
	for (k = 0; k < shown; k++) {
		int ly = y + k, i = top + k;

		if (!in_clip(c, ly))
			continue;
		end = i + 1 < n ? starts[i + 1] : r->le.len;
		jp_draw_fill(ly, x, width, st);
		jp_draw_textn(ly, x, width - 1, st, buf + starts[i], end - starts[i]);
		if (k == 0 && top > 0)
			jp_draw_text(ly, x + width - 1, 1, JP_STYLE_DIM, g->more_left);
		else if (k == shown - 1 && top + shown < n)
			jp_draw_text(ly, x + width - 1, 1, JP_STYLE_DIM, g->more_right);
	}
	col = jp_utf8_width(buf + starts[cl], r->le.cursor - starts[cl]);
	*cy = y + cl - top;
	return x + col;
}

static void draw_bottom(struct jp_form *form, int y, int x, int h, int w)
{
	struct jp_form_row *r = jp_form_focused(form);
	int used = 0;

	if (h <= 0)
		return;
	if (form->comp_shown && form->comp.n_shown) {
		char *all;
		size_t len = 0, i;

		for (i = 0; i < form->comp.n_shown; i++)
			len += strlen(form->comp.matches[i]) + 2;
		all = malloc(len + 64);
		if (all) {
			all[0] = '\0';
			for (i = 0; i < form->comp.n_shown; i++) {
				strcat(all, form->comp.matches[i]);
				strcat(all, "  ");
			}
			if (form->comp.n > form->comp.n_shown)
				sprintf(all + strlen(all), "(+%zu)", form->comp.n - form->comp.n_shown);
			jp_draw_wrap(y, x, w, h, JP_STYLE_NORMAL, all);
			free(all);
		}
		return;
	}
	if (form->note && form->note[0]) {
		jp_draw_text(y, x, 2, status_style(form->note_status), status_glyph(form->note_status));
		used = jp_draw_wrap(y, x + 2, w - 2, h > 2 ? 2 : h,
				    form->note_status == JP_CHECK_PASS ? JP_STYLE_NORMAL
								       : status_style(form->note_status),
				    form->note);
	}
	if (r && used < h && !form->inactive) {
		const char *help = NULL;

		if (r->field->kind == JP_FIELD_CHOICE && r->radio.cursor < r->radio.n &&
		    r->field->choices[r->radio.cursor].help)
			help = _(r->field->choices[r->radio.cursor].help);
		else if (r->field->help)
			help = _(r->field->help);
		if (help)
			jp_draw_wrap(y + used, x, w, h - used, JP_STYLE_DIM, help);
	}
}

static int label_width(const struct jp_form *form, int w)
{
	int labw = 0, lw;
	size_t i;

	for (i = 0; i < form->n; i++) {
		lw = jp_utf8_swidth(_(form->rows[i].field->label)) + 2 + 2 * form->rows[i].depth;
		if (lw > labw)
			labw = lw;
	}
	if (labw > 24)
		labw = 24;
	if (labw > w / 3)
		labw = w / 3;
	return labw;
}

int jp_form_rows_height(const struct jp_form *form, int w)
{
	int vw = w - label_width(form, w) - 2, total = 0;
	size_t i;

	for (i = 0; i < form->n; i++)
		total += row_height(form, &form->rows[i], vw);
	return total;
}

void jp_form_draw(struct jp_form *form, int y, int x, int h, int w)
{
	int labw, total = 0, fy = 0, fh = 0, bottom_h, rows_h, vw;
	struct clip c;
	size_t i;

	form->cursor_on = false;
	if (w < 10 || h < 3)
		return;
	labw = label_width(form, w);
	vw = w - labw - 2;

	bottom_h = h >= 12 ? 3 : h >= 8 ? 2 : 1;
	rows_h = h - bottom_h - 1;
	if (rows_h < 1)
		rows_h = 1;
	form->rows_room = rows_h; /* the launch findings' lines follow it */

	/* Lay out, then scroll so the focused row is in view. */
	for (i = 0; i < form->n; i++) {
		form->rows[i].y = total;
		form->rows[i].h = row_height(form, &form->rows[i], vw);
		total += form->rows[i].h;
		if (i == form->focus) {
			fy = form->rows[i].y;
			fh = form->rows[i].h;
		}
	}
	if (form->scroll > fy)
		form->scroll = fy;
	if (fy + fh > form->scroll + rows_h) /* a row taller than the view: its top */
		form->scroll = fh < rows_h ? fy + fh - rows_h : fy;
	if (total <= rows_h || form->scroll < 0)
		form->scroll = 0;

	c.top = y;
	c.bottom = y + rows_h;
	for (i = 0; i < form->n; i++) {
		struct jp_form_row *r = &form->rows[i];
		int ry = y + r->y - form->scroll;

		if (ry + r->h <= c.top || ry >= c.bottom)
			continue;
		draw_row(form, r, i == form->focus && !form->inactive, &c, ry, x, labw, w);
	}
	if (form->scroll > 0)
		jp_draw_text(y, x + w - 1, 1, JP_STYLE_DIM, "^");
	if (total - form->scroll > rows_h)
		jp_draw_text(y + rows_h - 1, x + w - 1, 1, JP_STYLE_DIM, "v");
	draw_bottom(form, y + h - bottom_h, x, bottom_h, w);
}

void jp_form_place_cursor(const struct jp_form *form)
{
	if (form->cursor_on) {
		move(form->cursor_y, form->cursor_x);
		jp_term_cursor(true);
	} else {
		jp_term_cursor(false);
	}
}
