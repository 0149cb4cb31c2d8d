/*
 * status.c: status names and error formatting. Every error the core reports
 * goes through err_set, so each one carries the JSON path of the field at
 * fault and a sentence saying why.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tp_internal.h"

const char *tp_status_str(tp_status status)
{
    switch (status) {
    case TP_OK: return "ok";
    case TP_ERR_INVALID: return "invalid";
    case TP_ERR_PARSE: return "parse";
    case TP_ERR_NOMEM: return "nomem";
    }
    return "unknown";
}

tp_status err_set(tp_error *err, tp_status status, const char *path, const char *fmt, ...)
{
    if (err == NULL)
        return status;
    err->status = status;
    snprintf(err->path, sizeof err->path, "%s", path ? path : "");
    va_list args;
    va_start(args, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, args);
    va_end(args);
    return status;
}

tp_status err_locate(tp_error *err, const char *within)
{
    if (err == NULL)
        return TP_ERR_INVALID;
    char path[2 * sizeof err->path];
    snprintf(path, sizeof path, "%s%s%s", within, err->path[0] != '\0' ? "." : "", err->path);
    memcpy(err->path, path, sizeof err->path);
    err->path[sizeof err->path - 1] = '\0'; /* cut, as err_set cuts a long path */
    return err->status;
}
