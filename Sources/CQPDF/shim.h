#ifndef YIANA_CQPDF_SHIM_H
#define YIANA_CQPDF_SHIM_H

#include <qpdf/qpdfjob-c.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>

/* libqpdf is loaded when `yiana ocr` first adds a text layer, not at process start (see
   Sources/CPoppler/shim.h). Only qpdf's job interface is used: the same operations as the
   qpdf command, run inside the process. */
struct yiana_qpdf_table {
    int (*run_from_argv)(char const *const argv[]);
    const char *failure;
};

static inline const struct yiana_qpdf_table *yiana_qpdf(void) {
    static struct yiana_qpdf_table table;
    static int ready;
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    if (__atomic_load_n(&ready, __ATOMIC_ACQUIRE)) return &table;
    pthread_mutex_lock(&lock);
    if (!ready) {
        void *library = dlopen("libqpdf.so.29", RTLD_NOW | RTLD_LOCAL);
        if (library == NULL) library = dlopen("libqpdf.so", RTLD_NOW | RTLD_LOCAL);
        if (library == NULL) {
            const char *why = dlerror();
            table.failure = strdup(why != NULL ? why : "libqpdf.so.29 could not be loaded");
        } else {
            table.run_from_argv = (__typeof__(qpdfjob_run_from_argv) *)dlsym(library, "qpdfjob_run_from_argv");
            if (table.run_from_argv == NULL) table.failure = "libqpdf lacks qpdfjob_run_from_argv";
        }
        __atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&lock);
    return &table;
}

/* Loads libqpdf (once); NULL when it is loaded, else why not. */
static inline const char *yiana_qpdf_load(void) {
    return yiana_qpdf()->failure;
}

/* qpdfjob_run_from_argv: 0 success, 2 errors, 3 warnings only (the output is written). */
static inline int yiana_qpdfjob_run_from_argv(char const *const argv[]) {
    return yiana_qpdf()->run_from_argv(argv);
}

#endif
