#ifndef YIANA_CTURBOJPEG_SHIM_H
#define YIANA_CTURBOJPEG_SHIM_H

#include <stdio.h>
#include <turbojpeg.h>
#include "../CYiana/lazy_library.h"

/* libjpeg-turbo's TurboJPEG API, loaded when the first page image is encoded as JPEG (by
   `yiana serve`, for scanned pages), not when the process starts. */
#define YIANA_TURBOJPEG_FUNCTIONS(F) \
    F(tjInitCompress) \
    F(tjCompress2) \
    F(tjFree) \
    F(tjDestroy) \
    F(tjGetErrorStr2)

YIANA_LAZY_LIBRARY(turbojpeg, "libturbojpeg.so.0", "libturbojpeg.so", YIANA_TURBOJPEG_FUNCTIONS)

/* The reason libjpeg-turbo could not be loaded, or NULL when it is there. */
static inline const char *yiana_turbojpeg_failure(void) { return yiana_turbojpeg_load(); }

/* Encodes `height` rows of 32-bit pixels, bytes b, g, r, x (cairo's RGB24 on a little-endian
   machine), `stride` bytes apart, as a baseline JPEG of `quality` with 4:2:0 chroma; the
   bytes are the library's (free them with yiana_tj_free). 0 on success; else the library's
   reason is copied into `why` (`why_size` bytes). */
static inline int yiana_tj_compress_bgrx(const unsigned char *pixels, int width, int stride, int height, int quality,
                                         unsigned char **jpeg, unsigned long *size, char *why, size_t why_size) {
    tjhandle handle = yiana_turbojpeg()->tjInitCompress();
    if (handle == NULL) { snprintf(why, why_size, "tjInitCompress failed"); return -1; }
    *jpeg = NULL;
    *size = 0;
    int status = yiana_turbojpeg()->tjCompress2(handle, pixels, width, stride, height, TJPF_BGRX, jpeg, size, TJSAMP_420, quality, TJFLAG_FASTDCT);
    if (status != 0) snprintf(why, why_size, "%s", yiana_turbojpeg()->tjGetErrorStr2(handle));
    yiana_turbojpeg()->tjDestroy(handle);
    return status;
}

static inline void yiana_tj_free(unsigned char *bytes) { yiana_turbojpeg()->tjFree(bytes); }

#endif
