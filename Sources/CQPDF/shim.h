#ifndef YIANA_CQPDF_SHIM_H
#define YIANA_CQPDF_SHIM_H

#include <qpdf/qpdfjob-c.h>
#include "../CYiana/lazy_library.h"

/* libqpdf is loaded when a PDF is first written from pages (a text layer, an append), not
   at process start (see Sources/CPoppler/shim.h). Only qpdf's job interface is used: the same operations as the
   qpdf command, run inside the process. */
#define YIANA_QPDF_FUNCTIONS(F) \
    F(qpdfjob_run_from_argv)

YIANA_LAZY_LIBRARY(qpdf, "libqpdf.so.29", "libqpdf.so", YIANA_QPDF_FUNCTIONS)

/* qpdfjob_run_from_argv: 0 success, 2 errors, 3 warnings only (the output is written). */
static inline int yiana_qpdfjob_run_from_argv(char const *const argv[]) {
    return yiana_qpdf()->qpdfjob_run_from_argv(argv);
}

#endif
