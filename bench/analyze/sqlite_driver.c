/* The program `bench/run analyze` analyzes with the SQLite amalgamation
 * (bench/analyze/sqlite.py): runs SQL from untrusted input on an in-memory
 * database and prints the rows. The SQL comes from the command line
 * (argv[1..] joined by spaces), else the SQLITE_SQL environment variable,
 * else standard input: the libc taint configuration's sources (argv, getenv,
 * fgets), flowing into sqlite3_exec and, through the rows, printf.
 *
 *   sqlite_driver "create table t(x); insert into t values (1),(2); select * from t"
 *   echo "select sqlite_version()" | sqlite_driver
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sqlite3.h"

static int print_row(void *rows, int n, char **values, char **names) {
    ++*(long *)rows;
    for (int i = 0; i < n; ++i) printf("%s=%s\n", names[i], values[i] ? values[i] : "NULL");
    printf("\n");
    return 0;
}

/* Appends s to the heap string *sql (of length *len), or exits when memory runs out. */
static void append(char **sql, size_t *len, const char *s, const char *sep) {
    size_t n = strlen(s), m = *len ? strlen(sep) : 0;
    char *p = realloc(*sql, *len + m + n + 1);
    if (!p) { fprintf(stderr, "out of memory\n"); exit(1); }
    memcpy(p + *len, sep, m);
    memcpy(p + *len + m, s, n + 1);
    *sql = p;
    *len += m + n;
}

int main(int argc, char **argv) {
    char *sql = NULL, line[4096];
    size_t len = 0;
    const char *env = getenv("SQLITE_SQL");
    if (argc > 1) for (int i = 1; i < argc; ++i) append(&sql, &len, argv[i], " ");
    else if (env) append(&sql, &len, env, "");
    else while (fgets(line, sizeof line, stdin)) append(&sql, &len, line, "");
    if (!sql) { fprintf(stderr, "usage: %s SQL... (or SQLITE_SQL=..., or SQL on stdin)\n", argv[0]); return 2; }

    sqlite3 *db;
    if (sqlite3_open(":memory:", &db) != SQLITE_OK) {
        fprintf(stderr, "sqlite3_open: %s\n", sqlite3_errmsg(db));
        return 1;
    }
    long rows = 0;
    char *err = NULL;
    int rc = sqlite3_exec(db, sql, print_row, &rows, &err);
    if (rc != SQLITE_OK) fprintf(stderr, "error: %s\n", err ? err : sqlite3_errstr(rc));
    else fprintf(stderr, "%ld row(s)\n", rows);
    sqlite3_free(err);
    sqlite3_close(db);
    free(sql);
    return rc == SQLITE_OK ? 0 : 1;
}
