#ifndef YIANA_CTESSERACT_SHIM_H
#define YIANA_CTESSERACT_SHIM_H

#include <tesseract/capi.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>

/* libtesseract is loaded by `yiana ocr`, when it first recognises a page, not when the process
   starts: it brings leptonica and a dozen image libraries that no other command needs (the
   same reason as poppler's, Sources/CPoppler/shim.h). The toolkit calls tesseract's C API only
   through the functions below, named yiana_<function>, each looked up once with dlsym. */
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

#define YIANA_TESSERACT_FIELD(name) __typeof__(name) *name;
struct yiana_tesseract_table {
    YIANA_TESSERACT_FUNCTIONS(YIANA_TESSERACT_FIELD)
    const char *failure;
};
#undef YIANA_TESSERACT_FIELD

static inline void yiana_tesseract_resolve(struct yiana_tesseract_table *table) {
    void *library = dlopen("libtesseract.so.5", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) library = dlopen("libtesseract.so", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *why = dlerror();
        table->failure = strdup(why != NULL ? why : "libtesseract.so.5 could not be loaded");
        return;
    }
#define YIANA_TESSERACT_RESOLVE(name) \
    table->name = (__typeof__(name) *)dlsym(library, #name); \
    if (table->name == NULL) { table->failure = "libtesseract lacks " #name; return; }
    YIANA_TESSERACT_FUNCTIONS(YIANA_TESSERACT_RESOLVE)
#undef YIANA_TESSERACT_RESOLVE
}

static inline const struct yiana_tesseract_table *yiana_tesseract(void) {
    static struct yiana_tesseract_table table;
    static int ready;
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    if (__atomic_load_n(&ready, __ATOMIC_ACQUIRE)) return &table;
    pthread_mutex_lock(&lock);
    if (!ready) {
        yiana_tesseract_resolve(&table);
        __atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&lock);
    return &table;
}

/* Loads libtesseract (once); NULL when it is loaded, else why not. */
static inline const char *yiana_tesseract_load(void) {
    return yiana_tesseract()->failure;
}

/* The table itself: Swift calls its function pointers (`yiana_tess()->TessBaseAPICreate()`). */
static inline const struct yiana_tesseract_table *yiana_tess(void) {
    return yiana_tesseract();
}

#endif
