import Foundation

/// What may be uploaded: size, image types checked against the bytes, and the app's allow/block lists.
public enum UploadPolicy {
    /// Image or file endpoint.
    public enum Kind: String, Sendable {
        case image, file
    }

    /// The default and largest per-file limit: 100 MiB.
    public static let defaultSizeLimit = 100 * 1024 * 1024

    /// Stream's image types.
    public static let imageTypes: Set<String> = [
        "image/bmp", "image/gif", "image/jpeg", "image/png", "image/webp", "image/heic", "image/heic-sequence",
        "image/heif", "image/heif-sequence", "image/svg+xml",
    ]

    /// The size limit in force.
    ///
    /// - Parameter config: the app's config for the kind.
    /// - Returns: bytes.
    public static func sizeLimit(_ config: UploadConfig) -> Int {
        config.sizeLimit > 0 ? min(config.sizeLimit, defaultSizeLimit) : defaultSizeLimit
    }

    /// Decides whether a file may be stored and under which content type.
    ///
    /// - Parameters:
    ///   - kind: image or file endpoint.
    ///   - fileName: the part's file name.
    ///   - declaredType: the part's Content-Type, if any.
    ///   - prefix: the file's first bytes.
    ///   - config: the app's config for the kind.
    ///   - keepsDeclaredType: S3's rule for a file whose bytes show no type: the declared one is stored, an image,
    ///     audio, video, PDF or ZIP type included (`storedType`).
    /// - Returns: the content type to store.
    /// - Throws: `UploadRejection` saying which rule failed.
    public static func contentType(
        kind: Kind,
        fileName: String,
        declaredType: String?,
        prefix: [UInt8],
        config: UploadConfig,
        keepsDeclaredType: Bool = false
    ) throws(UploadRejection) -> String {
        let sniffed = MediaSniffer.sniff(prefix)
        var declared: String?
        if let declaredType, !declaredType.trimmingCharacters(in: .whitespaces).isEmpty {
            guard let essence = MediaType.essence(declaredType) else {
                throw UploadRejection("declared content type is not a valid media type (RFC 9110 type/subtype)")
            }
            declared = essence == "application/octet-stream" ? nil : essence
        }
        let contentType: String
        switch kind {
        case .image:
            guard let sniffed, imageTypes.contains(sniffed) else {
                throw UploadRejection(
                    "file is not a supported image; allowed types: \(imageTypes.sorted().joined(separator: ", "))"
                )
            }
            if let declared, !sameImageType(declared, sniffed) {
                throw UploadRejection("declared content type \(declared) does not match the file's bytes (\(sniffed))")
            }
            contentType = sniffed
        case .file:
            contentType = Self.storedType(
                declared: declared,
                sniffed: sniffed,
                fileName: fileName,
                keepsDeclaredType: keepsDeclaredType
            )
        }
        try Self.check(fileName: fileName, contentType: contentType, config: config)
        return contentType
    }

    /// Checks a file announced before its bytes (a request for an upload URL): its name against the
    /// extension lists and its declared type against the type lists. The bytes are checked when they come.
    ///
    /// - Parameters:
    ///   - fileName: the name the file will have.
    ///   - contentType: the declared type's essence (`MediaType.essence`).
    ///   - config: the app's file config.
    /// - Throws: `UploadRejection` saying which rule failed.
    public static func checkAnnounced(
        fileName: String,
        contentType: String,
        config: UploadConfig
    ) throws(UploadRejection) {
        try Self.check(fileName: fileName, contentType: contentType, config: config)
    }

    /// The app's extension and type lists.
    private static func check(fileName: String, contentType: String, config: UploadConfig) throws(UploadRejection) {
        let fileExtension = Self.fileExtension(fileName)
        let allowedExtensions = config.allowedFileExtensions.map(normalisedExtension)
        let blockedExtensions = config.blockedFileExtensions.map(normalisedExtension)
        if !allowedExtensions.isEmpty && !allowedExtensions.contains(fileExtension) {
            throw UploadRejection("file extension .\(fileExtension) is not allowed for this app")
        }
        if blockedExtensions.contains(fileExtension) {
            throw UploadRejection("file extension .\(fileExtension) is blocked for this app")
        }
        let allowedTypes = config.allowedMimeTypes.map(normalised)
        if !allowedTypes.isEmpty && !allowedTypes.contains(contentType) {
            throw UploadRejection("mime type \(contentType) is not allowed for this app")
        }
        if config.blockedMimeTypes.map(normalised).contains(contentType) {
            throw UploadRejection("mime type \(contentType) is blocked for this app")
        }
    }

    /// The type a file is stored and served as. The bytes decide it; a declaration only narrows it (a ZIP
    /// declared as a Word document), never widens it: on the upload routes, bytes the sniffer does not
    /// recognise are never stored as an image, audio, video, PDF or ZIP type, whatever was declared or
    /// whatever the name ends in.
    ///
    /// An S3-addressed write (`keepsDeclaredType`) keeps what its `Content-Type` declared when the bytes show
    /// nothing, as S3 stores it: a backend's `audio/ogg` or `application/pdf` comes back as sent. The bytes
    /// still win where they show a type, so HTML declared as a PNG is stored, and sandboxed, as HTML; and a
    /// declaration names no decoder, since each image loader checks the bytes before it reads them.
    ///
    /// - Parameters:
    ///   - declared: the declared type's essence; nil when none was declared, or `application/octet-stream`.
    ///   - sniffed: the type the first bytes show, if any.
    ///   - fileName: the file's name, whose extension gives a type when nothing else does.
    ///   - keepsDeclaredType: S3's rule: bytes that show nothing take the declared type, whatever it is.
    /// - Returns: the type to store.
    static func storedType(
        declared: String?,
        sniffed: String?,
        fileName: String,
        keepsDeclaredType: Bool = false
    ) -> String {
        let byExtension = MediaSniffer.typeByExtension[fileExtension(fileName)]
        if let sniffed {
            guard let declared else { return sniffed }
            return narrows(declared, sniffed) ? declared : sniffed
        }
        if keepsDeclaredType, let declared { return declared }
        for candidate in [declared, byExtension] {
            if let candidate, !MediaType.isBinaryFormat(candidate) { return candidate }
        }
        return "application/octet-stream"
    }

    /// Whether `declared` is `sniffed` or a more specific kind of it.
    private static func narrows(_ declared: String, _ sniffed: String) -> Bool {
        if declared == sniffed { return true }
        switch sniffed {
        case "application/zip":
            // OOXML, OpenDocument, EPUB, JAR and APK files are ZIP archives.
            return declared.hasPrefix("application/vnd.") || declared == "application/epub+zip"
                || declared == "application/java-archive"
        case "video/mp4":
            // The ISO base media family: the sniffer cannot tell an MP4 audio track or 3GPP apart.
            return declared == "audio/mp4" || declared.hasPrefix("video/3gpp") || declared == "video/x-m4v"
        case "application/xml":
            return MediaType.isActive(declared) && declared.hasSuffix("xml")
        default:
            return sameImageType(declared, sniffed)
        }
    }

    /// A file name safe in a URL and on disk: the last path component, characters outside
    /// `A-Z a-z 0-9 . _ -` replaced by `_`, no leading dots, at most 128 bytes; `file` when nothing is left.
    ///
    /// - Parameter name: the name the client sent.
    /// - Returns: the sanitised name.
    public static func sanitizedFileName(_ name: String) -> String {
        let last = name.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        var safe = String(
            last.unicodeScalars.map { scalar -> Character in
                switch scalar {
                case "A"..."Z", "a"..."z", "0"..."9", ".", "_", "-": Character(scalar)
                default: "_"
                }
            }
        )
        while safe.hasPrefix(".") { safe.removeFirst() }
        if safe.utf8.count > 128 {
            let ext = fileExtension(safe)
            let keep = ext.isEmpty || ext.count > 16 ? "" : "." + ext
            safe = String(safe.prefix(128 - keep.count)) + keep
        }
        return safe.isEmpty ? "file" : safe
    }

    /// Lower-case extension without the dot; empty when there is none.
    static func fileExtension(_ name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return name[name.index(after: dot)...].lowercased()
    }

    private static func normalisedExtension(_ text: String) -> String {
        text.hasPrefix(".") ? String(text.dropFirst()).lowercased() : text.lowercased()
    }

    /// `Image/JPEG; charset=x` -> `image/jpeg`; a configured entry that is no media type matches nothing.
    static func normalised(_ type: String) -> String {
        MediaType.essence(type) ?? ""
    }

    private static func sameImageType(_ declared: String, _ sniffed: String) -> Bool {
        guard let declaredFormat = ImageFormat(mimeType: declared) else { return false }
        return declaredFormat == ImageFormat(mimeType: sniffed)
    }
}
