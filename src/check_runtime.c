/* The job's runtime as the machine jobprep runs on sees it: the checks of
 * preflight_runtime.sh that make sense before the job (the modules the code
 * imports and the Python version its syntax needs, /dev/shm for DataLoader
 * workers, the interfaces job.env names for NCCL and gloo). Warnings only:
 * this machine is not a Worker, each Worker's preflight.sh has the word. */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

#include "check_internal.h"
#include "git_internal.h" /* jp_run_capture */
#include "jobprep/i18n.h"
#include "manifest_internal.h"
#include "probe_internal.h"

#define MAX_MODULES 64 /* asked of python3, at most */
#define MAX_ARGS (3 + MAX_MODULES)

/* The version, then the modules python3 cannot find (find_spec: nothing is
 * imported); preflight_runtime.sh asks each Worker's python3 the same. */
static const char probe_py[] =
	"import sys, importlib.util\n"
	"print('%d.%d' % sys.version_info[:2])\n"
	"std = set(getattr(sys, 'stdlib_module_names', ())) | set(sys.builtin_module_names)\n"
	"miss = []\n"
	"for name in sys.argv[1:]:\n"
	"    if name in std:\n"
	"        continue\n"
	"    try:\n"
	"        found = importlib.util.find_spec(name) is not None\n"
	"    except Exception:\n"
	"        found = False\n"
	"    if not found:\n"
	"        miss.append(name)\n"
	"print(', '.join(miss))\n";

static int version_below(const char *have, const char *need)
{
	unsigned hm = 0, hn = 0, nm = 0, nn = 0;

	if (sscanf(have, "%u.%u", &hm, &hn) != 2 || sscanf(need, "%u.%u", &nm, &nn) != 2)
		return 0;
	return hm < nm || (hm == nm && hn < nn);
}

static int python_here(struct jp_manifest *m)
{
	const struct jp_code_python *py = &m->code.python;
	char *argv[MAX_ARGS + 1] = { (char *)"python3", (char *)"-c", (char *)probe_py };
	char out[4096], *nl;
	size_t k = 3;
	int st;

	for (size_t i = 0; i < py->n_modules && k < MAX_ARGS; i++)
		argv[k++] = py->modules[i];
	argv[k] = NULL;
	st = jp_run_capture(argv, NULL, out, sizeof(out), (int)jp_probe_default_timeout_ms());
	if (st != 0)
		return jp_manifest_add_check(
			m, "runtime.python", JP_CHECK_WARN, NULL, "%s",
			_("python3 here did not say which of the modules the code imports it has (it "
			  "is missing, or did not answer in time): each Worker's preflight.sh asks "
			  "its own"));
	nl = strchr(out, '\n');
	if (!nl)
		return 0;
	*nl++ = '\0';
	nl[strcspn(nl, "\n")] = '\0';
	if (py->min_version && version_below(out, py->min_version) &&
	    jp_manifest_add_check(m, "runtime.python_version", JP_CHECK_WARN, NULL,
				  _("the code needs Python %s or newer (its syntax), but python3 here "
				    "is %s: the job's image needs a newer one"),
				  py->min_version, out) < 0)
		return JP_ENOMEM;
	if (*nl)
		return jp_manifest_add_check(
			m, "runtime.modules", JP_CHECK_WARN, NULL,
			_("python3 here cannot find the modules the code imports: %s: the job's "
			  "image must have them (each Worker's preflight.sh checks its own python3)"),
			nl);
	return 0;
}

static int shm_here(struct jp_manifest *m)
{
	struct statvfs sv;
	unsigned long long bytes;

	if (!m->code.python.dataloader_workers)
		return 0;
	bytes = statvfs("/dev/shm", &sv) == 0 ? (unsigned long long)sv.f_blocks * sv.f_frsize : 0;
	if (bytes >= JP_RUNTIME_SHM_MIN_BYTES)
		return 0;
	return jp_manifest_add_check(
		m, "runtime.shm", JP_CHECK_WARN, "/dev/shm",
		_("/dev/shm has %llu MiB here, and the code starts DataLoader workers, which pass "
		  "their batches through it: give the job at least %llu MiB there (docker "
		  "--shm-size, a memory emptyDir at /dev/shm on Kubernetes), or set num_workers=0"),
		bytes >> 20, (unsigned long long)(JP_RUNTIME_SHM_MIN_BYTES >> 20));
}

static const char *env_of(const struct jp_manifest *m, const char *name)
{
	for (size_t i = 0; i < m->job.n_env; i++)
		if (m->job.env[i].name && strcmp(m->job.env[i].name, name) == 0)
			return m->job.env[i].value;
	return NULL;
}

/* An entry of dir named want (exact) or starting with it. */
static int has_entry(const char *dir, const char *want, size_t n, int exact)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int found = 0;

	while (d && !found && (e = readdir(d)) != NULL)
		found = e->d_name[0] != '.' && strncmp(e->d_name, want, n) == 0 &&
			(!exact || e->d_name[n] == '\0');
	if (d)
		closedir(d);
	return found;
}

/* Every name of job.env's var (a comma list: ^ excludes, = exact, NAME:PORT
 * is NAME) is an entry of dir. */
static int names_here(struct jp_manifest *m, const char *var, const char *dir, int exact)
{
	const char *v = env_of(m, var), *p;
	int rc = 0;

	if (!v || !*v || *v == '^')
		return 0;
	if (*v == '=') {
		exact = 1;
		v++;
	}
	for (p = v; rc == 0 && *p; p += *p == ',') {
		size_t n = strcspn(p, ",:");
		const char *name = p;

		p += strcspn(p, ",");
		if (n == 0 || n > 255 || has_entry(dir, name, n, exact))
			continue;
		rc = jp_manifest_add_check(
			m, "runtime.interfaces", JP_CHECK_WARN, NULL,
			_("job.env's %s names %.*s, which this machine does not have under %s: if the "
			  "Workers do not have it either, NCCL or gloo waits until its timeout (each "
			  "Worker's preflight.sh checks its own)"),
			var, (int)n, name, dir);
	}
	return rc;
}

int jp_check_runtime(struct jp_manifest *m, struct jp_error *err)
{
	int rc = 0;

	if (m->code.python.recorded && m->code.python.n_modules + !!m->code.python.min_version)
		rc = python_here(m);
	if (rc == 0 && m->code.python.recorded)
		rc = shm_here(m);
	if (rc == 0)
		rc = names_here(m, "NCCL_SOCKET_IFNAME", "/sys/class/net", 0);
	if (rc == 0)
		rc = names_here(m, "GLOO_SOCKET_IFNAME", "/sys/class/net", 1);
	if (rc == 0)
		rc = names_here(m, "NCCL_IB_HCA", "/sys/class/infiniband", 0);
	return rc < 0 ? jp_error_oom(err) : 0;
}
