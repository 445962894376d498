#ifndef YIANA_CZIP_SHIM_H
#define YIANA_CZIP_SHIM_H

#include <zip.h>
#include "../CYiana/lazy_library.h"

/* libzip is loaded when the first archive is opened for a full check, not at process start:
   with the libraries it needs (libcrypto, libbz2) it cost about 1.3 ms of the start of every
   command, also of those that never open one (search, status, --version). The toolkit calls
   libzip only through the functions below, named yiana_<function>. */
#define YIANA_ZIP_FUNCTIONS(F) \
    F(zip_error_init) \
    F(zip_error_fini) \
    F(zip_error_set) \
    F(zip_error_code_zip) \
    F(zip_error_strerror) \
    F(zip_error_to_data) \
    F(zip_stat_init) \
    F(zip_source_function_create) \
    F(zip_source_free) \
    F(zip_open_from_source) \
    F(zip_get_error) \
    F(zip_get_num_entries) \
    F(zip_get_name) \
    F(zip_fopen_index) \
    F(zip_file_get_error) \
    F(zip_fread) \
    F(zip_fclose) \
    F(zip_discard)

YIANA_LAZY_LIBRARY(zip, "libzip.so.4", "libzip.so", YIANA_ZIP_FUNCTIONS)

static inline void yiana_zip_error_init(zip_error_t *error) { yiana_zip()->zip_error_init(error); }
static inline void yiana_zip_error_fini(zip_error_t *error) { yiana_zip()->zip_error_fini(error); }
static inline void yiana_zip_error_set(zip_error_t *error, int zip_code, int system_code) {
    yiana_zip()->zip_error_set(error, zip_code, system_code);
}
static inline int yiana_zip_error_code_zip(const zip_error_t *error) { return yiana_zip()->zip_error_code_zip(error); }
static inline const char *yiana_zip_error_strerror(zip_error_t *error) { return yiana_zip()->zip_error_strerror(error); }
static inline zip_int64_t yiana_zip_error_to_data(const zip_error_t *error, void *data, zip_uint64_t length) {
    return yiana_zip()->zip_error_to_data(error, data, length);
}
static inline void yiana_zip_stat_init(zip_stat_t *stat) { yiana_zip()->zip_stat_init(stat); }
static inline zip_source_t *yiana_zip_source_function_create(zip_source_callback callback, void *userdata, zip_error_t *error) {
    return yiana_zip()->zip_source_function_create(callback, userdata, error);
}
static inline void yiana_zip_source_free(zip_source_t *source) { yiana_zip()->zip_source_free(source); }
static inline zip_t *yiana_zip_open_from_source(zip_source_t *source, int flags, zip_error_t *error) {
    return yiana_zip()->zip_open_from_source(source, flags, error);
}
static inline zip_error_t *yiana_zip_get_error(zip_t *archive) { return yiana_zip()->zip_get_error(archive); }
static inline zip_int64_t yiana_zip_get_num_entries(zip_t *archive, zip_flags_t flags) {
    return yiana_zip()->zip_get_num_entries(archive, flags);
}
static inline const char *yiana_zip_get_name(zip_t *archive, zip_uint64_t index, zip_flags_t flags) {
    return yiana_zip()->zip_get_name(archive, index, flags);
}
static inline zip_file_t *yiana_zip_fopen_index(zip_t *archive, zip_uint64_t index, zip_flags_t flags) {
    return yiana_zip()->zip_fopen_index(archive, index, flags);
}
static inline zip_error_t *yiana_zip_file_get_error(zip_file_t *file) { return yiana_zip()->zip_file_get_error(file); }
static inline zip_int64_t yiana_zip_fread(zip_file_t *file, void *buffer, zip_uint64_t count) {
    return yiana_zip()->zip_fread(file, buffer, count);
}
static inline int yiana_zip_fclose(zip_file_t *file) { return yiana_zip()->zip_fclose(file); }
static inline void yiana_zip_discard(zip_t *archive) { yiana_zip()->zip_discard(archive); }

/* zip_source_callback receives its seek arguments through ZIP_SOURCE_GET_ARGS,
   a macro Swift cannot call; this reads them with the same size check. */
static inline const zip_source_args_seek_t *yiana_zip_seek_args(void *data, zip_uint64_t len) {
    return len < sizeof(zip_source_args_seek_t) ? NULL : (const zip_source_args_seek_t *)data;
}

#endif
