# The front ends: the ncurses wizard and the command line, one binary.
bin_PROGRAMS += jobprep
jobprep_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/ui
jobprep_CFLAGS = $(AM_CFLAGS) $(NCURSESW_CFLAGS) $(CJSON_CFLAGS)
jobprep_LDADD = $(CORE_LIBS) $(NCURSESW_LIBS)
jobprep_SOURCES = \
	ui/main.c ui/signals.h ui/signals.c \
	ui/cli/cli.h ui/cli/cli.c \
	ui/cli/options.h ui/cli/options.c ui/cli/usage.c
# The man page: its synopsis and options made from the option tables
# (ui/cli/options.h) by the program just built, in the C locale; the
# template is distributed, the page is made in the build tree.
nodist_man_MANS = ui/cli/jobprep.1
EXTRA_DIST += ui/cli/jobprep.1.in
CLEANFILES += ui/cli/jobprep.1 ui/cli/jobprep.1.tmp
ui/cli/jobprep.1: $(srcdir)/ui/cli/jobprep.1.in jobprep$(EXEEXT)
	$(AM_V_GEN)$(MKDIR_P) ui/cli && \
	LC_ALL=C LANGUAGE= ./jobprep$(EXEEXT) --dump-man $(srcdir)/ui/cli/jobprep.1.in >$@.tmp && \
	mv $@.tmp $@
# cli commands
jobprep_SOURCES += ui/cli/cmd_init.c
jobprep_SOURCES += ui/cli/cmd_scan.c
jobprep_SOURCES += ui/cli/cli_port.h ui/cli/cli_port.c ui/cli/cmd_clone.c ui/cli/cmd_repo.c
jobprep_SOURCES += ui/cli/cmd_schema.c ui/cli/cmd_check.c ui/cli/cmd_env.c
jobprep_SOURCES += ui/cli/cmd_export.c
jobprep_SOURCES += ui/cli/cmd_preflight.c
# what a manifest says, and the runs prepared for a job
jobprep_SOURCES += ui/cli/cmd_show.c ui/cli/cmd_runs.c
# the local mirror cache: list it, clear it
jobprep_SOURCES += ui/cli/cmd_cache.c
jobprep_SOURCES += ui/cli/cmd_stage.c
# what several commands print alike: checks, JSON documents
jobprep_SOURCES += ui/cli/output.h ui/cli/output.c

# tui
jobprep_SOURCES += ui/tui/tui.h ui/tui/tui_main.c \
	ui/tui/term.h ui/tui/term.c ui/tui/draw.h ui/tui/draw.c \
	ui/tui/utf8.h ui/tui/utf8.c ui/tui/keys.h ui/tui/keys.c \
	ui/tui/lineedit.h ui/tui/lineedit.c ui/tui/complete.h ui/tui/complete.c \
	ui/tui/widgets.h ui/tui/modal.c ui/tui/confirm.c ui/tui/secret.c ui/tui/help.c \
	ui/tui/browser.c ui/tui/textfield.c ui/tui/radio.c ui/tui/checkbox.c \
	ui/tui/listbox.c ui/tui/progress.c \
	ui/tui/form.h ui/tui/form.c ui/tui/form_draw.c ui/tui/form_internal.h \
	ui/tui/draft.h ui/tui/draft.c \
	ui/tui/wizard.h ui/tui/wizard.c ui/tui/earlier_run.c \
	ui/tui/step_job.c ui/tui/step_code.c ui/tui/step_data.c \
	ui/tui/step_outputs.c ui/tui/step_launch.c ui/tui/step_review.c

# shell completion: bash's file is named after the command it completes
bashcompdir = $(datadir)/bash-completion/completions
zshcompdir = $(datadir)/zsh/site-functions
dist_zshcomp_DATA = ui/completion/_jobprep
EXTRA_DIST += ui/completion/jobprep.bash
install-data-local: install-bash-completion
uninstall-local: uninstall-bash-completion
install-bash-completion:
	$(MKDIR_P) '$(DESTDIR)$(bashcompdir)'
	$(INSTALL_DATA) '$(srcdir)/ui/completion/jobprep.bash' '$(DESTDIR)$(bashcompdir)/jobprep'
uninstall-bash-completion:
	rm -f '$(DESTDIR)$(bashcompdir)/jobprep'
.PHONY: install-bash-completion uninstall-bash-completion
