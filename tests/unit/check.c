#include "check.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int passed;
static int failed;

void check_true(int ok, const char *what, const char *file, int line)
{
    if (ok) {
        passed++;
        return;
    }
    failed++;
    fprintf(stderr, "%s:%d: check failed: %s\n", file, line, what);
}

void check_near(double got, double want, double tolerance, const char *what, const char *file, int line)
{
    if (fabs(got - want) <= tolerance) {
        passed++;
        return;
    }
    failed++;
    fprintf(stderr, "%s:%d: %s = %.6g, want %.6g within %g\n", file, line, what, got, want, tolerance);
}

void check_int(int64_t got, int64_t want, const char *what, const char *file, int line)
{
    if (got == want) {
        passed++;
        return;
    }
    failed++;
    fprintf(stderr, "%s:%d: %s = %lld, want %lld\n", file, line, what, (long long)got, (long long)want);
}

void check_str(const char *got, const char *want, const char *what, const char *file, int line)
{
    if (got != NULL && strcmp(got, want) == 0) {
        passed++;
        return;
    }
    failed++;
    fprintf(stderr, "%s:%d: %s = \"%s\", want \"%s\"\n", file, line, what, got ? got : "(null)", want);
}

int check_finish(const char *suite)
{
    printf("%s: %d passed, %d failed\n", suite, passed, failed);
    return failed == 0 ? 0 : 1;
}

FILE *check_open_golden(int argc, char **argv, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/golden/%s", argc > 1 ? argv[1] : "tests", name);
    FILE *csv = fopen(path, "r");
    char header[1024];
    if (csv != NULL && fgets(header, sizeof header, csv) == NULL) {
        fclose(csv);
        csv = NULL;
    }
    check_true(csv != NULL, path, __FILE__, __LINE__);
    return csv;
}

void check_refused(const tp_config *c, const char *path, const char *file, int line)
{
    tp_estimate_result r;
    tp_error err = {TP_OK, "", ""};
    const tp_status status = tp_estimate(c, &r, &err);
    check_int(status, TP_ERR_INVALID, "tp_estimate status", file, line);
    check_str(err.path, path, "error path", file, line);
}

tp_estimate_result check_estimate(const tp_config *c, const char *file, int line)
{
    tp_estimate_result r;
    tp_error err = {TP_OK, "", ""};
    if (tp_estimate(c, &r, &err) != TP_OK) {
        char why[400];
        snprintf(why, sizeof why, "tp_estimate refused it: %s: %s", err.path, err.message);
        check_true(0, why, file, line);
    }
    return r;
}

const char *check_json_error(const char *json, tp_config *out)
{
    static tp_error err;
    tp_config c;
    memset(&err, 0, sizeof err);
    if (tp_config_from_json(json, &c, &err) != TP_OK || tp_config_validate(&c, &err) != TP_OK)
        return err.path;
    if (out != NULL)
        *out = c;
    return "";
}
