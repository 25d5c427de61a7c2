# The front ends: the ncurses wizard and the command line, one binary.
bin_PROGRAMS += jobprep
jobprep_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/ui
jobprep_CFLAGS = $(AM_CFLAGS) $(NCURSESW_CFLAGS) $(CJSON_CFLAGS)
jobprep_LDADD = $(CORE_LIBS) $(NCURSESW_LIBS)
jobprep_SOURCES = \
	ui/main.c \
	ui/cli/cli.h ui/cli/cli.c
dist_man_MANS += ui/cli/jobprep.1
# cli commands
jobprep_SOURCES += ui/cli/cmd_init.c
jobprep_SOURCES += ui/cli/cmd_scan.c
jobprep_SOURCES += ui/cli/cli_port.h ui/cli/cli_port.c ui/cli/cmd_clone.c ui/cli/cmd_repo.c
jobprep_SOURCES += ui/cli/cmd_schema.c ui/cli/cmd_check.c ui/cli/cmd_env.c

# tui
