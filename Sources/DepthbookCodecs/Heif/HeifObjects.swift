import CHeif

/// Owner types for libheif objects: each frees its C object when the last Swift reference goes.
///
/// libheif's error messages belong to the context, so `check` copies them out at once.
enum Heif {
    /// Throws the `PhotoError` matching a libheif error (code 0 means success).
    static func check(_ error: heif_error, _ doing: String) throws {
        guard error.code != heif_error_Ok else { return }
        let message = error.message.map { String(cString: $0) } ?? "unknown error"
        switch error.code {
        case heif_error_Input_does_not_exist:
            throw PhotoError.unreadable(path: "the data", reason: message)
        case heif_error_Invalid_input:
            if error.subcode == heif_suberror_End_of_data {
                throw PhotoError.truncated("\(doing): \(message)")
            }
            throw PhotoError.corrupt("\(doing): \(message)")
        case heif_error_Unsupported_filetype:
            throw PhotoError.unsupportedFormat(message)
        case heif_error_Unsupported_feature:
            throw PhotoError.unsupportedFormat("\(doing): \(message)")
        case heif_error_Memory_allocation_error:
            throw PhotoError.tooLarge("\(doing): \(message)")
        default:
            throw PhotoError.corrupt("\(doing): \(message)")
        }
    }
}

final class HeifContext {
    let raw: OpaquePointer

    /// Reads a HEIF file from memory (libheif copies the bytes).
    init(bytes: [UInt8], limits: DecodeLimits) throws {
        guard let ctx = heif_context_alloc() else { throw PhotoError.tooLarge("libheif could not allocate a context") }
        raw = ctx
        // libheif's own guard: it refuses images wider or taller than this before allocating.
        let side = Int32(clamping: Int(Double(limits.maxPixels).squareRoot()) + 1)
        heif_context_set_maximum_image_size_limit(ctx, side)
        let error = bytes.withUnsafeBytes { raw in heif_context_read_from_memory(ctx, raw.baseAddress, raw.count, nil) }
        try Heif.check(error, "reading the HEIF structure")
    }

    deinit { heif_context_free(raw) }

    func primaryHandle() throws -> HeifHandle {
        var handle: OpaquePointer?
        try Heif.check(heif_context_get_primary_image_handle(raw, &handle), "finding the primary image")
        guard let handle else { throw PhotoError.corrupt("the HEIF file has no primary image") }
        return HeifHandle(raw: handle, context: self)
    }
}

final class HeifHandle {
    let raw: OpaquePointer
    /// Keeps the context alive as long as its handles.
    let context: HeifContext

    init(raw: OpaquePointer, context: HeifContext) {
        self.raw = raw
        self.context = context
    }

    deinit { heif_image_handle_release(raw) }

    var width: Int { Int(heif_image_handle_get_width(raw)) }
    var height: Int { Int(heif_image_handle_get_height(raw)) }

    /// IDs of auxiliary images (alpha and depth included).
    func auxiliaryIDs() -> [heif_item_id] {
        let n = Int(heif_image_handle_get_number_of_auxiliary_images(raw, 0))
        guard n > 0 else { return [] }
        var ids = [heif_item_id](repeating: 0, count: n)
        let got = Int(heif_image_handle_get_list_of_auxiliary_image_IDs(raw, 0, &ids, Int32(n)))
        return Array(ids.prefix(got))
    }

    func auxiliaryHandle(_ id: heif_item_id) throws -> HeifHandle {
        var handle: OpaquePointer?
        try Heif.check(heif_image_handle_get_auxiliary_image_handle(raw, id, &handle), "opening auxiliary image \(id)")
        guard let handle else { throw PhotoError.corrupt("auxiliary image \(id) is missing") }
        return HeifHandle(raw: handle, context: context)
    }

    /// The auxiliary type URN (`auxC`) of an auxiliary image's handle.
    func auxiliaryType() -> String? {
        var type: UnsafePointer<CChar>?
        let error = heif_image_handle_get_auxiliary_type(raw, &type)
        guard error.code == heif_error_Ok, let name = type else { return nil }
        let urn = String(cString: name)
        heif_image_handle_free_auxiliary_types(raw, &type)
        return urn
    }

    func depthIDs() -> [heif_item_id] {
        let n = Int(heif_image_handle_get_number_of_depth_images(raw))
        guard n > 0 else { return [] }
        var ids = [heif_item_id](repeating: 0, count: n)
        let got = Int(heif_image_handle_get_list_of_depth_image_IDs(raw, &ids, Int32(n)))
        return Array(ids.prefix(got))
    }

    /// Metadata blocks of one type ("Exif", or "mime" for XMP), as bytes.
    /// The most bytes one metadata block or colour profile may claim.
    static let maxMetadataBytes = 16 << 20

    func metadata(type: String, contentType: String? = nil) -> [[UInt8]] {
        let n = Int(heif_image_handle_get_number_of_metadata_blocks(raw, type))
        guard n > 0 else { return [] }
        var ids = [heif_item_id](repeating: 0, count: n)
        let got = Int(heif_image_handle_get_list_of_metadata_block_IDs(raw, type, &ids, Int32(n)))
        var blocks: [[UInt8]] = []
        for id in ids.prefix(got) {
            if let contentType {
                guard let actual = heif_image_handle_get_metadata_content_type(raw, id), String(cString: actual) == contentType else { continue }
            }
            let size = heif_image_handle_get_metadata_size(raw, id)
            // A size read from the file's item table: bounded before it is allocated (EXIF and XMP are small).
            guard size > 0, size <= Self.maxMetadataBytes else { continue }
            var block = [UInt8](repeating: 0, count: size)
            let error = block.withUnsafeMutableBytes { heif_image_handle_get_metadata(raw, id, $0.baseAddress) }
            if error.code == heif_error_Ok { blocks.append(block) }
        }
        return blocks
    }

    /// XMP packets attached to this handle.
    func xmpPackets() -> [String] {
        metadata(type: "mime", contentType: "application/rdf+xml").map { String(decoding: $0, as: UTF8.self) }
    }

    /// The ICC profile bytes, when the image has one.
    func iccProfile() -> [UInt8]? {
        let type = heif_image_handle_get_color_profile_type(raw)
        guard type == heif_color_profile_type_prof || type == heif_color_profile_type_rICC else { return nil }
        let size = heif_image_handle_get_raw_color_profile_size(raw)
        guard size > 0, size <= Self.maxMetadataBytes else { return nil }
        var data = [UInt8](repeating: 0, count: size)
        let error = data.withUnsafeMutableBytes { heif_image_handle_get_raw_color_profile(raw, $0.baseAddress) }
        return error.code == heif_error_Ok ? data : nil
    }

    /// A colour space name from the nclx box (when there is no ICC profile).
    func nclxColorSpace() -> String? {
        guard heif_image_handle_get_color_profile_type(raw) == heif_color_profile_type_nclx else { return nil }
        var nclx: UnsafeMutablePointer<heif_color_profile_nclx>?
        guard heif_image_handle_get_nclx_color_profile(raw, &nclx).code == heif_error_Ok, let nclx else { return nil }
        defer { heif_nclx_color_profile_free(nclx) }
        switch nclx.pointee.color_primaries {
        case heif_color_primaries_ITU_R_BT_709_5: return "sRGB"
        case heif_color_primaries_SMPTE_EG_432_1: return "Display P3"
        case heif_color_primaries_ITU_R_BT_2020_2_and_2100_0: return "BT.2020"
        default: return nil
        }
    }

    /// Decodes into `colorspace`/`chroma` (transformations applied, as libheif does by default).
    /// With `eightBit`, images stored with more than 8 bits (10-bit HDR HEICs) are converted to 8 bits.
    func decode(colorspace: heif_colorspace, chroma: heif_chroma, eightBit: Bool = false, what: String) throws -> HeifImage {
        var image: OpaquePointer?
        let options = heif_decoding_options_alloc()
        defer { heif_decoding_options_free(options) }
        if eightBit, let options { options.pointee.convert_hdr_to_8bit = 1 }
        try Heif.check(heif_decode_image(raw, &image, colorspace, chroma, options), "decoding \(what)")
        guard let image else { throw PhotoError.corrupt("libheif returned no pixels for \(what)") }
        return HeifImage(raw: image)
    }
}

final class HeifImage {
    let raw: OpaquePointer

    init(raw: OpaquePointer) { self.raw = raw }
    deinit { heif_image_release(raw) }

    var width: Int { Int(heif_image_get_width(raw, heif_channel_interleaved)) }

    /// Copies a plane into a tight array: `channels` samples of `bytesPerSample` per pixel.
    func plane(_ channel: heif_channel) throws -> (width: Int, height: Int, bits: Int, data: UnsafePointer<UInt8>, stride: Int) {
        let w = Int(heif_image_get_width(raw, channel)), h = Int(heif_image_get_height(raw, channel))
        var stride: Int32 = 0
        guard w > 0, h > 0, let data = heif_image_get_plane_readonly(raw, channel, &stride) else {
            throw PhotoError.corrupt("the decoded HEIF image has no \(channel) plane")
        }
        return (w, h, Int(heif_image_get_bits_per_pixel_range(raw, channel)), data, Int(stride))
    }
}
