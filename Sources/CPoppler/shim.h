#ifndef YIANA_CPOPPLER_SHIM_H
#define YIANA_CPOPPLER_SHIM_H

#include <poppler.h>
#include "../CYiana/lazy_library.h"

/* poppler-glib is loaded when the first PDF is opened, not when the process starts. It brings
   some forty libraries (poppler, cairo, NSS, glib, fontconfig, X11 …) whose loading and
   constructors cost about 8 ms: every command paid that at start, also those that never open
   a PDF (search, status, conflicts, --version). The toolkit therefore calls poppler and glib
   only through the functions below, named yiana_<function>, which call the library's own
   function looked up once with dlsym; nothing links against the library. The list names each
   function once; its type comes from poppler's own header. */
#define YIANA_POPPLER_FUNCTIONS(F) \
    F(poppler_document_new_from_file) \
    F(poppler_document_new_from_fd) \
    F(poppler_document_new_from_bytes) \
    F(poppler_document_get_n_pages) \
    F(poppler_document_get_page) \
    F(poppler_document_get_title) \
    F(poppler_page_get_text) \
    F(poppler_page_get_text_layout) \
    F(poppler_page_get_form_field_mapping) \
    F(poppler_page_free_form_field_mapping) \
    F(poppler_form_field_get_field_type) \
    F(poppler_form_field_text_get_text) \
    F(poppler_form_field_choice_get_n_items) \
    F(poppler_form_field_choice_get_item) \
    F(poppler_form_field_choice_is_item_selected) \
    F(poppler_form_field_choice_get_text) \
    F(poppler_page_get_size) \
    F(poppler_page_render) \
    F(poppler_page_get_image_mapping) \
    F(poppler_page_free_image_mapping) \
    F(poppler_error_quark) \
    F(cairo_image_surface_create) \
    F(cairo_image_surface_get_data) \
    F(cairo_image_surface_get_stride) \
    F(cairo_surface_status) \
    F(cairo_surface_flush) \
    F(cairo_surface_destroy) \
    F(cairo_create) \
    F(cairo_destroy) \
    F(cairo_scale) \
    F(cairo_set_source_rgb) \
    F(cairo_paint) \
    F(cairo_surface_write_to_png_stream) \
    F(g_free) \
    F(g_object_unref) \
    F(g_error_free) \
    F(g_bytes_new_static) \
    F(g_bytes_unref) \
    F(g_filename_to_uri)

YIANA_LAZY_LIBRARY(poppler, "libpoppler-glib.so.8", "libpoppler-glib.so", YIANA_POPPLER_FUNCTIONS)

static inline PopplerDocument *yiana_poppler_document_new_from_file(const char *uri, const char *password, GError **error) {
    return yiana_poppler()->poppler_document_new_from_file(uri, password, error);
}
static inline PopplerDocument *yiana_poppler_document_new_from_fd(int fd, const char *password, GError **error) {
    return yiana_poppler()->poppler_document_new_from_fd(fd, password, error);
}
static inline PopplerDocument *yiana_poppler_document_new_from_bytes(GBytes *bytes, const char *password, GError **error) {
    return yiana_poppler()->poppler_document_new_from_bytes(bytes, password, error);
}
static inline int yiana_poppler_document_get_n_pages(PopplerDocument *document) {
    return yiana_poppler()->poppler_document_get_n_pages(document);
}
static inline PopplerPage *yiana_poppler_document_get_page(PopplerDocument *document, int index) {
    return yiana_poppler()->poppler_document_get_page(document, index);
}
static inline gchar *yiana_poppler_document_get_title(PopplerDocument *document) {
    return yiana_poppler()->poppler_document_get_title(document);
}
static inline char *yiana_poppler_page_get_text(PopplerPage *page) {
    return yiana_poppler()->poppler_page_get_text(page);
}
static inline gboolean yiana_poppler_page_get_text_layout(PopplerPage *page, PopplerRectangle **rectangles, guint *count) {
    return yiana_poppler()->poppler_page_get_text_layout(page, rectangles, count);
}
static inline GList *yiana_poppler_page_get_form_field_mapping(PopplerPage *page) {
    return yiana_poppler()->poppler_page_get_form_field_mapping(page);
}
static inline void yiana_poppler_page_free_form_field_mapping(GList *list) {
    yiana_poppler()->poppler_page_free_form_field_mapping(list);
}
static inline PopplerFormFieldType yiana_poppler_form_field_get_field_type(PopplerFormField *field) {
    return yiana_poppler()->poppler_form_field_get_field_type(field);
}
static inline gchar *yiana_poppler_form_field_text_get_text(PopplerFormField *field) {
    return yiana_poppler()->poppler_form_field_text_get_text(field);
}
static inline gint yiana_poppler_form_field_choice_get_n_items(PopplerFormField *field) {
    return yiana_poppler()->poppler_form_field_choice_get_n_items(field);
}
static inline gchar *yiana_poppler_form_field_choice_get_item(PopplerFormField *field, gint index) {
    return yiana_poppler()->poppler_form_field_choice_get_item(field, index);
}
static inline gboolean yiana_poppler_form_field_choice_is_item_selected(PopplerFormField *field, gint index) {
    return yiana_poppler()->poppler_form_field_choice_is_item_selected(field, index);
}
static inline gchar *yiana_poppler_form_field_choice_get_text(PopplerFormField *field) {
    return yiana_poppler()->poppler_form_field_choice_get_text(field);
}
/* Rendering: poppler draws a page on a cairo image surface (cairo is loaded with poppler-glib,
   and dlsym on poppler-glib's handle finds it among the libraries it needs). */
static inline void yiana_poppler_page_get_size(PopplerPage *page, double *width, double *height) {
    yiana_poppler()->poppler_page_get_size(page, width, height);
}
static inline GList *yiana_poppler_page_get_image_mapping(PopplerPage *page) {
    return yiana_poppler()->poppler_page_get_image_mapping(page);
}
static inline void yiana_poppler_page_free_image_mapping(GList *list) {
    yiana_poppler()->poppler_page_free_image_mapping(list);
}
/* The share of the page's area its images cover (each image's box clipped to the page, their
   areas summed, at most 1): near 1 for a scan. */
static inline double yiana_poppler_page_image_coverage(PopplerPage *page) {
    double width = 0, height = 0, covered = 0;
    yiana_poppler()->poppler_page_get_size(page, &width, &height);
    if (width <= 0 || height <= 0) return 0;
    GList *images = yiana_poppler()->poppler_page_get_image_mapping(page);
    for (GList *item = images; item != NULL; item = item->next) {
        PopplerImageMapping *mapping = (PopplerImageMapping *)item->data;
        double x1 = mapping->area.x1 < 0 ? 0 : mapping->area.x1, y1 = mapping->area.y1 < 0 ? 0 : mapping->area.y1;
        double x2 = mapping->area.x2 > width ? width : mapping->area.x2, y2 = mapping->area.y2 > height ? height : mapping->area.y2;
        if (x2 > x1 && y2 > y1) covered += (x2 - x1) * (y2 - y1);
    }
    yiana_poppler()->poppler_page_free_image_mapping(images);
    double share = covered / (width * height);
    return share > 1 ? 1 : share;
}
static inline void yiana_poppler_page_render(PopplerPage *page, cairo_t *cairo) {
    yiana_poppler()->poppler_page_render(page, cairo);
}
static inline cairo_surface_t *yiana_cairo_image_surface_create(cairo_format_t format, int width, int height) {
    return yiana_poppler()->cairo_image_surface_create(format, width, height);
}
static inline unsigned char *yiana_cairo_image_surface_get_data(cairo_surface_t *surface) {
    return yiana_poppler()->cairo_image_surface_get_data(surface);
}
static inline int yiana_cairo_image_surface_get_stride(cairo_surface_t *surface) {
    return yiana_poppler()->cairo_image_surface_get_stride(surface);
}
static inline int yiana_cairo_surface_ok(cairo_surface_t *surface) {
    return yiana_poppler()->cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS;
}
/* Encodes the surface as PNG through `write` (cairo's own encoder, with zlib). */
static inline int yiana_cairo_write_png(cairo_surface_t *surface, cairo_write_func_t write, void *closure) {
    return yiana_poppler()->cairo_surface_write_to_png_stream(surface, write, closure) == CAIRO_STATUS_SUCCESS;
}
static inline void yiana_cairo_surface_flush(cairo_surface_t *surface) {
    yiana_poppler()->cairo_surface_flush(surface);
}
static inline void yiana_cairo_surface_destroy(cairo_surface_t *surface) {
    yiana_poppler()->cairo_surface_destroy(surface);
}
static inline cairo_t *yiana_cairo_create(cairo_surface_t *surface) {
    return yiana_poppler()->cairo_create(surface);
}
static inline void yiana_cairo_destroy(cairo_t *cairo) {
    yiana_poppler()->cairo_destroy(cairo);
}
static inline void yiana_cairo_scale(cairo_t *cairo, double sx, double sy) {
    yiana_poppler()->cairo_scale(cairo, sx, sy);
}
static inline void yiana_cairo_set_source_rgb(cairo_t *cairo, double red, double green, double blue) {
    yiana_poppler()->cairo_set_source_rgb(cairo, red, green, blue);
}
static inline void yiana_cairo_paint(cairo_t *cairo) {
    yiana_poppler()->cairo_paint(cairo);
}

/* POPPLER_ERROR is a macro around a function call; Swift imports neither. */
static inline GQuark yiana_poppler_error_quark(void) {
    return yiana_poppler()->poppler_error_quark();
}
static inline void yiana_g_free(gpointer memory) {
    yiana_poppler()->g_free(memory);
}
static inline void yiana_g_object_unref(gpointer object) {
    yiana_poppler()->g_object_unref(object);
}
static inline void yiana_g_error_free(GError *error) {
    yiana_poppler()->g_error_free(error);
}
static inline GBytes *yiana_g_bytes_new_static(gconstpointer data, gsize size) {
    return yiana_poppler()->g_bytes_new_static(data, size);
}
static inline void yiana_g_bytes_unref(GBytes *bytes) {
    yiana_poppler()->g_bytes_unref(bytes);
}
static inline gchar *yiana_g_filename_to_uri(const gchar *filename, const gchar *hostname, GError **error) {
    return yiana_poppler()->g_filename_to_uri(filename, hostname, error);
}

/* poppler prints every syntax error of a damaged PDF to stderr through a global callback that
   poppler-glib does not expose. The C++ setter is looked up by its mangled name: if a poppler
   build lacks it, nothing breaks, the messages just stay on stderr. */
typedef void (*yiana_poppler_error_fn)(int category, long long position, const char *message);

static inline int yiana_poppler_set_error_callback(yiana_poppler_error_fn callback) {
    if (yiana_poppler_load() != NULL) return 0;
    /* The library is loaded: RTLD_NOLOAD hands back its handle, whose dlsym also searches
       libpoppler, where the setter lives. */
    void *library = dlopen("libpoppler-glib.so.8", RTLD_NOW | RTLD_NOLOAD);
    if (library == NULL) library = dlopen("libpoppler-glib.so", RTLD_NOW | RTLD_NOLOAD);
    if (library == NULL) return 0;
    void (*set)(yiana_poppler_error_fn) = (void (*)(yiana_poppler_error_fn))dlsym(library, "_Z16setErrorCallbackPFv13ErrorCategoryxPKcE");
    dlclose(library);  /* only the reference NOLOAD took: the library stays */
    if (set == NULL) return 0;
    set(callback);
    return 1;
}

/* An RGB24 cairo surface (one 32-bit word per pixel, x8r8g8b8 in native order: bytes b, g,
   r, x on a little-endian machine) as 8-bit grey by the Rec. 601 weights, in integers (they
   sum to 256), into `out` (width * height bytes, rows packed). In C: a per-pixel loop that
   Swift compiles without optimisation in a debug build ran ten times slower there. */
static inline void yiana_gray_from_rgb24(const unsigned char *data, int stride, int width, int height, unsigned char *out) {
    for (int y = 0; y < height; y++) {
        const unsigned char *row = data + (long)y * stride;
        unsigned char *line = out + (long)y * width;
        for (int x = 0; x < width; x++) {
            const unsigned char *p = row + 4 * x;
            line[x] = (unsigned char)((p[0] * 29 + p[1] * 150 + p[2] * 77) >> 8);
        }
    }
}

#endif
