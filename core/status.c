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

/* A text cut to its buffer may end inside a UTF-8 character (a key or a
 * value from the input): drop that character's leading bytes, so that
 * the error stays valid UTF-8 in the JSON that carries it. */
static void cut_at_character(char *text)
{
    size_t n = strlen(text), start = n;
    while (start > 0 && ((unsigned char)text[start - 1] & 0xc0) == 0x80)
        start--; /* continuation bytes */
    if (start == 0)
        return;
    const unsigned char lead = (unsigned char)text[start - 1];
    const size_t length = lead < 0x80 ? 1 : (lead & 0xe0) == 0xc0 ? 2 : (lead & 0xf0) == 0xe0 ? 3 : 4;
    if (n - (start - 1) < length)
        text[start - 1] = '\0';
}

tp_status err_set(tp_error *err, tp_status status, const char *path, const char *fmt, ...)
{
    if (err == NULL)
        return status;
    err->status = status;
    snprintf(err->path, sizeof err->path, "%s", path ? path : "");
    cut_at_character(err->path);
    va_list args;
    va_start(args, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, args);
    va_end(args);
    cut_at_character(err->message);
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
    cut_at_character(err->path);
    return err->status;
}
