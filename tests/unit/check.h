/*
 * check.h: the few assertions the C tests need. Each failed check prints
 * file:line and what differed; check_finish prints the plain closing line
 * "N passed, N failed" and returns the exit status.
 */
#ifndef TP_CHECK_H
#define TP_CHECK_H

#include <stdint.h>

void check_true(int ok, const char *what, const char *file, int line);
void check_near(double got, double want, double tolerance, const char *what, const char *file, int line);
void check_int(int64_t got, int64_t want, const char *what, const char *file, int line);
void check_str(const char *got, const char *want, const char *what, const char *file, int line);
int check_finish(const char *suite);

/* Opens tests/golden/<name> under the tests folder given as argv[1] (ctest
 * passes it; "tests" otherwise) and reads past its header line. NULL, with a
 * failed check, when the file is missing or empty. */
#include <stdio.h>
FILE *check_open_golden(int argc, char **argv, const char *name);

/* The two ways the core refuses input, each naming the field at fault:
 * tp_estimate on a config, and a JSON document read and validated. */
#include "trainplan.h"
void check_refused(const tp_config *c, const char *path, const char *file, int line);
/* c's estimate, which must succeed (a failed check, with the core's
 * message, when it does not). */
tp_estimate_result check_estimate(const tp_config *c, const char *file, int line);
/* The path a JSON config is refused with by tp_config_from_json or
 * tp_config_validate, or "" when it is accepted (out, when not NULL, gets
 * the config read). */
const char *check_json_error(const char *json, tp_config *out);

#define CHECK(cond) check_true((cond), #cond, __FILE__, __LINE__)
#define CHECK_REFUSED(config, path) check_refused((config), (path), __FILE__, __LINE__)
#define CHECK_ESTIMATE(config) check_estimate((config), __FILE__, __LINE__)
#define CHECK_NEAR(got, want, tol) check_near((got), (want), (tol), #got, __FILE__, __LINE__)
#define CHECK_INT(got, want) check_int((int64_t)(got), (int64_t)(want), #got, __FILE__, __LINE__)
#define CHECK_STR(got, want) check_str((got), (want), #got, __FILE__, __LINE__)
/* A check that fails where it stands, saying why. */
#define CHECK_FAIL(why) check_true(0, (why), __FILE__, __LINE__)

#endif
