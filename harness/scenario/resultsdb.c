// SPDX-License-Identifier: GPL-2.0
/*
 * The results database (resultsdb.h), on SQLite: one transaction per
 * suite, prepared statements, the schema created on first use and its
 * version in PRAGMA user_version.
 */
#include "scenario/resultsdb.h"

#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>
#include <sqlite3.h>

#include "boot/kernel.h"
#include "lib/jsonout.h"
#include "lib/metrics.h"
#include "lib/provenance.h"
#include "lib/util.h"
#include "scenario/check.h"

#define RDB_VERSION 1

static const char schema[] =
	"CREATE TABLE IF NOT EXISTS suites (id INTEGER PRIMARY KEY, at TEXT NOT NULL, dir TEXT,"
	" host TEXT, netlab_version TEXT, netlab_commit TEXT, qemu_version TEXT,"
	" kernel_release TEXT, kernel_sha256 TEXT, kernel_config_sha256 TEXT,"
	" kernel_cache_key TEXT, kernel_source TEXT, kernel_flavour TEXT, exit_code INTEGER,"
	" wall_s REAL);"
	"CREATE TABLE IF NOT EXISTS cases (id INTEGER PRIMARY KEY,"
	" suite INTEGER NOT NULL REFERENCES suites(id), name TEXT NOT NULL, path TEXT,"
	" outcome TEXT NOT NULL, reason TEXT, runs INTEGER);"
	"CREATE TABLE IF NOT EXISTS metrics (case_id INTEGER NOT NULL REFERENCES cases(id),"
	" name TEXT NOT NULL, value REAL);"
	"CREATE TABLE IF NOT EXISTS checks (case_id INTEGER NOT NULL REFERENCES cases(id),"
	" name TEXT NOT NULL, expr TEXT, value REAL, verdict TEXT NOT NULL);"
	"CREATE INDEX IF NOT EXISTS metrics_name ON metrics(name, case_id);"
	"CREATE INDEX IF NOT EXISTS cases_name ON cases(name);"
	"CREATE INDEX IF NOT EXISTS checks_case ON checks(case_id);";

const char *resultsdb_path(const char *opt)
{
	const char *p = opt && *opt ? opt : getenv("NETLAB_DB");

	if (!p || !*p)
		p = "runs/netlab.db";
	return strcmp(p, "none") ? p : NULL;
}

static int db_fail(sqlite3 *db, const char *path, const char *what, char **err)
{
	err_set(err, "results database '%s': %s: %s\nhint: --db FILE (or NETLAB_DB) names another; NETLAB_DB=none records nothing",
		path, what, db ? sqlite3_errmsg(db) : "out of memory");
	sqlite3_close(db);
	return -EIO;
}

/* @path opened (created when @create), its schema checked or made. */
static int db_open(const char *path, bool create, sqlite3 **out, char **err)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st;
	int version = 0;

	*out = NULL;
	if (!create && access(path, R_OK)) {
		err_set(err, "results database '%s': %s\nhint: netlab regress records every suite there (--db FILE, NETLAB_DB)",
			path, strerror(errno));
		return -ENOENT;
	}
	if (create) {
		char *dir = xstrdup(path), *slash = strrchr(dir, '/');

		if (slash && slash != dir) {
			*slash = '\0';
			mkdir_p(dir, 0755);
		}
		free(dir);
	}
	if (sqlite3_open_v2(path, &db, create ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
					     : SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		return db_fail(db, path, "cannot open it", err);
	sqlite3_busy_timeout(db, 30000);	/* suites recorded side by side wait their turn */
	if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK)
		return db_fail(db, path, "not an SQLite database", err);
	if (sqlite3_step(st) == SQLITE_ROW)
		version = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (version > RDB_VERSION) {
		err_set(err, "results database '%s': schema version %d, newer than this netlab's (%d)\nhint: use the netlab that wrote it, or another --db",
			path, version, RDB_VERSION);
		sqlite3_close(db);
		return -EINVAL;
	}
	if (create && version < RDB_VERSION) {
		if (sqlite3_exec(db, schema, NULL, NULL, NULL) != SQLITE_OK ||
		    sqlite3_exec(db, "PRAGMA user_version = 1", NULL, NULL, NULL) != SQLITE_OK)
			return db_fail(db, path, "cannot create its tables", err);
	} else if (!create && version != RDB_VERSION) {
		err_set(err, "results database '%s': no netlab tables in it\nhint: netlab regress records every suite there", path);
		sqlite3_close(db);
		return -EINVAL;
	}
	*out = db;
	return 0;
}

static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s && *s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

static void bind_num(sqlite3_stmt *st, int i, double v)
{
	if (isnan(v) || isinf(v))
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_double(st, i, v);
}

/* The QEMU version of the suite's first run that has a result.json. */
static char *qemu_version(const struct regress *r)
{
	for (size_t i = 0; i < r->n; i++)
		for (unsigned int k = 0; k < r->s[i].n_runs; k++) {
			char *p = xasprintf("%s/result.json", r->s[i].runs[k].dir);
			struct json_object *j = json_file_get(p), *q, *v;
			char *out = NULL;

			free(p);
			if (j && json_object_object_get_ex(j, "qemu", &q) && q &&
			    json_object_object_get_ex(q, "version", &v) && v)
				out = xstrdup(json_object_get_string(v));
			json_object_put(j);
			if (out)
				return out;
		}
	return NULL;
}

static int insert_suite(sqlite3 *db, const struct regress *r, long long *id)
{
	const struct kernel_id *k = r->kid;
	char at[32], host[256] = "";
	time_t t = time(NULL);
	char *qemu = qemu_version(r);
	sqlite3_stmt *st;
	int ret;

	strftime(at, sizeof(at), "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
	gethostname(host, sizeof(host) - 1);
	if (sqlite3_prepare_v2(db,
			       "INSERT INTO suites (at, dir, host, netlab_version, netlab_commit,"
			       " qemu_version, kernel_release, kernel_sha256, kernel_config_sha256,"
			       " kernel_cache_key, kernel_source, kernel_flavour, exit_code, wall_s)"
			       " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)", -1, &st, NULL) != SQLITE_OK) {
		free(qemu);
		return -EIO;
	}
	bind_text(st, 1, at);
	bind_text(st, 2, r->dir);
	bind_text(st, 3, host);
	bind_text(st, 4, provenance_version());
	bind_text(st, 5, provenance_commit());
	bind_text(st, 6, qemu);
	bind_text(st, 7, k ? k->release : NULL);
	bind_text(st, 8, k ? k->sha256 : NULL);
	bind_text(st, 9, k ? k->config_sha256 : NULL);
	bind_text(st, 10, k ? k->cache_key : NULL);
	bind_text(st, 11, k ? k->source : NULL);
	bind_text(st, 12, k ? k->flavour : NULL);
	sqlite3_bind_int(st, 13, regress_exit_code(r));
	bind_num(st, 14, r->wall_s);
	ret = sqlite3_step(st) == SQLITE_DONE ? 0 : -EIO;
	sqlite3_finalize(st);
	free(qemu);
	*id = sqlite3_last_insert_rowid(db);
	return ret;
}

static int insert_case(sqlite3 *db, long long suite, const struct regress_scn *rs,
		       sqlite3_stmt *c, sqlite3_stmt *m, sqlite3_stmt *k)
{
	long long id;

	sqlite3_reset(c);
	sqlite3_bind_int64(c, 1, suite);
	bind_text(c, 2, rs->scn->name);
	bind_text(c, 3, rs->scn->path);
	bind_text(c, 4, regress_outcome_name(rs->outcome));
	bind_text(c, 5, rs->reason);
	sqlite3_bind_int(c, 6, (int)rs->n_runs);
	if (sqlite3_step(c) != SQLITE_DONE)
		return -EIO;
	id = sqlite3_last_insert_rowid(db);
	for (size_t i = 0; rs->median && i < metrics_count(rs->median); i++) {
		const char *name;
		double v;

		metrics_at(rs->median, i, &name, &v);
		sqlite3_reset(m);
		sqlite3_bind_int64(m, 1, id);
		bind_text(m, 2, name);
		bind_num(m, 3, v);
		if (sqlite3_step(m) != SQLITE_DONE)
			return -EIO;
	}
	for (size_t i = 0; rs->checks && i < rs->scn->n_checks; i++) {
		const struct regress_check *rc = &rs->checks[i];
		const char *text = check_text(rc->check->expr);

		sqlite3_reset(k);
		sqlite3_bind_int64(k, 1, id);
		bind_text(k, 2, rc->check->name);
		bind_text(k, 3, text);
		bind_num(k, 4, rc->res.status == CHECK_PASS || rc->res.status == CHECK_FAIL
				       ? rc->res.value : NAN);
		bind_text(k, 5, check_status_name(rc->res.status));
		if (sqlite3_step(k) != SQLITE_DONE)
			return -EIO;
	}
	return 0;
}

int resultsdb_record(const char *path, const struct regress *r, char **err)
{
	sqlite3_stmt *c = NULL, *m = NULL, *k = NULL;
	sqlite3 *db;
	long long suite;
	int ret = db_open(path, true, &db, err);

	if (ret)
		return ret;
	ret = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK ? 0 : -EIO;
	if (!ret)
		ret = insert_suite(db, r, &suite);
	if (!ret &&
	    (sqlite3_prepare_v2(db, "INSERT INTO cases (suite, name, path, outcome, reason, runs) VALUES (?,?,?,?,?,?)",
				-1, &c, NULL) != SQLITE_OK ||
	     sqlite3_prepare_v2(db, "INSERT INTO metrics (case_id, name, value) VALUES (?,?,?)", -1, &m,
				NULL) != SQLITE_OK ||
	     sqlite3_prepare_v2(db, "INSERT INTO checks (case_id, name, expr, value, verdict) VALUES (?,?,?,?,?)",
				-1, &k, NULL) != SQLITE_OK))
		ret = -EIO;
	for (size_t i = 0; !ret && i < r->n; i++)
		if (r->s[i].outcome != RO_NOT_RUN)
			ret = insert_case(db, suite, &r->s[i], c, m, k);
	sqlite3_finalize(c);
	sqlite3_finalize(m);
	sqlite3_finalize(k);
	if (!ret && sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		ret = -EIO;
	if (ret) {
		char *why = xasprintf("cannot record the suite: %s", sqlite3_errmsg(db));

		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		db_fail(db, path, why, err);
		free(why);
		return ret;
	}
	sqlite3_close(db);
	return 0;
}

/* A column as an owned string ("" for NULL). */
static char *col(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	return xstrdup(s ? (const char *)s : "");
}

static bool case_matches(const char *glob, const char *name)
{
	return !glob || !strcmp(glob, name) || !fnmatch(glob, name, 0);
}

int resultsdb_values(const char *path, const char *metric, const char *case_glob,
		     struct rdb_value **out, size_t *n, char **err)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	struct rdb_value *v = NULL;
	size_t nv = 0, cap = 0;
	int ret = db_open(path, false, &db, err);

	*out = NULL;
	*n = 0;
	if (ret)
		return ret;
	if (sqlite3_prepare_v2(db,
			       "SELECT s.id, s.at, coalesce(s.kernel_source, s.kernel_release, ''),"
			       " c.name, c.outcome, m.value FROM metrics m JOIN cases c ON m.case_id = c.id"
			       " JOIN suites s ON c.suite = s.id WHERE m.name = ? ORDER BY s.id, c.id",
			       -1, &st, NULL) != SQLITE_OK)
		return db_fail(db, path, "cannot read it", err);
	sqlite3_bind_text(st, 1, metric, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const unsigned char *cn = sqlite3_column_text(st, 3);

		if (!case_matches(case_glob, cn ? (const char *)cn : ""))
			continue;
		xgrow_array(&v, &cap, nv + 1, sizeof(*v));
		v[nv].suite = sqlite3_column_int64(st, 0);
		v[nv].at = col(st, 1);
		v[nv].kernel = col(st, 2);
		v[nv].case_name = col(st, 3);
		v[nv].outcome = col(st, 4);
		v[nv].value = sqlite3_column_type(st, 5) == SQLITE_NULL ? NAN
									 : sqlite3_column_double(st, 5);
		nv++;
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	*out = v;
	*n = nv;
	return 0;
}

void resultsdb_values_free(struct rdb_value *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].at);
		free(v[i].kernel);
		free(v[i].case_name);
		free(v[i].outcome);
	}
	free(v);
}

unsigned int rdb_flaky_fold(const char *const *kernels, const bool *passed, size_t n)
{
	unsigned int flaky = 0;

	for (size_t i = 0; i < n; i++) {
		if (passed[i])
			continue;
		for (size_t k = i + 1; k < n; k++)
			if (passed[k] && !strcmp(kernels[k], kernels[i])) {
				flaky++;
				break;
			}
	}
	return flaky;
}

/* The verdicts of one (case, check) gathered by resultsdb_flakes(). */
struct verdicts {
	char **kernel;
	bool *passed;
	size_t n, cap_k, cap_p;
};

static void flake_close(struct rdb_flake *f, struct verdicts *vd)
{
	f->flaky = rdb_flaky_fold((const char *const *)vd->kernel, vd->passed, vd->n);
	for (size_t i = 0; i < vd->n; i++)
		free(vd->kernel[i]);
	vd->n = 0;
}

int resultsdb_flakes(const char *path, const char *case_glob, struct rdb_flake **out, size_t *n,
		     char **err)
{
	struct verdicts vd = { 0 };
	struct rdb_flake *f = NULL;
	size_t nf = 0, cap = 0;
	sqlite3 *db;
	sqlite3_stmt *st;
	int ret = db_open(path, false, &db, err);

	*out = NULL;
	*n = 0;
	if (ret)
		return ret;
	/* pass and fail only: a check not measured is the run's, not the check's */
	if (sqlite3_prepare_v2(db,
			       "SELECT c.name, k.name, k.verdict, coalesce(s.kernel_sha256, s.kernel_release, '')"
			       " FROM checks k JOIN cases c ON k.case_id = c.id JOIN suites s ON c.suite = s.id"
			       " WHERE k.verdict IN ('pass', 'fail') ORDER BY c.name, k.name, s.id",
			       -1, &st, NULL) != SQLITE_OK)
		return db_fail(db, path, "cannot read it", err);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *cn = (const char *)sqlite3_column_text(st, 0);
		const char *kn = (const char *)sqlite3_column_text(st, 1);
		bool pass = !strcmp((const char *)sqlite3_column_text(st, 2), "pass");

		if (!cn || !kn || !case_matches(case_glob, cn))
			continue;
		if (!nf || strcmp(f[nf - 1].case_name, cn) || strcmp(f[nf - 1].check, kn)) {
			if (nf)
				flake_close(&f[nf - 1], &vd);
			xgrow_array(&f, &cap, nf + 1, sizeof(*f));
			memset(&f[nf], 0, sizeof(*f));
			f[nf].case_name = xstrdup(cn);
			f[nf].check = xstrdup(kn);
			nf++;
		}
		f[nf - 1].runs++;
		f[nf - 1].failed += !pass;
		xgrow_array(&vd.kernel, &vd.cap_k, vd.n + 1, sizeof(*vd.kernel));
		xgrow_array(&vd.passed, &vd.cap_p, vd.n + 1, sizeof(*vd.passed));
		vd.kernel[vd.n] = col(st, 3);
		vd.passed[vd.n++] = pass;
	}
	if (nf)
		flake_close(&f[nf - 1], &vd);
	free(vd.kernel);
	free(vd.passed);
	sqlite3_finalize(st);
	sqlite3_close(db);
	*out = f;
	*n = nf;
	return 0;
}

void resultsdb_flakes_free(struct rdb_flake *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(f[i].case_name);
		free(f[i].check);
	}
	free(f);
}
