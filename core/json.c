/*
 * json.c: the JSON floor every document of the core stands on, and with
 * json_internal.h the only code that sees cJSON. It knows nothing of
 * configs or plans.
 *
 * In: a document is at most TP_MAX_INPUT_BYTES of UTF-8 holding one JSON
 * value. Stricter than cJSON alone, so that every tool reads a document
 * the same way: a key given twice is refused (Python and JavaScript keep
 * the last, cJSON the first), and so is a NUL escaped into a string
 * ("tp\u0000x" would read as "tp"). -0 reads as 0.
 *
 * Out: every number prints in a form that reads back to the same double
 * (cJSON's own printer accepts a 15-digit form within a relative epsilon,
 * so a document fed back could change in its last digits); a number that
 * is not finite is a failure of the writer, never a null.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_internal.h"

/* ===================== parsing ===================== */

/* The length of the UTF-8 sequence at p (at most end - p bytes), or 0 when
 * it is not one: overlong forms, surrogates and values past U+10FFFF are
 * refused, as RFC 3629 says. */
static size_t utf8_sequence(const unsigned char *p, const unsigned char *end)
{
    if (p[0] < 0x80)
        return 1;
    size_t n;
    unsigned min;
    unsigned cp;
    if ((p[0] & 0xe0) == 0xc0) {
        n = 2, min = 0x80, cp = p[0] & 0x1fu;
    } else if ((p[0] & 0xf0) == 0xe0) {
        n = 3, min = 0x800, cp = p[0] & 0x0fu;
    } else if ((p[0] & 0xf8) == 0xf0) {
        n = 4, min = 0x10000, cp = p[0] & 0x07u;
    } else {
        return 0;
    }
    if ((size_t)(end - p) < n)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (p[i] & 0x3fu);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

/* The text as bytes: valid UTF-8 and no \u0000 escape (an escape is a
 * backslash after an even run of them). */
static tp_status check_text(const char *json, size_t length, tp_error *err)
{
    const unsigned char *p = (const unsigned char *)json, *end = p + length;
    size_t backslashes = 0;
    while (p < end) {
        const size_t n = utf8_sequence(p, end);
        if (n == 0)
            return err_set(err, TP_ERR_PARSE, "", "not valid UTF-8 (at byte %zu)", (size_t)(p - (const unsigned char *)json));
        if (*p == 'u' && backslashes % 2 == 1 && end - p >= 5 && memcmp(p + 1, "0000", 4) == 0)
            return err_set(err, TP_ERR_PARSE, "", "a string holds a NUL character (\\u0000, at byte %zu)",
                           (size_t)(p - (const unsigned char *)json));
        backslashes = *p == '\\' ? backslashes + 1 : 0;
        p += n;
    }
    return TP_OK;
}

static void child_path(char *out, size_t size, const char *path, const char *key)
{
    snprintf(out, size, "%s%s%s", path, *path ? "." : "", key);
}

/* No object anywhere in the tree gives a key twice. */
static tp_status check_unique_keys(const cJSON *item, const char *path, tp_error *err)
{
    int index = 0;
    for (const cJSON *child = item->child; child != NULL; child = child->next, index++) {
        char inner[96];
        if (cJSON_IsObject(item)) {
            for (const cJSON *before = item->child; before != child; before = before->next) {
                if (strcmp(before->string, child->string) == 0) {
                    child_path(inner, sizeof inner, path, child->string);
                    return err_set(err, TP_ERR_PARSE, inner, "is given twice");
                }
            }
            child_path(inner, sizeof inner, path, child->string);
        } else {
            snprintf(inner, sizeof inner, "%s[%d]", path, index);
        }
        TRY(check_unique_keys(child, inner, err));
    }
    return TP_OK;
}

cJSON *json_parse_limited(const char *json, size_t max_bytes, tp_error *err)
{
    if (json == NULL) {
        err_set(err, TP_ERR_PARSE, "", "no input");
        return NULL;
    }
    size_t length = 0; /* strnlen is POSIX, not C11 */
    while (length <= max_bytes && json[length] != '\0')
        length++;
    if (length > max_bytes) {
        err_set(err, TP_ERR_PARSE, "", "input is larger than %zu bytes", max_bytes);
        return NULL;
    }
    if (check_text(json, length, err) != TP_OK)
        return NULL;
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithOpts(json, &end, 1);
    if (root == NULL) {
        const size_t offset = end != NULL && end >= json ? (size_t)(end - json) : 0;
        err_set(err, TP_ERR_PARSE, "", "not valid JSON (at byte %zu)", offset);
        return NULL;
    }
    if (check_unique_keys(root, "", err) != TP_OK) {
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}

cJSON *json_parse_document(const char *json, tp_error *err)
{
    return json_parse_limited(json, TP_MAX_INPUT_BYTES, err);
}

/* ===================== reading ===================== */

static int is_key(const char *key, const char *const *keys)
{
    for (; *keys != NULL; keys++)
        if (strcmp(key, *keys) == 0)
            return 1;
    return 0;
}

tp_status json_check_object(const cJSON *obj, const char *path, const char *const *keys, tp_error *err)
{
    if (!cJSON_IsObject(obj))
        return err_set(err, TP_ERR_PARSE, path, "must be an object");
    const cJSON *item;
    cJSON_ArrayForEach(item, obj) {
        if (!is_key(item->string, keys)) {
            char full[96];
            child_path(full, sizeof full, path, item->string);
            return err_set(err, TP_ERR_PARSE, full, "unknown field");
        }
    }
    return TP_OK;
}

tp_status json_number(const cJSON *item, const char *path, double *out, tp_error *err)
{
    if (!cJSON_IsNumber(item) || !isfinite(item->valuedouble))
        return err_set(err, TP_ERR_INVALID, path, "must be a number");
    *out = item->valuedouble == 0.0 ? 0.0 : item->valuedouble; /* -0 reads as 0 */
    return TP_OK;
}

tp_status json_integer(const cJSON *item, const char *path, int64_t *out, tp_error *err)
{
    if (!cJSON_IsNumber(item))
        return err_set(err, TP_ERR_INVALID, path, "must be an integer");
    const double v = item->valuedouble;
    if (!isfinite(v) || v != floor(v) || fabs(v) > 9.0e15)
        return err_set(err, TP_ERR_INVALID, path, "must be an integer, got %g", v);
    *out = (int64_t)v;
    return TP_OK;
}

static void join_path(char *out, size_t size, const char *section, const char *key)
{
    snprintf(out, size, "%s.%s", section, key);
}

tp_status json_read_int(const cJSON *obj, const char *section, const char *key, int64_t *out, tp_error *err)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
    char path[96];
    join_path(path, sizeof path, section, key);
    return item == NULL ? TP_OK : json_integer(item, path, out, err);
}

tp_status json_read_number(const cJSON *obj, const char *section, const char *key, double *out, tp_error *err)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
    char path[96];
    join_path(path, sizeof path, section, key);
    return item == NULL ? TP_OK : json_number(item, path, out, err);
}

tp_status json_read_bool(const cJSON *obj, const char *section, const char *key, int *out, tp_error *err)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (item == NULL)
        return TP_OK;
    if (!cJSON_IsBool(item)) {
        char path[96];
        join_path(path, sizeof path, section, key);
        return err_set(err, TP_ERR_INVALID, path, "must be true or false");
    }
    *out = cJSON_IsTrue(item) ? 1 : 0;
    return TP_OK;
}

void json_name_choices(const name_list *names, char *out, size_t size)
{
    out[0] = '\0';
    for (int i = 0; i < names->count; i++) {
        const size_t used = strlen(out);
        snprintf(out + used, size - used, "%s\"%s\"", i == 0 ? "" : i == names->count - 1 ? " or " : ", ",
                 names->items[i]);
    }
}

tp_status json_name_index(const cJSON *item, const char *path, const name_list *names, int *out, tp_error *err)
{
    for (int i = 0; cJSON_IsString(item) && i < names->count; i++) {
        if (strcmp(item->valuestring, names->items[i]) == 0) {
            *out = i;
            return TP_OK;
        }
    }
    char list[192];
    json_name_choices(names, list, sizeof list);
    return err_set(err, TP_ERR_INVALID, path, "must be %s", list);
}

/* ===================== writing ===================== */

cJSON *json_add_object(json_writer *w, cJSON *parent, const char *key)
{
    cJSON *obj = cJSON_CreateObject();
    if (obj == NULL || parent == NULL
        || (key ? !cJSON_AddItemToObject(parent, key, obj) : !cJSON_AddItemToArray(parent, obj))) {
        cJSON_Delete(obj);
        w->failed = 1;
        return NULL;
    }
    return obj;
}

cJSON *json_add_array(json_writer *w, cJSON *parent, const char *key)
{
    cJSON *list = parent != NULL ? cJSON_AddArrayToObject(parent, key) : NULL;
    if (list == NULL)
        w->failed = 1;
    return list;
}

/* Text that reads back to v exactly: integers below 10^15 in plain digits,
 * other numbers in 15 significant digits where those suffice (what a
 * person typed reads back so: 0.48, 989.4), else in 17, which always do. */
static void format_number(double v, char *out, size_t size)
{
    if (v == floor(v) && fabs(v) < 1e15) {
        snprintf(out, size, "%.0f", v == 0.0 ? 0.0 : v);
        return;
    }
    snprintf(out, size, "%.15g", v);
    if (strtod(out, NULL) != v)
        snprintf(out, size, "%.17g", v);
}

/* A number item in a form that reads back exactly; NULL and w->failed when
 * the value is not finite or memory runs out. */
static cJSON *json_create_number(json_writer *w, double value)
{
    if (!isfinite(value)) {
        w->failed = 1;
        w->not_finite = 1;
        return NULL;
    }
    char text[32];
    format_number(value, text, sizeof text);
    cJSON *item = cJSON_CreateRaw(text);
    if (item == NULL)
        w->failed = 1;
    return item;
}

static void add_item(json_writer *w, cJSON *obj, const char *key, cJSON *item)
{
    if (item == NULL || obj == NULL || (key ? !cJSON_AddItemToObject(obj, key, item) : !cJSON_AddItemToArray(obj, item))) {
        cJSON_Delete(item);
        w->failed = 1;
    }
}

void json_add_number(json_writer *w, cJSON *obj, const char *key, double value)
{
    cJSON *item = json_create_number(w, value);
    if (item == NULL && w->not_finite && w->not_finite_key[0] == '\0')
        snprintf(w->not_finite_key, sizeof w->not_finite_key, "%s", key ? key : "");
    add_item(w, obj, key, item);
}

void json_add_string(json_writer *w, cJSON *obj, const char *key, const char *value)
{
    add_item(w, obj, key, cJSON_CreateString(value));
}

void json_add_bool(json_writer *w, cJSON *obj, const char *key, int value)
{
    add_item(w, obj, key, cJSON_CreateBool(value));
}

void json_add_pair(json_writer *w, cJSON *obj, const char *key, const int64_t pair[2])
{
    cJSON *array = cJSON_CreateArray();
    json_add_number(w, array, NULL, (double)pair[0]);
    json_add_number(w, array, NULL, (double)pair[1]);
    add_item(w, obj, key, array);
}

tp_status json_exact_numbers(cJSON *tree, tp_error *err)
{
    for (cJSON *child = tree != NULL ? tree->child : NULL; child != NULL; child = child->next) {
        if (!cJSON_IsNumber(child)) {
            TRY(json_exact_numbers(child, err));
            continue;
        }
        json_writer w = {0};
        cJSON *raw = json_create_number(&w, child->valuedouble);
        if (raw != NULL && child->string != NULL) { /* the key moves to the new item */
            raw->string = child->string;
            raw->type |= child->type & cJSON_StringIsConst;
            child->string = NULL;
        }
        if (raw == NULL || !cJSON_ReplaceItemViaPointer(tree, child, raw)) {
            cJSON_Delete(raw);
            return err_set(err, TP_ERR_NOMEM, "", "out of memory");
        }
        child = raw;
    }
    return TP_OK;
}

/* ===================== documents ===================== */

char *json_print_and_delete(cJSON *root, int pretty, json_writer *w, tp_error *err)
{
    char *text = w->failed || root == NULL ? NULL : (pretty ? cJSON_Print(root) : cJSON_PrintUnformatted(root));
    cJSON_Delete(root);
    if (text == NULL && w->not_finite)
        err_set(err, TP_ERR_INVALID, w->not_finite_key, "is not a finite number");
    else if (text == NULL)
        err_set(err, TP_ERR_NOMEM, "", "out of memory");
    return text;
}

char *json_print_document(cJSON *root, int pretty, tp_error *err)
{
    if (root == NULL)
        return NULL;
    json_writer w = {0};
    return json_print_and_delete(root, pretty, &w, err);
}

cJSON *json_finish(cJSON *root, const json_writer *w, tp_error *err)
{
    if (root != NULL && !w->failed)
        return root;
    cJSON_Delete(root);
    if (w->not_finite)
        err_set(err, TP_ERR_INVALID, w->not_finite_key, "is not a finite number");
    else
        err_set(err, TP_ERR_NOMEM, "", "out of memory");
    return NULL;
}

char *json_envelope(cJSON *result, const tp_error *err)
{
    json_writer w = {0};
    cJSON *root = cJSON_CreateObject();
    if (root == NULL) {
        cJSON_Delete(result);
        return NULL;
    }
    json_add_bool(&w, root, "ok", result != NULL);
    if (result != NULL) {
        if (!cJSON_AddItemToObject(root, "result", result)) {
            cJSON_Delete(result);
            w.failed = 1;
        }
    } else {
        cJSON *error = json_add_object(&w, root, "error");
        json_add_string(&w, error, "status", tp_status_str(err->status));
        json_add_string(&w, error, "path", err->path);
        json_add_string(&w, error, "message", err->message);
    }
    return json_print_and_delete(root, 0, &w, NULL);
}

void tp_free(void *ptr)
{
    cJSON_free(ptr);
}
