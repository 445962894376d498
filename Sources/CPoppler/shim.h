#ifndef YIANA_CPOPPLER_SHIM_H
#define YIANA_CPOPPLER_SHIM_H

#include <poppler.h>
#include <dlfcn.h>

/* POPPLER_ERROR is a macro around a function call; Swift imports neither. */
static inline GQuark yiana_poppler_error_quark(void) {
    return poppler_error_quark();
}

/* poppler prints every syntax error of a damaged PDF to stderr through a global callback that
   poppler-glib does not expose. The C++ setter is looked up by its mangled name at run time:
   if a poppler build lacks it, nothing breaks, the messages just stay on stderr. */
typedef void (*yiana_poppler_error_fn)(int category, long long position, const char *message);

static inline int yiana_poppler_set_error_callback(yiana_poppler_error_fn callback) {
    void *self = dlopen(NULL, RTLD_NOW);
    if (self == NULL) return 0;
    void (*set)(yiana_poppler_error_fn) =
        (void (*)(yiana_poppler_error_fn))dlsym(self, "_Z16setErrorCallbackPFv13ErrorCategoryxPKcE");
    if (set != NULL) set(callback);
    dlclose(self);
    return set != NULL;
}

#endif
