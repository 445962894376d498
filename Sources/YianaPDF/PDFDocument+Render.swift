internal import CPoppler
internal import CTurboJPEG

/// A page drawn as 8-bit grey pixels, rows top to bottom, `width` bytes per row; 0 is black.
public struct GrayImage: Sendable {
    public let width: Int
    public let height: Int
    /// Pixels per inch it was drawn at.
    public let dpi: Int
    public var pixels: [UInt8]

    public init(width: Int, height: Int, dpi: Int, pixels: [UInt8]) {
        precondition(pixels.count == width * height, "a grey image has width × height pixels")
        self.width = width
        self.height = height
        self.dpi = dpi
        self.pixels = pixels
    }
}

/// How a page image is encoded.
public enum PageImageFormat: String, Sendable {
    case png, jpeg

    public var contentType: String { self == .png ? "image/png" : "image/jpeg" }
}

extension PDFDocument {
    /// The size of page `index` (0-based) in points (1/72 inch), as poppler lays it out; nil
    /// for a page that does not exist.
    public func pageSize(_ index: Int) -> (width: Double, height: Double)? {
        guard index >= 0, index < pageCount, let page = yiana_poppler_document_get_page(handle, Int32(index)) else { return nil }
        defer { yiana_g_object_unref(UnsafeMutableRawPointer(page)) }
        var width = 0.0, height = 0.0
        yiana_poppler_page_get_size(page, &width, &height)
        return (width, height)
    }

    /// The largest side, in pixels, a page is drawn at: a poster-sized page at 300 dpi would
    /// need gigabytes; it is drawn at the resolution that fits instead.
    public static let largestRenderedSide = 12_000

    /// Page `index` (0-based) drawn on white at `dpi` (lowered so that neither side exceeds
    /// ``largestRenderedSide``), as grey pixels. One document must not be used from two
    /// threads at once.
    /// - Throws: ``PDFError`` `.damaged` when the page does not exist or cannot be drawn.
    public func renderGray(page index: Int, dpi requested: Int) throws -> GrayImage {
        guard let size = pageSize(index), size.width > 0, size.height > 0 else {
            throw PDFError(.damaged("page \(index + 1) has no size"), source: source)
        }
        let longest = max(size.width, size.height) / 72
        let dpi = max(1, min(requested, Int(Double(Self.largestRenderedSide) / longest)))
        return try render(page: index, scale: Double(dpi) / 72) { surface, width, height in
            guard let data = yiana_cairo_image_surface_get_data(surface) else {
                throw PDFError(.damaged("page \(index + 1) could not be drawn"), source: source)
            }
            let stride = Int(yiana_cairo_image_surface_get_stride(surface))
            var pixels = [UInt8](repeating: 255, count: width * height)
            pixels.withUnsafeMutableBufferPointer { out in
                yiana_gray_from_rgb24(data, Int32(stride), Int32(width), Int32(height), out.baseAddress)
            }
            return GrayImage(width: width, height: height, dpi: dpi, pixels: pixels)
        }
    }

    /// Page `index` (0-based) drawn in colour on white, `width` pixels wide (at most
    /// ``largestRenderedSide`` on either side), for a screen: as JPEG (quality 85, libjpeg-turbo)
    /// when images cover most of the page (a scan: its pixels are a photograph's, which PNG
    /// encodes five times larger and slower), else as PNG (cairo's encoder: text stays sharp,
    /// and smaller than in JPEG). Measured by Scripts/bench/image-format.sh. Without
    /// libjpeg-turbo every page is PNG. One document must not be used from two threads at once.
    /// - Returns: the encoded image, its format and its size in pixels.
    /// - Throws: ``PDFError`` `.damaged` when the page does not exist or cannot be drawn.
    public func renderImage(page index: Int, width requested: Int) throws -> (bytes: [UInt8], format: PageImageFormat, width: Int, height: Int) {
        guard let size = pageSize(index), size.width > 0, size.height > 0 else {
            throw PDFError(.damaged("page \(index + 1) has no size"), source: source)
        }
        let fit = Double(Self.largestRenderedSide) / max(size.width, size.height)
        let scale = min(Double(max(1, requested)) / size.width, fit)
        let format: PageImageFormat = imageCoverage(index) >= 0.5 && yiana_turbojpeg_failure() == nil ? .jpeg : .png
        return try render(page: index, scale: scale) { surface, width, height in
            let bytes = format == .jpeg ? try jpeg(surface, width: width, height: height, page: index) : try png(surface, page: index)
            return (bytes, format, width, height)
        }
    }

    /// The share of page `index`'s area its images cover (0 to 1).
    public func imageCoverage(_ index: Int) -> Double {
        guard index >= 0, index < pageCount, let page = yiana_poppler_document_get_page(handle, Int32(index)) else { return 0 }
        defer { yiana_g_object_unref(UnsafeMutableRawPointer(page)) }
        return yiana_poppler_page_image_coverage(page)
    }

    private func png(_ surface: OpaquePointer, page index: Int) throws -> [UInt8] {
        final class Sink { var bytes: [UInt8] = [] }
        let sink = Sink()
        let written = withExtendedLifetime(sink) {
            yiana_cairo_write_png(surface, { closure, data, length in
                guard let closure, let data else { return CAIRO_STATUS_WRITE_ERROR }
                Unmanaged<Sink>.fromOpaque(closure).takeUnretainedValue().bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(length)))
                return CAIRO_STATUS_SUCCESS
            }, Unmanaged.passUnretained(sink).toOpaque())
        }
        guard written != 0 else { throw PDFError(.damaged("page \(index + 1) could not be encoded as PNG"), source: source) }
        return sink.bytes
    }

    private func jpeg(_ surface: OpaquePointer, width: Int, height: Int, page index: Int) throws -> [UInt8] {
        guard let data = yiana_cairo_image_surface_get_data(surface) else {
            throw PDFError(.damaged("page \(index + 1) could not be drawn"), source: source)
        }
        var output: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        var why = [CChar](repeating: 0, count: 200)
        let status = yiana_tj_compress_bgrx(data, Int32(width), yiana_cairo_image_surface_get_stride(surface), Int32(height), 85, &output, &size, &why, why.count)
        defer { if let output { yiana_tj_free(output) } }
        guard status == 0, let output else {
            let reason = String(decoding: why.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw PDFError(.damaged("page \(index + 1) could not be encoded as JPEG (\(reason))"), source: source)
        }
        return Array(UnsafeBufferPointer(start: output, count: Int(size)))
    }

    /// Draws page `index` at `scale` (pixels per point) on a white RGB24 cairo surface and
    /// hands it to `body` with its size in pixels.
    private func render<T>(page index: Int, scale: Double, _ body: (OpaquePointer, Int, Int) throws -> T) throws -> T {
        guard let size = pageSize(index), let page = yiana_poppler_document_get_page(handle, Int32(index)) else {
            throw PDFError(.damaged("page \(index + 1) has no size"), source: source)
        }
        defer { yiana_g_object_unref(UnsafeMutableRawPointer(page)) }
        let width = max(1, Int((size.width * scale).rounded())), height = max(1, Int((size.height * scale).rounded()))
        guard let surface = yiana_cairo_image_surface_create(CAIRO_FORMAT_RGB24, Int32(width), Int32(height)) else {
            throw PDFError(.damaged("page \(index + 1) could not be drawn (no memory for \(width)×\(height) pixels)"), source: source)
        }
        defer { yiana_cairo_surface_destroy(surface) }
        guard yiana_cairo_surface_ok(surface) != 0, let cairo = yiana_cairo_create(surface) else {
            throw PDFError(.damaged("page \(index + 1) could not be drawn (no memory for \(width)×\(height) pixels)"), source: source)
        }
        yiana_cairo_set_source_rgb(cairo, 1, 1, 1)
        yiana_cairo_paint(cairo)
        yiana_cairo_scale(cairo, scale, scale)
        yiana_poppler_page_render(page, cairo)
        yiana_cairo_destroy(cairo)
        yiana_cairo_surface_flush(surface)
        return try body(surface, width, height)
    }
}
