#ifndef YIANA_CZIP_SHIM_H
#define YIANA_CZIP_SHIM_H

#include <zip.h>

/* zip_source_callback receives its seek arguments through ZIP_SOURCE_GET_ARGS,
   a macro Swift cannot call; this reads them with the same size check. */
static inline const zip_source_args_seek_t *yiana_zip_seek_args(void *data, zip_uint64_t len) {
    return len < sizeof(zip_source_args_seek_t) ? NULL : (const zip_source_args_seek_t *)data;
}

#endif
