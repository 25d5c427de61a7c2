/* The wizard: frame, main loop, background work, quitting. */
#include "config.h"

#include <curses.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobprep/i18n.h"
#include "jobprep/jobindex.h"
#include "jobprep/path.h"
#include "jobprep/units.h"
#include "jobprep/shellwords.h"
#include "tui/draft.h"
#include "tui/draw.h"
#include "tui/term.h"
#include "tui/utf8.h"
#include "tui/wizard.h"

static const struct jp_step_ops *const all_ops[JP_STEP_COUNT] = {
	&jp_step_job_ops,     &jp_step_code_ops,   &jp_step_data_ops,
	&jp_step_outputs_ops, &jp_step_launch_ops, &jp_step_review_ops,
};

const struct jp_step_ops *jp_wizard_ops(enum jp_step step)
{
	return (unsigned)step < JP_STEP_COUNT ? all_ops[step] : all_ops[0];
}

static void vstatus(struct jp_wizard *w, enum jp_check_status level, const char *fmt, va_list ap)
{
	vsnprintf(w->status, sizeof(w->status), fmt, ap);
	w->status_level = level;
	free(w->status_key);
	w->status_key = NULL;
	w->redraw = true;
}

void jp_wizard_status(struct jp_wizard *w, enum jp_check_status level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vstatus(w, level, fmt, ap);
	va_end(ap);
}

/* A field's refusal stands on the status line: the person pressed Enter
 * and must read why the step did not go on, so neither the progress of
 * background work nor its "scanned ..." hides it. It leaves once its field
 * is fixed (clear_fixed_status). */
static bool refusal_stands(const struct jp_wizard *w)
{
	return w->status[0] && w->status_key && w->status_level == JP_CHECK_FAIL;
}

/* Background work that went well says so, unless a refusal stands; a
 * failure of the work itself still shows. */
void jp_wizard_news(struct jp_wizard *w, enum jp_check_status level, const char *fmt, ...)
{
	va_list ap;

	if (level != JP_CHECK_FAIL && refusal_stands(w))
		return;
	va_start(ap, fmt);
	vstatus(w, level, fmt, ap);
	va_end(ap);
}

/* A refusal about a field leaves the status line once the field's own
 * verdict is no longer a failure: no stale error beside a fixed value. */
static void clear_fixed_status(struct jp_wizard *w)
{
	size_t i;

	if (!w->status_key)
		return;
	for (i = 0; i < w->form.n; i++) {
		const struct jp_form_row *r = &w->form.rows[i];

		if (strcmp(r->key, w->status_key) != 0)
			continue;
		if (!r->check && !r->check_pending && r->verdict.status != JP_CHECK_FAIL) {
			w->status[0] = '\0';
			free(w->status_key);
			w->status_key = NULL;
			w->redraw = true;
		}
		return;
	}
}

/* A refusal about a field of another step: that field was fixed there
 * (its step was left by Enter, or the value changed), so the line goes
 * once the flow's own check of it passes; looked at once per step change,
 * not at every key. */
static void clear_fixed_elsewhere(struct jp_wizard *w)
{
	struct jp_verdict v = JP_VERDICT_INIT;

	if (!w->status_key)
		return;
	if (!w->status_key[0]) { /* a step's refusal with no field: that step is left */
		w->status[0] = '\0';
		free(w->status_key);
		w->status_key = NULL;
		return;
	}
	for (size_t i = 0; i < w->form.n; i++)
		if (strcmp(w->form.rows[i].key, w->status_key) == 0)
			return; /* on this step: its row says (clear_fixed_status) */
	if (jp_flow_validate(&v, w->flow, w->status_key, NULL, NULL) == 0 &&
	    v.status != JP_CHECK_FAIL) {
		w->status[0] = '\0';
		free(w->status_key);
		w->status_key = NULL;
	}
	jp_verdict_dispose(&v);
}

void jp_wizard_goto(struct jp_wizard *w, enum jp_step step)
{
	if (w->ops && w->ops->leave)
		w->ops->leave(w);
	jp_form_dispose(&w->form);
	w->step = step;
	w->ops = jp_wizard_ops(step);
	jp_form_init(&w->form, w->flow, step, &w->ui);
	/* Start on the first field that can take the focus. */
	if (w->form.n && (w->form.rows[0].field->flags & JP_FIELD_DERIVED))
		jp_form_key(&w->form, JP_ACT_DOWN, NULL);
	if (w->ops->enter)
		w->ops->enter(w);
	clear_fixed_elsewhere(w);
	w->redraw = true;
}

/* ---- background work ---------------------------------------------------- */

static int run_flow_work(struct jp_error *err, const struct jp_port *port, void *arg)
{
	return jp_flow_work_run(arg, port, err);
}

static char *get(const struct jp_wizard *w, const char *key)
{
	char *v = NULL;

	if (jp_flow_get(&v, w->flow, key, NULL) < 0)
		return NULL;
	return v;
}

static bool is_code_kind(enum jp_action k)
{
	return k == JP_ACTION_CLONE || k == JP_ACTION_INSPECT || k == JP_ACTION_RESOLVE ||
	       k == JP_ACTION_FILL_IN;
}

/* What a task was started for: when this changes, its result is stale. */
static char *signature(const struct jp_wizard *w, enum jp_action kind, size_t index)
{
	static const char *const code_keys[] = { "code.source", "code.checkout", "code.path",
						 "code.repo.url", "code.repo.ref", NULL };
	static const char *const out_keys[] = { "outputs.output_dir", "outputs.checkpoint_dir",
						"outputs.log_dir", NULL };
	const char *const *keys = NULL;
	char key[64], *sig = NULL, *v, *ns;
	size_t len = 0, vl;
	const char *one[2] = { key, NULL };

	if (is_code_kind(kind)) {
		keys = code_keys;
	} else if (kind == JP_ACTION_OUTPUTS) {
		keys = out_keys;
	} else if (kind == JP_ACTION_SCAN) {
		jp_flow_item_key(key, sizeof(key), "data[].path", index);
		keys = one;
	} else if (kind == JP_ACTION_STAGE) {
		/* the path, where it is staged from, whether its archives are
		 * unpacked there: one line each */
		char *p = NULL, *f = NULL, *u = NULL;

		jp_flow_item_key(key, sizeof(key), "data[].path", index);
		p = get(w, key);
		jp_flow_item_key(key, sizeof(key), "data[].from", index);
		f = get(w, key);
		snprintf(key, sizeof(key), "data[%zu].unpack_archives", index);
		u = get(w, key);
		if (asprintf(&sig, "%s\n%s\n%s\n", p ? p : "", f ? f : "", u ? u : "") < 0)
			sig = NULL;
		free(p);
		free(f);
		free(u);
		return sig;
	} else {
		return strdup("");
	}
	for (; *keys; keys++) {
		v = get(w, *keys);
		vl = v ? strlen(v) : 0;
		ns = realloc(sig, len + vl + 2);
		if (!ns) {
			free(v);
			free(sig);
			return NULL;
		}
		sig = ns;
		memcpy(sig + len, v ? v : "", vl);
		len += vl;
		sig[len++] = '\n';
		sig[len] = '\0';
		free(v);
	}
	return sig ? sig : strdup("");
}

static const char *action_label(enum jp_action kind)
{
	switch (kind) {
	case JP_ACTION_CLONE:
		return _("clone");
	case JP_ACTION_INSPECT:
		return _("checkout");
	case JP_ACTION_RESOLVE:
		return _("resolve");
	case JP_ACTION_SCAN:
		return _("scan");
	case JP_ACTION_OUTPUTS:
		return _("mkdir");
	case JP_ACTION_CHECK:
		return _("checks");
	case JP_ACTION_STAGE:
		return _("stage");
	case JP_ACTION_FILL_IN:
		return _("fill in");
	}
	return "";
}

static void running_free(struct jp_running *b)
{
	jp_worker_free(b->worker); /* cancels and joins if still running */
	jp_flow_work_free(b->work);
	free(b->sig);
	memset(b, 0, sizeof(*b));
}

static void bg_remove(struct jp_wizard *w, size_t i)
{
	running_free(&w->running[i]);
	memmove(&w->running[i], &w->running[i + 1], (w->n_running - i - 1) * sizeof(w->running[0]));
	w->n_running--;
	memset(&w->running[w->n_running], 0, sizeof(w->running[0]));
}

struct jp_running *jp_wizard_find_running(struct jp_wizard *w, enum jp_action kind, size_t index)
{
	size_t i;

	for (i = 0; i < w->n_running; i++)
		if (w->running[i].kind == kind &&
		    ((kind != JP_ACTION_SCAN && kind != JP_ACTION_STAGE) || w->running[i].index == index))
			return &w->running[i];
	return NULL;
}

bool jp_wizard_busy(const struct jp_wizard *w)
{
	return w->n_running > 0;
}

int jp_wizard_start(struct jp_wizard *w, enum jp_action kind, size_t index, bool deep)
{
	struct jp_error err = JP_ERROR_INIT;
	struct jp_flow_work *ft = NULL;
	struct jp_worker *t = NULL;
	struct jp_running *b;
	char *sig;
	int rc;

	if (w->n_running >= JP_WIZ_MAX_RUNNING)
		return JP_EUSAGE;
	rc = jp_flow_work_new(&ft, w->flow, kind, index, deep, &err);
	if (rc == 0)
		rc = jp_worker_start(&t, action_label(kind), run_flow_work, ft, &err);
	if (rc < 0) {
		jp_flow_work_free(ft);
		jp_wizard_status(w, JP_CHECK_FAIL, "%s", jp_error_message(&err));
		jp_error_dispose(&err);
		return rc;
	}
	sig = signature(w, kind, index);
	b = &w->running[w->n_running++];
	memset(b, 0, sizeof(*b));
	b->worker = t;
	b->work = ft;
	b->kind = kind;
	b->index = index;
	b->sig = sig;
	jp_error_dispose(&err);
	w->redraw = true;
	return 0;
}

void jp_wizard_start_pending(struct jp_wizard *w, unsigned kinds)
{
	struct jp_error err = JP_ERROR_INIT;
	enum jp_action *pk = NULL;
	size_t *pi = NULL, n = 0, i, j;
	char *sig;

	if (jp_flow_pending(&pk, &pi, &n, w->flow, &err) < 0) {
		jp_wizard_status(w, JP_CHECK_FAIL, "%s", jp_error_message(&err));
		jp_error_dispose(&err);
		return;
	}
	/* Running work of these kinds started for other answers (the source
	 * or a path changed since): stop it before starting anew. */
	for (i = 0; i < w->n_running;) {
		struct jp_running *b = &w->running[i];
		bool same;

		if (!(kinds & (1u << b->kind))) {
			i++;
			continue;
		}
		sig = signature(w, b->kind, b->index);
		same = sig && strcmp(sig, b->sig) == 0;
		free(sig);
		if (!same) {
			bg_remove(w, i);
			continue;
		}
		i++;
	}
	for (j = 0; j < n; j++) {
		if (!(kinds & (1u << pk[j])))
			continue;
		if (jp_wizard_find_running(w, pk[j], pi[j]))
			continue;
		jp_wizard_start(w, pk[j], pi[j], false);
	}
	free(pk);
	free(pi);
	jp_error_dispose(&err);
}

void jp_wizard_cancel_all(struct jp_wizard *w)
{
	size_t i;

	for (i = 0; i < w->n_running; i++)
		jp_worker_cancel(w->running[i].worker);
	while (w->n_running)
		bg_remove(w, w->n_running - 1);
}

static void finished(struct jp_wizard *w, struct jp_running *b)
{
	const struct jp_error *terr = NULL;
	struct jp_error err = JP_ERROR_INIT;
	char *v = NULL, *name = NULL, key[64], a[32], c[32];
	int rc = jp_worker_result(b->worker, &terr);

	if (rc < 0)
		w->failed_kinds |= 1u << b->kind;
	if (rc == JP_ECANCELED) {
		jp_wizard_status(w, JP_CHECK_WARN, _("%s stopped; nothing half-made was left behind"),
				 action_label(b->kind));
		return;
	}
	if (rc < 0) {
		jp_wizard_status(w, JP_CHECK_FAIL, "%s", jp_error_message(terr));
		return;
	}
	rc = jp_flow_work_apply(w->flow, b->work, &err);
	w->rebuild = true;
	if (rc == JP_EREFUSED) {
		jp_wizard_status(w, JP_CHECK_WARN, "%s", jp_error_message(&err));
		jp_error_dispose(&err);
		return;
	}
	if (rc < 0) {
		jp_wizard_status(w, JP_CHECK_FAIL, "%s", jp_error_message(&err));
		jp_error_dispose(&err);
		return;
	}
	jp_error_dispose(&err);
	switch (b->kind) {
	case JP_ACTION_INSPECT: {
		/* brought to the ref: "already at ...", what moved, or the refusal */
		enum jp_check_status level = JP_CHECK_PASS;
		const char *note = jp_flow_code_note(w->flow, &level);

		if (note) {
			const char *rkey = jp_flow_code_refusal_key(w->flow);

			jp_wizard_news(w, level, "%s", note);
			/* a refusal made in the background, about a field of
			 * the Code step: it stands over later work's news
			 * until that field passes (clear_fixed_elsewhere) */
			if (level == JP_CHECK_FAIL && rkey) {
				free(w->status_key);
				w->status_key = strdup(rkey);
			}
			break;
		}
		v = get(w, "code.repo.commit");
		if (!v || !*v) {
			/* not a checkout: no commit to show (was a blank) */
			name = get(w, "code.path");
			jp_wizard_news(w, JP_CHECK_WARN,
					 _("%s is not a git checkout: the manifest cannot record which "
					   "version of the code ran"),
					 name ? name : "");
			break;
		}
		free(v);
		v = NULL;
	}
		/* fall through */
	case JP_ACTION_CLONE:
	case JP_ACTION_RESOLVE:
		v = get(w, "code.repo.commit");
		name = get(w, b->kind == JP_ACTION_RESOLVE ? "code.repo.url" : "code.path");
		jp_wizard_news(w, JP_CHECK_PASS,
				 b->kind == JP_ACTION_CLONE	? _("cloned into %s at %.12s")
				 : b->kind == JP_ACTION_INSPECT ? _("checkout %s is at %.12s")
								: _("%s resolves to %.12s"),
				 name ? name : "", v ? v : "?");
		break;
	case JP_ACTION_SCAN: {
		const struct jp_manifest *m = jp_flow_manifest(w->flow);

		jp_flow_item_key(key, sizeof(key), "data[].name", b->index);
		name = get(w, key);
		if (m && b->index < m->n_data && m->data[b->index].has_stats)
			jp_wizard_news(w, JP_CHECK_PASS, _("scanned %s: %s files, %s"),
					 name ? name : "",
					 jp_fmt_count(c, sizeof(c), m->data[b->index].stats.files),
					 jp_units_format_bytes(a, sizeof(a), m->data[b->index].stats.bytes));
		else
			jp_wizard_news(w, JP_CHECK_PASS, _("looked at %s"), name ? name : "");
		break;
	}
	case JP_ACTION_OUTPUTS:
		v = get(w, "outputs.output_dir");
		jp_wizard_news(w, JP_CHECK_PASS, _("created %s"), v ? v : "");
		w->created_run = true;
		jp_wizard_record_run(w);
		break;
	case JP_ACTION_STAGE:
		/* the data is there now: look at it */
		jp_flow_item_key(key, sizeof(key), "data[].path", b->index);
		v = get(w, key);
		jp_wizard_news(w, JP_CHECK_PASS, _("staged onto %s"), v ? v : "");
		break;
	case JP_ACTION_CHECK:
		break;
	case JP_ACTION_FILL_IN:
		v = get(w, "code.path");
		jp_wizard_news(w, JP_CHECK_PASS,
				 _("%s has its submodules and Git LFS content now; checking again"),
				 v ? v : "");
		break;
	}
	free(v);
	free(name);
}

/* A parked request from a task: ask the person, on this thread. */
static void answer_request(struct jp_wizard *w, struct jp_running *b,
			   const struct jp_worker_status *st)
{
	char secret[512];
	int rc;

	w->modal_depth++;
	if (st->request == JP_WORKER_REQ_SECRET) {
		rc = jp_secret_prompt(&w->ui, action_label(b->kind), st->prompt, secret,
				      sizeof(secret));
		jp_worker_reply(b->worker, rc, rc == 0 ? secret : NULL);
		explicit_bzero(secret, sizeof(secret));
	} else if (st->request == JP_WORKER_REQ_CONFIRM) {
		rc = jp_confirm(&w->ui, action_label(b->kind), st->prompt, NULL, NULL,
				st->default_yes);
		jp_worker_reply(b->worker, rc == 1 ? 1 : 0, NULL);
	}
	w->modal_depth--;
	w->redraw = true;
}

int jp_wizard_tick(struct jp_wizard *w)
{
	struct jp_worker_status st;
	size_t i;
	int ev = 0;
	bool any_done = false, staged = false;

	for (i = 0; i < w->n_running;) {
		struct jp_running *b = &w->running[i];

		jp_worker_poll(&st, b->worker);
		if (st.seq != b->seen) {
			b->seen = st.seq;
			ev |= JP_EV_REDRAW;
		}
		if (st.state == JP_WORKER_DONE) {
			staged |= b->kind == JP_ACTION_STAGE && jp_worker_result(b->worker, NULL) == 0;
			finished(w, b);
			bg_remove(w, i);
			any_done = true;
			ev |= JP_EV_REDRAW;
			continue;
		}
		if (st.request != JP_WORKER_REQ_NONE && w->modal_depth == 0) {
			answer_request(w, b, &st);
			ev |= JP_EV_REDRAW;
		}
		i++;
	}
	/* staged data is there now: look at it (the scan waited for it) */
	if (staged)
		jp_wizard_start_pending(w, 1u << JP_ACTION_SCAN);
	if (any_done && w->ops && w->ops->work_done)
		w->ops->work_done(w);
	return ev;
}

/* ---- drawing ------------------------------------------------------------- */

static void draw_step_bar(struct jp_wizard *w, int y, int x, int width)
{
	const struct jp_glyphs *g = jp_term_glyphs();
	int gap, total, s, used = 0;

	for (gap = 3; gap >= 1; gap -= 2) {
		total = 0;
		for (s = 0; s < JP_STEP_COUNT; s++)
			total += 2 + jp_utf8_swidth(_(jp_step_name((enum jp_step)s))) + gap;
		if (total - gap <= width)
			break;
	}
	for (s = 0; s < JP_STEP_COUNT; s++) {
		bool cur = s == (int)w->step;
		const char *mark = cur ? g->current : w->accepted[s] ? g->done : g->todo;
		enum jp_style st = cur ? JP_STYLE_TITLE
				       : w->accepted[s] ? JP_STYLE_OK : JP_STYLE_DIM;

		if (gap < 1 && !cur) {
			/* Too narrow for every name: marks only, the current one named. */
			used += jp_draw_text(y, x + used, width - used, st, mark);
			used += jp_draw_text(y, x + used, width - used, st, " ");
			continue;
		}
		used += jp_draw_text(y, x + used, width - used, st, mark);
		used += jp_draw_text(y, x + used, width - used, st, " ");
		used += jp_draw_text(y, x + used, width - used, st, _(jp_step_name((enum jp_step)s)));
		used += jp_draw_text(y, x + used, width - used, JP_STYLE_NORMAL, gap == 3 ? "   " : " ");
	}
}

/* The status line; a message longer than the line takes the hints' line
 * too (wrapped, never cut silently). Returns the lines used. */
static int draw_status(struct jp_wizard *w, int y, int x, int width)
{
	struct jp_worker_status st;
	char label[96];
	const struct jp_glyphs *g = jp_term_glyphs();
	size_t i;

	jp_draw_fill(y, x, width, JP_STYLE_NORMAL);
	for (i = 0; !refusal_stands(w) && i < w->n_running; i++) {
		jp_worker_poll(&st, w->running[i].worker);
		if (st.state == JP_WORKER_DONE)
			continue;
		if (w->n_running > 1)
			snprintf(label, sizeof(label), "%s (+%zu)", jp_worker_label(w->running[i].worker),
				 w->n_running - 1);
		else
			snprintf(label, sizeof(label), "%s", jp_worker_label(w->running[i].worker));
		if (st.cancel_requested) {
			int used = jp_draw_text(y, x, width, JP_STYLE_TITLE, label);

			jp_draw_text(y, x + used + 1, width - used - 1, JP_STYLE_WARN,
				     _("stopping..."));
		} else if (st.has_progress) {
			jp_progress_draw(y, x, width, label, &st.progress);
		} else {
			int used = jp_draw_text(y, x, width, JP_STYLE_TITLE, label);

			jp_draw_text(y, x + used + 1, width - used - 1, JP_STYLE_DIM,
				     _("starting..."));
		}
		return 1;
	}
	if (w->status[0]) {
		enum jp_style sty = w->status_level == JP_CHECK_FAIL ? JP_STYLE_FAIL
				    : w->status_level == JP_CHECK_WARN ? JP_STYLE_WARN
								       : JP_STYLE_OK;
		const char *mark = w->status_level == JP_CHECK_FAIL ? g->fail
				   : w->status_level == JP_CHECK_WARN ? g->warn
								      : g->ok;
		int used = jp_draw_text(y, x, width, sty, mark);

		used += jp_draw_text(y, x + used, width - used, sty, " ");
		if (jp_utf8_swidth(w->status) <= width - used) {
			jp_draw_text(y, x + used, width - used, JP_STYLE_NORMAL, w->status);
			return 1;
		}
		jp_draw_fill(y + 1, x, width, JP_STYLE_NORMAL);
		return jp_draw_wrap(y, x + used, width - used, 2, JP_STYLE_NORMAL, w->status);
	}
	return 1;
}

static const char *default_hints(struct jp_wizard *w)
{
	struct jp_form_row *r = jp_form_focused(&w->form);

	if (!r)
		return _("Enter next · Esc back · F1 help · ^C quit");
	if (r->field->kind == JP_FIELD_PATH)
		return _("Enter next · Esc back · Tab complete/field · F2 browse · F1 help · ^C quit");
	if (r->field->kind == JP_FIELD_LIST || r->depth == 1)
		return r->field->kind == JP_FIELD_LIST
			       ? _("Enter next · Esc back · Tab field · a add · d delete · F1 help · ^C quit")
			       : _("Enter next · Esc back · Tab field · Ins add · F1 help · ^C quit");
	if (r->field->kind == JP_FIELD_CHOICE)
		return _("Enter next · Esc back · Up/Down move · Space choose · Tab field · F1 help · ^C quit");
	if (r->field->kind == JP_FIELD_BOOL)
		return _("Enter next · Esc back · Space toggle · Tab field · F1 help · ^C quit");
	return _("Enter next · Esc back · Tab field · F1 help · ^C quit");
}

static void draw_hints(const char *hints, int y, int x, int width)
{
	/* "Enter next · Esc back · ...": the key bold, its meaning dim, and
	 * only whole pairs (a cut "F" helps nobody). */
	const char *sep = jp_term_glyphs()->unicode ? " \xc2\xb7 " : " | ";
	const char *p = hints;
	int used = 0;

	while (*p) {
		const char *end = strstr(p, " \xc2\xb7 ");
		size_t n = end ? (size_t)(end - p) : strlen(p);
		const char *sp = memchr(p, ' ', n);
		size_t kn = sp ? (size_t)(sp - p) : n;
		int need = jp_utf8_width(p, n) + (used ? jp_utf8_swidth(sep) : 0);

		if (used + need > width)
			break;
		if (used)
			used += jp_draw_text(y, x + used, width - used, JP_STYLE_DIM, sep);
		used += jp_draw_textn(y, x + used, width - used, JP_STYLE_KEY, p, kn);
		used += jp_draw_textn(y, x + used, width - used, JP_STYLE_DIM, p + kn, n - kn);
		p += n;
		if (end)
			p += strlen(" \xc2\xb7 ");
	}
}

void jp_wizard_draw(struct jp_wizard *w)
{
	int H = LINES, W = COLS, body_h;
	char right[96], title[64];
	const char *hints;

	erase();
	snprintf(title, sizeof(title), "jobprep%s", w->opts.demo ? " --demo" : "");
	jp_draw_box(0, 0, H, W, title);
	snprintf(right, sizeof(right), " %d/%d  %s ", (int)w->step + 1, JP_STEP_COUNT,
		 _(jp_step_name(w->step)));
	jp_draw_text(0, W - 2 - jp_utf8_swidth(right), jp_utf8_swidth(right), JP_STYLE_TITLE,
		     right);
	draw_step_bar(w, 1, 2, W - 4);
	jp_draw_separator(2, 0, W);
	jp_draw_separator(H - 4, 0, W);

	body_h = H - 7;
	if (w->ops->draw)
		w->ops->draw(w, 3, 2, body_h, W - 4);
	else
		jp_form_draw(&w->form, 3, 2, body_h, W - 4);

	hints = w->ops->hints ? w->ops->hints(w) : NULL;
	if (draw_status(w, H - 3, 2, W - 4) < 2)
		draw_hints(hints ? hints : default_hints(w), H - 2, 2, W - 4);
	jp_form_place_cursor(&w->form);
}

static void ui_draw(void *payload)
{
	jp_wizard_draw(payload);
	jp_term_cursor(false);
}

static int ui_tick(void *payload)
{
	return jp_wizard_tick(payload);
}

/* ---- keys ---------------------------------------------------------------- */

/* The focused field's verdict for F1: every finding (one a line of the
 * message) a paragraph of its own; NULL when it has nothing to say. */
static char *verdict_detail(const struct jp_form_row *r)
{
	const char *label, *p, *nl;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	if (!r || !r->verdict.message || !r->verdict.message[0] ||
	    r->verdict.status == JP_CHECK_PASS || !(f = open_memstream(&text, &len)))
		return NULL;
	label = r->verdict.status == JP_CHECK_FAIL ? _("Failed") : _("Warning");
	for (p = r->verdict.message; p; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		fprintf(f, "%s%s: %.*s", p == r->verdict.message ? "" : "\n\n", label,
			nl ? (int)(nl - p) : (int)strlen(p), p);
	}
	if (fclose(f) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

void jp_wizard_help(struct jp_wizard *w)
{
	struct jp_form_row *r = jp_form_focused(&w->form);
	char *detail = w->ops->detail ? w->ops->detail(w) : NULL, title[128];
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!detail && !w->form.inactive)
		detail = verdict_detail(r);
	snprintf(title, sizeof(title), _("Help: %s"), _(jp_step_name(w->step)));
	if (!f) {
		free(detail);
		return;
	}
	if (detail)
		fprintf(f, "#%s\n%s\n\n", _("What the check found"), detail);
	fprintf(f, "#%s\n%s", _(jp_step_name(w->step)), w->ops->help ? _(w->ops->help) : "");
	if (r && r->field->help)
		fprintf(f, "\n\n#%s\n%s", _(r->field->label), _(r->field->help));
	if (r && r->field->kind == JP_FIELD_CHOICE && r->field->choices) {
		const struct jp_choice *c;

		for (c = r->field->choices; c->value; c++)
			fprintf(f, "\n\n%s: %s", _(c->label), c->help ? _(c->help) : "");
	}
	free(detail);
	if (fclose(f) != 0 || !text) {
		free(text);
		return;
	}
	w->modal_depth++;
	jp_help_show(&w->ui, title, text);
	w->modal_depth--;
	w->redraw = true;
	free(text);
}

bool jp_wizard_confirm_quit(struct jp_wizard *w, bool always)
{
	char text[1024], cmd[256], *out = NULL;
	int rc;

	if (w->written || (!always && !w->created_run && !jp_wizard_busy(w)))
		return true;
	jp_wizard_resume_command(cmd, sizeof(cmd), w);
	if (jp_wizard_busy(w)) {
		snprintf(text, sizeof(text),
			 _("Work is still running in the background (shown on the status line). "
			   "Quitting stops it and removes what it half-made. Your answers are kept: "
			   "run %s to resume. Quit now?"),
			 cmd);
	} else if (w->created_run) {
		jp_flow_get(&out, w->flow, "outputs.output_dir", NULL);
		snprintf(text, sizeof(text),
			 _("The run's folder %s was created, but no manifest is written yet: the "
			   "job cannot be launched from it. Quit anyway? The next prep takes the "
			   "folder again; your answers are kept: run %s to resume."),
			 out ? out : "", cmd);
		free(out);
	} else {
		snprintf(text, sizeof(text),
			 _("Quit jobprep? Nothing is written yet. Your answers are kept: run %s "
			   "to resume."),
			 cmd);
	}
	w->modal_depth++;
	rc = jp_confirm(&w->ui, _("Quit?"), text, _("Quit"), _("Keep going"), false);
	w->modal_depth--;
	w->redraw = true;
	return rc == 1;
}

const char *jp_wizard_resume_command(char *buf, size_t len, const struct jp_wizard *w)
{
	char *q = NULL;

	if (w->opts.profile_path && jp_sh_quote(&q, w->opts.profile_path) == 0)
		snprintf(buf, len, "jobprep%s --profile %s", w->opts.demo ? " --demo" : "", q);
	else
		snprintf(buf, len, "jobprep%s", w->opts.demo ? " --demo" : "");
	free(q);
	return buf;
}

/* -o: relative to the folder jobprep was started in, as a shell user means it. */
int jp_wizard_set_manifest_path(struct jp_flow *flow, const char *path, struct jp_error *err)
{
	struct jp_verdict v = JP_VERDICT_INIT;
	char *abs = jp_path_absolute(path);
	int rc;

	if (!abs)
		return jp_error_oom(err);
	rc = jp_flow_set(&v, flow, "review.manifest_path", abs, err);
	if (rc < 0 && v.message)
		jp_error_set(err, rc, "-o %s: %s", path, v.message);
	jp_verdict_dispose(&v);
	free(abs);
	return rc;
}

void jp_wizard_record_run(struct jp_wizard *w)
{
	const struct jp_manifest *m = jp_flow_manifest(w->flow);
	struct jp_error ignored = JP_ERROR_INIT;

	jp_jobindex_record(m->job.name, jp_flow_profile(w->flow), m->outputs.output_dir, &ignored);
	jp_error_dispose(&ignored);
}

void jp_wizard_save_draft(struct jp_wizard *w)
{
	struct jp_error err = JP_ERROR_INIT;

	if (!w->draft_path || w->written)
		return;
	if (jp_draft_save(w->draft_path, w->flow, w->step, w->opts.demo, w->profile_path,
			  &err) < 0)
		jp_wizard_status(w, JP_CHECK_WARN, "%s", jp_error_message(&err));
	jp_error_dispose(&err);
}

static void accept_step(struct jp_wizard *w)
{
	const char *msg;

	if (jp_form_accept(&w->form) < 0) {
		const char *key = w->form.refused_key;
		struct jp_form_row *r = jp_form_focused(&w->form);

		if (r && (!key || strcmp(r->key, key) != 0))
			r = NULL; /* the failing field has no row here */
		msg = w->form.refused_msg ? w->form.refused_msg
					  : _("a field needs fixing before going on");
		/* The field's label (its key when it has no row), then what is
		 * wrong with its value. */
		if (r || key)
			jp_wizard_status(w, JP_CHECK_FAIL, _("%s: %s"), r ? _(r->field->label) : key,
					 msg);
		else
			jp_wizard_status(w, JP_CHECK_FAIL, "%s", msg);
		/* it stands over background work until fixed: a row's once
		 * its field passes, another step's field's once that passes
		 * (clear_fixed_elsewhere), one with no field at the next step */
		w->status_key = strdup(r ? r->key : key ? key : "");
		return;
	}
	w->accepted[w->step] = true;
	if (w->ops->accepted)
		w->ops->accepted(w);
	if (w->step + 1 < JP_STEP_COUNT)
		jp_wizard_goto(w, w->step + 1);
	jp_wizard_save_draft(w);
}

static void handle_key(struct jp_wizard *w, const struct jp_key *key)
{
	enum jp_act act;
	int ev = JP_EV_IGNORED;

	if (jp_term_too_small()) {
		/* The notice says Ctrl-C quits: no question that could not be
		 * seen anyway. */
		if (!key->fn && key->code == JP_KEY_CTRL('c')) {
			w->quit = true;
			w->exit_code = w->written ? 0 : 130;
		}
		w->redraw = true;
		return;
	}
	act = jp_keys_lookup(jp_form_keyctx(&w->form), key);
	if (act == JP_ACT_RESIZE) {
		w->redraw = true;
		return;
	}
	if (act == JP_ACT_REDRAW) {
		clearok(curscr, TRUE);
		w->redraw = true;
		return;
	}
	if (w->ops->key)
		ev = w->ops->key(w, act, key);
	if (!(ev & JP_EV_HANDLED))
		ev = jp_form_key(&w->form, act, key);
	if (ev & JP_EV_HANDLED) {
		if (ev & JP_EV_REDRAW)
			w->redraw = true;
		return;
	}
	switch (act) {
	case JP_ACT_ACCEPT:
		accept_step(w);
		break;
	case JP_ACT_BACK:
		if (w->step == 0) {
			/* Esc is also "cancel this question": on the first screen
			 * it never quits without asking. */
			if (jp_wizard_confirm_quit(w, true)) {
				w->quit = true;
				w->exit_code = 130;
			}
			break;
		}
		jp_form_commit(&w->form);
		jp_wizard_goto(w, w->step - 1);
		break;
	case JP_ACT_HELP:
		jp_wizard_help(w);
		break;
	case JP_ACT_QUIT:
		if (jp_wizard_confirm_quit(w, false)) {
			w->quit = true;
			w->exit_code = w->written ? 0 : 130;
		}
		break;
	default:
		break;
	}
	w->redraw = true;
}

void jp_wizard_init(struct jp_wizard *w)
{
	w->ui.draw = ui_draw;
	w->ui.tick = ui_tick;
	w->ui.payload = w;
	if (!w->ops)
		jp_wizard_goto(w, w->step);
	w->redraw = true;
}

void jp_wizard_dispose(struct jp_wizard *w)
{
	jp_wizard_cancel_all(w);
	if (w->ops && w->ops->leave)
		w->ops->leave(w);
	w->ops = NULL;
	jp_form_dispose(&w->form);
	free(w->review);
	w->review = NULL;
	free(w->status_key);
	w->status_key = NULL;
	free(w->offered_job);
	w->offered_job = NULL;
}

int jp_wizard_run(struct jp_wizard *w)
{
	struct jp_key key;
	int sig;

	jp_wizard_init(w);

	for (;;) {
		sig = jp_term_signal();
		if (sig) {
			w->exit_code = 128 + sig;
			break;
		}
		if (w->quit)
			break;
		if (w->rebuild) {
			w->rebuild = false;
			jp_form_build(&w->form);
			w->redraw = true;
		}
		if (w->redraw) {
			w->redraw = false;
			if (jp_term_too_small())
				jp_draw_too_small();
			else
				jp_wizard_draw(w);
			refresh();
		}
		if (w->ops->idle) {
			w->ops->idle(w);
			if (w->quit)
				continue;
		}
		if (jp_term_read_key(&key, 100))
			handle_key(w, &key);
		else if (jp_form_idle(&w->form) & JP_EV_REDRAW)
			w->redraw = true;
		clear_fixed_status(w);
		if (jp_wizard_tick(w) & JP_EV_REDRAW)
			w->redraw = true;
	}
	if (!w->written)
		jp_wizard_save_draft(w);
	if (jp_wizard_busy(w)) {
		/* Say why quitting takes a moment, then stop what runs. */
		jp_wizard_status(w, JP_CHECK_WARN, "%s", _("stopping background work..."));
		size_t i;

		for (i = 0; i < w->n_running; i++)
			jp_worker_cancel(w->running[i].worker);
		if (!jp_term_too_small()) {
			jp_wizard_draw(w);
			refresh();
		}
		jp_wizard_cancel_all(w);
	}
	return w->exit_code;
}
