#ifndef YIANA_CTESSERACT_SHIM_H
#define YIANA_CTESSERACT_SHIM_H

#include <tesseract/capi.h>
#include "../CYiana/lazy_library.h"

/* libtesseract is loaded by `yiana ocr`, when it first recognises a page, not when the process
   starts: it brings leptonica and a dozen image libraries that no other command needs (the
   same reason as poppler's, Sources/CPoppler/shim.h). The toolkit calls tesseract's C API only
   through the table below (yiana_tess()), each function looked up once with dlsym. */
#define YIANA_TESSERACT_FUNCTIONS(F) \
    F(TessVersion) \
    F(TessDeleteText) \
    F(TessBaseAPICreate) \
    F(TessBaseAPIDelete) \
    F(TessBaseAPIInit3) \
    F(TessBaseAPISetVariable) \
    F(TessBaseAPISetPageSegMode) \
    F(TessBaseAPISetImage) \
    F(TessBaseAPISetSourceResolution) \
    F(TessBaseAPISetInputName) \
    F(TessBaseAPIRecognize) \
    F(TessBaseAPIGetIterator) \
    F(TessBaseAPIGetHOCRText) \
    F(TessBaseAPIGetDatapath) \
    F(TessBaseAPIClear) \
    F(TessResultIteratorDelete) \
    F(TessResultIteratorNext) \
    F(TessResultIteratorGetPageIterator) \
    F(TessResultIteratorGetUTF8Text) \
    F(TessResultIteratorConfidence) \
    F(TessPageIteratorIsAtBeginningOf) \
    F(TessPageIteratorBoundingBox) \
    F(TessPDFRendererCreate) \
    F(TessResultRendererBeginDocument) \
    F(TessResultRendererAddImage) \
    F(TessResultRendererEndDocument) \
    F(TessDeleteResultRenderer)

YIANA_LAZY_LIBRARY(tesseract, "libtesseract.so.5", "libtesseract.so", YIANA_TESSERACT_FUNCTIONS)

/* The table itself: Swift calls its function pointers (`yiana_tess()->TessBaseAPICreate()`). */
static inline const struct yiana_tesseract_table *yiana_tess(void) {
    return yiana_tesseract();
}

#endif
