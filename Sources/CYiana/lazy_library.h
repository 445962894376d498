#ifndef YIANA_LAZY_LIBRARY_H
#define YIANA_LAZY_LIBRARY_H

/* A C library the toolkit loads on first use rather than at process start, so that commands
   that never need it do not pay for loading it (and the libraries it brings) every time they
   start. The system-library modules' shims (shim.h in each Sources/C... folder) include this file by path.

   YIANA_LAZY_LIBRARY(name, soname, devname, LIST) defines:
     struct yiana_<name>_table  one pointer per function of LIST, typed from the library's own
                                header, and `failure`;
     yiana_<name>()             the table, filled once, from any thread, on first call;
     yiana_<name>_load()        loads the library (once): NULL when it is there, else why not.
   LIST(F) names each function once as F(function). The library is opened by its soname, then
   by the development link `devname`, RTLD_LOCAL so that its symbols stay out of the global
   scope; dlsym on its handle also searches the libraries it needs. Call a function of the
   table only once yiana_<name>_load() has returned NULL. */

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>

#define YIANA_LAZY_FIELD(function) __typeof__(function) *function;
#define YIANA_LAZY_RESOLVE(function) \
    table->function = (__typeof__(function) *)dlsym(library, #function); \
    if (table->function == NULL) { table->failure = "the library lacks the function " #function; return; }

#define YIANA_LAZY_LIBRARY(name, soname, devname, LIST) \
    struct yiana_##name##_table { \
        LIST(YIANA_LAZY_FIELD) \
        const char *failure; \
    }; \
    static inline void yiana_##name##_resolve(struct yiana_##name##_table *table) { \
        void *library = dlopen(soname, RTLD_NOW | RTLD_LOCAL); \
        if (library == NULL) library = dlopen(devname, RTLD_NOW | RTLD_LOCAL); \
        if (library == NULL) { \
            /* dlerror's text lives in a buffer of this thread: keep a copy of our own. */ \
            const char *why = dlerror(); \
            table->failure = strdup(why != NULL ? why : soname " could not be loaded"); \
            return; \
        } \
        LIST(YIANA_LAZY_RESOLVE) \
    } \
    /* The table is a static of this inline function: each file that calls it has its own \
       copy, filled once (dlopen hands every copy the same library). */ \
    static inline const struct yiana_##name##_table *yiana_##name(void) { \
        static struct yiana_##name##_table table; \
        static int ready; \
        static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER; \
        if (__atomic_load_n(&ready, __ATOMIC_ACQUIRE)) return &table; \
        pthread_mutex_lock(&lock); \
        if (!ready) { \
            yiana_##name##_resolve(&table); \
            __atomic_store_n(&ready, 1, __ATOMIC_RELEASE); \
        } \
        pthread_mutex_unlock(&lock); \
        return &table; \
    } \
    static inline const char *yiana_##name##_load(void) { \
        return yiana_##name()->failure; \
    }

#endif
