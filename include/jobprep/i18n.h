/* Translation of user-facing text: _() marks and translates, N_() only marks,
 * P_(one, many, n) picks the plural form for n ("1 archive", "2 archives"). */
#ifndef JOBPREP_I18N_H
#define JOBPREP_I18N_H

#ifdef ENABLE_NLS
#include <libintl.h>
#define _(s) dgettext("jobprep", s)
#define P_(s, p, n) dngettext("jobprep", s, p, n)
#else
#define _(s) (s)
#define P_(s, p, n) ((n) == 1 ? (s) : (p))
#endif
#define N_(s) (s)

#endif
