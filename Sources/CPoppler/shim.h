#ifndef YIANA_CPOPPLER_SHIM_H
#define YIANA_CPOPPLER_SHIM_H

#include <poppler.h>

/* POPPLER_ERROR is a macro around a function call; Swift imports neither. */
static inline GQuark yiana_poppler_error_quark(void) {
    return poppler_error_quark();
}

#endif
