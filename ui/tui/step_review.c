/* Step 6, Review: wait for the background work, run every check, show them
 * grouped by step (Enter on one jumps to its field), then write the
 * manifest and env.sh and show the launch command to paste. */
#include "config.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobprep/git.h"
#include "jobprep/i18n.h"
#include "tui/draft.h"
#include "tui/draw.h"
#include "tui/utf8.h"
#include "tui/wizard.h"

enum phase {
	R_WORK,    /* background work or the checks are running */
	R_READY,   /* the checks are shown; Enter writes */
	R_WRITTEN, /* done: paths and the launch command */
};

/* A row of the check list, in the order shown: failures, the run's
 * folders still to be made, warnings, passes; by step within each. */
enum row_kind {
	ROW_FAIL,
	ROW_CREATE, /* a run folder that does not exist yet: writing makes it */
	ROW_WARN,
	ROW_PASS,
	ROW_KINDS
};

struct row {
	enum row_kind kind;
	size_t check;       /* index in the manifest's checks; SIZE_MAX: a refusal */
	enum jp_step group; /* the step it is about */
	char *field;        /* the field that fixes it, or NULL */
	char *text;         /* a refusal's message (owned); NULL: the check's */
};

struct review {
	enum phase phase;
	bool kick;           /* look at what is pending again */
	bool checks_started;
	bool outputs_asked;  /* the person was asked to create the run's directories */
	int zone;            /* 0: the form (paths), 1: the check list */
	size_t sel;          /* position in rows[]; n = the write button */
	size_t top;          /* first row in view */
	size_t list_h;       /* rows in view, as last drawn */
	struct row *rows;
	size_t n;
	size_t counts[ROW_KINDS];
	char *copy_path;     /* written: the manifest's copy outside the run's folder */
};

static struct review *R(struct jp_wizard *w)
{
	if (!w->review)
		w->review = calloc(1, sizeof(struct review));
	return w->review;
}

static void clear_checks(struct review *r)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		free(r->rows[i].field);
		free(r->rows[i].text);
	}
	free(r->rows);
	r->rows = NULL;
	r->n = 0;
	r->top = 0;
	memset(r->counts, 0, sizeof(r->counts));
}

static bool outputs_pending(struct jp_wizard *w);

/* A run folder's "does not exist" while the person said "Not now" to
 * making them: not a failure, a folder still to create. */
static bool is_missing_run_dir(const struct jp_check *c)
{
	size_t n;

	if (c->status != JP_CHECK_FAIL || !c->id || strncmp(c->id, "outputs.", 8) != 0)
		return false;
	n = strlen(c->id);
	return n > 7 && strcmp(c->id + n - 7, ".exists") == 0;
}

static enum row_kind kind_of(const struct jp_check *c, bool dirs_to_make)
{
	if (dirs_to_make && is_missing_run_dir(c))
		return ROW_CREATE;
	return c->status == JP_CHECK_FAIL ? ROW_FAIL : c->status == JP_CHECK_WARN ? ROW_WARN
										  : ROW_PASS;
}

static int row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->kind != y->kind)
		return (int)x->kind - (int)y->kind;
	if (x->group != y->group)
		return (int)x->group - (int)y->group;
	return x->check < y->check ? -1 : x->check > y->check;
}

/* Start on the first row when something failed or is to make, else on
 * the button. */
static void select_first(struct review *r)
{
	r->sel = r->n && r->rows && r->rows[0].kind <= ROW_CREATE ? 0 : r->n;
	r->top = 0;
	r->zone = 1;
}

static void load_checks(struct jp_wizard *w)
{
	struct review *r = R(w);
	const struct jp_manifest *m = jp_flow_manifest(w->flow);
	bool dirs = r->outputs_asked && outputs_pending(w) &&
		    !(w->failed_kinds & (1u << JP_ACTION_OUTPUTS));
	size_t i;

	clear_checks(r);
	if (!m || !m->n_checks || !(r->rows = calloc(m->n_checks, sizeof(*r->rows)))) {
		select_first(r);
		return;
	}
	r->n = m->n_checks;
	for (i = 0; i < r->n; i++) {
		struct row *row = &r->rows[i];

		row->check = i;
		/* out of memory: a row without its field (Enter does not jump) */
		if (jp_flow_check_field(&row->field, &row->group, m->checks[i].id) < 0)
			row->group = JP_STEP_REVIEW;
		row->kind = kind_of(&m->checks[i], dirs);
		if (row->kind == ROW_CREATE &&
		    asprintf(&row->text,
			     _("%s is missing: Enter creates it now (mkdir -p); writing the "
			       "manifest creates it too"),
			     m->checks[i].path ? m->checks[i].path : m->checks[i].id) < 0)
			row->text = NULL;
		r->counts[row->kind]++;
	}
	if (r->n > 1)
		qsort(r->rows, r->n, sizeof(*r->rows), row_cmp);
	select_first(r);
}

/* Writing was refused: each reason is a failed row of its own, first in
 * the list, about the manifest's path (the counts can never say "0
 * failed" beside a refusal). */
static void add_refusal(struct review *r, const struct jp_error *err)
{
	size_t k, n = err->n ? err->n : 1;
	struct row *rows = realloc(r->rows, (r->n + n) * sizeof(*rows));

	if (!rows)
		return;
	r->rows = rows;
	memmove(rows + n, rows, r->n * sizeof(*rows));
	for (k = 0; k < n; k++) {
		rows[k] = (struct row){ .kind = ROW_FAIL, .check = SIZE_MAX,
					.group = JP_STEP_REVIEW };
		rows[k].text = strdup(err->n ? err->msgs[k] : jp_error_message(err));
		rows[k].field = strdup("review.manifest_path");
	}
	r->n += n;
	r->counts[ROW_FAIL] += n;
	select_first(r);
}

/* The run's directories are made only after asking (mkdir -p). Returns
 * true when the work was started. */
static bool ask_outputs(struct jp_wizard *w)
{
	struct review *r = R(w);
	char *out = NULL, *ck = NULL, *lg = NULL, text[2048];
	int rc;

	r->outputs_asked = true;
	jp_flow_get(&out, w->flow, "outputs.output_dir", NULL);
	jp_flow_get(&ck, w->flow, "outputs.checkpoint_dir", NULL);
	jp_flow_get(&lg, w->flow, "outputs.log_dir", NULL);
	snprintf(text, sizeof(text), _("Create the run's directories now (mkdir -p)?\n%s\n%s\n%s"),
		 out ? out : "", ck ? ck : "", lg ? lg : "");
	free(out);
	free(ck);
	free(lg);
	w->modal_depth++;
	rc = jp_confirm(&w->ui, _("Create directories"), text, _("Create"), _("Not now"), true);
	w->modal_depth--;
	w->redraw = true;
	if (rc != 1)
		return false;
	return jp_wizard_start(w, JP_ACTION_OUTPUTS, 0, false) == 0;
}

static void advance(struct jp_wizard *w)
{
	struct review *r = R(w);
	struct jp_error err = JP_ERROR_INIT;
	enum jp_action *pk = NULL;
	size_t *pi = NULL, n = 0, i;
	bool started = false, check_pending = false, outputs_pending = false;

	if (r->phase == R_WRITTEN)
		return;
	if (jp_wizard_busy(w)) {
		r->phase = R_WORK;
		return;
	}
	if (!r->kick)
		return;
	r->kick = false;
	if (r->checks_started) {
		/* The checks finished: show them. */
		r->checks_started = false;
		load_checks(w);
		r->phase = R_READY;
		w->redraw = true;
		return;
	}
	if (jp_flow_pending(&pk, &pi, &n, w->flow, &err) < 0) {
		jp_wizard_status(w, JP_CHECK_FAIL, "%s", jp_error_message(&err));
		jp_error_dispose(&err);
		r->phase = R_READY;
		return;
	}
	/* What the earlier steps started and what is stale: clone, scans. */
	for (i = 0; i < n; i++) {
		if (pk[i] == JP_ACTION_CHECK) {
			check_pending = true;
			continue;
		}
		if (pk[i] == JP_ACTION_OUTPUTS)
			outputs_pending = !(w->failed_kinds & (1u << pk[i]));
		if (pk[i] == JP_ACTION_OUTPUTS || (w->failed_kinds & (1u << pk[i])))
			continue;
		if (jp_wizard_start(w, pk[i], pi[i], false) == 0)
			started = true;
	}
	free(pk);
	free(pi);
	jp_error_dispose(&err);
	if (started) {
		r->phase = R_WORK;
		w->redraw = true;
		return;
	}
	if (outputs_pending && !r->outputs_asked && ask_outputs(w)) {
		r->phase = R_WORK;
		w->redraw = true;
		return;
	}
	if (check_pending && jp_wizard_start(w, JP_ACTION_CHECK, 0, false) == 0) {
		r->checks_started = true;
		r->phase = R_WORK;
		w->redraw = true;
		return;
	}
	load_checks(w);
	r->phase = R_READY;
	w->redraw = true;
}

static void review_enter(struct jp_wizard *w)
{
	struct review *r = R(w);

	if (!r)
		return;
	if (r->phase != R_WRITTEN) {
		r->phase = R_WORK;
		r->kick = true;
		r->checks_started = false;
		r->outputs_asked = false;
		r->zone = 1;
	}
	w->failed_kinds = 0;
	w->form.inactive = r->zone == 1;
}

static void review_idle(struct jp_wizard *w)
{
	struct review *r = R(w);

	if (w->form.changed) {
		/* A path changed: the checks are stale. */
		w->form.changed = false;
		if (r->phase == R_READY)
			r->kick = true;
	}
	advance(w);
}

static void review_refresh(struct jp_wizard *w)
{
	R(w)->kick = true;
}

static void review_leave(struct jp_wizard *w)
{
	struct review *r = R(w);

	clear_checks(r);
	r->checks_started = false;
	free(r->copy_path);
	r->copy_path = NULL;
}

/* ---- writing ------------------------------------------------------------- */

static int port_confirm(const char *question, void *payload)
{
	struct jp_wizard *w = payload;
	int rc;

	w->modal_depth++;
	rc = jp_confirm(&w->ui, _("Confirm"), question, NULL, NULL, false);
	w->modal_depth--;
	return rc == 1;
}

static int port_secret(char *buf, size_t len, const char *prompt, void *payload)
{
	struct jp_wizard *w = payload;
	int rc;

	w->modal_depth++;
	rc = jp_secret_prompt(&w->ui, _("Password"), prompt, buf, len);
	w->modal_depth--;
	return rc;
}

static void write_manifest(struct jp_wizard *w)
{
	struct review *r = R(w);
	struct jp_port port = JP_PORT_INIT;
	struct jp_error err = JP_ERROR_INIT;
	int rc;

	if (jp_form_commit(&w->form) < 0) {
		r->zone = 0;
		w->form.inactive = false;
		jp_wizard_status(w, JP_CHECK_FAIL, "%s", _("fix the marked path first"));
		return;
	}
	port.confirm = port_confirm;
	port.ask_secret = port_secret;
	port.payload = w;

	jp_wizard_status(w, JP_CHECK_PASS, "%s", _("writing..."));
	jp_wizard_draw(w);
	refresh();
	rc = jp_flow_finish(w->flow, 0, &port, &err);
	load_checks(w);
	if (rc == JP_ECHECK && r->counts[ROW_FAIL]) {
		jp_wizard_status(w, JP_CHECK_FAIL,
				 P_("not written: %zu check failed; Enter on it goes to its field",
				    "not written: %zu checks failed; Enter on one goes to its field",
				    r->counts[ROW_FAIL]),
				 r->counts[ROW_FAIL]);
		jp_error_dispose(&err);
		return;
	}
	if (rc < 0) {
		/* Refused for another reason: a failed row of its own. */
		add_refusal(r, &err);
		jp_wizard_status(w, JP_CHECK_FAIL, _("not written: %s"), jp_error_message(&err));
		jp_error_dispose(&err);
		return;
	}
	jp_error_dispose(&err);
	free(w->manifest_path);
	free(w->env_path);
	free(w->platform_command);
	free(r->copy_path);
	w->manifest_path = w->env_path = w->platform_command = r->copy_path = NULL;
	/* the run's own files, in its folder, and the copy -o asked for */
	jp_flow_files(&w->manifest_path, &w->env_path, &r->copy_path, w->flow, NULL);
	jp_flow_platform_command(&w->platform_command, w->flow, NULL);
	w->written = true;
	w->exit_code = 0;
	jp_wizard_record_run(w);
	w->accepted[JP_STEP_REVIEW] = true;
	if (w->draft_path)
		jp_draft_remove(w->draft_path);
	r->phase = R_WRITTEN;
	jp_wizard_status(w, JP_CHECK_PASS, "%s", _("manifest, env.sh and preflight.sh written"));
}

/* ---- drawing ------------------------------------------------------------- */

static const char *glyph(enum row_kind k)
{
	const struct jp_glyphs *g = jp_term_glyphs();

	return k == ROW_FAIL ? g->fail : k == ROW_CREATE ? "+" : k == ROW_WARN ? g->warn : g->ok;
}

static enum jp_style style(enum row_kind k)
{
	return k == ROW_FAIL ? JP_STYLE_FAIL : k == ROW_PASS ? JP_STYLE_OK : JP_STYLE_WARN;
}

static const char *row_text(struct jp_wizard *w, const struct row *row)
{
	const struct jp_check *c;

	if (row->text)
		return row->text;
	if (row->check == SIZE_MAX)
		return "";
	c = &jp_flow_manifest(w->flow)->checks[row->check];
	return c->message ? c->message : c->id ? c->id : "";
}

static const char *row_id(struct jp_wizard *w, const struct row *row)
{
	const char *id;

	if (row->check == SIZE_MAX)
		return "review.write";
	id = jp_flow_manifest(w->flow)->checks[row->check].id;
	return id ? id : "";
}

static const char *row_group(const struct row *row)
{
	if (row->check == SIZE_MAX)
		return _("Write");
	return row->group == JP_STEP_REVIEW ? _("Other") : _(jp_step_name(row->group));
}

static void draw_work(struct jp_wizard *w, int y, int x, int h, int width)
{
	struct jp_worker_status st;
	size_t i;
	int row = 0;

	jp_draw_text(y + row++, x, width, JP_STYLE_TITLE,
		     _("Waiting for the background work, then running every check..."));
	row++;
	for (i = 0; i < w->n_running && row < h - 1; i++, row++) {
		jp_worker_poll(&st, w->running[i].worker);
		if (st.has_progress) {
			jp_progress_draw(y + row, x + 2, width - 2, jp_worker_label(w->running[i].worker),
					 &st.progress);
		} else {
			int used = jp_draw_text(y + row, x + 2, width - 2, JP_STYLE_TITLE,
						jp_worker_label(w->running[i].worker));

			jp_draw_text(y + row, x + 3 + used, width - 3 - used, JP_STYLE_DIM,
				     _("starting..."));
		}
	}
	if (row < h)
		jp_draw_text(y + h - 1, x, width, JP_STYLE_DIM,
			     _("Esc stops the work and goes back; Ctrl-C quits."));
}

/* The length of the command's first piece: up to and with the first
 * "&&", "||", ";" or "|" outside quotes, where a line may end and the shell
 * still reads the next line as the same command. */
static size_t first_piece(const char *s)
{
	char q = 0;

	for (size_t i = 0; s[i]; i++) {
		if (q) {
			if (s[i] == '\\' && q == '"' && s[i + 1])
				i++;
			else if (s[i] == q)
				q = 0;
		} else if (s[i] == '\\' && s[i + 1]) {
			i++;
		} else if (s[i] == '\'' || s[i] == '"') {
			q = s[i];
		} else if ((s[i] == '&' && s[i + 1] == '&') || (s[i] == '|' && s[i + 1] == '|')) {
			return i + 2;
		} else if (s[i] == ';' || s[i] == '|') {
			return i + 1;
		}
	}
	return strlen(s);
}

/* The launch command over lines broken only where the shell lets a line
 * end (after "&&"...), as many pieces a line as fit: copied lines paste as
 * the same command. A piece wider than the screen wraps where it must
 * (*cut); it is printed whole when the wizard ends. Returns the lines used. */
static int draw_command(int y, int x, int width, int max_lines, const char *cmd, bool *cut)
{
	int lines = 0;

	*cut = false;
	while (*cmd == ' ')
		cmd++;
	while (*cmd && lines < max_lines) {
		size_t n = first_piece(cmd), more;

		while (cmd[n] && jp_utf8_width(cmd, n + (more = first_piece(cmd + n))) <= width)
			n += more;
		if (jp_utf8_width(cmd, n) <= width) {
			jp_draw_textn(y + lines++, x, width, JP_STYLE_INPUT_FOCUS, cmd, n);
		} else {
			char *piece = strndup(cmd, n);

			*cut = true;
			if (piece)
				lines += jp_draw_wrap(y + lines, x, width, max_lines - lines,
						      JP_STYLE_INPUT_FOCUS, piece);
			free(piece);
		}
		cmd += n;
		while (*cmd == ' ')
			cmd++;
	}
	return lines;
}

static void draw_written(struct jp_wizard *w, int y, int x, int h, int width)
{
	const struct jp_glyphs *g = jp_term_glyphs();
	char line[1024];
	int row = 0, used;
	bool cut;

	used = jp_draw_text(y + row, x, width, JP_STYLE_OK, g->ok);
	used += jp_draw_text(y + row, x + used, width - used, JP_STYLE_NORMAL, " ");
	used += jp_draw_text(y + row, x + used, width - used, JP_STYLE_TITLE, _("Manifest written: "));
	jp_draw_text_tail(y + row++, x + used, width - used, JP_STYLE_NORMAL,
			  w->manifest_path ? w->manifest_path : "");
	used = jp_draw_text(y + row, x, width, JP_STYLE_OK, g->ok);
	used += jp_draw_text(y + row, x + used, width - used, JP_STYLE_NORMAL, " ");
	used += jp_draw_text(y + row, x + used, width - used, JP_STYLE_TITLE, _("env.sh: "));
	jp_draw_text_tail(y + row++, x + used, width - used, JP_STYLE_NORMAL,
			  w->env_path ? w->env_path : "");
	char *preflight = NULL;
	jp_flow_preflight_file(&preflight, w->flow);
	used = jp_draw_text(y + row, x, width, JP_STYLE_OK, g->ok);
	used += jp_draw_text(y + row, x + used, width - used, JP_STYLE_NORMAL, " ");
	used += jp_draw_text(y + row, x + used, width - used, JP_STYLE_TITLE, _("preflight.sh: "));
	jp_draw_text_tail(y + row++, x + used, width - used, JP_STYLE_NORMAL,
			  preflight ? preflight : "");
	free(preflight);
	if (R(w)->copy_path) {
		used = jp_draw_text(y + row, x, width, JP_STYLE_OK, g->ok);
		used += jp_draw_text(y + row, x + used, width - used, JP_STYLE_NORMAL, " ");
		used += jp_draw_text(y + row, x + used, width - used, JP_STYLE_TITLE, _("Copy: "));
		jp_draw_text_tail(y + row++, x + used, width - used, JP_STYLE_NORMAL,
				  R(w)->copy_path);
	}
	/* what the run takes, and where its own copy of the code is */
	for (const char *s = jp_flow_code_story(w->flow), *nl; s && *s && row < h - 4;
	     s = nl ? nl + 1 : NULL) {
		char *one;

		nl = strchr(s, '\n');
		one = nl ? strndup(s, (size_t)(nl - s)) : strdup(s);
		if (one)
			row += jp_draw_wrap(y + row, x, width, 2, JP_STYLE_NORMAL, one);
		free(one);
	}
	row++;
	jp_draw_text(y + row++, x, width, JP_STYLE_TITLE,
		     _("Launch command for the platform's form:"));
	/* at the left edge, no indent: a line of it as wide as the screen allows */
	row += draw_command(y + row, x, width, h - row - 3,
			    w->platform_command ? w->platform_command : "", &cut);
	if (cut && row < h - 2)
		row += jp_draw_wrap(y + row, x, width, 1, JP_STYLE_DIM,
				    _("(wider than this terminal: printed whole when you finish)"));
	row++;
	snprintf(line, sizeof(line), _("Check it again any time: jobprep check %s"),
		 w->manifest_path ? w->manifest_path : "");
	if (row < h)
		row += jp_draw_wrap(y + row, x, width, h - row - 1, JP_STYLE_DIM, line);
	if (row < h)
		jp_draw_text(y + h - 1, x, width, JP_STYLE_DIM, _("Press Enter to finish."));
}

/* The counts, and where the view is in the list ("12–26 of 30"). */
static void draw_head(struct review *r, int y, int x, int width, size_t shown)
{
	char head[256], warns[64], make[64], pos[64];
	int pos_w = 0;

	snprintf(warns, sizeof(warns), P_("%zu warning", "%zu warnings", r->counts[ROW_WARN]),
		 r->counts[ROW_WARN]);
	if (r->counts[ROW_CREATE]) {
		snprintf(make, sizeof(make),
			 P_("%zu folder to create", "%zu folders to create", r->counts[ROW_CREATE]),
			 r->counts[ROW_CREATE]);
		snprintf(head, sizeof(head), _("Checks: %zu passed, %s, %zu failed, %s"),
			 r->counts[ROW_PASS], warns, r->counts[ROW_FAIL], make);
	} else {
		snprintf(head, sizeof(head), _("Checks: %zu passed, %s, %zu failed"),
			 r->counts[ROW_PASS], warns, r->counts[ROW_FAIL]);
	}
	if (r->n) {
		snprintf(pos, sizeof(pos), _("%zu\xe2\x80\x93%zu of %zu"), r->top + 1,
			 r->top + shown, r->n);
		pos_w = jp_utf8_swidth(pos);
		if (pos_w + 2 < width)
			jp_draw_text(y, x + width - pos_w, pos_w, JP_STYLE_DIM, pos);
		else
			pos_w = -2;
	}
	jp_draw_text_fit(y, x, width - pos_w - 2, r->counts[ROW_FAIL] ? JP_STYLE_FAIL
								     : JP_STYLE_TITLE,
			 head);
}

/* Keep the selection in view; the write button (sel == n) keeps the end. */
static void scroll_to_sel(struct review *r, size_t list_h)
{
	if (r->sel < r->n) {
		if (r->sel < r->top)
			r->top = r->sel;
		if (r->sel >= r->top + list_h)
			r->top = r->sel - list_h + 1;
	} else if (r->n > list_h) {
		if (r->top + list_h > r->n)
			r->top = r->n - list_h;
	} else {
		r->top = 0;
	}
}

static void draw_row(struct jp_wizard *w, const struct row *row, bool sel, int y, int x,
		     int width, int group_w)
{
	int at = x + 2;

	if (sel)
		jp_draw_fill(y, x + 2, width - 2, JP_STYLE_SELECTED);
	jp_draw_text(y, at, 2, sel ? JP_STYLE_SELECTED : style(row->kind), glyph(row->kind));
	at += 2;
	jp_draw_text_fit(y, at, group_w, sel ? JP_STYLE_SELECTED : JP_STYLE_LABEL,
			 row_group(row));
	at += group_w + 2;
	jp_draw_text_fit(y, at, x + width - at, sel ? JP_STYLE_SELECTED : JP_STYLE_NORMAL,
			 row_text(w, row));
}

/* A failed check of what a clone left out of the checkout, which the
 * wizard can put there: submodules, and LFS content where git-lfs is. */
static bool fillable(struct jp_wizard *w, const struct row *row)
{
	const struct jp_manifest *m = jp_flow_manifest(w->flow);
	const struct jp_check *c;

	if (row->kind != ROW_FAIL || !m || row->check >= m->n_checks)
		return false;
	c = &m->checks[row->check];
	return c->id && (strcmp(c->id, "code.repo.submodules") == 0 ||
			 (strcmp(c->id, "code.repo.lfs") == 0 && jp_git_lfs_installed()));
}

static const char *resume_offer(struct jp_wizard *w, const struct row *row);

/* The selected check in full, wrapped; what Enter does on it. */
static void draw_detail(struct jp_wizard *w, int y, int x, int lines, int width)
{
	struct review *r = R(w);
	const struct jp_glyphs *g = jp_term_glyphs();
	const struct row *row;
	char head[512];

	if (r->sel >= r->n) {
		jp_draw_wrap(y, x, width, lines + 1, JP_STYLE_DIM,
			     _("Enter creates the run's directories (mkdir -p) if needed, then "
			       "writes the manifest and env.sh."));
		return;
	}
	row = &r->rows[r->sel];
	if (row->kind == ROW_CREATE)
		snprintf(head, sizeof(head), "%s  %s Enter: %s", row_id(w, row), g->arrow,
			 _("create the run's folders (mkdir -p)"));
	else if (fillable(w, row))
		snprintf(head, sizeof(head), "%s  %s Enter: %s", row_id(w, row), g->arrow,
			 _("clone the submodules and fetch the Git LFS content now"));
	else if (resume_offer(w, row))
		snprintf(head, sizeof(head), "%s  %s Enter: %s", row_id(w, row), g->arrow,
			 _("resume from the earlier run's checkpoint (job.resume_from)"));
	else if (row->field)
		snprintf(head, sizeof(head), "%s  %s Enter: %s", row_id(w, row), g->arrow,
			 _("go to the field"));
	else
		snprintf(head, sizeof(head), "%s", row_id(w, row));
	jp_draw_text_fit(y, x, width, JP_STYLE_DIM, head);
	jp_draw_wrap(y + 1, x, width, lines, style(row->kind), row_text(w, row));
}

static void draw_checks(struct jp_wizard *w, int y, int x, int h, int width)
{
	struct review *r = R(w);
	int detail = h >= 16 ? 3 : 2, list_h, group_w = 0, gw;
	size_t i, shown;

	/* head, the list, the detail (its id line and `detail` lines), the button */
	list_h = h - 3 - detail;
	if (list_h < 3 && detail > 1) {
		detail = 1;
		list_h = h - 3 - detail;
	}
	if (list_h < 1)
		list_h = 1;
	r->list_h = (size_t)list_h;
	scroll_to_sel(r, r->list_h);
	for (i = 0; i < r->n; i++) {
		gw = jp_utf8_swidth(row_group(&r->rows[i]));
		if (gw > group_w)
			group_w = gw;
	}
	if (group_w > width / 4)
		group_w = width / 4;
	shown = r->n - r->top < r->list_h ? r->n - r->top : r->list_h;
	draw_head(r, y, x, width, shown);
	for (i = 0; i < shown; i++)
		draw_row(w, &r->rows[r->top + i], r->zone == 1 && r->sel == r->top + i,
			 y + 1 + (int)i, x, width, group_w);
	draw_detail(w, y + 1 + list_h, x, detail, width);
	{
		const char *label = r->counts[ROW_FAIL]
					    ? _("[ Write the manifest ]  (fix the failed checks first)")
					    : _("[ Write the manifest ]");
		bool sel = r->zone == 1 && r->sel == r->n;

		jp_draw_text_fit(y + h - 1, x, width, sel ? JP_STYLE_SELECTED : JP_STYLE_TITLE,
				 label);
	}
}

static void review_draw(struct jp_wizard *w, int y, int x, int h, int width)
{
	struct review *r = R(w);
	int fh;

	if (r->phase == R_WRITTEN) {
		w->form.cursor_on = false;
		draw_written(w, y, x, h, width);
		return;
	}
	fh = jp_form_rows_height(&w->form, width) + 2;
	if (fh > h / 2)
		fh = h / 2;
	w->form.inactive = r->zone == 1;
	jp_form_draw(&w->form, y, x, fh, width);
	if (r->zone == 1)
		w->form.cursor_on = false;
	if (r->phase == R_WORK)
		draw_work(w, y + fh, x, h - fh, width);
	else
		draw_checks(w, y + fh, x, h - fh, width);
}

static const char *review_hints(struct jp_wizard *w)
{
	struct review *r = R(w);

	if (r->phase == R_WRITTEN)
		return _("Enter finish · F1 help");
	if (r->phase == R_WORK)
		return _("Esc stop and go back · F1 help · ^C quit");
	if (r->zone == 0)
		return _("Enter write · Esc back · Tab checks · F2 browse · F1 help · ^C quit");
	return _("Enter write/go to field · Up/Down move · Tab paths · Esc back · F1 help · ^C quit");
}

/* ---- keys ------------------------------------------------------------------ */

static void jump_to(struct jp_wizard *w, const struct row *row)
{
	struct review *r = R(w);
	char *key = row->field ? strdup(row->field) : NULL;
	enum jp_step step = row->group;

	if (!key)
		return;
	if (step == JP_STEP_REVIEW) {
		r->zone = 0;
		w->form.inactive = false;
		jp_form_focus_key(&w->form, key);
	} else {
		jp_wizard_goto(w, step);
		jp_form_focus_key(&w->form, key);
	}
	free(key);
}

/* Enter on a run folder still to make: make them now, then check again. */
static void create_dirs(struct jp_wizard *w)
{
	struct review *r = R(w);

	if (jp_wizard_start(w, JP_ACTION_OUTPUTS, 0, false) == 0) {
		r->phase = R_WORK;
		r->kick = false;
		w->redraw = true;
	}
}

/* Enter on a failed code.repo.submodules or code.repo.lfs: offer to give
 * the checkout what is missing, then check again. */
static void fill_in(struct jp_wizard *w)
{
	struct review *r = R(w);
	char *path = NULL, text[2048];
	int rc;

	jp_flow_get(&path, w->flow, "code.path", NULL);
	snprintf(text, sizeof(text),
		 _("Clone the submodules of %s and fetch its files stored with Git LFS now?"),
		 path ? path : "");
	free(path);
	w->modal_depth++;
	rc = jp_confirm(&w->ui, _("Fill in the checkout"), text, _("Clone and fetch"),
			_("Not now"), true);
	w->modal_depth--;
	w->redraw = true;
	if (rc == 1 && jp_wizard_start(w, JP_ACTION_FILL_IN, 0, false) == 0) {
		r->phase = R_WORK;
		r->kick = false;
	}
}

/* A launch.resume failure with the earlier run's checkpoint it offers. */
static const char *resume_offer(struct jp_wizard *w, const struct row *row)
{
	const struct jp_manifest *m = jp_flow_manifest(w->flow);
	const struct jp_check *c;

	if (!m || row->check >= m->n_checks)
		return NULL;
	c = &m->checks[row->check];
	return c->id && strcmp(c->id, "launch.resume") == 0 && c->status == JP_CHECK_FAIL
		       ? c->path
		       : NULL;
}

/* Enter on launch.resume: the offer taken (job.resume_from), then check
 * again. */
static void take_resume(struct jp_wizard *w, const char *offered)
{
	struct review *r = R(w);
	struct jp_error err = JP_ERROR_INIT;
	char *path = strdup(offered);

	if (!path)
		return;
	if (jp_flow_set(NULL, w->flow, "job.resume_from", path, &err) < 0) {
		jp_wizard_status(w, JP_CHECK_FAIL, "%s", jp_error_message(&err));
	} else {
		jp_wizard_status(w, JP_CHECK_PASS,
				 _("the run resumes from %s: env.sh exports it as RESUME_FROM"), path);
		r->kick = true;
		r->phase = R_WORK;
	}
	jp_error_dispose(&err);
	free(path);
}

/* The run's directories are still to be made: writing makes them, so
 * checks failing only for that do not block it. */
static bool outputs_pending(struct jp_wizard *w)
{
	enum jp_action *pk = NULL;
	size_t *pi = NULL, n = 0, i;
	bool yes = false;

	if (jp_flow_pending(&pk, &pi, &n, w->flow, NULL) == 0)
		for (i = 0; i < n; i++)
			if (pk[i] == JP_ACTION_OUTPUTS)
				yes = true;
	free(pk);
	free(pi);
	return yes;
}

/* The manifest is written: any way out quits. */
static int written_key(struct jp_wizard *w, enum jp_act act, const struct jp_key *key)
{
	if (act == JP_ACT_ACCEPT || act == JP_ACT_BACK || act == JP_ACT_QUIT ||
	    (!key->fn && key->code == 'q')) {
		w->quit = true;
		w->exit_code = 0;
		return JP_EV_HANDLED;
	}
	return act == JP_ACT_HELP ? JP_EV_IGNORED : JP_EV_HANDLED;
}

/* The work still runs: Back asks before stopping it. */
static int work_key(struct jp_wizard *w, enum jp_act act)
{
	int rc;

	if (act == JP_ACT_BACK) {
		if (jp_wizard_busy(w)) {
			w->modal_depth++;
			rc = jp_confirm(&w->ui, _("Stop the work?"),
					_("Stop the background work (nothing half-made is "
					  "left behind) and go back?"),
					_("Stop it"), _("Let it run"), false);
			w->modal_depth--;
			if (rc != 1)
				return JP_EV_HANDLED | JP_EV_REDRAW;
			jp_wizard_cancel_all(w);
		}
		jp_wizard_goto(w, JP_STEP_LAUNCH);
		return JP_EV_HANDLED | JP_EV_REDRAW;
	}
	if (act == JP_ACT_HELP || act == JP_ACT_QUIT)
		return JP_EV_IGNORED;
	/* The paths may be edited while the work runs. */
	return R(w)->zone == 0 ? JP_EV_IGNORED : JP_EV_HANDLED;
}

/* The focus is in the paths' form: Enter writes, leaving its last field
 * goes on to the checks; the rest is the form's. */
static int paths_key(struct jp_wizard *w, enum jp_act act, const struct jp_key *key)
{
	struct review *r = R(w);
	size_t before;
	int rc;

	if (act == JP_ACT_ACCEPT) {
		write_manifest(w);
		return JP_EV_HANDLED | JP_EV_REDRAW;
	}
	if ((act == JP_ACT_DOWN && w->form.focus + 1 >= w->form.n) ||
	    (act == JP_ACT_FIELD_NEXT && w->form.focus + 1 >= w->form.n &&
	     jp_form_keyctx(&w->form) != JP_KEYCTX_TEXT)) {
		jp_form_commit(&w->form);
		r->zone = 1;
		w->form.inactive = true;
		return JP_EV_HANDLED | JP_EV_REDRAW;
	}
	if (act == JP_ACT_FIELD_NEXT && w->form.focus + 1 >= w->form.n) {
		before = w->form.focus;
		rc = jp_form_key(&w->form, act, key);
		if (w->form.focus < before || w->form.focus == 0) {
			/* Tab went past the last path: on to the checks. */
			r->zone = 1;
			w->form.inactive = true;
		}
		return rc | JP_EV_HANDLED | JP_EV_REDRAW;
	}
	return JP_EV_IGNORED;
}

/* Enter on the checks' list: make the directories, go to a check's field,
 * or write. */
static void checks_accept(struct jp_wizard *w)
{
	struct review *r = R(w);

	if (r->sel < r->n && r->rows[r->sel].kind == ROW_CREATE) {
		create_dirs(w);
	} else if (r->sel < r->n && fillable(w, &r->rows[r->sel])) {
		fill_in(w);
	} else if (r->sel < r->n && resume_offer(w, &r->rows[r->sel])) {
		take_resume(w, resume_offer(w, &r->rows[r->sel]));
	} else if (r->sel < r->n && r->rows[r->sel].field) {
		jump_to(w, &r->rows[r->sel]);
	} else if (r->counts[ROW_FAIL]) {
		/* Go to the first failure instead of refusing silently. */
		r->sel = 0;
		jp_wizard_status(w, JP_CHECK_FAIL, "%s",
				 _("fix the failed checks first: Enter on one goes to its field"));
	} else {
		write_manifest(w);
	}
}

/* The focus is in the checks' list. */
static int checks_key(struct jp_wizard *w, enum jp_act act)
{
	struct review *r = R(w);
	size_t step;

	switch (act) {
	case JP_ACT_UP:
		if (r->sel == 0) {
			r->zone = 0;
			w->form.inactive = false;
			w->form.focus = w->form.n ? w->form.n - 1 : 0;
		} else {
			r->sel--;
		}
		return JP_EV_HANDLED | JP_EV_REDRAW;
	case JP_ACT_DOWN:
		/* past the write button: round to the first check again */
		r->sel = r->sel < r->n ? r->sel + 1 : 0;
		return JP_EV_HANDLED | JP_EV_REDRAW;
	case JP_ACT_PAGE_UP:
		step = r->list_h > 1 ? r->list_h - 1 : 1;
		r->sel = r->sel > step ? r->sel - step : 0;
		return JP_EV_HANDLED | JP_EV_REDRAW;
	case JP_ACT_PAGE_DOWN:
		step = r->list_h > 1 ? r->list_h - 1 : 1;
		r->sel = r->sel + step < r->n ? r->sel + step : r->n;
		return JP_EV_HANDLED | JP_EV_REDRAW;
	case JP_ACT_HOME:
		r->sel = 0;
		return JP_EV_HANDLED | JP_EV_REDRAW;
	case JP_ACT_END:
		r->sel = r->n;
		return JP_EV_HANDLED | JP_EV_REDRAW;
	case JP_ACT_FIELD_NEXT:
	case JP_ACT_FIELD_PREV:
		r->zone = 0;
		w->form.inactive = false;
		return JP_EV_HANDLED | JP_EV_REDRAW;
	case JP_ACT_ACCEPT:
		checks_accept(w);
		return JP_EV_HANDLED | JP_EV_REDRAW;
	case JP_ACT_BACK:
	case JP_ACT_HELP:
	case JP_ACT_QUIT:
		return JP_EV_IGNORED;
	default:
		return JP_EV_HANDLED;
	}
}

static int review_key(struct jp_wizard *w, enum jp_act act, const struct jp_key *key)
{
	struct review *r = R(w);

	if (r->phase == R_WRITTEN)
		return written_key(w, act, key);
	if (r->phase == R_WORK)
		return work_key(w, act);
	if (r->zone == 0)
		return paths_key(w, act, key);
	return checks_key(w, act);
}

/* F1 on a check: the whole of it, its id and step. */
static char *review_detail(struct jp_wizard *w)
{
	struct review *r = R(w);
	const struct row *row;
	char *text = NULL;

	if (!r || r->phase != R_READY || r->zone != 1 || r->sel >= r->n)
		return NULL;
	row = &r->rows[r->sel];
	if (asprintf(&text, "%s %s (%s): %s", glyph(row->kind), row_id(w, row), row_group(row),
		     row_text(w, row)) < 0)
		return NULL;
	return text;
}

const struct jp_step_ops jp_step_review_ops = {
	.step = JP_STEP_REVIEW,
	.help = N_("Before submitting, check once, on the dev machine with the same mount paths "
		   "as the job: the project and data directories exist, the output and "
		   "checkpoint directories can be created, and every path is where every Worker "
		   "sees it. The review waits for the clone and the scans, runs every check, and "
		   "groups them by step: Enter on a check goes to its field. Writing creates the "
		   "run's directories, then writes the manifest and env.sh into the run's folder "
		   "(a manifest path elsewhere gets a copy; replacing another run's manifest there "
		   "is asked first); the launch command shown at the end sources the run's env.sh "
		   "by absolute path and runs yours: paste it into the platform's form."),
	.enter = review_enter,
	.draw = review_draw,
	.key = review_key,
	.idle = review_idle,
	.work_done = review_refresh,
	.leave = review_leave,
	.hints = review_hints,
	.detail = review_detail,
};
